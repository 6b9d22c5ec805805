"""The compiled kernel's threads: how a chunk is cut, how many threads play it, and that
worker processes and Dask workers play each chunk on one thread."""

from __future__ import annotations

import numpy as np
import pytest

from explore_sim.analysis import executors
from explore_sim.engine.threads import (
    MIN_GAMES_PER_THREAD,
    THREADS_ENV,
    available_cores,
    kernel_threads,
    one_thread,
    thread_parts,
)
from explore_sim.errors import OptionError


@pytest.mark.parametrize("games", [0, 1, MIN_GAMES_PER_THREAD, 2 * MIN_GAMES_PER_THREAD - 1,
                                   2 * MIN_GAMES_PER_THREAD, 65_536, 100_003])
@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_a_chunk_is_cut_into_contiguous_parts_of_nearly_equal_sizes(games, threads):
    parts = thread_parts(games, threads)
    assert parts[0][0] == 0 and parts[-1][1] == games
    assert all(a[1] == b[0] for a, b in zip(parts, parts[1:]))  # contiguous, in order
    sizes = [stop - start for start, stop in parts]
    assert max(sizes) - min(sizes) <= 1
    assert len(parts) == max(1, min(threads, games // MIN_GAMES_PER_THREAD))
    if len(parts) > 1:
        assert min(sizes) >= MIN_GAMES_PER_THREAD


def test_the_threads_are_every_core_unless_set(monkeypatch):
    monkeypatch.delenv(THREADS_ENV, raising=False)
    assert kernel_threads() == available_cores()
    monkeypatch.setenv(THREADS_ENV, "3")
    assert kernel_threads() == 3
    monkeypatch.setenv(THREADS_ENV, " 0 ")
    assert kernel_threads() == available_cores()
    monkeypatch.setenv(THREADS_ENV, "")
    assert kernel_threads() == available_cores()


@pytest.mark.parametrize("value", ["-1", "two", "1.5", "3e2", "\u00b2", "\u0663", "1000001",
                                   "9" * 4301])
def test_a_bad_thread_count_is_refused_in_one_line(monkeypatch, value):
    monkeypatch.setenv(THREADS_ENV, value)
    with pytest.raises(OptionError, match=f"^{THREADS_ENV} must be a whole number from 0 to "
                                          r"1,000,000 \(0: every core\), got "):
        kernel_threads()


def test_one_thread_holds_in_its_block_and_nests(monkeypatch):
    monkeypatch.setenv(THREADS_ENV, "4")
    with one_thread():
        assert kernel_threads() == 1
        with one_thread():
            assert kernel_threads() == 1
        assert kernel_threads() == 1
    assert kernel_threads() == 4


def threads_seen(trials, seed):
    return kernel_threads()


def test_a_worker_plays_each_chunk_on_one_thread(monkeypatch):
    """A worker process's or a Dask worker's chunk (:func:`executors._call`, and the tasks
    installed in a pool's workers) plays on one thread: the workers are the parallelism."""
    monkeypatch.setenv(THREADS_ENV, "4")
    seed = np.random.SeedSequence(0)
    assert executors._call(threads_seen, 10, seed) == 1
    monkeypatch.setattr(executors, "_TASKS", (threads_seen,))
    assert executors._run_installed(0, 10, seed) == 1
    in_process = executors.InProcessExecutor().map([threads_seen], [executors.Job(0, 10, seed)])
    assert list(in_process) == [4]  # this process: the kernel's threads
    with executors.ProcessExecutor(1) as pool:  # a real worker process
        assert list(pool.map([threads_seen], [executors.Job(0, 10, seed)])) == [1]
