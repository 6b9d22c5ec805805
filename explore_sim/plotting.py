"""Axes-level plots of explore_sim's tidy frames, in the seaborn / matplotlib style.

Every helper takes a tidy frame and ``ax=None``, draws on that axes only (the current axes
when None), and returns it. Nothing here calls ``plt.show()`` or changes global style.
Series differ by colour (the Okabe-Ito palette, safe for colour-blind readers) *and* by line
style, marker or hatch, so the plots also read in black and white. ``hue`` picks the colour
and ``style`` the line style, marker or hatch, each from its own column, so a deck and a
policy can be told apart in one figure (``hue="policy", style="deck"``).

A helper never averages rows silently: a frame with several rows for one plotted point (a
sweep with two policies given to :func:`plot_heatmap`, two decks given to :func:`plot_turns`
with ``hue="policy"``) is refused with an error naming the columns that differ; filter it,
draw the column with ``hue``/``style``, or (heatmaps) pass ``estimator=``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .errors import OptionError

__all__ = [
    "plot_turns",
    "plot_distribution",
    "plot_differences",
    "plot_heatmap",
    "result_figure",
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
    """A readable axis label for a metric name.

    Parameters
    ----------
    metric : str

    Returns
    -------
    str
    """
    return _LABELS.get(metric, metric.replace("_", " "))


def _axes(ax: Axes | None) -> Axes:
    if ax is None:
        import matplotlib.pyplot as plt

        ax = plt.gca()
    return ax


def _require(frame: pd.DataFrame, columns: Sequence[str | None], what: str) -> None:
    missing = [c for c in columns if c is not None and c not in frame.columns]
    if missing:
        raise OptionError(
            f"{what} needs columns {', '.join(missing)}; got {', '.join(map(str, frame.columns))}"
        )


#: Columns that hold what is drawn, never what tells rows apart.
_VALUE_COLUMNS = frozenset({"mean", "se", "ci_low", "ci_high", "se_unpaired", "count",
                            "probability"})


def _one_row_per_point(rows: pd.DataFrame, keys: Sequence[str], what: str, hint: str) -> None:
    """Refuse rows that would be drawn at the same point, naming the columns that differ."""
    repeated = rows.duplicated(subset=list(keys), keep=False)
    if not repeated.any():
        return
    shared = rows[repeated]
    differ = [
        column for column in shared.columns
        if column not in keys and column not in _VALUE_COLUMNS
        and shared.groupby(list(keys), observed=True, sort=False)[column]
        .nunique(dropna=False).max() > 1
    ]
    why = f"they differ in {', '.join(differ)}" if differ else "they are repeated rows"
    raise OptionError(
        f"{what}: several rows for one point ({', '.join(keys)}): {why}; {hint}"
    )


def _levels(frame: pd.DataFrame, column: str | None) -> list[Any]:
    """A column's values in plotting order: category order, else first appearance."""
    if column is None:
        return [None]
    values = frame[column]
    if isinstance(values.dtype, pd.CategoricalDtype):
        present = set(values.dropna())
        return [c for c in values.cat.categories if c in present]
    return list(dict.fromkeys(values))


def _series(
    frame: pd.DataFrame, hue: str | None, style: str | None = None
) -> list[tuple[str | None, pd.DataFrame, dict[str, Any]]]:
    """``(label, rows, look)`` per line: colour by ``hue``, line style, marker and hatch by
    ``style`` (by ``hue`` too when there is no ``style``, so lines also differ in grey)."""
    hues, styles = _levels(frame, hue), _levels(frame, style)
    out = []
    for h, hue_value in enumerate(hues):
        for k, style_value in enumerate(styles):
            mask = np.ones(len(frame), dtype=bool)
            if hue is not None:
                mask &= (frame[hue] == hue_value).to_numpy()
            if style is not None:
                mask &= (frame[style] == style_value).to_numpy()
            if not mask.any():
                continue
            shape = k if style is not None else h
            colour = h if hue is not None else 0
            names = [str(v) for v, c in ((hue_value, hue), (style_value, style)) if c is not None]
            out.append((", ".join(names) or None, frame[mask], {
                "color": PALETTE[colour % len(PALETTE)],
                "linestyle": _LINESTYLES[shape % len(_LINESTYLES)],
                "marker": _MARKERS[shape % len(_MARKERS)],
                "hatch": _HATCHES[shape % len(_HATCHES)],
            }))
    return out


