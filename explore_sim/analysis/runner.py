"""Seeded, chunked execution: every chunk of trials gets its own random stream.

Trials are cut into chunks of :data:`CHUNK_TRIALS` (the last one shorter). Chunk ``i`` draws
all its randomness from the ``i``-th child of ``SeedSequence(seed).spawn`` (NumPy NEP 19,
SPEC 7), never from ``seed + i`` and never from a global generator. A chunk's numbers thus
depend only on the seed and its index, so results are identical however the chunks are
scheduled, and per-chunk statistics are merged exactly (:mod:`explore_sim.stats`). Memory is
bounded by one chunk (per worker process), whatever the number of trials.
"""

from __future__ import annotations

import multiprocessing
import numbers
import os
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from ..errors import OptionError, OptionWarning, clip

__all__ = [
    "notebook_trials",
    "CHUNK_TRIALS",
    "MAX_TRIALS",
    "check_trials",
    "seed_sequence",
    "child_seed",
    "chunk_seeds",
    "chunk_streams",
    "run_chunks",
    "run_tasks",
    "check_workers",
    "available_cores",
]

#: Trials per chunk: the unit of randomness and of work.
CHUNK_TRIALS = 1 << 16
#: The most trials one call accepts.
MAX_TRIALS = 10**10


#: Environment variable that lowers notebook trial counts (the test suite sets it).
NOTEBOOK_TRIALS_ENV = "EXPLORE_SIM_NOTEBOOK_TRIALS"


def notebook_trials(default: int) -> int:
    """A notebook's trial count: ``default``, or ``$EXPLORE_SIM_NOTEBOOK_TRIALS`` if smaller.

    Notebooks use this so that the test suite can re-run them quickly.

    Parameters
    ----------
    default : int
        The count of a full run.

    Returns
    -------
    int
    """
    value = os.environ.get(NOTEBOOK_TRIALS_ENV, "").strip()
    if not value:
        return default
    if not value.isdigit() or int(value) < 2:
        raise OptionError(f"{NOTEBOOK_TRIALS_ENV} must be a whole number >= 2, got {value!r}")
    return min(default, int(value))


def check_trials(trials: object) -> int:
    """Validate a trial count.

    Parameters
    ----------
    trials : object
        A whole number from 2 to :data:`MAX_TRIALS`.

    Returns
    -------
    int

    Raises
    ------
    OptionError
        For anything else.
    """
    if isinstance(trials, bool) or not isinstance(trials, numbers.Integral):
        raise OptionError(f"trials must be a whole number, got {trials!r}")
    if not 2 <= int(trials) <= MAX_TRIALS:
        raise OptionError(f"trials must be between 2 and {MAX_TRIALS:.0e}, got {trials}")
    return int(trials)


def seed_sequence(seed: object) -> np.random.SeedSequence:
    """Normalise a ``seed`` argument into a :class:`numpy.random.SeedSequence`.

    Parameters
    ----------
    seed : None, int, SeedSequence or Generator
        None draws fresh entropy (recorded in the result's metadata so the run can be
        repeated); an int >= 0 is used as the entropy; a Generator gives 128 bits of its
        stream.

    Returns
    -------
    numpy.random.SeedSequence
    """
    if seed is None or isinstance(seed, np.random.SeedSequence):
        return np.random.SeedSequence(seed) if seed is None else seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(int.from_bytes(seed.bytes(16), "little"))
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise OptionError(f"seed must be a whole number >= 0 or None, got {seed!r}")
    if int(seed) < 0:
        raise OptionError(f"seed must be >= 0, got {seed}")
    return np.random.SeedSequence(int(seed))


def child_seed(seed: np.random.SeedSequence, index: int) -> np.random.SeedSequence:
    """The ``index``-th child of ``seed``, as ``SeedSequence.spawn`` makes it, without
    mutating ``seed`` (so the same seed object can be passed to several runs).

    Parameters
    ----------
    seed : numpy.random.SeedSequence
    index : int

    Returns
    -------
    numpy.random.SeedSequence
    """
    return np.random.SeedSequence(
        seed.entropy, spawn_key=(*seed.spawn_key, index), pool_size=seed.pool_size
    )


