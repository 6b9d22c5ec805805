"""The mana rules (docs/mana.md): costs, sources, paying, land templates, land faces, ramp.

Each test names the rule it checks; the exact values at the end are multivariate
hypergeometric probabilities derived here with math.comb.
"""

from __future__ import annotations

import itertools
from math import comb
from pathlib import Path

import numpy as np
import pytest
from conftest import DECKS, both_engines, fixture_cards, scripted_game
from hypothesis import given, settings, strategies as st

import explore_sim
from explore_sim.cards import Card
from explore_sim.cards.costs import ANY_COLOUR, B, C, G, R, S, U, W, cost_modes, parse_produces
from explore_sim.engine.goldfish import GameConfig
from explore_sim.errors import CardError

FIXTURES = Path(__file__).parent / "fixtures"


def play(game, state):
    game.play_turn(state)
    return {name: int(value[0]) for name, value in game.turn_metrics(state).items()}


def castable_now(game, state, name, ids):
    """Can the untapped sources pay the card called ``name`` right now?"""
    rows = np.arange(state.trials)
    kind = np.full(state.trials, ids[name])
    return bool(game.castable_card(kind, game.mana.unit_sets(state, rows))[0])


# ------------------------------------------------------------------ costs (CR 107, 202)


@pytest.mark.parametrize("cost, pips, generic, mana_value", [
    ("{W}{U}{B}{R}{G}", (W, U, B, R, G), 0, 5),
    ("{3}{G}", (G,), 3, 4),
    ("{C}", (C,), 0, 1),
    ("{X}{G}", (G,), 0, 1),
    ("{G/U}", (G | U,), 0, 1),
    ("{S}{1}", (S,), 1, 2),
])
def test_cost_symbols(cost, pips, generic, mana_value):
    (mode,) = cost_modes(cost)
    assert sorted(mode.pips) == sorted(pips) and mode.generic == generic
    assert explore_sim.cards.mana_value_of(cost) == mana_value


def test_monocoloured_hybrid_is_the_colour_or_two_generic():
    modes = cost_modes("{2/G}")
    assert [(m.pips, m.generic) for m in modes] == [((G,), 0), ((), 2)]
    assert explore_sim.cards.mana_value_of("{2/G}") == 2


def test_phyrexian_is_the_colour_or_two_life_and_the_colour_comes_first():
    modes = cost_modes("{1}{G/P}")
    assert [(m.pips, m.generic, m.life) for m in modes] == [((G,), 1, 0), ((), 1, 2)]


def test_phyrexian_goldfish_pays_life_only_when_the_colour_is_missing():
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Phyrexian Grower"],
                                     battlefield=["Forest", "Forest"])
    m = play(game, state)
    assert m["cards_cast"] == 1 and m["life_paid"] == 0 and m["mana_spent"] == 2
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Phyrexian Grower"],
                                     battlefield=["Swamp"])
    m = play(game, state)
    assert m["cards_cast"] == 1 and m["life_paid"] == 2 and m["mana_spent"] == 1


def test_colourless_pip_needs_colourless_mana():
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Eldrazi Grower"],
                                     battlefield=["Forest"] * 4)
    assert play(game, state)["cards_cast"] == 0  # four green mana cannot pay {C}
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Eldrazi Grower"],
                                     battlefield=["Forest", "Forest", "Sol Ring"])
    assert play(game, state)["cards_cast"] == 1


def test_snow_pip_needs_a_snow_source():
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Snow Grower"],
                                     battlefield=["Forest", "Forest"])
    assert play(game, state)["cards_cast"] == 0
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Snow Grower"],
                                     battlefield=["Forest", "Snow-Covered Forest"])
    assert play(game, state)["cards_cast"] == 1


def test_hybrid_pips_accept_either_colour():
    for land in ("Forest", "Plains"):
        game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Kitchen Finks"],
                                         battlefield=[land] * 3)
        assert play(game, state)["cards_cast"] == 1, land
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Kitchen Finks"],
                                     battlefield=["Island"] * 3)
    assert play(game, state)["cards_cast"] == 0


def test_split_card_has_both_halves_mana_value_and_is_cast_as_either_half():
    card = fixture_cards().get("Find // Finality")
    assert card.mana_value == 2 + 6
    assert [m.half for m in card.cost_modes] == [0, 1]
    # Find returns creature cards from the graveyard: no effect a goldfish game plays, so
    # it is never cast. A split card whose halves draw is cast as its cheaper half.
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Find // Finality"],
                                     battlefield=["Swamp", "Forest"])
    assert play(game, state)["cards_cast"] == 0
    seek = Card(name="Seek // Sought", mana_cost="{B/G}{B/G} // {4}{B}{G}",
                type_line="Sorcery // Sorcery", layout="split", keywords=("draw",))
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Seek // Sought"],
                                     battlefield=["Swamp", "Forest"], cards=[seek])
    m = play(game, state)
    assert m["cards_cast"] == 1 and m["mana_spent"] == 2  # Seek, {B/G}{B/G}


def test_x_counts_zero_and_spelunker_takes_the_mana_left():
    game, state, ids = scripted_game(["Grizzly Bears"] * 6, hand=["Jadelight Spelunker"],
                                     battlefield=["Forest", "Island", "Island"])
    m = play(game, state)  # {X}{G}: G from the Forest, X = 2 from the Islands
    assert m["explores"] == 2 and m["mana_spent"] == 3


def test_malformed_costs_and_produces_are_refused():
    for cost in ("{G", "{Q}", "{G/Q}", "G"):
        with pytest.raises(CardError):
            cost_modes(cost)
    for text in ("Q", "G+Q", "G" * 20):
        with pytest.raises(CardError):
            parse_produces(text)


# ------------------------------------------------------------------ sources (CR 302.6, 305.6)


def test_basic_land_types_make_their_colours():
    sources = fixture_cards()
    assert sources.get("Overgrown Tomb").mana_units() == (B | G,)
    assert sources.get("Forest").mana_units() == (G,)
    assert sources.get("Snow-Covered Forest").mana_units() == (G | S,)
    assert sources.get("Wastes").mana_units() == (C,)  # {T}: Add {C}.


def _shipped_and_fixture_cards():
    from explore_sim.cards.card_files import load_card_file

    files = sorted(DECKS.glob("*.cards.toml")) + sorted((FIXTURES / "cards").glob("*.toml"))
    yield from ((card, "built-in") for card in explore_sim.cards.Catalog.builtin())
    for path in files:
        yield from ((card, path.name) for card in load_card_file(path))


def test_every_land_of_the_catalog_and_shipped_card_files_makes_mana():
    """A land (or land face) makes no mana only when its text says so: a land that sacrifices
    itself to search, or one whose card data says ``produces = "none"``."""
    silent = []
    for card, where in _shipped_and_fixture_cards():
        for face in (card, card.land_face):
            if face is None or not face.is_land:
                continue
            if not face.mana_units(ANY_COLOUR) and not face.fetch and face.produces != "none":
                silent.append((where, face.name))
    assert not silent


