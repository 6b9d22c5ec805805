"""Axes-level plots of tidy frames: each takes a frame and ``ax=None``, draws on that axes
only and returns it (:mod:`explore_sim.plotting` says how series and legends are drawn)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.patches import Rectangle

from ..errors import OptionError
from .docstrings import share_docs
from .style import (
    PALETTE,
    axes_or_current,
    error_bars,
    legend_title,
    levels,
    metric_label,
    one_row_per_point,
    place_legend,
    require_columns,
    split_series,
)

__all__ = ["plot_turns", "plot_distribution", "plot_differences", "plot_heatmap",
           "plot_sweep", "plot_land_equivalent", "plot_lands"]


@share_docs
def plot_turns(
    data: pd.DataFrame,
    metric: str | Sequence[str] = "on_curve",
    *,
    hue: str | None = None,
    style: str | None = None,
    hue_order: Sequence[Any] | None = None,
    legend: str | bool = "outside",
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
    metric : str or sequence of str
        Which metric to draw; several (``["maps_created", "maps_used"]``) are told apart by
        colour and marker (``hue="metric"`` unless ``hue`` or ``style`` is given).
    hue : str, optional
        Column whose values get their own colour (default: ``variant`` if present and
        ``style`` is not given).
    style : str, optional
        Column whose values get their own line style and marker, so that, for example,
        ``hue="policy", style="deck"`` tells both apart in one figure.
    {hue_order}
    {legend}
    {ax}
    band : bool
        Shade the interval between ``ci_low`` and ``ci_high``.
    **line_kw
        Passed to ``Axes.plot``.

    {returns_axes}

    Raises
    ------
    OptionError
        Missing columns, no rows for the metric, or several rows for one line point (a
        column such as ``deck`` varies but is neither ``hue`` nor ``style``).
    """
    require_columns(data, ("turn", "metric", "mean", "ci_low", "ci_high", hue, style), "plot_turns")
    ax = axes_or_current(ax)
    metrics = [metric] if isinstance(metric, str) else list(metric)
    rows = data[data["metric"].isin(metrics) & (data["turn"] > 0)]
    if rows.empty:
        raise OptionError(f"no rows for metric {metric!r} after turn 0")
    if hue is None and style is None and len(metrics) > 1:
        hue = "metric"
    elif hue is None and style is None and "variant" in rows.columns:
        hue = "variant"
    if len(metrics) > 1 and "metric" not in (hue, style):
        raise OptionError("plot_turns: several metrics are told apart by hue='metric' or "
                          "style='metric'")
    keys = [c for c in (hue, style) if c is not None] + ["turn"]
    one_row_per_point(rows, keys, "plot_turns",
                       "keep one value of each (data[data[column] == value]) or draw them "
                       "apart with hue= and style=")
    for label, group, look in split_series(rows, hue, style, hue_order):
        group = group.sort_values("turn")
        kw = {key: look[key] for key in ("color", "linestyle", "marker")}
        kw.update(line_kw)
        ax.plot(group["turn"], group["mean"], label=label, **kw)
        if band:
            ax.fill_between(group["turn"], group["ci_low"], group["ci_high"],
                            color=kw["color"], alpha=0.2, linewidth=0)
    label = ", ".join(metric_label(m) for m in metrics)
    ax.set_xlabel("turn")
    ax.set_ylabel(label)
    ax.set_xticks(sorted(rows["turn"].unique()))
    ax.set_title(f"{label} by turn", fontsize="medium")
    if hue is not None or style is not None:
        place_legend(ax, legend_title(hue, style), legend)
    return ax


