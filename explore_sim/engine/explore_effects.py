"""Explore instructions: one effect's explores with their replacements, then its triggers.

An *explore instruction* is one effect that makes a permanent explore one or more times (an
enter trigger, a Map token, a spell). Each explore is replaced by Topography Tracker (R1:
explore, then explore again) and Twists and Turns (R2: scry 1 first), in the order chosen by
:attr:`GameConfig.replacement_order` (R3); each single explore is decided by the pure rule
:func:`explore_sim.engine.rules.explore_outcome` with the keep-or-mill policy's choice
(E1-E7, E9), and "whenever a creature you control explores" triggers go on the stack after
the whole effect (E8). Every function acts on ``rows``, the trials concerned.
"""

from __future__ import annotations

import numpy as np

from ..cards import EMPTY
from . import zones
from .castability import castable_card, castable_next_turn
from .context import Play
from .policies import Observation, decide
from .rowwise import row_sum
from .rules import ExploreEvents, explore_outcome
from .state import GameState, add_counters, of_rows, to_hand
from .zones import peek, remove

__all__ = ["explore_instruction", "explore_triggers", "scry", "observe", "MAX_TRACKER_DOUBLINGS"]

#: The most explores one instruction may expand to (Topography Trackers double each other).
MAX_TRACKER_DOUBLINGS = 6


def observe(
    play: Play, state: GameState, rows: np.ndarray, revealed: np.ndarray,
    explores_left: np.ndarray, counters: np.ndarray, present: np.ndarray,
) -> Observation:
    """What the player sees when choosing keep or mill for ``revealed`` in ``rows``.

    Counts are computed only if the policy asks for them; the state does not change while
    the policy decides.
    """
    return Observation.build(
        play.tables.features,
        revealed,
        cards_in_hand=lambda: row_sum(of_rows(state.hand, rows), np.int32),
        lands_in_hand=lambda: state.hand_lands[rows],
        lands_in_play=lambda: zones.count(play, state, "land", rows),
        mana_sources=lambda: zones.count(play, state, "source", rows),
        castable_now=lambda: castable_card(play, revealed, play.mana.unit_sets(state, rows)),
        castable_next_turn=lambda: castable_next_turn(play, state, rows, revealed),
        turn=state.turn,
        explores_left=explores_left,
        counters=counters,
        explorer_present=present,
        library_size=lambda: state.end[rows] - state.top[rows],
        lands_in_library=lambda: state.library_lands[rows],
    )


def explore_instruction(
    play: Play,
    state: GameState,
    rows: np.ndarray,
    explorer: np.ndarray | int,
    count: np.ndarray | int,
    targeted: bool,
    present: np.ndarray | None = None,
    pending: list[np.ndarray] | None = None,
    just_entered: bool = False,
) -> np.ndarray:
    """One effect that makes ``explorer`` explore ``count`` times (E6), then its triggers.

    Parameters
    ----------
    rows : ndarray of int
        Trials in which the effect resolves.
    explorer : ndarray aligned with rows, or int
        Card id of the exploring permanent.
    count : ndarray aligned with rows, or int
        Explores the effect makes before replacements.
    targeted : bool
        The effect targets the explorer (Map, spell): if it is gone, nothing happens (E9).
    present : ndarray aligned with rows, bool, optional
        False where this very permanent has already left the battlefield (an earlier
        trigger of the same event removed it). Default: it is there if a permanent of its
        kind is.
    pending : list of three ndarrays of shape (trials,), optional
        For effects that make several permanents explore (Hakbal): the explores are
        added to ``pending`` (explored, lands, nonlands, by trial) and the caller resolves
        the triggers once, after the whole effect (E8). Default: resolve them here.
    just_entered : bool
        The explorer is the permanent that just entered (its enter trigger): the removal
        model removes that copy, not an older one.

    Returns
    -------
    ndarray aligned with rows, bool
        Where the explorer is still on the battlefield afterwards.
    """
    explorer = np.broadcast_to(np.asarray(explorer, dtype=np.intp), rows.shape)
    count = np.broadcast_to(np.asarray(count, dtype=np.int32), rows.shape)
    on_battlefield = (explorer != EMPTY) & (state.battlefield[rows, explorer] > 0)
    present = on_battlefield if present is None else on_battlefield & present
    active = count > 0
    if not active.any():
        return present
    if play.config.removal > 0:
        present = removed_in_response(play, state, rows, explorer, active, present,
                                      just_entered)
    if targeted:
        active = active & present  # E9: the target is gone, nothing happens at all
    # E3: an explorer that is gone still explores, without counters.
    period, twists, steps, total_explores = replacement_schedule(play, state, rows, count,
                                                                 active)
    explored = np.zeros(len(rows), dtype=np.int32)
    lands = np.zeros(len(rows), dtype=np.int32)
    nonlands = np.zeros(len(rows), dtype=np.int32)
    counters = np.zeros(len(rows), dtype=np.int32)
    for step in range(int(steps.max())):
        in_step = step < steps
        is_scry = in_step & ((step % period) < twists)
        is_explore = in_step & ~is_scry
        if is_scry.any():
            s = np.flatnonzero(is_scry)
            scry(play, state, rows[s], total_explores[s] - explored[s], counters[s], present[s])
        e = np.flatnonzero(is_explore)
        if not e.size:
            continue
        events = explore_once(play, state, rows[e], total_explores[e] - explored[e],
                              counters[e], present[e])
        explored[e] += events.explored
        lands[e] += events.land_to_hand
        nonlands[e] += events.nonland
        counters[e] += events.counter
    # E2, E4: the counters go on the explorer (the copy that just entered, if it did).
    add_counters(state, rows, explorer, counters, just_entered)
    if pending is None:
        explore_triggers(play, state, rows, explored, lands, nonlands)
    else:
        for total, part in zip(pending, (explored, lands, nonlands)):
            total[rows] += part
    return present