def test_wastes_make_colourless_mana_and_cast_spells():
    sources = fixture_cards()
    deck = explore_sim.deck_from_counts({"Wastes": 24, "Cartographer's Companion": 36},
                                        catalog=sources)
    result = explore_sim.simulate(deck, turns=3, trials=2_000, seed=1)
    means = result.summary().set_index(["turn", "metric"])["mean"]
    assert means[(1, "mana_available")] == 1 and means[(3, "mana_spent")] > 2


def test_a_land_that_makes_no_mana_must_say_so():
    with pytest.raises(CardError, match="a land that makes no mana"):
        Card(name="Mystery Land", mana_cost="", type_line="Land")
    assert Card(name="Maze", mana_cost="", type_line="Land", produces="none").mana_units() == ()
    with pytest.raises(CardError, match="its land face: .*a land that makes no mana"):
        Card(name="Spell // Mystery Land", mana_cost="{G}", type_line="Sorcery // Land",
             layout="modal_dfc")


def test_produces_text():
    assert parse_produces("BG") == (B | G,)
    assert parse_produces("any") == (ANY_COLOUR,)
    assert parse_produces("CC") == (C, C)
    assert parse_produces("G+U") == (G, U)
    assert parse_produces("commander", B | G) == (B | G,)
    assert parse_produces("commander") == ()


def test_mana_creature_is_a_source_from_the_turn_after_it_enters():
    game, state, ids = scripted_game(["Grizzly Bears", "Grizzly Bears", "Grizzly Bears"],
                                     hand=["Llanowar Elves", "Grizzly Bears", "Forest"])
    m = play(game, state)  # turn 1: Forest, Elves; the Elves are summoning sick
    assert m["cards_cast"] == 1 and m["mana_available"] == 1
    m = play(game, state)  # turn 2: no land in hand; Forest + Elves cast Grizzly Bears
    assert m["mana_available"] == 2 and m["cards_cast"] == 2 and m["lands_played"] == 1
    game, state, ids = scripted_game(["Grizzly Bears"] * 3,
                                     hand=["Llanowar Elves", "Llanowar Elves", "Forest"])
    m = play(game, state)  # the first Elves cannot pay for the second on turn 1
    assert m["cards_cast"] == 1 and state.hand[0, ids["Llanowar Elves"]] == 1
    m = play(game, state)
    assert m["cards_cast"] == 2


def test_a_creature_tapped_for_mana_does_not_attack():
    game, state, ids = scripted_game(["Grizzly Bears"] * 5, hand=["Grizzly Bears"],
                                     battlefield=["Forest", "Llanowar Elves", "Glowcap Lantern"])
    state.equipped[0] = 1
    m = play(game, state)  # the Elves pay for the Bears, so nothing attacks with the Lantern
    assert m["cards_cast"] == 1 and m["explores"] == 0


def test_mana_rock_is_a_source_at_once():
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Sol Ring", "Grizzly Bears"],
                                     battlefield=["Forest"])
    m = play(game, state)  # Sol Ring (1), then {C}{C} + ... Bears needs G: the Forest is used
    assert m["cards_cast"] == 1
    game, state, ids = scripted_game(["Grizzly Bears"] * 3,
                                     hand=["Sol Ring", "Eldrazi Grower", "Forest"],
                                     battlefield=["Forest"])
    m = play(game, state)  # Forest, Forest: Sol Ring; {C}{C} + G pay {2}{C}
    assert m["cards_cast"] == 2 and m["mana_spent"] == 4


def test_mana_a_source_makes_beyond_the_cost_stays_in_the_pool_for_the_next_spell():
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Sol Ring", "Sol Ring"],
                                     battlefield=["Sol Ring"])
    m = play(game, state)  # {C}{C}: one pays the first Sol Ring, the other the second
    assert m["cards_cast"] == 2 and m["mana_spent"] == 2
    assert state.tapped[0, ids["Sol Ring"]] == 1


def test_bounce_land_mana_in_the_pool_pays_a_spell():
    game, state, ids = scripted_game(["Grizzly Bears"] * 3,
                                     hand=["Golgari Rot Farm", "Llanowar Elves"],
                                     battlefield=["Forest"])
    m = play(game, state)  # the Forest's G, made before it returns to hand, casts the Elves
    assert m["cards_cast"] == 1 and state.battlefield[0, ids["Llanowar Elves"]] == 1


def test_signet_needs_one_other_mana_and_makes_two_colours():
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Nicanzil, Current Conductor"],
                                     battlefield=["Swamp", "Simic Signet"])
    m = play(game, state)  # Swamp -> Signet -> {G}{U}: Nicanzil
    assert m["cards_cast"] == 1 and m["mana_spent"] == 2
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Nicanzil, Current Conductor"],
                                     battlefield=["Simic Signet"])
    assert play(game, state)["cards_cast"] == 0


def test_a_signet_is_activated_rather_than_left_without_mana_to_pay_for_it():
    """Turn 3 with Island, two Forests and Simic Signet: Jadelight Ranger ({1}{G}{G}) taps a
    land for the Signet and pays with its {G}{U} and a Forest, so a land is left for the
    Map Spyglass Siren made on turn 1: all 4 mana spent, 3 explores (the three lands alone
    would pay the Ranger and leave the Signet idle, no mana to activate it). Jadelight
    Spelunker, whose X takes all the mana, has the Signet's too: X = 3, not 2. Both engines,
    game by game."""
    names = ("mana_spent", "explores")
    games = both_engines(["Grizzly Bears"] * 8, ["Island", "Forest", "Forest", "Simic Signet",
                                                 "Jadelight Ranger", "Spyglass Siren",
                                                 "Grizzly Bears"], names, turns=3)
    assert games["kernel"] == games["numpy"]
    turn_2, turn_3 = games["numpy"][2], games["numpy"][3]
    assert turn_3["mana_spent"] - turn_2["mana_spent"] == 4
    assert turn_3["explores"] == 3
    games = both_engines(["Grizzly Bears"] * 8, ["Island", "Forest", "Forest", "Simic Signet",
                                                 "Jadelight Spelunker"], names, turns=3)
    assert games["kernel"] == games["numpy"]
    assert games["numpy"][3]["explores"] == 3


def test_two_signets_fed_by_forests_make_two_blue():
    """Four Forests and two Simic Signets: each Signet is fed a Forest's {G}, not the {U} the
    other made, so the mana is {G}{G}{U}{U} and more, and Twin Tides Test Card
    ({G}{G}{U}{U}) can be cast on turn 4 (a deck of green spells, where blue was the colour
    taken first, never could). Both engines, game by game."""
    card = "Twin Tides Test Card"
    names = ("cards_cast", "mana_spent", f"castable:{card}")
    games = both_engines(["Forest"] * 3 + ["Grizzly Bears"] * 8,
                         ["Forest", "Simic Signet", "Simic Signet", card] + ["Grizzly Bears"] * 3,
                         names, turns=5, castable=(card,))
    assert games["kernel"] == games["numpy"]
    numpy = games["numpy"]
    assert [numpy[t][f"castable:{card}"] for t in (3, 4, 5)] == [0, 1, 1]
    assert numpy[4]["mana_spent"] - numpy[3]["mana_spent"] == 6  # four Forests, two Signets


