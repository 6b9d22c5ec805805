"""Castability (docs/mana.md) and the policies' bytecode over the observation (docs: keep or mill).

Part of the compiled game (:mod:`explore_sim.engine.kernel`); every function reads the
packed deck tables ``K`` and changes the game state ``S``.
"""

from __future__ import annotations

import numpy as np

from .bits import is_member, next_common
from .codes import (
    MAX_TAXED_CASTS,
    NO,
    NONE,
    ONE,
    YES,
    ZERO,
)
from .layout import (
    CardCol,
    CommanderCol,
    Dim,
    Event,
    Field,
    Group,
    IdSet,
    KeyRow,
    ModeCol,
    Op,
    OptionCol,
    SetRow,
    Slot,
    Trace,
    UnitRow,
    Work,
    Zone,
)
from .mana import castable_key, keyed, paid_row, payable_any, total_of, unit_sets
from .records import compiled
from .trace import note
from .zones import at, count, group_id, peek, wanted_copies


@compiled
def castable_kind(K, plain, filtered, n_sets, kind, x_rule):
    """Whether the mana can pay card ``kind`` in any of its ways (Jadelight Spelunker, with
    ``x_rule``, needs X >= 1)."""
    for i in range(K.card[kind, CardCol.N_CARD_MODES]):
        if payable_any(K, plain, filtered, n_sets, K.card_modes[kind, i]):
            if x_rule and K.card[kind, CardCol.IS_X]:
                last = filtered if n_sets > 1 else plain
                return total_of(K, last) >= K.card[kind, CardCol.COST] + 1
            return True
    return False


@compiled
def castable_card(K, card, plain, filtered, n_sets):
    if not (K.card[card, CardCol.IS_NONLAND] and K.card[card, CardCol.IS_CARD]):
        return False
    return castable_kind(K, plain, filtered, n_sets, card, NO)


@compiled
def castable_in_hand(K, S, plain, filtered, n_sets):
    """Some spell in hand that the casting order casts can be paid."""
    last = filtered if n_sets > 1 else plain
    total = total_of(K, last)
    held, cast = S.sets[SetRow.HELD_IDS], K.id_sets[IdSet.CAST_IDS]
    fast = keyed(K)  # the spells the mana pays, read from a row of castability bits
    paid = (paid_row(K, KeyRow.KINDS, plain, filtered, n_sets, S.sets[SetRow.PAID_HAND]) if fast
            else S.sets[SetRow.PAID_HAND])
    kind = next_common(held, cast, 1)
    while kind >= 0:
        # At most the mana there is (with filters: all of them activated), then paid.
        if K.card[kind, CardCol.CHEAPEST] <= total:
            if fast:
                if is_member(paid, kind) and (not K.card[kind, CardCol.IS_X]
                                              or total >= K.card[kind, CardCol.COST] + 1):
                    return True
            elif castable_kind(K, plain, filtered, n_sets, kind, YES):
                return True
        kind = next_common(held, cast, kind + 1)
    return False


@compiled
def castable_target(K, plain, filtered, n_sets):
    """Some card named by castable can be paid (the test of ``castable:CARD``)."""
    if keyed(K):  # a row of bits per set of units, set for the cards it pays
        for w in K.castable_by_key[KeyRow.WATCHED, castable_key(K, plain)]:
            if w:
                return True
        if n_sets > 1:
            for w in K.castable_by_key[KeyRow.WATCHED, castable_key(K, filtered)]:
                if w:
                    return True
        return False
    for j in range(K.dims[Dim.N_CASTABLE]):
        for i in range(K.castable_modes[j, 0]):
            if payable_any(K, plain, filtered, n_sets, K.castable_modes[j, 1 + i]):
                return True
    return False


@compiled
def commander_payable(K, S, slot, plain, filtered, n_sets):
    """The commander of ``slot`` is in the command zone and the mana pays it with {2} of tax
    per earlier cast from there (CR 903.8)."""
    kind = group_id(K, Group.COMMANDER_IDS, slot)
    if S.zones[Zone.COMMAND, kind] <= 0:
        return False
    level = min(S.zones[Zone.CASTS, kind], MAX_TAXED_CASTS)
    for option in range(K.commanders[slot, CommanderCol.N_TAXED]):
        if payable_any(K, plain, filtered, n_sets, K.taxed[slot, level, option]):
            return True
    return False


