"""The kill turn on the command line and as an objective (docs/guide/damage.md):
``simulate --kill-turn``, ``compare --kill-turn``'s paired differences, ``kill_turn@T`` in
tune, and the commands that refuse it."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
from conftest import DECKS

import explore_sim
from explore_sim.analysis.compare import compare
from explore_sim.analysis.games import TurnStats, play_games
from explore_sim.analysis.kill_turn import kill_turn
from explore_sim.analysis.objectives import parse_objective
from explore_sim.analysis.tune import tune
from explore_sim.cards.decklist import load_deck
from explore_sim.cli import main
from explore_sim.engine.goldfish import GameConfig
from explore_sim.engine.mulligan import MulliganRule
from explore_sim.engine.policies import as_policy
from explore_sim.errors import OptionError

EXPLORE = str(DECKS / "lci_merfolk_explore.txt")
VANILLA = str(DECKS / "lci_merfolk_vanilla.txt")
RUN = ["--turns", "7", "--trials", "3000", "--seed", "3", "--engine", "numpy", "--quiet"]


def simulated():
    return explore_sim.simulate(EXPLORE, turns=7, trials=3000, seed=3, engine="numpy")


@pytest.mark.slow
def test_simulate_kill_turn_prints_the_numbers_of_kill_turn(capsys):
    clock = simulated().kill_turn()
    assert main(["simulate", EXPLORE, *RUN, "--kill-turn", "--format", "csv"]) == 0
    rows = pd.read_csv(io.StringIO(capsys.readouterr().out))
    pd.testing.assert_frame_equal(rows, clock.by_turn, check_dtype=False)
    assert main(["simulate", EXPLORE, *RUN, "--kill-turn", "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert (payload["mean"], payload["mean_se"]) == (clock.mean, clock.mean_se)
    assert payload["median"] == clock.median and payload["censored_at"] == 8
    assert main(["simulate", EXPLORE, *RUN, "--kill-turn"]) == 0
    text = capsys.readouterr().out
    assert f"  median kill turn: turn {clock.median}\n" in text
    assert f"  mean of min(kill turn, 8): {clock.mean:.3f} ({clock.mean_se:.3f})\n" in text
    assert "  censored: a game alive after turn 7 counts as killed on turn 8" in text
    assert f"    5 {clock.by_turn['dead'][4]:>5}" in text


@pytest.mark.slow
def test_the_kill_turn_objective_is_the_censored_mean():
    deck = load_deck(EXPLORE)
    config = GameConfig(turns=7)
    games = play_games(deck, config, as_policy("forge"), MulliganRule(), 2000,
                       np.random.SeedSequence(5), engine="numpy")
    objective = parse_objective("kill_turn@7")
    assert objective.lower_is_better and objective.first_turn == 1
    clock = kill_turn(TurnStats.of(games, 7))
    assert objective.values(games).mean() == pytest.approx(clock.mean, rel=1e-12)
    assert not parse_objective("-kill_turn@7").lower_is_better
    assert parse_objective("kill_turn@4").values(games).max() <= 5


@pytest.mark.slow
def test_compare_pairs_the_censored_mean_kill_turn(capsys):
    result = compare([VANILLA, EXPLORE], turns=7, trials=4000, seed=2, engine="numpy")
    rows = result.kill_turn_differences()
    means = [kill_turn(stats).mean for stats in result.variants]
    assert rows["mean"].iloc[:2].tolist() == pytest.approx(means, rel=1e-12)
    diff = rows.iloc[2]
    assert diff["mean"] == pytest.approx(means[1] - means[0], abs=1e-12)
    assert diff["mean"] < 0 and diff["se"] < diff["se_unpaired"]
    assert main(["compare", VANILLA, EXPLORE, "--turns", "7", "--trials", "4000", "--seed",
                 "2", "--engine", "numpy", "--quiet", "--kill-turn"]) == 0
    text = capsys.readouterr().out
    assert (f"{diff['mean']:+.3f} ({diff['se']:.3f}) [{diff['se_unpaired']:.3f}]: lowers the "
            f"mean kill turn by {-diff['mean']:.3f} turns") in text
    assert main(["compare", VANILLA, EXPLORE, "--turns", "7", "--trials", "4000", "--seed",
                 "2", "--engine", "numpy", "--quiet", "--kill-turn", "--format", "csv"]) == 0
    csv = pd.read_csv(io.StringIO(capsys.readouterr().out))
    kill = csv[csv["metric"] == "kill_turn"]
    assert kill["mean"].tolist() == rows["mean"].tolist()


@pytest.mark.slow
def test_tune_minimises_kill_turn():
    result = tune(EXPLORE, "kill_turn@6", budget=6000, top=3, seed=1, engine="numpy",
                  candidates=["keep", "mill", "forge"])
    finalists = result.rows[result.rows["rank"] > 0]
    assert finalists["racing_mean"].is_monotonic_increasing
    assert "(lower is better)" in result.render()


@pytest.mark.parametrize("argv, message", [
    (["simulate", EXPLORE, "--kill-turn", "--metrics", "damage"], "--kill-turn prints"),
    (["value", EXPLORE, "--metric", "kill_turn"], "--metric: the land-equivalent cannot"),
    (["advise", EXPLORE, "--turn", "3", "--revealed", "Nicanzil, Current Conductor",
      "--battlefield", "Cenote Scout, 3 Forest", "--objective", "kill_turn@6"],
     "advise cannot use kill_turn"),
    (["advise", EXPLORE, "--turn", "3", "--revealed", "Nicanzil, Current Conductor",
      "--battlefield", "Cenote Scout, 3 Forest", "--objective", "damage@6,opponent_dead@6"],
     "advise cannot use opponent_dead, a position does not say how much damage"),
    (["tune", EXPLORE, "--objective", "kill_turn"], "needs a turn, as in kill_turn@4"),
])
def test_misuse_is_one_line(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_python_value_refuses_kill_turn():
    with pytest.raises(OptionError, match="cannot match kill_turn"):
        explore_sim.value(EXPLORE, metric="kill_turn")