def test_pain_land_colour_costs_life_colourless_does_not():
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Grizzly Bears"],
                                     battlefield=["Llanowar Wastes", "Swamp"])
    m = play(game, state)  # G from the Wastes (1 life), generic from the Swamp
    assert m["cards_cast"] == 1 and m["life_paid"] == 1
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Grizzly Bears"],
                                     battlefield=["Llanowar Wastes", "Forest"])
    m = play(game, state)  # G from the Forest, generic {C} from the Wastes: no life
    assert m["cards_cast"] == 1 and m["life_paid"] == 0


def test_generic_mana_is_paid_with_the_colour_the_rest_of_the_hand_needs_least():
    """Merfolk Branchwalker ({1}{G}) pays its generic mana with a Forest, not the Island that
    Merfolk Cave-Diver ({2}{U}), still in hand, needs (a fixed Island-first order would
    leave three Forests)."""
    game, state, ids = scripted_game(["Grizzly Bears"] * 3,
                                     hand=["Merfolk Branchwalker", "Merfolk Cave-Diver"],
                                     battlefield=["Forest"] * 4 + ["Island"])
    m = play(game, state)
    assert m["cards_cast"] == 2 and m["mana_spent"] == 5
    game, state, ids = scripted_game(["Grizzly Bears"] * 3,  # and the other way round
                                     hand=["Merfolk Branchwalker", "Grizzly Bears"],
                                     battlefield=["Forest", "Forest", "Island", "Island"])
    m = play(game, state)
    assert m["cards_cast"] == 2 and m["mana_spent"] == 4


def test_generic_mana_spares_no_colour_for_a_card_never_cast():
    """Two Fanatical Offering ({1}{B}, no effect a goldfish game plays: never cast) in hand
    do not make the Swamps worth keeping: with two Forests and two Swamps, Merfolk
    Branchwalker ({1}{G}) pays its {1} with a Swamp, the colour the rest of the hand (Green
    Giant's {G}{G}) needs least. Counting the Offerings' pips, black tied with green in
    hand, the library (Offerings) asked for black, and the {1} took the second Forest."""
    game, state, ids = scripted_game(["Fanatical Offering"] * 6,
                                     hand=["Merfolk Branchwalker", "Fanatical Offering",
                                           "Fanatical Offering", "Green Giant Test Card"],
                                     battlefield=["Forest", "Forest", "Swamp", "Swamp"])
    m = play(game, state)
    assert m["cards_cast"] == 1 and m["mana_spent"] == 2
    assert state.tapped[0, ids["Forest"]] == 1 and state.tapped[0, ids["Swamp"]] == 1


def test_generic_mana_spares_the_colour_a_spell_the_mana_left_casts_needs():
    """With an Island and three Forests, Merfolk Branchwalker ({1}{G}) pays its generic mana
    with a Forest: the {G}{U} spell the two mana left can cast needs the Island, though the
    rest of the hand asks for more green than blue (Green Giant's {3}{G}{G} waits for more
    mana than is left, and sources untap next turn). Counting the whole hand's pips, the
    Island paid and the {G}{U} spell stayed in hand."""
    game, state, ids = scripted_game(["Green Giant Test Card"] * 3,
                                     hand=["Merfolk Branchwalker", "Simic Test Card",
                                           "Green Giant Test Card"],
                                     battlefield=["Island"] + ["Forest"] * 3)
    m = play(game, state)
    assert m["cards_cast"] == 2 and m["mana_spent"] == 4
    assert state.battlefield[0, ids["Simic Test Card"]] == 1


def test_generic_mana_spares_the_spells_the_mana_left_casts_together():
    """With three Forests and an Island, Wildgrowth Walker ({1}{G}, cast first: the mana pays
    it and the next spell) pays its {1} with a Forest: of the spells two mana could cast
    together, in the casting order without the payoffs' group, River Herald Scout ({1}{U})
    comes first, and it needs the Island; it is cast next (all four mana spent). Counting
    every spell the two mana could cast alone (Cenote Scout's {G}, Spyglass Siren's {U}, the
    Scout's {U} and a second Walker's {G}: each colour equally short), the Island paid, Cenote
    Scout took one Forest and the last stayed untapped beside the Siren (a game a player
    replayed: turn 4)."""
    game, state, ids = scripted_game(["Green Giant Test Card"] * 3,
                                     hand=["Wildgrowth Walker", "Wildgrowth Walker",
                                           "Cenote Scout", "Spyglass Siren",
                                           "River Herald Scout"],
                                     battlefield=["Forest"] * 3 + ["Island"])
    m = play(game, state)
    assert m["cards_cast"] == 2 and m["mana_spent"] == 4
    assert state.battlefield[0, ids["River Herald Scout"]] == 1


def both_cast(hand, battlefield, left_for):
    """The two spells of ``hand`` are cast with the four mana of ``battlefield`` (the
    library: three {3}{G}{G} creatures), ``left_for`` among them."""
    game, state, ids = scripted_game(["Green Giant Test Card"] * 3, hand=hand,
                                     battlefield=battlefield)
    m = play(game, state)
    assert m["cards_cast"] == 2 and m["mana_spent"] == 4
    assert state.battlefield[0, ids[left_for]] == 1


@pytest.mark.parametrize("hand, battlefield, left_for", [
    # {2}{G}: a Forest and an Island pay the {2}, not both Islands (each Island spared alone
    # would leave one for Spyglass Siren's {U}; both would leave none)
    (["River Herald Guide", "Spyglass Siren", "Green Giant Test Card"],
     ["Forest", "Forest", "Island", "Island"], "Spyglass Siren"),
    # the same with Jadelight Spelunker ({X}{G}, cast with X >= 1, before the {U} creature in
    # the casting order): the one mana left cannot cast it, so its {G} does not count against
    # the Forest
    (["River Herald Guide", "Blue Test Card", "Jadelight Spelunker"],
     ["Forest", "Forest", "Island", "Island"], "Blue Test Card"),
    # {2}{U}: Restless Anchorage (W or U: the more flexible) pays before the Forest that
    # Cenote Scout's {G} needs
    (["Merfolk Cave-Diver", "Cenote Scout"],
     ["Forest", "Forest", "Island", "Restless Anchorage"], "Cenote Scout"),
])
def test_generic_mana_leaves_the_fewest_pips_short_however_much_it_takes(hand, battlefield,
                                                                        left_for):
    """Each unit of generic mana is paid by the class whose unit leaves the spells the mana
    left could cast short of the fewest pips, before flexibility: both spells are cast. A
    shortfall not counted again after each unit, or ranked after flexibility, left the
    second in hand."""
    both_cast(hand, battlefield, left_for)


def test_generic_mana_spares_no_colour_for_a_second_legendary_permanent():
    """With Nicanzil in play, Merfolk Cave-Diver ({2}{U}) pays its {2} with an Island and a
    Forest, leaving one of each for Twists and Turns ({G}) and Spyglass Siren ({U}): all
    three are cast. Counting the pips of the second Nicanzil ({G}{U}, which the legend rule
    keeps in hand) as a spell the mana left could cast, the {2} took both Islands and the
    Siren stayed in hand (a game a player replayed: merfolk, seed 1, trial 1225, turn 5)."""
    game, state, ids = scripted_game(["Green Giant Test Card"] * 3,
                                     hand=["Merfolk Cave-Diver",
                                           "Twists and Turns // Mycoid Maze", "Spyglass Siren",
                                           "Nicanzil, Current Conductor"],
                                     battlefield=["Island"] * 3 + ["Forest"] * 2
                                     + ["Nicanzil, Current Conductor"])
    m = play(game, state)
    assert m["cards_cast"] == 3 and m["mana_spent"] == 5
    assert state.battlefield[0, ids["Spyglass Siren"]] == 1


