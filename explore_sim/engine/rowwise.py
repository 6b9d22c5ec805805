"""Reductions along the short rows of per-trial tables: one value per trial.

The engine's tables are (trials, k) with k small (mana classes, land options, candidate
spells). NumPy reduces such an array along ``axis=1`` several times slower than it reduces
the same numbers laid out as (k, trials) along ``axis=0``, where each step is one pass over
contiguous memory. These functions copy a narrow table to that layout first, and give
exactly the values (and dtype) of the ``axis=1`` reduction they replace; wide tables are
reduced as they are.
"""

from __future__ import annotations

from typing import cast

import numpy as np

__all__ = ["row_all", "row_any", "row_bitwise_or", "row_max", "row_sum"]

#: Tables up to this many columns are reduced through the transposed layout.
NARROW = 16


def _columns_first(table: np.ndarray) -> np.ndarray | None:
    """``table`` (rows, k) as a contiguous (k, rows) array when k is narrow, else None."""
    if table.ndim != 2 or table.shape[1] > NARROW:
        return None
    return np.ascontiguousarray(table.T)


def row_sum(table: np.ndarray, dtype: type | None = None) -> np.ndarray:
    """``table.sum(axis=1, dtype=dtype)``, shape (rows,)."""
    columns = _columns_first(table)
    return table.sum(axis=1, dtype=dtype) if columns is None else columns.sum(axis=0, dtype=dtype)


def row_any(table: np.ndarray) -> np.ndarray:
    """``table.any(axis=1)``, shape (rows,), bool."""
    columns = _columns_first(table)
    # A reduction over one axis of a 2-D array is an array (numpy's stubs allow a scalar).
    return cast(np.ndarray, table.any(axis=1) if columns is None else columns.any(axis=0))


def row_all(table: np.ndarray) -> np.ndarray:
    """``table.all(axis=1)``, shape (rows,), bool."""
    columns = _columns_first(table)
    return cast(np.ndarray, table.all(axis=1) if columns is None else columns.all(axis=0))


def row_max(table: np.ndarray) -> np.ndarray:
    """``table.max(axis=1)``, shape (rows,) (the table must have a column)."""
    columns = _columns_first(table)
    return table.max(axis=1) if columns is None else columns.max(axis=0)


def row_bitwise_or(table: np.ndarray) -> np.ndarray:
    """``np.bitwise_or.reduce(table, axis=1)`` (masks), shape (rows,)."""
    columns = _columns_first(table)
    if columns is None:
        return np.bitwise_or.reduce(table, axis=1)
    return np.bitwise_or.reduce(columns, axis=0)
