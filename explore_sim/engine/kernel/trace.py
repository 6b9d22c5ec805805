"""A game's log: what the compiled game did, written only when a trace is asked for.

Part of the compiled game (:mod:`explore_sim.engine.kernel`). The state's ``trace``
(int32, ``(rows, 5)``) is empty in every run that plays for numbers: :func:`note` then
returns at its first branch and nothing else changes. With rows, row 0 holds the events
written and whether some did not fit, and every later row one event:
``(turn, event, card, a, b)``, the event numbered as in :data:`TRACE_EVENTS`.
"""

from __future__ import annotations

from .records import compiled
from .state import TURN

__all__ = ["TRACE_EVENTS", "note", "tracing"]

#: The events of a trace, in their numbering, with what ``card``, ``a`` and ``b`` hold.
TRACE_EVENTS = (
    "deal",        # a hand is dealt: a = the attempt (0: the first hand), b = cards dealt
    "dealt",       # card = a card of that hand
    "bottom",      # card = a card put on the bottom of the library (London mulligan)
    "keep",        # the hand is kept: a = mulligans taken, b = lands in it
    "mulligan",    # the hand is shuffled away: b = lands in it
    "draw",        # card = the card drawn
    "decked",      # a draw from an empty library
    "land",        # the land drop: card = the land (its land face), a = 1 if tapped
    "land_put",    # a land put onto the battlefield by an effect: as for land
    "land_leaves", # card = a land leaving the battlefield (bounced, sacrificed)
    "cast",        # card = the spell, a = mana paid, b = X (-1 without)
    "explore",     # card = revealed (0: none), a = 1 land to hand, 2 kept, 3 milled, 0 none;
                   # b = the explorer
    "removed",     # card = an explorer removed in response to its explore
    "maps_made",   # a = Maps created
    "map_used",    # card = the creature a Map makes explore
    "damage",      # a = combat damage dealt this turn, b = the opponent's damage so far
    "discard",     # card = discarded down to the hand limit, a = copies
    "end_turn",    # a = lands in play, b = cards in hand
    "attack",      # card = an attacking creature, a = copies attacking, b = their damage
    "scry",        # card = the top card seen, a = 1 put on the bottom, 0 kept on top
    "combat",      # the beginning of combat
    "counters",    # card = a permanent given +1/+1 counters, a = counters, b = its copies
    "explore_effect",  # card = the card whose trigger, ability or spell makes a creature
                   # explore (a Map's use is map_used), a = explores, b = the explorer
    "held",        # card = a spell in hand held for want of a target at the end of the
                   # second main phase, a = copies, b = 1 no creature you control, 2 its
                   # target only an opponent has
)
(T_DEAL, T_DEALT, T_BOTTOM, T_KEEP, T_MULLIGAN, T_DRAW, T_DECKED, T_LAND, T_LAND_PUT,
 T_LAND_LEAVES, T_CAST, T_EXPLORE, T_REMOVED, T_MAPS_MADE, T_MAP_USED, T_DAMAGE, T_DISCARD,
 T_END_TURN, T_ATTACK, T_SCRY, T_COMBAT, T_COUNTERS, T_EXPLORE_EFFECT,
 T_HELD) = range(len(TRACE_EVENTS))


@compiled(inline="always")
def tracing(S):
    """Whether this game writes a trace."""
    return S.trace.shape[0] > 0


@compiled(inline="always")
def note(S, code, card, a, b):
    """Write event ``code`` of the current turn into the trace, if there is one (a full
    trace keeps its first events and says so in row 0)."""
    t = S.trace
    if t.shape[0] == 0:
        return
    n = t[0, 0] + 1
    if n >= t.shape[0]:
        t[0, 1] = 1
        return
    t[0, 0] = n
    t[n, 0] = S.slots[TURN]
    t[n, 1] = code
    t[n, 2] = card
    t[n, 3] = a
    t[n, 4] = b