@pytest.mark.parametrize("hand, battlefield, left_for", [
    # Nicanzil ({G}{U}): its {U} from Breeding Pool (G or U), not Watery Grave (U or B), the
    # one black source Seekers' Squire ({1}{B}) needs
    (["Nicanzil, Current Conductor", "Seekers' Squire"],
     ["Forest", "Breeding Pool", "Watery Grave", "Llanowar Elves"], "Seekers' Squire"),
    # the same with a Forest for the Elves: the generic {1} takes a Forest
    (["Nicanzil, Current Conductor", "Seekers' Squire"],
     ["Forest", "Forest", "Breeding Pool", "Watery Grave"], "Seekers' Squire"),
])
def test_a_pip_is_paid_by_the_land_the_spells_left_need_least(hand, battlefield, left_for):
    """Of the lands that can pay a pip (and leave the rest of the cost payable), the one
    whose colours the spells the mana left could still cast need least pays it, before the
    least flexible order: both spells are cast. Paid in that order alone, Nicanzil's {U}
    took the Watery Grave (a sultai game a player checked: seed 1, trial 81, turn 3)."""
    both_cast(hand, battlefield, left_for)


def test_generic_mana_is_paid_one_unit_at_a_time():
    """Merfolk Cave-Diver ({2}{U}), with three Islands and two Forests, pays its {2} with
    one Island and one Forest: after its {U}, either class alone paying the {2} would leave
    one of the two spells the mana left could cast short, but one unit of each leaves none
    short. A class paying all of the generic part it can (the units' order found once)
    took both Islands and left Spyglass Siren ({U}) in hand."""
    game, state, ids = scripted_game(["Green Giant Test Card"] * 3,
                                     hand=["Merfolk Cave-Diver",
                                           "Twists and Turns // Mycoid Maze", "Spyglass Siren"],
                                     battlefield=["Island"] * 3 + ["Forest"] * 2)
    m = play(game, state)
    assert m["cards_cast"] == 3 and m["mana_spent"] == 5
    assert state.battlefield[0, ids["Spyglass Siren"]] == 1


def test_generic_mana_spares_no_colour_for_a_spell_waiting_for_a_creature():
    """Cultivate ({2}{G}), with two Forests and two Islands and no creature in play, pays its
    {2} with an Island and a Forest and leaves an Island for a {U} creature: Enter the
    Unknown ({G}) waits for a creature you control, so its {G} is not spared (counted, the
    {2} took both Islands and the {U} creature stayed in hand)."""
    game, state, ids = scripted_game(["Green Giant Test Card"] * 3,
                                     hand=["Cultivate", "Enter the Unknown",
                                           "Blue Test Card"],
                                     battlefield=["Forest"] * 2 + ["Island"] * 2)
    m = play(game, state)
    assert state.battlefield[0, ids["Blue Test Card"]] == 1
    assert m["cards_cast"] == 2 and m["mana_spent"] == 4


@pytest.mark.parametrize("hand, library, turn, cast, spent", [
    # turn 4: Merfolk Branchwalker ({1}{G}) pays its {1} with an Island, not the Forest that
    # Enter the Unknown ({G}) needs: the second Nicanzil in hand is never cast
    (["Island", "Forest", "Island", "Forest", "Nicanzil, Current Conductor",
      "Nicanzil, Current Conductor", "River Herald Guide"],
     ["Enter the Unknown", "Merfolk Branchwalker", "Spyglass Siren"] + ["Blue Test Card"] * 6,
     4, 5, 9),
    # turn 3, no creature in play: Rampant Growth ({1}{G}) pays its {1} with a Forest, not
    # the Island a {U} creature needs: Enter the Unknown ({G}) waits for a creature
    (["Forest", "Forest", "Rampant Growth", "Enter the Unknown", "Blue Test Card",
      "Green Giant Test Card", "Green Giant Test Card"],
     ["Green Giant Test Card", "Island", "Island", "Green Giant Test Card", "Rampant Growth"],
     3, 3, 5),
])
def test_both_engines_spare_no_colour_for_a_spell_the_casting_pass_cannot_cast(
        hand, library, turn, cast, spent):
    """Generic mana spares the colours of the spells the casting pass could cast next with
    the mana left, not those of a second legendary permanent or of a spell waiting for a
    creature you control: in both engines every spell the turn's mana pays is cast."""
    games = both_engines(library, hand, ["cards_cast", "mana_spent"], turns=turn)
    assert games["kernel"] == games["numpy"]
    assert games["numpy"][turn] == {"cards_cast": cast, "mana_spent": spent}


def test_least_flexible_sources_are_tapped_first():
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Cenote Scout", "Spyglass Siren"],
                                     battlefield=["Forest", "Breeding Pool"])
    m = play(game, state)  # Cenote Scout taps the Forest, leaving the dual for the Siren
    assert m["cards_cast"] == 2


# ------------------------------------------------------------------ exact castability


def brute_force(units, pips, generic):
    """Try every assignment of pips to distinct units."""
    if len(units) < len(pips) + generic:
        return False
    for chosen in itertools.permutations(range(len(units)), len(pips)):
        if all(units[u] & pip for u, pip in zip(chosen, pips)):
            return True
    return False


unit_masks = st.sampled_from([W, U, B, G, B | G, U | G, W | U, ANY_COLOUR, C, C | U | G, G | S])
pip_masks = st.sampled_from([W, U, B, G, B | G, U | G, C, S])


@settings(max_examples=300, deadline=None)
@given(st.lists(unit_masks, max_size=7), st.lists(pip_masks, max_size=4), st.integers(0, 3))
@pytest.mark.slow
def test_hall_condition_agrees_with_a_brute_force_matcher(units, pips, generic):
    pip_text = "".join("{" + {W: "W", U: "U", B: "B", G: "G", C: "C", S: "S",
                              B | G: "B/G", U | G: "G/U"}[p] + "}" for p in pips)
    cost = (f"{{{generic}}}" if generic else "") + pip_text or "{0}"
    land_text = {W: "W", U: "U", B: "B", G: "G", B | G: "BG", U | G: "UG", W | U: "WU",
                 ANY_COLOUR: "any", C: "C", C | U | G: "CUG", G | S: "G"}
    cards = [Card(name=f"Source {i}", mana_cost="", produces=land_text[m],
                  type_line="Snow Land" if m == G | S else "Land") for i, m in enumerate(units)]
    spell = Card(name="Spell", mana_cost=cost, type_line="Sorcery")
    features = explore_sim.FeatureTable.from_cards([spell, *cards])
    from explore_sim.engine.paying import ManaTables

    tables = ManaTables(features)
    counts = np.zeros((1, tables.n_classes), dtype=np.int32)
    for card in cards:
        counts[0] += features.source_units[features.id_of(card)]
    mode = tables.card_modes[1][0]
    assert bool(tables.payable(counts, mode)[0]) == brute_force(units, pips, generic)
    if brute_force(units, pips, generic):  # and the payment found is a valid one
        payment = tables.allocate(counts, mode)
        spent = [int(tables.class_mask[c]) for c in range(tables.n_classes)
                 for _ in range(int(payment.used[0, c]))]
        assert len(spent) == len(pips) + generic and brute_force(spent, pips, generic)


