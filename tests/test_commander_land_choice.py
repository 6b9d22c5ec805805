"""The land choice counts the commander in the command zone in its steps 1 and 2
(docs/mana.md, "Which land to play"), on both engines: a minimal Commander deck played turn
by turn from a given library and opening hand."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import MANA_CARDS, TESTS

from explore_sim.cards import EMPTY
from explore_sim.cards.card_index import card_sources
from explore_sim.cards.decklist import parse_deck
from explore_sim.engine.goldfish import GameConfig, GameState, Goldfish, deck_tables
from explore_sim.engine.mulligan import OpeningHands
from explore_sim.engine.policies import as_policy

pytestmark = pytest.mark.slow  # the compiled game

SEVENS = TESTS / "fixtures" / "decks" / "forest_swamp_sevens.cards.toml"
#: A made-up vanilla creature that only three Islands can pay.
TRIPLE_BLUE = """[[card]]
name = "Triple Blue Test Card"
mana_cost = "{U}{U}{U}"
type_line = "Creature — Test"
power = 3
toughness = 3
"""
#: Hakbal of the Surging Soul ({2}{G}{U}) and a 99 of lands, colourless seven-drops and a few
#: spells the scenarios hold: unless a scenario says otherwise, nothing in hand is castable,
#: so only the commander can make the land choice use mana.
DECK = """Commander
1 Hakbal of the Surging Soul

Deck
6 Simic Guildgate
10 Forest
10 Island
5 Swamp
2 Breeding Pool
2 Queen's Agent
2 Defossilize
2 Triple Blue Test Card
2 Llanowar Elves
58 Platinum Angel
"""
METRICS = ("lands_played", "tapped_lands_played", "commander_cast", "life_paid")


def opening(deck, hand, library):
    """One game's opening: ``hand`` (names) and the library (names, top first)."""
    features = deck.features()
    ids = {card.name: i for i, card in enumerate(features.cards, start=1)}
    lib = np.full((1, len(library) + 1), EMPTY, dtype=np.int16)
    lib[0, :len(library)] = [ids[name] for name in library]
    counts = np.zeros((1, len(features)), dtype=np.int16)
    for name in hand:
        counts[0, ids[name]] += 1
    return OpeningHands(library=lib, top=np.zeros(1, np.int32),
                        end=np.full(1, len(library), np.int32), hand=counts,
                        mulligans=np.zeros(1, np.int32))


@pytest.fixture(scope="module")
def deck(tmp_path_factory):
    made_up = tmp_path_factory.mktemp("cards") / "triple_blue.toml"
    made_up.write_text(TRIPLE_BLUE, encoding="utf-8")
    return parse_deck(DECK, card_sources([MANA_CARDS, SEVENS, made_up], use_index=False))


def both_engines(deck, hand, library, turns):
    """The game's metrics turn by turn, ``{metric: [turn 1, turn 2, ...]}``, as the compiled
    kernel and the NumPy engine play it."""
    from explore_sim.engine.kernel import play_openings

    config = GameConfig(turns=turns)
    features, policy = deck.features(), as_policy("keep")
    kernel = play_openings(deck_tables(features, config), config, policy,
                           opening(deck, hand, library), deck.card_ids())
    game = Goldfish(features, config, policy, None,
                    {name: np.random.default_rng(0)
                     for name in ("policy", "removal", "parley", "search")})
    state = GameState.from_opening_hands(opening(deck, hand, library), features)
    numpy = {name: [] for name in METRICS}
    for _ in range(turns):
        game.play_turn(state)
        for name, values in game.turn_metrics(state).items():
            if name in numpy:
                numpy[name].append(int(values[0]))
    kernel = {name: [int(kernel[t][name][0]) for t in range(1, turns + 1)] for name in METRICS}
    return kernel, numpy


def test_the_commander_is_cast_on_the_turn_a_land_drop_lets_it(deck):
    """With nothing castable in hand, turns 1-3 play Simic Guildgates (tapped first when the
    mana is not used); on turn 4, with three lands in play, Hakbal can be cast with an
    untapped land: the Forest is played over the fourth Guildgate and Hakbal is cast on turn
    4. Without the commander counted the fourth Guildgate would come first (no mana used)
    and Hakbal would wait for turn 5."""
    hand = ["Simic Guildgate"] * 4 + ["Forest", "Island", "Platinum Angel"]
    kernel, numpy = both_engines(deck, hand, ["Platinum Angel"] * 6, turns=4)
    expected = {"lands_played": [1, 2, 3, 4], "tapped_lands_played": [1, 2, 3, 3],
                "commander_cast": [0, 0, 0, 1], "life_paid": [0, 0, 0, 0]}
    assert {"kernel": kernel, "numpy": numpy} == {"kernel": expected, "numpy": expected}