@share_docs
def plot_distribution(
    data: pd.DataFrame,
    *,
    hue: str | None = None,
    style: str | None = None,
    hue_order: Sequence[Any] | None = None,
    legend: str | bool = "outside",
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
    {hue_order}
    {legend}
    metric : str
        Names the x axis.
    {ax}

    {returns_axes}

    Raises
    ------
    OptionError
        Missing columns, or several rows for one bar (a column varies but is neither
        ``hue`` nor ``style``).
    """
    require_columns(data, ("value", "probability", "ci_low", "ci_high", hue, style),
             "plot_distribution")
    keys = [c for c in (hue, style) if c is not None] + ["value"]
    one_row_per_point(data, keys, "plot_distribution",
                       "keep one value of each (data[data[column] == value]) or draw them "
                       "side by side with hue= and style=")
    ax = axes_or_current(ax)
    series = split_series(data, hue, style, hue_order)
    width = 0.8 / len(series)
    for i, (label, group, look) in enumerate(series):
        x = group["value"].to_numpy() + (i - (len(series) - 1) / 2) * width
        p = group["probability"].to_numpy()
        error = error_bars(p, group["ci_low"].to_numpy(), group["ci_high"].to_numpy())
        ax.bar(x, p, width=width, label=label, color=look["color"], hatch=look["hatch"],
               edgecolor="black", linewidth=0.6, yerr=error, capsize=2,
               error_kw={"linewidth": 0.8})
    ax.set_xlabel(metric_label(metric))
    ax.set_ylabel("probability")
    ax.set_xticks(sorted(data["value"].unique()))
    ax.set_title(f"distribution of {metric_label(metric)}", fontsize="medium")
    if hue is not None or style is not None:
        place_legend(ax, legend_title(hue, style), legend)
    return ax


@share_docs
def plot_differences(
    data: pd.DataFrame,
    metric: str = "on_curve",
    *,
    hue: str | None = None,
    style: str | None = None,
    hue_order: Sequence[Any] | None = None,
    legend: str | bool = "outside",
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
    hue_order : sequence, optional
        The ``hue`` values in the order that fixes their colours. Default: with
        ``hue="variant"`` and one baseline, the baseline then the variants, so each variant
        has the colour :func:`plot_turns` gives it in the same comparison; else the
        column's category order, else first appearance.
    {legend}
    {ax}

    {returns_axes}

    Raises
    ------
    OptionError
        Missing columns, no rows for the metric, or several rows for one point.
    """
    require_columns(data, ("variant", "turn", "metric", "mean", "ci_low", "ci_high", hue, style),
             "plot_differences")
    ax = axes_or_current(ax)
    rows = data[(data["metric"] == metric) & (data["turn"] > 0)]
    if rows.empty:
        raise OptionError(f"no differences for metric {metric!r} after turn 0")
    if hue is None and style is None:
        hue = "variant"
    keys = [c for c in (hue, style) if c is not None] + ["turn"]
    one_row_per_point(rows, keys, "plot_differences",
                       "keep one value of each (data[data[column] == value]) or draw them "
                       "apart with hue= and style=")
    baselines = levels(rows, "baseline") if "baseline" in rows.columns else []
    if hue_order is None and hue == "variant" and len(baselines) == 1:
        hue_order = [baselines[0], *levels(rows, "variant")]  # the baseline's colour is kept
    series = split_series(rows, hue, style, hue_order)
    step = 0.6 / len(series)
    for i, (label, group, look) in enumerate(series):
        group = group.sort_values("turn")
        x = group["turn"].to_numpy() + (i - (len(series) - 1) / 2) * step
        mean = group["mean"].to_numpy()
        error = error_bars(mean, group["ci_low"].to_numpy(), group["ci_high"].to_numpy())
        ax.errorbar(x, mean, yerr=error, fmt=look["marker"], capsize=3,
                    linestyle=look["linestyle"], linewidth=1, color=look["color"], label=label)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(sorted(rows["turn"].unique()))
    ax.set_xlabel("turn")
    baseline = baselines[0] if len(baselines) == 1 else "each baseline"
    ax.set_ylabel(f"{metric_label(metric)}: difference")
    ax.set_title(f"paired difference to {baseline} (95% interval)", fontsize="medium")
    place_legend(ax, legend_title(hue, style), legend)
    return ax


@share_docs
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
    best: str | None = None,
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
    {ax}
    cmap : str
        A perceptually uniform colour map (viridis reads in grey scale too).
    annotate : bool
        Write each cell's value in it.
    fmt : str
        Format of the annotations.
    best : {"max", "min"}, optional
        Outline the cell of each row (each ``y`` value) with the highest (``"max"``) or
        lowest (``"min"``) mean, such as the best land count for each number of explorers.

    {returns_axes}

    Raises
    ------
    OptionError
        Missing columns, no rows for the metric and turn, several rows per cell without
        ``estimator``, or another ``best``.
    """
    if best not in (None, "max", "min"):
        raise OptionError(f"best must be 'max', 'min' or None, got {best!r}")
    require_columns(data, (x, y, "turn", "metric", "mean"), "plot_heatmap")
    ax = axes_or_current(ax)
    turn = int(data["turn"].max()) if turn is None else turn
    rows = data[(data["metric"] == metric) & (data["turn"] == turn)]
    if rows.empty:
        raise OptionError(f"no rows for metric {metric!r} at turn {turn}")
    if estimator is None:
        one_row_per_point(rows, [x, y], "plot_heatmap",
                           "keep one value of each (data[data[column] == value]) or pass "
                           "estimator='mean' to combine them")
    grid = rows.pivot_table(
        index=y, columns=x, values="mean", observed=True,
        aggfunc=estimator or "mean")  # type: ignore[arg-type]  # pandas checks the name
    image = ax.imshow(grid.to_numpy(), cmap=cmap, aspect="auto", origin="lower")
    ax.set_xticks(range(grid.shape[1]), [str(v) for v in grid.columns])
    ax.set_yticks(range(grid.shape[0]), [str(v) for v in grid.index])
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    combined = f" ({getattr(estimator, '__name__', estimator)} of rows)" if estimator else ""
    outlined = f"; outlined: each row's {'highest' if best == 'max' else 'lowest'}" \
        if best else ""
    ax.set_title(f"{metric_label(metric)}, turn {turn}{combined}{outlined}", fontsize="medium")
    if best:
        values = grid.to_numpy(dtype=float)
        for row, line in enumerate(values):
            if np.isfinite(line).any():
                col = int(np.nanargmax(line) if best == "max" else np.nanargmin(line))
                ax.add_patch(Rectangle((col - 0.5, row - 0.5), 1, 1, fill=False,
                                       edgecolor="black", linewidth=2.2))
    colorbar = ax.figure.colorbar(image, ax=ax)
    colorbar.set_label(metric_label(metric))
    if annotate:
        norm = image.norm
        for (row, col), value in np.ndenumerate(grid.to_numpy()):
            # the norm of a number is a number (matplotlib's stubs say an array-like)
            dark = cast(float, norm(value)) < 0.5 if np.isfinite(value) else False
            ax.text(col, row, fmt.format(value), ha="center", va="center",
                    color="white" if dark else "black", fontsize=8)
    return ax


@share_docs
def plot_sweep(
    data: pd.DataFrame,
    metric: str = "on_curve",
    x: str | None = None,
    *,
    hue: str | None = None,
    style: str | None = None,
    turn: int | None = None,
    legend: str | bool = "outside",
    ax: Axes | None = None,
    **line_kw: Any,
) -> Axes:
    """A sweep as lines: a metric's mean against one swept parameter, at one turn, one line
    per ``hue`` x ``style`` group, with interval bars.

    Parameters
    ----------
    data : DataFrame
        ``explore_sim.sweep(...).summary()`` rows, or the rows of a sweep's ``--out`` file
        (one column per swept parameter plus ``turn, metric, mean, ci_low, ci_high``).
    metric : str
        Which metric to draw.
    x : str, optional
        The swept column across (default: the first column).
    hue : str, optional
        Column whose values get their own colour (``"policy"``).
    style : str, optional
        Column whose values get their own line style and marker.
    turn : int, optional
        Which turn (default: the last).
    legend : {"outside", "inside", False}
        Where the legend goes (:data:`LEGEND_PLACES`).
    {ax}
    **line_kw
        Passed to ``Axes.errorbar``.

    {returns_axes}

    Raises
    ------
    OptionError
        Missing columns, no rows for the metric and turn, or several rows for one point (a
        column varies but is neither ``x``, ``hue`` nor ``style``).
    """
    x = data.columns[0] if x is None else x
    require_columns(data, (x, "turn", "metric", "mean", "ci_low", "ci_high", hue, style),
                    "plot_sweep")
    ax = axes_or_current(ax)
    turn = int(data["turn"].max()) if turn is None else turn
    rows = data[(data["metric"] == metric) & (data["turn"] == turn)]
    if rows.empty:
        raise OptionError(f"no rows for metric {metric!r} at turn {turn}")
    keys = [c for c in (hue, style) if c is not None] + [x]
    one_row_per_point(rows, keys, "plot_sweep",
                       "keep one value of each (data[data[column] == value]) or draw them "
                       "apart with hue= and style=")
    order = levels(rows, x)
    numeric = all(isinstance(v, (int, float, np.integer, np.floating)) for v in order)
    order = sorted(order) if numeric and not isinstance(rows[x].dtype, pd.CategoricalDtype) \
        else order
    position = {value: (value if numeric else i) for i, value in enumerate(order)}
    for label, group, look in split_series(rows, hue, style):
        group = group.assign(_x=[position[v] for v in group[x]]).sort_values("_x")
        mean = group["mean"].to_numpy(dtype=float)
        bars = error_bars(mean, group["ci_low"].to_numpy(dtype=float),
                           group["ci_high"].to_numpy(dtype=float))
        kw = {key: look[key] for key in ("color", "linestyle", "marker")}
        kw.update(line_kw)
        ax.errorbar(group["_x"].to_numpy(dtype=float), mean, yerr=bars, label=label,
                    capsize=3, **kw)
    ax.set_xticks([float(position[v]) for v in order], [str(v) for v in order])
    ax.set_xlabel(x)
    ax.set_ylabel(metric_label(metric))
    ax.set_title(f"{metric_label(metric)}, turn {turn}", fontsize="medium")
    if hue is not None or style is not None:
        place_legend(ax, legend_title(hue, style), legend)
    return ax


@share_docs
def plot_land_equivalent(
    data: pd.DataFrame,
    land_equivalents: pd.DataFrame | None = None,
    *,
    ax: Axes | None = None,
) -> Axes:
    """How many lands a card is worth: the metric of its vanilla deck with 0, 1, 2, ... more
    lands, against the explorer deck's, one colour per card.

    Parameters
    ----------
    data : DataFrame
        ``ValueResult.curve()``: ``card, variant, lands, metric, turn, mean, ci_low,
        ci_high``; the explorer deck's row has ``lands`` NaN.
    land_equivalents : DataFrame, optional
        ``ValueResult.land_equivalents()``: ``card, mean, ci_low, ci_high``; each card's
        estimate is marked where its line meets the explorer deck's level, with its interval.
    {ax}

    {returns_axes}

    Raises
    ------
    OptionError
        Missing columns, or several rows for one point.
    """
    require_columns(data, ("card", "lands", "metric", "turn", "mean", "ci_low", "ci_high"),
             "plot_land_equivalent")
    ax = axes_or_current(ax)
    curve = data[data["lands"].notna()]
    explorer = data[data["lands"].isna()]
    one_row_per_point(curve, ["card", "lands"], "plot_land_equivalent",
                       "keep one value of each (data[data[column] == value])")
    if curve.empty:
        raise OptionError("plot_land_equivalent: no vanilla rows (lands 0, 1, ...)")
    found: dict[Any, Any] = {} if land_equivalents is None else {
        row.card: row for row in land_equivalents.itertuples(index=False)}
    several_turns = curve["turn"].nunique() > 1  # each card matched at its own turn
    for label, group, look in split_series(curve, "card"):
        group = group.sort_values("lands")
        x = group["lands"].to_numpy(dtype=float)
        mean = group["mean"].to_numpy()
        error = error_bars(mean, group["ci_low"].to_numpy(), group["ci_high"].to_numpy())
        at = f" (turn {int(group['turn'].iloc[0])})" if several_turns else ""
        ax.errorbar(x, mean, yerr=error, marker=look["marker"], linestyle=look["linestyle"],
                    color=look["color"], capsize=3, label=f"{label}{at}: vanilla + lands")
        level = explorer[explorer["card"] == label]
        if len(level):
            ax.axhline(float(level["mean"].iloc[0]), color=look["color"], linewidth=0.8,
                       linestyle=":")
            estimate = found.get(label)
            if estimate is not None and np.isfinite(estimate.mean):
                y = float(level["mean"].iloc[0])
                ax.errorbar([estimate.mean], [y], xerr=[[estimate.mean - estimate.ci_low],
                                                        [estimate.ci_high - estimate.mean]],
                            fmt="*", markersize=11, color=look["color"], capsize=4,
                            markeredgecolor="black", markeredgewidth=0.5)
    metric, turn = curve["metric"].iloc[0], int(curve["turn"].iloc[0])
    ax.set_xlabel("stand-ins replaced by basic lands")
    ax.set_ylabel(f"{metric_label(metric)}, "
                  + ("at each card's turn" if several_turns else f"turn {turn}"))
    ax.set_xticks(sorted(curve["lands"].unique()))
    title = "land-equivalent: where the line meets the explorer deck (dotted), 95% interval"
    played = data.attrs.get("explore_sim", {}).get("land_equivalent", {})
    if played.get("full_curve") is False:  # a valuation's curve, played as far as it reads
        title += ("\neach line stops at the first count of lands that reaches the explorer "
                  "deck (full_curve: every count)")
    ax.set_title(title, fontsize="medium")
    ax.legend(fontsize="small")
    return ax


@share_docs
def plot_lands(data: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """How many lands: the objective at each land count, the best count starred and the
    counts tied with it filled; the shares of screwed and flooded games on a second axis.

    Each count's bar is the 95% interval of its paired difference to the best count (the
    same shuffles), drawn around its mean, so a bar reaches the best's level (the dotted
    line) exactly when the count is tied with it; without the difference columns, each
    count's own interval.

    Parameters
    ----------
    data : DataFrame
        ``LandsResult.summary()``: ``lands, best, tied, mean, ci_low, ci_high, screwed,
        flooded``, and ``difference, difference_ci_low, difference_ci_high`` where known
        (``attrs["explore_sim"]`` names the objective).
    {ax}

    {returns_axes}
        The objective's axes (the shares' axes is its twin).

    Raises
    ------
    OptionError
        Missing columns, or several rows for one land count.
    """
    require_columns(data, ("lands", "best", "tied", "mean", "ci_low", "ci_high", "screwed",
                           "flooded"), "plot_lands")
    one_row_per_point(data, ["lands"], "plot_lands", "keep one run's rows")
    ax = axes_or_current(ax)
    rows = data.sort_values("lands")
    x = rows["lands"].to_numpy(dtype=float)
    mean = rows["mean"].to_numpy(dtype=float)
    best = rows["best"].to_numpy(dtype=bool)
    paired = {"difference", "difference_ci_low", "difference_ci_high"} <= set(rows.columns)
    if paired:  # the difference's interval, around the count's mean
        shift = mean - rows["difference"].to_numpy(dtype=float)  # the best's mean
        error = error_bars(mean, shift + rows["difference_ci_low"].to_numpy(dtype=float),
                           shift + rows["difference_ci_high"].to_numpy(dtype=float))
        label = "objective; 95% interval of the paired difference to the best"
        if best.any():
            ax.axhline(mean[best][0], color=PALETTE[0], linestyle=":", linewidth=1)
    else:
        error = error_bars(mean, rows["ci_low"].to_numpy(), rows["ci_high"].to_numpy())
        label = "objective, 95% interval"
    ax.errorbar(x, mean, yerr=error, color=PALETTE[0], marker="o", markerfacecolor="white",
                capsize=3, label=label)
    tied = rows["tied"].to_numpy(dtype=bool) & ~best  # the best is not tied with itself
    if tied.any():
        ax.plot(x[tied], mean[tied], "o", color=PALETTE[0], zorder=3, label="tied with the best")
    ax.plot(x[best], mean[best], "*", markersize=16, color=PALETTE[0], zorder=4,
            markeredgecolor="black", label="best")
    objective = rows.attrs.get("explore_sim", {}).get("objective", "objective")
    ax.set_xlabel("lands")
    ax.set_ylabel(objective)
    ax.set_xticks(x)
    shares = ax.twinx()
    for column, look in (("screwed", (PALETTE[1], "--", "v")), ("flooded", (PALETTE[2], ":", "^"))):
        shares.plot(x, 100 * rows[column].to_numpy(dtype=float), color=look[0],
                    linestyle=look[1], marker=look[2], label=f"{column} games")
    shares.set_ylabel("games screwed / flooded at least once (%)")
    shares.set_ylim(0, 100)
    lines = [*ax.get_legend_handles_labels()[0], *shares.get_legend_handles_labels()[0]]
    labels = [*ax.get_legend_handles_labels()[1], *shares.get_legend_handles_labels()[1]]
    ax.legend(lines, labels, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3,
              fontsize="small")
    return ax
