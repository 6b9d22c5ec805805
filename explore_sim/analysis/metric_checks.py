"""Which metrics a run of goldfish games records, shows by default, and accepts by name."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..engine.goldfish import OPENING_METRICS, TURN_METRICS
from ..engine.metrics import CASTABLE_PREFIX
from ..errors import OptionError, close_matches

__all__ = ["DEFAULT_TABLE_METRICS", "DEFAULT_COMPARE_METRICS", "check_metrics",
           "check_distribution", "castable_metrics", "table_metrics"]

#: Metrics shown by default in people-readable tables.
DEFAULT_TABLE_METRICS = (
    "lands_played", "on_curve", "land_drop", "counters", "explores", "explore_lands",
    "milled", "maps_created", "maps_used", "mana_spent", "hand_size",
)
#: Metrics compared by default.
DEFAULT_COMPARE_METRICS = ("on_curve", "lands_played", "counters", "explores", "explore_lands",
                           "milled", "mana_spent", "cards_cast")

def check_metrics(metrics: Iterable[str] | None, default: Sequence[str] = (),
                  label: str = "metrics", extra: Iterable[str] = (),
                  by_turn: str | None = None) -> list[str]:
    """The metric names to show.

    Parameters
    ----------
    metrics : iterable of str or None
        Metric names, or None for ``default``.
    default : sequence of str
    label : str
        Starts the error message (``"--metrics"`` on the command line).
    extra : iterable of str
        More known names (the ``castable:CARD`` metrics of a run).
    by_turn : str, optional
        Take only the metrics by turn, saying why (``"value compares the decks turn by
        turn"``): an opening-hand metric is refused by name, and the known names of an
        unknown one's error are the metrics by turn.

    Returns
    -------
    list of str

    Raises
    ------
    OptionError
        Naming every unknown metric, with the closest known names.
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    chosen = list(default if metrics is None else metrics)
    opening = [m for m in OPENING_METRICS if m not in TURN_METRICS]
    if by_turn is not None:
        refused = [m for m in chosen if m in opening]
        if refused:
            what = "is an opening-hand metric" if len(refused) == 1 else \
                "are opening-hand metrics"
            raise OptionError(f"{label}: {', '.join(refused)} {what} (turn 0); {by_turn} "
                              "(explore-sim metrics --scope turn lists those)")
        opening = []
    known = [*TURN_METRICS, *opening, *extra]
    unknown = [m for m in chosen if m not in known]
    if unknown:
        described = []
        for name in unknown:
            close = close_matches(str(name), known)
            described.append(f"{name} (did you mean {close}?)" if close else str(name))
        raise OptionError(
            f"{label}: unknown {', '.join(described)}; known: {', '.join(sorted(known))}"
        )
    return chosen


def check_distribution(metric: str, turn: int, turns: int, extra: Iterable[str] = (),
                       label: str = "distribution") -> None:
    """Refuse a distribution that a run of ``turns`` turns does not record.

    Parameters
    ----------
    metric : str
        A per-turn metric (turns 1 to ``turns``) or an opening-hand metric (turn 0:
        ``mulligans``, ``hand_size``, ``opening_lands``).
    turn : int
        0 (the opening hand) to ``turns``.
    turns : int
        Turns played.
    extra : iterable of str
        More per-turn metrics of the run (``castable:CARD``).
    label : str
        Starts the error message (``"--distribution"`` on the command line).

    Raises
    ------
    OptionError
        An unknown metric (with the closest names), a turn out of range, or a metric that
        is not recorded at that turn.
    """
    extra = list(extra)
    check_metrics([metric], label=label, extra=extra)
    if isinstance(turn, bool) or not isinstance(turn, (int, np.integer)) \
            or not 0 <= turn <= turns:
        raise OptionError(f"{label}: turn must be between 0 (the opening hand) and {turns}, "
                          f"got {turn!r}")
    if turn == 0 and metric not in OPENING_METRICS:
        raise OptionError(f"{label}: {metric} is counted on turns 1 to {turns}; turn 0 (the "
                          f"opening hand) has {', '.join(OPENING_METRICS)}")
    if turn > 0 and metric not in TURN_METRICS and metric not in extra:
        raise OptionError(f"{label}: {metric} describes the opening hand: ask for turn 0")


def castable_metrics(meta: dict[str, Any]) -> list[str]:
    """The ``castable:CARD`` metrics of a result.

    Parameters
    ----------
    meta : dict
        A result's metadata.

    Returns
    -------
    list of str
    """
    return [CASTABLE_PREFIX + name for name in meta.get("castable", [])]


def table_metrics(meta: dict[str, Any]) -> list[str]:
    """The metrics a simulation's table shows by default: :data:`DEFAULT_TABLE_METRICS`,
    ``commander_cast`` in Commander games, and the ``castable:CARD`` metrics asked for.

    Parameters
    ----------
    meta : dict
        A :class:`SimulationResult`'s metadata.

    Returns
    -------
    list of str
    """
    commander = any(f.get("game") == "commander" for f in meta.get("formats", []))
    return [*DEFAULT_TABLE_METRICS, *(["commander_cast"] if commander else []),
            *castable_metrics(meta)]
