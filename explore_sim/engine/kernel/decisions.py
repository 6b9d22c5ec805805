"""Castability (docs/mana.md) and the policies' bytecode over the observation (docs: keep or mill).

Part of the compiled game (:mod:`explore_sim.engine.kernel`); every function reads the
packed deck tables ``K`` and changes the game state ``S``.
"""

from __future__ import annotations

import numpy as np

from .bits import is_member, next_common
from .codes import (
    CASTABLE_CHEAPEST,
    E_SCRIES,
    G_COMMANDER_IDS,
    G_LAND,
    G_SOURCE,
    MAX_TAXED_CASTS,
    N_CASTABLE,
    N_COMMANDERS,
    N_CLASSES,
    N_OPTIONS,
    NO,
    NONE,
    O_CARD,
    O_CARDS_IN_HAND,
    O_CASTABLE_NEXT_TURN,
    O_CASTABLE_NOW,
    O_COUNTERS,
    O_EXPLORER_PRESENT,
    O_EXPLORES_LEFT,
    O_IS_CREATURE,
    O_IS_EMPTY,
    O_IS_LAND,
    O_IS_LAND_LIKE,
    O_IS_NONLAND,
    O_LANDS_IN_HAND,
    O_LANDS_IN_PLAY,
    O_LIBRARY_SIZE,
    O_MAKES_EXPLORES,
    O_MAKES_MAPS,
    O_MANA_SOURCES,
    O_MANA_VALUE,
    O_POWER,
    O_PREDICTED_MANA,
    O_TOUGHNESS,
    O_TURN,
    ONE,
    OP_ADD,
    OP_AND,
    OP_COMPARE_FIELD,
    OP_CONST,
    OP_DIV,
    OP_EQ,
    OP_FLOORDIV,
    OP_GE,
    OP_GT,
    OP_JUMP_IF,
    OP_JUMP_UNLESS,
    OP_LE,
    OP_LOAD,
    OP_LT,
    OP_MUL,
    OP_NE,
    OP_NEG,
    OP_NOT,
    OP_OR,
    OP_SUB,
    OP_TRUTH,
    YES,
    ZERO,
)
from .mana import castable_key, keyed, paid_row, payable_any, total_of, unit_sets
from .pack import (
    C_CHEAPEST,
    C_COST,
    C_EXPLORES,
    C_IS_CARD,
    C_IS_CREATURE,
    C_IS_LAND,
    C_IS_LAND_LIKE,
    C_IS_NONLAND,
    C_IS_X,
    C_MAPS,
    C_N_CARD_MODES,
    C_POWER,
    C_TOUGHNESS,
    CAST_IDS,
    CK_KINDS,
    CK_WATCHED,
    CM_N_TAXED,
    LO_CARD,
)
from .records import compiled
from .state import (
    CASTS,
    COMMAND,
    END,
    HAND,
    HAND_LANDS,
    HELD,
    HELD_IDS,
    IN_PLAY,
    LIB_LANDS,
    PAID_HAND,
    R_NEXT_MORE,
    R_OBSERVE_FILTERED,
    R_OBSERVE_PLAIN,
    TOP,
    TURN,
)
from .trace import T_SCRY, note
from .zones import at, count, group_ids, peek


@compiled
def castable_kind(K, plain, filtered, n_sets, kind, x_rule):
    """Whether the mana can pay card ``kind`` in any of its ways (Jadelight Spelunker, with
    ``x_rule``, needs X >= 1)."""
    for i in range(K.card[kind, C_N_CARD_MODES]):
        if payable_any(K, plain, filtered, n_sets, K.card_modes[kind, i]):
            if x_rule and K.card[kind, C_IS_X]:
                last = filtered if n_sets > 1 else plain
                return total_of(K, last) >= K.card[kind, C_COST] + 1
            return True
    return False


@compiled(inline="always")
def castable_card(K, card, plain, filtered, n_sets):
    if not (K.card[card, C_IS_NONLAND] and K.card[card, C_IS_CARD]):
        return False
    return castable_kind(K, plain, filtered, n_sets, card, NO)


@compiled
def castable_in_hand(K, S, plain, filtered, n_sets):
    """Some spell in hand that the casting order casts can be paid."""
    last = filtered if n_sets > 1 else plain
    total = total_of(K, last)
    held, cast = S.sets[HELD_IDS], K.id_sets[CAST_IDS]
    fast = keyed(K)  # the spells the mana pays, read from a row of castability bits
    paid = (paid_row(K, CK_KINDS, plain, filtered, n_sets, S.sets[PAID_HAND]) if fast
            else S.sets[PAID_HAND])
    kind = next_common(held, cast, 1)
    while kind >= 0:
        # At most the mana there is (with filters: all of them activated), then paid.
        if K.card[kind, C_CHEAPEST] <= total:
            if fast:
                if is_member(paid, kind) and (not K.card[kind, C_IS_X]
                                              or total >= K.card[kind, C_COST] + 1):
                    return True
            elif castable_kind(K, plain, filtered, n_sets, kind, YES):
                return True
        kind = next_common(held, cast, kind + 1)
    return False


