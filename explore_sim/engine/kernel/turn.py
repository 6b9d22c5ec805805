"""Phases and turns: untap and draw, the two main phases, combat, cleanup, the turn's metrics.

Part of the compiled game (:mod:`explore_sim.engine.kernel`); every function reads the
packed deck tables ``K`` and changes the game state ``S``.
"""

from __future__ import annotations

from .actions import (
    activate_explore_ability,
    activate_map,
    activate_map_from_pool,
    activate_search,
    combat,
    equip,
)
from .bits import is_member, next_common
from .codes import MAX_ACTIONS, NO, NONE, YES, ZERO
from .decisions import castable_kind
from .lands import play_land
from .layout import (
    N_EVENTS,
    N_TURN_METRICS,
    CardCol,
    Dim,
    Event,
    Group,
    IdSet,
    KeyRow,
    SetRow,
    Slot,
    Trace,
    TurnMetric,
    Work,
    Zone,
)
from .mana import keyed, paid_row, payable_any, total_of, unit_sets
from .records import compiled
from .spells import cast_pass
from .trace import note, tracing
from .zones import count, draw, group_id, group_size, mark_castable, to_hand, untap_units


@compiled
def record_main_phase(K, S):
    """``mana_available``, ``colour_screwed`` and ``castable:CARD`` after the land drop,
    before any spell; with ``castable_lands``, ``main_lands`` (the lands in play then) and
    ``castable_lands:CARD`` (``main_lands`` where ``castable:CARD``, else 0). ``S.main``
    holds ``3 + 2 * n_castable`` slots."""
    plain, filtered = S.work[Work.RECORD_PLAIN], S.work[Work.RECORD_FILTERED]
    n_sets = unit_sets(K, S, plain, filtered, NONE, ZERO)
    total = total_of(K, filtered if n_sets > 1 else plain)
    main = S.main
    main[0] = total
    screwed = 0
    held, cast = S.sets[SetRow.HELD_IDS], K.id_sets[IdSet.CAST_IDS]
    fast = keyed(K)
    paid = (paid_row(K, KeyRow.KINDS, plain, filtered, n_sets, S.sets[SetRow.PAID_RECORD]) if fast
            else S.sets[SetRow.PAID_RECORD])
    kind = next_common(held, cast, 1)
    while kind >= 0:
        if K.card[kind, CardCol.CHEAPEST] <= total:
            if not (is_member(paid, kind) if fast
                    else castable_kind(K, plain, filtered, n_sets, kind, NO)):
                screwed = 1
                break
        kind = next_common(held, cast, kind + 1)
    main[1] = screwed
    n_castable = K.dims[Dim.N_CASTABLE]
    lands = count(K, S, Group.LAND) if K.dims[Dim.CASTABLE_LANDS] else 0
    main[2 + n_castable] = lands  # main_lands, taken with castable_lands only
    watched = (paid_row(K, KeyRow.WATCHED, plain, filtered, n_sets, S.sets[SetRow.PAID_RECORD])
               if fast and n_castable else S.sets[SetRow.PAID_RECORD])
    for j in range(n_castable):
        ok = 0
        if fast:
            ok = 1 if is_member(watched, j) else 0
        else:
            for i in range(K.castable_modes[j, 0]):
                if payable_any(K, plain, filtered, n_sets, K.castable_modes[j, 1 + i]):
                    ok = 1
                    break
        main[2 + j] = ok
        main[3 + n_castable + j] = lands if ok else 0  # castable_lands:CARD


@compiled
def main_phase(K, S, second):
    """Play lands and cast until nothing changes; Maps with mana left in the pool; in the
    second, Maps and abilities with any mana left too.
    The first main phase takes its metrics after the land drop."""
    for step in range(MAX_ACTIONS):
        progressed = play_land(K, S)
        if step == 0 and not second:
            if K.dims[Dim.MAIN_PHASE_METRICS]:  # only when one of them is recorded
                record_main_phase(K, S)
        if cast_pass(K, S):
            progressed = True
        if not progressed:
            progressed = equip(K, S)
        if not progressed:
            progressed = activate_map_from_pool(K, S)
        if second:
            if not progressed:
                progressed = activate_map(K, S, NO)
            if not progressed:
                progressed = activate_explore_ability(K, S)
            if not progressed:
                progressed = activate_search(K, S)
        if not progressed:
            break
    S.pool[:] = 0  # mana empties at the end of the phase