@compiled
def castable_commander(K, S, plain, filtered, n_sets):
    """Some commander in the command zone can be paid, with its tax."""
    for slot in range(K.dims[Dim.N_COMMANDERS]):
        if commander_payable(K, S, slot, plain, filtered, n_sets):
            return True
    return False


@compiled
def may_use_mana(K, S, total):
    """:func:`land_mana_spent`'s quick test before its exact one: a spell in hand the casting
    order casts, a commander in the command zone (with its tax), or a card named by castable
    (held or not) costs no more than ``total`` plus one (colours aside); when none does, no
    mana of a land can be spent."""
    if K.dims[Dim.CASTABLE_CHEAPEST] <= total + 1:
        return True
    for slot in range(K.dims[Dim.N_COMMANDERS]):
        kind = group_id(K, Group.COMMANDER_IDS, slot)
        if S.zones[Zone.COMMAND, kind] > 0 and (K.card[kind, CardCol.CHEAPEST]
                                           + 2 * min(S.zones[Zone.CASTS, kind], MAX_TAXED_CASTS)
                                           <= total + 1):
            return True
    held, cast = S.sets[SetRow.HELD_IDS], K.id_sets[IdSet.CAST_IDS]  # not a spell held for a target
    kind = next_common(held, cast, 1)
    while kind >= 0:
        if K.card[kind, CardCol.CHEAPEST] <= total + 1:
            return True
        kind = next_common(held, cast, kind + 1)
    return False


@compiled
def cheapest_paid(K, plain, filtered, n_sets, modes, n_modes):
    """The least mana value among the first ``n_modes`` of ``modes`` that the mana pays,
    -1 if none."""
    cost = -1
    for i in range(n_modes):
        mode = modes[i]
        if payable_any(K, plain, filtered, n_sets, mode):
            value = K.modes[mode, ModeCol.TOTAL]
            if cost < 0 or value < cost:
                cost = value
    return cost


@compiled
def with_sums(sums, cost, copies):
    """``sums`` (bit n: some cards cost n together) with ``copies`` cards costing ``cost``."""
    for _ in range(copies):
        sums |= sums << cost
    return sums


@compiled
def land_mana_spent(K, S, plain, filtered, n_sets, units):
    """Whether the mana of a land entering untapped with ``units`` can be spent this turn:
    with it, the mana available pays a wanted card (a spell in hand the casting order casts
    now: not a second legendary permanent, nor a spell waiting for a creature; a commander in
    the command zone with its tax; a card named by castable) that the mana without it
    cannot pay, or an X spell, or some wanted cards (each copy) for exactly all of it.
    Each card counts at the mana value of its cheapest way the mana pays; colours are
    checked card by card. The vectorised engine's ``land_mana_spent``; a land asking for
    life pays it only then."""
    n_classes = K.dims[Dim.N_CLASSES]
    more_plain, more_filtered = S.work[Work.LIFE_PLAIN], S.work[Work.LIFE_FILTERED]
    for c in range(n_classes):
        more_plain[c] = plain[c] + units[c]
        more_filtered[c] = filtered[c] + units[c]
    target = total_of(K, more_filtered if n_sets > 1 else more_plain)
    most = max(target, total_of(K, more_plain))  # a filter may make less than it costs
    before = max(total_of(K, filtered if n_sets > 1 else plain), total_of(K, plain))
    if not may_use_mana(K, S, most - 1):
        return False  # no wanted card costs as little as the mana with the land
    sums = np.int64(1)  # bit 0: no card, no mana
    held, cast = S.sets[SetRow.HELD_IDS], K.id_sets[IdSet.CAST_IDS]
    no_creature = count(K, S, Group.CREATURE) == 0
    kind = next_common(held, cast, 1)
    while kind >= 0:
        copies = wanted_copies(K, S, kind, 0, no_creature)
        if copies == 0 or K.card[kind, CardCol.CHEAPEST] > most:
            kind = next_common(held, cast, kind + 1)
            continue  # not cast now, or more than all the mana
        cost = cheapest_paid(K, more_plain, more_filtered, n_sets, K.card_modes[kind],
                             K.card[kind, CardCol.N_CARD_MODES])
        if cost >= 0 and K.card[kind, CardCol.IS_X]:  # X >= 1 takes the mana left
            if target >= K.card[kind, CardCol.COST] + 1:
                return True
        elif cost >= 0:
            if K.card[kind, CardCol.CHEAPEST] > before or cheapest_paid(
                    K, plain, filtered, n_sets, K.card_modes[kind],
                    K.card[kind, CardCol.N_CARD_MODES]) < 0:
                return True  # paid only with the land
            sums = with_sums(sums, cost, copies)
        kind = next_common(held, cast, kind + 1)
    for slot in range(K.dims[Dim.N_COMMANDERS]):  # {2} of tax per earlier cast (CR 903.8)
        kind = group_id(K, Group.COMMANDER_IDS, slot)
        if S.zones[Zone.COMMAND, kind] > 0:
            level = min(S.zones[Zone.CASTS, kind], MAX_TAXED_CASTS)
            modes, n_modes = K.taxed[slot, level], K.commanders[slot, CommanderCol.N_TAXED]
            cost = cheapest_paid(K, more_plain, more_filtered, n_sets, modes, n_modes)
            if cost >= 0:
                if cheapest_paid(K, plain, filtered, n_sets, modes, n_modes) < 0:
                    return True
                sums = with_sums(sums, cost, 1)
    for j in range(K.dims[Dim.N_CASTABLE]):  # counted as held, one copy
        modes, n_modes = K.castable_modes[j, 1:], K.castable_modes[j, 0]
        cost = cheapest_paid(K, more_plain, more_filtered, n_sets, modes, n_modes)
        if cost >= 0:
            if cheapest_paid(K, plain, filtered, n_sets, modes, n_modes) < 0:
                return True
            sums = with_sums(sums, cost, 1)
    if target > 62:  # beyond the bits: spent whenever a card is paid
        return sums > 1
    return (sums >> target) & 1 == 1


