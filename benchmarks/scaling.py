"""Scaling of a sweep: one chunk's cost, 1 vs 2 local workers, 1 vs 2 Dask workers, and the
Dask scheduler's overhead per chunk, then a paper estimate for a larger cluster.

    python benchmarks/scaling.py               # about two minutes on 2 cores
    python benchmarks/scaling.py --repeat 3    # best of three runs of every timing

The sweep is the documented one: ``decks/lci_merfolk_explore.txt``, lands 22..25, policies
keep and forge, 5 turns, 50,000 games a point (8 points, one chunk each), seed 1. The Dask
cluster is started the way a real one is, with the ``dask scheduler`` and ``dask worker``
commands, on loopback; every run is checked to give the numbers of the local run.
"""

from __future__ import annotations

import argparse
import operator
import os
import pickle
import socket
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
from explore_sim.analysis.runner import CHUNK_TRIALS, seed_sequence  # noqa: E402
from explore_sim.analysis.simulate import SimulateTask, _TurnStats  # noqa: E402
from explore_sim.engine.goldfish import GameConfig  # noqa: E402
from explore_sim.engine.mulligan import as_mulligan_rule  # noqa: E402
from explore_sim.engine.policies import as_policy  # noqa: E402

DECK = ROOT / "decks" / "lci_merfolk_explore.txt"
GRID = {"lands": [22, 23, 24, 25], "policy": ["keep", "forge"]}
#: Dask's nanny sets MALLOC_TRIM_THRESHOLD_=65536 for its workers, which also turns off
#: glibc's automatic mmap threshold: every array over 128 kB is mapped and unmapped again.
MALLOC = WORKER_MALLOC
RUN = dict(turns=5, trials=50_000, seed=1)


def best(repeat: int, function) -> tuple[float, object]:
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = function()
        times.append(time.perf_counter() - start)
    return min(times), value


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(address: str, workers: int, timeout: float = 60) -> None:
    from distributed import Client

    with Client(address, timeout=timeout, set_as_default=False) as client:
        client.wait_for_workers(workers, timeout=timeout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2, help="runs of each timing (best kept)")
    args = parser.parse_args()
    repeat = args.repeat
    warnings.simplefilter("ignore")  # the untuned workers are measured on purpose
    deck = explore_sim.load_deck(DECK)
    rows = []

    # One chunk: the unit of work, in this process.
    task = SimulateTask(deck, GameConfig(turns=5), as_policy("forge"), as_mulligan_rule("london"))
    chunk, stats = best(repeat, lambda: task(CHUNK_TRIALS, seed_sequence(1)))
    payload = len(pickle.dumps(stats))
    total = _TurnStats(5, stats.by_turn[1].binary)
    merge, _ = best(repeat, lambda: [total.merge(stats) for _ in range(100)])
    merge /= 100
    print(f"one chunk of {CHUNK_TRIALS:,} 5-turn games: {chunk:.2f} s; its result pickles to "
          f"{payload:,} bytes and merges in {merge * 1000:.2f} ms", flush=True)

    def sweep(**kwargs):
        return explore_sim.sweep(DECK, GRID, **RUN, **kwargs).summary()

    local, reference = best(repeat, sweep)
    rows.append(("this process", 1, local))
    for workers, method in ((2, None), (2, "spawn")):
        seconds, frame = best(repeat, lambda: sweep(scheduler=ProcessExecutor(workers, method)))
        pd.testing.assert_frame_equal(frame, reference, check_exact=True)
        rows.append((f"local processes ({method or 'fork'})", workers, seconds))
        print(rows[-1], flush=True)

    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    command = str(Path(sys.executable).with_name("dask"))  # the dask command of this Python
    dask = [command, "scheduler", "--host", "127.0.0.1", "--port", str(port),
            "--dashboard-address", ":0"]
    worker = [command, "worker", address, "--nthreads", "1", "--nworkers", "1",
              "--no-dashboard"]
    scheduler = subprocess.Popen(dask, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 cwd=ROOT)
    try:
        for label, env in (("dask worker", {}), ("dask worker, malloc tuned", MALLOC)):
            workers_started = []
            try:
                for workers in (1, 2):
                    workers_started.append(subprocess.Popen(
                        worker, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
                        env={**os.environ, **env}))
                    wait_for(address, workers)
                    executor = DaskExecutor(address)
                    try:
                        seconds, frame = best(repeat, lambda: sweep(scheduler=executor))
                        pd.testing.assert_frame_equal(frame, reference, check_exact=True)
                        rows.append((f"Dask ({label})", workers, seconds))
                        print(rows[-1], flush=True)
                        if workers == 2 and not env:
                            # The scheduler's cost per chunk: chunks that do nothing, as many
                            # in flight as the executor keeps, and one at a time.
                            n = 2000
                            nothing = [operator.is_]
                            jobs = [Job(0, 1, seed_sequence(1))] * n
                            flow, _ = best(repeat, lambda: list(executor.map(nothing, jobs)))
                            trip, _ = best(repeat, lambda: [list(executor.map(nothing, [job]))
                                                            for job in jobs[:200]])
                            in_flight = executor.capacity * 2 + 2
                    finally:
                        executor.close()
            finally:
                for process in workers_started:
                    process.terminate()
                    process.wait(timeout=30)
                time.sleep(1)  # the scheduler notices they left
    finally:
        scheduler.terminate()
        scheduler.wait(timeout=30)

    print()
    print(f"sweep: {len(GRID['lands']) * len(GRID['policy'])} points x {RUN['trials']:,} "
          f"games, {RUN['turns']} turns (one chunk a point)")
    print(f"{'where':42} {'workers':>7} {'seconds':>8} {'speed-up':>8}")
    for where, workers, seconds in rows:
        print(f"{where:42} {workers:>7} {seconds:>8.2f} {local / seconds:>7.2f}x")
    per_chunk = flow / n
    print()
    print(f"one chunk ({CHUNK_TRIALS:,} games, 5 turns) in one process: {chunk:.2f} s")
    print(f"Dask, chunks that do nothing: {per_chunk * 1000:.2f} ms each with "
          f"{in_flight} in flight, {trip / 200 * 1000:.2f} ms one at a time")
    print(f"a chunk's result: {payload:,} bytes, merged in {merge * 1000:.2f} ms")
    workers = 100
    needed = workers / chunk
    print()
    print(f"paper estimate, {workers} workers: {needed:.0f} chunks a second are needed; the "
          f"scheduler handles about {1 / per_chunk:.0f} a second here ({needed * per_chunk:.0%} "
          f"busy) and this process merges {1 / merge:.0f} a second "
          f"({needed * merge:.0%} busy)")
    efficiency = chunk / (chunk + per_chunk + merge)
    print(f"expected speed-up: about {workers * efficiency:.0f}x if each worker has a core of "
          "its own and the sweep has many more chunks than workers")


if __name__ == "__main__":
    main()