@compiled
def untap_and_draw(K, S):
    s = S.slots
    s[Slot.TURN] += 1
    for kind in range(K.dims[Dim.N_KINDS]):  # no copy is summoning sick any more
        S.zones[Zone.CTR, kind] += S.zones[Zone.SICK_CTR, kind]
        S.zones[Zone.SICK_CTR, kind] = 0
    s[Slot.EXPLORES_BEFORE] = S.totals[Event.EXPLORES]
    S.zones[Zone.SICK, :] = 0
    S.zones[Zone.TAPPED, :] = 0
    untap_units(K, S)
    S.pool[:] = 0
    extra = count(K, S, Group.EACH_TURN_LAND)  # Janeway: an additional land each turn
    s[Slot.LAND_DROPS] = 1 + extra
    S.totals[Event.EXTRA_LAND_DROPS] += extra
    s[Slot.PLAYED_LAND] = 0
    if s[Slot.TURN] == 1:  # commanders start in the command zone
        for slot in range(K.dims[Dim.N_COMMANDERS]):
            commander = group_id(K, Group.COMMANDER_IDS, slot)
            S.zones[Zone.COMMAND, commander] = 1
            mark_castable(K, S, commander)
    # The player on the play skips the first draw, except in a multiplayer Commander game.
    if s[Slot.TURN] > 1 or not K.dims[Dim.ON_PLAY] or K.dims[Dim.IS_COMMANDER]:
        draw(K, S)


@compiled
def discard(K, S, kind, copies):
    """``copies`` of ``kind`` from the hand to the graveyard (none when ``copies`` <= 0)."""
    if copies > 0:
        to_hand(K, S, kind, -copies)
        S.slots[Slot.GRAVEYARD] += copies
        note(S, Trace.DISCARD, kind, copies, 0)


@compiled
def discard_lands(K, S, most):
    """Up to ``most`` land cards from the hand to the graveyard, one at a time the kind held
    most (ties to the lower id), so that the hand keeps its mix of lands; how many went.
    Consecutive discards of one kind are noted as one."""
    hand = S.zones[Zone.HAND]
    dropped, pending, copies = 0, 0, 0  # ``copies`` of ``pending`` chosen, not yet discarded
    while dropped < most:
        choice, best = 0, 0
        for index in range(group_size(K, Group.LAND_IDS)):
            kind = group_id(K, Group.LAND_IDS, index)
            held = hand[kind] - (copies if kind == pending else 0)
            if held > best:  # the first of the most held: the lower id
                choice, best = kind, held
        if best == 0:
            break
        if choice != pending:
            discard(K, S, pending, copies)  # nothing when copies is 0
            pending, copies = choice, 0
        copies += 1
        dropped += 1
    discard(K, S, pending, copies)
    return dropped


@compiled
def cleanup(K, S, discard_order):
    """Discard down to the hand limit: the spells never cast first; then land cards while
    the lands you control and hold stay at least the mana value of the most expensive spell
    in hand (surplus lands); then the most expensive spells (of two that cost the same, neither
    a mana source nor ramp), then by id; lands last. Lands go one at a time, the kind held
    most first (:func:`discard_lands`)."""
    excess = S.slots[Slot.HELD] - K.dims[Dim.HAND_LIMIT]
    if excess <= 0:
        return
    hand = S.zones[Zone.HAND]
    lands = count(K, S, Group.LAND)
    for index in range(group_size(K, Group.LAND_IDS)):
        lands += hand[group_id(K, Group.LAND_IDS, index)]
    dearest = 0
    for kind in range(1, K.dims[Dim.N_KINDS]):
        if hand[kind] and K.card[kind, CardCol.IS_CAST] and not K.card[kind, CardCol.IS_LAND]:
            dearest = max(dearest, K.card[kind, CardCol.COST])
    surplus = max(lands - dearest, 0)  # land cards that can go
    for kind in discard_order:  # the spells never cast
        if K.card[kind, CardCol.NEEDS_TARGET] == 2:
            dropping = min(excess, hand[kind])
            discard(K, S, kind, dropping)
            excess -= dropping
    excess -= discard_lands(K, S, min(excess, surplus))  # surplus lands
    for kind in discard_order:  # the other spells in order
        if excess <= 0:
            return
        if not K.card[kind, CardCol.IS_LAND]:
            dropping = min(excess, hand[kind])
            discard(K, S, kind, dropping)
            excess -= dropping
    discard_lands(K, S, excess)  # lands last