@compiled
def castable_next_turn(K, S, card):
    """Every source you control, untapped, plus one land from hand could pay ``card``."""
    n_classes = K.dims[Dim.N_CLASSES]
    units = S.units[UnitRow.IN_PLAY]  # every plain source you control, untapped
    if castable_card(K, card, units, units, ONE):
        return True
    more = S.work[Work.NEXT_MORE]
    for o in range(K.dims[Dim.N_OPTIONS]):
        if S.zones[Zone.HAND, K.options[o, OptionCol.CARD]] > 0:
            for c in range(n_classes):
                more[c] = units[c] + K.opt_units[o, c]
            if castable_card(K, card, more, more, ONE):
                return True
    return False


@compiled
def as_float(condition):
    """A condition as the number the expressions compute with (1.0 or 0.0)."""
    return 1.0 if condition else 0.0


@compiled
def observe(K, S, field, card, explores_left, counters, present):
    """One observation field of the revealed ``card`` (what the player may know)."""
    if field == Field.CARD:
        return float(card)
    if field == Field.IS_LAND:
        return float(K.card[card, CardCol.IS_LAND])
    if field == Field.IS_NONLAND:
        return float(K.card[card, CardCol.IS_NONLAND])
    if field == Field.IS_EMPTY:
        return as_float(not K.card[card, CardCol.IS_CARD])
    if field == Field.IS_CREATURE:
        return float(K.card[card, CardCol.IS_CREATURE])
    if field == Field.IS_LAND_LIKE:
        return float(K.card[card, CardCol.IS_LAND_LIKE])
    if field == Field.MAKES_EXPLORES:
        return as_float(K.card[card, CardCol.EXPLORES] > 0)
    if field == Field.MAKES_MAPS:
        return as_float(K.card[card, CardCol.MAPS] > 0)
    if field == Field.MANA_VALUE:
        return float(K.card[card, CardCol.COST])
    if field == Field.POWER:
        return float(K.card[card, CardCol.POWER])
    if field == Field.TOUGHNESS:
        return float(K.card[card, CardCol.TOUGHNESS])
    if field == Field.CARDS_IN_HAND:
        return float(S.slots[Slot.HELD])
    if field == Field.LANDS_IN_HAND:
        return float(S.slots[Slot.HAND_LANDS])
    if field == Field.LANDS_IN_PLAY:
        return float(count(K, S, Group.LAND))
    if field == Field.MANA_SOURCES:
        return float(count(K, S, Group.SOURCE))
    if field == Field.PREDICTED_MANA:
        return float(count(K, S, Group.SOURCE) + S.slots[Slot.HAND_LANDS])
    if field == Field.CASTABLE_NOW:
        plain, filtered = S.work[Work.OBSERVE_PLAIN], S.work[Work.OBSERVE_FILTERED]
        n_sets = unit_sets(K, S, plain, filtered, NONE, ZERO)
        return as_float(castable_card(K, card, plain, filtered, n_sets))
    if field == Field.CASTABLE_NEXT_TURN:
        return as_float(castable_next_turn(K, S, card))
    if field == Field.TURN:
        return float(S.slots[Slot.TURN])
    if field == Field.EXPLORES_LEFT:
        return float(explores_left)
    if field == Field.COUNTERS:
        return float(counters)
    if field == Field.EXPLORER_PRESENT:
        return as_float(present)
    if field == Field.LIBRARY_SIZE:
        return float(S.slots[Slot.END] - S.slots[Slot.TOP])
    return float(S.slots[Slot.LIB_LANDS])  # Field.LANDS_IN_LIBRARY


