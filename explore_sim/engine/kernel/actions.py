"""Activated abilities with the mana left (M1-M5) and combat (attacks are unblocked; a mana
creature stays back, attacking would tap it).

Part of the compiled game (:mod:`explore_sim.engine.kernel`); every function reads the
packed deck tables ``K`` and changes the game state ``S``.
"""

from __future__ import annotations

from .bits import next_common
from .codes import (
    NO,
    NONE,
    ONE,
    YES,
    ZERO,
)
from .explore import explore_instruction, explore_triggers
from .lands import put_land
from .layout import CardCol, Dim, Event, Group, IdSet, SetRow, Slot, Trace, Work, Zone
from .mana import pay_from_pool, total_of
from .records import compiled
from .search import search_basics
from .spells import can_pay, pay_one
from .state import uniform
from .trace import (
    note,
    tracing,
)
from .zones import (
    basics_left,
    count,
    counters_on_copies,
    create_maps,
    draw,
    first_present,
    group_id,
    group_size,
    member,
    peek,
    pick_creature,
    sacrifice,
    tap_copies,
)


@compiled
def equip(K, S):
    """Attach an unattached Glowcap Lantern for its equip cost when a creature is there."""
    if group_size(K, Group.LANTERN) == 0:
        return False
    mode = K.card[group_id(K, Group.LANTERN, 0), CardCol.ABILITY_COST_MODE]
    s = S.slots
    if count(K, S, Group.LANTERN) - s[Slot.EQUIPPED] <= 0 or count(K, S, Group.CREATURE) <= 0:
        return False
    if not can_pay(K, S, mode, NONE, ZERO):
        return False
    pay_one(K, S, mode, NO, NONE, ZERO)
    s[Slot.EQUIPPED] += 1
    return True


@compiled
def activate_map(K, S, from_pool):
    """One Map: {1}, {T}, sacrifice: target creature you control explores (M1-M5, E9);
    ``from_pool``: its {1} is a unit of the pool (which the caller saw holds one), no source
    tapped, and the log says so."""
    s = S.slots
    if not K.dims[Dim.USE_MAPS] or s[Slot.MAPS] <= 0:
        return False
    mode = K.dims[Dim.MAP_MODE]
    if not from_pool and not can_pay(K, S, mode, NONE, ZERO):
        return False
    target = pick_creature(K, S, NO)
    if target == 0:
        return False  # M4: no target, no activation
    s[Slot.MAPS] -= 1
    if from_pool:
        pay_from_pool(K, S)
    else:
        pay_one(K, S, mode, NO, NONE, ZERO)
    S.totals[Event.MAPS_USED] += 1
    note(S, Trace.MAP_USED, target, from_pool, 0)
    explore_instruction(K, S, target, ONE, YES, YES, S.work[Work.NO_PENDING], NO)
    return True


@compiled
def activate_map_from_pool(K, S):
    """One Map paid from mana left in the pool (M1-M5), in either main phase: what a source
    made beyond a spell's need (Sol Ring, a Signet) or a bounce land's returned land made
    would empty at the end of the phase; no source is tapped for it."""
    if S.slots[Slot.MAPS] <= 0:
        return False
    floating = total_of(K, S.pool)
    return floating > 0 and activate_map(K, S, YES)


@compiled
def activate_explore_ability(K, S):
    """Seeker of Sunlight's sorcery-speed "{2}{G}: it explores"."""
    progressed = False
    for index in range(group_size(K, Group.SEEKER)):
        kind = group_id(K, Group.SEEKER, index)
        mode = K.card[kind, CardCol.ABILITY_COST_MODE]
        if S.zones[Zone.BF, kind] > 0 and can_pay(K, S, mode, NONE, ZERO):
            pay_one(K, S, mode, NO, NONE, ZERO)
            note(S, Trace.EXPLORE_EFFECT, kind, 1, kind)
            explore_instruction(K, S, kind, ONE, NO, YES, S.work[Work.NO_PENDING], NO)
            progressed = True
    return progressed


@compiled
def activate_search(K, S):
    """Myriad Landscape's "{2}, {T}, Sacrifice: two basic lands" where the library holds one."""
    progressed = False
    for index in range(group_size(K, Group.ACTIVATED_SEARCH)):
        kind = group_id(K, Group.ACTIVATED_SEARCH, index)
        mode = K.card[kind, CardCol.ABILITY_COST_MODE]
        if S.zones[Zone.BF, kind] - S.zones[Zone.TAPPED, kind] > 0 and basics_left(K, S) > 0 \
                and can_pay(K, S, mode, kind, ONE):
            pay_one(K, S, mode, NO, kind, ONE)
            sacrifice(K, S, kind)  # an untapped one: {T} is part of the cost
            search_basics(K, S, K.card[kind, CardCol.FETCH])
            progressed = True
    return progressed


