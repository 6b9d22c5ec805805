"""Activated abilities with the mana left (M1-M5) and combat (attacks are unblocked; a mana creature stays back, attacking would tap it).

Part of the compiled game (:mod:`explore_sim.engine.kernel`); every function reads the
packed deck tables ``K`` and changes the game state ``S``.
"""

from __future__ import annotations

from .bits import next_common
from .codes import (
    E_DAMAGE,
    E_EXPLORES,
    E_MAPS_USED,
    G_ACTIVATED_SEARCH,
    G_ANCHORAGE,
    G_ATTACK_EXPLORER,
    G_ATTACK_LAND,
    G_ATTACK_MAP,
    G_CAVE_DIVER,
    G_COMBAT_EXPLORER,
    G_CREATURE,
    G_DAMAGE_EXPLORER,
    G_HAKBAL,
    G_LANTERN,
    G_MERFOLK_IDS,
    G_PARLEY,
    G_SCHOONER,
    G_SEEKER,
    MAP_MODE,
    N_KINDS,
    NO,
    NONE,
    ONE,
    USE_MAPS,
    YES,
    ZERO,
)
from .explore import explore_instruction, explore_triggers
from .lands import put_land
from .pack import (
    ATTACKER_IDS,
    C_ABILITY_COST_MODE,
    C_FETCH,
    C_HAS_HASTE,
    C_IS_NONLAND,
    C_MAPS,
    C_POWER,
)
from .records import compiled
from .search import search_basics
from .spells import can_pay, no_pending, pay_one
from .state import (
    BF,
    CTR,
    EQUIPPED,
    EXPLORES_BEFORE,
    MAPS,
    ON_IDS,
    R_HAKBAL_PENDING,
    R_VEHICLES,
    SICK,
    SICK_CTR,
    TAPPED,
    uniform,
)
from .trace import (
    T_ATTACK,
    T_COMBAT,
    T_DAMAGE,
    T_EXPLORE_EFFECT,
    T_MAP_USED,
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
    group_ids,
    member,
    peek,
    pick_creature,
    sacrifice,
    tap_copies,
)


@compiled
def equip(K, S):
    """Attach an unattached Glowcap Lantern for its equip cost when a creature is there."""
    lanterns = group_ids(K, G_LANTERN)
    if len(lanterns) == 0:
        return False
    mode = K.card[lanterns[0], C_ABILITY_COST_MODE]
    s = S.slots
    if count(K, S, G_LANTERN) - s[EQUIPPED] <= 0 or count(K, S, G_CREATURE) <= 0:
        return False
    if not can_pay(K, S, mode, NONE, ZERO):
        return False
    pay_one(K, S, mode, NO, NONE, ZERO)
    s[EQUIPPED] += 1
    return True


@compiled
def activate_map(K, S):
    """One Map: {1}, {T}, sacrifice: target creature you control explores (M1-M5, E9)."""
    s = S.slots
    if not K.dims[USE_MAPS] or s[MAPS] <= 0:
        return False
    mode = K.dims[MAP_MODE]
    if not can_pay(K, S, mode, NONE, ZERO):
        return False
    target = pick_creature(K, S, NO)
    if target == 0:
        return False  # M4: no target, no activation
    s[MAPS] -= 1
    pay_one(K, S, mode, NO, NONE, ZERO)
    S.totals[E_MAPS_USED] += 1
    note(S, T_MAP_USED, target, 0, 0)
    explore_instruction(K, S, target, ONE, YES, YES, no_pending(S), NO)
    return True


@compiled
def activate_explore_ability(K, S):
    """Seeker of Sunlight's sorcery-speed "{2}{G}: it explores"."""
    progressed = False
    for kind in group_ids(K, G_SEEKER):
        mode = K.card[kind, C_ABILITY_COST_MODE]
        if S.zones[BF, kind] > 0 and can_pay(K, S, mode, NONE, ZERO):
            pay_one(K, S, mode, NO, NONE, ZERO)
            note(S, T_EXPLORE_EFFECT, kind, 1, kind)
            explore_instruction(K, S, kind, ONE, NO, YES, no_pending(S), NO)
            progressed = True
    return progressed


