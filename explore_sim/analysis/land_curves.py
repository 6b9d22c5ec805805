"""A card's land curve: its land-equivalent's metric at the basis turn for the explorer deck,
the vanilla deck and the vanilla deck with ``k`` more lands, played only as far as it reads.

:func:`~explore_sim.analysis.value.value` matches the explorer deck's metric (such as
``on_curve`` at turn 3) with the vanilla deck's plus ``k`` lands. The land-equivalent reads
only the variants up to the first ``k`` that reaches the explorer deck (the *crossing*) and
the pairs of games that its delta-method se needs (:func:`~.stand_ins.crossing_lands`), so
the land variants are played in rounds on the same shuffles, each as a :class:`BasisGroup`:

- the first round: the explorer deck, the vanilla deck and the vanilla deck with 1 more land
  (or with every count of lands, for a full curve);
- while no variant played reaches the explorer deck and more lands are left to try, the next
  round: the next land variant, grouped with the explorer deck and the last land variant
  played, which gives the sums of products of the next variant with those two (their games'
  values kept from the round before, or those games played again: :mod:`.value_games`).

A variant played again plays the very same games (the same chunk seeds; a game cut short at
the basis turn is the same game), and :meth:`LandCurve.add` checks that its sums are the
ones already counted.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .stand_ins import crossing_lands, first_reaching
from .stats import Accumulator, PairedSums, summary_rows

__all__ = ["BasisGroup", "LandCurve"]


@dataclasses.dataclass
class BasisGroup:
    """Some of a card's variants played together on the same shuffles, with the basis
    metric at the basis turn: each one's sums and the sums of every two's products.

    Attributes
    ----------
    indices : tuple of int
        The variants (0: the explorer deck, 1: the vanilla deck, ``k + 1``: ``k`` more
        lands), in order.
    stats : list of Accumulator
        Per variant, the sums of its metric.
    pairs : PairedSums
        The sums of products of every two of them (positions in ``indices``).
    """

    indices: tuple[int, ...]
    stats: list[Accumulator]
    pairs: PairedSums

    @classmethod
    def of(cls, indices: Sequence[int], results: Sequence[dict[int, dict[str, np.ndarray]]],
           metric: str, turn: int, binary: bool) -> BasisGroup:
        """The group of one chunk's games.

        Parameters
        ----------
        indices : sequence of int
        results : sequence of dict
            Per variant, its games' metrics by turn (``results[i][turn][metric]``, shape
            (trials,)), up to ``turn`` at least.
        metric : str
        turn : int
        binary : bool
            Whether ``metric`` is a 0/1 indicator.
        """
        return cls.of_values(indices, [result[turn][metric] for result in results], metric,
                             binary)

    @classmethod
    def of_values(cls, indices: Sequence[int], values: Sequence[np.ndarray], metric: str,
                  binary: bool) -> BasisGroup:
        """The group of one chunk's per-game values of ``metric`` at the basis turn.

        Parameters
        ----------
        indices : sequence of int
        values : sequence of ndarray of shape (trials,)
            Per variant, in order, every game's value.
        metric : str
        binary : bool
            Whether ``metric`` is a 0/1 indicator.
        """
        named = [{metric: one} for one in values]
        stats = []
        for one in named:
            acc = Accumulator({metric: binary}, histograms=False)
            acc.add(one)
            stats.append(acc)
        pairs = PairedSums([metric], len(named))
        pairs.add(named)
        return cls(tuple(indices), stats, pairs)

    @classmethod
    def empty(cls, indices: Sequence[int], metric: str, binary: bool) -> BasisGroup:
        """A group of no games yet, to merge chunks into."""
        return cls(tuple(indices), [Accumulator({metric: binary}, histograms=False)
                                    for _ in indices], PairedSums([metric], len(indices)))

    def merge(self, other: BasisGroup) -> None:
        """Add another chunk's sums of the same variants (exact, any order)."""
        if other.indices != self.indices:
            raise ValueError("cannot merge groups of different variants")
        for mine, theirs in zip(self.stats, other.stats):
            mine.merge(theirs)
        self.pairs.merge(other.pairs)


