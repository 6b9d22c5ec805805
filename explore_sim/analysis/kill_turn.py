"""The damage clock: on which turn a goldfish game's combat damage kills the opponent.

``opponent_dead`` is 1 at the end of turn T when the combat damage dealt so far is at least
the opponent's starting life (docs/guide/damage.md). Damage only adds up, so a game dead by
turn T is dead at every later turn, and the games dead by each turn (the sums of
``opponent_dead``, exact) give the whole distribution of the kill turn K up to the last turn
played: :func:`kill_turn` reads them from a simulation's :class:`TurnStats`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from .games import TurnStats
from .report import render, to_json
from .stats import wilson_interval

__all__ = ["KillTurn", "kill_turn", "KILL_TURN_COLUMNS"]

#: Columns of :attr:`KillTurn.by_turn`.
KILL_TURN_COLUMNS = ("turn", "dead", "probability", "se", "ci_low", "ci_high")


@dataclasses.dataclass(frozen=True)
class KillTurn:
    """The kill-turn distribution of one simulation.

    Attributes
    ----------
    by_turn : DataFrame
        One row per turn T played (:data:`KILL_TURN_COLUMNS`): the games dead by the end of
        turn T, P(dead by turn T), its standard error sqrt(p (1 - p) / n) and Wilson
        interval.
    median : int or None
        The first turn T where P(dead by turn T) reaches 0.5; None when no turn played does
        (the median kill turn is later than the last turn).
    mean : float
        The mean of min(K, turns + 1): a game not dead by the last turn counts as killed on
        the turn after it (censored), so the mean is a lower bound of the mean kill turn
        whenever some games survive.
    mean_se : float
        Its standard error, from the exact distribution of min(K, turns + 1) (sample
        variance with n - 1, over n).
    turns, n : int
        Turns played and games.
    """

    by_turn: pd.DataFrame
    median: int | None
    mean: float
    mean_se: float
    turns: int
    n: int

    def text(self) -> str:
        """The distribution as a few lines of text (what a person reads).

        Returns
        -------
        str
        """
        lines = [f"{'turn':>4}  P(dead by turn)"]
        for row in self.by_turn.itertuples(index=False):
            lines.append(f"{row.turn:>4}  {row.probability:.3f} ({row.se:.3f})")
        median = (f"turn {self.median}" if self.median is not None
                  else f"later than turn {self.turns}")
        lines.append(f"median kill turn: {median}")
        lines.append(f"mean of min(kill turn, {self.turns + 1}): {self.mean:.3f} "
                     f"({self.mean_se:.3f})")
        return "\n".join(lines)

    def note(self) -> str:
        """The line saying how the mean is censored.

        Returns
        -------
        str
        """
        return (f"censored: a game alive after turn {self.turns} counts as killed on turn "
                f"{self.turns + 1}, so with survivors the mean is a lower bound")

    def render(self, fmt: str = "table", meta: Mapping[str, Any] | None = None) -> str:
        """The distribution as the command line prints it (``simulate --kill-turn``).

        Parameters
        ----------
        fmt : {"table", "csv", "json"}
            ``table``: the run's facts, :attr:`by_turn`, the median, the censored mean and
            its note line. ``csv``: the rows of :attr:`by_turn`. ``json``: ``{"meta",
            "rows", "median", "mean", "mean_se", "censored_at", "note"}``.
        meta : mapping, optional
            The simulation's metadata (JSON-safe).

        Returns
        -------
        str
        """
        meta = dict(meta or {})
        if fmt == "json":
            import json

            payload = json.loads(to_json(meta, self.by_turn))
            payload.update(median=self.median, mean=self.mean, mean_se=self.mean_se,
                           censored_at=self.turns + 1, note=self.note())
            return json.dumps(payload, indent=2, allow_nan=False) + "\n"
        if fmt != "table":
            return render(fmt, meta, self.by_turn, "")
        life = meta.get("life") or next(
            (f.get("starting_life") for f in meta.get("formats", [])), None)
        against = f" >= {life} life" if life else ""
        meta["interval"] = "95% Wilson score interval of P(dead by turn T)"
        text = render("table", meta, self.by_turn,
                      f"simulate: kill turn, combat damage{against} to the goldfish opponent")
        median = (f"turn {self.median}" if self.median is not None
                  else f"later than turn {self.turns}")
        return (text + f"  median kill turn: {median}\n"
                f"  mean of min(kill turn, {self.turns + 1}): {self.mean:.3f} "
                f"({self.mean_se:.3f})\n  {self.note()}\n")


def kill_turn(stats: TurnStats, level: float = 0.95) -> KillTurn:
    """The kill-turn distribution from a simulation's per-turn sums of ``opponent_dead``.

    Parameters
    ----------
    stats : TurnStats
        A simulation's statistics (:attr:`SimulationResult.stats
        <explore_sim.analysis.simulate.SimulationResult.stats>`), with ``opponent_dead``
        recorded at every turn.
    level : float
        Confidence level of the Wilson intervals.

    Returns
    -------
    KillTurn

    Raises
    ------
    ValueError
        No game was played, or ``opponent_dead`` was not recorded.
    """
    turns = max(stats.by_turn)
    n = stats.by_turn[1].n if turns >= 1 else 0
    if n < 1:
        raise ValueError("kill_turn needs at least one game of at least one turn")
    if "opponent_dead" not in stats.by_turn[1].total:
        raise ValueError("kill_turn needs the metric opponent_dead, which was not recorded")
    dead = [int(stats.by_turn[t].total["opponent_dead"]) for t in range(1, turns + 1)]
    rows = []
    for turn, count in enumerate(dead, start=1):
        p = count / n
        rows.append((turn, count, p, math.sqrt(p * (1 - p) / n), *wilson_interval(count, n, level)))
    by_turn = pd.DataFrame(rows, columns=list(KILL_TURN_COLUMNS))
    median = next((t for t, count in enumerate(dead, start=1) if 2 * count >= n), None)
    # min(K, turns + 1) takes the value t on the games first dead at turn t, and turns + 1
    # on the games alive at the end.
    games = [count - before for count, before in zip(dead, [0, *dead[:-1]])] + [n - dead[-1]]
    total = sum(t * g for t, g in enumerate(games, start=1))
    total_sq = sum(t * t * g for t, g in enumerate(games, start=1))
    mean = total / n
    variance = (total_sq - n * mean * mean) / (n - 1) if n > 1 else 0.0
    return KillTurn(by_turn, median, mean, math.sqrt(max(variance, 0.0) / n), turns, n)
