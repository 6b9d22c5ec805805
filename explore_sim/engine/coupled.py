"""Games two decks share: which watched cards a game saw, and games copied, not played.

:func:`~explore_sim.analysis.value.value` plays each card's vanilla deck on the explorer
deck's shuffles, from a starting order that agrees with the explorer deck's at every position
but those of the card's copies (:func:`~explore_sim.analysis.stand_ins.coupled_ids`). The two
decks then play the same game until the first copy of the card (or of its stand-in) is dealt:
every earlier draw, reveal, choice and random number is the same. A game that never deals one
is the same game throughout, so the vanilla deck's is the explorer deck's, copied, not
played. The compiled kernel watches the explorer deck's games for the cards (:class:`Watch`)
and skips the vanilla deck's same games (:class:`SameGames`). A shuffle (after a search)
lays the library out anew by card id: a card and its stand-in, swapped in place, have one
id, so they take the same positions there too.
"""

from __future__ import annotations

import dataclasses

import numpy as np

__all__ = ["SameGames", "Watch"]


@dataclasses.dataclass(frozen=True)
class Watch:
    """Cards a chunk's games watch for: which of them each game dealt.

    Attributes
    ----------
    marks : dict of int to int
        Card id (of the deck played) to its bits: a game that deals a copy of the card sets
        them.
    seen : ndarray of shape (trials,), int32
        Written by the games: each game's bits.
    """

    marks: dict[int, int]
    seen: np.ndarray

    def bits(self, n_kinds: int) -> np.ndarray:
        """The bits by card id, ``(n_kinds,)`` int64."""
        bits = np.zeros(n_kinds, np.int64)
        for kind, mark in self.marks.items():
            bits[kind] |= mark
        return bits


@dataclasses.dataclass(frozen=True)
class SameGames:
    """Games of this chunk known to be another deck's same games, to copy, not play.

    Two decks on the same shuffles (the chunk's seed, and starting orders that agree at
    every position but those of some cards) play the same game until the first of those
    cards is dealt; a game that never deals one is the same game throughout.

    Attributes
    ----------
    other : dict of int to dict of str to ndarray of shape (trials,)
        The other deck's games, of the same metrics.
    same : ndarray of shape (trials,), bool
        Which games are the same.
    """

    other: dict[int, dict[str, np.ndarray]]
    same: np.ndarray

    def skip(self, trials: int) -> np.ndarray:
        """The games not to play, ``(trials,)`` uint8."""
        if self.same.shape != (trials,):
            raise ValueError(f"same games for {self.same.shape} games, not {trials}")
        return self.same.astype(np.uint8)

    def fill(self, result: dict[int, dict[str, np.ndarray]]) -> None:
        """Copy the same games' metrics into ``result`` (changed)."""
        games = np.flatnonzero(self.same)  # once for every metric (a mask costs more)
        for turn, metrics in result.items():
            other = self.other[turn]
            for name, values in metrics.items():
                values[games] = other[name][games]
