"""Which spells the mana in play can pay, exactly, vectorised over trials.

Every test reads the mana as :meth:`~explore_sim.engine.paying.ManaTables.unit_sets` (the
units available now, with and without Signet-style filters activated) and answers, for
each row, whether a card can be paid in any of its ways (docs/mana.md). Where the deck has a
lookup table, whole rows of candidate spells are read at once from
:attr:`~explore_sim.engine.tables.CastingOrder.pass_lookup`; otherwise the exact test is
computed pair by pair.
"""

from __future__ import annotations

import numpy as np

from .context import Play
from .metrics import CASTABLE_LANDS_PREFIX, CASTABLE_PREFIX, MAIN_LANDS
from .paying import MAX_TAXED_CASTS
from .rowwise import row_any, row_sum
from .state import GameState, of_rows
from .zones import count, creatures

__all__ = ["castable_columns", "held_spells", "castable_in_hand", "first_castable",
           "castable_pairs", "castable_card", "castable_next_turn", "available_mana",
           "record_main_phase", "land_mana_spent", "castable_target",
           "taxed_casts",
           "commander_payable", "castable_commander"]


def castable_columns(play: Play, unit_sets: list[np.ndarray], table: np.ndarray) -> np.ndarray:
    """Rows of a card lookup (:attr:`CastingOrder.pass_lookup`, ``cast_lookup``) for the mana
    in ``unit_sets``: whether each row can pay each column's card, (rows, columns)."""
    mana = play.mana
    ok = np.take(table, mana.keys(unit_sets[0]), axis=0)
    for units in unit_sets[1:]:
        ok |= np.take(table, mana.keys(units), axis=0)
    return ok


def held_spells(play: Play, state: GameState, rows: np.ndarray) -> np.ndarray:
    """Which of :attr:`CastingOrder.cast_ids` each row holds, (rows, len(cast_ids)), bool."""
    return of_rows(state.hand, rows)[:, play.tables.casting.cast_ids] > 0


def castable_in_hand(play: Play, state: GameState, rows: np.ndarray,
                     unit_sets: list[np.ndarray], held: np.ndarray | None = None) -> np.ndarray:
    """Some spell in hand (one the casting order casts) can be paid with the mana in
    ``unit_sets``; ``held``: :func:`held_spells` of ``rows`` if already known."""
    casting = play.tables.casting
    kinds = casting.cast_ids
    if not kinds.size:
        return np.zeros(len(rows), dtype=bool)
    if held is None:
        held = held_spells(play, state, rows)
    total = row_sum(unit_sets[-1])
    cheap = casting.cheapest[kinds][None, :] <= total[:, None]
    if casting.cast_lookup is None:
        return first_castable(play, unit_sets, held & cheap, kinds) >= 0
    ok = held & cheap & castable_columns(play, unit_sets, casting.cast_lookup)
    if casting.cast_x.size:  # Jadelight Spelunker needs X >= 1
        ok[:, casting.cast_x] &= total[:, None] >= play.tables.cost[kinds[casting.cast_x]] + 1
    return row_any(ok)


def first_castable(play: Play, unit_sets: list[np.ndarray], candidate: np.ndarray,
                   kinds: np.ndarray, x_rule: bool = True) -> np.ndarray:
    """The first column of ``candidate`` (rows, len(kinds)) whose card each row can pay,
    -1 if none; ``candidate`` is cleared where a card cannot be paid. Candidates are checked
    one per row at a time, so a row usually costs one exact test."""
    first = np.full(len(candidate), -1, dtype=np.intp)
    pending = np.flatnonzero(row_any(candidate))
    while pending.size:
        j = np.argmax(candidate[pending], axis=1)
        ok = castable_pairs(play, unit_sets, pending, kinds[j], x_rule)
        first[pending[ok]] = j[ok]
        failed, j = pending[~ok], j[~ok]
        candidate[failed, j] = False
        pending = failed[row_any(candidate[failed])]
    return first


