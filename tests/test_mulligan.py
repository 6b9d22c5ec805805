"""Opening hands and the London mulligan with Karsten's keep / bottom rule."""

from __future__ import annotations

import io
from collections import defaultdict
from fractions import Fraction
from math import comb

import numpy as np
import pytest
import reference

import explore_sim
from explore_sim.cards import Catalog, FeatureTable
from explore_sim.cards.catalog import read_card_rows
from explore_sim.engine.abilities import held_reason
from explore_sim.engine.mulligan import MulliganRule, _bottom, as_mulligan_rule, deal_opening_hands
from explore_sim.engine.state import shuffled_libraries

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
    (4, [1, 2, 5], 1, [5]),  # exactly 3 spells: still a spell
    (3, [2, 3, 4, 6], 1, [6]),
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


def test_a_spell_never_cast_is_bottomed_before_the_most_expensive():
    """Brackish Blunder (its target is an opponent's: a goldfish game never casts it) goes
    under before a 6-drop, then the 6-drop."""
    names = ["Forest", "Cenote Scout", "Queen's Agent", "Brackish Blunder"]
    features = FeatureTable.from_cards(Catalog.builtin().get(n) for n in names)
    hand = np.array([[0, 3, 2, 1, 1]], dtype=np.int16)
    lands = features.is_land | features.is_land_like
    kept, cards = _bottom(hand, 1, features, lands, never_cast=[4])
    assert cards[0].tolist() == [4] and kept[0].tolist() == [0, 3, 2, 1, 0]
    kept, cards = _bottom(hand, 2, features, lands, never_cast=[4])
    assert cards[0].tolist() == [4, 3]
    kept, cards = _bottom(hand, 1, features, lands)  # Karsten's own rule: the 6-drop
    assert cards[0].tolist() == [3]


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


def test_opening_hands_match_the_40_card_hypergeometric_distribution():
    """7 cards from 40 with 17 lands."""
    deck = explore_sim.deck_from_counts([("Forest", 17), ("Grizzly Bears", 23)])
    result = explore_sim.simulate(deck, turns=1, mulligan="none", trials=200_000, seed=5)
    dist = result.distribution("opening_lands", turn=0).set_index("value")
    percent = [1.315, 9.205, 24.546, 32.297, 22.608, 8.397, 1.527]
    for lands, p in enumerate(percent):
        exact = comb(17, lands) * comb(23, 7 - lands) / comb(40, 7)
        assert round(100 * exact, 3) == p
        assert abs(dist.loc[lands, "probability"] - exact) < 4 * dist.loc[lands, "se"]


def exact_opening(lands: int, size: int, free_first: bool) -> dict[tuple[int, int, int], Fraction]:
    """P(mulligans, lands kept, hand size) for a deck of lands and 2-mana spells.

    Every deal is a fresh seven from the whole deck (hypergeometric); the scalar Karsten
    rule of tests/reference.py bottoms and keeps."""
    cards = reference.Cards(is_land=[False, True, False], mana_value=[0, 0, 2],
                            is_land_like=[False] * 3)
    seven = {k: Fraction(comb(lands, k) * comb(size - lands, 7 - k), comb(size, 7))
             for k in range(8)}
    last = 3 + int(free_first)
    out: dict[tuple[int, int, int], Fraction] = defaultdict(Fraction)
    still_dealing = Fraction(1)
    for attempt in range(last + 1):
        bottoms = max(0, attempt - int(free_first and attempt > 0))
        kept_here = Fraction(0)
        for k, p in seven.items():
            kept, _ = reference.karsten_bottom([1] * k + [2] * (7 - k), bottoms, cards)
            if attempt == last or reference.karsten_keeps(kept, cards):
                out[(attempt, kept.count(1), len(kept))] += still_dealing * p
                kept_here += p
        still_dealing *= 1 - kept_here
    assert sum(out.values()) == 1
    return out


