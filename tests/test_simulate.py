"""Whole goldfish games: exact land-drop probabilities, invariants, comparisons."""

from __future__ import annotations

from math import comb

import numpy as np
import pandas as pd
import pytest
from conftest import DECKS

import explore_sim
from explore_sim.engine.goldfish import GameConfig, GameState, Goldfish
from explore_sim.engine.mulligan import MulliganRule, deal_opening_hands
from explore_sim.engine.policies import as_policy

SHIPPED = sorted(DECKS.glob("*.txt"))


def hypergeometric_tail(deck, lands, drawn, at_least):
    return sum(comb(lands, k) * comb(deck - lands, drawn - k)
               for k in range(at_least, min(lands, drawn) + 1)) / comb(deck, drawn)


@pytest.mark.parametrize("on_play", [True, False])
@pytest.mark.parametrize("size, lands", [(60, 24), (40, 17)])
def test_on_curve_is_the_hypergeometric_tail(on_play, size, lands):
    """REFERENCE.md: a land drop every turn 1..T <=> at least T lands in the first 6+T
    cards on the play (7+T on the draw)."""
    deck = explore_sim.deck_from_counts([("Forest", lands), ("Grizzly Bears", size - lands)])
    result = explore_sim.simulate(deck, turns=6, on_play=on_play, mulligan="none",
                                  trials=200_000, seed=10 + size + on_play)
    rows = result.summary().set_index(["turn", "metric"])
    for turn in range(1, 7):
        exact = hypergeometric_tail(size, lands, (6 if on_play else 7) + turn, turn)
        mean, se = rows.loc[(turn, "on_curve"), ["mean", "se"]]
        assert abs(mean - exact) < 4 * max(se, 1e-12), (turn, mean, exact, se)


def play_checked(deck, config, policy="forge", trials=4000, seed=0):
    """Play games turn by turn, checking invariants after every turn."""
    features = deck.features()
    opening = deal_opening_hands(deck.card_ids(), features, trials, MulliganRule("london"),
                                 lambda a: np.random.default_rng([seed, a]))
    state = GameState.from_opening_hands(opening, features)
    rngs = {n: np.random.default_rng([seed, 9, i]) for i, n in enumerate(("policy", "removal", "parley"))}
    game = Goldfish(features, config, as_policy(policy), None, rngs)
    for turn in range(1, config.turns + 1):
        library_before = state.end - state.top
        game.play_turn(state)
        m = game.turn_metrics(state)
        # Every card is somewhere: library, hand, battlefield or graveyard.
        total = (state.end - state.top) + state.hand.sum(1) + state.battlefield.sum(1) + state.graveyard
        assert np.all(total == deck.size)
        assert np.all(state.hand >= 0) and np.all(state.battlefield >= 0)
        assert np.all(state.sick <= state.battlefield)
        assert np.all(m["counters"] == m["explore_counters"] + m["trigger_counters"])
        assert np.all(m["explore_counters"] <= m["explores"])
        assert np.all(m["explore_lands"] + m["milled"] <= m["explores"])
        assert np.all(m["maps_used"] <= m["maps_created"])
        assert np.all(m["lands_played"] <= turn + m["extra_land_drops"] + m["nicanzil_lands"])
        assert np.all(m["on_curve"] == (m["lands_played"] >= turn))
        assert np.all(state.tapped <= state.battlefield) and np.all(state.tapped >= 0)
        assert np.all(state.pool == 0) and np.all(state.maps >= 0)  # mana empties between phases
        assert np.all(state.library_pips >= 0)
        # A draw from an empty library is always recorded.
        should_draw = turn > 1 or not config.on_play
        if should_draw:
            assert np.all(m["decked"][library_before == 0] == 1)
    return state


@pytest.mark.parametrize("deck_path", SHIPPED, ids=lambda p: p.stem)
@pytest.mark.parametrize("removal", [0.0, 0.3])
def test_invariants_on_every_shipped_deck(deck_path, removal):
    deck = explore_sim.load_deck(deck_path)
    play_checked(deck, GameConfig(turns=8, removal=removal), seed=int(removal * 10))