@compiled
def combat(K, S, attackers, crewers):
    """Beginning of combat, attackers, attack triggers and combat damage."""
    n_kinds = K.dims[Dim.N_KINDS]
    note(S, Trace.COMBAT, 0, 0, 0)
    marked = S.trace[0, 0] if tracing(S) else 0
    for index in range(group_size(K, Group.COMBAT_EXPLORER)):  # Deepfathom Echo
        kind = group_id(K, Group.COMBAT_EXPLORER, index)
        for _ in range(S.zones[Zone.BF, kind]):
            note(S, Trace.EXPLORE_EFFECT, kind, 1, kind)
            explore_instruction(K, S, kind, ONE, NO, YES, S.work[Work.NO_PENDING], NO)
    for _ in range(count(K, S, Group.HAKBAL)):  # each Merfolk explores, triggers after all (E8)
        pending = S.work[Work.HAKBAL_PENDING]
        pending[:3] = 0
        for index in range(group_size(K, Group.MERFOLK_IDS)):
            kind = group_id(K, Group.MERFOLK_IDS, index)
            for _ in range(S.zones[Zone.BF, kind]):
                if tracing(S):
                    note(S, Trace.EXPLORE_EFFECT, first_present(K, S, Group.HAKBAL), 1, kind)
                explore_instruction(K, S, kind, ONE, NO, YES, pending, NO)
        explore_triggers(K, S, pending[0], pending[1], pending[2])
    animated = ZERO
    # Restless Anchorage, animated from other mana.
    for index in range(group_size(K, Group.ANCHORAGE)):
        kind = group_id(K, Group.ANCHORAGE, index)
        mode = K.card[kind, CardCol.ABILITY_COST_MODE]
        ready = S.zones[Zone.BF, kind] - S.zones[Zone.SICK, kind] - S.zones[Zone.TAPPED, kind]
        if ready > 0 and can_pay(K, S, mode, kind, ONE):
            pay_one(K, S, mode, NO, kind, ONE)
            tap_copies(K, S, kind, ONE)  # it attacks
            animated += 1
            # Unblocked, it deals combat damage equal to its power (CR 510.1a).
            S.totals[Event.DAMAGE] += max(K.card[kind, CardCol.POWER], 0)
    attackers[:n_kinds] = 0
    attacking = 0
    on, able = S.sets[SetRow.ON_IDS], K.id_sets[IdSet.ATTACKER_IDS]  # a mana creature stays back
    kind = next_common(on, able, 0)
    while kind >= 0:
        ready = S.zones[Zone.BF, kind]
        if not K.card[kind, CardCol.HAS_HASTE]:
            ready -= S.zones[Zone.SICK, kind]
        attackers[kind] = max(ready - S.zones[Zone.TAPPED, kind], 0)
        attacking += attackers[kind]
        kind = next_common(on, able, kind + 1)
    n_crewers = 0
    vehicles = S.work[Work.VEHICLES]
    # Subterranean Schooner: crewed by a creature, a summoning-sick one first.
    for index in range(group_size(K, Group.SCHOONER)):
        kind = group_id(K, Group.SCHOONER, index)
        if S.zones[Zone.BF, kind] - S.zones[Zone.SICK, kind] > 0:
            crewer = pick_creature(K, S, YES)
            if crewer:
                if attackers[crewer] > 0:
                    attackers[crewer] -= 1
                    attacking -= 1
                crewers[n_crewers] = crewer
                vehicles[n_crewers] = kind
                n_crewers += 1
                # The crewed vehicle attacks, unblocked: its power (CR 510.1a).
                S.totals[Event.DAMAGE] += max(K.card[kind, CardCol.POWER], 0)
    # Attack triggers, in the registry's order.
    for index in range(group_size(K, Group.ATTACK_MAP)):
        kind = group_id(K, Group.ATTACK_MAP, index)
        create_maps(K, S, attackers[kind] * K.card[kind, CardCol.MAPS])
    create_maps(K, S, animated)
    for index in range(group_size(K, Group.ATTACK_EXPLORER)):
        kind = group_id(K, Group.ATTACK_EXPLORER, index)
        for _ in range(attackers[kind]):
            note(S, Trace.EXPLORE_EFFECT, kind, 1, kind)
            explore_instruction(K, S, kind, ONE, NO, YES, S.work[Work.NO_PENDING], NO)
    for index in range(group_size(K, Group.PARLEY)):
        kind = group_id(K, Group.PARLEY, index)
        for _ in range(attackers[kind]):
            parley(K, S)
    for i in range(n_crewers):
        note(S, Trace.EXPLORE_EFFECT, vehicles[i], 1, crewers[i])
        explore_instruction(K, S, crewers[i], ONE, YES, YES, S.work[Work.NO_PENDING], NO)
    for index in range(group_size(K, Group.ATTACK_LAND)):  # Hakbal: a land from hand, else a card
        kind = group_id(K, Group.ATTACK_LAND, index)
        for _ in range(attackers[kind]):
            if not put_land(K, S, NO):
                draw(K, S)
    # Glowcap Lantern: the first attacker carries it.
    if attacking > 0 and S.slots[Slot.EQUIPPED] > 0:
        first = 0
        for kind in range(n_kinds):
            if attackers[kind] > 0:
                first = kind
                break
        for _ in range(min(S.slots[Slot.EQUIPPED], attacking)):
            note(S, Trace.EXPLORE_EFFECT, group_id(K, Group.LANTERN, 0), 1, first)
            explore_instruction(K, S, first, ONE, NO, YES, S.work[Work.NO_PENDING], NO)
    combat_damage(K, S, attackers)
    for index in range(group_size(K, Group.DAMAGE_EXPLORER)):  # Emperor's Vanguard, unblocked
        kind = group_id(K, Group.DAMAGE_EXPLORER, index)
        for _ in range(min(attackers[kind], S.zones[Zone.BF, kind])):
            note(S, Trace.EXPLORE_EFFECT, kind, 1, kind)
            explore_instruction(K, S, kind, ONE, NO, YES, S.work[Work.NO_PENDING], NO)
    S.pool[:] = 0  # mana empties
    if tracing(S) and S.trace[0, 0] == marked and S.trace[0, 1] == 0:
        S.trace[0, 0] -= 1  # a combat in which nothing happened: no marker in the log


