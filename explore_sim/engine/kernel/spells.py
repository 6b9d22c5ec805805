"""Casting, paying (exact coloured payment through the lookup tables), entering, resolving.

Part of the compiled game (:mod:`explore_sim.engine.kernel`); every function reads the
packed deck tables ``K`` and changes the game state ``S``.
"""

from __future__ import annotations

from .bits import next_common, next_member
from .codes import (
    E_CARDS_CAST,
    E_COMMANDER_CAST,
    E_COMMANDER_TAX,
    E_EXTRA_LAND_DROPS,
    E_LIFE_PAID,
    E_MANA_SPENT,
    G_BASIC_TO_HAND_ON_ENTER,
    G_CREATURE,
    G_DRAWS,
    G_EACH_TURN_LAND_ON_ENTER,
    G_ENTERS_EXPLORER,
    G_EXPLORES_ON_ENTER,
    G_EXTRA_LAND_THIS_TURN,
    G_MAPS_ON_ENTER,
    G_PASS_IDS,
    G_RAMP,
    G_SPELL_EXPLORES,
    G_TARGET_EXPLORES_ON_ENTER,
    MAX_TAXED_CASTS,
    NO,
    NONE,
    ONE,
    USE_LOOKUP,
    YES,
    ZERO,
)
from .decisions import castable_kind, commander_payable
from .explore import explore_instruction
from .mana import keyed, paid_row, pay_mode, payable_any, total_of, unit_sets
from .pack import (
    C_CHEAPEST,
    C_COMMANDER_SLOT,
    C_COST,
    C_EXPLORES,
    C_FETCH,
    C_IS_CREATURE,
    C_IS_PERMANENT,
    C_IS_X,
    C_MAPS,
    C_N_CARD_MODES,
    C_NEEDS_TARGET,
    CK_RANKS,
    CM_N_TAXED,
)
from .records import compiled
from .search import search_basics
from .state import (
    CAST_RANKS,
    CASTS,
    COMMAND,
    GRAVEYARD,
    LAND_DROPS,
    PAID_CAST,
    R_CAN_FILTERED,
    R_CAN_PLAIN,
    R_CAST_FILTERED,
    R_CAST_PLAIN,
    R_NO_PENDING,
    R_PAY_FILTERED,
    R_PAY_PLAIN,
    R_PAY_USED,
)
from .trace import T_CAST, T_EXPLORE_EFFECT, note, tracing
from .zones import (
    count,
    create_maps,
    draw,
    enter,
    first_present,
    group_ids,
    is_game_commander,
    mark_castable,
    member,
    pick_creature,
    tap_copies,
    to_hand,
)


@compiled
def pay_one(K, S, mode, take_all, skip_kind, skip_copies):
    """Pay ``mode`` (payable now); records mana spent and life paid and returns X."""
    used = S.work[R_PAY_USED]
    life, x = pay_mode(K, S, mode, take_all, skip_kind, skip_copies, used)
    S.totals[E_MANA_SPENT] += total_of(K, used)
    S.totals[E_LIFE_PAID] += life
    return x


@compiled
def pay(K, S, modes, n_modes, take_all, skip_kind, skip_copies):
    """Pay the first payable of ``modes[:n_modes]`` (a card's ways to pay, in its order of
    preference); returns X."""
    if n_modes == 1:
        return pay_one(K, S, modes[0], take_all, skip_kind, skip_copies)
    plain, filtered = S.work[R_PAY_PLAIN], S.work[R_PAY_FILTERED]
    for i in range(n_modes):
        n_sets = unit_sets(K, S, plain, filtered, skip_kind, skip_copies)
        if payable_any(K, plain, filtered, n_sets, modes[i]):
            return pay_one(K, S, modes[i], take_all, skip_kind, skip_copies)
    return 0


@compiled
def can_pay(K, S, mode, skip_kind, skip_copies):
    plain, filtered = S.work[R_CAN_PLAIN], S.work[R_CAN_FILTERED]
    n_sets = unit_sets(K, S, plain, filtered, skip_kind, skip_copies)
    return payable_any(K, plain, filtered, n_sets, mode)


@compiled
def cast_pass(K, S):
    """Cast at most one spell: the castable one of highest priority (commanders from the
    command zone with {2} of tax per earlier cast, CR 903.8)."""
    plain, filtered = S.work[R_CAST_PLAIN], S.work[R_CAST_FILTERED]
    n_sets = unit_sets(K, S, plain, filtered, NONE, ZERO)
    available = total_of(K, filtered if n_sets > 1 else plain)
    pass_ids = group_ids(K, G_PASS_IDS)
    ranks = S.sets[CAST_RANKS]  # the spells held, and commanders in the command zone
    # With castability keys, the spells the mana pays (and the commanders, whose tax is
    # checked below) are one row of bits: only those are candidates.
    fast = keyed(K)
    paid = (paid_row(K, CK_RANKS, plain, filtered, n_sets, S.sets[PAID_CAST]) if fast
            else S.sets[PAID_CAST])
    rank = next_common(ranks, paid, 0) if fast else next_member(ranks, 0)
    while rank >= 0:
        kind = pass_ids[rank]
        rank = next_common(ranks, paid, rank + 1) if fast else next_member(ranks, rank + 1)
        if is_game_commander(K, kind):
            if not commander_payable(K, S, K.card[kind, C_COMMANDER_SLOT], plain, filtered,
                                     n_sets):
                continue
        elif not K.dims[USE_LOOKUP] and K.card[kind, C_CHEAPEST] > available:
            # More than the mana there is with every filter activated: not a candidate,
            # as in the vectorised engine, which checks this only where the deck has no
            # lookup table (it matters only for a filter that makes less than it costs).
            continue
        elif not fast and not castable_kind(K, plain, filtered, n_sets, kind, NO):
            continue
        if K.card[kind, C_IS_X] and available < K.card[kind, C_COST] + 1:  # Jadelight Spelunker: X >= 1
            continue
        if K.card[kind, C_NEEDS_TARGET] and count(K, S, G_CREATURE) == 0:
            continue  # a spell that targets a creature you control needs one
        cast(K, S, kind)
        return True
    return False


