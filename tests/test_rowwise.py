"""The row reductions give exactly NumPy's ``axis=1`` reductions, narrow tables or wide."""

from __future__ import annotations

import numpy as np
import pytest

from explore_sim.engine import rowwise


@pytest.mark.parametrize("columns", [0, 1, 3, rowwise.NARROW, rowwise.NARROW + 1, 40])
@pytest.mark.parametrize("dtype", [bool, np.int8, np.int16, np.int32, np.int64])
def test_row_reductions_are_numpys(columns, dtype):
    rng = np.random.default_rng(columns)
    table = rng.integers(-3, 4, size=(1000, columns)).astype(dtype)
    for mine, numpys in [(rowwise.row_sum, np.sum), (rowwise.row_any, np.any),
                         (rowwise.row_all, np.all), (rowwise.row_max, np.max)]:
        if numpys is np.max and not columns:
            continue
        got, want = mine(table), numpys(table, axis=1)
        assert got.dtype == want.dtype and got.shape == (1000,)
        np.testing.assert_array_equal(got, want)
    assert rowwise.row_sum(table[:0]).shape == (0,)
    got, want = rowwise.row_sum(table, np.int32), table.sum(axis=1, dtype=np.int32)
    assert got.dtype == want.dtype == np.int32
    np.testing.assert_array_equal(got, want)
    if np.issubdtype(dtype, np.integer):
        masks = rng.integers(0, 32, size=(1000, columns)).astype(dtype)
        got, want = rowwise.row_bitwise_or(masks), np.bitwise_or.reduce(masks, axis=1)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
