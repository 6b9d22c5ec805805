"""value: explore cards against their vanilla stand-ins, and land-equivalents with intervals."""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
from conftest import DECKS, ROOT

import explore_sim
from explore_sim.analysis.compare import CompareResult
from explore_sim.analysis.games import TurnPairs, TurnStats, play_games
from explore_sim.analysis.stand_ins import coupled_ids, land_equivalent, stand_in_plan
from explore_sim.analysis.value import (
    VALUE_COLUMNS,
    added_basics,
    basis_turn,
    explore_cards,
    value,
    vanilla_stand_in,
)
from explore_sim.cards import Catalog, parse_deck
from explore_sim.cards.card_index import card_sources
from explore_sim.engine.goldfish import GameConfig
from explore_sim.engine.mulligan import as_mulligan_rule
from explore_sim.engine.policies import as_policy
from explore_sim.errors import DeckError, OptionError

XLN = DECKS / "xln_sultai_explore.txt"
VANILLA = DECKS / "lci_merfolk_vanilla.txt"
HAKBAL = DECKS / "hakbal_merfolk_commander.txt"


def test_stand_in_strips_explore_and_maps_only():
    ranger = Catalog.builtin().get("Jadelight Ranger")
    plain = vanilla_stand_in(ranger)
    assert plain.name == "Jadelight Ranger (vanilla)"
    assert (plain.mana_cost, plain.mana_value, plain.power, plain.toughness, plain.type_line) == \
        (ranger.mana_cost, ranger.mana_value, ranger.power, ranger.toughness, ranger.type_line)
    abilities = (plain.explores, plain.explores_x, plain.maps, plain.explore_trigger)
    assert abilities == (0, False, 0, "")
    assert plain.abilities() == "-"
    siren = vanilla_stand_in(Catalog.builtin().get("Spyglass Siren"))
    assert siren.maps == 0 and siren.abilities() == "-"


def test_stand_in_plays_exactly_like_a_vanilla_creature(tmp_path):
    """A deck with Jadelight Ranger's stand-in plays game for game like the same deck with a
    vanilla 2/1 for {1}{G}{G} written in a card file."""
    (tmp_path / "plain.cards.toml").write_text(
        '[[card]]\nname = "Plain Ranger"\nmana_cost = "{1}{G}{G}"\n'
        'type_line = "Creature — Merfolk Scout Ranger"\npower = 2\ntoughness = 1\n')
    sources = card_sources([tmp_path / "plain.cards.toml"], use_index=False)
    with_ranger = parse_deck("24 Forest\n4 Jadelight Ranger\n32 Grizzly Bears", catalog=sources)
    ranger = with_ranger.features().cards[with_ranger.features().id_of(
        Catalog.builtin().get("Jadelight Ranger")) - 1]
    stand_in = with_ranger.__class__(name="stand-in", main=tuple(
        (vanilla_stand_in(card) if card == ranger else card, n) for card, n in with_ranger.main))
    plain = parse_deck("24 Forest\n4 Plain Ranger\n32 Grizzly Bears", catalog=sources)
    config, rule, policy = GameConfig(turns=6), as_mulligan_rule("london"), as_policy("forge")
    seed = np.random.SeedSequence(11)
    a = play_games(stand_in, config, policy, rule, 400, seed)
    b = play_games(plain, config, policy, rule, 400, seed)
    c = play_games(with_ranger, config, policy, rule, 400, seed)
    for turn in a:
        for metric in a[turn]:
            np.testing.assert_array_equal(a[turn][metric], b[turn][metric], err_msg=metric)
    assert a[6]["explores"].sum() == 0 and c[6]["explores"].sum() > 0


def test_explore_cards_of_a_deck():
    deck = explore_sim.load_deck(XLN)
    names = [card.name for card in explore_cards(deck)]
    assert "Jadelight Ranger" in names and "Wildgrowth Walker" in names
    assert "Forest" not in names and "Woodland Cemetery" not in names
    merfolk = explore_sim.load_deck(DECKS / "lci_merfolk_explore.txt")
    assert "Restless Anchorage" not in [c.name for c in explore_cards(merfolk)]  # a land


def test_added_basics_follow_the_colours_and_nest():
    deck = explore_sim.load_deck(XLN)  # more green than black mana symbols
    four = [land.name for land in added_basics(deck, 4)]
    assert Counter(four) == Counter({"Forest": 3, "Swamp": 1})
    for k in range(1, 8):  # the first k lands are the k lands of every variant
        assert added_basics(deck, 8)[:k] == added_basics(deck, k)
    hakbal = explore_sim.load_deck(HAKBAL)  # within the commander's colours
    assert {land.name for land in added_basics(hakbal, 6)} == {"Forest", "Island"}
    colourless = explore_sim.deck_from_counts({"Wastes": 20, "Sol Ring": 4, "Grizzly Bears": 1},
                                              catalog=_sources())
    with pytest.raises(DeckError, match="no coloured mana symbol"):
        added_basics(explore_sim.deck_from_counts({"Wastes": 20, "Sol Ring": 4},
                                                  catalog=_sources()), 1)
    assert added_basics(colourless, 1)[0].name == "Forest"


