"""Casting spells in a goldfish game: the casting pass, paying, and resolving.

Each pass, every trial casts at most one spell: the castable one of highest priority
(:class:`~explore_sim.engine.tables.CastingOrder`), commanders from the command zone with
their tax (CR 903.8). Paying follows the documented payment rule of
:mod:`explore_sim.engine.paying`. A permanent spell enters the battlefield
(:func:`explore_sim.engine.zones.enters`); an instant or sorcery resolves through the ability
registry's ``"resolve"`` step and goes to the graveyard.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from .castability import castable_columns, castable_pairs, commander_payable, taxed_casts
from .context import Play
from .rowwise import row_any, row_sum
from .state import GameState, from_hand, kinds_in, of_rows
from .zones import creatures, enters

__all__ = ["cast_pass", "pay", "cast", "ResolveEvent"]


def cast_pass(play: Play, state: GameState, rows: np.ndarray) -> np.ndarray:
    """Each of ``rows`` casts at most one spell, the castable one of highest priority."""
    mana, casting, t = play.mana, play.tables.casting, play.tables
    unit_sets = mana.unit_sets(state, rows)
    available = row_sum(unit_sets[-1])[:, None]
    # Candidates: the spells in hand the order casts that the mana can pay (checked exactly
    # by the lookup where the deck has one, else for enough mana, colours aside), one column
    # per :attr:`CastingOrder.pass_ids`, in casting order.
    cols = casting.pass_ids
    candidate = of_rows(state.hand, rows)[:, cols] > 0
    if casting.pass_lookup is not None:
        candidate &= castable_columns(play, unit_sets, casting.pass_lookup)
    else:
        candidate &= casting.cheapest[cols] <= available
    for j, kind in casting.pass_commanders:  # from the command zone, with its tax
        here, ok = commander_payable(play, state, rows, unit_sets, kind)
        candidate[:, j] = False
        candidate[here[ok], j] = True
    if casting.pass_x.size:  # Jadelight Spelunker wants X >= 1
        candidate[:, casting.pass_x] &= available >= t.cost[cols[casting.pass_x]] + 1
    if casting.pass_targeted.size:  # a spell that targets a creature you control needs one
        candidate[:, casting.pass_targeted] &= (creatures(play, state, rows) > 0)[:, None]
    if casting.pass_legendary.size:  # the legend rule (CR 704.5j): never a second one in play
        legendary = cols[casting.pass_legendary]
        candidate[:, casting.pass_legendary] &= of_rows(state.battlefield, rows)[:, legendary] == 0
    draws = t.features.draws[cols]
    digging = np.zeros(len(rows), dtype=bool)
    if draws.any():  # no card draw past the library's last card: a draw from an empty one loses
        candidate &= draws[None, :] <= (state.end[rows] - state.top[rows])[:, None]
        digger, digging = _dig(play, state, rows, unit_sets, candidate, draws)
        candidate[digging] = False  # those rows cast the card that digs
    # Colours: where the deck has a lookup table every candidate is payable, and each row
    # casts its first (commanders were checked above).
    best, casting_rows = _first_payable(play, unit_sets, candidate)
    if not (casting_rows | digging).any():
        return casting_rows
    if casting.pass_payoff.size:
        _payoff_or_next(play, unit_sets, candidate, available[:, 0], best, casting_rows)
    if digging.any():
        best[digging] = digger[digging]
        casting_rows |= digging
    for kind in kinds_in(best[casting_rows]):
        cast(play, state, rows[casting_rows & (best == kind)], kind)
    return casting_rows


def _first_payable(play: Play, unit_sets: list[np.ndarray], candidate: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The card id of each row's first payable candidate, and whether there is one, each
    (rows,): the first candidate where the lookup table made them exact, else checked."""
    if play.tables.casting.pass_lookup is None:
        return _best_payable(play, unit_sets, candidate.copy())
    found = row_any(candidate)
    if not found.any():  # (and a deck without spells has no column to look at)
        return np.zeros(len(candidate), dtype=np.intp), found
    return play.tables.casting.pass_ids[np.argmax(candidate, axis=1)], found