@compiled
def combat_damage(K, S, attackers):
    """The attackers still on the battlefield deal combat damage, unblocked (CR 510.1a):
    each its power, its +1/+1 counters (CR 122.1a) and a Merfolk Cave-Diver's +1/+0 per
    explore this turn; one with no power left deals none."""
    pumps = S.totals[Event.EXPLORES] - S.slots[Slot.EXPLORES_BEFORE]
    damage = 0
    # An attacker no longer on the battlefield deals nothing.
    present, able = S.sets[SetRow.ON_IDS], K.id_sets[IdSet.ATTACKER_IDS]
    kind = next_common(present, able, 1)
    while kind >= 0:
        if attackers[kind] <= 0:
            kind = next_common(present, able, kind + 1)
            continue
        on, sick = S.zones[Zone.BF, kind], S.zones[Zone.SICK, kind]
        if K.card[kind, CardCol.HAS_HASTE]:  # a sick copy may attack (CR 302.6)
            attacking = min(attackers[kind], on)
            dealt = counters_on_copies(S.zones[Zone.CTR, kind] + S.zones[Zone.SICK_CTR, kind], on,
                                       attacking)
        else:
            attacking = min(attackers[kind], on - sick)
            dealt = counters_on_copies(S.zones[Zone.CTR, kind], on - sick, attacking)
        dealt += attacking * K.card[kind, CardCol.POWER]
        if member(K, Group.CAVE_DIVER, kind):
            dealt += attacking * pumps
        damage += max(dealt, 0)
        if attacking > 0:
            note(S, Trace.ATTACK, kind, attacking, max(dealt, 0))
        kind = next_common(present, able, kind + 1)
    S.totals[Event.DAMAGE] += damage
    if damage > 0:
        note(S, Trace.DAMAGE, 0, damage, S.totals[Event.DAMAGE])


@compiled
def parley(K, S):
    """Storm Fleet Negotiator: each player reveals the top card, a Map per nonland, then
    each player draws."""
    mine = peek(K, S)
    theirs = 1 if uniform(S.play) >= K.fdims[1] else 0
    create_maps(K, S, K.card[mine, CardCol.IS_NONLAND] + theirs)
    draw(K, S)
