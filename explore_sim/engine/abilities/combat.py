"""Combat abilities: the beginning of combat, lands and vehicles that attack, attack
triggers and combat damage (attacks are unblocked).

Attack triggers resolve in registry order: Map makers (Sentinel of the Nameless City, an
animated Restless Anchorage), attacking explorers, parley (Storm Fleet Negotiator), the
creatures that crewed Subterranean Schooner, Hakbal's land or card, Glowcap Lantern.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..casting import pay
from ..context import Play
from ..explore_effects import explore_instruction, explore_triggers
from ..lands import put_land
from ..rowwise import row_sum
from ..state import GameState, counters_on_copies
from ..zones import count, create_maps, draw, peek, pick_creature
from .activated import can_pay

__all__ = ["AttackEvent", "combat_explores", "merfolk_explore", "animate_lands",
           "crew_vehicles", "attack_maps", "attack_explores", "parley_on_attack",
           "crewers_explore", "land_or_card_on_attack", "lantern_explores",
           "combat_damage_explores", "combat_damage", "parley"]


@dataclasses.dataclass(eq=False)
class AttackEvent:
    """The attack, as the registry's ``"attack"`` handlers see it.

    Attributes
    ----------
    attackers : ndarray, shape (trials, n_cards + 1), int32
        Attacking creatures per card id.
    animated : ndarray, shape (trials,), int32
        Animated lands attacking (Restless Anchorage).
    crewers : list of (rows, crewer card id)
        The creatures that crewed each vehicle kind.
    """

    attackers: np.ndarray
    animated: np.ndarray
    crewers: list[tuple[np.ndarray, np.ndarray]]


def combat_explores(play: Play, state: GameState) -> None:
    """Deepfathom Echo explores at the beginning of combat on your turn."""
    for kind in play.tables.ids["combat_explorer"].tolist():
        copies = state.battlefield[:, kind].astype(np.int32)
        for k in range(int(copies.max(initial=0))):
            explore_instruction(play, state, np.flatnonzero(k < copies), kind, 1, False)


def merfolk_explore(play: Play, state: GameState) -> None:
    """Each Hakbal makes every Merfolk you control explore: one effect whose explore
    triggers wait until every Merfolk has explored (E8)."""
    trials = state.trials
    hakbals = count(play, state, "hakbal", np.arange(trials))
    for h in range(int(hakbals.max(initial=0))):
        pending = [np.zeros(trials, dtype=np.int32) for _ in range(3)]
        for kind in play.tables.merfolk_ids.tolist():
            copies = np.where(h < hakbals, state.battlefield[:, kind], 0)
            for k in range(int(copies.max(initial=0))):
                explore_instruction(play, state, np.flatnonzero(k < copies), kind, 1, False,
                                    pending=pending)
        fired = np.flatnonzero(h < hakbals)
        explore_triggers(play, state, fired, *(part[fired] for part in pending))


def animate_lands(play: Play, state: GameState) -> np.ndarray:
    """Restless Anchorage becomes a creature for {1}{W}{U} when other sources can pay it (it
    cannot tap for its own animation) and attacks (tapped); returns the animated lands per
    trial, shape (trials,)."""
    animated = np.zeros(state.trials, dtype=np.int32)
    everyone = np.arange(state.trials)
    for kind in play.tables.ids["anchorage"].tolist():
        mode = int(play.tables.ability_cost_mode[kind])
        ready = (state.battlefield[:, kind] - state.sick[:, kind] - state.tapped[:, kind]) > 0
        ready[ready] = can_pay(play, state, everyone[ready], mode, (kind, 1))
        animating = everyone[ready]
        if animating.size:
            pay(play, state, animating, [mode], unavailable=(kind, 1))
            with play.mana.track(state, animating, kind):
                state.tapped[animating, kind] += 1  # it attacks
            animated[animating] += 1
            # Unblocked, it deals combat damage equal to its power (CR 510.1a).
            state.totals["damage"][animating] += max(int(play.tables.features.power[kind]), 0)
    return animated


def crew_vehicles(play: Play, state: GameState,
                  attackers: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Crew Subterranean Schooner with a creature (a summoning-sick one when possible); a
    crewing creature is tapped and leaves ``attackers`` (trials, n_cards + 1), updated in
    place. Returns ``(rows, crewer card id)`` per Schooner kind."""
    crewers = []
    for kind in play.tables.ids["schooner"].tolist():
        ready = np.flatnonzero((state.battlefield[:, kind] - state.sick[:, kind]) > 0)
        crewer = pick_creature(play, state, ready, prefer_sick=True)
        has = crewer != 0
        crew_rows, crewer = ready[has], crewer[has]
        tapped = attackers[crew_rows, crewer] > 0
        attackers[crew_rows[tapped], crewer[tapped]] -= 1
        crewers.append((crew_rows, crewer))
        # The crewed vehicle attacks, unblocked: combat damage equal to its power (CR 510.1a).
        state.totals["damage"][crew_rows] += max(int(play.tables.features.power[kind]), 0)
    return crewers


