"""The vectorised engine agrees exactly, trial by trial, with the scalar reference."""

from __future__ import annotations

import numpy as np
import pytest
import reference

import explore_sim
from explore_sim.analysis.explore import EXPLORE_METRICS, explore_trials
from explore_sim.engine.policies import ForgePolicy, KeepPolicy, MillPolicy
from explore_sim.engine.state import shuffled_libraries

from conftest import DECKS

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
    "drawn, explores, gone, targeted, turn",
    [(8, 2, False, False, 2), (0, 1, False, False, 1), (7, 4, True, False, 1),
     (7, 3, True, True, 3), (12, 3, False, False, 5)],
)
def test_engine_matches_reference(deck_file, policy, scalar, drawn, explores, gone,
                                  targeted, turn):
    deck = explore_sim.load_deck(DECKS / deck_file)
    features = deck.features()
    rng = np.random.default_rng([len(deck_file), drawn, explores, int(gone), int(targeted)])
    libraries = shuffled_libraries(deck.card_ids(), 400, rng)
    out = explore_trials(libraries, features, drawn=drawn, explores=explores, policy=policy,
                         rng=rng, explorer_gone=gone, targeted=targeted, turn=turn,
                         known_cards=1, known_lands=0)
    cards = reference.Cards.from_features(features)
    for row in range(libraries.shape[0]):
        expected = reference.explore_one(
            libraries[row].tolist(), cards, drawn=drawn, explores=explores, decide=scalar,
            explorer_gone=gone, targeted=targeted, turn=turn, known_cards=1, known_lands=0)
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


def test_partial_shuffle_is_a_uniform_prefix():
    """Only the first `depth` positions are shuffled; each is uniform over the deck."""
    deck = np.repeat(np.arange(1, 5, dtype=np.int16), [1, 2, 3, 4])  # 10 cards
    libraries = shuffled_libraries(deck, 200_000, np.random.default_rng(3), depth=3)
    assert libraries.shape == (200_000, 11)
    assert np.all(libraries[:, -1] == 0)
    assert np.all(np.sort(libraries[:, :10], axis=1) == np.sort(deck))  # a permutation
    for position in range(3):
        freq = np.bincount(libraries[:, position], minlength=5)[1:] / 200_000
        se = np.sqrt(np.array([1, 2, 3, 4]) / 10 * (1 - np.array([1, 2, 3, 4]) / 10) / 200_000)
        assert np.all(np.abs(freq - np.array([1, 2, 3, 4]) / 10) < 4 * se)
    # Pairs of positions are exchangeable: P(first two are both id 1) = 0.
    assert not np.any((libraries[:, 0] == 1) & (libraries[:, 1] == 1))