def castable_pairs(play: Play, unit_sets: list[np.ndarray], r: np.ndarray, k: np.ndarray,
                   x_rule: bool = True) -> np.ndarray:
    """Whether row ``r`` of the mana in ``unit_sets`` can pay card ``k`` in any of its ways,
    for each pair; with ``x_rule`` Jadelight Spelunker needs X >= 1. ``r`` and ``k`` have
    shape (pairs,)."""
    ok = np.zeros(len(r), dtype=bool)
    if not len(r):
        return ok
    mana, casting = play.mana, play.tables.casting
    mode = casting.first_mode[k]
    for units in unit_sets:
        ok |= mana.payable_rows(units, r, mode)
        for kind in casting.multi_mode_ids.tolist():
            here = np.flatnonzero((k == kind) & ~ok)
            for other in casting.kind_modes[kind][1:]:
                ok[here] |= mana.payable(units[r[here]], other)
    x_ids = play.tables.x_ids
    if x_rule and x_ids.size:
        spelunker = np.isin(k, x_ids)
        ok[spelunker] &= row_sum(unit_sets[-1][r[spelunker]]) >= play.tables.cost[k[spelunker]] + 1
    return ok


def castable_card(play: Play, card: np.ndarray, unit_sets: list[np.ndarray]) -> np.ndarray:
    """Whether the mana in ``unit_sets`` can pay each row's ``card`` (an id per row) in any of
    its ways; False for lands and no card."""
    f, mana, casting = play.tables.features, play.mana, play.tables.casting
    ok = np.zeros(len(card), dtype=bool)
    spell = np.flatnonzero(f.is_nonland[card] & f.is_card[card])
    if not spell.size:
        return ok
    kinds = card[spell]
    for units in unit_sets:
        ok[spell] |= mana.payable(units[spell], casting.first_mode[kinds])
        for kind in np.intersect1d(kinds, casting.multi_mode_ids).tolist():
            here = spell[kinds == kind]
            for mode in casting.kind_modes[kind][1:]:
                ok[here] |= mana.payable(units[here], mode)
    return ok


def castable_next_turn(play: Play, state: GameState, rows: np.ndarray,
                       card: np.ndarray) -> np.ndarray:
    """Whether every source you control, untapped, plus one land from your hand (the best for
    the purpose) could pay each row's ``card``."""
    mana, options = play.mana, play.tables.lands
    ids = mana.source_ids
    plain = np.where(mana.source_cost > 0, 0,
                     of_rows(state.battlefield, rows)[:, ids].astype(np.int32))
    units = plain @ mana.source_units
    ok = castable_card(play, card, [units])
    for o in range(len(options.card)):
        held = (state.hand[rows, options.card[o]] > 0) & ~ok
        if held.any():
            here = np.flatnonzero(held)
            ok[here] = castable_card(play, card[here], [units[here] + options.units[o]])
    return ok


def available_mana(play: Play, state: GameState, rows: np.ndarray | None = None) -> np.ndarray:
    """Mana the untapped sources and the pool can make now, shape (rows,), int32
    (Signet-style filters counted as activated)."""
    rows = np.arange(state.trials) if rows is None else rows
    return row_sum(play.mana.units(state, rows, filters=True)).astype(np.int32)