@pytest.mark.parametrize("deck", ["xln_sultai_explore.txt", "lci_merfolk_explore.txt",
                                  "golgari_explore.txt"])
def test_the_lookup_table_is_the_exact_test_for_any_amount_of_mana(deck):
    import copy

    from explore_sim.engine.paying import ManaTables

    tables = ManaTables(explore_sim.load_deck(DECKS / deck).features(), ["{1}"])
    assert tables.lookup is not None
    hall = copy.copy(tables)
    hall.lookup = None  # the exact test computed each time
    rng = np.random.default_rng(0)
    rows = 20_000
    units = rng.integers(0, tables.cap + 3, size=(rows, tables.n_classes), dtype=np.int32)
    units *= rng.random(units.shape) < 0.4  # most classes empty, some past the cap
    modes = rng.integers(0, len(tables.modes), size=rows)
    looked_up, computed = tables.payable(units, modes), hall.payable(units, modes)
    np.testing.assert_array_equal(looked_up, computed)
    assert looked_up.mean() > 0.1 and (~looked_up).mean() > 0.1
    everyone = np.arange(rows)
    np.testing.assert_array_equal(tables.payable_rows(units, everyone[::-1], modes[::-1]),
                                  computed[::-1])
    for mode in range(len(tables.modes)):  # and the pips paid as read from it are allocate's
        payable = units[tables.payable(units, mode)]
        used, life = tables._allocation(mode)
        payment = tables.allocate(payable, mode)
        from_table = used[tables.keys(payable)]
        tables._pay_generic(payable - from_table, from_table, tables.modes[mode], False, None)
        np.testing.assert_array_equal(from_table, payment.used)
        np.testing.assert_array_equal(life[tables.keys(payable)], payment.life)


@pytest.mark.parametrize("deck", ["golgari_explore.txt", "xln_sultai_explore.txt",
                                  "lci_merfolk_explore.txt"])
def test_games_with_the_lookup_table_are_the_games_without_it(deck, monkeypatch):
    from explore_sim.analysis.simulate import play_games
    from explore_sim.engine import paying as mana
    from explore_sim.engine.mulligan import MulliganRule
    from explore_sim.engine.policies import as_policy

    loaded = explore_sim.load_deck(DECKS / deck)
    assert mana.ManaTables(loaded.features(), ["{1}"]).lookup is not None  # both ways differ
    ranger = [card for card in loaded.features().cards if card.name == "Jadelight Ranger"]

    def games():
        config = GameConfig(turns=6, castable=tuple(ranger))
        return play_games(loaded, config, as_policy("forge"), MulliganRule("london"), 3000,
                          np.random.SeedSequence(7))

    looked_up = games()
    monkeypatch.setattr(mana, "LOOKUP_LIMIT", 0)  # the exact test computed pair by pair
    computed = games()
    for turn, metrics in computed.items():
        for name, values in metrics.items():
            np.testing.assert_array_equal(looked_up[turn][name], values, err_msg=f"{name}@{turn}")
    assert computed[6]["colour_screwed"].any() and computed[6]["cards_cast"].any()


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="{}WUBRGCSXP/0123456789 ", max_size=24))
def test_cost_parser_accepts_or_refuses_cleanly(text):
    try:
        modes = cost_modes(text)
    except CardError:
        return
    for mode in modes:
        assert mode.generic >= 0 and mode.life >= 0 and all(pip > 0 for pip in mode.pips)


# ------------------------------------------------------------------ lands entering


def enters_untapped(battlefield, land, hand=("Grizzly Bears",)):
    game, state, ids = scripted_game(["Grizzly Bears"] * 4, hand=[land, *hand],
                                     battlefield=battlefield)
    game.untap_and_draw(state)
    from explore_sim.engine import lands

    lands.play_land(game.play, state, np.arange(1))
    return bool(state.tapped[0, ids[land]] == 0), game, state


@pytest.mark.parametrize("battlefield, untapped", [([], False), (["Forest"], True),
                                                   (["Island"], False), (["Swamp"], True)])
def test_check_land(battlefield, untapped):
    assert enters_untapped(battlefield, "Woodland Cemetery")[0] is untapped


@pytest.mark.parametrize("others, untapped", [(0, True), (2, True), (3, False)])
def test_fast_land(others, untapped):
    assert enters_untapped(["Island"] * others, "Botanical Sanctum")[0] is untapped


@pytest.mark.parametrize("others, untapped", [(0, False), (1, False), (2, True), (4, True)])
def test_slow_land(others, untapped):
    assert enters_untapped(["Swamp"] * others, "Deathcap Glade")[0] is untapped


def test_shock_land_pays_two_life_only_when_its_mana_is_wanted():
    untapped, game, state = enters_untapped(["Forest"], "Overgrown Tomb")  # Bears castable
    assert untapped and state.totals["life_paid"][0] == 2
    untapped, game, state = enters_untapped(["Forest"], "Overgrown Tomb", hand=())
    assert not untapped and state.totals["life_paid"][0] == 0


def test_shock_land_pays_two_life_for_a_card_named_by_castable():
    """A card named by ``castable`` is wanted as if held: a Forest on turn 1, then Breeding
    Pool, drawn, is the only land; with River Herald Scout ({1}{U}) named, the Pool's {U} lets
    the Scout be paid, so it pays 2 life to enter untapped; with nothing named (the Ravenous
    Chupacabras in hand cost 4) it enters tapped. Both engines, game by game."""
    names = ("life_paid", "tapped_lands_played", "lands_played")
    for castable, life in ((("River Herald Scout",), 2), ((), 0)):
        games = both_engines(["Breeding Pool"] + ["Grizzly Bears"] * 3,
                             ["Forest"] + ["Ravenous Chupacabra"] * 6, names, turns=2,
                             castable=castable)
        assert games["kernel"] == games["numpy"]
        assert games["numpy"][2] == {"life_paid": life, "tapped_lands_played": 0 if life else 1,
                                     "lands_played": 2}


def test_guildgate_enters_tapped_and_counts_as_a_tapped_land_drop():
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Golgari Guildgate"],
                                     battlefield=["Forest"])
    m = play(game, state)
    assert m["tapped_lands_played"] == 1 and m["mana_available"] == 1


def test_temple_scries_by_the_scry_policy():
    game, state, ids = scripted_game(["Grizzly Bears", "Forest"], hand=["Temple of Malady"],
                                     policy="mill")
    play(game, state)
    assert state.totals["scries"][0] == 1
    assert game.peek(state, np.arange(1))[0] == ids["Forest"]  # the Bears went to the bottom


