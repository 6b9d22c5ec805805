"""What cards do in a goldfish game, one function per ability, vectorised over trials.

Enter triggers (explores, Map tokens, Path of Discovery, Janeway), spells resolving,
equipment, Map tokens (M1-M5) and activated explores, and the combat abilities: beginning of
combat (Deepfathom Echo, Hakbal), animated lands, vehicles, attack triggers (Map makers,
attacking explorers, parley, crewers, Glowcap Lantern) and combat damage (Emperor's
Vanguard). The turn loop (:mod:`explore_sim.engine.goldfish`) calls these in the order of the
turn; each acts on ``rows``, the trials concerned, through the game's per-card id groups.
What is modelled is listed in :data:`MODELLED`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..cards import EMPTY
from .explore_effects import explore_instruction, explore_triggers
from .lands import put_land, search_basics
from .rowwise import row_sum
from .state import GameState, enter, kinds_in

if TYPE_CHECKING:  # the turn loop passes itself in; annotations only
    from .goldfish import Goldfish

__all__ = [
    "MODELLED",
    "create_maps",
    "enters",
    "resolve",
    "equip",
    "activate_map",
    "activate_explore_ability",
    "beginning_of_combat",
    "animate_lands",
    "crew_vehicles",
    "attack_triggers",
    "combat_damage_triggers",
    "parley",
]

#: How each explore / Map ability of the catalog is treated in a goldfish game.
MODELLED: dict[str, str] = {
    "enter": "explores when it enters (X: Jadelight Spelunker takes the mana left)",
    "creature_enters": "Path of Discovery, Janeway: each creature you control that enters explores",
    "beginning_of_combat": "explores at the beginning of combat on your turn",
    "merfolk_at_combat": "Hakbal: each Merfolk you control explores at the beginning of combat",
    "attack": "explores when it attacks",
    "combat_damage": "explores when it deals combat damage (attacks are unblocked)",
    "cast": "a spell that makes target creature you control explore (needs a creature)",
    "activated": "Seeker of Sunlight's {2}{G} explore, with mana left in the second main phase",
    "equipped_attack": "Glowcap Lantern: equipped for {2} when possible; the equipped creature explores when it attacks",
    "crewed_attack": "Subterranean Schooner: crewed by a creature (a summoning-sick one when there is one), which explores",
    "maps enter / attack": "Map tokens when it enters and/or attacks",
    "parley": "Storm Fleet Negotiator: your top card and a coin flip for the opponent's",
    "land_attack": "Restless Anchorage: animated for {1}{W}{U} from other sources before combat; attacks: a Map",
    "token_extra": "Worldwalker Helm: an extra Map whenever you create Maps",
    "not modelled": "activated explores needing an opponent, discards or sacrifices (Deadeye "
    "Tracker, Tomb Robber, Legion Vanguard), dies (Miner's Guidewing), life gain (Amalia), "
    "Defossilize, and Maps given to the opponent or needing a target (Get Lost, Brackish "
    "Blunder, Fanatical Offering): such cards are cast as vanilla cards",
}


def create_maps(game: Goldfish, state: GameState, rows: np.ndarray, count: np.ndarray | int) -> None:
    """Create ``count`` Maps in each of ``rows``; each Worldwalker Helm adds one per
    creation (M6)."""
    count = np.broadcast_to(np.asarray(count, dtype=np.int32), rows.shape)
    making = count > 0
    rows, count = rows[making], count[making]
    created = count + game.count(state, "helm", rows)
    state.maps[rows] += created
    state.totals["maps_created"][rows] += created


def enters(game: Goldfish, state: GameState, rows: np.ndarray, card: np.ndarray | int,
           x: np.ndarray | None = None, tapped: np.ndarray | None = None) -> None:
    """Permanent ``card`` (aligned with rows) enters the battlefield, tapped where ``tapped``
    (aligned with rows) says; then its enter triggers."""
    kinds = kinds_in(card) if np.ndim(card) else [int(card)] if len(rows) else []
    card = np.broadcast_to(np.asarray(card, dtype=np.intp), rows.shape)
    for kind in kinds:
        is_kind = card == kind
        here = rows[is_kind]
        with game.mana.track(state, here, kind):
            enter(state, here, kind)
            if tapped is not None:
                state.tapped[here[tapped[is_kind]], kind] += 1
    for kind in kinds:
        here = card == kind
        entering = rows[here]
        info = game.f.cards[kind - 1]
        if info.extra_land == "each_turn":  # Janeway: an additional land this turn too
            state.land_drops[entering] += 1
            state.totals["extra_land_drops"][entering] += 1
        if info.maps_when in {"enter", "enter_or_attack"}:
            create_maps(game, state, entering, info.maps)
        alive = np.ones(len(entering), dtype=bool)  # this very permanent, until removed
        if info.explores_when == "enter":
            count = (x[here] if x is not None else 0) if info.explores_x else info.explores
            if info.explore_targets:  # Twists and Turns: target creature you control
                target = game.pick_creature(state, entering)
                has = target != EMPTY
                count = np.broadcast_to(count, entering.shape)[has]
                explore_instruction(game, state, entering[has], target[has], count, True)
            else:
                alive &= explore_instruction(game, state, entering, kind, count, False, alive,
                                             just_entered=True)
        if info.is_creature:
            # Path of Discovery, Janeway (itself included): that creature explores.
            triggers = game.count(state, "enters_explorer", entering)
            for k in range(int(triggers.max(initial=0))):
                again = k < triggers
                alive[again] &= explore_instruction(
                    game, state, entering[again], kind, 1, False, alive[again],
                    just_entered=True)
        if info.fetch_when == "enter":  # District Guide: a basic land card into your hand
            search_basics(game, state, entering, info.fetch)


def resolve(game: Goldfish, state: GameState, rows: np.ndarray, kind: int,
            x: np.ndarray | None = None) -> None:
    """Card ``kind``, just cast in each of ``rows``, resolves: a permanent enters the
    battlefield (:func:`enters`); an instant or sorcery does what it says and goes to the
    graveyard (a targeted explore needs a creature you control; an extra land drop this
    turn; "draw a card")."""
    info = game.f.cards[kind - 1]
    if info.is_permanent:
        enters(game, state, rows, kind, x)
        return
    resolved = np.ones(len(rows), dtype=bool)
    if info.explores_when == "cast":  # Enter the Unknown, Over the Edge: targeted
        target = game.pick_creature(state, rows)
        has = target != EMPTY
        # E9, CR 608.2b: if the only target is gone, the spell does nothing at all.
        resolved[has] = explore_instruction(game, state, rows[has], target[has], info.explores,
                                            True)
        resolved[~has] = False
    state.graveyard[rows] += 1
    if info.extra_land == "this_turn":
        gets = rows[resolved]
        state.land_drops[gets] += 1
        state.totals["extra_land_drops"][gets] += 1
    if info.has_keyword("draw"):
        game.draw(state, rows)
    if info.fetch_when == "cast":  # Rampant Growth, Cultivate, Kodama's Reach
        search_basics(game, state, rows, info.fetch)


def can_pay(game: Goldfish, state: GameState, rows: np.ndarray, cost: str,
            unavailable: tuple[int, int] | None = None) -> np.ndarray:
    """Whether the untapped sources (and the pool) can pay ``cost`` in each of ``rows``,
    not counting ``unavailable`` (card id, copies) that pays part of the cost by tapping."""
    if not rows.size:
        return np.zeros(0, dtype=bool)
    mana = game.mana
    return mana.payable_any(mana.unit_sets(state, rows, unavailable), mana.cost_mode[cost])


def equip(game: Goldfish, state: GameState, rows: np.ndarray) -> np.ndarray:
    """Attach an unattached Glowcap Lantern for its equip cost when a creature is there."""
    if game.lantern_ids.size == 0:
        return np.zeros(len(rows), dtype=bool)
    cost = game.f.cards[game.lantern_ids[0] - 1].ability_cost
    free = game.count(state, "lantern", rows) - state.equipped[rows]
    equipping = (free > 0) & (game.creatures(state, rows) > 0)
    equipping[equipping] = can_pay(game, state, rows[equipping], cost)
    equipped = rows[equipping]
    if equipped.size:
        game.pay(state, equipped, [game.mana.cost_mode[cost]])
        state.equipped[equipped] += 1
    return equipping


def activate_map(game: Goldfish, state: GameState, rows: np.ndarray) -> np.ndarray:
    """One Map activation where possible (M1-M5); the target is a creature you control."""
    if not game.config.use_maps:
        return np.zeros(len(rows), dtype=bool)
    can = state.maps[rows] > 0
    can[can] = can_pay(game, state, rows[can], "{1}")
    target = np.full(len(rows), EMPTY, dtype=np.intp)
    target[can] = game.pick_creature(state, rows[can])
    # M2: {1}, {T}, sacrifice; M3: sorcery speed (main phase); M4: needs a target;
    # M5: no summoning sickness for the Map itself.
    using = can & (target != EMPTY)
    users = rows[using]
    if users.size:
        state.maps[users] -= 1
        game.pay(state, users, [game.mana.cost_mode["{1}"]])
        state.totals["maps_used"][users] += 1
        explore_instruction(game, state, users, target[using], 1, targeted=True)  # E9
    return using


def activate_explore_ability(game: Goldfish, state: GameState, rows: np.ndarray) -> np.ndarray:
    """Seeker of Sunlight's sorcery-speed "{2}{G}: it explores" with mana left."""
    progressed = np.zeros(len(rows), dtype=bool)
    for kind in game.seeker_ids.tolist():
        cost = game.f.cards[kind - 1].ability_cost
        using = state.battlefield[rows, kind] > 0
        using[using] = can_pay(game, state, rows[using], cost)
        users = rows[using]
        if users.size:
            game.pay(state, users, [game.mana.cost_mode[cost]])
            explore_instruction(game, state, users, kind, 1, targeted=False)
            progressed |= using
    return progressed