def land_mana_spent(play: Play, state: GameState, rows: np.ndarray,
                    unit_sets: list[np.ndarray], units: np.ndarray) -> np.ndarray:
    """Whether the mana of a land entering untapped with ``units`` (n_classes,) can be spent
    this turn, shape (rows,): with it, the mana available (``unit_sets`` plus ``units``)
    pays a wanted card (a spell in hand the casting order casts now: not a second legendary
    permanent, nor a spell waiting for a creature; a commander in the command zone with its
    tax; a card named by ``castable``) that ``unit_sets`` cannot pay, or an X
    spell (Jadelight Spelunker takes the mana left), or some wanted cards (each copy) for
    exactly all of it.

    Each card counts at the mana value of its cheapest way the mana pays; colours are
    checked card by card, not for the cards together. Sums are sets of bits (bit ``n``: some
    cards cost ``n`` together), so mana beyond 62 counts as spent whenever a card is paid.
    A land that asks for life to enter untapped pays it only then (docs/mana.md)."""
    mana, t = play.mana, play.tables
    more = [u + units for u in unit_sets]
    target = row_sum(more[-1]).astype(np.int64)
    sums = np.ones(len(rows), dtype=np.int64)  # bit 0: no card, no mana
    spent = np.zeros(len(rows), dtype=bool)  # an X spell, or mana beyond the bits

    def add(cost: np.ndarray, copies: np.ndarray) -> None:
        nonlocal sums
        for copy in range(int(copies.max(initial=0))):
            sums = np.where(copies > copy, sums | (sums << cost), sums)

    def cheapest_paid(here: np.ndarray, modes: list[np.ndarray]) -> np.ndarray:
        """The least mana value among ``modes`` (each one mode per row of ``here``) that
        the mana with the land pays in each row of ``here``, -1 where none; where the mana
        without it pays none, the card needs the land: ``spent``."""
        cost = np.full(len(here), -1, dtype=np.int64)
        sets, before = [m[here] for m in more], [u[here] for u in unit_sets]
        paid_before = np.zeros(len(here), dtype=bool)
        for mode in modes:
            ok = mana.payable_any(sets, mode)
            value = mana.total[mode]
            cost = np.where(ok & ((cost < 0) | (value < cost)), value, cost)
            paid_before |= mana.payable_any(before, mode)
        spent[here] |= (cost >= 0) & ~paid_before  # paid only with the land
        return cost

    no_creature = (creatures(play, state, rows) == 0 if mana.targeting_ids.size
                   else np.zeros(len(rows), dtype=bool))
    wanted = mana.wanted_copies(of_rows(state.hand, rows), of_rows(state.battlefield, rows),
                                no_creature)  # the legend rule; spells waiting for a creature
    for kind in t.casting.cast_ids.tolist():
        copies = wanted[:, kind].astype(np.int64)
        if kind in t.x_ids:  # X >= 1 takes the mana left
            here = np.flatnonzero((copies > 0) & (target >= t.cost[kind] + 1))
            spent[here] |= cheapest_paid(here, [np.full(len(here), m)
                                                for m in t.casting.kind_modes[kind]]) >= 0
            continue
        here = np.flatnonzero(copies > 0)
        if not here.size:
            continue
        cost = cheapest_paid(here, [np.full(len(here), m)
                                    for m in t.casting.kind_modes[kind]])
        add_here = np.zeros(len(rows), dtype=np.int64)
        add_here[here] = np.where(cost >= 0, copies[here], 0)
        full_cost = np.zeros(len(rows), dtype=np.int64)
        full_cost[here] = np.maximum(cost, 0)
        add(full_cost, add_here)
    for kind in t.commander_ids.tolist():  # {2} of tax per earlier cast (CR 903.8)
        here = np.flatnonzero(state.command[rows, kind] > 0)
        tax = taxed_casts(state, rows[here], kind)
        table = mana.taxed_modes[kind]
        cost = cheapest_paid(here, [np.array([m[option] for m in table])[tax]
                                    for option in range(len(table[0]))])
        one, full_cost = np.zeros(len(rows), dtype=np.int64), np.zeros(len(rows), np.int64)
        one[here], full_cost[here] = cost >= 0, np.maximum(cost, 0)
        add(full_cost, one)
    everyone = np.arange(len(rows))
    for modes in t.castable_card_modes:  # counted as held, one copy
        cost = cheapest_paid(everyone, [np.full(len(rows), m) for m in modes])
        add(np.maximum(cost, 0), (cost >= 0).astype(np.int64))
    beyond = target > 62
    spent |= beyond & (sums > 1)
    bit = (sums >> np.minimum(target, 62)) & 1
    return spent | (~beyond & (bit == 1))


