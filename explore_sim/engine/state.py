"""The batched game state: trials on the first axis, the library as card ids plus a top pointer.

The library of every trial is one row of a ``(trials, size + 1)`` array of deck-local card
ids. The last column is always ``EMPTY`` (id 0), so reading position ``top == size`` of an
exhausted library safely finds "no card" (never -1 as a sentinel: NumPy would read the last
element). Drawing reads ``library[row, top]`` and advances ``top``; leaving a revealed card on
top is simply not advancing it (RULES.md E2, E6, E7).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..cards.card import EMPTY

__all__ = ["ExploreState", "shuffled_libraries", "card_dtype", "CARD_DTYPE", "COUNT_DTYPE"]

#: dtype of card ids in a library of a deck with up to 32,767 distinct cards.
CARD_DTYPE = np.int16
#: dtype of per-trial counts (cards in hand, counters, ...).
COUNT_DTYPE = np.int32


@dataclasses.dataclass(frozen=True, eq=False)
class ExploreState:
    """What the engine tracks for each trial, as arrays with the trial axis first.

    Attributes
    ----------
    library : ndarray, shape (trials, size + 1), int16
        Card ids in library order; column ``size`` is ``EMPTY``. Never modified.
    top : ndarray, shape (trials,), int32
        Position of the top card; ``size`` when the library is empty.
    library_lands : ndarray, shape (trials,), int32
        Land cards at positions ``top`` and below.
    cards_in_hand, lands_in_hand, lands_in_play : ndarray, shape (trials,), int32
        What the player holds and has on the battlefield.
    counters : ndarray, shape (trials,), int32
        +1/+1 counters put on the explorer by explore.
    explorer_present : ndarray, shape (trials,), bool
        False where the explorer has left the battlefield (RULES.md E3).
    graveyard : ndarray, shape (trials,), int32
        Cards put into the graveyard from the library (milled by explore).
    """

    library: np.ndarray
    top: np.ndarray
    library_lands: np.ndarray
    cards_in_hand: np.ndarray
    lands_in_hand: np.ndarray
    lands_in_play: np.ndarray
    counters: np.ndarray
    explorer_present: np.ndarray
    graveyard: np.ndarray

    @property
    def trials(self) -> int:
        """Number of trials (rows)."""
        return self.library.shape[0]

    @property
    def size(self) -> int:
        """Cards in a full library (the ``EMPTY`` pad column excluded)."""
        return self.library.shape[1] - 1

    @property
    def library_size(self) -> np.ndarray:
        """Cards left in each library, shape ``(trials,)``."""
        return (self.size - self.top).astype(COUNT_DTYPE)

    @classmethod
    def start(
        cls,
        library: np.ndarray,
        is_land: np.ndarray,
        *,
        top: int | np.ndarray = 0,
        cards_in_hand: int | np.ndarray = 0,
        lands_in_hand: int | np.ndarray = 0,
        lands_in_play: int | np.ndarray = 0,
        explorer_present: bool | np.ndarray = True,
        library_lands: int | np.ndarray | None = None,
    ) -> ExploreState:
        """A state from libraries (with their ``EMPTY`` pad column) and starting counts.

        Parameters
        ----------
        library : ndarray, shape (trials, size + 1)
            Card ids; the last column must be ``EMPTY``.
        is_land : ndarray, shape (n_cards + 1,), bool
            The feature table's land flags, to count the lands below ``top``.
        library_lands : int or ndarray, optional
            Lands at and below ``top``, if the caller knows them (saves counting).
        """
        trials, width = library.shape
        if not np.all(library[:, -1] == EMPTY):
            raise ValueError("the last library column must be EMPTY padding")

        def column(value: int | np.ndarray, dtype: type = COUNT_DTYPE) -> np.ndarray:
            return np.broadcast_to(np.asarray(value, dtype=dtype), (trials,)).copy()

        if library_lands is not None:
            library_lands = column(library_lands)
        elif np.ndim(top) == 0:
            library_lands = np.count_nonzero(is_land[library[:, int(top):]], axis=1).astype(COUNT_DTYPE)
        else:
            below_top = np.arange(width)[None, :] >= np.asarray(top)[:, None]
            library_lands = np.count_nonzero(is_land[library] & below_top, axis=1).astype(COUNT_DTYPE)
        top = column(top)
        return cls(
            library=library,
            top=top,
            library_lands=library_lands,
            cards_in_hand=column(cards_in_hand),
            lands_in_hand=column(lands_in_hand),
            lands_in_play=column(lands_in_play),
            counters=np.zeros(trials, COUNT_DTYPE),
            explorer_present=column(explorer_present, bool),
            graveyard=np.zeros(trials, COUNT_DTYPE),
        )


def card_dtype(deck: np.ndarray) -> type:
    """The smallest dtype holding the deck's card ids: int8 for up to 127 distinct cards
    (less memory traffic when millions of libraries are shuffled), else int16."""
    return np.int8 if len(deck) == 0 or int(np.max(deck)) <= np.iinfo(np.int8).max else CARD_DTYPE


def shuffled_libraries(
    deck: np.ndarray, trials: int, rng: np.random.Generator, depth: int | None = None
) -> np.ndarray:
    """Shuffle one deck for many trials at once.

    Only the first ``depth`` positions are drawn at random (a partial Fisher-Yates shuffle,
    one vectorised step per position): a game that never looks deeper than ``depth`` cards
    sees exactly the distribution of a full shuffle, at a fraction of the cost.

    Parameters
    ----------
    deck : ndarray, shape (size,), integer
        The library's card ids, in any order.
    trials : int
        Number of independent shuffles (rows).
    rng : numpy.random.Generator
        Source of randomness.
    depth : int, optional
        Positions to randomise, default all of them.

    Returns
    -------
    ndarray, shape (trials, size + 1), int8 or int16 (:func:`card_dtype`)
        One shuffled library per row; column ``size`` is ``EMPTY`` padding.
    """
    size = len(deck)
    depth = size if depth is None else min(int(depth), size)
    dtype = card_dtype(deck)
    library = np.empty((trials, size + 1), dtype=dtype)
    library[:, :size] = np.asarray(deck, dtype=dtype)
    library[:, size] = EMPTY
    flat = library.reshape(-1)
    row_start = np.arange(trials, dtype=np.int64) * (size + 1)
    for position in range(min(depth, size - 1)):
        # Fisher-Yates: swap position with a uniform choice among positions >= it.
        chosen = row_start + rng.integers(position, size, size=trials)
        picked = flat[chosen]
        flat[chosen] = library[:, position]
        library[:, position] = picked
    return library
