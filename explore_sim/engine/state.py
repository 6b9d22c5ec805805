"""Batched state: trials on the first axis, the library as card ids plus a top pointer.

Three states, each a dataclass of arrays: :class:`ExploreState` (one explore sequence),
:class:`OpeningHands` (kept hands and the libraries behind them) and :class:`GameState` (a
whole goldfish game, updated in place by the turn loop).

The library of every trial is one row of a ``(trials, size + 1)`` array of deck-local card
ids. The last column is always ``EMPTY`` (id 0), so reading position ``top == size`` of an
exhausted library safely finds "no card" (never -1 as a sentinel: NumPy would read the last
element). Drawing reads ``library[row, top]`` and advances ``top``; leaving a revealed card on
top is simply not advancing it (docs/rules.md E2, E6, E7).
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numpy.typing import ArrayLike

from ..cards import EMPTY, FeatureTable
from .metrics import EVENT_METRICS
from .rowwise import row_sum

__all__ = [
    "ExploreState",
    "OpeningHands",
    "GameState",
    "leave",
    "enter",
    "add_counters",
    "counters_on_copies",
    "countered_copy_is_sick",
    "of_rows",
    "kinds_in",
    "to_hand",
    "from_hand",
    "shuffled_libraries",
    "card_dtype",
    "CARD_DTYPE",
    "COUNT_DTYPE",
]

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
        False where the explorer has left the battlefield (docs/rules.md E3).
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
            lands = column(library_lands)
        elif np.ndim(top) == 0:
            lands = np.count_nonzero(is_land[library[:, int(top):]], axis=1).astype(COUNT_DTYPE)
        else:
            below_top = np.arange(width)[None, :] >= np.asarray(top)[:, None]
            lands = np.count_nonzero(is_land[library] & below_top, axis=1).astype(COUNT_DTYPE)
        top = column(top)
        return cls(
            library=library,
            top=top,
            library_lands=lands,
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
    library: np.ndarray = np.empty((trials, size + 1), dtype=dtype)
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


@dataclasses.dataclass(frozen=True, eq=False)
class OpeningHands:
    """Kept opening hands and the libraries behind them.

    Attributes
    ----------
    library : ndarray, shape (trials, size + 1), int16
        Circular library buffer; the library is positions ``top .. end - 1`` (mod width).
    top, end : ndarray, shape (trials,), int32
        Logical positions of the top card and one past the bottom card.
    hand : ndarray, shape (trials, n_cards + 1), int16
        Cards in hand per card id.
    mulligans : ndarray, shape (trials,), int32
        Mulligans taken.
    """

    library: np.ndarray
    top: np.ndarray
    end: np.ndarray
    hand: np.ndarray
    mulligans: np.ndarray


@dataclasses.dataclass(eq=False)
class GameState:
    """Every trial's game, as arrays with the trial axis first (updated in place).

    Attributes
    ----------
    library : ndarray, shape (trials, width), int16
        Circular buffer of card ids; the library is logical positions ``top .. end - 1``,
        stored at ``position % width``. Cards put on the bottom are written at ``end``.
    top, end : ndarray, shape (trials,), int32
    library_lands : ndarray, shape (trials,), int32
        Land cards in the library.
    library_pips : ndarray, shape (trials, 5), int32
        Pips of each colour (W U B R G) of the nonland cards left in the library.
    hand, battlefield, sick, tapped : ndarray, shape (trials, n_cards + 1), int16
        Cards per id in hand; permanents per id on the battlefield; of those, the ones that
        came under your control this turn (summoning sick) and the tapped ones.
    hand_lands : ndarray, shape (trials,), int32
        Land cards in hand (kept up to date by :func:`to_hand` and :func:`from_hand`).
    is_land : ndarray, shape (n_cards + 1,), int32
        1 for a land card's id (keeps :attr:`hand_lands` up to date).
    permanents : ndarray, shape (trials, n_groups), int16
        Permanents on the battlefield in each group of the deck's tables (:attr:`members`;
        kept up to date as permanents enter and :func:`leave`).
    members : ndarray, shape (n_cards + 1, n_groups), int16
        Which groups each card id is in
        (:attr:`~explore_sim.engine.tables.DeckTables.members`, set by :meth:`attach`).
    groups_of : tuple of tuple of int
        For each card id, the groups it is in (the nonzero columns of ``members``).
    card_pips : ndarray, shape (n_cards + 1, 5), int32
        Pips of each colour of each card id (:attr:`FeatureTable.pips`).
    command, command_casts : ndarray, shape (trials, n_cards + 1), int16
        Cards in the command zone (a Commander game's commanders), and how many times each
        was cast from there (its commander tax).
    units : ndarray, shape (trials, n_classes), int16
        Mana units the untapped, usable sources could make now, by unit class (kept up to
        date by :class:`~explore_sim.engine.paying.ManaTables`).
    pool : ndarray, shape (trials, n_classes), int16
        Mana made this phase and not yet spent, by unit class (it empties between phases).
    land_drops : ndarray, shape (trials,), int32
        Land plays left this turn.
    played_land : ndarray, shape (trials,), bool
    maps, equipped : ndarray, shape (trials,), int32
        Map tokens; Glowcap Lanterns attached to a creature.
    graveyard : ndarray, shape (trials,), int32
        Cards in the graveyard (milled, resolved spells, discarded, removed permanents).
    counters, sick_counters : ndarray, shape (trials, n_cards + 1), int32
        +1/+1 counters on the permanents of each card id: on its copies that are not
        summoning sick, and on its summoning-sick ones (docs/guide/damage.md: a counter goes
        on the copy :func:`countered_copy_is_sick` names; at the untap step every counter
        is on a copy that is no longer sick).
    explores_before : ndarray, shape (trials,), int32
        ``totals["explores"]`` at the start of this turn (the explores this turn give each
        Merfolk Cave-Diver that attacks +1/+0).
    turn : int
    totals : dict of str to ndarray, shape (trials,), int32
        Cumulative event counts (explores, counters, Maps, mana spent, ...).
    main_phase : dict of str to ndarray, shape (trials,), int32
        This turn's values taken in the first main phase after the land drop
        (``mana_available``, ``colour_screwed``, ``castable:CARD``).
    pool_in_use : bool
        False while every trial's :attr:`pool` is known to be empty (most decks never put
        mana there), so it need not be read.
    """

    library: np.ndarray
    top: np.ndarray
    end: np.ndarray
    library_lands: np.ndarray
    library_pips: np.ndarray
    hand: np.ndarray
    battlefield: np.ndarray
    sick: np.ndarray
    tapped: np.ndarray
    hand_lands: np.ndarray
    is_land: np.ndarray
    permanents: np.ndarray
    members: np.ndarray
    groups_of: tuple[tuple[int, ...], ...]
    card_pips: np.ndarray
    command: np.ndarray
    command_casts: np.ndarray
    units: np.ndarray
    pool: np.ndarray
    land_drops: np.ndarray
    played_land: np.ndarray
    maps: np.ndarray
    equipped: np.ndarray
    graveyard: np.ndarray
    counters: np.ndarray
    sick_counters: np.ndarray
    explores_before: np.ndarray
    turn: int
    totals: dict[str, np.ndarray]
    main_phase: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)
    pool_in_use: bool = False

    def empty_pool(self) -> None:
        """Mana empties from every pool (between steps and phases)."""
        if self.pool_in_use:
            self.pool[:] = 0
            self.pool_in_use = False

    @property
    def trials(self) -> int:
        return self.library.shape[0]

    @classmethod
    def from_opening_hands(cls, opening: OpeningHands, features: FeatureTable) -> GameState:
        trials, n_kinds = opening.hand.shape
        zeros = np.zeros(trials, dtype=np.int32)
        # Every trial holds the same deck, split between library and hand.
        hand_lands = (opening.hand * features.is_land).sum(axis=1, dtype=np.int32)
        first = _library_cards(opening, 0)
        deck_lands = int(features.is_land[first].sum()) + int(hand_lands[0])
        library_lands = deck_lands - hand_lands
        pips = features.pips.astype(np.int32)
        hand_pips = opening.hand.astype(np.int32) @ pips
        deck_pips = pips[first].sum(axis=0) + hand_pips[0]
        totals = {name: zeros.copy() for name in EVENT_METRICS}
        return cls(
            library=opening.library,
            top=opening.top.copy(),
            end=opening.end.copy(),
            library_lands=library_lands.astype(np.int32),
            library_pips=(deck_pips[None, :] - hand_pips).astype(np.int32),
            hand=opening.hand.copy(),
            battlefield=np.zeros((trials, n_kinds), dtype=np.int16),
            sick=np.zeros((trials, n_kinds), dtype=np.int16),
            tapped=np.zeros((trials, n_kinds), dtype=np.int16),
            hand_lands=hand_lands.copy(),
            is_land=features.is_land.astype(np.int32),
            permanents=np.zeros((trials, 0), dtype=np.int16),
            members=np.zeros((n_kinds, 0), dtype=np.int16),
            groups_of=((),) * n_kinds,
            card_pips=pips,
            command=np.zeros((trials, n_kinds), dtype=np.int16),
            command_casts=np.zeros((trials, n_kinds), dtype=np.int16),
            units=np.zeros((trials, len(features.unit_classes)), dtype=np.int16),
            pool=np.zeros((trials, len(features.unit_classes)), dtype=np.int16),
            land_drops=zeros.copy(),
            played_land=np.zeros(trials, dtype=bool),
            maps=zeros.copy(),
            equipped=zeros.copy(),
            graveyard=zeros.copy(),
            counters=np.zeros((trials, n_kinds), dtype=np.int32),
            sick_counters=np.zeros((trials, n_kinds), dtype=np.int32),
            explores_before=zeros.copy(),
            turn=0,
            totals=totals,
        )

    @classmethod
    def from_position(
        cls,
        library: np.ndarray,
        features: FeatureTable,
        *,
        turn: int,
        hand: np.ndarray,
        battlefield: np.ndarray,
        sick: np.ndarray | None = None,
        command: np.ndarray | None = None,
        command_casts: np.ndarray | None = None,
        graveyard: int = 0,
        land_drops: int = 1,
    ) -> GameState:
        """A game in the middle of a turn, from a known position (the same in every trial)
        and one library per trial.

        Nothing is tapped, the mana pool is empty and every event total is 0 (events are
        counted from the position on). The caller brings the mana state up to date
        (:meth:`explore_sim.engine.paying.ManaTables.recount`) before playing on.

        Parameters
        ----------
        library : ndarray, shape (trials, size + 1), integer
            Each trial's library, top first; column ``size`` is ``EMPTY`` padding.
        features : FeatureTable
            The deck's cards (ids index the count vectors).
        turn : int
            The turn being played (>= 1).
        hand, battlefield : ndarray, shape (n_cards + 1,), integer
            Cards in hand and permanents on the battlefield, per card id.
        sick : ndarray, shape (n_cards + 1,), optional
            Of the permanents, those that came under your control this turn (default none).
        command, command_casts : ndarray, shape (n_cards + 1,), optional
            Commanders in the command zone, and casts from there so far (default none).
        graveyard : int
            Cards in the graveyard.
        land_drops : int
            Land plays left this turn (0 when the turn's land has been played).

        Returns
        -------
        GameState
        """
        trials, width = library.shape
        n_kinds = len(features)
        if not np.all(library[:, -1] == EMPTY):
            raise ValueError("the last library column must be EMPTY padding")

        def counts(vector: np.ndarray | None) -> np.ndarray:
            row = np.zeros(n_kinds, dtype=np.int16) if vector is None else \
                np.asarray(vector, dtype=np.int16)
            if row.shape != (n_kinds,) or (row < 0).any():
                raise ValueError(f"count vectors must have shape ({n_kinds},) and be >= 0")
            return np.repeat(row[None, :], trials, axis=0)

        cards = library[:, : width - 1].astype(np.intp)
        zeros = np.zeros(trials, dtype=np.int32)
        state = cls(
            library=library,
            top=zeros.copy(),
            end=np.full(trials, width - 1, dtype=np.int32),
            library_lands=features.is_land[cards].sum(axis=1, dtype=np.int32),
            library_pips=features.pips[cards].sum(axis=1, dtype=np.int32),
            hand=counts(hand),
            battlefield=counts(battlefield),
            sick=counts(sick),
            tapped=counts(None),
            hand_lands=zeros.copy(),
            is_land=features.is_land.astype(np.int32),
            permanents=np.zeros((trials, 0), dtype=np.int16),
            members=np.zeros((n_kinds, 0), dtype=np.int16),
            groups_of=((),) * n_kinds,
            card_pips=features.pips.astype(np.int32),
            command=counts(command),
            command_casts=counts(command_casts),
            units=np.zeros((trials, len(features.unit_classes)), dtype=np.int16),
            pool=np.zeros((trials, len(features.unit_classes)), dtype=np.int16),
            land_drops=np.full(trials, land_drops, dtype=np.int32),
            played_land=np.full(trials, land_drops == 0, dtype=bool),
            maps=zeros.copy(),
            equipped=zeros.copy(),
            graveyard=np.full(trials, graveyard, dtype=np.int32),
            counters=np.zeros((trials, n_kinds), dtype=np.int32),
            sick_counters=np.zeros((trials, n_kinds), dtype=np.int32),
            explores_before=zeros.copy(),
            turn=int(turn),
            totals={name: zeros.copy() for name in EVENT_METRICS},
        )
        state.recount()
        return state

    def attach(self, members: np.ndarray, groups_of: tuple[tuple[int, ...], ...]) -> None:
        """Count the permanents of the groups of a deck's tables from now on
        (:attr:`~explore_sim.engine.tables.DeckTables.members`); a state is attached once,
        by the game that plays it."""
        if self.members is members:
            return
        self.members, self.groups_of = members, groups_of
        self.permanents = np.zeros((self.trials, members.shape[1]), dtype=np.int16)
        self.recount()

    def recount(self) -> None:
        """:attr:`hand_lands` and :attr:`permanents` from the per-card arrays (after a
        position was set up by hand, and at each untap step)."""
        self.hand_lands[:] = row_sum(self.hand[:, self.is_land > 0])
        for g in range(self.members.shape[1]):
            ids = np.flatnonzero(self.members[:, g])
            self.permanents[:, g] = row_sum(self.battlefield[:, ids])


def kinds_in(ids: ArrayLike) -> list[int]:
    """The distinct values of non-negative integer ``ids`` (card ids, options, levels),
    ascending: ``np.unique(ids).tolist()``, counted rather than sorted."""
    ids = np.asarray(ids).ravel()
    if not ids.size:
        return []
    return np.flatnonzero(np.bincount(ids)).tolist()


def of_rows(array: np.ndarray, rows: np.ndarray, column: int | None = None) -> np.ndarray:
    """``array[rows]`` (or ``array[rows, column]``) for sorted unique ``rows``; a view, not a
    copy, when ``rows`` is every trial. Read it, never write to it. (``np.take`` gathers
    the rows of a table several times faster than indexing does.)"""
    if len(rows) == len(array):
        return array if column is None else array[:, column]
    return np.take(array, rows, axis=0) if column is None else array[rows, column]


def enter(state: GameState, rows: np.ndarray, kind: int) -> None:
    """One permanent ``kind`` enters the battlefield in each of ``rows`` (summoning sick)."""
    state.battlefield[rows, kind] += 1
    state.sick[rows, kind] += 1
    for group in state.groups_of[kind]:
        state.permanents[rows, group] += 1


def to_hand(state: GameState, rows: np.ndarray, card: np.ndarray | int) -> None:
    """Card ``card`` (an id, or ids aligned with ``rows``) is put into each row's hand."""
    state.hand[rows, card] += 1
    state.hand_lands[rows] += state.is_land[card]


def from_hand(state: GameState, rows: np.ndarray, card: np.ndarray | int,
              count: np.ndarray | int = 1) -> None:
    """``count`` copies of ``card`` (ids or counts aligned with ``rows``) leave each row's hand."""
    state.hand[rows, card] -= np.asarray(count, dtype=state.hand.dtype)
    state.hand_lands[rows] -= state.is_land[card] * np.asarray(count, np.int32)


def leave(state: GameState, rows: np.ndarray, kind: int, tapped: bool = False) -> None:
    """One permanent ``kind`` leaves the battlefield in each of ``rows``: a tapped copy where
    ``tapped`` and one is tapped (a land a bounce land returns, a one-shot source sacrificed
    for its mana), else an untapped one where one is; its summoning-sick and tapped counts
    stay within what is left."""
    state.battlefield[rows, kind] -= 1
    if tapped:
        state.tapped[rows, kind] -= (state.tapped[rows, kind] > 0).astype(state.tapped.dtype)
    for group in state.groups_of[kind]:
        state.permanents[rows, group] -= 1
    state.sick[rows, kind] = np.minimum(state.sick[rows, kind], state.battlefield[rows, kind])
    state.tapped[rows, kind] = np.minimum(state.tapped[rows, kind], state.battlefield[rows, kind])


def countered_copy_is_sick(state: GameState, rows: np.ndarray, kind: np.ndarray,
                           just_entered: np.ndarray | bool = False) -> np.ndarray:
    """Whether the copy of ``kind`` (aligned with ``rows``) that an effect puts counters on,
    or that leaves, is a summoning-sick one: the copy that just entered when
    ``just_entered`` and one is sick, else one that is not sick if there is one (the copy
    the removal model removes, :func:`explore_sim.engine.zones.remove`). Shape (rows,), bool."""
    sick = state.sick[rows, kind]
    ready = state.battlefield[rows, kind] - sick
    return (np.asarray(just_entered) & (sick > 0)) | (ready <= 0)


def add_counters(state: GameState, rows: np.ndarray, kind: np.ndarray | int,
                 added: np.ndarray | int, just_entered: np.ndarray | bool = False) -> None:
    """Put ``added`` +1/+1 counters (aligned with ``rows``) on one copy of ``kind`` in each
    row: a summoning-sick copy or not, as :func:`countered_copy_is_sick` says."""
    kind = np.broadcast_to(np.asarray(kind, dtype=np.intp), rows.shape)
    added = np.broadcast_to(np.asarray(added, dtype=np.int32), rows.shape)
    some = added > 0
    rows, kind, added = rows[some], kind[some], added[some]
    if not rows.size:
        return
    on_sick = countered_copy_is_sick(state, rows, kind,
                                     np.broadcast_to(just_entered, some.shape)[some])
    np.add.at(state.sick_counters, (rows[on_sick], kind[on_sick]), added[on_sick])
    np.add.at(state.counters, (rows[~on_sick], kind[~on_sick]), added[~on_sick])


def counters_on_copies(counters: np.ndarray, copies: np.ndarray,
                       chosen: np.ndarray) -> np.ndarray:
    """The counters on ``chosen`` of ``copies`` permanents that carry ``counters`` between
    them (arrays of one shape): all of them when every copy is chosen, else the chosen
    copies' even share, rounded down (exact when the copies carry as many each)."""
    share = np.where(chosen >= copies, counters, counters * chosen // np.maximum(copies, 1))
    return np.where(chosen > 0, share, 0)


def _library_cards(opening: OpeningHands, row: int) -> np.ndarray:
    """The card ids in one trial's library, top first."""
    width = opening.library.shape[1]
    positions = np.arange(opening.top[row], opening.end[row]) % width
    return opening.library[row, positions]