def taxed_casts(state: GameState, rows: np.ndarray, kind: int) -> np.ndarray:
    """Earlier casts of commander ``kind`` from the command zone (capped at the tax levels
    registered), shape (rows,), intp."""
    return np.minimum(state.command_casts[rows, kind], MAX_TAXED_CASTS).astype(np.intp)


def commander_payable(play: Play, state: GameState, rows: np.ndarray,
                      unit_sets: list[np.ndarray], kind: int) -> tuple[np.ndarray, np.ndarray]:
    """Where commander ``kind`` is in the command zone, whether the mana in ``unit_sets``
    (aligned with ``rows``) pays it with its tax (CR 903.8): the positions in ``rows`` where
    it is there, and for each of them whether it can be paid."""
    mana = play.mana
    here = np.flatnonzero(state.command[rows, kind] > 0)
    tax = taxed_casts(state, rows[here], kind)
    modes = mana.taxed_modes[kind]
    ok = np.zeros(len(here), dtype=bool)
    for option in range(len(modes[0])):
        ok |= mana.payable_any([u[here] for u in unit_sets],
                               np.array([m[option] for m in modes])[tax])
    return here, ok


def castable_commander(play: Play, state: GameState, rows: np.ndarray,
                       unit_sets: list[np.ndarray]) -> np.ndarray:
    """Some commander in the command zone can be paid, with its tax, with the mana in
    ``unit_sets``, shape (rows,)."""
    ok = np.zeros(len(rows), dtype=bool)
    for kind in play.tables.commander_ids.tolist():
        here, payable = commander_payable(play, state, rows, unit_sets, kind)
        ok[here[payable]] = True
    return ok


def castable_target(play: Play, unit_sets: list[np.ndarray]) -> np.ndarray:
    """Some card named by ``castable`` can be paid with the mana in ``unit_sets`` (the test
    of ``castable:CARD``), shape (rows,)."""
    ok = np.zeros(len(unit_sets[0]), dtype=bool)
    for modes in play.tables.castable_card_modes:
        for mode in modes:
            ok |= play.mana.payable_any(unit_sets, mode)
    return ok


def record_main_phase(play: Play, state: GameState) -> None:
    """Take ``mana_available``, ``colour_screwed`` and ``castable:CARD`` for this turn (with
    ``castable_lands``, ``main_lands`` and ``castable_lands:CARD`` too)."""
    mana, casting = play.mana, play.tables.casting
    everyone = np.arange(state.trials)
    unit_sets = mana.unit_sets(state, everyone)
    total = row_sum(unit_sets[-1])
    kinds = casting.cast_ids
    held = state.hand[:, kinds] > 0
    affordable = held & (casting.cheapest[kinds][None, :] <= total[:, None])
    if casting.cast_lookup is None:
        r, j = np.nonzero(affordable)
        screwed = np.zeros(state.trials, dtype=bool)
        screwed[r[~castable_pairs(play, unit_sets, r, kinds[j], x_rule=False)]] = True
    else:
        screwed = row_any(affordable & ~castable_columns(play, unit_sets, casting.cast_lookup))
    state.main_phase["mana_available"] = total.astype(np.int32)
    state.main_phase["colour_screwed"] = screwed.astype(np.int32)
    lands = count(play, state, "land", everyone) if play.config.castable_lands else None
    if lands is not None:
        state.main_phase[MAIN_LANDS] = lands.astype(np.int32)
    for card, modes in zip(play.tables.castable_cards, play.tables.castable_card_modes):
        ok = np.zeros(state.trials, dtype=bool)
        for mode in modes:
            ok |= mana.payable_any(unit_sets, mode)
        state.main_phase[CASTABLE_PREFIX + card.name] = ok.astype(np.int32)
        if lands is not None:  # the joint of castable:CARD and the lands in play
            state.main_phase[CASTABLE_LANDS_PREFIX + card.name] = np.where(
                ok, lands, 0).astype(np.int32)