def _sources():
    return card_sources([DECKS / "hakbal_merfolk_commander.cards.toml"], use_index=False)


def test_variants_line_up_their_shuffles():
    """Explorer and vanilla decks hold the same card kind at every position; one more land
    changes exactly one position; every order holds its deck exactly."""
    deck = explore_sim.load_deck(XLN)
    plan = stand_in_plan(deck, [Catalog(deck.cards).get("Jadelight Ranger")], max_lands=8)
    assert plan.labels == ["explorer deck", "vanilla", "vanilla +1 land", "vanilla +2 lands",
                           "vanilla +3 lands", "vanilla +4 lands"]
    for variant, ids in zip(plan.decks, plan.card_ids):
        counts = np.bincount(ids, minlength=len(variant.cards) + 1)[1:]
        assert counts.tolist() == [n for _, n in variant.main]
    np.testing.assert_array_equal(plan.card_ids[0], plan.card_ids[1])
    for k in range(1, 5):
        kinds = [[deck_k.cards[i - 1].is_land for i in ids] for deck_k, ids in
                 zip(plan.decks[k:k + 2], plan.card_ids[k:k + 2])]
        names = [[deck_k.cards[i - 1].name for i in ids] for deck_k, ids in
                 zip(plan.decks[k:k + 2], plan.card_ids[k:k + 2])]
        changed = [i for i, (a, b) in enumerate(zip(*names)) if a != b]
        assert len(changed) == 1 and not kinds[0][changed[0]] and kinds[1][changed[0]]
    ids = coupled_ids(deck, [Catalog(deck.cards).get("Jadelight Ranger")], [])
    assert len(ids) == deck.size


def test_several_cards_line_up_their_shuffles_too():
    """A plan of two cards (8 copies): lands replace the last card's stand-ins first, and
    each variant differs from the next at one position, a stand-in then a land."""
    deck = explore_sim.load_deck(XLN)
    own = Catalog(deck.cards)
    cards = [own.get("Jadelight Ranger"), own.get("Merfolk Branchwalker")]
    plan = stand_in_plan(deck, cards, max_lands=5, label="explorers")
    assert plan.copies == 8 and len(plan.decks) == 2 + 5
    assert plan.decks[1].name.endswith("[explorers -> vanilla]")
    five = dict(plan.decks[6].main)  # 5 lands: the 4 Branchwalkers and 1 Ranger traded
    assert vanilla_stand_in(cards[1]) not in five and five[vanilla_stand_in(cards[0])] == 3
    for variant, ids in zip(plan.decks, plan.card_ids):
        counts = np.bincount(ids, minlength=len(variant.cards) + 1)[1:]
        assert counts.tolist() == [n for _, n in variant.main]
    for k in range(1, 6):
        names = [[d.cards[i - 1].name for i in ids] for d, ids in
                 zip(plan.decks[k:k + 2], plan.card_ids[k:k + 2])]
        changed = [i for i, (a, b) in enumerate(zip(*names)) if a != b]
        assert len(changed) == 1


def test_plans_of_one_order_share_the_explorer_decks_shuffles():
    """Plans made with one ``order`` shuffle the explorer deck from the same order; each
    card's vanilla deck differs from it only where that card's copies are, and each land
    variant from the one before at one of those positions."""
    deck = explore_sim.load_deck(XLN)
    own = Catalog(deck.cards)
    cards = [own.get("Jadelight Ranger"), own.get("Merfolk Branchwalker"),
             own.get("Wildgrowth Walker")]
    plans = [stand_in_plan(deck, [card], max_lands=8, order=cards) for card in cards]
    for plan in plans:
        np.testing.assert_array_equal(plan.card_ids[0], plans[0].card_ids[0])
        names = [[d.cards[i - 1].name for i in ids] for d, ids in zip(plan.decks, plan.card_ids)]
        for variant, ids in zip(plan.decks, plan.card_ids):
            counts = np.bincount(ids, minlength=len(variant.cards) + 1)[1:]
            assert counts.tolist() == [n for _, n in variant.main]
        copies = [i for i, name in enumerate(names[0]) if name == plan.cards[0].name]
        assert len(copies) == plan.copies == 4
        changed = [i for i, (a, b) in enumerate(zip(names[0], names[1])) if a != b]
        assert changed == copies
        for k in range(1, 5):
            step = [i for i, (a, b) in enumerate(zip(names[k], names[k + 1])) if a != b]
            assert step == [copies[-k]]
    with pytest.raises(ValueError, match="follow one another"):
        stand_in_plan(deck, [cards[0], cards[2]], max_lands=8, order=cards)