def activate_search(game: Goldfish, state: GameState, rows: np.ndarray) -> np.ndarray:
    """Myriad Landscape's "{2}, {T}, Sacrifice: search for two basic lands" with mana left,
    where the library holds a basic land."""
    progressed = np.zeros(len(rows), dtype=bool)
    for kind in game.activated_search_ids.tolist():
        info = game.f.cards[kind - 1]
        using = state.battlefield[rows, kind] - state.tapped[rows, kind] > 0
        using[using] = row_sum(game.basics_in_library(state, rows[using])) > 0
        using[using] = can_pay(game, state, rows[using], info.ability_cost, (kind, 1))
        users = rows[using]
        if users.size:
            game.pay(state, users, [game.mana.cost_mode[info.ability_cost]],
                     unavailable=(kind, 1))
            game.sacrifice(state, users, kind)  # an untapped one: {T} is part of the cost
            search_basics(game, state, users, info.fetch)
            progressed |= using
    return progressed


def beginning_of_combat(game: Goldfish, state: GameState) -> None:
    """Deepfathom Echo explores; each Hakbal makes every Merfolk you control explore, one
    effect whose explore triggers wait until every Merfolk has explored (E8)."""
    trials = state.trials
    for kind in game.combat_explorer_ids.tolist():
        count = state.battlefield[:, kind].astype(np.int32)
        for k in range(int(count.max(initial=0))):
            explore_instruction(game, state, np.flatnonzero(k < count), kind, 1, False)
    hakbals = game.count(state, "hakbal", np.arange(trials))
    for h in range(int(hakbals.max(initial=0))):
        pending = [np.zeros(trials, dtype=np.int32) for _ in range(3)]
        for kind in game.merfolk_ids.tolist():
            count = np.where(h < hakbals, state.battlefield[:, kind], 0)
            for k in range(int(count.max(initial=0))):
                explore_instruction(game, state, np.flatnonzero(k < count), kind, 1, False,
                                    pending=pending)
        fired = np.flatnonzero(h < hakbals)
        explore_triggers(game, state, fired, *(part[fired] for part in pending))