def attack_maps(play: Play, state: GameState, event: AttackEvent) -> None:
    """Map makers that attack (Sentinel of the Nameless City), then animated lands
    (Restless Anchorage): a Map each."""
    everyone = np.arange(state.trials)
    maps = play.tables.features.maps
    for kind in play.tables.ids["attack_map"].tolist():
        create_maps(play, state, everyone, event.attackers[:, kind] * maps[kind])
    create_maps(play, state, everyone, event.animated)


def attack_explores(play: Play, state: GameState, event: AttackEvent) -> None:
    """A creature that explores when it attacks."""
    for kind in play.tables.ids["attack_explorer"].tolist():
        for k in range(int(event.attackers[:, kind].max(initial=0))):
            explore_instruction(play, state, np.flatnonzero(k < event.attackers[:, kind]),
                                kind, 1, False)


def parley_on_attack(play: Play, state: GameState, event: AttackEvent) -> None:
    """Storm Fleet Negotiator's parley when it attacks."""
    for kind in play.tables.ids["parley"].tolist():
        for k in range(int(event.attackers[:, kind].max(initial=0))):
            parley(play, state, np.flatnonzero(k < event.attackers[:, kind]))


def crewers_explore(play: Play, state: GameState, event: AttackEvent) -> None:
    """Subterranean Schooner: target creature that crewed it explores (E9)."""
    for crew_rows, crewer in event.crewers:
        explore_instruction(play, state, crew_rows, crewer, 1, targeted=True)


def land_or_card_on_attack(play: Play, state: GameState, event: AttackEvent) -> None:
    """Hakbal of the Surging Soul: put a land card from hand onto the battlefield; if you
    don't (you have none), draw a card."""
    for kind in play.tables.ids["attack_land"].tolist():
        for k in range(int(event.attackers[:, kind].max(initial=0))):
            attacking = np.flatnonzero(k < event.attackers[:, kind])
            put = put_land(play, state, attacking, tapped=False)
            draw(play, state, attacking[~put])


def lantern_explores(play: Play, state: GameState, event: AttackEvent) -> None:
    """Glowcap Lantern: each equipped attacker explores (the first attacking creature
    carries the equipment)."""
    attackers = event.attackers
    any_attacker = row_sum(attackers) > 0
    lantern_explores = np.where(any_attacker, np.minimum(state.equipped, row_sum(attackers)), 0)
    explorer = np.argmax(attackers > 0, axis=1)
    for k in range(int(lantern_explores.max(initial=0))):
        lantern_rows = np.flatnonzero(k < lantern_explores)
        explore_instruction(play, state, lantern_rows, explorer[lantern_rows], 1, False)


def combat_damage_explores(play: Play, state: GameState, attackers: np.ndarray) -> None:
    """Unblocked attackers deal combat damage: Emperor's Vanguard explores (if it is still on
    the battlefield)."""
    for kind in play.tables.ids["damage_explorer"].tolist():
        attacking = np.minimum(attackers[:, kind], state.battlefield[:, kind])
        for k in range(int(attacking.max(initial=0))):
            explore_instruction(play, state, np.flatnonzero(k < attacking), kind, 1, False)


def combat_damage(play: Play, state: GameState, attackers: np.ndarray) -> None:
    """The attacking creatures still on the battlefield deal combat damage to the goldfish
    opponent, unblocked (CR 510.1a): each its power, plus its +1/+1 counters (CR 122.1a),
    plus a Merfolk Cave-Diver's +1/+0 per explore this turn; a creature with no power left
    deals none. ``attackers``: shape (trials, n_cards + 1), after crewing. Animated lands
    and crewed vehicles add theirs as they attack (:func:`animate_lands`,
    :func:`crew_vehicles`)."""
    f = play.tables.features
    battlefield = state.battlefield.astype(np.int32)
    sick = state.sick.astype(np.int32)
    able = np.where(f.has_haste, battlefield, battlefield - sick)
    attacking = np.minimum(attackers, able).clip(0)
    # Without haste only copies that are not summoning sick attack (CR 302.6); with haste
    # a sick copy may, and the copies' counters are shared between them.
    on_ready = counters_on_copies(state.counters, battlefield - sick, attacking)
    on_all = counters_on_copies(state.counters + state.sick_counters, battlefield, attacking)
    damage = attacking * f.power.astype(np.int32) + np.where(f.has_haste, on_all, on_ready)
    pumps = state.totals["explores"] - state.explores_before  # Cave-Diver's +1/+0 each
    for kind in play.tables.ids["cave_diver"].tolist():
        damage[:, kind] += attacking[:, kind] * pumps
    state.totals["damage"] += row_sum(np.maximum(damage, 0), np.int32)


def parley(play: Play, state: GameState, rows: np.ndarray) -> None:
    """Storm Fleet Negotiator: each player reveals the top card; a Map per nonland
    revealed; then each player draws a card."""
    mine = peek(play, state, rows)
    theirs_nonland = play.rngs["parley"].random(len(rows)) >= play.config.opponent_land_fraction
    create_maps(play, state, rows,
                play.tables.features.is_nonland[mine].astype(np.int32) + theirs_nonland)
    draw(play, state, rows)