@compiled
def activate_search(K, S):
    """Myriad Landscape's "{2}, {T}, Sacrifice: two basic lands" where the library holds one."""
    progressed = False
    for kind in group_ids(K, G_ACTIVATED_SEARCH):
        mode = K.card[kind, C_ABILITY_COST_MODE]
        if S.zones[BF, kind] - S.zones[TAPPED, kind] > 0 and basics_left(K, S) > 0 \
                and can_pay(K, S, mode, kind, ONE):
            pay_one(K, S, mode, NO, kind, ONE)
            sacrifice(K, S, kind)  # an untapped one: {T} is part of the cost
            search_basics(K, S, K.card[kind, C_FETCH])
            progressed = True
    return progressed


@compiled
def combat(K, S, attackers, crewers):
    """Beginning of combat, attackers, attack triggers and combat damage."""
    n_kinds = K.dims[N_KINDS]
    note(S, T_COMBAT, 0, 0, 0)
    marked = S.trace[0, 0] if tracing(S) else 0
    for kind in group_ids(K, G_COMBAT_EXPLORER):  # Deepfathom Echo
        for _ in range(S.zones[BF, kind]):
            note(S, T_EXPLORE_EFFECT, kind, 1, kind)
            explore_instruction(K, S, kind, ONE, NO, YES, no_pending(S), NO)
    for _ in range(count(K, S, G_HAKBAL)):  # each Merfolk explores, triggers after all (E8)
        pending = S.work[R_HAKBAL_PENDING]
        pending[:3] = 0
        for kind in group_ids(K, G_MERFOLK_IDS):
            for _ in range(S.zones[BF, kind]):
                if tracing(S):
                    note(S, T_EXPLORE_EFFECT, first_present(K, S, G_HAKBAL), 1, kind)
                explore_instruction(K, S, kind, ONE, NO, YES, pending, NO)
        explore_triggers(K, S, pending[0], pending[1], pending[2])
    animated = 0
    for kind in group_ids(K, G_ANCHORAGE):  # Restless Anchorage, animated from other mana
        mode = K.card[kind, C_ABILITY_COST_MODE]
        if S.zones[BF, kind] - S.zones[SICK, kind] - S.zones[TAPPED, kind] > 0 and can_pay(K, S, mode, kind, ONE):
            pay_one(K, S, mode, NO, kind, ONE)
            tap_copies(K, S, kind, ONE)  # it attacks
            animated += 1
            # Unblocked, it deals combat damage equal to its power (CR 510.1a).
            S.totals[E_DAMAGE] += max(K.card[kind, C_POWER], 0)
    attackers[:n_kinds] = 0
    attacking = 0
    on, able = S.sets[ON_IDS], K.id_sets[ATTACKER_IDS]  # a mana creature stays back
    kind = next_common(on, able, 0)
    while kind >= 0:
        ready = S.zones[BF, kind] if K.card[kind, C_HAS_HASTE] else S.zones[BF, kind] - S.zones[SICK, kind]
        attackers[kind] = max(ready - S.zones[TAPPED, kind], 0)
        attacking += attackers[kind]
        kind = next_common(on, able, kind + 1)
    n_crewers = 0
    vehicles = S.work[R_VEHICLES]
    for kind in group_ids(K, G_SCHOONER):  # crewed by a creature, a summoning-sick one first
        if S.zones[BF, kind] - S.zones[SICK, kind] > 0:
            crewer = pick_creature(K, S, YES)
            if crewer:
                if attackers[crewer] > 0:
                    attackers[crewer] -= 1
                    attacking -= 1
                crewers[n_crewers] = crewer
                vehicles[n_crewers] = kind
                n_crewers += 1
                # The crewed vehicle attacks, unblocked: its power (CR 510.1a).
                S.totals[E_DAMAGE] += max(K.card[kind, C_POWER], 0)
    # Attack triggers, in the registry's order.
    for kind in group_ids(K, G_ATTACK_MAP):
        create_maps(K, S, attackers[kind] * K.card[kind, C_MAPS])
    create_maps(K, S, animated)
    for kind in group_ids(K, G_ATTACK_EXPLORER):
        for _ in range(attackers[kind]):
            note(S, T_EXPLORE_EFFECT, kind, 1, kind)
            explore_instruction(K, S, kind, ONE, NO, YES, no_pending(S), NO)
    for kind in group_ids(K, G_PARLEY):
        for _ in range(attackers[kind]):
            parley(K, S)
    for i in range(n_crewers):
        note(S, T_EXPLORE_EFFECT, vehicles[i], 1, crewers[i])
        explore_instruction(K, S, crewers[i], ONE, YES, YES, no_pending(S), NO)
    for kind in group_ids(K, G_ATTACK_LAND):  # Hakbal: a land from hand, else a card
        for _ in range(attackers[kind]):
            if not put_land(K, S, NO):
                draw(K, S)
    if attacking > 0 and S.slots[EQUIPPED] > 0:  # Glowcap Lantern: the first attacker carries it
        first = 0
        for kind in range(n_kinds):
            if attackers[kind] > 0:
                first = kind
                break
        for _ in range(min(S.slots[EQUIPPED], attacking)):
            note(S, T_EXPLORE_EFFECT, group_ids(K, G_LANTERN)[0], 1, first)
            explore_instruction(K, S, first, ONE, NO, YES, no_pending(S), NO)
    combat_damage(K, S, attackers)
    for kind in group_ids(K, G_DAMAGE_EXPLORER):  # Emperor's Vanguard, unblocked
        for _ in range(min(attackers[kind], S.zones[BF, kind])):
            note(S, T_EXPLORE_EFFECT, kind, 1, kind)
            explore_instruction(K, S, kind, ONE, NO, YES, no_pending(S), NO)
    S.pool[:] = 0  # mana empties
    if tracing(S) and S.trace[0, 0] == marked and S.trace[0, 1] == 0:
        S.trace[0, 0] -= 1  # a combat in which nothing happened: no marker in the log


