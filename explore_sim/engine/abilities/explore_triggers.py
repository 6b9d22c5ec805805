""""Whenever a creature you control explores" triggers (E8), after a whole explore
instruction: each handler takes the trials where something explored and, per trial, the
explores, the lands and the nonlands revealed by the instruction."""

from __future__ import annotations

import numpy as np

from ..context import Play
from ..lands import put_land
from ..state import GameState
from ..zones import count

__all__ = ["walker", "caravel", "cave_diver", "chupacabra", "nicanzil", "counters_on_each"]


def counters_on_each(play: Play, state: GameState, rows: np.ndarray, group: str,
                     per_copy: np.ndarray) -> None:
    """``per_copy`` +1/+1 counters (aligned with ``rows``) on each permanent of ``group``,
    summoning sick or not (the counters of :attr:`GameState.counters`)."""
    for kind in play.tables.ids[group].tolist():
        sick = state.sick[rows, kind].astype(np.int32)
        state.sick_counters[rows, kind] += sick * per_copy
        state.counters[rows, kind] += (state.battlefield[rows, kind] - sick) * per_copy


def walker(play: Play, state: GameState, rows: np.ndarray, explored: np.ndarray,
           lands: np.ndarray, nonlands: np.ndarray) -> None:
    """Wildgrowth Walker: a +1/+1 counter on it and 3 life per explore."""
    walkers = count(play, state, "walker", rows)
    state.totals["trigger_counters"][rows] += walkers * explored
    counters_on_each(play, state, rows, "walker", explored)
    state.totals["life_gained"][rows] += 3 * walkers * explored


def caravel(play: Play, state: GameState, rows: np.ndarray, explored: np.ndarray,
            lands: np.ndarray, nonlands: np.ndarray) -> None:
    """Shadowed Caravel: a +1/+1 counter on it per explore."""
    state.totals["trigger_counters"][rows] += count(play, state, "caravel", rows) * explored
    counters_on_each(play, state, rows, "caravel", explored)


def cave_diver(play: Play, state: GameState, rows: np.ndarray, explored: np.ndarray,
               lands: np.ndarray, nonlands: np.ndarray) -> None:
    """Merfolk Cave-Diver: +1/+0 and can't be blocked this turn, per explore."""
    state.totals["cave_diver_pumps"][rows] += count(play, state, "cave_diver", rows) * explored


def chupacabra(play: Play, state: GameState, rows: np.ndarray, explored: np.ndarray,
               lands: np.ndarray, nonlands: np.ndarray) -> None:
    """Lurking Chupacabra: target opposing creature gets -2/-2, per explore."""
    state.totals["chupacabra_triggers"][rows] += count(play, state, "chupacabra", rows) * explored


def nicanzil(play: Play, state: GameState, rows: np.ndarray, explored: np.ndarray,
             lands: np.ndarray, nonlands: np.ndarray) -> None:
    """Nicanzil: a nonland explored gives it a counter; a land explored lets you put a land
    from hand onto the battlefield tapped, declined while the land drops left this turn could
    play every land card in hand (untapped, as land drops). Neither fires on an empty library
    (E4)."""
    nicanzils = count(play, state, "nicanzil", rows)
    state.totals["trigger_counters"][rows] += nicanzils * nonlands
    counters_on_each(play, state, rows, "nicanzil", nonlands)
    land_triggers = nicanzils * lands
    for k in range(int(land_triggers.max(initial=0))):
        # "you may": declined while each land card in hand can still be a land drop
        putting = rows[(k < land_triggers) & (state.hand_lands[rows] > state.land_drops[rows])]
        put = put_land(play, state, putting)
        state.totals["nicanzil_lands"][putting[put]] += 1
