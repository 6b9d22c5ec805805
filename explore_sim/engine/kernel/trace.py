"""A game's log: what the compiled game did, written only when a trace is asked for.

Part of the compiled game (:mod:`explore_sim.engine.kernel`). The state's ``trace``
(int32, ``(rows, 5)``) is empty in every run that plays for numbers: :func:`note` then
returns at its first branch and nothing else changes. With rows, row 0 holds the events
written and whether some did not fit, and every later row one event:
``(turn, event, card, a, b)``, the event numbered as in :class:`~.layout.Trace`.
"""

from __future__ import annotations

from .layout import Slot, Trace, columns
from .records import compiled

__all__ = ["TRACE_EVENTS", "note", "tracing"]

#: The events of a trace, in their numbering (:class:`~.layout.Trace` says what ``card``,
#: ``a`` and ``b`` hold for each).
TRACE_EVENTS = columns(Trace)


@compiled
def tracing(S):
    """Whether this game writes a trace."""
    return S.trace.shape[0] > 0


@compiled
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
    t[n, 0] = S.slots[Slot.TURN]
    t[n, 1] = code
    t[n, 2] = card
    t[n, 3] = a
    t[n, 4] = b