@compiled
def combat_damage(K, S, attackers):
    """The attackers still on the battlefield deal combat damage, unblocked (CR 510.1a):
    each its power, its +1/+1 counters (CR 122.1a) and a Merfolk Cave-Diver's +1/+0 per
    explore this turn; one with no power left deals none."""
    pumps = S.totals[E_EXPLORES] - S.slots[EXPLORES_BEFORE]
    damage = 0
    # An attacker no longer on the battlefield deals nothing.
    present, able = S.sets[ON_IDS], K.id_sets[ATTACKER_IDS]
    kind = next_common(present, able, 1)
    while kind >= 0:
        if attackers[kind] <= 0:
            kind = next_common(present, able, kind + 1)
            continue
        on, sick = S.zones[BF, kind], S.zones[SICK, kind]
        if K.card[kind, C_HAS_HASTE]:  # a sick copy may attack (CR 302.6)
            attacking = min(attackers[kind], on)
            dealt = counters_on_copies(S.zones[CTR, kind] + S.zones[SICK_CTR, kind], on,
                                       attacking)
        else:
            attacking = min(attackers[kind], on - sick)
            dealt = counters_on_copies(S.zones[CTR, kind], on - sick, attacking)
        dealt += attacking * K.card[kind, C_POWER]
        if member(K, G_CAVE_DIVER, kind):
            dealt += attacking * pumps
        damage += max(dealt, 0)
        if attacking > 0:
            note(S, T_ATTACK, kind, attacking, max(dealt, 0))
        kind = next_common(present, able, kind + 1)
    S.totals[E_DAMAGE] += damage
    if damage > 0:
        note(S, T_DAMAGE, 0, damage, S.totals[E_DAMAGE])


@compiled
def parley(K, S):
    """Storm Fleet Negotiator: each player reveals the top card, a Map per nonland, then
    each player draws."""
    mine = peek(K, S)
    theirs = 1 if uniform(S.play) >= K.fdims[1] else 0
    create_maps(K, S, K.card[mine, C_IS_NONLAND] + theirs)
    draw(K, S)