@pytest.mark.parametrize("engine", ["kernel", "numpy"])
def test_games_played_for_fewer_turns_are_the_same_games_cut_short(engine):
    """The land variants of a valuation play only up to the basis turn and record only its
    metric: that must give the very games of the longer run, cut short."""
    deck = explore_sim.load_deck(XLN)
    config = GameConfig(turns=6)
    short = dataclasses.replace(config, turns=3, record=("on_curve", "compounded_mana"))
    rule = as_mulligan_rule("london")
    seed = np.random.SeedSequence(11)
    full = play_games(deck, config, as_policy("forge"), rule, 500, seed, engine=engine)
    cut = play_games(deck, short, as_policy("forge"), rule, 500, seed, engine=engine)
    assert sorted(cut) == [0, 1, 2, 3]
    assert all(sorted(cut[t]) == ["compounded_mana", "on_curve"] for t in (1, 2, 3))
    for turn, metrics in cut.items():
        for name, values in metrics.items():
            np.testing.assert_array_equal(values, full[turn][name])


def test_value_plays_the_explorer_deck_once_and_the_land_variants_to_the_basis_turn():
    """Every card's comparison holds the same explorer-deck games; its curve holds the
    variants with the basis metric at the basis turn, the explorer and vanilla decks' sums
    there the very sums of their full games."""
    result = value(XLN, ["Jadelight Ranger", "Merfolk Branchwalker"], trials=600, seed=5)
    first, second = (result.comparisons[card] for card in result.cards)
    for turn, acc in first.variants[0].by_turn.items():
        other = second.variants[0].by_turn[turn]
        assert acc.n == other.n == 600 and acc.total == other.total
    for card in result.cards:
        metric, turn = result.basis(card)
        curve, compared = result.curves[card], result.comparisons[card]
        assert (curve.metric, curve.turn) == (metric, turn)
        assert curve.played_labels == result.meta["cards"][card]["variants"]
        assert curve.labels[:3] == ["explorer deck", "vanilla", "vanilla +1 land"]
        assert max(compared.variants[0].by_turn) == 6 and set(curve.stats[2].total) == {metric}
        for index in (0, 1):
            played = compared.variants[index].by_turn[turn]
            assert curve.total(index) == played.total[metric]
            assert curve.product(index, index) == played.total_sq[metric]
        pair = compared.pairs.by_turn[turn].products[(0, 1)][metric]
        assert curve.product(0, 1) == curve.product(1, 0) == pair


@pytest.mark.parametrize("cards, metric, turn, max_lands", [
    (["Cenote Scout"], "on_curve", None, 8),
    (["Jadelight Spelunker"], "on_curve", None, 8),  # crosses between 1 and 2 lands
    (["Jadelight Spelunker"], "explore_lands", 4, 3),  # no count of lands reaches it
    # two cards in the later rounds, at their own basis turns (3 and 4)
    (["Cenote Scout", "River Herald Guide"], "explore_lands", None, 2),
])
def test_land_variants_are_played_only_as_far_as_the_crossing(cards, metric, turn, max_lands):
    """The default plays the land variants up to the first that reaches the explorer deck
    (or every one, when none does): the same games, so the very same land-equivalent as
    the whole curve's, and the variants it plays are the whole curve's first ones."""
    merfolk = DECKS / "lci_merfolk_explore.txt"
    kwargs = dict(metric=metric, turn=turn, max_lands=max_lands, trials=3000, seed=11)
    short = value(merfolk, cards, **kwargs)
    full = value(merfolk, cards, full_curve=True, **kwargs)
    assert short.land_equivalents().equals(full.land_equivalents())
    assert short.summary().equals(full.summary())
    shown = short.curve()
    whole_curve = full.curve()
    for card in cards:
        curve, whole = short.curves[card], full.curves[card]
        assert whole.played == whole.tried == min(4, max_lands)
        explorer = curve.total(0)
        reached = [k for k in range(curve.played + 1) if curve.total(k + 1) >= explorer]
        assert reached == [] and curve.played == curve.tried or reached == [curve.played]
        assert curve.played >= 1
        for k in range(curve.played + 2):
            assert curve.total(k) == whole.total(k)
            assert curve.product(k, k) == whole.product(k, k)
            assert curve.product(0, k) == whole.product(0, k)
        mine = shown[shown["card"] == card].reset_index(drop=True)
        theirs = whole_curve[whole_curve["card"] == card].reset_index(drop=True)
        assert mine.equals(theirs.iloc[: len(mine)])
        assert short.meta["cards"][card]["variants"] == curve.played_labels
    # the footer says so where a card's land variants stopped short of its copies
    stopped = any(curve.played < curve.tried for curve in short.curves.values())
    assert ("--full-curve" in short.render()) == stopped
    assert "--full-curve" not in full.render()
    if turn is None and cards == ["Jadelight Spelunker"]:
        curve = short.curves[cards[0]]
        assert curve.played == 2  # a second round: the explorer deck, +1 land and +2 again
        assert len(curve.groups) == 2 and curve.groups[1][0] == (0, 2, 3)


