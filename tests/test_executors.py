"""Where chunks run: this process, local processes under fork or spawn; the same numbers."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap
import time
import tomllib

import numpy as np
import pandas as pd
import pytest
from conftest import DECKS, ROOT

import explore_sim
from explore_sim.analysis import executors
from explore_sim.analysis.executors import (
    ExecutorError,
    InProcessExecutor,
    Job,
    ProcessExecutor,
    executing,
    executor_for,
)
from explore_sim.analysis.games import CompareTask, SimulateTask
from explore_sim.analysis.runner import CHUNK_TRIALS, run_chunks, seed_sequence
from explore_sim.engine.goldfish import GameConfig
from explore_sim.engine.mulligan import as_mulligan_rule
from explore_sim.engine.policies import ExpressionPolicy, as_policy
from explore_sim.errors import OptionError

DECK = explore_sim.load_deck(DECKS / "lci_merfolk_explore.txt")
TRIALS = CHUNK_TRIALS + 700  # two chunks


def _draws(trials: int, seed: np.random.SeedSequence) -> np.ndarray:
    """A picklable task: a chunk's random numbers, slower for early seeds."""
    time.sleep(0.02 * (seed.spawn_key[-1] % 3 == 0))
    return np.random.default_rng(seed).integers(0, 1000, size=trials)


def _collect(executor: executors.Executor, chunks: int = 12) -> list[np.ndarray]:
    seed = seed_sequence(4)
    out: list[np.ndarray] = []
    run_chunks(_draws, out.append, chunks * 50, seed, chunk_trials=50, scheduler=executor)
    return out


@pytest.mark.slow
def test_every_executor_hands_back_results_in_chunk_order():
    here = _collect(InProcessExecutor())
    for executor in (ProcessExecutor(2), ProcessExecutor(2, "spawn")):
        there = _collect(executor)
        assert len(there) == len(here) == 12
        for a, b in zip(here, there):
            np.testing.assert_array_equal(a, b)


def test_jobs_in_flight_are_bounded_and_read_lazily():
    submitted, finished = [], []

    class Done:
        def __init__(self, value):
            self.value = value

    def submit(job):
        submitted.append(job)
        return Done(job)

    def jobs():
        for i in range(20):
            yield i
            assert len(submitted) - len(finished) <= 4  # never more than the window ahead

    for value in executors._in_order(submit, jobs(), 4, lambda f: f.value, lambda f: None):
        finished.append(value)
    assert finished == list(range(20))


@pytest.mark.slow
def test_spawned_workers_give_the_numbers_of_one_process():
    spawn = ProcessExecutor(2, start_method="spawn")
    kwargs = dict(turns=1, trials=TRIALS, seed=6, policy="mana_value >= 3")
    one = explore_sim.simulate(DECK, **kwargs)
    two = explore_sim.simulate(DECK, scheduler=spawn, **kwargs)
    pd.testing.assert_frame_equal(one.summary(), two.summary(), check_exact=True)
    one = explore_sim.explore(DECK, explores=2, trials=TRIALS, seed=8)
    two = explore_sim.explore(DECK, explores=2, trials=TRIALS, seed=8, scheduler=spawn)
    pd.testing.assert_frame_equal(one.distribution(), two.distribution(), check_exact=True)


def test_a_lambda_policy_cannot_go_to_spawned_workers():
    policy = {"mv3": lambda obs, rng: obs.mana_value >= 3}
    with pytest.raises(ExecutorError, match=r"started with spawn need the work pickled, and "
                                            r"policy 'mv3' cannot be .* workers=1"):
        explore_sim.simulate(DECK, policy=policy, turns=1, trials=TRIALS, seed=1,
                             scheduler=ProcessExecutor(2, start_method="spawn"))
    # In this process, or where workers are forked, a lambda is fine.
    explore_sim.simulate(DECK, policy=policy, turns=1, trials=200, seed=1)


