"""A land that asks for life to enter untapped (a shock land, a "pay 3 life" face) pays it
only when its mana can be spent this turn (docs/mana.md, "How it enters"), on both engines:
games dealt by hand, on the play, turn by turn.

Queen's Agent ({5}{B}) fills the hands: it cannot be cast in these games.
"""

from __future__ import annotations

import pytest
from conftest import both_engines

pytestmark = pytest.mark.slow  # the compiled game

NAMES = ("lands_played", "tapped_lands_played", "life_paid", "cards_cast", "mana_spent")
AGENT = "Queen's Agent"
TOMB = "Overgrown Tomb"
AGADEEM = "Agadeem's Awakening // Agadeem, the Undercrypt"


def columns(library, hand, turns=3):
    """Per engine, each metric of :data:`NAMES` turn by turn; the engines must agree."""
    games = both_engines(library, hand, NAMES, turns=turns)
    by_engine = {engine: {name: [games[engine][t][name] for t in sorted(games[engine])]
                          for name in NAMES} for engine in games}
    assert by_engine["kernel"] == by_engine["numpy"]
    return by_engine["numpy"]


def test_a_shock_land_pays_no_life_when_the_mana_it_adds_would_not_be_spent():
    # Turn 3: two Forests and a Grizzly Bears; the Tomb's third mana would pay nothing (the
    # Bears cost two): it enters tapped. ("Costs no more than the mana plus one" paid 2.)
    got = columns([AGENT, TOMB, AGENT], ["Forest", "Forest", "Grizzly Bears", "Grizzly Bears",
                                         AGENT, AGENT, AGENT])
    assert got["life_paid"] == [0, 0, 0]
    assert got["tapped_lands_played"] == [0, 0, 1]
    assert got["cards_cast"] == [0, 1, 2] and got["mana_spent"] == [0, 2, 4]


def test_a_shock_land_pays_when_two_spells_together_spend_all_its_mana():
    # Turn 2 casts a Bears (the most expensive first) and keeps the Llanowar Elves drawn.
    # Turn 3: each could be paid by the two Forests alone, but together they cost three.
    got = columns(["Llanowar Elves", TOMB, AGENT],
                  ["Forest", "Forest", "Grizzly Bears", "Grizzly Bears", AGENT, AGENT, AGENT])
    assert got["life_paid"] == [0, 0, 2]
    assert got["tapped_lands_played"] == [0, 0, 0]
    assert got["cards_cast"] == [0, 1, 3] and got["mana_spent"] == [0, 2, 5]


def test_a_shock_land_pays_when_its_colour_pays_a_spell_the_other_lands_cannot():
    # Turn 3: two Forests could pay two mana, but Seekers' Squire needs the Tomb's {B}.
    got = columns([AGENT, TOMB, AGENT, AGENT],
                  ["Forest", "Forest", "Grizzly Bears", "Seekers' Squire", AGENT, AGENT, AGENT])
    assert got["life_paid"] == [0, 0, 2]
    assert got["cards_cast"] == [0, 1, 2] and got["mana_spent"] == [0, 2, 4]


def test_a_spell_waiting_for_a_creature_is_no_reason_to_pay_life():
    # Turn 1: Enter the Unknown ({G}) targets a creature you control and there is none: it
    # waits, so the Tomb's mana would pay nothing this turn. It enters tapped.
    got = columns([AGENT, AGENT], ["Overgrown Tomb", "Enter the Unknown", AGENT, AGENT,
                                   AGENT, AGENT, AGENT], turns=1)
    assert got["life_paid"] == [0] and got["tapped_lands_played"] == [1]


def test_a_second_legendary_copy_is_no_reason_to_pay_life():
    # Turn 2 casts Nicanzil, turn 3 a Grizzly Bears. Turn 4: three lands, a Breeding Pool
    # drawn, a second Nicanzil and a Bears in hand: 2 + 2 is all four mana, but the legend
    # rule keeps the second Nicanzil in hand, so the Pool enters tapped.
    nicanzil = "Nicanzil, Current Conductor"
    got = columns([AGENT, AGENT, "Breeding Pool", AGENT],
                  ["Forest", "Island", "Forest", nicanzil, nicanzil, "Grizzly Bears",
                   "Grizzly Bears"], turns=4)
    assert got["cards_cast"] == [0, 1, 2, 3]
    assert got["life_paid"] == [0, 0, 0, 0] and got["tapped_lands_played"] == [0, 0, 0, 1]


def test_of_two_lands_that_do_the_same_the_one_paying_no_life_is_played():
    # Turn 1: a Forest and a Breeding Pool (2 life) both cast the Llanowar Elves and close
    # the same colour deficit; the Pool makes more colours, but step 5 plays the land that
    # pays no life first. (By colours alone the Pool was played, for 2 life.)
    got = columns([AGENT, AGENT], ["Forest", "Breeding Pool", "Hinterland Harbor",
                                   "Llanowar Elves", "Grizzly Bears", AGENT, AGENT], turns=2)
    assert got["life_paid"] == [0, 0] and got["cards_cast"] == [1, 2]


def test_a_pay_3_life_face_pays_nothing_when_its_colour_pays_no_spell_in_hand():
    # Turn 2: a Swamp and Agadeem, the Undercrypt (black) cannot pay Grizzly Bears ({1}{G}):
    # the face enters tapped, no life paid. (Colours aside, 2 <= 1 + 1 paid 3 life.)
    got = columns([AGADEEM, AGENT], ["Swamp", "Grizzly Bears", "Grizzly Bears",
                                     AGENT, AGENT, AGENT, AGENT], turns=2)
    assert got["life_paid"] == [0, 0]
    assert got["tapped_lands_played"] == [0, 1]
    assert got["cards_cast"] == [0, 0]


def test_a_shock_land_pays_for_an_x_spell_that_takes_the_mana_left():
    # Turn 2: Jadelight Spelunker with X = 1 explores the Tomb into the hand. Turn 3: the
    # second Spelunker (X >= 1) is castable with the two Forests, and its X takes the Tomb's
    # mana too: X = 2.
    got = columns([AGENT, TOMB, AGENT, AGENT, AGENT],
                  ["Forest", "Forest", "Jadelight Spelunker", "Jadelight Spelunker",
                   AGENT, AGENT, AGENT])
    assert got["life_paid"] == [0, 0, 2]
    assert got["cards_cast"] == [0, 1, 2] and got["mana_spent"] == [0, 2, 5]