def test_later_rounds_pair_with_kept_values_or_replayed_games_alike(monkeypatch):
    """A later round pairs its land variant with the explorer deck's and the last land
    variant's values kept from the rounds before, or (a run too large to keep them) with
    those games played again: the same sums either way, on worker processes too."""
    import explore_sim.analysis.value_games as value_games

    merfolk = DECKS / "lci_merfolk_explore.txt"
    cards = ["Cenote Scout", "River Herald Guide"]
    kwargs = dict(metric="explore_lands", max_lands=3, trials=2500, seed=4)
    modes = []
    play_round = value_games.LandRoundTask.__call__

    def spied(task, trials, chunk_seed):
        modes.append(task.kept)
        return play_round(task, trials, chunk_seed)

    monkeypatch.setattr(value_games.LandRoundTask, "__call__", spied)
    kept = value(merfolk, cards, **kwargs)
    assert modes and all(modes)  # the values kept, not the games played again
    on_workers = value(merfolk, cards, workers=2, **kwargs)
    monkeypatch.setattr(value_games, "KEPT_VALUES", 0)
    modes.clear()
    replayed = value(merfolk, cards, **kwargs)
    assert modes and not any(modes)
    for card in cards:
        a, b, c = (result.curves[card] for result in (kept, on_workers, replayed))
        assert a.played == a.tried == 3 and len(a.groups) == 3  # two later rounds
        for k in range(a.played + 2):
            assert a.total(k) == b.total(k) == c.total(k)
        for i, j in [(0, 2), (0, 3), (0, 4), (2, 3), (3, 4)]:
            assert a.product(i, j) == b.product(i, j) == c.product(i, j)
    assert kept.summary().equals(replayed.summary()) and kept.summary().equals(
        on_workers.summary())


def test_vanilla_decks_copy_the_unseen_games_with_the_same_result(monkeypatch):
    """A card's vanilla deck copies the explorer deck's games that never dealt the card
    (``tests/test_coupled.py``): the same summary, comparisons and curves as a valuation
    that plays every game, in this process and on worker processes."""
    import explore_sim.analysis.value_games as value_games

    merfolk = DECKS / "lci_merfolk_explore.txt"
    cards = ["Cenote Scout", "Deepfathom Echo"]
    kwargs = dict(trials=3000, seed=5)
    copied = value(merfolk, cards, **kwargs)
    on_workers = value(merfolk, cards, workers=2, **kwargs)
    played_bits = []
    watched = value_games.watched_bits

    def none_copied(plans, config, engine):
        played_bits.append(watched(plans, config, engine))
        return [0] * len(plans)

    monkeypatch.setattr(value_games, "watched_bits", none_copied)
    played = value(merfolk, cards, **kwargs)
    assert played_bits == [[1, 2]]  # the copying this run turned off
    for result in (copied, on_workers):
        assert result.summary().equals(played.summary())
        assert result.land_equivalents().equals(played.land_equivalents())
        for card in cards:
            mine, theirs = result.comparisons[card], played.comparisons[card]
            assert mine.summary().equals(theirs.summary())
            assert mine.paired_differences().equals(theirs.paired_differences())


def test_a_land_curve_refuses_a_replay_that_differs_and_pairs_never_played():
    from explore_sim.analysis.land_curves import BasisGroup, LandCurve

    def group(indices, values):
        results = [{3: {"on_curve": np.asarray(v)}} for v in values]
        return BasisGroup.of(indices, results, "on_curve", 3, True)

    curve = LandCurve("on_curve", 3, ["explorer deck", "vanilla", "vanilla +1 land",
                                      "vanilla +2 lands"])
    curve.add(group((0, 1, 2), [[1, 1, 0, 1], [0, 1, 0, 1], [0, 1, 1, 0]]))
    assert not curve.crossed() and curve.next_round() == (0, 2, 3)
    curve.add(group((0, 2, 3), [[1, 1, 0, 1], [0, 1, 1, 0], [1, 1, 1, 0]]))
    with pytest.raises(KeyError, match="vanilla and vanilla \\+2 lands were not played"):
        curve.product(1, 3)
    assert curve.crossed() and curve.product(2, 3) == 2 and curve.product(0, 3) == 2
    again = LandCurve("on_curve", 3, curve.labels)
    again.add(group((0, 1, 2), [[1, 1, 0, 1], [0, 1, 0, 1], [0, 1, 1, 0]]))
    with pytest.raises(RuntimeError, match="vanilla \\+1 land played again gave other games"):
        again.add(group((0, 2, 3), [[1, 1, 0, 1], [1, 1, 1, 0], [1, 1, 1, 0]]))


