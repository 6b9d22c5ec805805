"""tune: racing keep-or-mill rules on common random numbers, re-evaluated on a fresh seed."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import DECKS, ROOT

import explore_sim
from explore_sim.analysis.executors import InProcessExecutor
from explore_sim.analysis.game_setup import game_setup
from explore_sim.analysis.objectives import PairedValues, parse_objective
from explore_sim.analysis.runner import child_seed, seed_sequence
from explore_sim.analysis.tune import (
    MIN_TWIN_GAMES,
    TUNE_COLUMNS,
    _play,
    _Race,
    _recommend,
    _schedule,
    policy_space,
    tune,
)
from explore_sim.engine.policies import as_policies, as_policy
from explore_sim.errors import OptionError

MERFOLK = DECKS / "lci_merfolk_explore.txt"
#: A small space for quick runs: mill is best for on_curve@4 in the merfolk deck, keep worst.
SMALL = ["keep", "mill", "forge", "forge:need_lands=3,max_mv_diff=1", "mana_value >= 4",
         "lands_in_hand <= 0 and turn <= 4", "lands_in_play <= 5", "turn >= 5"]


def test_the_policy_space():
    space = policy_space()
    assert len(space) == len(set(space)) == 409
    assert space[:2] == ["keep", "mill"] and "forge" in space
    assert sum(rule.startswith("forge") for rule in space) == 25
    assert "forge:need_lands=0,max_mv_diff=4" in space
    assert "forge:need_lands=4,max_mv_diff=0" in space
    assert "mana_value >= 4 and lands_in_hand <= 0" in space
    assert "not castable_next_turn" in space and "turn >= 7" in space
    assert not any("mana_value >= 2 and mana_value" in rule for rule in space)
    as_policies(space)  # every rule is a valid --policy


def test_halving_schedule():
    assert _schedule(409, 5) == [409, 205, 103, 52, 26, 13, 7]
    assert _schedule(8, 5) == [8] and _schedule(5, 5) == [5] and _schedule(3, 5) == [3]


def _race_of(scores: np.ndarray) -> _Race:
    """A race of the rules whose objective values, game by game, are the rows of ``scores``."""
    race = _Race.start(len(scores))
    sums = PairedValues(len(scores))
    sums.add(list(scores.astype(float)))
    race.add(list(range(len(scores))), sums)
    return race


def test_rules_alike_over_a_few_games_are_not_twins():
    """Over a dozen games many rules score alike (every game on curve): none of them is left
    out as another's twin, which would lose it from the race."""
    few = np.ones((4, 13))
    twins: dict[int, int] = {}
    assert _race_of(few).cut([0, 1, 2, 3], 2, twins) == [0, 1] and twins == {}
    many = np.ones((4, MIN_TWIN_GAMES))
    many[3, 5] = 0  # rule 3 differs in one game
    assert _race_of(many).cut([0, 1, 2, 3], 2, twins) == [0, 3] and twins == {0: 2}


def test_a_small_budget_keeps_the_race_going():
    """At 50,000 games the first round plays 13 games a rule: every rule scored as keep in
    them, and all 408 were once left out as its twins, keep recommended over mill."""
    result = tune(MERFOLK, "on_curve@4", budget=50_000, seed=2)
    assert result.winner == "mill"
    assert result.meta["rounds"][1]["survivors"] == 205
    finalists = result.summary()[lambda rows: rows["rank"] > 0]
    if len(finalists) < 5:
        assert f"{len(finalists)} finalist" in result.meta["note"]


@pytest.mark.slow
def test_tune_is_reproducible_by_seed_and_picks_the_best():
    first = tune(MERFOLK, "on_curve@4", budget=12_000, candidates=SMALL, seed=3)
    again = tune(MERFOLK, "on_curve@4", budget=12_000, candidates=SMALL, seed=3)
    other = tune(MERFOLK, "on_curve@4", budget=12_000, candidates=SMALL, seed=4)
    assert first.summary().equals(again.summary()) and first.meta == again.meta
    assert not first.summary().equals(other.summary())
    rows = first.summary()
    assert list(rows.columns) == list(TUNE_COLUMNS)
    assert first.winner == "mill" and rows.iloc[0]["policy"] == "mill"
    # lands_in_play <= 5 mills whenever mill does by turn 4: a twin, not a finalist
    assert rows.iloc[0]["same_games"] >= 1 and "lands_in_play <= 5" not in rows["policy"].tolist()
    assert rows[rows["policy"] == "keep"]["vs_keep"].iloc[0] == 0
    as_policy(first.winner)