def test_bounce_land_returns_a_land_tapped_for_mana_first():
    game, state, ids = scripted_game(["Grizzly Bears"] * 3,
                                     hand=["Golgari Rot Farm", "Grizzly Bears"],
                                     battlefield=["Forest"])
    m = play(game, state)
    # The Forest is tapped for G (kept in the pool), returned to hand; the G and ... one mana
    assert state.hand[0, ids["Forest"]] == 1 and m["lands_played"] == 1
    assert state.battlefield[0, ids["Golgari Rot Farm"]] == 1


def test_bounce_land_returns_the_copy_it_tapped_and_the_other_copies_stay_untapped():
    """Two untapped Forests, then Golgari Rot Farm: one Forest is tapped for G and returned,
    the other stays untapped, so the G in the pool and that Forest cast a Grizzly Bears on
    turn 3 (the Forest that returned took its tapped state with it). Both engines, game by
    game."""
    names = ("mana_available", "cards_cast", "lands_played")
    bears = "Grizzly Bears"
    games = both_engines([bears] * 4, ["Forest", "Forest", "Golgari Rot Farm"] + [bears] * 4,
                         names, turns=3)
    assert games["kernel"] == games["numpy"]
    assert games["numpy"][2] == {"mana_available": 2, "cards_cast": 1, "lands_played": 2}
    # turn 3: the Rot Farm enters tapped; a Forest and the G it made before it left
    assert games["numpy"][3] == {"mana_available": 2, "cards_cast": 2, "lands_played": 2}


def test_bounce_land_returns_the_least_flexible_other_land_beside_an_older_copy_of_itself():
    """A second Golgari Rot Farm, with a Forest and the first Rot Farm in play, returns the
    Forest (the least flexible other land: one colour); the first Rot Farm counts as the
    untapped land it is, not as tapped because the second entered tapped. So turn 5 plays
    the Forest again and has three lands. Both engines, game by game."""
    names = ("lands_played", "mana_available", "cards_cast")
    bears = "Grizzly Bears"
    games = both_engines([bears] * 5, ["Forest", "Golgari Rot Farm", "Golgari Rot Farm"]
                         + [bears] * 4, names, turns=5)
    assert games["kernel"] == games["numpy"]
    assert [games["numpy"][t]["lands_played"] for t in range(1, 6)] == [1, 1, 2, 2, 3]


def test_bounce_land_is_not_played_without_another_land_to_return():
    """It would return itself: a lost land drop. Another land in hand is played instead."""
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Golgari Rot Farm"])
    m = play(game, state)
    assert m["land_drop"] == 0 and state.hand[0, ids["Golgari Rot Farm"]] == 1
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Golgari Rot Farm", "Forest"])
    m = play(game, state)  # the Rot Farm makes more colours, but there is nothing to return
    assert m["lands_played"] == 1 and state.battlefield[0, ids["Forest"]] == 1
    m = play(game, state)  # turn 2: now the Rot Farm, returning the Forest
    assert state.battlefield[0, ids["Golgari Rot Farm"]] == 1
    assert state.hand[0, ids["Forest"]] == 1


# ------------------------------------------------------------------ land choice


def test_a_held_x_explorer_uses_mana_only_at_x_1_so_turn_1_plays_the_tapped_land():
    """Jadelight Spelunker ({X}{G}) is cast with X >= 1: two mana. On turn 1 nothing in hand
    is cast with one mana, so the Guildgate goes down tapped (step 2) and turn 2's Forest
    casts the Spelunker; the Forest first would leave one mana on turn 2. Both engines."""
    names = ("tapped_lands_played", "cards_cast", "lands_played")
    bears = "Grizzly Bears"
    games = both_engines([bears] * 4,
                         ["Forest", "Golgari Guildgate", "Jadelight Spelunker"] + [bears] * 4,
                         names, turns=2)
    assert games["kernel"] == games["numpy"]
    assert games["numpy"][1] == {"tapped_lands_played": 1, "cards_cast": 0, "lands_played": 1}
    assert games["numpy"][2]["cards_cast"] == 1


def test_land_choice_prefers_a_land_that_lets_a_spell_be_cast():
    game, state, ids = scripted_game(["Grizzly Bears"] * 3,
                                     hand=["Forest", "Island", "Spyglass Siren"])
    m = play(game, state)
    assert state.battlefield[0, ids["Island"]] == 1 and m["cards_cast"] == 1


def test_land_choice_plays_a_tapped_land_when_mana_is_not_used():
    game, state, ids = scripted_game(["Grizzly Bears"] * 3,
                                     hand=["Forest", "Golgari Guildgate", "Ravenous Chupacabra"])
    play(game, state)  # turn 1: nothing to cast, the gate goes first
    assert state.battlefield[0, ids["Golgari Guildgate"]] == 1


def test_land_choice_counts_a_castable_card_as_mana_used():
    """A card named by ``castable`` counts as held when the land choice asks whether mana
    will be used (step 2): with a Forest and an Island in play, River Herald Scout ({1}{U})
    named can be paid now, so the second Forest goes down untapped before the Guildgate; with
    nothing named, nothing in hand can be paid (Ravenous Chupacabra costs 4), and the
    Guildgate goes first."""
    from explore_sim.engine.goldfish import GameConfig

    scout = fixture_cards().get("River Herald Scout")
    for castable, untapped in (((scout,), 2), ((), 1)):
        game, state, ids = scripted_game(["Grizzly Bears"] * 3,
                                         hand=["Forest", "Golgari Guildgate",
                                               "Ravenous Chupacabra"],
                                         battlefield=["Forest", "Island"],
                                         extra=["River Herald Scout"],
                                         config=GameConfig(castable=castable))
        play(game, state)
        assert state.battlefield[0, ids["Forest"]] == untapped


def test_land_choice_counts_colours_in_whether_mana_will_be_used():
    """Step 2 counts colours: with Islands and a Golgari Guildgate in hand and only green
    spells (Grizzly Bears, Llanowar Elves), no land makes a spell castable on turn 1, so the
    Guildgate goes down tapped first, and on turn 2 an Island and the Guildgate's G cast a
    spell. A rule that asked only whether a spell costs at most the mana plus one would play
    the Islands, whose blue mana casts nothing, and keep the Guildgate until turn 4. Both
    engines, game by game."""
    names = ("tapped_lands_played", "cards_cast", "lands_played")
    games = both_engines(["Grizzly Bears"] * 4,
                         ["Island", "Island", "Island", "Golgari Guildgate", "Grizzly Bears",
                          "Llanowar Elves", "Grizzly Bears"], names, turns=3)
    assert games["kernel"] == games["numpy"]
    numpy = games["numpy"]
    assert numpy[1] == {"tapped_lands_played": 1, "cards_cast": 0, "lands_played": 1}
    assert numpy[2]["cards_cast"] == 1 and numpy[3]["tapped_lands_played"] == 1


def test_land_choice_takes_the_missing_colour():
    game, state, ids = scripted_game(["Grizzly Bears"] * 3,
                                     hand=["Forest", "Swamp", "Ravenous Chupacabra"],
                                     battlefield=["Forest"])
    play(game, state)
    assert state.battlefield[0, ids["Swamp"]] == 1


