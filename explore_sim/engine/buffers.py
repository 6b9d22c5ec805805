"""The arrays a chunk's games are written into, reused from chunk to chunk of a run.

A chunk of 65,536 games of 8 turns writes 32 metrics into 67 MB. An array that large is
mapped afresh by the allocator every time and the operating system zeroes each of its
pages on first touch, which costs as much as a tenth of the games' time; the compiled game
writes every element, so an array of an earlier chunk serves as well as a new one.

Arrays are reused only within :func:`reusing_chunk_arrays` (around a run's chunks in this
process, and for the whole life of a worker process, which ends with its run); outside it
every chunk has a new array, and when the outermost scope of a thread ends its arrays are
let go, so a long-lived process (the web page's server, a Dask worker) keeps no memory
between runs. Within it an array is reused only when nothing refers to it any more: the
metrics a chunk returns are views of its array (each holds a reference to it), so while any
of them, or any view of them, is alive, the array is left alone and a new one is made. Each
thread has its own arrays (the web page's runs play in threads of their own).
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator

import numpy as np
from numpy.typing import DTypeLike

__all__ = ["KEPT", "begin_reuse", "chunk_array", "end_reuse", "reusing_chunk_arrays"]

#: Arrays kept per thread (a value run holds one per variant while it adds them up).
KEPT = 6

_LOCAL = threading.local()


def _pool() -> list:
    """This thread's arrays: entries ``[array, its reference count when free]``."""
    pool = getattr(_LOCAL, "pool", None)
    if pool is None:
        pool = _LOCAL.pool = []
    return pool


def _references(pool: list, i: int) -> int:
    return sys.getrefcount(pool[i][0])


def begin_reuse() -> None:
    """Enter a scope in which this thread's chunks reuse their arrays (scopes nest)."""
    _LOCAL.depth = getattr(_LOCAL, "depth", 0) + 1


def end_reuse() -> None:
    """Leave the scope :func:`begin_reuse` entered; the outermost lets the arrays go."""
    _LOCAL.depth = max(getattr(_LOCAL, "depth", 0) - 1, 0)
    if _LOCAL.depth == 0:
        _pool().clear()


@contextlib.contextmanager
def reusing_chunk_arrays() -> Iterator[None]:
    """Reuse chunk arrays in this thread while the ``with`` block runs (a run's chunks).

    Yields
    ------
    None
    """
    begin_reuse()
    try:
        yield
    finally:
        end_reuse()


def chunk_array(shape: tuple[int, ...], dtype: DTypeLike = np.int32) -> np.ndarray:
    """An array of ``shape`` whose contents are undefined (every element is to be written).

    Parameters
    ----------
    shape : tuple of int
    dtype : numpy dtype

    Returns
    -------
    ndarray of shape ``shape``
        Within :func:`reusing_chunk_arrays`, an earlier chunk's array of this thread of that
        shape that nothing refers to any more, else a new one (kept for later chunks, up to
        :data:`KEPT` arrays; the free arrays of other shapes are let go). Outside it, a new
        array.
    """
    dtype = np.dtype(dtype)
    if not getattr(_LOCAL, "depth", 0):
        return np.empty(shape, dtype)
    pool = _pool()
    free = [i for i in range(len(pool)) if _references(pool, i) == pool[i][1]]
    for i in free:
        array = pool[i][0]
        if array.shape == shape and array.dtype == dtype:
            return array
    for i in reversed(free):  # arrays of another shape, free: not kept for later
        del pool[i]
    if len(pool) >= KEPT:
        return np.empty(shape, dtype)
    pool.append([np.empty(shape, dtype), 0])
    pool[-1][1] = _references(pool, len(pool) - 1)
    return pool[-1][0]