@compiled
def castable_target(K, plain, filtered, n_sets):
    """Some card named by castable can be paid (the test of ``castable:CARD``)."""
    if keyed(K):  # a row of bits per set of units, set for the cards it pays
        for w in K.castable_by_key[CK_WATCHED, castable_key(K, plain)]:
            if w:
                return True
        if n_sets > 1:
            for w in K.castable_by_key[CK_WATCHED, castable_key(K, filtered)]:
                if w:
                    return True
        return False
    for j in range(K.dims[N_CASTABLE]):
        for i in range(K.castable_modes[j, 0]):
            if payable_any(K, plain, filtered, n_sets, K.castable_modes[j, 1 + i]):
                return True
    return False


@compiled
def commander_payable(K, S, slot, plain, filtered, n_sets):
    """The commander of ``slot`` is in the command zone and the mana pays it with {2} of tax
    per earlier cast from there (CR 903.8)."""
    kind = group_ids(K, G_COMMANDER_IDS)[slot]
    if S.zones[COMMAND, kind] <= 0:
        return False
    level = min(S.zones[CASTS, kind], MAX_TAXED_CASTS)
    for option in range(K.commanders[slot, CM_N_TAXED]):
        if payable_any(K, plain, filtered, n_sets, K.taxed[slot, level, option]):
            return True
    return False


@compiled
def castable_commander(K, S, plain, filtered, n_sets):
    """Some commander in the command zone can be paid, with its tax."""
    for slot in range(K.dims[N_COMMANDERS]):
        if commander_payable(K, S, slot, plain, filtered, n_sets):
            return True
    return False


@compiled
def will_use_mana(K, S, total):
    """A spell in hand the casting order casts, a commander in the command zone (with its
    tax), or a card named by castable (held or not: the land choice plays as if it were),
    costs no more than the mana available plus one (colours aside)."""
    if K.dims[CASTABLE_CHEAPEST] <= total + 1:
        return True
    for slot in range(K.dims[N_COMMANDERS]):
        kind = group_ids(K, G_COMMANDER_IDS)[slot]
        if S.zones[COMMAND, kind] > 0 and (K.card[kind, C_CHEAPEST]
                                           + 2 * min(S.zones[CASTS, kind], MAX_TAXED_CASTS)
                                           <= total + 1):
            return True
    held, cast = S.sets[HELD_IDS], K.id_sets[CAST_IDS]  # not a spell held for a target
    kind = next_common(held, cast, 1)
    while kind >= 0:
        if K.card[kind, C_CHEAPEST] <= total + 1:
            return True
        kind = next_common(held, cast, kind + 1)
    return False


@compiled
def castable_next_turn(K, S, card):
    """Every source you control, untapped, plus one land from hand could pay ``card``."""
    n_classes = K.dims[N_CLASSES]
    units = S.units[IN_PLAY]  # every plain source you control, untapped
    if castable_card(K, card, units, units, ONE):
        return True
    more = S.work[R_NEXT_MORE]
    for o in range(K.dims[N_OPTIONS]):
        if S.zones[HAND, K.options[o, LO_CARD]] > 0:
            for c in range(n_classes):
                more[c] = units[c] + K.opt_units[o, c]
            if castable_card(K, card, more, more, ONE):
                return True
    return False


@compiled(inline="always")
def as_float(condition):
    """A condition as the number the expressions compute with (1.0 or 0.0)."""
    return 1.0 if condition else 0.0