@compiled
def cast(K, S, kind):
    """Cast ``kind`` (from the command zone for a commander) and resolve it."""
    totals = S.totals
    takes_x = K.card[kind, C_IS_X] != 0
    spent = totals[E_MANA_SPENT]
    if is_game_commander(K, kind):
        slot = K.card[kind, C_COMMANDER_SLOT]
        level = min(S.zones[CASTS, kind], MAX_TAXED_CASTS)
        x = pay(K, S, K.taxed[slot, level], K.commanders[slot, CM_N_TAXED], takes_x, NONE, ZERO)
        totals[E_COMMANDER_TAX] += 2 * S.zones[CASTS, kind]
        totals[E_COMMANDER_CAST] += 1
        S.zones[CASTS, kind] += 1
        S.zones[COMMAND, kind] -= 1
        mark_castable(K, S, kind)
    else:
        x = pay(K, S, K.card_modes[kind], K.card[kind, C_N_CARD_MODES], takes_x, NONE, ZERO)
        to_hand(K, S, kind, NONE)
    totals[E_CARDS_CAST] += 1
    note(S, T_CAST, kind, totals[E_MANA_SPENT] - spent, x if takes_x else -1)
    if K.card[kind, C_IS_PERMANENT]:
        enters(K, S, kind, x if takes_x else -1, NO)
    else:
        resolve(K, S, kind)


@compiled(inline="always")
def no_pending(S):
    """The workspace row that says "resolve the explore triggers now" (its first entry is
    -1 and is never written)."""
    return S.work[R_NO_PENDING]


@compiled
def enters(K, S, kind, x, tapped):
    """A permanent enters the battlefield (tapped where ``tapped``), then its enter
    triggers in the registry's order."""
    s, totals = S.slots, S.totals
    enter(K, S, kind)
    if tapped:
        tap_copies(K, S, kind, ONE)
    if member(K, G_EACH_TURN_LAND_ON_ENTER, kind):  # Janeway: a land drop this turn too
        s[LAND_DROPS] += 1
        totals[E_EXTRA_LAND_DROPS] += 1
    if member(K, G_MAPS_ON_ENTER, kind):
        create_maps(K, S, K.card[kind, C_MAPS])
    alive = True
    times = (max(0, x)) if K.card[kind, C_IS_X] else K.card[kind, C_EXPLORES]
    if member(K, G_EXPLORES_ON_ENTER, kind):
        if times > 0:
            note(S, T_EXPLORE_EFFECT, kind, times, kind)
        alive = explore_instruction(K, S, kind, times, NO, alive, no_pending(S), YES)
    if member(K, G_TARGET_EXPLORES_ON_ENTER, kind):  # Twists and Turns
        target = pick_creature(K, S, NO)
        if target:
            if times > 0:
                note(S, T_EXPLORE_EFFECT, kind, times, target)
            explore_instruction(K, S, target, times, YES, YES, no_pending(S), NO)
    if K.card[kind, C_IS_CREATURE]:  # Path of Discovery, Janeway: the creature explores
        for _ in range(count(K, S, G_ENTERS_EXPLORER)):
            if tracing(S):
                note(S, T_EXPLORE_EFFECT, first_present(K, S, G_ENTERS_EXPLORER), 1, kind)
            alive = explore_instruction(K, S, kind, ONE, NO, alive, no_pending(S), YES)
    if member(K, G_BASIC_TO_HAND_ON_ENTER, kind):  # District Guide
        search_basics(K, S, K.card[kind, C_FETCH])


@compiled
def resolve(K, S, kind):
    """An instant or sorcery resolves: a targeted explore (nothing at all if the target is
    gone, E9), an extra land drop, a draw, a land search; then the graveyard."""
    s, totals = S.slots, S.totals
    resolved = True
    if member(K, G_SPELL_EXPLORES, kind):
        target = pick_creature(K, S, NO)
        if target:
            note(S, T_EXPLORE_EFFECT, kind, K.card[kind, C_EXPLORES], target)
            resolved = explore_instruction(K, S, target, K.card[kind, C_EXPLORES], YES, YES,
                                           no_pending(S), NO)
        else:
            resolved = False
    if member(K, G_EXTRA_LAND_THIS_TURN, kind) and resolved:
        s[LAND_DROPS] += 1
        totals[E_EXTRA_LAND_DROPS] += 1
    if member(K, G_DRAWS, kind):
        draw(K, S)
    if member(K, G_RAMP, kind):
        search_basics(K, S, K.card[kind, C_FETCH])
    s[GRAVEYARD] += 1
