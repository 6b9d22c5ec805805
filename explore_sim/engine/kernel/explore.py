"""Explore instructions with their replacements (R1-R3) and triggers (E8).

Part of the compiled game (:mod:`explore_sim.engine.kernel`); every function reads the
packed deck tables ``K`` and changes the game state ``S``.
"""

from __future__ import annotations

from .codes import (
    MAX_TRACKER_DOUBLINGS,
    ONE,
    YES,
    ZERO,
)
from .decisions import POLICY, decide, scry
from .lands import put_land
from .layout import CardCol, Dim, Event, Group, Slot, Trace, Zone
from .records import compiled
from .state import uniform
from .trace import note, tracing
from .zones import (
    add_counters,
    count,
    group_id,
    group_size,
    leave_library,
    peek,
    remove,
    to_hand,
)


@compiled
def note_each(K, S, slot, event, per_copy):
    """The log only: event ``event`` for each permanent of group ``slot`` on the battlefield,
    ``per_copy`` for each of its copies."""
    if not tracing(S) or per_copy <= 0:
        return
    for index in range(group_size(K, slot)):
        kind = group_id(K, slot, index)
        if S.zones[Zone.BF, kind] > 0:
            note(S, event, kind, per_copy * S.zones[Zone.BF, kind], S.zones[Zone.BF, kind])


@compiled
def counters_on_each(K, S, slot, per_copy):
    """``per_copy`` +1/+1 counters on each permanent of group ``slot``, sick or not."""
    if per_copy <= 0:
        return
    for index in range(group_size(K, slot)):
        kind = group_id(K, slot, index)
        sick = S.zones[Zone.SICK, kind]
        S.zones[Zone.SICK_CTR, kind] += sick * per_copy
        S.zones[Zone.CTR, kind] += (S.zones[Zone.BF, kind] - sick) * per_copy
    note_each(K, S, slot, Trace.COUNTERS, per_copy)


@compiled
def explore_triggers(K, S, explored, lands, nonlands):
    """"Whenever a creature you control explores", after the whole effect (E8)."""
    if explored <= 0:
        return
    totals = S.totals
    walkers = count(K, S, Group.WALKER)
    totals[Event.TRIGGER_COUNTERS] += walkers * explored
    totals[Event.LIFE_GAINED] += 3 * walkers * explored
    counters_on_each(K, S, Group.WALKER, explored)
    note_each(K, S, Group.WALKER, Trace.LIFE_GAINED, 3 * explored)
    totals[Event.TRIGGER_COUNTERS] += count(K, S, Group.CARAVEL) * explored
    counters_on_each(K, S, Group.CARAVEL, explored)
    totals[Event.CAVE_DIVER_PUMPS] += count(K, S, Group.CAVE_DIVER) * explored
    note_each(K, S, Group.CAVE_DIVER, Trace.PUMPED, explored)
    totals[Event.CHUPACABRA_TRIGGERS] += count(K, S, Group.CHUPACABRA) * explored
    # Nicanzil: a nonland explored gives it a counter; a land explored lets you put a land
    # from hand onto the battlefield tapped, declined while the land drops left could play
    # every land card in hand. Neither fires on an empty library (E4).
    nicanzils = count(K, S, Group.NICANZIL)
    totals[Event.TRIGGER_COUNTERS] += nicanzils * nonlands
    counters_on_each(K, S, Group.NICANZIL, nonlands)
    for _ in range(nicanzils * lands):
        if S.slots[Slot.HAND_LANDS] <= S.slots[Slot.LAND_DROPS]:
            break  # "you may": each land in hand can still be a land drop, untapped
        if put_land(K, S, YES):
            totals[Event.NICANZIL_LANDS] += 1


@compiled
def explore_instruction(K, S, explorer, times, targeted, present_in, pending,
                        just_entered):
    """One effect that makes ``explorer`` explore ``times`` times (E6), then its triggers
    (or, with ``pending`` (int64[3]), its explores added there for the caller's triggers).
    Returns whether the explorer is still on the battlefield."""
    s, totals = S.slots, S.totals
    present = explorer != 0 and S.zones[Zone.BF, explorer] > 0 and present_in
    if times <= 0:
        return present
    removal = K.fdims[0]
    if removal > 0:  # the removal model: the explorer leaves in response (E3)
        if present and uniform(S.play) < removal:
            remove(K, S, explorer, just_entered)
            totals[Event.EXPLORERS_REMOVED] += 1
            note(S, Trace.REMOVED, explorer, 0, 0)
            present = False
    if targeted and not present:
        return present  # E9: the target is gone, nothing happens at all
    # R1 (Topography Tracker doubles each explore), R2 (Twists and Turns: scry 1 first),
    # R3 (the order chosen: tracker-first gives scry, explore, scry, explore).
    trackers = min(count(K, S, Group.TRACKER), MAX_TRACKER_DOUBLINGS)
    twists = count(K, S, Group.TWISTS)
    per = 1 << trackers
    if K.dims[Dim.TWISTS_FIRST]:
        period = twists + per
        steps = times * period
    else:
        period = twists + 1
        steps = times * per * period
    total_explores = times * per
    explored, lands, nonlands, counters = ZERO, ZERO, ZERO, ZERO
    for step in range(steps):
        if twists and step % period < twists:
            scry(K, S, total_explores - explored, counters, present)
            continue
        card = peek(K, S)
        explored += 1
        totals[Event.EXPLORES] += 1
        if card == 0:  # E4: nothing revealed, still a counter
            note(S, Trace.EXPLORE, 0, 0, explorer)
            if present:
                counters += 1
                totals[Event.EXPLORE_COUNTERS] += 1
        elif K.card[card, CardCol.IS_LAND]:  # E1: a land goes to hand
            leave_library(K, S, card)
            to_hand(K, S, card, ONE)
            lands += 1
            totals[Event.EXPLORE_LANDS] += 1
            note(S, Trace.EXPLORE, card, 1, explorer)
        else:  # E2 (E3: no counter when the explorer is gone; the choice is still made)
            nonlands += 1
            if present:
                counters += 1
                totals[Event.EXPLORE_COUNTERS] += 1
            if decide(K, S, POLICY, card, total_explores - explored + 1, counters - present,
                      present):
                leave_library(K, S, card)
                s[Slot.GRAVEYARD] += 1
                totals[Event.MILLED] += 1
                note(S, Trace.EXPLORE, card, 3, explorer)
            else:
                note(S, Trace.EXPLORE, card, 2, explorer)
    # E2, E4: the counters go on the explorer (the copy that just entered, if it did).
    add_counters(K, S, explorer, counters, just_entered)
    if pending[0] < 0:
        explore_triggers(K, S, explored, lands, nonlands)
    else:
        pending[0] += explored
        pending[1] += lands
        pending[2] += nonlands
    return present
