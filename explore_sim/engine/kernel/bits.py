"""Sets of card ids (or of casting ranks) as the bits of a row of uint64 words.

The game keeps three such sets as cards move (:mod:`.zones`): the card ids in hand, the card
ids on the battlefield and the casting order's ranks of the spells the casting pass may cast
(held, or a commander in the command zone); the deck's tables hold fixed ones (creatures,
spells cast, ...: ``K.id_sets``, made by :func:`~.pack.as_rows`). A loop over a set visits
only its members, in increasing order, without testing every card id of the deck::

    kind = next_member(row, 0)
    while kind >= 0:
        ...
        kind = next_member(row, kind + 1)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import config
from numba.cpython.unsafe.numbers import trailing_zeros as _trailing_zeros

from .records import compiled

__all__ = ["ALL_BITS", "is_member", "meet", "next_common", "next_member", "put"]

ALL_BITS = np.uint64(0xFFFFFFFFFFFFFFFF)

#: ``trailing_zeros(x)`` in compiled code (numba passes the typing context to the intrinsic).
trailing_zeros: Any = _trailing_zeros

if config.DISABLE_JIT:  # plain Python: numba's intrinsic only compiles

    def _lowest_bit(x: Any) -> int:  # the uncompiled stand-in
        """The index of the lowest set bit of ``x`` (not 0)."""
        x = int(x)
        return (x & -x).bit_length() - 1

    trailing_zeros = _lowest_bit


@compiled
def put(row, i, present):
    """Make ``i`` a member of ``row`` (``present``) or not."""
    bit = np.uint64(1) << np.uint64(i & 63)
    if present:
        row[i >> 6] |= bit
    else:
        row[i >> 6] &= ~bit


@compiled
def is_member(row, i):
    return (row[i >> 6] >> np.uint64(i & 63)) & np.uint64(1) != 0


@compiled
def meet(a, b):
    """Whether rows ``a`` and ``b`` have a member in common."""
    for w in range(len(a)):
        if a[w] & b[w]:
            return True
    return False


@compiled
def next_common(a, b, start):
    """The smallest member of both ``a`` and ``b`` at or after ``start``, -1 if there is
    none."""
    w = start >> 6
    if w >= len(a):
        return -1
    word = a[w] & b[w] & (ALL_BITS << np.uint64(start & 63))
    while word == 0:
        w += 1
        if w >= len(a):
            return -1
        word = a[w] & b[w]
    return (w << 6) + np.int64(trailing_zeros(word))


@compiled
def next_member(row, start):
    """The smallest member of ``row`` at or after ``start``, -1 if there is none."""
    w = start >> 6
    if w >= len(row):
        return -1
    word = row[w] & (ALL_BITS << np.uint64(start & 63))
    while word == 0:
        w += 1
        if w >= len(row):
            return -1
        word = row[w]
    return (w << 6) + np.int64(trailing_zeros(word))
