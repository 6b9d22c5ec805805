"""Streaming sufficient statistics and tidy summary frames with standard errors and intervals.

Per-trial metrics are whole numbers (counters, cards, events), so an :class:`Accumulator`
keeps exact integer sums, sums of squares and histograms. Merging chunks is therefore exact
and order-free: the same trials give the same numbers however they were chunked.

Intervals are two-sided at ``level`` (95% by default): the normal interval
``mean ± z·se`` for counts, and the Wilson score interval for probabilities (binary
metrics and distribution rows), which stays inside [0, 1].
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from statistics import NormalDist

import numpy as np
import pandas as pd

__all__ = [
    "Accumulator",
    "PairedSums",
    "summary_frame",
    "summary_rows",
    "z_value",
    "wilson_interval",
    "SUMMARY_COLUMNS",
    "DISTRIBUTION_COLUMNS",
]

#: Columns of a summary frame (after any grouping columns such as ``turn``).
SUMMARY_COLUMNS = ("metric", "mean", "se", "ci_low", "ci_high")
#: Columns of a distribution frame.
DISTRIBUTION_COLUMNS = ("value", "count", "probability", "se", "ci_low", "ci_high")


def z_value(level: float) -> float:
    """The normal quantile of a two-sided ``level`` interval (1.96 for 0.95).

    Parameters
    ----------
    level : float
        Between 0 and 1.

    Returns
    -------
    float
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    return NormalDist().inv_cdf(0.5 + level / 2)


