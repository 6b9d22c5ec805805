"""Whole goldfish games: exact land-drop probabilities, invariants, comparisons."""

from __future__ import annotations

from math import comb

import numpy as np
import pandas as pd
import pytest
from conftest import DECKS

import explore_sim
from explore_sim.analysis.simulate import play_games
from explore_sim.engine.goldfish import GameConfig, GameState, Goldfish
from explore_sim.engine.mulligan import MulliganRule, deal_opening_hands
from explore_sim.engine.policies import as_policy

Z95 = 1.959963984540054


def first_chunk(seed):
    """The seed of the first chunk of trials: the first child of SeedSequence(seed)."""
    return np.random.SeedSequence(seed).spawn(1)[0]


#: The metrics that are probabilities (0/1 per game): Wilson score intervals.
PROBABILITIES = {"on_curve", "land_drop", "decked", "colour_screwed", "opponent_dead",
                 "screwed", "flooded"}  # 0/1


def statistics(values, probability=False):
    """mean, standard error and 95% interval of per-game values, computed here with NumPy."""
    values = np.asarray(values, dtype=np.float64)
    n = values.size
    mean = values.mean()
    se = values.std(ddof=1) / np.sqrt(n)
    if probability:
        centre = (mean + Z95**2 / (2 * n)) / (1 + Z95**2 / n)
        half = Z95 * np.sqrt(mean * (1 - mean) / n + Z95**2 / (4 * n * n)) / (1 + Z95**2 / n)
        return mean, se, max(0.0, centre - half), min(1.0, centre + half)
    return mean, se, mean - Z95 * se, mean + Z95 * se

SHIPPED = sorted(DECKS.glob("*.txt"))
#: The two engines that play goldfish games (explore_sim.analysis.engines).
ENGINES = ("kernel", "numpy")


def hypergeometric_tail(deck, lands, drawn, at_least):
    return sum(comb(lands, k) * comb(deck - lands, drawn - k)
               for k in range(at_least, min(lands, drawn) + 1)) / comb(deck, drawn)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("on_play", [True, False])
@pytest.mark.parametrize("size, lands", [(60, 24), (40, 17)])
@pytest.mark.slow
def test_on_curve_is_the_hypergeometric_tail(on_play, size, lands, engine):
    """A land drop every turn 1..T <=> at least T lands in the first 6+T cards on the play
    (7+T on the draw), on either engine."""
    deck = explore_sim.deck_from_counts([("Forest", lands), ("Grizzly Bears", size - lands)])
    result = explore_sim.simulate(deck, turns=6, on_play=on_play, mulligan="none",
                                  trials=200_000, seed=10 + size + on_play, engine=engine)
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
    rngs = {n: np.random.default_rng([seed, 9, i])
            for i, n in enumerate(("policy", "removal", "parley", "search"))}
    game = Goldfish(features, config, as_policy(policy), None, rngs)
    commanders = len(features.commander_ids) if game.is_commander else 0
    for turn in range(1, config.turns + 1):
        library_before = state.end - state.top
        game.play_turn(state)
        m = game.turn_metrics(state)
        # Every card is somewhere: library, hand, battlefield, graveyard or command zone.
        total = (state.end - state.top) + state.hand.sum(1) + state.battlefield.sum(1) \
            + state.graveyard + state.command.sum(1)
        assert np.all(total == deck.size + commanders)
        assert np.all(state.command_casts >= 0) and np.all(state.command <= 1)
        assert np.all(state.hand >= 0) and np.all(state.battlefield >= 0)
        assert np.all(state.sick <= state.battlefield)
        assert np.all(m["counters"] == m["explore_counters"] + m["trigger_counters"])
        assert np.all(m["explore_counters"] <= m["explores"])
        assert np.all(m["explore_lands"] + m["milled"] <= m["explores"])
        assert np.all(m["maps_used"] <= m["maps_created"])
        assert np.all(m["lands_played"] <= turn + m["extra_land_drops"] + m["lands_put"])
        assert np.all(m["nicanzil_lands"] <= m["lands_put"])
        assert np.all(m["commander_tax_paid"] == m["commander_cast"] * (m["commander_cast"] - 1))
        assert np.all(m["on_curve"] == (m["lands_played"] >= turn))
        assert np.all(state.tapped <= state.battlefield) and np.all(state.tapped >= 0)
        np.testing.assert_array_equal(state.units, game.mana.expected_units(state))
        counts = [state.permanents.copy(), state.hand_lands.copy()]
        state.recount()  # the running counts agree with the per-card arrays
        for kept, recounted in zip(counts, [state.permanents, state.hand_lands]):
            np.testing.assert_array_equal(kept, recounted)
        assert np.all(state.pool == 0) and np.all(state.maps >= 0)  # mana empties between phases
        assert np.all(state.library_pips >= 0)
        # A draw from an empty library is always recorded.
        should_draw = turn > 1 or not config.on_play or game.is_commander
        if should_draw:
            assert np.all(m["decked"][library_before == 0] == 1)
    return state


