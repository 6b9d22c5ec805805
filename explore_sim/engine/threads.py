"""How many threads play a chunk's games in the compiled kernel.

The compiled kernel (:mod:`explore_sim.engine.kernel`) plays games one at a time, each from
streams keyed by the chunk's seed and the game's index alone, and releases the GIL while it
plays. A chunk's games can therefore be cut into parts played by threads at once, each with
a game state of its own, writing into the same output arrays: the numbers are the same
whatever the number of threads.

A run in this process (``workers=1``, the default) plays every chunk on all the cores this
process may run on; ``$EXPLORE_SIM_THREADS`` (a whole number >= 1; 0 or unset: every core)
sets another count. Where the parallelism is the workers' (local worker processes, a Dask
cluster), every chunk plays on one thread (:func:`one_thread`). Parts are at least
:data:`MIN_GAMES_PER_THREAD` games, so a small chunk plays on fewer threads.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import OptionError, clip

__all__ = ["THREADS_ENV", "MAX_THREADS", "MIN_GAMES_PER_THREAD", "available_cores",
           "kernel_threads", "one_thread", "thread_parts"]

#: The environment variable that sets the kernel's threads per chunk (0 or unset: every core).
THREADS_ENV = "EXPLORE_SIM_THREADS"
#: The most threads ``$EXPLORE_SIM_THREADS`` may ask for.
MAX_THREADS = 1_000_000
#: The fewest games a thread plays (a thread and its game state cost about what 10 games do).
MIN_GAMES_PER_THREAD = 256

_LOCAL = threading.local()


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


def kernel_threads() -> int:
    """The threads that play a chunk's games in this thread's runs.

    Returns
    -------
    int
        1 within :func:`one_thread`; else ``$EXPLORE_SIM_THREADS`` when it is set and not
        0; else every core (:func:`available_cores`).

    Raises
    ------
    OptionError
        ``$EXPLORE_SIM_THREADS`` is not a whole number from 0 to :data:`MAX_THREADS`.
    """
    if getattr(_LOCAL, "one", 0):
        return 1
    value = os.environ.get(THREADS_ENV, "").strip()
    if not value:
        return available_cores()
    digits = value.lstrip("0") or "0"
    if not (value.isascii() and value.isdigit()) or len(digits) > 7 or int(digits) > MAX_THREADS:
        raise OptionError(f"{THREADS_ENV} must be a whole number from 0 to {MAX_THREADS:,} (0: "
                          f"every core), got {clip(repr(value))}")
    return int(digits) or available_cores()


@contextmanager
def one_thread() -> Iterator[None]:
    """Play every chunk in this thread on one thread while the ``with`` block runs (a worker
    process's or a Dask worker's chunk: the workers are the parallelism there).

    Yields
    ------
    None
    """
    _LOCAL.one = getattr(_LOCAL, "one", 0) + 1
    try:
        yield
    finally:
        _LOCAL.one -= 1


def thread_parts(games: int, threads: int) -> list[tuple[int, int]]:
    """Cut ``games`` into contiguous parts ``(start, stop)``, one per thread, of sizes that
    differ by at most one, each at least :data:`MIN_GAMES_PER_THREAD` games (one part when
    there are fewer than twice that).

    Parameters
    ----------
    games : int
    threads : int

    Returns
    -------
    list of (int, int)
    """
    n = max(1, min(threads, games // MIN_GAMES_PER_THREAD))
    bounds = [games * i // n for i in range(n + 1)]
    return list(zip(bounds[:-1], bounds[1:]))