@dataclasses.dataclass(repr=False)
class LandCurve:
    """A card's variants at its land-equivalent's basis, played as far as the crossing.

    Attributes
    ----------
    metric : str
        The land-equivalent's metric.
    turn : int
        Its basis turn.
    labels : list of str
        Every variant the card's plan holds: ``"explorer deck"``, ``"vanilla"``,
        ``"vanilla +1 land"``, ...; the first ``len(stats)`` were played.
    stats : list of Accumulator
        Per variant played, the sums of the metric.
    groups : list of (tuple of int, PairedSums)
        The variants played together, and the sums of their products.
    ceiling : float or None
        The most the metric's mean can be without the card, whatever the lands (None: not
        known): an explorer deck above it (its 95% interval too) is worth more than any
        count of lands, and no more rounds are played.
    """

    metric: str
    turn: int
    labels: list[str]
    stats: list[Accumulator] = dataclasses.field(default_factory=list)
    groups: list[tuple[tuple[int, ...], PairedSums]] = dataclasses.field(default_factory=list)
    ceiling: float | None = None

    @property
    def tried(self) -> int:
        """The most lands the plan tries: its copies, at most ``max_lands`` (0: a
        commander)."""
        return len(self.labels) - 2

    @property
    def played(self) -> int:
        """The land variants played (``k = 1`` to ``played``)."""
        return len(self.stats) - 2

    @property
    def played_labels(self) -> list[str]:
        """The labels of the variants played."""
        return self.labels[:len(self.stats)]

    @property
    def n(self) -> int:
        """Games of each variant."""
        return self.stats[0].n

    def add(self, group: BasisGroup) -> None:
        """Count a group played (all its chunks merged): its new variants' sums, and its
        pairs.

        Raises
        ------
        RuntimeError
            A variant played again whose games differ from the ones counted before.
        """
        for index, acc in zip(group.indices, group.stats):
            if index < len(self.stats):
                seen = self.stats[index]
                if (seen.n, seen.total, seen.total_sq) != (acc.n, acc.total, acc.total_sq):
                    raise RuntimeError(f"{self.labels[index]} played again gave other games "
                                       "than the first time on the same shuffles")
            elif index == len(self.stats):
                self.stats.append(acc)
            else:
                raise ValueError(f"variant {index} added before variant {len(self.stats)}")
        self.groups.append((group.indices, group.pairs))

    def __repr__(self) -> str:
        means = ", ".join(f"{label}: {self.total(i) / self.n:.4f}"
                          for i, label in enumerate(self.played_labels))
        return (f"LandCurve({self.metric} at turn {self.turn}, {self.n} games, "
                f"{self.played} of {self.tried} land variants played; {means})")

    def total(self, i: int) -> int:
        """The sum over games of variant ``i``'s metric."""
        return self.stats[i].total[self.metric]

    def product(self, i: int, j: int) -> int:
        """The sum over games of variants ``i`` and ``j``'s product (``i == j``: square).

        Raises
        ------
        KeyError
            Two variants never played together.
        """
        if i == j:
            return self.stats[i].total_sq[self.metric]
        for indices, pairs in self.groups:
            if i in indices and j in indices:
                a, b = sorted((indices.index(i), indices.index(j)))
                return pairs.products[(a, b)][self.metric]
        raise KeyError(f"{self.labels[i]} and {self.labels[j]} were not played together")

    def explorer_interval(self, level: float = 0.95) -> tuple[float, float, float]:
        """The explorer deck's mean of the metric and its ``level`` interval (normal, from
        the exact sums): ``(mean, low, high)``."""
        sums = {self.metric: (self.total(0), self.stats[0].total_sq[self.metric])}
        ((_, mean, _, low, high),) = summary_rows(self.n, sums, {self.metric: False}, level)
        return mean, low, high

    def beyond(self) -> bool:
        """Whether the explorer deck's mean is above the :attr:`ceiling`, its 95% interval
        too: no count of lands reaches it."""
        return self.ceiling is not None and self.n > 1 and \
            self.explorer_interval()[1] > self.ceiling

    def crossed(self) -> bool:
        """Whether a variant played reaches the explorer deck's mean, or every count of
        lands was tried, or none can reach it (:meth:`beyond`): no more rounds are needed."""
        return (self.played >= self.tried or first_reaching(self.total, self.played) is not None
                or self.beyond())

    def next_round(self) -> tuple[int, ...]:
        """The variants of the next round's group: the explorer deck, the last land variant
        played and the next one."""
        return (0, self.played + 1, self.played + 2)

    def land_equivalent(self, copies: int, level: float = 0.95) -> dict:
        """The land-equivalent (:func:`~.stand_ins.crossing_lands`).

        Parameters
        ----------
        copies : int
            The card's copies in the library.
        level : float
            Confidence level of the interval.

        Returns
        -------
        dict
            ``mean, se, ci_low, ci_high, note``.
        """
        return crossing_lands(self.n, self.total, self.product, self.played, self.tried,
                              copies, self.metric, self.turn, level,
                              ceiling=self.ceiling if self.beyond() else None)

    def summary(self, level: float = 0.95) -> pd.DataFrame:
        """The metric of every variant played.

        Parameters
        ----------
        level : float
            Confidence level of the intervals.

        Returns
        -------
        DataFrame
            ``variant, metric, turn, mean, se, ci_low, ci_high``, one row per variant played.
        """
        rows = [(label, metric, self.turn, *numbers) for label, acc in
                zip(self.played_labels, self.stats)
                for metric, *numbers in acc.summary_rows(level)]
        return pd.DataFrame(rows, columns=["variant", "metric", "turn", "mean", "se", "ci_low",
                                           "ci_high"])