#: Which program :func:`decide` runs: the keep-or-mill policy's, or the scry policy's.
POLICY, SCRY = np.int64(0), np.int64(1)


@compiled
def binary(op, a, b):
    """The value of binary operation ``op`` on ``a`` and ``b`` (conditions are 1.0 or 0.0),
    the comparisons and connectives first (the presets use only those and ``ADD``)."""
    if op == Op.EQ:
        return as_float(a == b)
    if op == Op.LE:
        return as_float(a <= b)
    if op == Op.GE:
        return as_float(a >= b)
    if op == Op.AND:
        return as_float(a != 0 and b != 0)
    if op == Op.OR:
        return as_float(a != 0 or b != 0)
    if op == Op.ADD:
        return a + b
    if op == Op.NE:
        return as_float(a != b)
    if op == Op.LT:
        return as_float(a < b)
    if op == Op.GT:
        return as_float(a > b)
    if op == Op.SUB:
        return a - b
    if op == Op.MUL:
        return a * b
    if op == Op.DIV:
        return a / b
    if op == Op.FLOORDIV:
        return np.floor(a / b)
    return a - np.floor(a / b) * b  # Op.MOD


@compiled
def decide(K, S, program, card, explores_left, counters, present):
    """Run a policy's bytecode (``program``: :data:`POLICY` or :data:`SCRY`): True mills the
    revealed ``card`` (keeps it on top: False)."""
    code = K.scry_code if program == SCRY else K.policy_code
    consts = K.scry_consts if program == SCRY else K.policy_consts
    stack = S.stack
    top = 0
    i = 0
    n = len(code)
    while i < n:
        op = code[i]
        if op == Op.COMPARE_FIELD:  # field, constant, comparison
            stack[top] = binary(code[i + 3], observe(K, S, code[i + 1], card, explores_left,
                                                     counters, present), consts[code[i + 2]])
            top += 1
            i += 4
        elif op == Op.LOAD:
            stack[top] = observe(K, S, code[i + 1], card, explores_left, counters, present)
            top += 1
            i += 2
        elif op == Op.CONST:
            stack[top] = consts[code[i + 1]]
            top += 1
            i += 2
        elif op == Op.JUMP_UNLESS:  # an "and" chain: a false part decides it
            if stack[top - 1] == 0:
                stack[top - 1] = 0.0
                i = code[i + 1]
            else:
                top -= 1
                i += 2
        elif op == Op.JUMP_IF:  # an "or" chain: a true part decides it
            if stack[top - 1] != 0:
                stack[top - 1] = 1.0
                i = code[i + 1]
            else:
                top -= 1
                i += 2
        elif op == Op.TRUTH:
            stack[top - 1] = as_float(stack[top - 1] != 0)
            i += 1
        elif op == Op.NOT:
            stack[top - 1] = as_float(stack[top - 1] == 0)
            i += 1
        elif op == Op.NEG:
            stack[top - 1] = -stack[top - 1]
            i += 1
        else:
            top -= 1
            stack[top - 1] = binary(op, stack[top - 1], stack[top])
            i += 1
    return top > 0 and stack[top - 1] != 0


@compiled
def scry(K, S, explores_left, counters, present):
    """Scry 1 (R2; temples): a land stays on top; a nonland goes to the bottom if the scry
    policy says so."""
    card = peek(K, S)
    if card == 0:
        return
    s = S.slots
    if K.card[card, CardCol.IS_NONLAND] and decide(K, S, SCRY, card, explores_left, counters,
                                             present):
        S.lib[at(S, s[Slot.END])] = card
        s[Slot.TOP] += 1
        s[Slot.END] += 1
        note(S, Trace.SCRY, card, 1, 0)
    else:
        note(S, Trace.SCRY, card, 0, 0)
    S.totals[Event.SCRIES] += 1
