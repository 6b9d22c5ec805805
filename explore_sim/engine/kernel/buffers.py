"""The arrays a chunk's games are written into, reused from chunk to chunk.

A chunk of 65,536 games of 8 turns writes 32 metrics into 67 MB. An array that large is
mapped afresh by the allocator every time and the operating system zeroes each of its
pages on first touch, which costs as much as a tenth of the games' time; the compiled game
writes every element, so an array of an earlier chunk serves as well as a new one.

An array is reused only when nothing refers to it any more: the metrics a chunk returns
are views of its array (each holds a reference to it), so while any of them, or any view
of them, is alive, the array is left alone and a new one is made. Each thread has its own
arrays (the web page's runs and a Dask worker's tasks play in threads of their own).
"""

from __future__ import annotations

import sys
import threading

import numpy as np

__all__ = ["chunk_array"]

#: Arrays kept per thread (a value run holds one per variant while it adds them up).
KEPT = 6

_LOCAL = threading.local()


def _references(pool: list, i: int) -> int:
    return sys.getrefcount(pool[i][0])


def chunk_array(shape: tuple[int, ...], dtype=np.int32) -> np.ndarray:
    """An array of ``shape`` whose contents are undefined (every element is to be written).

    Parameters
    ----------
    shape : tuple of int
    dtype : numpy dtype

    Returns
    -------
    ndarray of shape ``shape``
        An earlier chunk's array of this thread of that shape that nothing refers to any
        more, else a new one (kept for later chunks, up to :data:`KEPT` arrays; the free
        arrays of other shapes are let go).
    """
    dtype = np.dtype(dtype)
    pool = getattr(_LOCAL, "pool", None)
    if pool is None:
        pool = _LOCAL.pool = []  # entries: [array, its reference count when free]
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