def wilson_interval(successes: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``successes / n``.

    Parameters
    ----------
    successes : int
    n : int
        Trials (>= 1).
    level : float
        Confidence level.

    Returns
    -------
    (float, float)
        Low and high ends, inside [0, 1].
    """
    z = z_value(level)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # At 0 or n successes the interval ends exactly at 0 or 1 (not a rounding error away).
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= n else min(1.0, centre + half)
    return low, high


def summary_rows(n: int, sums: Mapping[str, tuple[int, int]], binary: Mapping[str, bool],
                 level: float = 0.95) -> list[tuple[str, float, float, float, float]]:
    """Summary rows from exact sums, as tuples (what :func:`summary_frame` holds).

    Parameters
    ----------
    n : int
        Trials (at least 2).
    sums : mapping of str to (int, int)
        For each metric, in report order, the sum of its per-trial values and the sum of
        their squares.
    binary : mapping of str to bool
        True for 0/1 indicators, whose mean is a probability with a Wilson interval.
    level : float
        Confidence level of the intervals.

    Returns
    -------
    list of (str, float, float, float, float)
        ``(metric, mean, se, ci_low, ci_high)``, one per metric.
    """
    if n < 2:
        raise ValueError("at least two trials are needed for a standard error")
    z = z_value(level)
    rows = []
    for name, (total, total_sq) in sums.items():
        mean = total / n
        # Exact integer numerator of the sample variance, then one rounding.
        variance = (n * total_sq - total * total) / (n * (n - 1))
        se = math.sqrt(max(variance, 0.0) / n)
        if binary[name]:
            low, high = wilson_interval(total, n, level)
        else:
            low, high = mean - z * se, mean + z * se
        rows.append((name, mean, se, low, high))
    return rows


def summary_frame(n: int, sums: Mapping[str, tuple[int, int]], binary: Mapping[str, bool],
                  level: float = 0.95) -> pd.DataFrame:
    """Summary rows from exact sums.

    Parameters
    ----------
    n : int
        Trials (at least 2).
    sums : mapping of str to (int, int)
        For each metric, in report order, the sum of its per-trial values and the sum of
        their squares.
    binary : mapping of str to bool
        True for 0/1 indicators, whose mean is a probability with a Wilson interval.
    level : float
        Confidence level of the intervals.

    Returns
    -------
    DataFrame
        ``metric, mean, se, ci_low, ci_high``, one row per metric.
    """
    return pd.DataFrame(summary_rows(n, sums, binary, level), columns=list(SUMMARY_COLUMNS))


def _counts(name: str, values: np.ndarray) -> np.ndarray:
    """How many of the whole numbers ``values`` (shape (trials,)) are 0, 1, 2, ... up to
    the largest (``np.bincount``; a chunk of 0s and 1s, as every indicator's is, counted
    by :func:`numpy.count_nonzero`, a tenth of the time)."""
    if not values.size:
        return np.zeros(0, dtype=np.int64)
    low, high = values.min(), values.max()
    if low < 0:
        raise ValueError(f"metric {name!r} has negative values")
    if high <= 1:
        ones = np.count_nonzero(values)
        return np.array([values.size - ones, ones][: int(high) + 1], dtype=np.int64)
    return np.bincount(values.astype(np.intp, copy=False))


#: Floating-point sums of whole numbers are exact while every partial sum is below this.
_EXACT_FLOAT = 2**53


def _products(arrays: Sequence[np.ndarray]) -> np.ndarray:
    """The sums of products ``sum(a * b)`` of every two of ``arrays`` (whole numbers, each
    of shape (trials,)), exactly: Python integers, shape (variants, variants).

    Sums of products in floating point (faster than int64's) when every sum they add up is
    a whole number below 2**53, so that each is exact whatever the order of the additions;
    else of int64 arrays, or past 2**63 of Python integers. They are NumPy's own loops
    (``einsum``), on this thread, never BLAS (``np.dot``): OpenBLAS shares a dot product of
    more than 10,000 numbers out to its threads, and where another process or thread keeps
    the cores busy (worker processes, a Dask worker's neighbours, the machine's other work)
    each such call waits milliseconds for its threads to be scheduled, about a thousand
    times the microseconds the sum itself takes."""
    trials = max((len(a) for a in arrays), default=0)
    peak = max((max(int(a.max()), -int(a.min())) for a in arrays if a.size), default=0)
    largest = peak * peak * trials
    dtype = np.float64 if largest < _EXACT_FLOAT else np.int64 if largest < 2**63 else object
    rows = [a.astype(dtype) for a in arrays]
    products = np.zeros((len(rows), len(rows)), dtype=object)
    for i, a in enumerate(rows):
        for j in range(i, len(rows)):
            both = np.dot(a, rows[j]) if dtype is object else np.einsum("i,i->", a, rows[j])
            products[i, j] = products[j, i] = int(both)
    return products


class Accumulator:
    """Exact running sums of whole-number per-trial metrics.

    Parameters
    ----------
    metrics : mapping of str to bool
        Metric names, in report order, each flagged True if it is a 0/1 indicator (its mean
        is a probability and gets a Wilson interval).
    histograms : bool
        Keep each metric's full distribution (values must then be >= 0). Off for signed
        values such as paired differences.
    """

    def __init__(self, metrics: Mapping[str, bool], histograms: bool = True) -> None:
        self.binary = dict(metrics)
        self.n = 0
        self.total = {name: 0 for name in self.binary}
        self.total_sq = {name: 0 for name in self.binary}
        self.histogram = (
            {name: np.zeros(1, dtype=np.int64) for name in self.binary} if histograms else {}
        )

    def add(self, values: Mapping[str, np.ndarray]) -> None:
        """Add one chunk of per-trial values.

        Parameters
        ----------
        values : mapping of str to ndarray of shape (trials,)
            One integer array per metric.
        """
        sizes = {np.shape(values[name]) for name in self.binary}
        if len(sizes) != 1:
            raise ValueError(f"metric arrays differ in shape: {sizes}")
        (shape,) = sizes
        for name in self.binary:
            array = np.asarray(values[name])
            if name not in self.histogram:
                array = array.astype(np.int64, copy=False)
                self.total[name] += int(array.sum())
                self.total_sq[name] += int(np.einsum("i,i->", array, array))  # no BLAS
                continue
            self._add_counts(name, _counts(name, array))
        self.n += shape[0]

    def add_counts(self, counts: Mapping[str, np.ndarray], trials: int,
                   apart: Mapping[str, np.ndarray] | None = None) -> None:
        """Add one chunk of trials already counted by value (as the compiled game counts
        them): the same sums as :meth:`add` of the values counted.

        Parameters
        ----------
        counts : mapping of str to ndarray of int
            Per metric, how many trials had the value 0, 1, 2, ... (trailing zeros
            allowed).
        trials : int
        apart : mapping of str to ndarray of int, optional
            Per metric, the values of the trials not in ``counts`` (the compiled game's
            values beyond its bins); with them, each metric's trials number ``trials``.
        """
        if not self.histogram:
            raise ValueError("counts by value need an accumulator with histograms")
        apart = apart or {}
        for name in self.binary:
            chunk = np.asarray(counts[name], dtype=np.int64)
            values = apart.get(name, np.zeros(0, np.int64))
            if int(chunk.sum()) + len(values) != trials:
                raise ValueError(f"metric {name!r}: {int(chunk.sum()) + len(values)} counts "
                                 f"for {trials} trials")
            nonzero = np.flatnonzero(chunk)
            self._add_counts(name, chunk[: nonzero[-1] + 1 if nonzero.size else 0])
            if len(values):
                self._add_counts(name, _counts(name, np.asarray(values)))
        self.n += trials

    def _add_counts(self, name: str, chunk: np.ndarray) -> None:
        """Add the counts by value ``chunk`` (no trailing zero) of metric ``name``."""
        value = np.arange(len(chunk), dtype=np.int64)  # the sums from the counts
        self.total[name] += int(chunk @ value)
        self.total_sq[name] += int(chunk @ (value * value))
        counts = np.zeros(max(len(chunk), len(self.histogram[name])), dtype=np.int64)
        counts[: len(chunk)] += chunk
        counts[: len(self.histogram[name])] += self.histogram[name]
        self.histogram[name] = counts

    def merge(self, other: Accumulator) -> None:
        """Add another accumulator's trials to this one (exact, any order).

        Parameters
        ----------
        other : Accumulator
            Sums of the same metrics.
        """
        if list(other.binary) != list(self.binary):
            raise ValueError("cannot merge accumulators of different metrics")
        self.n += other.n
        for name in self.binary:
            self.total[name] += other.total[name]
            self.total_sq[name] += other.total_sq[name]
            if name not in self.histogram:
                continue
            mine, theirs = self.histogram[name], other.histogram[name]
            if len(theirs) > len(mine):
                mine, theirs = theirs, mine
            merged = mine.copy()
            merged[: len(theirs)] += theirs
            self.histogram[name] = merged

    def summary(self, level: float = 0.95) -> pd.DataFrame:
        """One row per metric.

        Parameters
        ----------
        level : float
            Confidence level of the intervals, between 0 and 1.

        Returns
        -------
        DataFrame
            ``metric, mean, se, ci_low, ci_high``, one row per metric in report order.
        """
        return pd.DataFrame(self.summary_rows(level), columns=list(SUMMARY_COLUMNS))

    def summary_rows(self, level: float = 0.95) -> list[tuple[str, float, float, float, float]]:
        """:meth:`summary`'s rows as tuples ``(metric, mean, se, ci_low, ci_high)``.

        Parameters
        ----------
        level : float
            Confidence level of the intervals, between 0 and 1.

        Returns
        -------
        list of tuple
        """
        sums = {name: (self.total[name], self.total_sq[name]) for name in self.binary}
        return summary_rows(self.n, sums, self.binary, level)

    def distribution(self, metric: str, level: float = 0.95) -> pd.DataFrame:
        """The full distribution of one metric.

        Probabilities have binomial standard errors and Wilson intervals.

        Parameters
        ----------
        metric : str
            A metric kept with its histogram.
        level : float
            Confidence level of the intervals.

        Returns
        -------
        DataFrame
            ``value, count, probability, se, ci_low, ci_high``, one row per value from 0 to
            the largest value seen.
        """
        if metric not in self.histogram:
            raise KeyError(f"unknown metric {metric!r}; known: {', '.join(self.histogram)}")
        counts = self.histogram[metric]
        n = self.n
        rows = []
        for value, count in enumerate(counts.tolist()):
            p = count / n
            low, high = wilson_interval(count, n, level)
            rows.append((value, count, p, math.sqrt(p * (1 - p) / n), low, high))
        return pd.DataFrame(rows, columns=list(DISTRIBUTION_COLUMNS))


class PairedSums:
    """Exact sums of products of paired per-trial metrics, for differences of any two variants.

    Variants played on the same shuffles give one value per trial each. With each variant's
    own :class:`Accumulator` (sums and sums of squares), the sums of products
    ``sum(a * b)`` over trials give every paired difference ``b - a`` exactly:
    ``sum((b - a)^2) = sum(a^2) + sum(b^2) - 2 sum(a * b)``.

    Parameters
    ----------
    metrics : sequence of str
        Metric names.
    variants : int
        Number of paired variants.
    """

    def __init__(self, metrics: Sequence[str], variants: int) -> None:
        self.metrics = list(metrics)
        self.variants = variants
        self.n = 0
        self.products = {
            pair: dict.fromkeys(self.metrics, 0)
            for pair in itertools.combinations(range(variants), 2)
        }

    def add(self, values: Sequence[Mapping[str, np.ndarray]]) -> None:
        """Add one chunk of paired games.

        Parameters
        ----------
        values : sequence of mapping of str to ndarray of shape (trials,)
            For each variant, in order, one integer array per metric, trial ``i`` of every
            variant being played on the same shuffle.
        """
        if len(values) != self.variants:
            raise ValueError(f"expected {self.variants} variants, got {len(values)}")
        for name in self.metrics:
            products = _products([np.asarray(v[name]) for v in values])
            for (i, j), sums in self.products.items():
                sums[name] += int(products[i, j])
        self.n += len(np.asarray(values[0][self.metrics[0]])) if self.metrics else 0

    def merge(self, other: PairedSums) -> None:
        """Add another chunk's sums (exact, any order).

        Parameters
        ----------
        other : PairedSums
            Sums of the same metrics and variants.
        """
        if other.metrics != self.metrics or other.variants != self.variants:
            raise ValueError("cannot merge paired sums of different metrics or variants")
        self.n += other.n
        for pair, sums in other.products.items():
            for name, value in sums.items():
                self.products[pair][name] += value

    def difference(self, base: Accumulator, other: Accumulator, base_index: int,
                   other_index: int, level: float = 0.95) -> pd.DataFrame:
        """Summary of ``other - base`` trial by trial, with normal intervals.

        Parameters
        ----------
        base, other : Accumulator
            The two variants' own sums over the same trials.
        base_index, other_index : int
            Their positions among the paired variants.
        level : float
            Confidence level of the intervals.

        Returns
        -------
        DataFrame
            ``metric, mean, se, ci_low, ci_high`` of the per-trial differences.
        """
        rows = self.difference_rows(base, other, base_index, other_index, level)
        return pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))

    def difference_rows(self, base: Accumulator, other: Accumulator, base_index: int,
                        other_index: int, level: float = 0.95
                        ) -> list[tuple[str, float, float, float, float]]:
        """:meth:`difference`'s rows as tuples ``(metric, mean, se, ci_low, ci_high)``.

        Parameters
        ----------
        base, other : Accumulator
        base_index, other_index : int
        level : float
            As :meth:`difference` takes them.

        Returns
        -------
        list of tuple
        """
        if not base.n == other.n == self.n:
            raise ValueError("paired sums and accumulators cover different trials")
        pair = (min(base_index, other_index), max(base_index, other_index))
        sums = {
            name: (other.total[name] - base.total[name],
                   base.total_sq[name] + other.total_sq[name] - 2 * self.products[pair][name])
            for name in self.metrics
        }
        return summary_rows(self.n, sums, dict.fromkeys(self.metrics, False), level)
