"""Scaling of a sweep: one chunk's cost, 1 vs 2 local workers, 1 vs 2 Dask workers, and the
Dask scheduler's cost per chunk, then a paper estimate for a larger cluster.

    python benchmarks/scaling.py               # about three minutes on 2 cores
    python benchmarks/scaling.py --rounds 5    # more rounds, steadier medians

The sweep is the documented one: ``merfolk``, lands 22..25, policies
keep and forge, 5 turns, 50,000 games a point (8 points, one chunk each), seed 1. The Dask
clusters are started the way real ones are, with the ``dask scheduler`` and ``dask worker``
commands, on loopback: one worker and two, with Dask's allocator setting and with
:data:`~explore_sim.analysis.executors.WORKER_MALLOC`. Every run is checked to give the
numbers of the run in this process.

The games are the NumPy engine's (the README's figures) unless ``--engine kernel`` asks for
the compiled kernel.

A shared machine is noisy, so every configuration runs once per round, in turn, and the
table shows each one's median over the rounds: background load falls on all of them alike.
"""

from __future__ import annotations

import argparse
import operator
import os
import pickle
import socket
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import explore_sim  # noqa: E402
from explore_sim.analysis.executors import (  # noqa: E402
    WORKER_MALLOC,
    DaskExecutor,
    Job,
    ProcessExecutor,
)
from explore_sim.analysis.games import SimulateTask, TurnStats  # noqa: E402
from explore_sim.analysis.runner import CHUNK_TRIALS, seed_sequence  # noqa: E402
from explore_sim.engine.goldfish import GameConfig  # noqa: E402
from explore_sim.engine.mulligan import as_mulligan_rule  # noqa: E402
from explore_sim.engine.policies import as_policy  # noqa: E402

DECK = ROOT / "explore_sim" / "decks" / "lci_merfolk_explore.txt"
GRID = {"lands": [22, 23, 24, 25], "policy": ["keep", "forge"]}
#: On the NumPy engine, as the README's figures were measured (--engine kernel: the kernel's).
RUN = dict(turns=5, trials=50_000, seed=1)


def timed(function) -> tuple[float, object]:
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Cluster:
    """A scheduler and N single-threaded workers, started with the dask commands."""

    def __init__(self, workers: int, env: dict[str, str]) -> None:
        from distributed import Client

        command = str(Path(sys.executable).with_name("dask"))  # this Python's dask command
        self.address = f"tcp://127.0.0.1:{free_port()}"
        port = self.address.rsplit(":", 1)[1]
        quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        self.processes = [subprocess.Popen(
            [command, "scheduler", "--host", "127.0.0.1", "--port", port,
             "--dashboard-address", ":0"], **quiet)]
        self.processes.append(subprocess.Popen(
            [command, "worker", self.address, "--nworkers", str(workers), "--nthreads", "1",
             "--no-dashboard"], env={**os.environ, **env}, **quiet))
        with Client(self.address, timeout=60, set_as_default=False) as client:
            client.wait_for_workers(workers, timeout=60)
        self.executor = DaskExecutor(self.address)
        self.executor.connect()

    def close(self) -> None:
        self.executor.close()
        for process in reversed(self.processes):
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="runs of every configuration")
    parser.add_argument("--engine", choices=["numpy", "kernel"], default="numpy",
                        help="the engine that plays the games (default numpy)")
    args = parser.parse_args()
    rounds, RUN["engine"] = args.rounds, args.engine
    warnings.simplefilter("ignore")  # the workers with Dask's allocator are measured on purpose
    deck = explore_sim.load_deck(DECK)

    # One chunk, the unit of work, in this process; its result's size and merge time.
    task = SimulateTask(deck, GameConfig(turns=5), as_policy("forge"), as_mulligan_rule("london"),
                        engine=args.engine)
    chunk = min(timed(lambda: task(CHUNK_TRIALS, seed_sequence(1)))[0] for _ in range(rounds))
    stats = task(CHUNK_TRIALS, seed_sequence(1))
    payload = len(pickle.dumps(stats))
    total = TurnStats(5, stats.by_turn[1].binary)
    merge = timed(lambda: [total.merge(stats) for _ in range(200)])[0] / 200

    def sweep(scheduler=None):
        return explore_sim.sweep(DECK, GRID, **RUN, scheduler=scheduler).summary()

    clusters = {(label, n): Cluster(n, env)
                for label, env in (("Dask's allocator", {}), ("recommended MALLOC_", WORKER_MALLOC))
                for n in (1, 2)}
    try:
        configurations = [("this process", 1, None),
                          ("local processes (fork)", 2, ProcessExecutor(2, "fork")),
                          ("local processes (spawn)", 2, ProcessExecutor(2, "spawn"))]
        configurations += [(f"Dask, {n} worker{'s' if n > 1 else ''}, {label}", n,
                            cluster.executor) for (label, n), cluster in clusters.items()]
        times: dict[str, list[float]] = {name: [] for name, _, _ in configurations}
        reference = sweep()
        for round_ in range(rounds):
            for name, _, executor in configurations:
                seconds, frame = timed(lambda executor=executor: sweep(executor))
                pd.testing.assert_frame_equal(frame, reference, check_exact=True)
                times[name].append(seconds)
            print(f"round {round_ + 1}: load {os.getloadavg()[0]:.1f}", flush=True)
        # The scheduler's cost per chunk: chunks that do nothing, as many in flight as the
        # executor keeps for two workers, and one at a time (a round trip).
        executor = clusters[("recommended MALLOC_", 2)].executor
        jobs = [Job(0, 1, seed_sequence(1))] * 2000
        flow = min(timed(lambda: list(executor.map([operator.is_], jobs)))[0]
                   for _ in range(rounds)) / len(jobs)
        trip = min(timed(lambda: [list(executor.map([operator.is_], [job]))
                                  for job in jobs[:200]])[0] for _ in range(rounds)) / 200
        in_flight = 2 * executor.capacity + 2
    finally:
        for cluster in clusters.values():
            cluster.close()

    local = statistics.median(times["this process"])
    print()
    print(f"sweep: {len(GRID['lands']) * len(GRID['policy'])} points x {RUN['trials']:,} "
          f"games, {RUN['turns']} turns (one chunk a point); median of {rounds} rounds")
    print(f"{'where':42} {'workers':>7} {'seconds':>8} {'speed-up':>8}")
    for name, workers, _ in configurations:
        seconds = statistics.median(times[name])
        print(f"{name:42} {workers:>7} {seconds:>8.2f} {local / seconds:>7.2f}x")
    print()
    print(f"one chunk ({CHUNK_TRIALS:,} games, 5 turns) in one process: {chunk:.2f} s")
    print(f"Dask, chunks that do nothing: {flow * 1000:.2f} ms each with {in_flight} in flight, "
          f"{trip * 1000:.2f} ms one at a time")
    print(f"a chunk's result: {payload:,} bytes, merged in {merge * 1000:.2f} ms")
    workers = 100
    needed = workers / chunk
    print()
    print(f"paper estimate, {workers} workers: {needed:.0f} chunks a second are needed; the "
          f"scheduler handles about {1 / flow:.0f} a second here ({needed * flow:.0%} busy) "
          f"and this process merges {1 / merge:.0f} a second ({needed * merge:.0%} busy)")


if __name__ == "__main__":
    main()
