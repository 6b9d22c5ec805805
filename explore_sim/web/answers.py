"""The sentences that open a result on the web page: its answer in words, made from the same
frame its tables show.

:func:`simulate_answer` (a goldfish run's metrics on its last turn), :func:`compare_answer`
(each variant's paired difference to the first, and the best variant) and
:func:`explore_answer` (what an explore sequence gives). The value, advise and curve tabs
have theirs beside their tables (``value_answer``, ``advise_answer`` in
:mod:`explore_sim.web.analyses`, ``curve_answer`` in :mod:`explore_sim.web.curve_tab`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import pandas as pd

from ..analysis.report import explores_text
from ..engine.goldfish import TURN_METRICS
from ..engine.metrics import CASTABLE_PREFIX

__all__ = ["simulate_answer", "compare_answer", "explore_answer", "distribution_answer",
           "is_probability", "ANSWER_METRICS"]

#: The most metrics a goldfish run's sentence names (the first of the table's).
ANSWER_METRICS = 3
#: How the sentence says a metric: a probability's phrase takes a percentage, any other a
#: mean; a metric not listed is said as "averages MEAN METRIC" or "has METRIC in P of games".
_PHRASES = {
    "lands_played": "has {} lands in play",
    "on_curve": "is on curve in {} of games",
    "land_drop": "makes its land drop in {} of games",
    "opponent_dead": "has killed the goldfish opponent in {} of games",
}


def is_probability(metric: str) -> bool:
    """A 0/1 metric, whose mean is a probability (``castable:CARD`` included).

    Parameters
    ----------
    metric : str

    Returns
    -------
    bool
    """
    return bool(TURN_METRICS.get(metric)) or metric.startswith(CASTABLE_PREFIX)


def _said(metric: str, row: pd.Series) -> str:
    """One metric's mean, with its standard error and interval, as the sentence says it:
    a probability in percent with one decimal, any other mean with three (the table's)."""
    if is_probability(metric):
        m, lo, hi = (f"{100 * row[k]:.1f}%" for k in ("mean", "ci_low", "ci_high"))
        se = f"{_small(100 * row['se'], 1)}%"
        phrase = _PHRASES.get(metric, f"has {metric} in {{}} of games")
    else:
        m, lo, hi = (f"{row[k]:.3f}" for k in ("mean", "ci_low", "ci_high"))
        se = _small(row["se"], 3)
        phrase = _PHRASES.get(metric, f"averages {{}} {metric}")
    return f"{phrase.format(m)} (se {se}, {lo} to {hi})"


def _small(value: float, decimals: int) -> str:
    """``value`` with ``decimals`` decimals, or, where that would round a standard error that
    is not 0 to 0, with two significant digits (``0.031``, never ``0.0``)."""
    if 0 < value < 0.5 * 10.0 ** -decimals:
        return f"{value:.2g}"
    return f"{value:.{decimals}f}"


def _joined(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def simulate_answer(rows: pd.DataFrame, metrics: Sequence[str], turn: int) -> str:
    """A goldfish run's answer: its first metrics on ``turn`` (the last played), as "On turn 4,
    the last played, this deck has 3.418 lands in play (se 0.012, 3.394 to 3.442) and is on
    curve in 61.2% of games (se 1.1%, 59.1% to 63.3%)."

    Parameters
    ----------
    rows : DataFrame
        :meth:`~explore_sim.SimulationResult.summary`'s rows: turn, metric, mean, se,
        ci_low, ci_high.
    metrics : sequence of str
        The table's metrics, in order; the first :data:`ANSWER_METRICS` recorded are said.
    turn : int
        The turn looked at.

    Returns
    -------
    str
        One sentence ("" when none of the metrics is recorded on that turn).
    """
    at = rows[rows["turn"] == turn].set_index("metric")
    chosen = [m for m in metrics if m in at.index][:ANSWER_METRICS]
    if not chosen:
        return ""
    said = [_said(m, cast(pd.Series, at.loc[m])) for m in chosen]  # a metric is one row
    return f"On turn {turn}, the last played, this deck {_joined(said)}."


def compare_answer(diffs: pd.DataFrame, at_last: pd.DataFrame, labels: Sequence[str],
                   metric: str, turn: int) -> str:
    """A comparison's answer on one metric: every variant's paired difference to the first,
    then the variant with the highest mean: "mill: +0.0960 on_curve on turn 5 against keep
    (se 0.0040, +0.0882 to +0.1038). Highest on_curve on turn 5: mill, 0.7130."

    Parameters
    ----------
    diffs : DataFrame
        :meth:`~explore_sim.CompareResult.paired_differences` on ``turn``: variant, metric,
        mean, se, ci_low, ci_high.
    at_last : DataFrame
        :meth:`~explore_sim.CompareResult.summary` on ``turn``: variant, metric, mean.
    labels : sequence of str
        The variants; the first is the baseline.
    metric : str
        The metric said (the first of the tables').
    turn : int

    Returns
    -------
    str
        Two sentences ("" when the metric is not recorded).
    """
    d = diffs[diffs["metric"] == metric].set_index("variant")
    means = at_last[at_last["metric"] == metric].set_index("variant")["mean"]
    if d.empty or means.empty:
        return ""
    d_mean, d_se, d_low, d_high = (d[column] for column in ("mean", "se", "ci_low", "ci_high"))
    parts = [f"{label}: {d_mean[label]:+.4f} {metric} on turn {turn} against "
             f"{labels[0]} (se {d_se[label]:.4f}, {d_low[label]:+.4f} to "
             f"{d_high[label]:+.4f})" for label in labels[1:] if label in d.index]
    best = max((label for label in labels if label in means.index), key=lambda name: means[name])
    return (f"{'; '.join(parts)}. Highest {metric} on turn {turn}: {best}, "
            f"{means[best]:.4f}.")


#: The explore metrics the explore tab's sentence says, with their words.
_EXPLORE_WORDS = (("counters", "put{s} {mean} +1/+1 counters on {explorer}"),
                  ("lands_to_hand", "{mean} lands into hand"),
                  ("milled", "mill{s} {mean} cards"))


def explore_answer(summary: pd.DataFrame, meta: Mapping[str, Any]) -> str:
    """An explore sequence's answer: "After 8 cards drawn, 1 explore puts 0.6005 +1/+1
    counters on the explorer (se 0.0110, 0.5790 to 0.6220), 0.3995 lands into hand (...) and
    mills 0.1590 cards (...)."

    Parameters
    ----------
    summary : DataFrame
        :meth:`~explore_sim.ExploreResult.summary`: metric, mean, se, ci_low, ci_high.
    meta : mapping
        The result's ``explores`` and ``drawn``.

    Returns
    -------
    str
        One sentence, the table's numbers with its four decimals.
    """
    at = summary.set_index("metric")
    explores = meta["explores"]
    verb = {"s": "s" if explores == 1 else "", "explorer": meta.get("explorer") or "the explorer"}
    parts = []
    for metric, words in _EXPLORE_WORDS:
        if metric in at.index:
            mean, se, low, high = at.loc[metric, ["mean", "se", "ci_low", "ci_high"]]
            parts.append(f"{words.format(mean=f'{mean:.4f}', **verb)} (se {se:.4f}, "
                         f"{low:.4f} to {high:.4f})")
    return f"After {meta['drawn']} cards drawn, {explores_text(explores)} {_joined(parts)}."


def distribution_answer(rows: pd.DataFrame, metric: str, turn: int) -> str:
    """A distribution's answer: its most likely value and the share of games with none, as
    "On turn 4, counters is most often 2 (31.0% of games, se 1.0%); it is 0 in 9.3% of
    games."

    Parameters
    ----------
    rows : DataFrame
        :meth:`~explore_sim.SimulationResult.distribution`: value, count, probability, se.
    metric : str
    turn : int

    Returns
    -------
    str
        One sentence ("" for no games).
    """
    taken = rows[rows["count"] > 0]
    if taken.empty:
        return ""
    highest = taken["probability"].idxmax()
    top = taken.loc[highest]  # type: ignore[call-overload]  # loc takes idxmax's label
    head = (f"On turn {turn}, {metric} is most often {int(top['value'])} "
            f"({100 * top['probability']:.1f}% of games, se {100 * top['se']:.1f}%)")
    zero = taken[taken["value"] == 0]
    if int(top["value"]) == 0:
        return f"{head}."
    if zero.empty:
        return f"{head}; it is never 0."
    share = 100 * zero["probability"].iloc[0]
    return f"{head}; it is 0 in {share:.1f}% of games." if share >= 0.05 else \
        f"{head}; it is 0 in under 0.1% of games."