@compiled(inline="always")
def observe(K, S, field, card, explores_left, counters, present):
    """One observation field of the revealed ``card`` (what the player may know)."""
    if field == O_CARD:
        return float(card)
    if field == O_IS_LAND:
        return float(K.card[card, C_IS_LAND])
    if field == O_IS_NONLAND:
        return float(K.card[card, C_IS_NONLAND])
    if field == O_IS_EMPTY:
        return as_float(not K.card[card, C_IS_CARD])
    if field == O_IS_CREATURE:
        return float(K.card[card, C_IS_CREATURE])
    if field == O_IS_LAND_LIKE:
        return float(K.card[card, C_IS_LAND_LIKE])
    if field == O_MAKES_EXPLORES:
        return as_float(K.card[card, C_EXPLORES] > 0)
    if field == O_MAKES_MAPS:
        return as_float(K.card[card, C_MAPS] > 0)
    if field == O_MANA_VALUE:
        return float(K.card[card, C_COST])
    if field == O_POWER:
        return float(K.card[card, C_POWER])
    if field == O_TOUGHNESS:
        return float(K.card[card, C_TOUGHNESS])
    if field == O_CARDS_IN_HAND:
        return float(S.slots[HELD])
    if field == O_LANDS_IN_HAND:
        return float(S.slots[HAND_LANDS])
    if field == O_LANDS_IN_PLAY:
        return float(count(K, S, G_LAND))
    if field == O_MANA_SOURCES:
        return float(count(K, S, G_SOURCE))
    if field == O_PREDICTED_MANA:
        return float(count(K, S, G_SOURCE) + S.slots[HAND_LANDS])
    if field == O_CASTABLE_NOW:
        plain, filtered = S.work[R_OBSERVE_PLAIN], S.work[R_OBSERVE_FILTERED]
        n_sets = unit_sets(K, S, plain, filtered, NONE, ZERO)
        return as_float(castable_card(K, card, plain, filtered, n_sets))
    if field == O_CASTABLE_NEXT_TURN:
        return as_float(castable_next_turn(K, S, card))
    if field == O_TURN:
        return float(S.slots[TURN])
    if field == O_EXPLORES_LEFT:
        return float(explores_left)
    if field == O_COUNTERS:
        return float(counters)
    if field == O_EXPLORER_PRESENT:
        return as_float(present)
    if field == O_LIBRARY_SIZE:
        return float(S.slots[END] - S.slots[TOP])
    return float(S.slots[LIB_LANDS])  # O_LANDS_IN_LIBRARY


#: Which program :func:`decide` runs: the keep-or-mill policy's, or the scry policy's.
POLICY, SCRY = np.int64(0), np.int64(1)


@compiled(inline="always")
def binary(op, a, b):
    """The value of binary operation ``op`` on ``a`` and ``b`` (conditions are 1.0 or 0.0),
    the comparisons and connectives first (the presets use only those and ``ADD``)."""
    if op == OP_EQ:
        return as_float(a == b)
    if op == OP_LE:
        return as_float(a <= b)
    if op == OP_GE:
        return as_float(a >= b)
    if op == OP_AND:
        return as_float(a != 0 and b != 0)
    if op == OP_OR:
        return as_float(a != 0 or b != 0)
    if op == OP_ADD:
        return a + b
    if op == OP_NE:
        return as_float(a != b)
    if op == OP_LT:
        return as_float(a < b)
    if op == OP_GT:
        return as_float(a > b)
    if op == OP_SUB:
        return a - b
    if op == OP_MUL:
        return a * b
    if op == OP_DIV:
        return a / b
    if op == OP_FLOORDIV:
        return np.floor(a / b)
    return a - np.floor(a / b) * b  # OP_MOD


@compiled(error_model="numpy")
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
        if op == OP_COMPARE_FIELD:  # field, constant, comparison
            stack[top] = binary(code[i + 3], observe(K, S, code[i + 1], card, explores_left,
                                                     counters, present), consts[code[i + 2]])
            top += 1
            i += 4
        elif op == OP_LOAD:
            stack[top] = observe(K, S, code[i + 1], card, explores_left, counters, present)
            top += 1
            i += 2
        elif op == OP_CONST:
            stack[top] = consts[code[i + 1]]
            top += 1
            i += 2
        elif op == OP_JUMP_UNLESS:  # an "and" chain: a false part decides it
            if stack[top - 1] == 0:
                stack[top - 1] = 0.0
                i = code[i + 1]
            else:
                top -= 1
                i += 2
        elif op == OP_JUMP_IF:  # an "or" chain: a true part decides it
            if stack[top - 1] != 0:
                stack[top - 1] = 1.0
                i = code[i + 1]
            else:
                top -= 1
                i += 2
        elif op == OP_TRUTH:
            stack[top - 1] = as_float(stack[top - 1] != 0)
            i += 1
        elif op == OP_NOT:
            stack[top - 1] = as_float(stack[top - 1] == 0)
            i += 1
        elif op == OP_NEG:
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
    if K.card[card, C_IS_NONLAND] and decide(K, S, SCRY, card, explores_left, counters,
                                             present):
        S.lib[at(S, s[END])] = card
        s[TOP] += 1
        s[END] += 1
        note(S, T_SCRY, card, 1, 0)
    else:
        note(S, T_SCRY, card, 0, 0)
    S.totals[E_SCRIES] += 1
