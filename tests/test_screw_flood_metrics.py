"""The metrics that pay for mana screw and mana flood, played by both engines on given
libraries: ``screwed``, ``flooded`` and ``compounded_mana`` (docs/guide/metrics.md).

Each game is dealt by hand (library top first, the opening hand given, no mulligan) and
played by the vectorised NumPy engine and by the compiled kernel; both must record the
values the definitions give, turn by turn.
"""

from __future__ import annotations

import pytest
from conftest import both_engines as play_both

pytestmark = pytest.mark.slow  # the compiled game

NAMES = ("screwed", "flooded", "compounded_mana", "mana_spent", "spell_mana", "lands_played")


def both_engines(library, hand, commander=None, turns=4, on_play=True):
    """Per engine, per turn, the metrics of :data:`NAMES` of one game dealt by hand."""
    return play_both(library, hand, NAMES, commander=commander, turns=turns, on_play=on_play)


def column(games, name):
    return [games[turn][name] for turn in sorted(games)]


@pytest.mark.parametrize("engine", ["kernel", "numpy"])
def test_screwed_is_a_missed_land_drop_behind_on_lands_with_a_spell_in_hand(engine):
    # Two Forests, then only Grizzly Bears: turn 3 misses its land drop with 2 lands and
    # Bears in hand (screwed); turn 4 too.
    games = both_engines(["Grizzly Bears"] * 6, ["Forest", "Forest", "Grizzly Bears"])[engine]
    assert column(games, "lands_played") == [1, 2, 2, 2]
    assert column(games, "screwed") == [0, 0, 1, 1]
    assert column(games, "flooded") == [0, 0, 0, 0]


@pytest.mark.parametrize("engine", ["kernel", "numpy"])
def test_a_missed_land_drop_with_nothing_left_to_cast_is_not_screwed(engine):
    # Turn 1: Forest; turn 2: the drawn Forest, Bears cast; turn 3: a Bears drawn, no land
    # to play, but two lands cast it: the hand is empty at the end of the turn.
    games = both_engines(["Forest"] + ["Grizzly Bears"] * 5, ["Forest", "Grizzly Bears"],
                         turns=3)[engine]
    assert column(games, "lands_played") == [1, 2, 2]
    assert column(games, "screwed") == [0, 0, 0]


@pytest.mark.parametrize("engine", ["kernel", "numpy"])
def test_a_missed_land_drop_ahead_on_lands_is_not_screwed(engine):
    # Rampant Growth on turn 2 puts the library's Forest onto the battlefield: three lands
    # on turn 3 with no land drop and an uncastable Lurking Chupacabra in hand is not
    # screwed; turn 4, three lands, is.
    games = both_engines(["Lurking Chupacabra"] * 3 + ["Forest"],
                         ["Forest", "Forest", "Rampant Growth"])[engine]
    assert column(games, "lands_played") == [1, 3, 3, 3]
    assert column(games, "screwed") == [0, 0, 0, 1]


@pytest.mark.parametrize("engine", ["kernel", "numpy"])
def test_flooded_is_no_spell_left_and_more_lands_than_turns(engine):
    # Turn 1: Forest, Bears stays in hand (one mana). Turn 2: a drawn Forest played, Bears
    # cast: no spell left, 2 lands in play and 2 in hand > 2 (flooded). Turn 3 and 4 the
    # same with more lands.
    games = both_engines(["Forest"] * 6, ["Forest", "Forest", "Forest", "Grizzly Bears"])[engine]
    assert column(games, "flooded") == [0, 1, 1, 1]
    assert column(games, "screwed") == [0, 0, 0, 0]
    # An empty hand with exactly as many lands as turns is out of cards, not flooded.
    # Turn 2: the drawn Forest played, Bears cast: an empty hand and two lands.
    curved = both_engines(["Forest", "Forest"], ["Forest", "Grizzly Bears"], turns=2)[engine]
    assert column(curved, "lands_played") == [1, 2]
    assert column(curved, "flooded") == [0, 0]


@pytest.mark.parametrize("engine", ["kernel", "numpy"])
def test_compounded_mana_adds_the_mana_spent_by_each_turn(engine):
    # Three Forests and Grizzly Bears: 0, 2, 2 and 2 mana spent on turns 1-4 (a Bears a turn
    # from turn 2), so mana_spent by turn is 0, 2, 4, 6 and compounded mana 0, 2, 6, 12.
    games = both_engines(["Grizzly Bears"] * 6, ["Forest", "Forest", "Forest",
                                                 "Grizzly Bears"])[engine]
    assert column(games, "mana_spent") == [0, 2, 4, 6]
    assert column(games, "compounded_mana") == [0, 2, 6, 12]


@pytest.mark.parametrize("engine", ["kernel", "numpy"])
def test_compounded_mana_counts_the_mana_of_spells_not_of_abilities(engine):
    # Seeker of Sunlight ({G}) on turn 1, then its ability ({2}{G}: explore) on turn 3: the
    # ability's mana is spent (mana_spent 4) but no spell's (spell_mana 1), as in Karsten's
    # model, where mana is spent on spells only.
    games = both_engines(["Forest"] * 6, ["Forest", "Forest", "Forest", "Seeker of Sunlight"],
                         turns=3)[engine]
    assert column(games, "mana_spent") == [1, 1, 4]
    assert column(games, "spell_mana") == [1, 1, 1]
    assert column(games, "compounded_mana") == [1, 2, 3]


@pytest.mark.parametrize("engine", ["kernel", "numpy"])
def test_a_spell_held_for_want_of_a_target_is_no_spell_left(engine):
    # Brackish Blunder (its target only an opponent has) is never cast in a goldfish game:
    # with it and lands alone in hand, turn 1 (one land in play, one in hand) and turn 2 (two
    # in play, the drawn Forest in hand) flood, and a missed land drop is no screw.
    flood = both_engines(["Forest"] * 4, ["Forest", "Forest", "Brackish Blunder"],
                         turns=2)[engine]
    assert column(flood, "flooded") == [1, 1]
    screw = both_engines(["Brackish Blunder"] * 4, ["Forest", "Brackish Blunder"],
                         turns=2)[engine]
    assert column(screw, "lands_played") == [1, 1] and column(screw, "screwed") == [0, 0]


@pytest.mark.parametrize("engine", ["kernel", "numpy"])
def test_a_commander_in_the_command_zone_is_a_spell_left(engine):
    # Hakbal ({3}{U}{G}) waits in the command zone; the hand holds only lands: with three
    # lands on turn 3 and more in hand, the game is not flooded (the commander is still to
    # cast); with no land drop on turn 2 it is screwed (the commander is a spell left).
    games = both_engines(["Island"] * 5, ["Forest", "Island", "Island", "Island"],
                         commander="Hakbal of the Surging Soul", turns=3)[engine]
    assert column(games, "flooded") == [0, 0, 0]
    screwed = both_engines(["Grizzly Bears"] * 5, ["Forest"],
                           commander="Hakbal of the Surging Soul", turns=2)[engine]
    assert column(screwed, "screwed") == [0, 1]