@pytest.mark.parametrize("deck_path", SHIPPED, ids=lambda p: p.stem)
@pytest.mark.parametrize("removal", [0.0, 0.3])
@pytest.mark.slow
def test_invariants_on_every_shipped_deck(deck_path, removal):
    deck = explore_sim.load_deck(deck_path)
    play_checked(deck, GameConfig(turns=8, removal=removal), seed=int(removal * 10))


@pytest.mark.slow
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


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.slow
def test_simulate_is_reproducible_and_seed_sensitive(engine):
    deck = DECKS / "lci_merfolk_explore.txt"
    a = explore_sim.simulate(deck, turns=4, trials=3000, seed=2, engine=engine).summary()
    b = explore_sim.simulate(deck, turns=4, trials=3000, seed=2, engine=engine).summary()
    c = explore_sim.simulate(deck, turns=4, trials=3000, seed=3, engine=engine).summary()
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert not a["mean"].equals(c["mean"])


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.slow
def test_summary_is_the_statistics_of_the_games_played(engine):
    """Every cell of the summary and of a distribution is computed here from the games
    themselves (the first chunk's games, replayed from its documented seed), on either
    engine."""
    deck = explore_sim.load_deck(DECKS / "xln_sultai_explore.txt")
    result = explore_sim.simulate(deck, turns=3, trials=2000, seed=1, engine=engine)
    assert result.meta["engine"] == engine
    summary = result.summary()
    assert list(summary.columns) == ["turn", "metric", "mean", "se", "ci_low", "ci_high"]
    games = play_games(deck, GameConfig(turns=3), as_policy("forge"), MulliganRule("london"),
                       2000, first_chunk(1), engine=engine)
    rows = summary.set_index(["turn", "metric"])
    assert sorted(rows.index) == sorted((t, m) for t, values in games.items() for m in values)
    for turn, values in games.items():
        for metric, per_game in values.items():
            got = rows.loc[(turn, metric), ["mean", "se", "ci_low", "ci_high"]].to_numpy()
            expected = statistics(per_game, metric in PROBABILITIES)
            assert got == pytest.approx(expected, rel=1e-9, abs=1e-12), (turn, metric)
    counts = np.bincount(games[3]["counters"])
    dist = result.distribution("counters", turn=3)
    assert dist["count"].tolist() == counts.tolist()
    assert dist["probability"].tolist() == pytest.approx((counts / 2000).tolist())
    table = result.render("table")
    counters = rows.loc[(3, "counters")]
    assert f"{counters['mean']:.3f} ({counters['se']:.3f})" in table