def test_invariants_with_replacements_and_triggers():
    deck = explore_sim.deck_from_counts([
        ("Forest", 22), ("Jadelight Ranger", 6), ("Topography Tracker", 4),
        ("Twists and Turns", 4), ("Wildgrowth Walker", 4), ("Nicanzil, Current Conductor", 4),
        ("Path of Discovery", 4), ("Spyglass Siren", 4), ("Captain Kathryn Janeway", 4),
        ("Enter the Unknown", 4),
    ])
    play_checked(deck, GameConfig(turns=8, removal=0.1), policy="keep")
    play_checked(deck, GameConfig(turns=8, replacement_order="twists-first"), policy="mill")


def test_decking_is_recorded_exactly_when_the_library_runs_out():
    deck = explore_sim.deck_from_counts([("Forest", 10)])
    result = explore_sim.simulate(deck, turns=5, on_play=False, mulligan="none", trials=100, seed=1)
    decked = result.summary().set_index(["turn", "metric"])["mean"]
    # 7 in hand, then draws on turns 1-3 empty the library; the turn 4 draw fails.
    assert [decked[(t, "decked")] for t in range(1, 6)] == [0, 0, 0, 1, 1]


def test_simulate_is_reproducible_and_seed_sensitive():
    deck = DECKS / "lci_merfolk_explore.txt"
    a = explore_sim.simulate(deck, turns=4, trials=3000, seed=2).summary()
    b = explore_sim.simulate(deck, turns=4, trials=3000, seed=2).summary()
    c = explore_sim.simulate(deck, turns=4, trials=3000, seed=3).summary()
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert not a["mean"].equals(c["mean"])


def test_summary_shape_and_metrics():
    result = explore_sim.simulate(DECKS / "xln_sultai_explore.txt", turns=3, trials=2000, seed=1)
    summary = result.summary()
    assert list(summary.columns) == ["turn", "metric", "mean", "se", "ci_low", "ci_high"]
    assert set(summary["turn"]) == {0, 1, 2, 3}
    per_turn = set(summary[summary["turn"] == 3]["metric"])
    for metric in ("lands_played", "on_curve", "land_drop", "counters", "explores",
                   "explore_lands", "milled", "maps_created", "maps_used", "mana_spent",
                   "hand_size", "life_gained"):
        assert metric in per_turn
    assert set(summary[summary["turn"] == 0]["metric"]) == {"mulligans", "hand_size", "opening_lands"}
    assert result.distribution("counters", turn=3)["probability"].sum() == pytest.approx(1)
    assert "turn 3" in result.render("table")


def test_compare_pairs_reduce_the_standard_error():
    result = explore_sim.compare(DECKS / "lci_merfolk_explore.txt", ["keep", "mill"], turns=6,
                                 trials=20_000, seed=7)
    diffs = result.paired_differences().set_index(["turn", "metric"])
    for metric in ("counters", "lands_played", "explores", "mana_spent"):
        row = diffs.loc[(6, metric)]
        assert row["se"] < row["se_unpaired"], metric
    assert diffs.loc[(6, "milled"), "mean"] > 0  # mill mills more
    keep_vs_keep = explore_sim.compare(DECKS / "lci_merfolk_explore.txt", ["keep", "keep"],
                                       turns=3, trials=3000, seed=1)
    same = keep_vs_keep.paired_differences()
    assert (same["mean"] == 0).all() and (same["se"] == 0).all()


def test_compare_decks_against_the_vanilla_control():
    result = explore_sim.compare([DECKS / "lci_merfolk_explore.txt",
                                  DECKS / "lci_merfolk_vanilla.txt"], "forge", turns=4,
                                 trials=5000, seed=3)
    diffs = result.paired_differences().set_index(["turn", "metric"])
    assert diffs.loc[(4, "explores"), "mean"] < 0  # the control does not explore
    assert diffs.loc[(0, "opening_lands"), "mean"] == 0  # same lands in the same places
    assert "paired differences" in result.render("table")


@pytest.mark.parametrize("kwargs, message", [
    ({"turns": 0}, "turns"),
    ({"removal": 1.5}, "removal"),
    ({"mulligan": "paris"}, "mulligan"),
    ({"replacement_order": "random"}, "replacement_order"),
    ({"cast_order": ["Forest"]}, "is a land"),
    ({"cast_order": ["Swamp"]}, "not in the deck"),
    ({"trials": 1}, "trials"),
])
def test_bad_simulate_options(kwargs, message):
    with pytest.raises(explore_sim.ExploreSimError, match=message):
        explore_sim.simulate(DECKS / "lci_limited_gu.txt", **{"trials": 100, **kwargs})