@pytest.mark.slow
def test_the_command_line_runs_workers_under_spawn(tmp_path):
    """The start method of macOS and Windows: --workers 2 gives the numbers of --workers 1."""
    script = tmp_path / "spawned.py"
    script.write_text(textwrap.dedent("""
        import multiprocessing
        import sys

        from explore_sim.cli import main

        if __name__ == "__main__":
            multiprocessing.set_start_method("spawn")
            sys.exit(main(sys.argv[1:]))
    """))
    args = ["sweep", str(DECKS / "lci_merfolk_explore.txt"), "--vary", "lands=23,24",
            "--vary", "policy=keep,mana_value >= 3", "--turns", "2", "--trials", "3000",
            "--seed", "1", "--format", "csv"]
    one = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    two = subprocess.run([sys.executable, str(script), *args, "--workers", "2"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert one.returncode == 0 and two.returncode == 0, (one.stderr, two.stderr)
    assert two.stderr == ""
    assert one.stdout == two.stdout and one.stdout.count("\n") > 100


def test_tasks_and_expression_policies_pickle():
    policy = as_policy("lands_in_hand == 0 and mana_value <= 2")
    again = pickle.loads(pickle.dumps(policy))
    assert isinstance(again, ExpressionPolicy) and again == policy
    assert pickle.dumps(policy) == pickle.dumps(again)
    task = SimulateTask(DECK, GameConfig(turns=2), policy, as_mulligan_rule("london"))
    copy = pickle.loads(pickle.dumps(task))
    seed = seed_sequence(3)
    first, second = task(500, seed), copy(500, seed)
    pd.testing.assert_frame_equal(first.summary(), second.summary(), check_exact=True)
    pairs = CompareTask(((DECK, policy), (DECK, as_policy("keep"))), GameConfig(turns=1),
                        as_mulligan_rule("london"))
    (a, _), (b, _) = pairs(300, seed), pickle.loads(pickle.dumps(pairs))(300, seed)
    pd.testing.assert_frame_equal(a[1].summary(), b[1].summary(), check_exact=True)


def test_workers_and_a_scheduler_do_not_mix():
    with pytest.raises(OptionError, match="choose one"):
        executor_for(2, "tcp://127.0.0.1:1")
    with pytest.raises(OptionError, match="scheduler must be an address"):
        executor_for(1, 42)
    assert isinstance(executor_for(1, ""), InProcessExecutor)
    assert isinstance(executor_for(2), ProcessExecutor)
    borrowed = ProcessExecutor(2)
    with executing(1, borrowed) as executor:
        assert executor is borrowed
    with pytest.raises(OptionError, match="start method"):
        ProcessExecutor(2, start_method="telepathy")


def test_an_unreachable_scheduler_is_one_line(monkeypatch):
    pytest.importorskip("distributed")
    from explore_sim.analysis import dask_connect

    tried = []
    connect = dask_connect.socket.create_connection
    monkeypatch.setattr(dask_connect.socket, "create_connection",
                        lambda *a, **k: tried.append(a) or connect(*a, **k))
    with pytest.raises(ExecutorError, match=r"^cannot reach the Dask scheduler at "
                                            r"tcp://127.0.0.1:1: ") as error:
        explore_sim.simulate(DECK, turns=1, trials=200, seed=1, scheduler="tcp://127.0.0.1:1")
    assert "\n" not in str(error.value)
    assert tried == [(("127.0.0.1", 1),)]  # one try, refused at once: no client started
    with pytest.raises(ExecutorError, match="must look like tcp://HOST:PORT"):
        explore_sim.simulate(DECK, turns=1, trials=200, seed=1, scheduler="nonsense")


def test_job_names_its_task_trials_and_seed():
    job = Job(3, 100, seed_sequence(1))
    assert job.task == 3 and job.trials == 100 and job.seed.entropy == 1


def test_the_dev_extra_brings_dask_for_the_cluster_tests():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert any(r.startswith("dask[distributed]") for r in extras["distributed"])
    selves = [r for r in extras["dev"] if r.startswith("explore_sim[")]
    assert len(selves) == 1 and "distributed" in selves[0][len("explore_sim["):-1].split(",")
    assert any(r.startswith("pyarrow>=") for r in project["dependencies"])


@pytest.mark.slow
def test_value_advise_and_tune_give_the_numbers_of_one_process_on_spawned_workers():
    """Their chunk tasks pickle, so they run under spawn (and on Dask) with the same numbers."""
    spawn = ProcessExecutor(2, start_method="spawn")
    valued = dict(cards=["Cenote Scout"], turns=3, turn=3, trials=3000, seed=2, max_lands=2)
    pd.testing.assert_frame_equal(explore_sim.value(DECK, **valued).summary(),
                                  explore_sim.value(DECK, scheduler=spawn, **valued).summary(),
                                  check_exact=True)
    position = dict(turn=2, battlefield="2 Forest, Cenote Scout", hand="Grizzly Bears",
                    revealed="Platinum Angel", objectives="on_curve@4", trials=3000, seed=3)
    sevens = ROOT / "tests" / "fixtures" / "decks" / "scouts_and_sevens.txt"
    pd.testing.assert_frame_equal(explore_sim.advise(sevens, **position).summary(),
                                  explore_sim.advise(sevens, scheduler=spawn, **position).summary(),
                                  check_exact=True)
    tuned = dict(budget=6000, candidates=["keep", "mill", "forge", "mana_value >= 3"], top=2,
                 seed=4)
    pd.testing.assert_frame_equal(explore_sim.tune(DECK, "on_curve@3", **tuned).summary(),
                                  explore_sim.tune(DECK, "on_curve@3", scheduler=spawn,
                                                   **tuned).summary(),
                                  check_exact=True)
