"""A real Dask cluster on loopback (a scheduler and two worker processes): the same numbers."""

from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd
import pytest
from conftest import DECKS, ROOT

import explore_sim
from explore_sim.analysis import executors
from explore_sim.analysis.executors import DaskExecutor, ExecutorError
from explore_sim.analysis.runner import CHUNK_TRIALS

pytestmark = pytest.mark.slow  # a real Dask cluster

distributed = pytest.importorskip("distributed")

DECK = DECKS / "lci_merfolk_explore.txt"


@pytest.fixture(scope="module")
def cluster():
    # The workers' nanny takes the allocator settings from this environment.
    with pytest.MonkeyPatch.context() as patch:
        for name, value in executors.WORKER_MALLOC.items():
            patch.setenv(name, value)
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      host="127.0.0.1", dashboard_address=":0") as local:
            patch.undo()
            yield local


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "explore_sim", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=180, env={**os.environ, **(env or {})})


def test_the_sweep_on_the_cluster_writes_the_file_of_the_local_run(cluster, tmp_path):
    args = ["sweep", str(DECK), "--vary", "lands=22..23", "--vary", "policy=keep,forge",
            "--turns", "3", "--trials", "5000", "--seed", "1", "--format", "csv"]
    here = cli(*args, "--out", str(tmp_path / "here.parquet"))
    there = cli(*args, "--out", str(tmp_path / "there.parquet"), "--scheduler",
                cluster.scheduler_address)
    assert here.returncode == 0 and there.returncode == 0, there.stderr
    assert there.stderr == ""
    assert there.stdout == here.stdout
    assert (tmp_path / "there.parquet").read_bytes() == (tmp_path / "here.parquet").read_bytes()
    # DASK_SCHEDULER_ADDRESS names the cluster too.
    env = cli(*args, env={executors.SCHEDULER_ENV: cluster.scheduler_address})
    assert env.returncode == 0 and env.stdout == here.stdout
    both = cli(*args, "--workers", "2", env={executors.SCHEDULER_ENV: cluster.scheduler_address})
    assert both.returncode == 2
    assert both.stderr.strip() == ("explore-sim: error: --workers runs local processes and "
                                   "DASK_SCHEDULER_ADDRESS a Dask cluster: choose one")


def test_every_analysis_gives_the_local_numbers_on_the_cluster(cluster):
    games = dict(turns=1, trials=CHUNK_TRIALS + 11, seed=4)
    client = distributed.Client(cluster.scheduler_address, set_as_default=False)
    try:
        local = explore_sim.simulate(DECK, **games)
        assert local.meta["engine"] == "kernel"  # the default engine plays on the cluster too
        for scheduler in (cluster.scheduler_address, client):
            there = explore_sim.simulate(DECK, scheduler=scheduler, **games)
            assert there.meta["engine"] == "kernel"
            pd.testing.assert_frame_equal(local.summary(), there.summary(), check_exact=True)
        numpy = dict(games, engine="numpy")
        pd.testing.assert_frame_equal(
            explore_sim.simulate(DECK, **numpy).summary(),
            explore_sim.simulate(DECK, scheduler=client, **numpy).summary(), check_exact=True)
        pd.testing.assert_frame_equal(
            explore_sim.compare(DECK, ["keep", "forge"], **games).paired_differences(),
            explore_sim.compare(DECK, ["keep", "forge"], scheduler=client,
                                **games).paired_differences(),
            check_exact=True)
        # explore_lands: no count of lands reaches it, so a later round pairs the kept values
        valued = dict(cards=["Cenote Scout"], metric="explore_lands", turns=2, turn=2,
                      trials=2000, seed=2, max_lands=2)
        pd.testing.assert_frame_equal(
            explore_sim.value(DECK, **valued).summary(),
            explore_sim.value(DECK, scheduler=client, **valued).summary(), check_exact=True)
        tuned = dict(budget=4000, candidates=["keep", "mill", "forge"], top=1, seed=4)
        pd.testing.assert_frame_equal(
            explore_sim.tune(DECK, "on_curve@2", **tuned).summary(),
            explore_sim.tune(DECK, "on_curve@2", scheduler=client, **tuned).summary(),
            check_exact=True)
        # A client passed in is left open; a lambda policy travels by value (cloudpickle).
        assert client.status == "running"
        policy = {"mv3": lambda obs, rng: obs.mana_value >= 3}
        pd.testing.assert_frame_equal(
            explore_sim.explore(DECK, policy=policy, trials=games["trials"], seed=5).distribution(),
            explore_sim.explore(DECK, policy=policy, trials=games["trials"], seed=5,
                                scheduler=client).distribution(),
            check_exact=True)
    finally:
        client.close()


def test_workers_of_another_version_are_refused(cluster, monkeypatch):
    monkeypatch.setattr(executors, "__version__", "0.0.0-other")
    with pytest.raises(ExecutorError, match=r"Dask worker tcp://127.0.0.1:\d+ runs explore_sim "
                                            r"[^ ]+ with NumPy .*, this machine explore_sim "
                                            r"0.0.0-other"):
        explore_sim.simulate(DECK, turns=1, trials=100, seed=1,
                             scheduler=cluster.scheduler_address)


def test_a_scheduler_without_workers_is_one_line():
    with distributed.LocalCluster(n_workers=0, host="127.0.0.1", dashboard_address=":0",
                                  processes=True) as empty:
        executor = DaskExecutor(empty.scheduler_address, timeout=1)
        with pytest.raises(ExecutorError, match="has no worker"):
            explore_sim.simulate(DECK, turns=1, trials=100, seed=1, scheduler=executor)
        executor.close()


def test_workers_with_the_allocator_dask_chooses_are_pointed_out():
    assert executors._slow_allocator({"MALLOC_TRIM_THRESHOLD_": "65536",
                                      "MALLOC_MMAP_THRESHOLD_": None})
    assert executors._slow_allocator({"MALLOC_TRIM_THRESHOLD_": "1073741824",
                                      "MALLOC_MMAP_THRESHOLD_": None})
    assert not executors._slow_allocator({"MALLOC_TRIM_THRESHOLD_": None,
                                          "MALLOC_MMAP_THRESHOLD_": None})
    assert not executors._slow_allocator(executors.WORKER_MALLOC)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=":0") as plain:
        with pytest.warns(explore_sim.errors.OptionWarning,
                          match=r"1 Dask worker\(s\) run with MALLOC_TRIM_THRESHOLD_=65536 .* "
                                r"1.5 times as long; start them with "
                                r"MALLOC_TRIM_THRESHOLD_=67108864 MALLOC_MMAP_THRESHOLD_=33554432"):
            explore_sim.simulate(DECK, turns=1, trials=100, seed=1,
                                 scheduler=plain.scheduler_address)