@pytest.mark.slow
def test_the_fresh_evaluation_is_what_is_reported():
    """The reported figures are the finalists replayed on the seed's second stream: not the
    racing's games (no winner's curse)."""
    result = tune(MERFOLK, "on_curve@4", budget=12_000, candidates=SMALL, seed=5)
    rows = result.summary()
    deck = explore_sim.load_deck(MERFOLK)
    setup = game_setup([deck], 2, {"turns": 4})
    config, rule = setup.config, setup.rule
    replay = _play(deck, config, rule, parse_objective("on_curve@4"),
                   as_policies(rows["policy"].tolist()), result.meta["final_games"],
                   child_seed(seed_sequence(5), 1), InProcessExecutor(), lambda games: None,
                   result.meta["engine"])
    for j, mean in enumerate(rows["mean"]):
        assert replay.mean(j)["mean"] == pytest.approx(mean, abs=1e-12)
    finalists = rows[rows["rank"] > 0]
    assert (finalists["racing_mean"] != finalists["mean"]).any()


def test_never_worse_than_forge_beyond_noise():
    result = tune(MERFOLK, "mana_spent@5", budget=15_000,
                  candidates=["keep", "forge", "mana_value >= 3", "turn >= 4", "mill"], top=3,
                  seed=6)
    rows = result.summary()
    chosen = rows[rows["policy"] == result.winner].iloc[0]
    assert chosen["vs_forge_ci_high"] >= 0


def test_forge_is_recommended_when_the_winner_is_worse_on_fresh_games():
    def rows(high: float) -> pd.DataFrame:
        return pd.DataFrame([
            {"rank": 1, "policy": "mana_value >= 4", "mean": 0.5, "se": 0.01, "vs_forge": -0.02,
             "vs_forge_se": 0.005, "vs_forge_ci_low": -0.03, "vs_forge_ci_high": high},
            {"rank": 0, "policy": "forge", "mean": 0.52, "se": 0.01, "vs_forge": 0.0,
             "vs_forge_se": 0.0, "vs_forge_ci_low": 0.0, "vs_forge_ci_high": 0.0},
        ])

    recommended, note = _recommend(rows(-0.01))
    assert recommended == "forge" and "worse than forge" in note
    assert _recommend(rows(0.001))[0] == "mana_value >= 4"


def test_weighted_objectives_and_bad_requests():
    result = tune(MERFOLK, "on_curve@3 + 0.1*counters@3", budget=3_000,
                  candidates=["keep", "mill"], seed=1)
    assert result.meta["objective"] == "on_curve@3 + 0.1*counters@3"
    assert len(result.meta["rounds"]) == 1  # two rules: one round ranks them
    assert result.winner == "mill"
    with pytest.raises(OptionError, match="one objective"):
        tune(MERFOLK, "on_curve@4,mana_spent@6", budget=1000)
    with pytest.raises(OptionError, match="too few to race 409 rules"):
        tune(MERFOLK, "on_curve@4", budget=1000)
    with pytest.raises(OptionError, match="budget must be"):
        tune(MERFOLK, "on_curve@4", budget=0)
    with pytest.raises(OptionError, match="unknown name"):
        tune(MERFOLK, "on_curv@4", budget=1000)


@pytest.mark.slow
def test_tune_command_line_prints_a_policy_simulate_accepts(monkeypatch, capsys):
    from explore_sim import cli
    from explore_sim.analysis import tune as tune_module

    monkeypatch.setattr(tune_module, "policy_space", lambda: list(SMALL))  # a quick search
    status = cli.main(["tune", str(MERFOLK), "--objective", "mana_spent@4", "--budget", "8000",
                       "--seed", "1", "--top", "2", "--quiet"])
    out = capsys.readouterr().out
    assert status == 0 and "over 8 keep-or-mill rules" in out
    line = next(text for text in out.splitlines() if text.startswith("recommended: --policy "))
    policy = line.split('--policy "', 1)[1].rstrip('"')
    assert cli.main(["simulate", str(MERFOLK), "--policy", policy, "--turns", "2",
                     "--trials", "50", "--seed", "1", "--quiet"]) == 0
    bad = subprocess.run([sys.executable, "-m", "explore_sim", "tune", str(MERFOLK),
                          "--objective", "mana_spent"], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and "needs a turn" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.slow
def test_workers_do_not_change_the_numbers():
    one = tune(MERFOLK, "on_curve@3", budget=6_000, candidates=SMALL[:6], top=2, seed=9)
    two = tune(MERFOLK, "on_curve@3", budget=6_000, candidates=SMALL[:6], top=2, seed=9,
               workers=2)
    assert one.summary().equals(two.summary())
    assert np.isfinite(one.summary()["mean"]).all()