@pytest.mark.slow
def test_compare_is_paired_differences_of_the_same_games():
    deck = explore_sim.load_deck(DECKS / "lci_merfolk_explore.txt")
    result = explore_sim.compare(deck, ["keep", "mill"], turns=6, trials=20_000, seed=7)
    keep, mill = (play_games(deck, GameConfig(turns=6), as_policy(p), MulliganRule("london"),
                             20_000, first_chunk(7)) for p in ("keep", "mill"))
    # Each variant is the simulation of its policy on the same seed (the same shuffles).
    variants = result.summary()
    for label in ("keep", "mill"):
        alone = explore_sim.simulate(deck, turns=6, policy=label, trials=20_000, seed=7).summary()
        mine = variants[variants["variant"] == label].drop(columns=["variant", "deck", "policy"])
        pd.testing.assert_frame_equal(mine.reset_index(drop=True), alone, check_exact=True)
    diffs = result.paired_differences().set_index(["turn", "metric"])
    for turn in keep:
        for metric in keep[turn]:
            row = diffs.loc[(turn, metric)]
            got = row[["mean", "se", "ci_low", "ci_high"]].to_numpy()
            paired = mill[turn][metric] - keep[turn][metric]
            assert got == pytest.approx(statistics(paired), rel=1e-9, abs=1e-12), (turn, metric)
            unpaired = np.hypot(statistics(mill[turn][metric])[1],
                                statistics(keep[turn][metric])[1])
            assert row["se_unpaired"] == pytest.approx(unpaired, rel=1e-9, abs=1e-12)
    for metric in ("counters", "lands_played", "explores", "mana_spent"):
        row = diffs.loc[(6, metric)]
        assert row["se"] < row["se_unpaired"], metric
    # keep mills nothing: the difference in milled is mill's own milled, game by game.
    assert (keep[6]["milled"] == 0).all()
    mill_rows = variants[variants["variant"] == "mill"].set_index(["turn", "metric"])
    assert diffs.loc[(6, "milled"), ["mean", "se"]].tolist() == pytest.approx(
        mill_rows.loc[(6, "milled"), ["mean", "se"]].tolist(), rel=1e-12)
    keep_vs_keep = explore_sim.compare(DECKS / "lci_merfolk_explore.txt", ["keep", "keep"],
                                       turns=3, trials=3000, seed=1)
    same = keep_vs_keep.paired_differences()
    assert (same["mean"] == 0).all() and (same["se"] == 0).all()


def test_compare_decks_against_the_vanilla_control():
    result = explore_sim.compare([DECKS / "lci_merfolk_explore.txt",
                                  DECKS / "lci_merfolk_vanilla.txt"], "forge", turns=4,
                                 trials=5000, seed=3)
    diffs = result.paired_differences().set_index(["turn", "metric"])
    explorer = result.summary()
    explorer = explorer[explorer["variant"] == "Lost Caverns Merfolk Explore"].set_index(
        ["turn", "metric"])
    # The control never explores: its difference is minus the explore deck's explores.
    assert (diffs.loc[(4, "explores"), "mean"]
            == pytest.approx(-explorer.loc[(4, "explores"), "mean"]))
    assert diffs.loc[(4, "explores"), "se"] == pytest.approx(explorer.loc[(4, "explores"), "se"])
    assert diffs.loc[(0, "opening_lands"), "mean"] == 0  # same lands in the same places
    assert diffs.loc[(0, "opening_lands"), "se"] == 0
    assert "paired differences" in result.render("table")


@pytest.mark.parametrize("kwargs, message", [
    ({"turns": 0}, "turns"),
    ({"removal": 1.5}, "removal"),
    ({"mulligan": "paris"}, "mulligan"),
    ({"replacement_order": "random"}, "replacement_order"),
    ({"cast_order": ["Forest"]}, "is a land"),
    ({"cast_order": ["Swamp"]}, "not in the deck"),
    ({"cast_order": ["Cenote Scot"]}, r"not in the deck \(did you mean 'Cenote Scout'\?\)"),
    ({"trials": 1}, "trials"),
])
def test_bad_simulate_options(kwargs, message):
    with pytest.raises(explore_sim.ExploreSimError, match=message):
        explore_sim.simulate(DECKS / "lci_limited_gu.txt", **{"trials": 100, **kwargs})


@pytest.mark.parametrize("engine", ["kernel", "numpy"])
def test_the_default_table_leaves_out_map_rows_when_no_game_made_a_map(engine):
    """Golgari makes no Map: its table has no Map rows and says so; the tidy rows keep them
    and --metrics still shows them. The merfolk deck makes Maps: its table has the rows."""
    golgari = explore_sim.simulate(DECKS / "golgari_explore.txt", turns=3, trials=300, seed=1,
                                   engine=engine)
    text = golgari.render()
    rows = [line.split()[0] for line in text.splitlines() if line and not line[0].isspace()]
    assert "on_curve" in rows and "maps_created" not in rows and "maps_used" not in rows
    assert "no game made a Map: maps_created and maps_used are not shown" in text
    assert {"maps_created", "maps_used"} <= set(golgari.summary()["metric"])
    shown = golgari.render(metrics=["maps_used", "on_curve"])
    assert "\nmaps_used " in shown and "no game made a Map" not in shown
    merfolk = explore_sim.simulate(DECKS / "lci_merfolk_explore.txt", turns=3, trials=300,
                                   seed=1, engine=engine)
    assert "\nmaps_created " in merfolk.render()
    assert "no game made a Map" not in merfolk.render()
    assert golgari.default_metrics()[-1] == "hand_size"