def chunk_seeds(
    trials: int, seed: np.random.SeedSequence, chunk_trials: int = CHUNK_TRIALS
) -> Iterator[tuple[int, np.random.SeedSequence]]:
    """Cut ``trials`` into chunks, each with its own seed.

    Parameters
    ----------
    trials : int
    seed : numpy.random.SeedSequence
    chunk_trials : int
        Trials per chunk (the last one holds the rest).

    Yields
    ------
    (int, numpy.random.SeedSequence)
        Trials in the chunk and its seed, in chunk order.
    """
    n_chunks = -(-trials // chunk_trials)
    for index in range(n_chunks):
        yield min(chunk_trials, trials - index * chunk_trials), child_seed(seed, index)


def chunk_streams(
    trials: int, seed: np.random.SeedSequence, chunk_trials: int = CHUNK_TRIALS
) -> Iterator[tuple[int, np.random.Generator]]:
    """Cut ``trials`` into chunks, each with its own generator.

    Parameters
    ----------
    trials : int
    seed : numpy.random.SeedSequence
    chunk_trials : int
        Trials per chunk (the last one holds the rest).

    Yields
    ------
    (int, numpy.random.Generator)
        Trials in the chunk and its generator, in chunk order.
    """
    for size, child in chunk_seeds(trials, seed, chunk_trials):
        yield size, np.random.default_rng(child)


def available_cores() -> int:
    """The number of cores this process may run on.

    Returns
    -------
    int
        At least 1.
    """
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def check_workers(workers: object) -> int:
    """Validate a worker count.

    More workers than cores only cost memory (each is a process holding a chunk), so a
    larger count is lowered to the number of cores with an :class:`OptionWarning`.

    Parameters
    ----------
    workers : object
        A whole number >= 1, or 0 for every core.

    Returns
    -------
    int
        Processes to use (at most the number of cores).

    Raises
    ------
    OptionError
        For anything else.
    """
    if isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers < 0:
        raise OptionError(f"workers must be a whole number >= 0 (0: every core), got "
                          f"{clip(repr(workers))}")
    cores = available_cores()
    if workers > cores:
        warnings.warn(f"workers: {workers} is more than the {cores} cores available; "
                      f"running on {cores}", OptionWarning, stacklevel=2)
        return cores
    return int(workers) or cores


_TASK: Callable[[int, np.random.SeedSequence], Any] | None = None


def _install_task(task: Callable[[int, np.random.SeedSequence], Any]) -> None:
    global _TASK
    _TASK = task


def _run_task(chunk: tuple[int, np.random.SeedSequence]) -> Any:
    assert _TASK is not None  # installed by the pool's initializer
    return _TASK(*chunk)


def run_chunks(
    simulate_chunk: Callable[[int, np.random.SeedSequence], Any],
    merge: Callable[[Any], None],
    trials: int,
    seed: np.random.SeedSequence,
    chunk_trials: int = CHUNK_TRIALS,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
) -> None:
    """Run ``simulate_chunk(n, chunk_seed)`` on every chunk and hand each result to ``merge``.

    ``simulate_chunk`` returns the chunk's statistics (already aggregated, so they are small)
    and ``merge`` folds them into exact running sums, in chunk order. Memory is bounded by
    one chunk per worker. With ``workers > 1`` the chunks run in a pool of processes
    (forked, so ``simulate_chunk`` may be any function, closures included); every chunk's
    numbers depend only on the seed and its index, so the result is identical to
    ``workers=1``. ``progress(done, total)`` is called after every chunk.

    Parameters
    ----------
    simulate_chunk : callable
        ``simulate_chunk(trials, chunk_seed)`` returns the chunk's statistics.
    merge : callable
        ``merge(statistics)`` folds one chunk's statistics into the totals.
    trials : int
    seed : numpy.random.SeedSequence
    chunk_trials : int
        Trials per chunk.
    progress : callable, optional
        ``progress(trials done, trials)``.
    workers : int
        Processes (0: every core).
    """
    chunks = list(chunk_seeds(trials, seed, chunk_trials))
    workers = min(check_workers(workers), len(chunks))
    if workers > 1 and "fork" not in multiprocessing.get_all_start_methods():
        warnings.warn("workers > 1 needs the 'fork' start method; running in one process",
                      RuntimeWarning, stacklevel=2)
        workers = 1
    done = 0
    if workers == 1:
        results: Iterator[Any] = (simulate_chunk(size, child) for size, child in chunks)
        pool = None
    else:
        pool = ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("fork"),
            initializer=_install_task, initargs=(simulate_chunk,),
        )
        results = pool.map(_run_task, chunks)
    try:
        for (size, _), result in zip(chunks, results):
            merge(result)
            done += size
            if progress is not None:
                progress(done, trials)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def run_tasks(task: Callable[..., Any], items: list[tuple], workers: int = 1) -> list[Any]:
    """``task(*item)`` for every item, results in the items' order.

    With ``workers > 1`` the items run in a pool of forked processes (``task`` may be any
    function, closures included), as :func:`run_chunks` runs chunks; a task's result must
    depend only on its item, so the results are the same for any number of workers.

    Parameters
    ----------
    task : callable
        Called as ``task(*item)``.
    items : list of tuple
        The arguments of each call.
    workers : int
        Processes (0: every core).

    Returns
    -------
    list
        ``task``'s results, in the order of ``items``.
    """
    workers = min(check_workers(workers), max(len(items), 1))
    if workers > 1 and "fork" not in multiprocessing.get_all_start_methods():
        warnings.warn("workers > 1 needs the 'fork' start method; running in one process",
                      RuntimeWarning, stacklevel=2)
        workers = 1
    if workers == 1:
        return [task(*item) for item in items]
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"),
                             initializer=_install_task, initargs=(task,)) as pool:
        return list(pool.map(_run_task, items))
