"""Abilities of permanents entering and of instants and sorceries resolving.

The ``"enter"`` handlers take an :class:`~explore_sim.engine.zones.EnterEvent` and act only
when the entering kind has their ability (or, for Path of Discovery, when a creature enters
while one is on the battlefield); the ``"resolve"`` handlers take a
:class:`~explore_sim.engine.casting.ResolveEvent`. The extra land drops of Janeway act at
the untap step too.
"""

from __future__ import annotations

import numpy as np

from ...cards import EMPTY
from ...cards.features import FETCH_CODES
from ..casting import ResolveEvent
from ..context import Play
from ..explore_effects import explore_instruction
from ..lands import search_basics, search_lands
from ..state import GameState
from ..zones import EnterEvent, count, create_maps, draw, pick_creature

__all__ = ["extra_land_each_turn", "extra_land_when_entering", "maps_on_enter",
           "explores_on_enter", "target_explores_on_enter", "creature_enters_explores",
           "search_on_enter", "draws_on_enter", "spell_explores", "extra_land_this_turn",
           "spell_draws", "spell_searches"]


def _has(play: Play, group: str, kind: int) -> bool:
    return bool(play.tables.members[kind, play.tables.group(group)])


def extra_land_each_turn(play: Play, state: GameState) -> None:
    """Janeway: an additional land drop each turn, one per copy you control."""
    extra = count(play, state, "each_turn_land", np.arange(state.trials))
    state.land_drops += extra
    state.totals["extra_land_drops"] += extra


def extra_land_when_entering(play: Play, state: GameState, event: EnterEvent) -> None:
    """Janeway: the additional land drop, the turn it enters too."""
    if _has(play, "each_turn_land_on_enter", event.kind):
        state.land_drops[event.rows] += 1
        state.totals["extra_land_drops"][event.rows] += 1


def maps_on_enter(play: Play, state: GameState, event: EnterEvent) -> None:
    """Map tokens when it enters (M1)."""
    if _has(play, "maps_on_enter", event.kind):
        create_maps(play, state, event.rows, int(play.tables.features.maps[event.kind]))


def _explores_of(play: Play, event: EnterEvent) -> np.ndarray | int:
    """How many times the entering permanent's ability explores: X for Jadelight Spelunker."""
    if event.kind in play.tables.x_ids:
        return event.x if event.x is not None else 0
    return int(play.tables.features.explores[event.kind])


def explores_on_enter(play: Play, state: GameState, event: EnterEvent) -> None:
    """It explores when it enters (E6: ``explores`` times, one after another)."""
    if _has(play, "explores_on_enter", event.kind):
        event.alive &= explore_instruction(play, state, event.rows, event.kind,
                                           _explores_of(play, event), False, event.alive,
                                           just_entered=True)


def target_explores_on_enter(play: Play, state: GameState, event: EnterEvent) -> None:
    """Twists and Turns: target creature you control explores (E9 if it is gone)."""
    if not _has(play, "target_explores_on_enter", event.kind):
        return
    target = pick_creature(play, state, event.rows)
    has = target != EMPTY
    explores = np.broadcast_to(_explores_of(play, event), event.rows.shape)[has]
    explore_instruction(play, state, event.rows[has], target[has], explores, True)


def creature_enters_explores(play: Play, state: GameState, event: EnterEvent) -> None:
    """Path of Discovery, Janeway (itself included): a creature that enters explores, once
    per such permanent."""
    if not play.tables.features.is_creature[event.kind]:
        return
    triggers = count(play, state, "enters_explorer", event.rows)
    for k in range(int(triggers.max(initial=0))):
        again = k < triggers
        event.alive[again] &= explore_instruction(
            play, state, event.rows[again], event.kind, 1, False, event.alive[again],
            just_entered=True)


def search_on_enter(play: Play, state: GameState, event: EnterEvent) -> None:
    """District Guide: a basic land card into your hand when it enters."""
    if _has(play, "basic_to_hand_on_enter", event.kind):
        search_basics(play, state, event.rows,
                      FETCH_CODES[int(play.tables.features.fetch[event.kind])])


def draws_on_enter(play: Play, state: GameState, event: EnterEvent) -> None:
    """"When it enters, draw a card" (Elvish Visionary): the permanent's ``draws``."""
    if _has(play, "draws_on_enter", event.kind):
        _draws(play, state, event.rows, event.kind)


def spell_explores(play: Play, state: GameState, event: ResolveEvent) -> None:
    """Enter the Unknown, Over the Edge: target creature you control explores; with no
    target left the spell does nothing at all (E9, CR 608.2b)."""
    if not _has(play, "spell_explores", event.kind):
        return
    target = pick_creature(play, state, event.rows)
    has = target != EMPTY
    event.resolved[has] = explore_instruction(
        play, state, event.rows[has], target[has],
        int(play.tables.features.explores[event.kind]), True)
    event.resolved[~has] = False


def extra_land_this_turn(play: Play, state: GameState, event: ResolveEvent) -> None:
    """Enter the Unknown: you may play an additional land this turn."""
    if _has(play, "extra_land_this_turn", event.kind):
        gets = event.rows[event.resolved]
        state.land_drops[gets] += 1
        state.totals["extra_land_drops"][gets] += 1


def _draws(play: Play, state: GameState, rows: np.ndarray, kind: int) -> None:
    """``rows`` draw the cards card ``kind`` draws, one after another."""
    for _ in range(int(play.tables.features.draws[kind])):
        draw(play, state, rows)


def spell_draws(play: Play, state: GameState, event: ResolveEvent) -> None:
    """"Draw two cards" (Divination): the spell's ``draws``."""
    if _has(play, "draws", event.kind):
        _draws(play, state, event.rows, event.kind)


def spell_searches(play: Play, state: GameState, event: ResolveEvent) -> None:
    """Rampant Growth, Cultivate, Kodama's Reach: basic lands from the library."""
    if _has(play, "ramp", event.kind):
        search_basics(play, state, event.rows,
                      FETCH_CODES[int(play.tables.features.fetch[event.kind])])


def spell_searches_lands(play: Play, state: GameState, event: ResolveEvent) -> None:
    """Nature's Lore, Three Visits, Farseek: a land card of the named types from the library,
    onto the battlefield (untapped or tapped) or into the hand."""
    if _has(play, "land_search", event.kind):
        f = play.tables.features
        search_lands(play, state, event.rows, FETCH_CODES[int(f.fetch[event.kind])],
                     int(f.fetch_types[event.kind]))