def animate_lands(game: Goldfish, state: GameState) -> np.ndarray:
    """Restless Anchorage becomes a creature for {1}{W}{U} when other sources can pay it (it
    cannot tap for its own animation) and attacks (tapped); returns the animated lands per
    trial, shape (trials,)."""
    animated = np.zeros(state.trials, dtype=np.int32)
    everyone = np.arange(state.trials)
    for kind in game.anchorage_ids.tolist():
        cost = game.f.cards[kind - 1].ability_cost
        ready = (state.battlefield[:, kind] - state.sick[:, kind] - state.tapped[:, kind]) > 0
        ready[ready] = can_pay(game, state, everyone[ready], cost, (kind, 1))
        animating = everyone[ready]
        if animating.size:
            game.pay(state, animating, [game.mana.cost_mode[cost]], unavailable=(kind, 1))
            with game.mana.track(state, animating, kind):
                state.tapped[animating, kind] += 1  # it attacks
            animated[animating] += 1
    return animated


def crew_vehicles(game: Goldfish, state: GameState,
                  attackers: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Crew Subterranean Schooner with a creature (a summoning-sick one when possible); a
    crewing creature is tapped and leaves ``attackers`` (trials, n_cards + 1), updated in place.

    Returns
    -------
    list of (rows, crewer card id) per Schooner kind
    """
    crewers = []
    for kind in game.schooner_ids.tolist():
        ready = np.flatnonzero((state.battlefield[:, kind] - state.sick[:, kind]) > 0)
        crewer = game.pick_creature(state, ready, prefer_sick=True)
        has = crewer != EMPTY
        crew_rows, crewer = ready[has], crewer[has]
        tapped = attackers[crew_rows, crewer] > 0
        attackers[crew_rows[tapped], crewer[tapped]] -= 1
        crewers.append((crew_rows, crewer))
    return crewers


def attack_triggers(game: Goldfish, state: GameState, attackers: np.ndarray,
                    animated_lands: np.ndarray,
                    crewers: list[tuple[np.ndarray, np.ndarray]]) -> None:
    """"Whenever it attacks" triggers, in this order: Map makers (Sentinel of the Nameless
    City, an animated Restless Anchorage), attacking explorers, parley (Storm Fleet
    Negotiator), the creatures that crewed Subterranean Schooner, Hakbal's land or card,
    Glowcap Lantern.

    Parameters
    ----------
    attackers : ndarray, shape (trials, n_cards + 1), int32
        Attacking creatures per card id.
    animated_lands : ndarray, shape (trials,)
        Animated Restless Anchorages (they attack too).
    crewers : list of (rows, crewer card id)
        From :func:`crew_vehicles`.
    """
    everyone = np.arange(state.trials)
    any_attacker = row_sum(attackers) > 0
    for kind in game.attack_map_ids.tolist():
        create_maps(game, state, everyone, attackers[:, kind] * game.f.cards[kind - 1].maps)
    create_maps(game, state, everyone, animated_lands)
    for kind in game.attack_explorer_ids.tolist():
        for k in range(int(attackers[:, kind].max(initial=0))):
            explore_instruction(game, state, np.flatnonzero(k < attackers[:, kind]), kind, 1, False)
    for kind in game.parley_ids.tolist():
        for k in range(int(attackers[:, kind].max(initial=0))):
            parley(game, state, np.flatnonzero(k < attackers[:, kind]))
    for crew_rows, crewer in crewers:
        explore_instruction(game, state, crew_rows, crewer, 1, targeted=True)
    # Hakbal of the Surging Soul: put a land card from hand onto the battlefield; if you
    # don't (you have none), draw a card.
    for kind in game.attack_land_ids.tolist():
        for k in range(int(attackers[:, kind].max(initial=0))):
            attacking = np.flatnonzero(k < attackers[:, kind])
            put = put_land(game, state, attacking, tapped=False)
            game.draw(state, attacking[~put])
    # Glowcap Lantern: each equipped attacker explores (the first attacking creature carries
    # the equipment).
    lantern_explores = np.where(any_attacker, np.minimum(state.equipped, row_sum(attackers)), 0)
    explorer = np.argmax(attackers > 0, axis=1)
    for k in range(int(lantern_explores.max(initial=0))):
        lantern_rows = np.flatnonzero(k < lantern_explores)
        explore_instruction(game, state, lantern_rows, explorer[lantern_rows], 1, False)


def combat_damage_triggers(game: Goldfish, state: GameState, attackers: np.ndarray) -> None:
    """Unblocked attackers deal combat damage: Emperor's Vanguard explores (if it is still on
    the battlefield)."""
    for kind in game.damage_explorer_ids.tolist():
        attacking = np.minimum(attackers[:, kind], state.battlefield[:, kind])
        for k in range(int(attacking.max(initial=0))):
            explore_instruction(game, state, np.flatnonzero(k < attacking), kind, 1, False)


def parley(game: Goldfish, state: GameState, rows: np.ndarray) -> None:
    """Storm Fleet Negotiator: each player reveals the top card; a Map per nonland
    revealed; then each player draws a card."""
    mine = game.peek(state, rows)
    theirs_nonland = game.rngs["parley"].random(len(rows)) >= game.config.opponent_land_fraction
    create_maps(game, state, rows, game.f.is_nonland[mine].astype(np.int32) + theirs_nonland)
    game.draw(state, rows)
