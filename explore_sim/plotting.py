"""Axes-level plots of explore_sim's tidy frames, in the seaborn / matplotlib style.

Every helper takes a tidy frame and ``ax=None``, draws on that axes only (the current axes
when None), and returns it. Nothing here calls ``plt.show()`` or changes global style.
Series differ by colour (the Okabe-Ito palette, safe for colour-blind readers) *and* by line
style, marker or hatch, so the plots also read in black and white.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

__all__ = [
    "plot_turns",
    "plot_distribution",
    "plot_differences",
    "plot_heatmap",
    "metric_label",
    "PALETTE",
]

#: Okabe-Ito colours, distinguishable with the common colour-vision deficiencies.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
_LINESTYLES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1)), (0, (1, 1)))
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_HATCHES = ("", "//", "..", "xx", "\\\\", "--", "++", "oo")

_LABELS = {
    "on_curve": "P(on curve: lands ≥ turn)",
    "land_drop": "P(land played this turn)",
    "lands_played": "lands on the battlefield",
    "counters": "+1/+1 counters",
    "explore_counters": "+1/+1 counters from explore",
    "trigger_counters": "+1/+1 counters from triggers",
    "explores": "explores",
    "explore_lands": "lands found by explore",
    "lands_to_hand": "lands put into hand",
    "land_hit": "P(at least one land)",
    "milled": "cards milled",
    "maps_created": "Map tokens created",
    "maps_used": "Map tokens used",
    "mana_spent": "mana spent",
    "hand_size": "cards in hand",
    "life_gained": "life gained",
    "decked": "P(drew from an empty library)",
    "mulligans": "mulligans",
}


def metric_label(metric: str) -> str:
    """A readable axis label for a metric name."""
    return _LABELS.get(metric, metric.replace("_", " "))


def _axes(ax: Axes | None) -> Axes:
    if ax is None:
        import matplotlib.pyplot as plt

        ax = plt.gca()
    return ax


def _require(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what} needs columns {', '.join(missing)}; got {', '.join(frame.columns)}")


def _series(frame: pd.DataFrame, hue: str | None) -> list[tuple[str | None, pd.DataFrame]]:
    if hue is None:
        return [(None, frame)]
    return [(str(key), group) for key, group in frame.groupby(hue, sort=False)]


def plot_turns(
    data: pd.DataFrame,
    metric: str = "on_curve",
    *,
    hue: str | None = None,
    ax: Axes | None = None,
    band: bool = True,
    **line_kw: Any,
) -> Axes:
    """A metric by turn, one line per ``hue`` group, with its confidence band.

    Parameters
    ----------
    data : DataFrame
        Tidy rows with ``turn, metric, mean, ci_low, ci_high`` (``SimulationResult.summary()``
        or ``CompareResult.summary()``, whose ``variant`` column makes a good ``hue``).
    metric : str
        Which metric to draw.
    hue : str, optional
        Column whose values become separate lines (default: ``variant`` if present).
    ax : matplotlib Axes, optional
    band : bool
        Shade the interval between ``ci_low`` and ``ci_high``.
    """
    _require(data, ("turn", "metric", "mean", "ci_low", "ci_high"), "plot_turns")
    ax = _axes(ax)
    rows = data[(data["metric"] == metric) & (data["turn"] > 0)]
    if rows.empty:
        raise ValueError(f"no rows for metric {metric!r} after turn 0")
    if hue is None and "variant" in rows.columns:
        hue = "variant"
    for i, (label, group) in enumerate(_series(rows, hue)):
        group = group.sort_values("turn")
        style = dict(color=PALETTE[i % len(PALETTE)], linestyle=_LINESTYLES[i % len(_LINESTYLES)],
                     marker=_MARKERS[i % len(_MARKERS)])
        style.update(line_kw)
        ax.plot(group["turn"], group["mean"], label=label, **style)
        if band:
            ax.fill_between(group["turn"], group["ci_low"], group["ci_high"],
                            color=style["color"], alpha=0.2, linewidth=0)
    ax.set_xlabel("turn")
    ax.set_ylabel(metric_label(metric))
    ax.set_xticks(sorted(rows["turn"].unique()))
    ax.set_title(f"{metric_label(metric)} by turn", fontsize="medium")
    if hue is not None:
        ax.legend(title=hue)
    return ax


def plot_distribution(
    data: pd.DataFrame,
    *,
    hue: str | None = None,
    metric: str = "counters",
    ax: Axes | None = None,
) -> Axes:
    """Bars of the probability of each value (0, 1, 2, ... counters), with error bars.

    Parameters
    ----------
    data : DataFrame
        ``value, probability, ci_low, ci_high`` rows (``result.distribution(...)``); with
        ``hue``, several distributions side by side.
    metric : str
        Names the x axis.
    """
    _require(data, ("value", "probability", "ci_low", "ci_high"), "plot_distribution")
    ax = _axes(ax)
    series = _series(data, hue)
    width = 0.8 / len(series)
    for i, (label, group) in enumerate(series):
        x = group["value"].to_numpy() + (i - (len(series) - 1) / 2) * width
        p = group["probability"].to_numpy()
        error = np.vstack([p - group["ci_low"].to_numpy(), group["ci_high"].to_numpy() - p])
        ax.bar(x, p, width=width, label=label, color=PALETTE[i % len(PALETTE)],
               hatch=_HATCHES[i % len(_HATCHES)], edgecolor="black", linewidth=0.6,
               yerr=error, capsize=2, error_kw={"linewidth": 0.8})
    ax.set_xlabel(metric_label(metric))
    ax.set_ylabel("probability")
    ax.set_xticks(sorted(data["value"].unique()))
    ax.set_title(f"distribution of {metric_label(metric)}", fontsize="medium")
    if hue is not None:
        ax.legend(title=hue)
    return ax


def plot_differences(
    data: pd.DataFrame,
    metric: str = "on_curve",
    *,
    ax: Axes | None = None,
) -> Axes:
    """Paired differences to the baseline by turn, with 95% error bars around zero.

    Parameters
    ----------
    data : DataFrame
        ``CompareResult.paired_differences()``: ``variant, baseline, turn, metric, mean,
        ci_low, ci_high``.
    metric : str
        Which metric's differences to draw.
    """
    _require(data, ("variant", "turn", "metric", "mean", "ci_low", "ci_high"), "plot_differences")
    ax = _axes(ax)
    rows = data[(data["metric"] == metric) & (data["turn"] > 0)]
    if rows.empty:
        raise ValueError(f"no differences for metric {metric!r} after turn 0")
    series = _series(rows, "variant")
    step = 0.6 / len(series)
    for i, (label, group) in enumerate(series):
        group = group.sort_values("turn")
        x = group["turn"].to_numpy() + (i - (len(series) - 1) / 2) * step
        mean = group["mean"].to_numpy()
        error = np.vstack([mean - group["ci_low"].to_numpy(), group["ci_high"].to_numpy() - mean])
        ax.errorbar(x, mean, yerr=error, fmt=_MARKERS[i % len(_MARKERS)], capsize=3,
                    linestyle=_LINESTYLES[i % len(_LINESTYLES)], linewidth=1,
                    color=PALETTE[i % len(PALETTE)], label=label)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(sorted(rows["turn"].unique()))
    ax.set_xlabel("turn")
    baseline = rows["baseline"].iloc[0] if "baseline" in rows.columns else "the baseline"
    ax.set_ylabel(f"{metric_label(metric)}: difference")
    ax.set_title(f"paired difference to {baseline} (95% interval)", fontsize="medium")
    ax.legend(title="variant")
    return ax


def plot_heatmap(
    data: pd.DataFrame,
    x: str,
    y: str,
    metric: str,
    *,
    turn: int | None = None,
    ax: Axes | None = None,
    cmap: str = "viridis",
    annotate: bool = True,
    fmt: str = "{:.2f}",
) -> Axes:
    """A sweep as a heatmap: ``x`` by ``y`` grid of a metric's mean.

    Parameters
    ----------
    data : DataFrame
        ``explore_sim.sweep(...)`` rows (one column per swept parameter plus ``turn, metric,
        mean``).
    x, y : str
        Swept columns for the axes, such as ``"lands"`` and ``"Cenote Scout"``.
    metric : str
    turn : int, optional
        Which turn (default: the last).
    cmap : str
        A perceptually uniform colour map (viridis reads in grey scale too).
    """
    _require(data, (x, y, "turn", "metric", "mean"), "plot_heatmap")
    ax = _axes(ax)
    turn = int(data["turn"].max()) if turn is None else turn
    rows = data[(data["metric"] == metric) & (data["turn"] == turn)]
    if rows.empty:
        raise ValueError(f"no rows for metric {metric!r} at turn {turn}")
    grid = rows.pivot_table(index=y, columns=x, values="mean", aggfunc="mean")
    image = ax.imshow(grid.to_numpy(), cmap=cmap, aspect="auto", origin="lower")
    ax.set_xticks(range(grid.shape[1]), [str(v) for v in grid.columns])
    ax.set_yticks(range(grid.shape[0]), [str(v) for v in grid.index])
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.set_title(f"{metric_label(metric)}, turn {turn}", fontsize="medium")
    colorbar = ax.figure.colorbar(image, ax=ax)
    colorbar.set_label(metric_label(metric))
    if annotate:
        norm = image.norm
        for (row, col), value in np.ndenumerate(grid.to_numpy()):
            dark = norm(value) < 0.5 if np.isfinite(value) else False
            ax.text(col, row, fmt.format(value), ha="center", va="center",
                    color="white" if dark else "black", fontsize=8)
    return ax