def removed_in_response(play: Play, state: GameState, rows: np.ndarray, explorer: np.ndarray,
                        active: np.ndarray, present: np.ndarray, just_entered: bool
                        ) -> np.ndarray:
    """The removal model: an explorer about to explore (``active`` and ``present``) leaves
    in response with chance ``config.removal`` (E3). Returns ``present`` less the explorers
    removed, aligned with ``rows``."""
    roll = play.rngs["removal"].random(len(rows))
    gone = active & present & (roll < play.config.removal)
    remove(play, state, rows[gone], explorer[gone], just_entered)
    state.totals["explorers_removed"][rows[gone]] += 1
    return present & ~gone


def replacement_schedule(play: Play, state: GameState, rows: np.ndarray, count: np.ndarray,
                         active: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The steps an effect of ``count`` explores takes after its replacements, by row.

    R1 (Topography Tracker doubles each explore), R2 (Twists and Turns: scry 1 first), R3
    (the order chosen: tracker-first gives scry, explore, scry, explore). Returns ``period``
    (steps per explore instruction), ``twists`` (its scries, first), ``steps`` (all of
    them, 0 where not ``active``) and the explores the effect makes, each (len(rows),).
    """
    trackers = np.minimum(zones.count(play, state, "tracker", rows), MAX_TRACKER_DOUBLINGS)
    twists = zones.count(play, state, "twists", rows)
    explores_per = 2**trackers
    if play.config.replacement_order == "tracker-first":
        period = twists + 1
        steps = count * explores_per * period
    else:
        period = twists + explores_per
        steps = count * period
    return (period, twists, np.where(active, steps, 0),
            np.where(active, count * explores_per, 0))


def explore_once(play: Play, state: GameState, here: np.ndarray, explores_left: np.ndarray,
                 counters: np.ndarray, present: np.ndarray) -> ExploreEvents:
    """One explore in each game of ``here`` (trial indices): reveal, decide, and move the
    revealed card (E1, E2, E6, E7); the event counters are updated. Returns the
    :func:`~explore_sim.engine.rules.explore_outcome` events, aligned with ``here``."""
    revealed = peek(play, state, here)
    obs = observe(play, state, here, revealed, explores_left, counters, present)
    mill = decide(play.policy, obs, play.rngs["policy"])
    events = explore_outcome(revealed, play.tables.features, mill, present,
                             np.ones(len(here), dtype=bool))
    to_hand(state, here[events.land_to_hand], revealed[events.land_to_hand])  # E1
    state.top[here] += events.land_to_hand | events.milled  # E2: kept cards stay (E6, E7)
    state.library_lands[here] -= events.land_to_hand
    state.graveyard[here] += events.milled
    state.library_pips[here[events.milled]] -= play.tables.features.pips[revealed[events.milled]]
    totals = state.totals
    totals["explores"][here] += events.explored
    totals["explore_counters"][here] += events.counter
    totals["explore_lands"][here] += events.land_to_hand
    totals["milled"][here] += events.milled
    return events


def scry(play: Play, state: GameState, rows: np.ndarray, explores_left: np.ndarray,
          counters: np.ndarray, present: np.ndarray) -> None:
    """Scry 1 (R2): a land stays on top; a nonland goes to the bottom if the policy says so."""
    card = peek(play, state, rows)
    obs = observe(play, state, rows, card, explores_left, counters, present)
    bottom = (play.tables.features.is_nonland[card]
              & decide(play.scry_policy, obs, play.rngs["policy"]))
    moving = rows[bottom]
    width = state.library.shape[1]
    state.library[moving, state.end[moving] % width] = card[bottom]
    state.top[moving] += 1
    state.end[moving] += 1
    state.totals["scries"][rows[card != EMPTY]] += 1


def explore_triggers(play: Play, state: GameState, rows: np.ndarray, explored: np.ndarray,
                     lands: np.ndarray, nonlands: np.ndarray) -> None:
    """"Whenever a creature you control explores" triggers, after the whole effect (E8): the
    registry's ``"explore_trigger"`` step, for the rows where something explored."""
    fired = explored > 0
    if fired.any():
        play.run("explore_trigger", state, rows[fired], explored[fired], lands[fired],
                 nonlands[fired])
