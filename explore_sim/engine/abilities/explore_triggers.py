""""Whenever a creature you control explores" triggers (E8), after a whole explore
instruction: each handler takes the trials where something explored and, per trial, the
explores, the lands and the nonlands revealed by the instruction."""

from __future__ import annotations

import numpy as np

from ..context import Play
from ..lands import put_land
from ..state import GameState
from ..zones import count

__all__ = ["walker", "caravel", "cave_diver", "chupacabra", "nicanzil"]


def walker(play: Play, state: GameState, rows: np.ndarray, explored: np.ndarray,
           lands: np.ndarray, nonlands: np.ndarray) -> None:
    """Wildgrowth Walker: a +1/+1 counter on it and 3 life per explore."""
    walkers = count(play, state, "walker", rows)
    state.totals["trigger_counters"][rows] += walkers * explored
    state.totals["life_gained"][rows] += 3 * walkers * explored


def caravel(play: Play, state: GameState, rows: np.ndarray, explored: np.ndarray,
            lands: np.ndarray, nonlands: np.ndarray) -> None:
    """Shadowed Caravel: a +1/+1 counter on it per explore."""
    state.totals["trigger_counters"][rows] += count(play, state, "caravel", rows) * explored


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
    from hand onto the battlefield tapped. Neither fires on an empty library (E4)."""
    nicanzils = count(play, state, "nicanzil", rows)
    state.totals["trigger_counters"][rows] += nicanzils * nonlands
    land_triggers = nicanzils * lands
    for k in range(int(land_triggers.max(initial=0))):
        putting = rows[k < land_triggers]
        put = put_land(play, state, putting)
        state.totals["nicanzil_lands"][putting[put]] += 1