def test_land_choice_step_3_counts_colourless_pips():
    """Step 3's deficit counts every pip but generic mana, {C} included: Eldrazi Grower
    ({2}{C}) in hand makes the Wastes close a deficit the Forest does not, though the
    library's Grizzly Bears ask for green (step 4)."""
    game, state, ids = scripted_game(["Grizzly Bears"] * 3,
                                     hand=["Forest", "Wastes", "Eldrazi Grower"])
    play(game, state)
    assert state.battlefield[0, ids["Wastes"]] == 1


def test_land_choice_step_3_counts_the_sources_in_play():
    """Step 3's deficits are those left once the sources you control pay what they can:
    with three Forests in play, a {4}{G}{U} spell (out of reach this turn, so step 1 does not
    decide) still lacks blue, which the Island closes and a fourth Forest does not, although
    a Forest alone would pay more of the hand's pips (a {G} one-drop's too)."""
    big = Card("Wide Test Card", "{4}{G}{U}", "Creature — Test", power=5, toughness=5)
    one = Card("Green Test Card", "{G}", "Creature — Test", power=1, toughness=1)
    game, state, ids = scripted_game(["Grizzly Bears"] * 3,
                                     hand=["Forest", "Island", "Wide Test Card",
                                           "Green Test Card"],
                                     battlefield=["Forest"] * 3, cards=[big, one])
    play(game, state)
    assert state.battlefield[0, ids["Island"]] == 1 and state.hand[0, ids["Forest"]] == 1


@pytest.mark.parametrize("other_basics, played", [(["Island", "Swamp"], "Evolving Wilds"),
                                                  ([], "Golgari Guildgate")])
def test_land_choice_a_fetch_land_stands_for_every_basic_land_kind_of_the_deck(other_basics,
                                                                              played):
    """Steps 4-5: a fetch land's colours are those of every basic land kind of the deck, left
    in the library or not. With Forests, Islands and Swamps in the deck Evolving Wilds counts
    three colours and is played over Golgari Guildgate's two (both count as tapped, no card
    wants a colour); with Forests only it counts one. The library holds only a Forest."""
    library = ["Cartographer's Companion", "Forest", "Cartographer's Companion"]
    game, state, ids = scripted_game(library, hand=["Evolving Wilds", "Golgari Guildgate"],
                                     extra=other_basics)
    play(game, state)
    assert state.hand[0, ids[played]] == 0
    assert state.hand[0, ids[({"Evolving Wilds", "Golgari Guildgate"} - {played}).pop()]] == 1


def test_pathway_picks_the_face_the_hand_needs():
    game, state, ids = scripted_game(["Grizzly Bears"] * 3,
                                     hand=["Barkchannel Pathway // Tidechannel Pathway",
                                           "Spyglass Siren"])
    m = play(game, state)
    face = game.f.land_face[ids["Barkchannel Pathway // Tidechannel Pathway"]]
    assert state.battlefield[0, face] == 1 and m["cards_cast"] == 1


@pytest.mark.parametrize("land_faces, played", [("when-needed", True), ("never", False)])
def test_spell_land_card_is_played_as_a_land_when_the_drop_would_be_missed(land_faces, played):
    game, state, ids = scripted_game(["Grizzly Bears"] * 3,
                                     hand=["Agadeem's Awakening // Agadeem, the Undercrypt"],
                                     config=GameConfig(land_faces=land_faces))
    m = play(game, state)
    assert m["lands_played"] == int(played)
    game, state, ids = scripted_game(["Grizzly Bears"] * 3,
                                     hand=["Agadeem's Awakening // Agadeem, the Undercrypt",
                                           "Swamp"])
    play(game, state)  # a land card is in hand: it is played, the spell is kept
    assert state.hand[0, ids["Agadeem's Awakening // Agadeem, the Undercrypt"]] == 1


def test_e10_spell_land_card_is_a_nonland_for_explore():
    card = fixture_cards().get("Agadeem's Awakening // Agadeem, the Undercrypt")
    assert not card.is_land and card.is_land_like and card.land_face.is_land


# ------------------------------------------------------------------ searches and ramp


def test_evolving_wilds_fetches_the_missing_basic_tapped_and_shuffles():
    game, state, ids = scripted_game(["Grizzly Bears", "Swamp", "Forest", "Grizzly Bears"],
                                     hand=["Evolving Wilds", "Ravenous Chupacabra"],
                                     battlefield=["Forest"])
    m = play(game, state)
    assert state.battlefield[0, ids["Swamp"]] == 1
    assert state.battlefield[0, ids["Evolving Wilds"]] == 0
    assert state.tapped[0, ids["Swamp"]] == 1 and m["lands_played"] == 2
    assert state.end[0] - state.top[0] == 3 and state.library_lands[0] == 1


def test_a_fetch_land_follows_the_tapped_land_rule_and_counts_as_a_tapped_land():
    """Evolving Wilds's land enters tapped: it is played first when the turn's mana is not
    used (a four-drop in hand), after an untapped land when it is (Cenote Scout)."""
    game, state, ids = scripted_game(["Grizzly Bears", "Swamp", "Grizzly Bears"],
                                     hand=["Forest", "Evolving Wilds", "Ravenous Chupacabra"])
    m = play(game, state)
    assert state.battlefield[0, ids["Swamp"]] == 1 and state.hand[0, ids["Forest"]] == 1
    assert m["tapped_lands_played"] == 1 and m["lands_played"] == 1
    game, state, ids = scripted_game(["Grizzly Bears", "Swamp", "Grizzly Bears"],
                                     hand=["Forest", "Evolving Wilds", "Cenote Scout"])
    m = play(game, state)
    assert state.battlefield[0, ids["Forest"]] == 1 and m["cards_cast"] == 1
    assert m["tapped_lands_played"] == 0


def test_a_fetch_land_finds_the_colour_still_missing():
    """Forest, Forest and Island in play and {G}{G}{U}{U} in hand: both colours are made, but
    only blue is still short, so Evolving Wilds finds an Island."""
    game, state, ids = scripted_game(["Grizzly Bears", "Forest", "Island", "Grizzly Bears"],
                                     hand=["Evolving Wilds", "Twin Tides Test Card"],
                                     battlefield=["Forest", "Forest", "Island"])
    m = play(game, state)
    assert state.battlefield[0, ids["Island"]] == 2 and m["tapped_lands_played"] == 1


@pytest.mark.slow
def test_a_search_shuffles_away_a_card_kept_on_top():
    """E2 holds for the explore; a later shuffle means the kept card is no longer known on top."""
    tops = set()
    for seed in range(40):
        game, state, ids = scripted_game(
            ["Grizzly Bears", "Cenote Scout", "Island", "Swamp", "Queen's Agent", "Forest"],
            hand=["Rampant Growth"], battlefield=["Forest", "Forest"], seed=seed)
        play(game, state)
        tops.add(int(game.peek(state, np.arange(1))[0]))
    assert len(tops) > 2


def test_cultivate_one_basic_to_the_battlefield_one_to_hand():
    game, state, ids = scripted_game(["Grizzly Bears", "Swamp", "Island", "Forest"],
                                     hand=["Cultivate"], battlefield=["Forest"] * 3)
    game.untap_and_draw(state)
    game.cast_pass(state, np.arange(1))
    assert state.battlefield[0, ids["Forest"]] + state.battlefield[0, ids["Swamp"]] == 4
    assert state.hand[0, ids["Swamp"]] + state.hand[0, ids["Island"]] == 1
    assert state.end[0] - state.top[0] == 2  # two basics left the library (on the play)
    game.main_phase(state, second=False)  # the one in hand is this turn's land drop
    assert game.turn_metrics(state)["lands_played"][0] == 5