@pytest.mark.parametrize("mulligan, free_first, lands, seed", [
    ("london", False, 24, 21), ("london", False, 17, 22), ("london-free", True, 20, 23),
])
def test_mulligans_opening_lands_and_hand_sizes_are_exact(mulligan, free_first, lands, seed):
    """The whole turn-0 distribution under London + Karsten, from combinatorics; going to six
    with exactly three spells (a spell is bottomed, four lands kept) included."""
    deck = explore_sim.deck_from_counts([("Forest", lands), ("Grizzly Bears", 60 - lands)])
    result = explore_sim.simulate(deck, turns=1, mulligan=mulligan, trials=200_000, seed=seed)
    exact = exact_opening(lands, 60, free_first)
    for metric, index in (("mulligans", 0), ("opening_lands", 1), ("hand_size", 2)):
        marginal: dict[int, Fraction] = defaultdict(Fraction)
        for key, p in exact.items():
            marginal[key[index]] += p
        dist = result.distribution(metric, turn=0).set_index("value")
        for value in range(8):
            p = marginal.get(value, Fraction(0))
            got = dist["probability"].get(value, 0.0)
            se = float(p * (1 - p) / 200_000) ** 0.5
            assert abs(got - float(p)) <= 4 * se, (metric, value, got, float(p), se)


def test_free_first_mulligan_keeps_seven():
    rule = as_mulligan_rule("london-free")
    assert rule.bottoms(1) == 0 and rule.bottoms(2) == 1 and rule.max_mulligans == 4
    assert (rule.bottoms(3), rule.bottoms(4)) == (2, 3)
    assert (rule.bottoms(0), MulliganRule("london").bottoms(2)) == (0, 2)


EMERIAS_CALL = read_card_rows(io.StringIO(
    "name,mana_cost,type_line,layout,back_produces\n"
    "Emeria's Call // Emeria Shattered Skyclave,{4}{W}{W}{W},Sorcery // Land,modal_dfc,W\n"),
    "test.csv")[0]


@pytest.mark.parametrize("counts", [
    # Few lands: many mulligans down to five and four; two land kinds and two 3-mana spells
    # (ties for the land held most and the most expensive spell).
    [("Forest", 8), ("Island", 4), ("Cenote Scout", 12), ("Grizzly Bears", 8),
     ("Merfolk Cave-Diver", 8), ("Queen's Agent", 6), ("Jadelight Ranger", 10),
     ("Brackish Blunder", 4)],  # never cast: bottomed first
    # Flooded, with spell // land cards (lands for the mulligan, 7-mana spells otherwise).
    [("Forest", 20), ("Island", 10), ("Dryad Arbor", 4), ("Grizzly Bears", 10),
     ("Queen's Agent", 6), ("Jadelight Ranger", 6), (EMERIAS_CALL, 4)],
], ids=["few-lands", "flooded"])
@pytest.mark.parametrize("rule", [MulliganRule("london"), MulliganRule("london", free_first=True),
                                  MulliganRule("none")], ids=lambda r: r.name)
def test_opening_hands_agree_with_the_scalar_mulligan(counts, rule):
    """Kept hands, libraries (bottomed cards under them, in order) and mulligans agree game by
    game with tests/reference.py, which deals from the same shuffles."""
    cards = [(card if isinstance(card, str) else card.name, n) for card, n in counts]
    catalog = explore_sim.Catalog([*explore_sim.Catalog.builtin(), EMERIAS_CALL])
    deck = explore_sim.deck_from_counts(cards, catalog=catalog)
    features = deck.features()
    ids = deck.card_ids()
    seed = len(deck.cards) + rule.max_mulligans
    never_cast = [i for i, card in enumerate(features.cards, start=1) if held_reason(card)]
    opening = deal_opening_hands(ids, features, 3000, rule,
                                 lambda a: np.random.default_rng([seed, a]), never_cast)

    def shuffles(attempt, games):
        rows = shuffled_libraries(ids, games, np.random.default_rng([seed, attempt]))
        return [row[:len(ids)].tolist() for row in rows]

    dealt = reference.deal_hands(3000, shuffles, reference.Cards.from_features(features),
                                 mulligan=rule.kind, free_first=rule.free_first)
    width = opening.library.shape[1]
    for row, (hand, library, mulligans) in enumerate(dealt):
        got_hand = {i: int(n) for i, n in enumerate(opening.hand[row]) if n}
        got_library = [int(opening.library[row, p % width])
                       for p in range(opening.top[row], opening.end[row])]
        got = (got_hand, got_library, int(opening.mulligans[row]))
        assert got == (hand, library, mulligans), row
    if rule.kind == "london":  # every path of the rule was taken
        assert {m for _, _, m in dealt} == set(range(rule.max_mulligans + 1))


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