def test_a_land_curve_above_its_ceiling_plays_no_later_round():
    """An explorer deck whose mean is above the most the metric can be without the cards
    (the ceiling), its 95% interval too, is worth more than any count of lands: no later
    round; at the ceiling, above it by less than its interval, or without a ceiling, the
    rounds go on."""
    from explore_sim.analysis.land_curves import BasisGroup, LandCurve

    def curve(ceiling, explorer):
        made = LandCurve("lands_played", 2, ["explorer deck", "vanilla", "vanilla +1 land",
                                              "vanilla +2 lands"], ceiling=ceiling)
        games = len(explorer)
        results = [{2: {"lands_played": np.asarray(v)}} for v in
                   (explorer, [1, 2] * (games // 2), [2, 2, 1, 2] * (games // 4))]
        made.add(BasisGroup.of((0, 1, 2), results, "lands_played", 2, False))
        return made

    above = curve(2.0, [3, 2, 3, 3] * 25)  # mean 2.75, se 0.0435: interval above 2
    mean, low, high = above.explorer_interval()
    assert mean == 2.75 and low > 2 and high - mean == pytest.approx(mean - low)
    assert mean - low == pytest.approx(1.959964 * np.sqrt(0.1875 * 100 / 99 / 100))
    assert above.beyond() and above.crossed()
    found = above.land_equivalent(4)
    assert found["beyond"] and found["above"] and np.isnan(found["mean"])
    assert found["note"] == ("worth more than any count of lands: the explorer deck's 2.7500 "
                             "is above 2, the most lands_played at turn 2 can be without these "
                             "cards (with 1 more land the deck reaches 1.7500)")
    for ceiling, explorer in ((2.0, [2, 2, 2, 2] * 25), (None, [3, 2, 3, 3] * 25),
                              (2.0, [3, 2, 2, 2, 2, 2, 2, 2] * 2)):  # 2.125, se 0.125
        going = curve(ceiling, explorer)
        assert not going.beyond() and not going.crossed() and going.next_round() == (0, 2, 3)
        with pytest.raises(ValueError, match="play on to the crossing"):
            going.land_equivalent(4)


def _synthetic(variants: list[np.ndarray], metric: str = "lands_played") -> CompareResult:
    """A comparison of hand-made per-game values at turn 1 (explorer first, then vanilla +k)."""
    zero = np.zeros(len(variants[0]), dtype=np.int64)
    results = [{0: {"mulligans": zero, "hand_size": zero, "opening_lands": zero},
                1: {metric: values}} for values in variants]
    metrics = {metric: False}
    pairs = TurnPairs(1, len(results), metrics)
    pairs.add(results)
    labels = ["explorer deck", "vanilla", *(f"vanilla +{k} lands" for k in
                                            range(1, len(variants) - 1))]
    return CompareResult(meta={}, decks=labels, policies=["forge"], labels=labels,
                         variants=[TurnStats.of(r, 1, metrics) for r in results], pairs=pairs)


def _coupled_values(n: int = 4000, seed: int = 3, explorer_rate: float = 0.27):
    rng = np.random.default_rng(seed)
    base = rng.integers(2, 5, n)
    u = rng.random(n)
    lands = [base + (u < 0.1 * k) for k in range(5)]  # vanilla + k lands
    explorer = base + (rng.random(n) * 0.5 + u * 0.5 < explorer_rate)
    return [explorer, *lands]


def _direct(values: list[np.ndarray]) -> tuple[float, float]:
    """The land-equivalent and its delta-method se, computed from per-game arrays."""
    explorer, lands = values[0], values[1:]
    gaps = [(v - explorer).mean() for v in lands]
    k = next(i for i, g in enumerate(gaps) if g >= 0)
    a, b = (0, 1) if k == 0 else (k - 1, k)
    slope = gaps[b] - gaps[a]
    estimate = a - gaps[a] / slope
    grad = np.array([-gaps[b], gaps[a]]) / slope**2
    diffs = np.vstack([lands[a] - explorer, lands[b] - explorer])
    cov = np.cov(diffs, ddof=1) / diffs.shape[1]
    return estimate, math.sqrt(grad @ cov @ grad)


def test_land_equivalent_interpolates_with_the_delta_method():
    values = _coupled_values()
    found = land_equivalent(_synthetic(values), 4, "lands_played", 1)
    estimate, se = _direct(values)
    assert found["mean"] == pytest.approx(estimate, rel=1e-9)
    assert found["se"] == pytest.approx(se, rel=1e-6)
    assert found["ci_low"] == pytest.approx(estimate - 1.959964 * se, rel=1e-5)
    assert 1 < found["mean"] < 2 and "between 1 and 2" in found["note"]


def test_delta_method_se_agrees_with_a_paired_bootstrap():
    values = np.vstack(_coupled_values(n=3000, seed=8))
    rng = np.random.default_rng(0)
    estimates = []
    for _ in range(400):
        sample = values[:, rng.integers(0, values.shape[1], values.shape[1])]
        estimates.append(_direct(list(sample))[0])
    found = land_equivalent(_synthetic(list(values)), 4, "lands_played", 1)
    assert found["se"] == pytest.approx(np.std(estimates, ddof=1), rel=0.15)


def test_worth_more_than_all_copies_is_said_not_extrapolated():
    values = _coupled_values(explorer_rate=0.9)
    found = land_equivalent(_synthetic(values), 4, "lands_played", 1)
    assert math.isnan(found["mean"]) and math.isnan(found["ci_low"])
    assert found["note"].startswith("worth more than all 4 copies")
    fewer = land_equivalent(_synthetic(values), 9, "lands_played", 1)
    assert fewer["note"].startswith("worth more than 4 lands (the most tried, of its 9 copies)")


def test_worth_less_than_the_stand_in_is_negative():
    values = _coupled_values()
    values[0] = values[1] - (np.arange(len(values[1])) % 10 == 0)  # below the vanilla deck
    found = land_equivalent(_synthetic(values), 4, "lands_played", 1)
    assert found["mean"] < 0 and "worth less than its vanilla stand-in" in found["note"]
    assert "change of casting order" in found["note"]  # why a Map maker can be worth less
    assert found["ci_high"] < 0
    # Below it by less than the noise: the interval holds 0, and the note says no more.
    values[0] = values[1] - (np.arange(len(values[1])) % 2000 == 0)
    close = land_equivalent(_synthetic(values), 4, "lands_played", 1)
    assert close["mean"] < 0 < close["ci_high"]
    assert close["note"].startswith("not told apart from its vanilla stand-in (the interval "
                                    "holds 0)")


def test_a_card_never_cast_is_worth_zero_lands_and_says_it_is_never_cast():
    """Brackish Blunder makes a Map, but its target is an opponent's: never cast, nor its
    stand-in (an instant doing nothing), so the note gives that reason."""
    result = value(DECKS / "lci_limited_gu.txt", "Brackish Blunder", trials=300, seed=1,
                   turns=4, max_lands=1, metrics=["on_curve"])
    found = result.land_equivalents().iloc[0]
    assert found["mean"] == 0 and found["se"] == 0
    assert "a goldfish game never casts it (its target is an opponent's)" in found["note"]
    assert result.meta["cards"]["Brackish Blunder"]["never_cast"] == "its target is an opponent's"


def test_identical_games_give_exactly_zero():
    values = _coupled_values()
    values[0] = values[1].copy()
    found = land_equivalent(_synthetic(values), 4, "lands_played", 1)
    assert (found["mean"], found["se"], found["ci_low"], found["ci_high"]) == (0, 0, 0, 0)


def test_a_card_that_does_not_explore_is_worth_zero_lands_and_says_why():
    result = value(VANILLA, "Grizzly Bears", trials=600, seed=1, turns=4, max_lands=2,
                   metrics=["on_curve", "mana_spent"])
    rows = result.summary()
    assert list(rows.columns) == list(VALUE_COLUMNS)
    found = result.land_equivalents().iloc[0]
    assert found["ci_low"] <= 0 <= found["ci_high"] and found["mean"] == 0
    assert found["basis"] == "on_curve@3"  # the default: mana value + 1, turn 3 at least
    assert found["note"].startswith("no difference: on_curve at turn 3 is the same")
    assert "no explore or Map ability the goldfish models" in found["note"]
    adds = rows[rows["metric"] != "land_equivalent"]
    assert (adds["mean"] == 0).all() and (adds["se"] == 0).all()
    assert len(adds) == 2 * 4


def test_the_default_basis_is_the_turn_after_a_card_can_first_be_cast():
    catalog = Catalog.builtin()
    assert basis_turn(catalog.get("Path of Discovery")) == 5  # {3}{G}
    assert basis_turn(catalog.get("Jadelight Ranger")) == 4
    assert basis_turn(catalog.get("Cenote Scout")) == 3  # two land drops are always made


FOUR_DROPS = "24 Forest\n32 Grizzly Bears\n4 Path of Discovery"


@pytest.mark.slow
def test_a_four_drop_explorer_is_worth_lands_at_the_default_basis():
    """Path of Discovery ({3}{G}) explores with the creatures cast after it: at the default
    basis, on_curve at turn 5, it is worth lands, the interval clear of 0; on_curve at turn 4
    cannot see it, and the note says so with the turn that would."""
    result = value(FOUR_DROPS, trials=4000, seed=3)
    found = result.land_equivalents().iloc[0]
    assert found["basis"] == "on_curve@5" and result.meta["turns"] == 6
    assert 0 < found["ci_low"] < found["mean"] < found["ci_high"] < 1
    blind = value(FOUR_DROPS, metric="on_curve", turn=4, trials=1000, seed=3)
    note = blind.land_equivalents().iloc[0]["note"]
    assert note.startswith("no difference: on_curve at turn 4 is the same")
    assert "cast on turn 4 at the earliest (mana value 4)" in note
    assert "--turn 5 would show it" in note


def test_value_records_only_its_metrics_and_still_says_what_a_blind_card_changes():
    """The games record only the metrics value reports; a card that changes nothing at its
    basis is played again (explorer and vanilla decks, same shuffles) with every metric, so
    the note can name the metric that does move; a metric not recorded is refused."""
    blind = value(FOUR_DROPS, metric="on_curve", turn=4, metrics=["on_curve"], trials=1000,
                  seed=3)
    (compared,) = blind.comparisons.values()
    played = compared.summary()
    assert set(played.loc[played["turn"] > 0, "metric"]) == {"on_curve"}
    (wider,) = blind.every_metric.values()
    assert {"on_curve", "lands_played", "explores"} <= set(wider.summary()["metric"])
    assert "--turn 5 would show it" in blind.land_equivalents().iloc[0]["note"]
    with pytest.raises(OptionError, match="explores not recorded by this run"):
        blind.summary(metrics=["explores"])
    seen = value(FOUR_DROPS, trials=1000, seed=3)  # worth lands at turn 5: nothing replayed
    assert seen.every_metric == {}


@pytest.mark.slow
def test_an_explorer_is_worth_a_positive_number_of_lands():
    result = value(XLN, ["Jadelight Ranger"], metric="lands_played", turn=6, turns=6,
                   trials=2500, seed=2, full_curve=True)
    found = result.land_equivalents().iloc[0]
    assert found["card"] == "Jadelight Ranger" and found["copies"] == 4
    assert found["basis"] == "lands_played@6"
    assert 0 < found["ci_low"] < found["mean"] < found["ci_high"]
    curve = result.curve()
    assert curve["variant"].tolist()[:2] == ["explorer deck", "vanilla"]
    assert curve[curve["lands"] == 4]["mean"].iloc[0] > curve[curve["lands"] == 0]["mean"].iloc[0]
    adds = result.summary()
    explores = adds[(adds["metric"] == "explore_lands") & (adds["turn"] == 6)].iloc[0]
    assert explores["mean"] > 0 and explores["ci_low"] > 0
    assert result.meta["cards"]["Jadelight Ranger"]["lands_added"] == {"Forest": 3, "Swamp": 1}
    text = result.render()
    assert "land-equivalent:" in text and "explorer deck - vanilla deck" in text
    assert "ValueResult" in repr(result) and "<div>" in result._repr_html_()


@pytest.mark.slow
def test_value_is_reproducible_and_works_for_a_commander_deck():
    first = value(HAKBAL, "Cenote Scout", trials=300, seed=4, turns=3, turn=3)
    again = value(HAKBAL, "Cenote Scout", trials=300, seed=4, turns=3, turn=3)
    assert first.summary().equals(again.summary())
    assert first.meta["formats"][0]["game"] == "commander"
    assert set(first.meta["cards"]["Cenote Scout"]["lands_added"]) <= {"Forest", "Island"}


@pytest.mark.parametrize("kwargs, error, message", [
    ({"cards": "Grizzly Bears"}, DeckError, "not in the main deck"),
    ({"cards": "Jadelight Rangr"}, DeckError, "did you mean 'Jadelight Ranger'"),
    ({"cards": "Forest"}, DeckError, "is a land"),
    ({"cards": "Jadelight Ranger", "turn": 7, "turns": 6}, OptionError,
     "turn must be between 1 and turns"),
    ({"cards": "Jadelight Ranger", "turns": 3}, OptionError, "the basis turn of Jadelight"),
    ({"cards": "Jadelight Ranger", "metric": "on_curv"}, OptionError, "did you mean"),
    ({"cards": "Jadelight Ranger", "max_lands": 0}, OptionError, "max_lands"),
])
def test_bad_value_requests_are_refused(kwargs, error, message):
    with pytest.raises(error, match=message):
        value(XLN, trials=10, **kwargs)


@pytest.mark.slow
def test_the_commander_is_valued_against_a_vanilla_commander():
    """Hakbal against a vanilla 3/3 commander for {2}{G}{U} (cast from the command zone):
    its beginning-of-combat explores add counters; being in the command zone,
    it has no copy to trade for a land, so no land-equivalent."""
    hakbal = "Hakbal of the Surging Soul"
    result = value(HAKBAL, hakbal, trials=3_000, seed=4, turns=6, turn=5)
    info = result.meta["cards"][hakbal]
    assert info["commander"] and info["copies"] == 1 and info["variants"] == [
        "explorer deck", "vanilla"]
    assert info["stand_in"].startswith("a 3/3 creature for {2}{G}{U}")
    rows = result.summary().set_index(["metric", "turn"])
    assert rows.loc[("counters", 6), "mean"] > 10 * rows.loc[("counters", 6), "se"]
    land = result.land_equivalents().iloc[0]
    assert math.isnan(land["mean"]) and "command zone" in land["note"]
    assert "Hakbal of the Surging Soul (the commander; stand-in:" in result.render()
    assert hakbal in [card.name for card in explore_cards(explore_sim.load_deck(HAKBAL))]


@pytest.mark.slow
def test_value_command_line_json_and_errors(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "explore_sim", "value", str(VANILLA), "--card", "Grizzly Bears",
         "--trials", "300", "--seed", "1", "--turns", "4", "--metrics", "on_curve",
         "--format", "json", "--plot", str(tmp_path / "v.png")],
        capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    rows = json.loads(run.stdout)["rows"]
    assert set(rows[0]) == set(VALUE_COLUMNS)
    found = rows[-1]
    assert found["metric"] == "land_equivalent" and found["ci_low"] <= 0 <= found["ci_high"]
    assert (tmp_path / "v.png").stat().st_size > 0
    bad = subprocess.run([sys.executable, "-m", "explore_sim", "value", str(XLN), "--card",
                          "Grizzly Bears"], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "not in the main deck" in bad.stderr and "Traceback" not in bad.stderr


def test_play_games_shuffles_from_the_order_given():
    deck = explore_sim.load_deck(XLN)
    config, rule, policy = GameConfig(turns=2), as_mulligan_rule("london"), as_policy("forge")
    seed = np.random.SeedSequence(2)
    ids = deck.card_ids()
    default = play_games(deck, config, policy, rule, 200, seed)
    same = play_games(deck, config, policy, rule, 200, seed, card_ids=ids.copy())
    other = play_games(deck, config, policy, rule, 200, seed, card_ids=ids[::-1].copy())
    assert all((default[2][m] == same[2][m]).all() for m in default[2])
    assert any((default[2][m] != other[2][m]).any() for m in default[2])


def test_no_land_equivalent_when_lands_do_not_help():
    values = _coupled_values()
    swap = np.resize([1, -1, 0, 0], len(values[1]))
    values = [values[1] + swap, values[1], values[1].copy(), values[1].copy()]
    found = land_equivalent(_synthetic(values), 2, "lands_played", 1)
    assert math.isnan(found["mean"]) and "no better than its vanilla stand-in" in found["note"]


def test_a_card_the_deck_cannot_cast_is_said_to_be_never_cast():
    """Seekers' Squire ({1}{B}) in a deck of Forests is never cast: the note says why, not
    that its abilities changed nothing."""
    result = value("20 Forest\n4 Seekers' Squire\n36 Grizzly Bears\n", trials=500, seed=5)
    note = result.land_equivalents().iloc[0]["note"]
    assert note.endswith("no card of the deck makes {B}, which its cost needs: it is never "
                         "cast, nor is its stand-in")
    assert result.meta["cards"]["Seekers' Squire"]["colours_unmade"] == "B"


@pytest.mark.parametrize("kwargs, label", [
    (dict(metrics=["mulligans", "on_curve"]), "metrics: mulligans is an opening-hand metric"),
    (dict(metric="opening_lands"), "metric: opening_lands is an opening-hand metric"),
])
def test_an_opening_hand_metric_is_refused_by_name(kwargs, label):
    """A valuation compares the decks turn by turn: an opening-hand metric is refused in one
    line that says so (it used to pass the name check and fail later, as unknown)."""
    with pytest.raises(OptionError, match=label):
        value(DECKS / "lci_merfolk_explore.txt", ["Cenote Scout"], trials=1000, **kwargs)


def test_an_unknown_metrics_error_lists_only_the_metrics_by_turn():
    """value's error for an unknown metric names the metrics it takes: not the opening-hand
    ones, which it refuses by name."""
    with pytest.raises(OptionError, match="metrics: unknown on_curb") as caught:
        value(DECKS / "lci_merfolk_explore.txt", ["Cenote Scout"], metrics=["on_curb"],
              trials=1000)
    message = str(caught.value)
    assert "on_curve" in message and "mulligans" not in message
    assert "opening_lands" not in message and "\n" not in message


@pytest.mark.parametrize("option, line", [
    (["--metrics", "on_curb"], "--metrics: unknown on_curb (did you mean 'on_curve'?); known: "),
    (["--metric", "mulligans"], "--metric: mulligans is an opening-hand metric (turn 0)"),
])
def test_the_value_command_checks_metrics_by_turn(capsys, option, line):
    """On the command line too: one line, status 2; the known names are the metrics by
    turn."""
    from explore_sim.cli import main

    deck = str(DECKS / "lci_merfolk_explore.txt")
    assert main(["value", deck, "--card", "Cenote Scout", "--trials", "1000", *option]) == 2
    err = capsys.readouterr().err
    assert line in err and "mulligans," not in err and err.count("\n") == 1


def test_the_value_help_lists_no_castable_metric():
    from explore_sim.cli.parser import build_parser

    commands = next(action for action in build_parser()._actions
                    if isinstance(action, argparse._SubParsersAction))
    text = commands.choices["value"].format_help()
    assert "castable" not in text and "on_curve" in text
