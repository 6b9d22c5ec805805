"""Casting, paying (exact coloured payment through the lookup tables), entering, resolving.

Part of the compiled game (:mod:`explore_sim.engine.kernel`); every function reads the
packed deck tables ``K`` and changes the game state ``S``.
"""

from __future__ import annotations

from .bits import next_common, next_member
from .codes import (
    MAX_TAXED_CASTS,
    NO,
    NONE,
    ONE,
    YES,
    ZERO,
)
from .decisions import castable_kind, commander_payable
from .explore import explore_instruction
from .lands import search_lands
from .layout import (
    CardCol,
    CommanderCol,
    Dim,
    Event,
    Group,
    KeyRow,
    SetRow,
    Slot,
    Trace,
    Work,
    Zone,
)
from .mana import keyed, paid_row, pay_mode, payable_any, total_of, unit_sets
from .records import compiled
from .search import search_basics
from .trace import (
    note,
    tracing,
)
from .zones import (
    count,
    create_maps,
    draw,
    enter,
    first_present,
    group_id,
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
    used = S.work[Work.PAY_USED]
    life, x = pay_mode(K, S, mode, take_all, skip_kind, skip_copies, used)
    S.totals[Event.MANA_SPENT] += total_of(K, used)
    S.totals[Event.LIFE_PAID] += life
    if life > 0:
        note(S, Trace.LIFE_PAID, 0, life, 0)
    return x


@compiled
def pay(K, S, modes, n_modes, take_all, skip_kind, skip_copies):
    """Pay the first payable of ``modes[:n_modes]`` (a card's ways to pay, in its order of
    preference); returns X."""
    if n_modes == 1:
        return pay_one(K, S, modes[0], take_all, skip_kind, skip_copies)
    plain, filtered = S.work[Work.PAY_PLAIN], S.work[Work.PAY_FILTERED]
    for i in range(n_modes):
        n_sets = unit_sets(K, S, plain, filtered, skip_kind, skip_copies)
        if payable_any(K, plain, filtered, n_sets, modes[i]):
            return pay_one(K, S, modes[i], take_all, skip_kind, skip_copies)
    return 0


@compiled
def can_pay(K, S, mode, skip_kind, skip_copies):
    plain, filtered = S.work[Work.CAN_PLAIN], S.work[Work.CAN_FILTERED]
    n_sets = unit_sets(K, S, plain, filtered, skip_kind, skip_copies)
    return payable_any(K, plain, filtered, n_sets, mode)


@compiled
def can_cast(K, S, kind, plain, filtered, n_sets, available, fast):
    """Whether the casting pass may cast ``kind`` now (held in hand, or a commander in the
    command zone): the mana pays it (with castability keys, ``fast``, the caller took it
    from the spells the mana pays), and its X, target, the legend rule and the library allow
    it."""
    if is_game_commander(K, kind):
        if not commander_payable(K, S, K.card[kind, CardCol.COMMANDER_SLOT], plain, filtered,
                                 n_sets):
            return False
    elif not K.dims[Dim.USE_LOOKUP] and K.card[kind, CardCol.CHEAPEST] > available:
        # More than the mana there is with every filter activated: not a candidate, as in
        # the vectorised engine, which checks this only where the deck has no lookup table
        # (it matters only for a filter that makes less than it costs).
        return False
    elif not fast and not castable_kind(K, plain, filtered, n_sets, kind, NO):
        return False
    # Jadelight Spelunker: X >= 1.
    if K.card[kind, CardCol.IS_X] and available < K.card[kind, CardCol.COST] + 1:
        return False
    if K.card[kind, CardCol.NEEDS_TARGET] and count(K, S, Group.CREATURE) == 0:
        return False  # a spell that targets a creature you control needs one
    if K.card[kind, CardCol.IS_LEGENDARY] and S.zones[Zone.BF, kind] > 0:
        return False  # the legend rule (CR 704.5j): never a second one on the battlefield
    if K.card[kind, CardCol.DRAWS] > S.slots[Slot.END] - S.slots[Slot.TOP]:
        return False  # no card draw past the library's last card: a draw from an empty one loses
    return True


@compiled
def cast_pass(K, S):
    """Cast at most one spell: the castable one of highest priority (commanders from the
    command zone with {2} of tax per earlier cast, CR 903.8); an explore payoff goes before
    the first castable spell that is not one, if that spell would follow it without the
    payoffs' group, or if the mana, colours aside, pays both; else that spell first. While
    no land card is in hand and a land drop is left, the first castable card that draws goes
    first (it digs for the turn's land)."""
    plain, filtered = S.work[Work.CAST_PLAIN], S.work[Work.CAST_FILTERED]
    n_sets = unit_sets(K, S, plain, filtered, NONE, ZERO)
    available = total_of(K, filtered if n_sets > 1 else plain)
    ranks = S.sets[SetRow.CAST_RANKS]  # the spells held, and commanders in the command zone
    # With castability keys, the spells the mana pays (and the commanders, whose tax is
    # checked below) are one row of bits: only those are candidates.
    fast = keyed(K)
    paid = (paid_row(K, KeyRow.RANKS, plain, filtered, n_sets, S.sets[SetRow.PAID_CAST]) if fast
            else S.sets[SetRow.PAID_CAST])
    if (K.dims[Dim.HAS_DRAWS] and S.slots[Slot.HAND_LANDS] == 0
            and S.slots[Slot.LAND_DROPS] > 0):  # dig for the land drop
        rank = next_common(ranks, paid, 0) if fast else next_member(ranks, 0)
        while rank >= 0:
            kind = group_id(K, Group.PASS_IDS, rank)
            rank = next_common(ranks, paid, rank + 1) if fast else next_member(ranks, rank + 1)
            if (K.card[kind, CardCol.DRAWS]
                    and can_cast(K, S, kind, plain, filtered, n_sets, available, fast)):
                cast(K, S, kind)
                return True
    rank = next_common(ranks, paid, 0) if fast else next_member(ranks, 0)
    payoff = -1  # the first castable explore payoff, cast if the mana pays the next spell too
    while rank >= 0:
        kind = group_id(K, Group.PASS_IDS, rank)
        rank = next_common(ranks, paid, rank + 1) if fast else next_member(ranks, rank + 1)
        if not can_cast(K, S, kind, plain, filtered, n_sets, available, fast):
            continue
        if K.card[kind, CardCol.IS_PAYOFF]:
            if payoff < 0:
                payoff = kind
            continue
        if payoff >= 0 and (K.card[kind, CardCol.BASE_RANK] > K.card[payoff, CardCol.BASE_RANK]
                            or available >= K.card[payoff, CardCol.CHEAPEST]
                            + K.card[kind, CardCol.CHEAPEST]):
            break  # it follows the payoff anyway, or the mana pays both: the payoff first
        cast(K, S, kind)
        return True
    if payoff >= 0:
        cast(K, S, payoff)
        return True
    return False


@compiled
def cast(K, S, kind):
    """Cast ``kind`` (from the command zone for a commander) and resolve it."""
    totals = S.totals
    takes_x = K.card[kind, CardCol.IS_X] != 0
    spent = totals[Event.MANA_SPENT]
    taxed = totals[Event.COMMANDER_TAX_PAID]
    if is_game_commander(K, kind):
        slot = K.card[kind, CardCol.COMMANDER_SLOT]
        level = min(S.zones[Zone.CASTS, kind], MAX_TAXED_CASTS)
        x = pay(K, S, K.taxed[slot, level], K.commanders[slot, CommanderCol.N_TAXED], takes_x,
                NONE, ZERO)
        totals[Event.COMMANDER_TAX_PAID] += 2 * S.zones[Zone.CASTS, kind]
        totals[Event.COMMANDER_CAST] += 1
        S.zones[Zone.CASTS, kind] += 1
        S.zones[Zone.COMMAND, kind] -= 1
        mark_castable(K, S, kind)
    else:
        x = pay(K, S, K.card_modes[kind], K.card[kind, CardCol.N_CARD_MODES], takes_x, NONE, ZERO)
        to_hand(K, S, kind, NONE)
    totals[Event.CARDS_CAST] += 1
    # what the spell cost, its commander tax aside
    totals[Event.SPELL_MANA] += (totals[Event.MANA_SPENT] - spent
                                 - (totals[Event.COMMANDER_TAX_PAID] - taxed))
    note(S, Trace.CAST, kind, totals[Event.MANA_SPENT] - spent, x if takes_x else -1)
    if K.card[kind, CardCol.IS_PERMANENT]:
        enters(K, S, kind, x if takes_x else -1, NO)
    else:
        resolve(K, S, kind)


@compiled
def enters(K, S, kind, x, tapped):
    """A permanent enters the battlefield (tapped where ``tapped``), then its enter
    triggers in the registry's order."""
    s, totals = S.slots, S.totals
    enter(K, S, kind)
    if tapped:
        tap_copies(K, S, kind, ONE)
    if member(K, Group.EACH_TURN_LAND_ON_ENTER, kind):  # Janeway: a land drop this turn too
        s[Slot.LAND_DROPS] += 1
        totals[Event.EXTRA_LAND_DROPS] += 1
    if member(K, Group.MAPS_ON_ENTER, kind):
        create_maps(K, S, K.card[kind, CardCol.MAPS])
    alive = YES
    times = (max(0, x)) if K.card[kind, CardCol.IS_X] else K.card[kind, CardCol.EXPLORES]
    if member(K, Group.EXPLORES_ON_ENTER, kind):
        if times > 0:
            note(S, Trace.EXPLORE_EFFECT, kind, times, kind)
        alive = explore_instruction(K, S, kind, times, NO, alive, S.work[Work.NO_PENDING], YES)
    if member(K, Group.TARGET_EXPLORES_ON_ENTER, kind):  # Twists and Turns
        target = pick_creature(K, S, NO)
        if target:
            if times > 0:
                note(S, Trace.EXPLORE_EFFECT, kind, times, target)
            explore_instruction(K, S, target, times, YES, YES, S.work[Work.NO_PENDING], NO)
    if K.card[kind, CardCol.IS_CREATURE]:  # Path of Discovery, Janeway: the creature explores
        for _ in range(count(K, S, Group.ENTERS_EXPLORER)):
            if tracing(S):
                note(S, Trace.EXPLORE_EFFECT, first_present(K, S, Group.ENTERS_EXPLORER), 1, kind)
            alive = explore_instruction(K, S, kind, ONE, NO, alive, S.work[Work.NO_PENDING], YES)
    if member(K, Group.BASIC_TO_HAND_ON_ENTER, kind):  # District Guide
        search_basics(K, S, K.card[kind, CardCol.FETCH])
    if member(K, Group.DRAWS_ON_ENTER, kind):  # Elvish Visionary: "draw a card"
        for _ in range(K.card[kind, CardCol.DRAWS]):
            draw(K, S)


@compiled
def resolve(K, S, kind):
    """An instant or sorcery resolves: a targeted explore (nothing at all if the target is
    gone, E9), an extra land drop, a draw, a land search; then the graveyard."""
    s, totals = S.slots, S.totals
    resolved = True
    if member(K, Group.SPELL_EXPLORES, kind):
        target = pick_creature(K, S, NO)
        if target:
            note(S, Trace.EXPLORE_EFFECT, kind, K.card[kind, CardCol.EXPLORES], target)
            resolved = explore_instruction(K, S, target, K.card[kind, CardCol.EXPLORES], YES, YES,
                                           S.work[Work.NO_PENDING], NO)
        else:
            resolved = False
    if member(K, Group.EXTRA_LAND_THIS_TURN, kind) and resolved:
        s[Slot.LAND_DROPS] += 1
        totals[Event.EXTRA_LAND_DROPS] += 1
    if member(K, Group.DRAWS, kind):  # Divination: "draw two cards"
        for _ in range(K.card[kind, CardCol.DRAWS]):
            draw(K, S)
    if member(K, Group.RAMP, kind):
        search_basics(K, S, K.card[kind, CardCol.FETCH])
    if member(K, Group.LAND_SEARCH, kind):  # Nature's Lore, Three Visits, Farseek
        search_lands(K, S, K.card[kind, CardCol.FETCH], K.card[kind, CardCol.FETCH_TYPES])
    s[Slot.GRAVEYARD] += 1
