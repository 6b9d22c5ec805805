"""The vectorised engine agrees exactly, trial by trial, with the scalar reference."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import reference
from conftest import DECKS

import explore_sim
from explore_sim.analysis.explore import EXPLORE_METRICS, explore_trials
from explore_sim.engine.policies import ForgePolicy, KeepPolicy, MillPolicy
from explore_sim.engine.state import shuffled_libraries

POLICIES = [
    (KeepPolicy(), reference.keep),
    (MillPolicy(), reference.mill),
    (ForgePolicy(), reference.forge()),
    (ForgePolicy(need_lands=3, max_mv_diff=1), reference.forge(3, 1)),
    (explore_sim.as_policy("forge-reckless"), reference.forge(2, 1)),
]


@pytest.mark.parametrize("deck_file", ["lci_merfolk_explore.txt", "lci_limited_gu.txt"])
@pytest.mark.parametrize("policy, scalar", POLICIES, ids=lambda p: getattr(p, "name", ""))
@pytest.mark.parametrize(
    "drawn, explores, gone, targeted, turn, known_cards, known_lands",
    [(8, 2, False, False, 2, 1, 0), (0, 1, False, False, 1, 1, 0), (7, 4, True, False, 1, 1, 0),
     (7, 3, True, True, 3, 1, 0), (12, 3, False, False, 5, 1, 0),
     (3, 2, False, False, 3, 3, 2), (8, 3, False, False, 2, 4, 4), (1, 2, True, False, 1, 2, 1)],
)
def test_engine_matches_reference(deck_file, policy, scalar, drawn, explores, gone,
                                  targeted, turn, known_cards, known_lands):
    deck = explore_sim.load_deck(DECKS / deck_file)
    features = deck.features()
    rng = np.random.default_rng([len(deck_file), drawn, explores, int(gone), int(targeted)])
    libraries = shuffled_libraries(deck.card_ids(), 400, rng)
    out = explore_trials(libraries, features, drawn=drawn, explores=explores, policy=policy,
                         rng=rng, explorer_gone=gone, targeted=targeted, turn=turn,
                         known_cards=known_cards, known_lands=known_lands)
    cards = reference.Cards.from_features(features)
    for row in range(libraries.shape[0]):
        expected = reference.explore_one(
            libraries[row].tolist(), cards, drawn=drawn, explores=explores, decide=scalar,
            explorer_gone=gone, targeted=targeted, turn=turn, known_cards=known_cards,
            known_lands=known_lands)
        got = {name: int(out[name][row]) for name in EXPLORE_METRICS}
        assert got == expected, f"row {row}: {libraries[row].tolist()}"


def test_engine_matches_reference_near_the_bottom_of_the_library():
    """Sequences that run the library out mid-way (E4 after E1/E2)."""
    deck = explore_sim.deck_from_counts([("Forest", 4), ("Grizzly Bears", 3),
                                         ("Queen's Agent", 2)])
    features = deck.features()
    rng = np.random.default_rng(11)
    libraries = shuffled_libraries(deck.card_ids(), 300, rng)
    cards = reference.Cards.from_features(features)
    for policy, scalar in POLICIES:
        out = explore_trials(libraries, features, drawn=5, explores=6, policy=policy, rng=rng)
        for row in range(libraries.shape[0]):
            expected = reference.explore_one(libraries[row].tolist(), cards, drawn=5,
                                             explores=6, decide=scalar)
            assert {n: int(out[n][row]) for n in EXPLORE_METRICS} == expected


def hand_size_policy():
    """Mill while the hand plus the lands in play hold 9 or more cards: reads cards_in_hand."""
    return (explore_sim.as_policy("cards_in_hand + lands_in_play >= 9"),
            lambda obs: obs["cards_in_hand"] + obs["lands_in_play"] >= 9)


GUARDED = [  # deck, drawn, explores, known cards, explorer, policy, gone, targeted
    ("lci_merfolk_explore.txt", 8, 2, (), None, "forge", False, False),
    ("lci_merfolk_explore.txt", 10, 2, ("Forest", "Forest", "Island"), "Cenote Scout", "forge",
     False, False),
    ("lci_merfolk_explore.txt", 7, 3, ("Cenote Scout", "Forest"), None, "forge-reckless", True,
     False),
    ("lci_limited_gu.txt", 12, 2, ("Forest",), None, "hand size", False, False),
    ("lci_limited_gu.txt", 2, 1, (), None, "forge", False, False),
    (None, 8, 2, ("Forest", "Forest", "Forest"), None, "forge", False, False),
    (None, 9, 2, ("Grizzly Bears",) * 4, None, "hand size", False, True),
]


@pytest.mark.parametrize("deck_file, drawn, explores, known, explorer, policy, gone, targeted",
                         GUARDED)
@pytest.mark.slow
def test_explore_with_default_turn_and_known_cards_matches_the_exact_reference(
        deck_file, drawn, explores, known, explorer, policy, gone, targeted):
    """explore() as users call it (the turn left to its default, known cards and an explorer
    removed from the library) against exact expectations of the scalar reference, enumerated
    over every shuffle: within 4 standard errors, exactly where the se is 0."""
    if deck_file is None:
        deck = explore_sim.deck_from_counts([("Forest", 24), ("Grizzly Bears", 36)])
    else:
        deck = explore_sim.load_deck(DECKS / deck_file)
    features = deck.features()
    cards = reference.Cards.from_features(features)
    engine_policy, scalar = (hand_size_policy() if policy == "hand size" else
                             (policy, {"forge": reference.forge(),
                                       "forge-reckless": reference.forge(2, 1)}[policy]))
    turn = max(1, drawn - 6)  # a 7-card hand and one draw a turn, on the play
    library = {features.id_of(card): n for card, n in deck.main}
    for name in (*known, *([explorer] if explorer else [])):
        library[features.id_of(explore_sim.Catalog(deck.cards).get(name))] -= 1
    known_lands = sum(explore_sim.Catalog(deck.cards).get(name).is_land for name in known)
    exact = reference.exact_explore(library, cards, drawn=drawn, explores=explores,
                                    decide=scalar, turn=turn, known_cards=len(known),
                                    known_lands=known_lands, explorer_gone=gone,
                                    targeted=targeted)
    result = explore_sim.explore(deck, explores=explores, drawn=drawn, policy=engine_policy,
                                 known=list(known), explorer=explorer, explorer_gone=gone,
                                 targeted=targeted, trials=100_000, seed=drawn + len(known))
    assert result.meta["turn"] == turn
    assert result.meta["library_size"] == sum(library.values())
    summary = result.summary().set_index("metric")
    for metric in EXPLORE_METRICS:
        got, se = summary.loc[metric, ["mean", "se"]]
        assert abs(got - float(exact[metric])) <= 4 * se, (metric, got, float(exact[metric]), se)


@pytest.mark.parametrize("drawn, turn", [(0, 1), (7, 1), (8, 2), (9, 3), (12, 6), (20, 14)])
def test_default_turn_is_a_seven_card_hand_and_a_draw_a_turn(drawn, turn):
    deck = explore_sim.load_deck(DECKS / "lci_merfolk_explore.txt")
    default = explore_sim.explore(deck, drawn=drawn, policy="forge", trials=3000, seed=5)
    assert default.meta["turn"] == turn
    given = explore_sim.explore(deck, drawn=drawn, policy="forge", turn=turn, trials=3000, seed=5)
    pd.testing.assert_frame_equal(default.summary(), given.summary(), check_exact=True)


def test_partial_shuffle_is_a_uniform_prefix():
    """Only the first `depth` positions are shuffled; each is uniform over the deck, and each
    pair of them is a draw without replacement."""
    copies = np.array([1, 2, 3, 4])
    deck = np.repeat(np.arange(1, 5, dtype=np.int16), copies)  # 10 cards
    trials = 200_000
    libraries = shuffled_libraries(deck, trials, np.random.default_rng(3), depth=3)
    assert libraries.shape == (trials, 11)
    assert np.all(libraries[:, -1] == 0)
    assert np.all(np.sort(libraries[:, :10], axis=1) == np.sort(deck))  # a permutation
    for position in range(3):
        freq = np.bincount(libraries[:, position], minlength=5)[1:] / trials
        se = np.sqrt(copies / 10 * (1 - copies / 10) / trials)
        assert np.all(np.abs(freq - copies / 10) < 4 * se)
    # P(position i holds a, position j holds b) = c_a (c_b - [a == b]) / (10 * 9).
    for first, second in ((0, 1), (0, 2), (1, 2)):
        pairs = np.bincount(libraries[:, first] * 5 + libraries[:, second], minlength=25)
        for a in range(1, 5):
            for b in range(1, 5):
                p = copies[a - 1] * (copies[b - 1] - (a == b)) / 90
                freq = pairs[a * 5 + b] / trials
                assert abs(freq - p) <= 4 * np.sqrt(p * (1 - p) / trials), (first, second, a, b)