def test_district_guide_puts_a_basic_into_hand():
    game, state, ids = scripted_game(["Grizzly Bears", "Swamp"], hand=["District Guide"],
                                     battlefield=["Forest"] * 3)
    m = play(game, state)  # the Swamp comes to hand, then it is the land drop
    assert m["lands_played"] == 4 and state.battlefield[0, ids["Swamp"]] == 1
    assert state.end[0] - state.top[0] == 1  # the Bears


def test_myriad_landscape_fetches_two_basics_of_one_type_with_spare_mana():
    game, state, ids = scripted_game(["Swamp", "Island", "Island", "Forest"], hand=[],
                                     battlefield=["Forest", "Forest", "Myriad Landscape"],
                                     config=GameConfig(on_play=False))
    m = play(game, state)  # draw and play the Swamp; {2} from two lands, then two Islands
    assert m["lands_played"] == 5 and state.battlefield[0, ids["Island"]] == 2
    assert state.battlefield[0, ids["Myriad Landscape"]] == 0


# ------------------------------------------------------------------ metrics


def test_colour_screwed_when_mana_is_enough_but_colours_are_not():
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Ravenous Chupacabra"],
                                     battlefield=["Forest"] * 4)
    m = play(game, state)
    assert m["colour_screwed"] == 1 and m["mana_available"] == 4


def test_golgari_deck_elves_raise_and_gates_lower_mana_available():
    deck = explore_sim.load_deck(DECKS / "golgari_explore.txt")
    with_elves = explore_sim.simulate(deck, turns=2, trials=20_000, seed=1, mulligan="none")
    rows = with_elves.summary().set_index(["turn", "metric"])["mean"]
    assert rows[(2, "mana_available")] > rows[(2, "lands_played")] - 0.1
    no_elves = explore_sim.simulate(
        deck.with_counts({"Llanowar Elves": 0}, filler="Forest"), turns=2, trials=20_000, seed=1,
        mulligan="none").summary().set_index(["turn", "metric"])["mean"]
    assert rows[(2, "mana_available")] > no_elves[(2, "mana_available")] + 0.2


# ------------------------------------------------------------------ exact values


def multivariate(deck: dict[str, int], seen: int, ok) -> float:
    """P(ok(counts seen)) for ``seen`` cards drawn without replacement from ``deck``."""
    names = list(deck)
    total = sum(deck.values())
    p = 0
    for counts in itertools.product(*(range(min(deck[n], seen) + 1) for n in names)):
        if sum(counts) != seen or not ok(dict(zip(names, counts))):
            continue
        ways = 1
        for n, k in zip(names, counts):
            ways *= comb(deck[n], k)
        p += ways
    return p / comb(total, seen)


def castable_value(text, card, turn, on_play, cards_file):
    sources = explore_sim.cards.card_sources([cards_file], use_index=False)
    deck = explore_sim.parse_deck(text, catalog=sources)
    result = explore_sim.simulate(deck, turns=turn, on_play=on_play, mulligan="none",
                                  trials=200_000, seed=7, castable=[sources.get(card)])
    row = result.summary().query(f"turn == {turn} and metric == 'castable:{card}'").iloc[0]
    return row["mean"], row["se"]


SEVENS = FIXTURES / "decks" / "forest_swamp_sevens.cards.toml"


@pytest.mark.parametrize("deck, card, turn, on_play, ok, exact", [
    ({"Forest": 13, "Island": 11, "Platinum Angel": 36}, "Nicanzil, Current Conductor", 2, False,
     lambda c: c["Forest"] >= 1 and c["Island"] >= 1, 0.775220),
    ({"Forest": 10, "Island": 7, "Platinum Angel": 23}, "Jadelight Ranger", 3, True,
     lambda c: c["Forest"] >= 2 and c["Forest"] + c["Island"] >= 3, 0.693283),
    ({"Forest": 16, "Swamp": 8, "Platinum Angel": 36}, "Jadelight Ranger", 3, True,
     lambda c: c["Forest"] >= 2 and c["Forest"] + c["Swamp"] >= 3, None),
    ({"Swamp": 8, "Forest": 16, "Platinum Angel": 36}, "Jadelight Ranger", 4, False,
     lambda c: c["Forest"] >= 2 and c["Forest"] + c["Swamp"] >= 3, None),
    # Two pips of each colour: the land choice closes the remaining deficit, so a second
    # Forest is not played while an Island is still missing.
    ({"Forest": 12, "Island": 11, "Platinum Angel": 37}, "Twin Tides Test Card", 4, True,
     lambda c: c["Forest"] >= 2 and c["Island"] >= 2, 0.347734),
    ({"Forest": 12, "Island": 11, "Platinum Angel": 37}, "Twin Tides Test Card", 5, False,
     lambda c: c["Forest"] >= 2 and c["Island"] >= 2, None),
])
@pytest.mark.slow
def test_castable_reproduces_the_multivariate_hypergeometric(deck, card, turn, on_play, ok, exact):
    seen = 7 + turn - (1 if on_play else 0)
    value = multivariate(deck, seen, ok)
    if exact is not None:
        assert value == pytest.approx(exact, abs=5e-7)
    text = "\n".join(f"{n} {name}" for name, n in deck.items())
    mean, se = castable_value(text, card, turn, on_play, SEVENS)
    assert abs(mean - value) < 4 * se, (mean, value, se)


@pytest.mark.parametrize("game, seen", [("commander", 11), ("normal", 10)])
@pytest.mark.slow
def test_commander_castable_reproduces_the_hypergeometric_of_a_99_card_library(game, seen):
    """A Commander game draws from the 99 (the commander is not in the library) and does not
    skip the first draw: by turn 4 on the play 11 cards are seen, 10 in a normal game. The
    land choice plays toward the commander's pips from the command zone, so Hakbal
    ({2}{G}{U}) is castable exactly when 4+ lands with a Forest and an Island were seen."""
    counts = {"Forest": 20, "Island": 16, "Platinum Angel": 63}
    value = multivariate(counts, seen, lambda c: c["Forest"] >= 1 and c["Island"] >= 1
                         and c["Forest"] + c["Island"] >= 4)
    assert value == pytest.approx({11: 0.577905, 10: 0.486862}[seen], abs=5e-7)
    text = "Commander\n1 Hakbal of the Surging Soul\n\nDeck\n" + "\n".join(
        f"{n} {name}" for name, n in counts.items())
    deck = explore_sim.parse_deck(text, catalog=explore_sim.cards.card_sources(
        [SEVENS], use_index=False))
    card = "Hakbal of the Surging Soul"
    result = explore_sim.simulate(deck, turns=4, mulligan="none", trials=100_000, seed=7,
                                  castable=[card], game=game)
    row = result.summary().query(f"turn == 4 and metric == 'castable:{card}'").iloc[0]
    assert abs(row["mean"] - value) < 4 * row["se"], (row["mean"], value, row["se"])

