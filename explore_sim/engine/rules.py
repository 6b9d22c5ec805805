"""Pure batched rule transitions: reveal, explore, draw.

Each function takes an :class:`~explore_sim.state.ExploreState` and returns a new one; no
function loops over trials, modifies its inputs or calls a policy. The runner reveals, asks
the policy for its keep-or-mill decision, and passes that decision in (rules never
call policies). Comments cite the items of docs/rules.md.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..cards import EMPTY, FeatureTable
from .state import ExploreState

__all__ = ["ExploreEvents", "reveal", "explore_outcome", "explore", "draw", "remove_explorer"]


@dataclasses.dataclass(frozen=True, eq=False)
class ExploreEvents:
    """What one explore did in each trial; every array has shape ``(trials,)``.

    Attributes
    ----------
    revealed : ndarray of int16
        The revealed card id, ``EMPTY`` where nothing was revealed.
    explored : ndarray of bool
        The explore happened (false only for a targeted explore whose target was gone, E9).
        "Whenever a creature explores" triggers fire once per true entry (E3, E4), after the
        whole effect has finished (E8).
    land_to_hand : ndarray of bool
        A land card was revealed and put into the hand (E1).
    nonland : ndarray of bool
        A nonland card was revealed (E2, E3).
    empty : ndarray of bool
        The library was empty, nothing was revealed (E4).
    counter : ndarray of bool
        A +1/+1 counter went on the explorer (E2, E4; not when the explorer is gone, E3).
    milled : ndarray of bool
        The revealed nonland card was put into the graveyard.
    """

    revealed: np.ndarray
    explored: np.ndarray
    land_to_hand: np.ndarray
    nonland: np.ndarray
    empty: np.ndarray
    counter: np.ndarray
    milled: np.ndarray


def reveal(state: ExploreState) -> np.ndarray:
    """The top card of each library, ``EMPTY`` where the library is empty.

    Returns
    -------
    ndarray, shape (trials,), int16
    """
    return np.take_along_axis(state.library, state.top[:, None], axis=1)[:, 0]


def explore_outcome(
    revealed: np.ndarray,
    features: FeatureTable,
    mill: np.ndarray,
    explorer_present: np.ndarray,
    active: np.ndarray,
) -> ExploreEvents:
    """What one explore does with the revealed cards (docs/rules.md E1-E5, E9); no state change.

    Parameters
    ----------
    revealed : ndarray, shape (trials,), int16
        The top card of each library, ``EMPTY`` where it is empty or the explore is inactive.
    features : FeatureTable
    mill : ndarray, shape (trials,), bool
        The player's choice for a revealed nonland card (True: graveyard, False: stays on
        top). Ignored where the card is a land or nothing was revealed.
    explorer_present : ndarray, shape (trials,), bool
        False where the explorer has left the battlefield (E3).
    active : ndarray, shape (trials,), bool
        Trials in which the explore happens at all (False: E9, a targeted explore whose target
        is gone, which does nothing and triggers nothing).
    """
    revealed = np.where(active, revealed, EMPTY)
    # E10: the card's type in the library decides (the feature table already encodes it).
    is_land = features.is_land[revealed]
    is_nonland = features.is_nonland[revealed]
    # E4: no card to reveal; the explore still happens and still gives the counter.
    is_empty = active & (revealed == EMPTY)
    # E2 (counter on a nonland), E4 (counter on an empty library); E3: only if the explorer
    # is still on the battlefield. E5: any permanent explorer gets it, creature or not.
    counter = (is_nonland | is_empty) & explorer_present
    # E2: the choice is the player's; E3: it is still made when the explorer is gone.
    milled = is_nonland & np.asarray(mill, dtype=bool)
    return ExploreEvents(
        revealed=revealed,
        explored=np.array(active, dtype=bool, copy=True),
        land_to_hand=is_land,
        nonland=is_nonland,
        empty=is_empty,
        counter=counter,
        milled=milled,
    )


def explore(
    state: ExploreState,
    features: FeatureTable,
    mill: np.ndarray,
    active: np.ndarray | None = None,
) -> tuple[ExploreState, ExploreEvents]:
    """One complete explore in every active trial (docs/rules.md E1-E6, E9).

    Parameters
    ----------
    state : ExploreState
    features : FeatureTable
    mill : ndarray, shape (trials,), bool
        The player's choice for a revealed nonland card: True puts it into the graveyard,
        False leaves it on top. Ignored where the card is a land or nothing was revealed.
    active : ndarray, shape (trials,), bool, optional
        Trials in which the explore happens. A targeted explore whose target is gone does
        nothing at all, not even triggers (E9): pass False there. Default: all trials.

    Returns
    -------
    (ExploreState, ExploreEvents)
    """
    if active is None:
        active = np.ones(state.trials, dtype=bool)
    events = explore_outcome(reveal(state), features, mill, state.explorer_present, active)
    # E1: a land goes to hand; a milled card goes to the graveyard; a kept card stays on top,
    # so the next explore reveals it again (E6) and the next draw takes it (E7).
    leaves_library = events.land_to_hand | events.milled
    new_state = dataclasses.replace(
        state,
        top=state.top + leaves_library,
        library_lands=state.library_lands - events.land_to_hand,
        cards_in_hand=state.cards_in_hand + events.land_to_hand,
        lands_in_hand=state.lands_in_hand + events.land_to_hand,
        counters=state.counters + events.counter,
        graveyard=state.graveyard + events.milled,
    )
    return new_state, events


def draw(state: ExploreState, features: FeatureTable) -> tuple[ExploreState, np.ndarray]:
    """Every trial draws its top card (a card kept on top by explore comes first, E7).

    Returns
    -------
    (ExploreState, ndarray of shape (trials,), int16)
        The new state and the drawn card ids, ``EMPTY`` where the library was empty (the
        caller decides what drawing from an empty library means; explore is not drawing, E4).
    """
    card = reveal(state)
    has_card = card != EMPTY
    is_land = features.is_land[card]
    new_state = dataclasses.replace(
        state,
        top=state.top + has_card,
        library_lands=state.library_lands - is_land,
        cards_in_hand=state.cards_in_hand + has_card,
        lands_in_hand=state.lands_in_hand + is_land,
    )
    return new_state, card


def remove_explorer(state: ExploreState, leaves: np.ndarray) -> ExploreState:
    """The explorer leaves the battlefield where ``leaves`` is true (E3's removal)."""
    return dataclasses.replace(
        state, explorer_present=state.explorer_present & ~np.asarray(leaves, dtype=bool)
    )

