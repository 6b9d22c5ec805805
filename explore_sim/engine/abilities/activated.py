"""Activated abilities used with the mana left in a main phase: equipment, Map tokens
(M1-M5), Seeker of Sunlight's explore and Myriad Landscape's search.

Each handler takes the trials that did nothing else this round and returns which of them
used an ability.
"""

from __future__ import annotations

import numpy as np

from ...cards import EMPTY
from ...cards.features import FETCH_CODES
from ..casting import pay
from ..context import Play
from ..explore_effects import explore_instruction
from ..lands import search_basics
from ..rowwise import row_sum
from ..state import GameState
from ..zones import basics_in_library, count, creatures, pick_creature, sacrifice

__all__ = ["can_pay", "equip", "activate_map", "activate_map_from_pool",
           "activate_explore_ability", "activate_search"]


def can_pay(play: Play, state: GameState, rows: np.ndarray, mode: int,
            unavailable: tuple[int, int] | None = None) -> np.ndarray:
    """Whether the untapped sources (and the pool) can pay cost ``mode`` in each of ``rows``,
    not counting ``unavailable`` (card id, copies) that pays part of the cost by tapping."""
    if not rows.size:
        return np.zeros(0, dtype=bool)
    mana = play.mana
    return mana.payable_any(mana.unit_sets(state, rows, unavailable), mode)


def equip(play: Play, state: GameState, rows: np.ndarray) -> np.ndarray:
    """Attach an unattached Glowcap Lantern for its equip cost when a creature is there."""
    lanterns = play.tables.ids["lantern"]
    if lanterns.size == 0:
        return np.zeros(len(rows), dtype=bool)
    mode = int(play.tables.ability_cost_mode[lanterns[0]])
    free = count(play, state, "lantern", rows) - state.equipped[rows]
    equipping = (free > 0) & (creatures(play, state, rows) > 0)
    equipping[equipping] = can_pay(play, state, rows[equipping], mode)
    equipped = rows[equipping]
    if equipped.size:
        pay(play, state, equipped, [mode])
        state.equipped[equipped] += 1
    return equipping


def activate_map(play: Play, state: GameState, rows: np.ndarray,
                 from_pool: bool = False) -> np.ndarray:
    """One Map activation where possible (M1-M5); the target is a creature you control.
    ``from_pool``: its {1} is a unit of the pool (which the caller saw holds one in each of
    ``rows``), no source tapped."""
    if not play.config.use_maps:
        return np.zeros(len(rows), dtype=bool)
    mode = play.mana.cost_mode["{1}"]
    can = state.maps[rows] > 0
    if not from_pool:
        can[can] = can_pay(play, state, rows[can], mode)
    target = np.full(len(rows), EMPTY, dtype=np.intp)
    target[can] = pick_creature(play, state, rows[can])
    # M2: {1}, {T}, sacrifice; M3: sorcery speed (main phase); M4: needs a target;
    # M5: no summoning sickness for the Map itself.
    using = can & (target != EMPTY)
    users = rows[using]
    if users.size:
        state.maps[users] -= 1
        if from_pool:
            play.mana.pay_from_pool(state, users)
        else:
            pay(play, state, users, [mode])
        state.totals["maps_used"][users] += 1
        explore_instruction(play, state, users, target[using], 1, targeted=True)  # E9
    return using


def activate_map_from_pool(play: Play, state: GameState, rows: np.ndarray) -> np.ndarray:
    """One Map activation paid from mana left in the pool (M1-M5), in either main phase:
    what a source made beyond a spell's need (Sol Ring, a Signet) or a bounce land's
    returned land made would empty at the end of the phase; no source is tapped for it."""
    using = np.zeros(len(rows), dtype=bool)
    if not state.pool_in_use:
        return using
    floating = state.pool[rows].sum(axis=1) > 0
    using[floating] = activate_map(play, state, rows[floating], from_pool=True)
    return using


def activate_explore_ability(play: Play, state: GameState, rows: np.ndarray) -> np.ndarray:
    """Seeker of Sunlight's sorcery-speed "{2}{G}: it explores" with mana left."""
    progressed = np.zeros(len(rows), dtype=bool)
    for kind in play.tables.ids["seeker"].tolist():
        mode = int(play.tables.ability_cost_mode[kind])
        using = state.battlefield[rows, kind] > 0
        using[using] = can_pay(play, state, rows[using], mode)
        users = rows[using]
        if users.size:
            pay(play, state, users, [mode])
            explore_instruction(play, state, users, kind, 1, targeted=False)
            progressed |= using
    return progressed


def activate_search(play: Play, state: GameState, rows: np.ndarray) -> np.ndarray:
    """Myriad Landscape's "{2}, {T}, Sacrifice: search for two basic lands" with mana left,
    where the library holds a basic land."""
    progressed = np.zeros(len(rows), dtype=bool)
    for kind in play.tables.ids["activated_search"].tolist():
        mode = int(play.tables.ability_cost_mode[kind])
        using = state.battlefield[rows, kind] - state.tapped[rows, kind] > 0
        using[using] = row_sum(basics_in_library(play, state, rows[using])) > 0
        using[using] = can_pay(play, state, rows[using], mode, (kind, 1))
        users = rows[using]
        if users.size:
            pay(play, state, users, [mode], unavailable=(kind, 1))
            sacrifice(play, state, users, kind)  # an untapped one: {T} is part of the cost
            search_basics(play, state, users,
                          FETCH_CODES[int(play.tables.features.fetch[kind])])
            progressed |= using
    return progressed