def _dig(play: Play, state: GameState, rows: np.ndarray, unit_sets: list[np.ndarray],
         candidate: np.ndarray, draws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where no land card is in hand and a land drop is left, the first payable candidate that
    draws digs for the turn's land: its card id and whether there is one, each (rows,).
    ``draws``: the cards each column draws."""
    best = np.zeros(len(rows), dtype=np.intp)
    found = np.zeros(len(rows), dtype=bool)
    here = np.flatnonzero((state.hand_lands[rows] == 0) & (state.land_drops[rows] > 0))
    if here.size:
        kind, ok = _first_payable(play, [units[here] for units in unit_sets],
                                  candidate[here] & (draws > 0)[None, :])
        best[here[ok]], found[here[ok]] = kind[ok], True
    return best, found


def _payoff_or_next(play: Play, unit_sets: list[np.ndarray], candidate: np.ndarray,
                    available: np.ndarray, best: np.ndarray, casting_rows: np.ndarray) -> None:
    """Where a row's first payable candidate (``best``, changed) is an explore payoff and the
    first payable candidate that is not one would come before it without the payoffs'
    group (:attr:`~.tables.CastingOrder.base_rank`), the payoff stays the choice only if the
    mana, colours aside, pays both (it then counts that spell's explores); else that spell
    is cast. ``available``: each row's mana, (rows,)."""
    casting = play.tables.casting
    payoff = np.zeros(len(casting.pass_ids), dtype=bool)
    payoff[casting.pass_payoff] = True
    first = casting_rows & np.isin(best, casting.pass_ids[payoff])
    if not first.any():
        return
    rows = np.flatnonzero(first)
    other, has_other = _first_payable(play, [units[rows] for units in unit_sets],
                                      candidate[rows] & ~payoff)
    both = available[rows] >= casting.cheapest[best[rows]] + casting.cheapest[other]
    before = casting.base_rank[other] < casting.base_rank[best[rows]]
    switch = has_other & before & ~both
    best[rows[switch]] = other[switch]


def _best_payable(play: Play, unit_sets: list[np.ndarray], candidate: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Without a lookup table: the first candidate of each row is checked exactly
    (commanders already were); where it cannot be paid, the next, and so on.
    Returns the card id chosen and whether there is one, each (rows,)."""
    cols = play.tables.casting.pass_ids
    commander_ids = play.tables.commander_ids
    best = np.zeros(len(candidate), dtype=np.intp)
    casting = np.zeros(len(candidate), dtype=bool)
    pending = np.flatnonzero(row_any(candidate))
    while pending.size:
        j = np.argmax(candidate[pending], axis=1)
        k = cols[j]
        ok = np.ones(len(pending), dtype=bool)
        exact = ~np.isin(k, commander_ids)
        ok[exact] = castable_pairs(play, unit_sets, pending[exact], k[exact], x_rule=False)
        casting[pending[ok]] = True
        best[pending[ok]] = k[ok]
        failed = pending[~ok]
        candidate[failed, j[~ok]] = False
        pending = failed[row_any(candidate[failed])]
    return best, casting


def pay(play: Play, state: GameState, rows: np.ndarray, modes: Sequence[int],
        take_all: bool = False, unavailable: tuple[int, int] | None = None) -> np.ndarray:
    """Pay the first payable of ``modes`` in each row (every row can pay one), record mana
    spent and life paid; returns X (the mana left taken by an X spell, else 0)."""
    mana = play.mana
    x = np.zeros(len(rows), dtype=np.int32)
    left = np.ones(len(rows), dtype=bool)
    for mode in modes:
        if not left.any():
            break
        if len(modes) > 1:
            unit_sets = mana.unit_sets(state, rows[left])
            here = np.flatnonzero(left)[mana.payable_any(unit_sets, mode)]
        else:
            here = np.flatnonzero(left)
        if not here.size:
            continue
        payment = mana.pay(state, rows[here], mode, take_all, unavailable)
        state.totals["mana_spent"][rows[here]] += row_sum(payment.used)
        state.totals["life_paid"][rows[here]] += payment.life
        x[here] = payment.x
        left[here] = False
    return x


def cast(play: Play, state: GameState, rows: np.ndarray, kind: int) -> None:
    """Cast card ``kind`` in each of ``rows`` (from the command zone for a commander, with
    {2} of tax per earlier cast from there, CR 903.8) and resolve it."""
    t = play.tables
    takes_x = kind in t.x_ids  # Jadelight Spelunker: X takes all the mana left
    totals = state.totals
    before = totals["mana_spent"][rows] - totals["commander_tax_paid"][rows]
    if kind in t.commander_ids:
        casts = taxed_casts(state, rows, kind)
        x = np.zeros(len(rows), dtype=np.int32)
        for level in kinds_in(casts):
            here = casts == level
            x[here] = pay(play, state, rows[here], play.mana.taxed_modes[kind][level],
                          take_all=takes_x)
        state.totals["commander_tax_paid"][rows] += 2 * state.command_casts[rows, kind]
        state.totals["commander_cast"][rows] += 1
        state.command_casts[rows, kind] += 1
        state.command[rows, kind] -= 1
    else:
        x = pay(play, state, rows, t.casting.kind_modes[kind], take_all=takes_x)
        from_hand(state, rows, kind)
    totals["spell_mana"][rows] += totals["mana_spent"][rows] - totals["commander_tax_paid"][rows] \
        - before  # what the spell cost, its commander tax aside
    state.totals["cards_cast"][rows] += 1
    if t.features.is_permanent[kind]:
        enters(play, state, rows, kind, x if takes_x else None)
        return
    play.run("resolve", state, ResolveEvent(rows, kind, np.ones(len(rows), dtype=bool)))
    state.graveyard[rows] += 1


@dataclasses.dataclass(eq=False)
class ResolveEvent:
    """An instant or sorcery of one kind resolving in some trials, as the registry's
    ``"resolve"`` handlers see it.

    Attributes
    ----------
    rows : ndarray of intp
    kind : int
    resolved : ndarray of bool aligned with rows
        False where it did nothing at all (its only target was gone, E9); handlers
        update it.
    """

    rows: np.ndarray
    kind: int
    resolved: np.ndarray
