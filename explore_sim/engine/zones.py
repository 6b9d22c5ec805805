"""Cards moving between zones in a goldfish game, vectorised over trials.

Counting permanents, drawing and peeking at the library, permanents entering (with their
enter triggers, through the registry's ``"enter"`` step), leaving, being sacrificed or
removed, Map tokens being created, and what the library and the lands in play hold. Every
function acts on ``rows``, the trials concerned (sorted unique indices), and takes the
game's :class:`~explore_sim.engine.context.Play` first.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..cards import EMPTY
from .context import Play
from .rowwise import row_any, row_bitwise_or
from .state import (
    GameState,
    countered_copy_is_sick,
    counters_on_copies,
    enter,
    kinds_in,
    leave,
    of_rows,
    to_hand,
)

__all__ = ["count", "creatures", "pick_creature", "peek", "draw", "remove", "sacrifice",
           "take_counters", "enters", "EnterEvent", "create_maps", "basics_in_library",
           "kinds_in_library", "land_types"]


def count(play: Play, state: GameState, group: str, rows: np.ndarray) -> np.ndarray:
    """Permanents of one of :attr:`DeckTables.groups` in each of ``rows``, shape
    (len(rows),), int32."""
    return of_rows(state.permanents, rows, play.tables.group(group)).astype(np.int32)


def creatures(play: Play, state: GameState, rows: np.ndarray) -> np.ndarray:
    """Creatures you control in each of ``rows``, (rows,), int32."""
    return count(play, state, "creature", rows)


def pick_creature(play: Play, state: GameState, rows: np.ndarray,
                  prefer_sick: bool = False) -> np.ndarray:
    """A creature you control in each of ``rows`` (its card id), ``EMPTY`` if none.

    Targets of Maps and spells are picked this way: the first creature kind by id (by name)
    of those that attack (a creature with a mana ability stays back, and counters on it deal
    no damage), else the first; to crew, a summoning-sick one first (``prefer_sick``).
    """
    f = play.tables.features
    present = (of_rows(state.battlefield, rows) > 0) & f.is_creature
    if prefer_sick:
        sick = present & (of_rows(state.sick, rows) > 0)
        present = np.where(row_any(sick)[:, None], sick, present)
    else:
        attackers = present & ~f.is_source
        present = np.where(row_any(attackers)[:, None], attackers, present)
    choice = np.argmax(present, axis=1)
    return np.where(row_any(present), choice, EMPTY).astype(np.intp)


def peek(play: Play, state: GameState, rows: np.ndarray) -> np.ndarray:
    """Top card of each library in ``rows``, ``EMPTY`` where it is empty."""
    top = state.top[rows]
    width = state.library.shape[1]
    card = np.take(state.library.reshape(-1), rows * width + top % width)  # [rows, top]
    return np.where(top < state.end[rows], card, EMPTY).astype(np.intp)


def draw(play: Play, state: GameState, rows: np.ndarray) -> None:
    """Each of ``rows`` draws a card; drawing from an empty library is recorded (``decked``)."""
    card = peek(play, state, rows)
    ok = card != EMPTY
    drawn = rows[ok]
    f = play.tables.features
    to_hand(state, drawn, card[ok])
    state.top[drawn] += 1
    state.library_lands[drawn] -= f.is_land[card[ok]]
    state.library_pips[drawn] -= f.pips[card[ok]]
    state.totals["cards_drawn"][drawn] += 1
    state.totals["decked"][rows[~ok]] = 1


def remove(play: Play, state: GameState, rows: np.ndarray, card: np.ndarray,
           just_entered: np.ndarray | bool = False) -> None:
    """Permanent ``card`` (aligned with rows) leaves the battlefield (the removal model).

    ``just_entered`` (aligned with rows): the removed copy is the one that entered this
    turn (an enter trigger's explorer), so an older copy stays free of summoning sickness
    (CR 302.6). A removed commander goes back to the command zone (CR 903.9).
    """
    there = (card != EMPTY) & (state.battlefield[rows, card] > 0)
    rows, card = rows[there], card[there]
    entered = np.broadcast_to(just_entered, there.shape)[there]
    for kind in kinds_in(card):
        is_kind = card == kind
        here, new = rows[is_kind], entered[is_kind]
        take_counters(state, here, kind, new)
        with play.mana.track(state, here, kind):
            sick = here[new & (state.sick[here, kind] > 0)]
            state.sick[sick, kind] -= 1
            leave(state, here, kind)
        if kind in play.tables.commander_ids:
            state.command[here, kind] += 1
        else:
            state.graveyard[here] += 1


def take_counters(state: GameState, rows: np.ndarray, kind: int,
                  just_entered: np.ndarray | bool = False) -> None:
    """The copy of ``kind`` about to leave in each of ``rows`` takes its +1/+1 counters with
    it: a summoning-sick copy or not, as :func:`~explore_sim.engine.state.countered_copy_is_sick`
    says, carrying its even share of its part's counters (docs/guide/damage.md)."""
    sick = state.sick[rows, kind].astype(np.int32)
    ready = state.battlefield[rows, kind] - sick
    on_sick = countered_copy_is_sick(state, rows, np.full(rows.shape, kind), just_entered)
    one = np.ones(rows.shape, dtype=np.int32)
    state.sick_counters[rows, kind] -= np.where(
        on_sick, counters_on_copies(state.sick_counters[rows, kind], sick, one), 0)
    state.counters[rows, kind] -= np.where(
        on_sick, 0, counters_on_copies(state.counters[rows, kind], ready, one))


def sacrifice(play: Play, state: GameState, rows: np.ndarray, card: np.ndarray | int) -> None:
    """One permanent ``card`` (aligned with rows) goes from the battlefield to the
    graveyard; its summoning-sick and tapped counts stay within what is left."""
    card = np.broadcast_to(np.asarray(card, dtype=np.intp), rows.shape)
    for kind in kinds_in(card):
        here = rows[card == kind]
        with play.mana.track(state, here, kind):
            leave(state, here, kind)
    state.graveyard[rows] += 1


@dataclasses.dataclass(eq=False)
class EnterEvent:
    """A permanent of one kind entering the battlefield in some trials, as the registry's
    ``"enter"`` handlers see it.

    Attributes
    ----------
    rows : ndarray of intp
        The trials where it enters.
    kind : int
        Its card id.
    x : ndarray aligned with rows, or None
        X of an X spell (Jadelight Spelunker's explores).
    alive : ndarray of bool aligned with rows
        This very permanent is still on the battlefield (an enter trigger may have removed
        it); handlers update it.
    """

    rows: np.ndarray
    kind: int
    x: np.ndarray | None
    alive: np.ndarray


def enters(play: Play, state: GameState, rows: np.ndarray, card: np.ndarray | int,
           x: np.ndarray | None = None, tapped: np.ndarray | None = None) -> None:
    """Permanent ``card`` (aligned with rows) enters the battlefield, tapped where ``tapped``
    (aligned with rows) says; then, kind by kind, its enter triggers (the ``"enter"`` step
    of the ability registry)."""
    kinds = kinds_in(card) if np.ndim(card) else [int(card)] if len(rows) else []
    card = np.broadcast_to(np.asarray(card, dtype=np.intp), rows.shape)
    for kind in kinds:
        is_kind = card == kind
        here = rows[is_kind]
        with play.mana.track(state, here, kind):
            enter(state, here, kind)
            if tapped is not None:
                state.tapped[here[tapped[is_kind]], kind] += 1
    for kind in kinds:
        here = card == kind
        entering = rows[here]
        event = EnterEvent(entering, kind, x[here] if x is not None else None,
                           np.ones(len(entering), dtype=bool))
        play.run("enter", state, event)


def create_maps(play: Play, state: GameState, rows: np.ndarray,
                count_made: np.ndarray | int) -> None:
    """Create ``count_made`` Maps in each of ``rows``; each Worldwalker Helm adds one per
    creation (M6)."""
    count_made = np.broadcast_to(np.asarray(count_made, dtype=np.int32), rows.shape)
    making = count_made > 0
    rows, count_made = rows[making], count_made[making]
    created = count_made + count(play, state, "helm", rows)
    state.maps[rows] += created
    state.totals["maps_created"][rows] += created


def basics_in_library(play: Play, state: GameState, rows: np.ndarray) -> np.ndarray:
    """Copies of each basic land kind (:attr:`DeckTables.basic_ids`) left in each library,
    shape (rows, n_basic_kinds)."""
    return kinds_in_library(state, rows, play.tables.basic_ids)


def kinds_in_library(state: GameState, rows: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """Copies of each card of ``kinds`` left in each library, shape (rows, len(kinds))."""
    if not kinds.size:
        return np.zeros((len(rows), 0), dtype=np.int32)
    width = state.library.shape[1]
    offsets = np.arange(width)
    positions = (state.top[rows][:, None] + offsets[None, :]) % width
    cards = state.library[rows[:, None], positions]
    live = offsets[None, :] < (state.end[rows] - state.top[rows])[:, None]
    return np.stack([((cards == kind) & live).sum(axis=1) for kind in kinds],
                    axis=1).astype(np.int32)


def land_types(play: Play, state: GameState, rows: np.ndarray) -> np.ndarray:
    """Basic land types among the lands you control, (rows,) colour-bit masks."""
    land_ids = play.tables.land_ids
    types = play.tables.features.basic_types[land_ids].astype(np.int64)
    present = of_rows(state.battlefield, rows)[:, land_ids] > 0
    return row_bitwise_or(np.where(present, types, 0)) if rows.size else \
        np.zeros(0, dtype=np.int64)


def return_to_hand(play: Play, state: GameState, rows: np.ndarray, kind: int,
                   tapped: bool = False) -> None:
    """Permanent ``kind`` returns to its owner's hand (a land face returns as its card): a
    tapped copy where ``tapped`` and one is tapped (:func:`~.state.leave`)."""
    with play.mana.track(state, rows, kind):
        leave(state, rows, kind, tapped)
    card = int(play.tables.features.face_of[kind]) or kind
    to_hand(state, rows, card)