def test_step_1_plays_the_land_that_lets_the_commander_be_cast(deck):
    """Islands on turns 1-3 (on turn 3 the Island lets the Triple Blue Test Card be cast: step
    1). On turn 4, with three Islands in play, the Forest lets Hakbal be cast (step 1); the
    Swamp would close more colour deficit (step 3: the {B} of Queen's Agent and of
    Defossilize, against Hakbal's {G}) and is played when the commander is not counted. Both
    are untapped, so step 2 cannot decide."""
    hand = ["Island", "Island", "Triple Blue Test Card", "Queen's Agent", "Defossilize",
            "Platinum Angel", "Platinum Angel"]
    library = ["Platinum Angel", "Island", "Swamp", "Forest", "Platinum Angel"]
    kernel, numpy = both_engines(deck, hand, library, turns=4)
    expected = {"lands_played": [1, 2, 3, 4], "tapped_lands_played": [0, 0, 0, 0],
                "commander_cast": [0, 0, 0, 1], "life_paid": [0, 0, 0, 0]}
    assert {"kernel": kernel, "numpy": numpy} == {"kernel": expected, "numpy": expected}


def test_step_2_plays_tapped_while_the_commander_still_lacks_a_colour(deck):
    """Forests on turns 1-3; on turn 4 Hakbal ({2}{G}{U}) cannot be paid, nor could it with
    the Forest in hand (no {U}), so no mana will be used this turn (step 2 counts colours):
    the Simic Guildgate drawn goes down tapped first, and its {U} casts Hakbal on turn 5 with
    the Forest. A rule that asked only whether Hakbal costs at most the mana plus one (4 <=
    3 + 1) would play the Forest, and Hakbal would wait for the Guildgate to untap on turn 6."""
    hand = ["Forest"] * 4 + ["Platinum Angel"] * 3
    library = ["Platinum Angel"] * 3 + ["Simic Guildgate", "Platinum Angel", "Platinum Angel"]
    kernel, numpy = both_engines(deck, hand, library, turns=5)
    expected = {"lands_played": [1, 2, 3, 4, 5], "tapped_lands_played": [0, 0, 0, 1, 1],
                "commander_cast": [0, 0, 0, 0, 1], "life_paid": [0, 0, 0, 0, 0]}
    assert {"kernel": kernel, "numpy": numpy} == {"kernel": expected, "numpy": expected}


def test_step_2_plays_untapped_when_the_commander_can_be_paid_before_the_land_drop(deck):
    """Turn 1 a Forest and Llanowar Elves; turn 2 a Simic Guildgate (tapped, the only land)
    and the second Elves. On turn 3 the Forest, the Guildgate and both Elves pay Hakbal
    ({2}{G}{U}) before the land drop, so mana will be used this turn (step 2 counts the
    commander in the command zone): the Island drawn that turn goes down untapped before the
    second Guildgate, and Hakbal is cast."""
    hand = ["Forest", "Llanowar Elves", "Llanowar Elves", "Simic Guildgate", "Simic Guildgate",
            "Platinum Angel", "Platinum Angel"]
    library = ["Platinum Angel", "Platinum Angel", "Island"]  # a Commander game draws on turn 1
    kernel, numpy = both_engines(deck, hand, library, turns=3)
    expected = {"lands_played": [1, 2, 3], "tapped_lands_played": [0, 1, 1],
                "commander_cast": [0, 0, 1], "life_paid": [0, 0, 0]}
    assert {"kernel": kernel, "numpy": numpy} == {"kernel": expected, "numpy": expected}


def test_step_2_a_shock_land_enters_untapped_when_the_commander_will_use_the_mana(deck):
    """Forest, Island, Forest on turns 1-3 (steps 3-5: the colours Hakbal needs); on turn 4
    the only land is a Breeding Pool, drawn, and Hakbal ({2}{G}{U}, 4 <= 3 + 1) will use the
    mana this turn: it pays 2 life to enter untapped (step 2's rule for how a land enters)
    and Hakbal is cast. Without the commander counted it would enter tapped, no life paid,
    and Hakbal would wait for turn 5."""
    hand = ["Forest", "Island", "Forest"] + ["Platinum Angel"] * 4
    library = ["Platinum Angel"] * 3 + ["Breeding Pool", "Platinum Angel"]
    kernel, numpy = both_engines(deck, hand, library, turns=4)
    expected = {"lands_played": [1, 2, 3, 4], "tapped_lands_played": [0, 0, 0, 0],
                "commander_cast": [0, 0, 0, 1], "life_paid": [0, 0, 0, 2]}
    assert {"kernel": kernel, "numpy": numpy} == {"kernel": expected, "numpy": expected}
