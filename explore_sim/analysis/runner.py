"""Seeded, chunked execution: every chunk of trials gets its own random stream.

Trials are cut into chunks of :data:`CHUNK_TRIALS` (the last one shorter). Chunk ``i`` draws
all its randomness from the ``i``-th child of ``SeedSequence(seed).spawn`` (NumPy NEP 19,
SPEC 7), never from ``seed + i`` and never from a global generator. A chunk's numbers thus
depend only on the seed and its index, so results are identical however the chunks are
scheduled, and per-chunk statistics are merged exactly (:mod:`explore_sim.stats`), in chunk
order. Memory is bounded by a few chunks per worker, whatever the number of trials. Where the
chunks run (this process, local worker processes, a Dask cluster) is :mod:`.executors`'
business; the numbers do not depend on it.

Because chunk ``i``'s numbers depend only on the seed and ``i``, the first ``k`` chunks of a
run are exactly a run of ``k * chunk_trials`` trials with the same seed. A run can therefore
stop early and still be a result: a ``progress`` callback that raises :class:`StopRun` ends
the run after the chunk just finished, and an analysis made of one run of chunks (explore,
simulate, compare, advise) returns the statistics of the chunks it finished, its
metadata saying so (:func:`stopped_meta`). An analysis made of several runs (value, tune,
sweep, curve) has nothing complete to return: :class:`StopRun` propagates out of it.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..errors import OptionError
from .executors import Job, available_cores, check_workers, executing

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
    "StopRun",
    "stopped_meta",
    "check_workers",
    "available_cores",
]

#: Trials per chunk: the unit of randomness and of work.
CHUNK_TRIALS = 1 << 16
#: The most trials one call accepts.
MAX_TRIALS = 10**10


class StopRun(Exception):
    """Raised by a ``progress(done, total)`` callback to stop a run after the chunk just
    finished.

    :func:`~explore_sim.explore`, :func:`~explore_sim.simulate`, :func:`~explore_sim.compare`
    and :func:`~explore_sim.advise` then return the result of the trials finished, equal to
    a run of that many trials with the same seed (the first ``k`` chunks of a run are a run
    of ``k`` chunks), with ``meta["trials"]`` the trials finished and ``meta["trials_asked"]``
    the trials asked for (:func:`stopped_meta`). :func:`~explore_sim.value`,
    :func:`~explore_sim.tune`, :func:`~explore_sim.sweep` and :func:`~explore_sim.curve` are
    made of several runs and have no complete part to return: the exception propagates out
    of them.

    Examples
    --------
    >>> def at_most_one_chunk(done, total):
    ...     raise StopRun
    >>> explore_sim.simulate(deck, trials=10**6, progress=at_most_one_chunk)  # doctest: +SKIP
    """


def stopped_meta(meta: dict[str, Any], done: int, asked: int) -> dict[str, Any]:
    """A run's metadata with the trials it finished: ``trials`` is ``done`` and, when the
    run stopped early (:class:`StopRun`), ``trials_asked`` is ``asked``.

    Parameters
    ----------
    meta : dict
        The metadata as a run of ``asked`` trials writes it (changed in place).
    done : int
        Trials finished.
    asked : int
        Trials asked for.

    Returns
    -------
    dict
        ``meta``.
    """
    meta["trials"] = int(done)
    if done < asked:
        meta["trials_asked"] = int(asked)
    return meta


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
        raise OptionError(f"trials must be between 2 and {MAX_TRIALS:,}, got {trials}")
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


def run_chunks(
    simulate_chunk: Callable[[int, np.random.SeedSequence], Any],
    merge: Callable[[Any], None],
    trials: int,
    seed: np.random.SeedSequence,
    chunk_trials: int = CHUNK_TRIALS,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
    scheduler: Any = None,
    stop_early: bool = False,
) -> int:
    """Run ``simulate_chunk(n, chunk_seed)`` on every chunk and hand each result to ``merge``.

    ``simulate_chunk`` returns the chunk's statistics (already aggregated, so they are small)
    and ``merge`` folds them into exact running sums, in chunk order. Memory is bounded by
    a few chunks per worker. The chunks run where :func:`~.executors.executor_for` says:
    in this process (``workers=1``, nothing pickled), in local worker processes, or on a
    Dask cluster. Every chunk's numbers depend only on the seed and its index, so the result
    is identical wherever they run. ``progress(done, total)`` is called after every chunk;
    when it raises :class:`StopRun` and ``stop_early`` is set, the run ends there (the chunks
    not yet merged are dropped) and the trials finished are returned.

    Parameters
    ----------
    simulate_chunk : callable
        ``simulate_chunk(trials, chunk_seed)`` returns the chunk's statistics. With worker
        processes started by ``spawn`` or a Dask cluster it must pickle (a task object of
        :mod:`explore_sim.analysis.simulate`, a module-level function).
    merge : callable
        ``merge(statistics)`` folds one chunk's statistics into the totals.
    trials : int
    seed : numpy.random.SeedSequence
    chunk_trials : int
        Trials per chunk.
    progress : callable, optional
        ``progress(trials done, trials)``.
    workers : int
        Local processes (0: every core).
    scheduler : str, distributed.Client or Executor, optional
        A Dask scheduler (``tcp://HOST:PORT``) or an executor to run the chunks on instead.
    stop_early : bool
        The caller returns a result of the chunks finished: a :class:`StopRun` raised by
        ``progress`` ends the run. When False (a run that is one of several), it propagates.

    Returns
    -------
    int
        Trials finished: ``trials``, or fewer when ``progress`` stopped the run.
    """
    chunks = list(chunk_seeds(trials, seed, chunk_trials))
    if scheduler is None:
        workers = min(check_workers(workers), len(chunks))
    jobs = (Job(0, size, child) for size, child in chunks)
    done = 0
    with executing(workers, scheduler) as executor:
        results = executor.map([simulate_chunk], jobs)
        try:
            for (size, _), result in zip(chunks, results):
                merge(result)
                done += size
                if progress is not None:
                    progress(done, trials)
        except StopRun:
            if not stop_early:
                raise
        finally:  # a run stopped early cancels the chunks in flight
            getattr(results, "close", lambda: None)()
    return done