@compiled
def turn_metrics(K, S, out):
    """This turn's metrics by :class:`~.layout.TurnMetric` (whose first members are the
    event counters, cumulative from the start, in :class:`~.layout.Event`'s order), then the
    castable cards'; with ``castable_lands``, then ``main_lands`` and
    ``castable_lands:CARD``."""
    totals, main, s = S.totals, S.main, S.slots
    for e in range(N_EVENTS):
        out[e] = totals[e]
    lands = count(K, S, Group.LAND)
    out[TurnMetric.COUNTERS] = totals[Event.EXPLORE_COUNTERS] + totals[Event.TRIGGER_COUNTERS]
    out[TurnMetric.LANDS_PLAYED] = lands
    out[TurnMetric.ON_CURVE] = 1 if lands >= s[Slot.TURN] else 0
    out[TurnMetric.LAND_DROP] = s[Slot.PLAYED_LAND]
    out[TurnMetric.CREATURES] = count(K, S, Group.CREATURE)
    out[TurnMetric.HAND_SIZE] = s[Slot.HELD]
    out[TurnMetric.MANA_AVAILABLE] = main[0]
    out[TurnMetric.COLOUR_SCREWED] = main[1]
    out[TurnMetric.OPPONENT_DEAD] = 1 if totals[Event.DAMAGE] >= K.dims[Dim.LIFE] else 0
    # spells left: nonland cards in hand but those held for want of a target (never cast
    # in a goldfish game), and commanders in the command zone
    spells_left = s[Slot.HELD] - s[Slot.HAND_LANDS] - s[Slot.HAND_WAITING]
    for slot in range(K.dims[Dim.N_COMMANDERS]):
        spells_left += S.zones[Zone.COMMAND, group_id(K, Group.COMMANDER_IDS, slot)]
    out[TurnMetric.SCREWED] = 1 if (s[Slot.PLAYED_LAND] == 0 and lands < s[Slot.TURN]
                                    and spells_left > 0) else 0
    out[TurnMetric.FLOODED] = 1 if (spells_left == 0
                                    and lands + s[Slot.HAND_LANDS] > s[Slot.TURN]) else 0
    n_castable = K.dims[Dim.N_CASTABLE]
    for j in range(n_castable):
        out[N_TURN_METRICS + j] = main[2 + j]
    if K.dims[Dim.CASTABLE_LANDS]:  # main_lands, then castable_lands:CARD
        for j in range(n_castable + 1):
            out[N_TURN_METRICS + n_castable + j] = main[2 + n_castable + j]


@compiled
def note_held(K, S):
    """A game's log only: each spell in hand held at the end of the second main phase (held:
    its target only an opponent has, or none of its effects is played; or it needs a creature
    you control and there is none)."""
    if not tracing(S):
        return
    no_creature = count(K, S, Group.CREATURE) == 0
    for kind in range(1, K.dims[Dim.N_KINDS]):
        need = K.card[kind, CardCol.NEEDS_TARGET]
        if S.zones[Zone.HAND, kind] > 0 and (need == 2 or (need == 1 and no_creature)):
            note(S, Trace.HELD, kind, S.zones[Zone.HAND, kind], need)


@compiled
def play_turn(K, S, discard_order, attackers, crewers):
    untap_and_draw(K, S)
    main_phase(K, S, NO)
    combat(K, S, attackers, crewers)
    main_phase(K, S, YES)
    note_held(K, S)
    S.totals[Event.COMPOUNDED_MANA] += S.totals[Event.SPELL_MANA]  # the end of the turn
    cleanup(K, S, discard_order)
