"""Opening hands and the London mulligan with Karsten's keep / bottom rule."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

import explore_sim
from explore_sim.cards import Catalog, FeatureTable
from explore_sim.engine.mulligan import MulliganRule, _bottom, as_mulligan_rule, deal_opening_hands

NAMES = ["Forest", "Cenote Scout", "Grizzly Bears", "Merfolk Cave-Diver", "Dire Fleet Interloper",
         "Sunrise Seeker", "Queen's Agent"]  # mana values 0, 1, 2, 3, 4, 5, 6
FEATURES = FeatureTable.from_cards(Catalog.builtin().get(n) for n in NAMES)
IS_LAND = FEATURES.is_land | FEATURES.is_land_like


def hand_of(lands, spells):
    hand = np.zeros((1, len(FEATURES)), dtype=np.int16)
    hand[0, 1] = lands
    for mv in spells:
        hand[0, 1 + mv] += 1
    return hand


def bottomed(lands, spells, bottoms):
    hand, cards = _bottom(hand_of(lands, spells), bottoms, FEATURES, IS_LAND)
    return sorted(int(c) - 1 for c in cards[0]), int(hand.sum())  # mana values bottomed


@pytest.mark.parametrize("lands, spells, bottoms, expected", [
    (2, [1, 2, 3, 5, 6], 1, [6]),  # to 6 with 3+ spells: the most expensive spell
    (5, [2, 4], 1, [0]),  # fewer than 3 spells: a land
    (3, [1, 2, 4, 6], 2, [4, 6]),  # to 5 with 4+ spells: two spells
    (4, [1, 2, 6], 2, [0, 6]),  # 3 spells: a spell and a land
    (5, [2, 3], 2, [0, 0]),  # 2 or fewer: two lands
    (2, [1, 2, 3, 5, 6], 3, [3, 5, 6]),  # to 4: toward 3 lands and 1 spell -> 2 lands 2 spells
    (6, [4], 3, [0, 0, 0]),  # 6 lands: keep 3 lands and the spell
    (1, [1, 2, 3, 4, 5, 6], 3, [4, 5, 6]),  # 1 land: keep it and 3 spells
])
def test_karsten_bottom_rule(lands, spells, bottoms, expected):
    cards, kept = bottomed(lands, spells, bottoms)
    assert cards == expected and kept == 7 - bottoms


def test_bottomed_cards_go_under_the_library():
    deck = np.repeat(np.arange(1, 8, dtype=np.int16), [24, 6, 6, 6, 6, 6, 6])
    opening = deal_opening_hands(deck, FEATURES, 5000, MulliganRule("london"),
                                 lambda a: np.random.default_rng(a))
    width = opening.library.shape[1]
    rows = np.flatnonzero(opening.mulligans > 0)
    assert rows.size > 0
    for row in rows[:50]:
        m = int(opening.mulligans[row])
        assert opening.hand[row].sum() == 7 - m
        assert opening.end[row] - opening.top[row] == 60 - 7 + m
        library = [int(opening.library[row, p % width])
                   for p in range(opening.top[row], opening.end[row])]
        counts = np.bincount(library, minlength=8) + opening.hand[row]
        assert counts[1:].tolist() == [24, 6, 6, 6, 6, 6, 6]  # every card accounted for


def test_probability_of_keeping_seven_is_hypergeometric():
    deck = explore_sim.deck_from_counts([("Forest", 24), ("Grizzly Bears", 36)])
    result = explore_sim.simulate(deck, turns=1, mulligan="london", trials=200_000, seed=4)
    dist = result.distribution("mulligans", turn=0).set_index("value")
    exact = sum(comb(24, k) * comb(36, 7 - k) for k in range(2, 6)) / comb(60, 7)
    assert abs(dist.loc[0, "probability"] - exact) < 4 * dist.loc[0, "se"]


def test_opening_hands_match_the_reference_40_card_distribution():
    """REFERENCE.md: 7 cards from 40 with 17 lands."""
    deck = explore_sim.deck_from_counts([("Forest", 17), ("Grizzly Bears", 23)])
    result = explore_sim.simulate(deck, turns=1, mulligan="none", trials=200_000, seed=5)
    dist = result.distribution("opening_lands", turn=0).set_index("value")
    percent = [1.315, 9.205, 24.546, 32.297, 22.608, 8.397, 1.527]
    for lands, p in enumerate(percent):
        exact = comb(17, lands) * comb(23, 7 - lands) / comb(40, 7)
        assert round(100 * exact, 3) == p
        assert abs(dist.loc[lands, "probability"] - exact) < 4 * dist.loc[lands, "se"]


def test_free_first_mulligan_keeps_seven():
    rule = as_mulligan_rule("london-free")
    assert rule.bottoms(1) == 0 and rule.bottoms(2) == 1 and rule.max_mulligans == 4
    deck = explore_sim.deck_from_counts([("Forest", 10), ("Grizzly Bears", 50)])
    result = explore_sim.simulate(deck, turns=1, mulligan=rule, trials=5000, seed=1)
    summary = result.summary().set_index(["turn", "metric"])["mean"]
    free = explore_sim.simulate(deck, turns=1, mulligan="london", trials=5000, seed=1)
    assert summary[(0, "hand_size")] > free.summary().set_index(["turn", "metric"])["mean"][(0, "hand_size")]


def test_custom_keep_rule_and_mulligan_none():
    deck = explore_sim.deck_from_counts([("Forest", 24), ("Grizzly Bears", 36)])
    never = explore_sim.simulate(deck, turns=1, trials=1000, seed=1,
                                 keep=lambda hand, size, features: np.zeros(len(hand), bool))
    row = never.summary().set_index(["turn", "metric"]).loc[(0, "mulligans")]
    assert row["mean"] == 3  # down to four cards, always kept
    none = explore_sim.simulate(deck, turns=1, mulligan="none", trials=1000, seed=1)
    assert none.summary().set_index(["turn", "metric"]).loc[(0, "mulligans"), "mean"] == 0


def test_bad_mulligan_names():
    with pytest.raises(explore_sim.OptionError, match="mulligan"):
        as_mulligan_rule("vancouver")