def _legend_title(hue: str | None, style: str | None) -> str | None:
    return ", ".join(c for c in (hue, style) if c is not None) or None


def _error_bars(center: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Error bar lengths below and above ``center``, shape (2, n).

    An interval that rounding puts a hair inside its centre (a probability of exactly 1, a
    constant metric) gives a zero-length bar, never a negative one.
    """
    return np.clip(np.vstack([center - low, high - center]), 0, None)


def plot_turns(
    data: pd.DataFrame,
    metric: str = "on_curve",
    *,
    hue: str | None = None,
    style: str | None = None,
    ax: Axes | None = None,
    band: bool = True,
    **line_kw: Any,
) -> Axes:
    """A metric by turn, one line per ``hue`` x ``style`` group, with its confidence band.

    Parameters
    ----------
    data : DataFrame
        Tidy rows with ``turn, metric, mean, ci_low, ci_high`` (``SimulationResult.summary()``
        or ``CompareResult.summary()``).
    metric : str
        Which metric to draw.
    hue : str, optional
        Column whose values get their own colour (default: ``variant`` if present and
        ``style`` is not given).
    style : str, optional
        Column whose values get their own line style and marker, so that, for example,
        ``hue="policy", style="deck"`` tells both apart in one figure.
    ax : matplotlib Axes, optional
        Where to draw (default: the current axes).
    band : bool
        Shade the interval between ``ci_low`` and ``ci_high``.
    **line_kw
        Passed to ``Axes.plot``.

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    OptionError
        Missing columns, no rows for the metric, or several rows for one line point (a
        column such as ``deck`` varies but is neither ``hue`` nor ``style``).
    """
    _require(data, ("turn", "metric", "mean", "ci_low", "ci_high", hue, style), "plot_turns")
    ax = _axes(ax)
    rows = data[(data["metric"] == metric) & (data["turn"] > 0)]
    if rows.empty:
        raise OptionError(f"no rows for metric {metric!r} after turn 0")
    if hue is None and style is None and "variant" in rows.columns:
        hue = "variant"
    keys = [c for c in (hue, style) if c is not None] + ["turn"]
    _one_row_per_point(rows, keys, "plot_turns",
                       "keep one value of each (data[data[column] == value]) or draw them "
                       "apart with hue= and style=")
    for label, group, look in _series(rows, hue, style):
        group = group.sort_values("turn")
        kw = {key: look[key] for key in ("color", "linestyle", "marker")}
        kw.update(line_kw)
        ax.plot(group["turn"], group["mean"], label=label, **kw)
        if band:
            ax.fill_between(group["turn"], group["ci_low"], group["ci_high"],
                            color=kw["color"], alpha=0.2, linewidth=0)
    ax.set_xlabel("turn")
    ax.set_ylabel(metric_label(metric))
    ax.set_xticks(sorted(rows["turn"].unique()))
    ax.set_title(f"{metric_label(metric)} by turn", fontsize="medium")
    if hue is not None or style is not None:
        ax.legend(title=_legend_title(hue, style))
    return ax


def plot_distribution(
    data: pd.DataFrame,
    *,
    hue: str | None = None,
    style: str | None = None,
    metric: str = "counters",
    ax: Axes | None = None,
) -> Axes:
    """Bars of the probability of each value (0, 1, 2, ... counters), with error bars.

    Parameters
    ----------
    data : DataFrame
        ``value, probability, ci_low, ci_high`` rows (``result.distribution(...)``); with
        ``hue`` and/or ``style``, several distributions side by side.
    hue : str, optional
        Column whose values get their own colour.
    style : str, optional
        Column whose values get their own hatch.
    metric : str
        Names the x axis.
    ax : matplotlib Axes, optional
        Where to draw (default: the current axes).

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    OptionError
        Missing columns, or several rows for one bar (a column varies but is neither
        ``hue`` nor ``style``).
    """
    _require(data, ("value", "probability", "ci_low", "ci_high", hue, style),
             "plot_distribution")
    keys = [c for c in (hue, style) if c is not None] + ["value"]
    _one_row_per_point(data, keys, "plot_distribution",
                       "keep one value of each (data[data[column] == value]) or draw them "
                       "side by side with hue= and style=")
    ax = _axes(ax)
    series = _series(data, hue, style)
    width = 0.8 / len(series)
    for i, (label, group, look) in enumerate(series):
        x = group["value"].to_numpy() + (i - (len(series) - 1) / 2) * width
        p = group["probability"].to_numpy()
        error = _error_bars(p, group["ci_low"].to_numpy(), group["ci_high"].to_numpy())
        ax.bar(x, p, width=width, label=label, color=look["color"], hatch=look["hatch"],
               edgecolor="black", linewidth=0.6, yerr=error, capsize=2,
               error_kw={"linewidth": 0.8})
    ax.set_xlabel(metric_label(metric))
    ax.set_ylabel("probability")
    ax.set_xticks(sorted(data["value"].unique()))
    ax.set_title(f"distribution of {metric_label(metric)}", fontsize="medium")
    if hue is not None or style is not None:
        ax.legend(title=_legend_title(hue, style))
    return ax


def plot_differences(
    data: pd.DataFrame,
    metric: str = "on_curve",
    *,
    hue: str | None = None,
    style: str | None = None,
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
    hue : str, optional
        Column whose values get their own colour (default: ``variant`` if ``style`` is not
        given).
    style : str, optional
        Column whose values get their own marker and line style.
    ax : matplotlib Axes, optional
        Where to draw (default: the current axes).

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    OptionError
        Missing columns, no rows for the metric, or several rows for one point.
    """
    _require(data, ("variant", "turn", "metric", "mean", "ci_low", "ci_high", hue, style),
             "plot_differences")
    ax = _axes(ax)
    rows = data[(data["metric"] == metric) & (data["turn"] > 0)]
    if rows.empty:
        raise OptionError(f"no differences for metric {metric!r} after turn 0")
    if hue is None and style is None:
        hue = "variant"
    keys = [c for c in (hue, style) if c is not None] + ["turn"]
    _one_row_per_point(rows, keys, "plot_differences",
                       "keep one value of each (data[data[column] == value]) or draw them "
                       "apart with hue= and style=")
    series = _series(rows, hue, style)
    step = 0.6 / len(series)
    for i, (label, group, look) in enumerate(series):
        group = group.sort_values("turn")
        x = group["turn"].to_numpy() + (i - (len(series) - 1) / 2) * step
        mean = group["mean"].to_numpy()
        error = _error_bars(mean, group["ci_low"].to_numpy(), group["ci_high"].to_numpy())
        ax.errorbar(x, mean, yerr=error, fmt=look["marker"], capsize=3,
                    linestyle=look["linestyle"], linewidth=1, color=look["color"], label=label)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(sorted(rows["turn"].unique()))
    ax.set_xlabel("turn")
    baselines = _levels(rows, "baseline") if "baseline" in rows.columns else []
    baseline = baselines[0] if len(baselines) == 1 else "each baseline"
    ax.set_ylabel(f"{metric_label(metric)}: difference")
    ax.set_title(f"paired difference to {baseline} (95% interval)", fontsize="medium")
    ax.legend(title=_legend_title(hue, style))
    return ax


def plot_heatmap(
    data: pd.DataFrame,
    x: str,
    y: str,
    metric: str,
    *,
    turn: int | None = None,
    estimator: str | Callable[[pd.Series], float] | None = None,
    ax: Axes | None = None,
    cmap: str = "viridis",
    annotate: bool = True,
    fmt: str = "{:.2f}",
) -> Axes:
    """A sweep as a heatmap: ``x`` by ``y`` grid of a metric's mean.

    Parameters
    ----------
    data : DataFrame
        ``explore_sim.sweep(...).summary()`` rows (one column per swept parameter plus
        ``turn, metric, mean``).
    x, y : str
        Swept columns for the axes, such as ``"lands"`` and ``"Cenote Scout"``.
    metric : str
        Which metric's mean to draw.
    turn : int, optional
        Which turn (default: the last).
    estimator : str or callable, optional
        Combine several rows per cell (``"mean"``, ``"max"``, a function), for example over
        policies. Default: refuse such a frame, naming the columns that differ.
    ax : matplotlib Axes, optional
        Where to draw (default: the current axes).
    cmap : str
        A perceptually uniform colour map (viridis reads in grey scale too).
    annotate : bool
        Write each cell's value in it.
    fmt : str
        Format of the annotations.

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    OptionError
        Missing columns, no rows for the metric and turn, or several rows per cell without
        ``estimator``.
    """
    _require(data, (x, y, "turn", "metric", "mean"), "plot_heatmap")
    ax = _axes(ax)
    turn = int(data["turn"].max()) if turn is None else turn
    rows = data[(data["metric"] == metric) & (data["turn"] == turn)]
    if rows.empty:
        raise OptionError(f"no rows for metric {metric!r} at turn {turn}")
    if estimator is None:
        _one_row_per_point(rows, [x, y], "plot_heatmap",
                           "keep one value of each (data[data[column] == value]) or pass "
                           "estimator='mean' to combine them")
    grid = rows.pivot_table(index=y, columns=x, values="mean", aggfunc=estimator or "mean",
                            observed=True)
    image = ax.imshow(grid.to_numpy(), cmap=cmap, aspect="auto", origin="lower")
    ax.set_xticks(range(grid.shape[1]), [str(v) for v in grid.columns])
    ax.set_yticks(range(grid.shape[0]), [str(v) for v in grid.index])
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    combined = f" ({getattr(estimator, '__name__', estimator)} of rows)" if estimator else ""
    ax.set_title(f"{metric_label(metric)}, turn {turn}{combined}", fontsize="medium")
    colorbar = ax.figure.colorbar(image, ax=ax)
    colorbar.set_label(metric_label(metric))
    if annotate:
        norm = image.norm
        for (row, col), value in np.ndenumerate(grid.to_numpy()):
            dark = norm(value) < 0.5 if np.isfinite(value) else False
            ax.text(col, row, fmt.format(value), ha="center", va="center",
                    color="white" if dark else "black", fontsize=8)
    return ax


#: The metric a result's figure shows when none is named, by command.
FIGURE_METRICS = {"explore": "counters", "simulate": "on_curve", "compare": "on_curve"}


def result_figure(result: Any, metric: str | None = None) -> Figure:
    """The figure of a result, as ``--plot`` draws it on the command line and the web page
    shows it.

    ``explore``: the distribution of ``metric`` (default counters). ``simulate``: ``metric``
    (default on_curve) by turn with its band. ``compare``: the same for every variant, and
    beside it the paired differences to the first variant.

    Parameters
    ----------
    result : ExploreResult, SimulationResult or CompareResult
        What :func:`explore_sim.explore`, :func:`~explore_sim.simulate` or
        :func:`~explore_sim.compare` returned (told apart by ``result.meta["command"]``).
    metric : str, optional
        The metric to draw (default :data:`FIGURE_METRICS` of the command).

    Returns
    -------
    matplotlib Figure
        A new figure, 7 by 4.5 inches (12 by 4.5 for compare), not attached to pyplot.

    Raises
    ------
    OptionError
        A result of another command, or a metric it does not have.
    """
    command = getattr(result, "meta", {}).get("command")
    if command not in FIGURE_METRICS:
        raise OptionError(f"result_figure draws explore, simulate and compare results, "
                          f"not {command!r}")
    metric = metric or FIGURE_METRICS[command]
    figure = Figure(figsize=(12 if command == "compare" else 7, 4.5), layout="constrained")
    if command == "explore":
        plot_distribution(result.distribution(metric), metric=metric, ax=figure.subplots())
    elif command == "simulate":
        plot_turns(result.summary(), metric, ax=figure.subplots())
    else:
        left, right = figure.subplots(1, 2)
        plot_turns(result.summary(), metric, ax=left)
        plot_differences(result.paired_differences(), metric, ax=right)
    return figure
