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

Two functions draw whole figures of a result instead: :func:`plot_metrics` (small multiples
of a simulation or comparison) and :func:`result_figure`, the one figure ``--plot`` writes and
the web page shows.
"""

from __future__ import annotations

import textwrap
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
    "plot_sweep",
    "plot_land_equivalent",
    "plot_metrics",
    "sweep_dimensions",
    "short_labels",
    "figure_title",
    "result_figure",
    "metric_label",
    "PALETTE",
    "LEGEND_PLACES",
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
    frame: pd.DataFrame, hue: str | None, style: str | None = None,
    hue_order: Sequence[Any] | None = None,
) -> list[tuple[str | None, pd.DataFrame, dict[str, Any]]]:
    """``(label, rows, look)`` per line: colour by ``hue``, line style, marker and hatch by
    ``style`` (by ``hue`` too when there is no ``style``, so lines also differ in grey).

    ``hue_order`` fixes each hue value's colour by its place in that list, whether or not
    the frame holds every value, so several panels give one value one colour."""
    hues, styles = _levels(frame, hue), _levels(frame, style)
    if hue is None:
        hue_order = None
    slots = {value: i for i, value in enumerate(hue_order)} if hue_order is not None else {}
    extra = [value for value in hues if value not in slots]
    slots.update({value: len(slots) + i for i, value in enumerate(extra)})
    out = []
    for hue_value in sorted(hues, key=slots.__getitem__) if hue_order is not None else hues:
        h = slots[hue_value] if hue_order is not None else hues.index(hue_value)
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


#: Where a legend may go: right of the axes (never over the data), matplotlib's best place
#: inside the axes, or nowhere (a figure-level legend, say).
LEGEND_PLACES = ("outside", "inside", False)


def _legend(ax: Axes, title: str | None, legend: str | bool) -> None:
    """Draw the axes' legend where ``legend`` says (:data:`LEGEND_PLACES`)."""
    if legend is False:
        return
    if legend == "outside":
        ax.legend(title=title, loc="upper left", bbox_to_anchor=(1.02, 1), borderaxespad=0,
                  fontsize="small", title_fontsize="small")
    elif legend == "inside" or legend is True:
        ax.legend(title=title)
    else:
        raise OptionError(f"legend must be 'outside', 'inside' or False, got {legend!r}")


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
    metric : str
        Which metric to draw.
    hue : str, optional
        Column whose values get their own colour (default: ``variant`` if present and
        ``style`` is not given).
    style : str, optional
        Column whose values get their own line style and marker, so that, for example,
        ``hue="policy", style="deck"`` tells both apart in one figure.
    hue_order : sequence, optional
        The ``hue`` values in the order that fixes their colours (default: the column's
        category order, else first appearance). A value keeps its colour in every panel
        drawn with the same ``hue_order``, even a panel without it.
    legend : {"outside", "inside", False}
        Where the legend goes: right of the axes, so it never hides the data (default),
        matplotlib's best place inside the axes, or no legend.
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
    for label, group, look in _series(rows, hue, style, hue_order):
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
        _legend(ax, _legend_title(hue, style), legend)
    return ax


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
    hue_order : sequence, optional
        The ``hue`` values in the order that fixes their colours (default: the column's
        category order, else first appearance). A value keeps its colour in every panel
        drawn with the same ``hue_order``, even a panel without it.
    legend : {"outside", "inside", False}
        Where the legend goes: right of the axes, so it never hides the data (default),
        matplotlib's best place inside the axes, or no legend.
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
    series = _series(data, hue, style, hue_order)
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
        _legend(ax, _legend_title(hue, style), legend)
    return ax


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
    legend : {"outside", "inside", False}
        Where the legend goes: right of the axes, so it never hides the data (default),
        matplotlib's best place inside the axes, or no legend.
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
    baselines = _levels(rows, "baseline") if "baseline" in rows.columns else []
    if hue_order is None and hue == "variant" and len(baselines) == 1:
        hue_order = [baselines[0], *_levels(rows, "variant")]  # the baseline's colour is kept
    series = _series(rows, hue, style, hue_order)
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
    baseline = baselines[0] if len(baselines) == 1 else "each baseline"
    ax.set_ylabel(f"{metric_label(metric)}: difference")
    ax.set_title(f"paired difference to {baseline} (95% interval)", fontsize="medium")
    _legend(ax, _legend_title(hue, style), legend)
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


#: Legend labels longer than this are shortened by :func:`short_labels`.
LABEL_WIDTH = 28


def short_labels(names: Sequence[str], width: int = LABEL_WIDTH) -> tuple[dict[str, str], str]:
    """Legend labels for long names (policy expressions), and the caption that spells them out.

    Parameters
    ----------
    names : sequence of str
        Labels in legend order, such as a comparison's variants.
    width : int
        Names up to this many characters are kept as they are.

    Returns
    -------
    labels : dict of str to str
        Each name's legend label: the name itself, or for a longer name its start and a
        footnote number, ``"lands_in_hand == 0 or mana_… [1]"``, at most ``width``
        characters.
    caption : str
        ``"[1] full name; [2] ..."`` for the shortened names ("" if none was).

    Examples
    --------
    >>> labels, caption = short_labels(["keep", "lands_in_hand == 0 or mana_value >= 3"], 20)
    >>> list(labels.values())
    ['keep', 'lands_in_hand =… [1]']
    >>> caption
    '[1] lands_in_hand == 0 or mana_value >= 3'
    """
    labels: dict[str, str] = {}
    notes = []
    for name in dict.fromkeys(str(n) for n in names):
        if len(name) <= width:
            labels[name] = name
            continue
        notes.append(name)
        number = f" [{len(notes)}]"
        labels[name] = name[: max(width - len(number) - 1, 1)].rstrip() + "…" + number
    caption = "; ".join(f"[{i}] {name}" for i, name in enumerate(notes, start=1))
    return labels, caption


def figure_title(meta: dict[str, Any], labels: dict[str, str] | None = None) -> str:
    """What a figure of a result shows: its decks, policies, turns, trials and seed.

    Parameters
    ----------
    meta : dict
        A result's ``meta`` (``deck``, ``policy``, ``trials``, ``seed``; ``turns`` and
        ``on_play`` for games, ``drawn`` and ``explorer`` for an explore).
    labels : dict of str to str, optional
        Short labels for long policy names (:func:`short_labels`).

    Returns
    -------
    str
        For example ``"Lost Caverns Merfolk Explore · policy: keep, mill · 6 turns on the
        play · 100,000 trials, seed 1"``.
    """
    labels = labels or {}
    decks = "; ".join(str(deck.get("name")) for deck in meta.get("deck", []))
    policies = [labels.get(p, p) for p in meta.get("policy", [])]
    parts = [decks, f"polic{'ies' if len(policies) > 1 else 'y'}: {', '.join(policies)}"]
    if "turns" in meta:
        parts.append(f"{meta['turns']} turns on the {'play' if meta.get('on_play') else 'draw'}")
    if "drawn" in meta:
        by = f" by {meta['explorer']}" if meta.get("explorer") else ""
        parts.append(f"{meta.get('explores')} explore(s){by} after {meta['drawn']} cards drawn")
    parts.append(f"{meta.get('trials', 0):,} trials, seed {meta.get('seed')}")
    return " · ".join(part for part in parts if part)


def plot_metrics(
    result: Any,
    metrics: Sequence[str] | str | None = None,
    *,
    differences: bool = True,
    columns: int | None = None,
    figure: Any = None,
) -> Any:
    """Small multiples of a simulation or comparison: one panel per metric, by turn.

    Parameters
    ----------
    result : SimulationResult or CompareResult
        What :func:`explore_sim.simulate` or :func:`explore_sim.compare` returned.
    metrics : sequence of str, optional
        The metrics to draw, one panel each (default: those the result's table shows).
    differences : bool
        For a comparison, draw each metric's paired differences to the first variant in a
        panel beside it.
    columns : int, optional
        Metrics per row (default: 3 for a simulation, 2 for a comparison with differences,
        else 3).
    figure : matplotlib Figure, optional
        Where to draw (default: a new pyplot figure). It is resized to fit the panels.

    Returns
    -------
    matplotlib Figure
        Titled with the decks, policies, turns, trials and seed (:func:`figure_title`).
        Every variant has one colour and line style in every panel, named once in a legend
        beside the panels; long policy expressions get short labels there, spelled out in a
        caption under the panels.

    Raises
    ------
    OptionError
        An unknown metric (with the closest names).
    """
    from .analysis.metric_checks import DEFAULT_COMPARE_METRICS, check_metrics, table_metrics

    meta = result.meta
    extra = [f"castable:{name}" for name in meta.get("castable", [])]
    compared = hasattr(result, "paired_differences")
    default = [*DEFAULT_COMPARE_METRICS, *extra] if compared else table_metrics(meta)
    chosen = check_metrics(metrics, default, extra=extra)
    if not chosen:
        raise OptionError("plot_metrics needs at least one metric")
    per_metric = 2 if compared and differences else 1
    columns = columns or (2 if per_metric == 2 else 3)
    columns = max(1, min(int(columns), len(chosen)))
    rows = -(-len(chosen) // columns)
    if figure is None:
        import matplotlib.pyplot as plt

        figure = plt.figure(layout="constrained")
    legend_width = 3.2 if compared else 0.0
    figure.set_size_inches(3.6 * columns * per_metric + 0.4 + legend_width, 2.9 * rows + 1.2)
    axes = np.atleast_2d(figure.subplots(rows, columns * per_metric, squeeze=False))
    labels, caption = short_labels(meta.get("policy", []))
    summary = diffs = None
    if compared:
        variants = _variant_labels(result, labels)
        summary = _relabelled(result.summary(), {**labels, **variants})
        order = [variants[label] for label in result.labels]
        if per_metric == 2:
            diffs = _relabelled(result.paired_differences(), {**labels, **variants})
            note = f"paired differences to {order[0]} on the same shuffles, 95% intervals"
            caption = f"{note}; {caption}" if caption else note
    else:
        summary, order = result.summary(), None
    hue = "variant" if compared else None
    for i, metric in enumerate(chosen):
        row, column = divmod(i, columns)
        ax = axes[row, column * per_metric]
        plot_turns(summary, metric, hue=hue, hue_order=order, legend=False, ax=ax)
        ax.set_title(metric, fontsize="medium")
        if diffs is not None:
            right = axes[row, column * per_metric + 1]
            plot_differences(diffs, metric, hue=hue, hue_order=order, legend=False, ax=right)
            right.set_title(f"{metric}: paired difference", fontsize="medium")
            right.set_ylabel("difference")
    for ax in axes.flat[len(chosen) * per_metric:]:
        ax.set_visible(False)
    if compared:
        handles, names = axes[0, 0].get_legend_handles_labels()
        figure.legend(handles, names, title="variant", loc="outside right upper",
                      fontsize="small", title_fontsize="small")
    width = max(40, int((figure.get_size_inches()[0] - legend_width) * 9))
    figure.suptitle(textwrap.fill(figure_title(meta, labels), width))
    if caption:
        figure.supxlabel(textwrap.fill(caption, int(width * 1.3)), fontsize="small")
    return figure


def _variant_labels(result: Any, policies: dict[str, str]) -> dict[str, str]:
    """Each variant label of a comparison with its policy name shortened (deck names stay)."""
    labels = {}
    for d in range(len(result.decks)):
        for p, policy in enumerate(result.policies):
            label = result.labels[d * len(result.policies) + p]
            short = policies.get(policy, policy)
            labels[label] = label[: len(label) - len(policy)] + short \
                if label.endswith(policy) else label
    return labels


def _relabelled(frame: pd.DataFrame, labels: dict[str, str]) -> pd.DataFrame:
    """``frame`` with its variant, policy and baseline labels shortened (:func:`short_labels`)."""
    if all(key == value for key, value in labels.items()):
        return frame
    frame = frame.copy()
    for column in ("variant", "policy", "baseline"):
        if column not in frame.columns:
            continue
        values = frame[column]
        if isinstance(values.dtype, pd.CategoricalDtype):
            frame[column] = values.cat.rename_categories(
                {c: labels.get(c, c) for c in values.cat.categories})
        else:
            frame[column] = values.map(lambda v: labels.get(v, v))
    return frame


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
    ax : matplotlib Axes, optional
        Where to draw (default: the current axes).
    **line_kw
        Passed to ``Axes.errorbar``.

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    OptionError
        Missing columns, no rows for the metric and turn, or several rows for one point (a
        column varies but is neither ``x``, ``hue`` nor ``style``).
    """
    x = data.columns[0] if x is None else x
    _require(data, (x, "turn", "metric", "mean", "ci_low", "ci_high", hue, style), "plot_sweep")
    ax = _axes(ax)
    turn = int(data["turn"].max()) if turn is None else turn
    rows = data[(data["metric"] == metric) & (data["turn"] == turn)]
    if rows.empty:
        raise OptionError(f"no rows for metric {metric!r} at turn {turn}")
    keys = [c for c in (hue, style) if c is not None] + [x]
    _one_row_per_point(rows, keys, "plot_sweep",
                       "keep one value of each (data[data[column] == value]) or draw them "
                       "apart with hue= and style=")
    order = _levels(rows, x)
    numeric = all(isinstance(v, (int, float, np.integer, np.floating)) for v in order)
    order = sorted(order) if numeric and not isinstance(rows[x].dtype, pd.CategoricalDtype) \
        else order
    position = {value: (value if numeric else i) for i, value in enumerate(order)}
    for label, group, look in _series(rows, hue, style):
        group = group.assign(_x=[position[v] for v in group[x]]).sort_values("_x")
        mean = group["mean"].to_numpy(dtype=float)
        bars = _error_bars(mean, group["ci_low"].to_numpy(dtype=float),
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
        _legend(ax, _legend_title(hue, style), legend)
    return ax


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
    ax : matplotlib Axes, optional
        Where to draw (default: the current axes).

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    OptionError
        Missing columns, or several rows for one point.
    """
    _require(data, ("card", "lands", "metric", "turn", "mean", "ci_low", "ci_high"),
             "plot_land_equivalent")
    ax = _axes(ax)
    curve = data[data["lands"].notna()]
    explorer = data[data["lands"].isna()]
    _one_row_per_point(curve, ["card", "lands"], "plot_land_equivalent",
                       "keep one value of each (data[data[column] == value])")
    if curve.empty:
        raise OptionError("plot_land_equivalent: no vanilla rows (lands 0, 1, ...)")
    found = {} if land_equivalents is None else {
        row.card: row for row in land_equivalents.itertuples(index=False)}
    for label, group, look in _series(curve, "card"):
        group = group.sort_values("lands")
        x = group["lands"].to_numpy(dtype=float)
        mean = group["mean"].to_numpy()
        error = _error_bars(mean, group["ci_low"].to_numpy(), group["ci_high"].to_numpy())
        ax.errorbar(x, mean, yerr=error, marker=look["marker"], linestyle=look["linestyle"],
                    color=look["color"], capsize=3, label=f"{label}: vanilla + lands")
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
    ax.set_ylabel(f"{metric_label(metric)}, turn {turn}")
    ax.set_xticks(sorted(curve["lands"].unique()))
    ax.set_title("land-equivalent: where the line meets the explorer deck (dotted), "
                 "95% interval", fontsize="medium")
    ax.legend(fontsize="small")
    return ax


def sweep_dimensions(grid: dict[str, list], decks: int,
                     label: str = "result_figure") -> tuple[list[str], list[str]]:
    """What a sweep's figure shows: the grid keys that vary, then the policy and the deck if
    they vary (at most three in all: across, colour, line style).

    Parameters
    ----------
    grid : dict of str to list
        The sweep's grid, its policies under ``"policy"``.
    decks : int
        How many decks are swept.
    label : str
        What the error names (``--plot`` on the command line).

    Returns
    -------
    (list of str, list of str)
        The varying grid keys, and ``"policy"`` / ``"deck"`` where they vary.

    Raises
    ------
    OptionError
        More than three varying parameters.
    """
    varying = [key for key, values in grid.items() if key != "policy" and len(values) > 1]
    others = [name for name, count in (("policy", len(grid.get("policy", [1]))),
                                       ("deck", decks)) if count > 1]
    dims = varying + others
    if len(dims) > 3:
        raise OptionError(f"{label}: the sweep varies {len(dims)} parameters "
                          f"({', '.join(dims)}); a figure shows up to three (across, colour, "
                          "line style): vary fewer, or plot the --out file yourself")
    return varying, others


def _sweep_figure(result: Any, metrics: Sequence[str] | None) -> Figure:
    """A sweep's figure (:func:`result_figure`)."""
    metric = (list(metrics) if metrics else ["on_curve"])[0]
    varying, others = sweep_dimensions({**result.grid, "policy": result.policies},
                                       len(result.decks))
    dims = varying + others
    rows = result.summary()
    figure = Figure(figsize=(7, 4.5), layout="constrained")
    if len(varying) == 2 and not others:
        plot_heatmap(rows, varying[0], varying[1], metric, ax=figure.subplots())
    else:
        x = (dims or list(result.grid))[0]
        hue = dims[1] if len(dims) > 1 else None
        style = dims[2] if len(dims) > 2 else None
        plot_sweep(rows, metric, x, hue=hue, style=style, ax=figure.subplots())
    figure.suptitle(textwrap.fill(figure_title(result.meta), 90), fontsize="medium")
    return figure


def result_figure(
    result: Any,
    metrics: Sequence[str] | str | None = None,
    *,
    distribution: str | None = None,
    turn: int | None = None,
) -> Figure:
    """The figure of a result, as ``--plot`` writes it and the web page shows it.

    ``explore``: the distribution of ``distribution`` (default counters). ``simulate`` with
    ``distribution``: that metric's distribution at ``turn``. ``simulate`` and ``compare``
    otherwise: :func:`plot_metrics`, one panel per metric (with the paired differences beside
    each for a comparison). Each of these is titled with what ran (:func:`figure_title`).
    ``value``: :func:`plot_land_equivalent` of every card valued. ``sweep``: the first of
    ``metrics`` (default on_curve) at the last turn, as a :func:`plot_heatmap` when exactly
    two grid keys vary (one deck, one policy), else as :func:`plot_sweep` lines (the first
    varying parameter across, the next ones as colour and line style).

    Parameters
    ----------
    result : ExploreResult, SimulationResult, CompareResult, ValueResult or SweepResult
        What :func:`explore_sim.explore`, :func:`~explore_sim.simulate`,
        :func:`~explore_sim.compare`, :func:`~explore_sim.value` or
        :func:`~explore_sim.sweep` returned (told apart by ``result.meta["command"]``).
    metrics : sequence of str, optional
        simulate and compare: the metrics to draw, one panel each (default: those the
        result's table shows). sweep: the first one is drawn.
    distribution : str, optional
        explore: the metric whose distribution is drawn (default counters). simulate: draw
        this metric's distribution at ``turn`` instead of the metrics by turn.
    turn : int, optional
        simulate with ``distribution``: 0 (the opening hand) to the last turn (default).

    Returns
    -------
    matplotlib Figure
        A new figure, not attached to pyplot: 7 by 4.5 inches for a distribution, 9 by 4.5
        for land-equivalents, sized to its panels for metrics by turn.

    Raises
    ------
    OptionError
        A result of another command, an option its figure does not take, a metric or
        turn it does not have, or a sweep varying more than three parameters.
    """
    command = getattr(result, "meta", {}).get("command")
    if command not in ("explore", "simulate", "compare", "value", "sweep"):
        raise OptionError(f"result_figure draws explore, simulate, compare, value and sweep "
                          f"results, not {command!r}")
    if command == "sweep":
        if distribution is not None or turn is not None:
            raise OptionError("a sweep's figure is one metric at the last turn: it takes no "
                              "distribution= or turn=")
        return _sweep_figure(result, [metrics] if isinstance(metrics, str) else metrics)
    if command == "value":
        if metrics is not None or distribution is not None or turn is not None:
            raise OptionError("a value's figure is its land-equivalents: it takes no metrics=, "
                              "distribution= or turn=")
        figure = Figure(figsize=(9, 4.5), layout="constrained")
        plot_land_equivalent(result.curve(), result.land_equivalents(), ax=figure.subplots())
        return figure
    if command == "explore" and metrics is not None:
        raise OptionError("an explore's figure is one distribution: name its metric with "
                          "distribution=, not metrics=")
    if command == "compare" and distribution is not None:
        raise OptionError("a comparison's figure is its metrics by turn: distribution= is "
                          "for explore and simulate")
    if turn is not None and (command != "simulate" or distribution is None):
        raise OptionError("turn= goes with a simulation's distribution=")
    if command != "explore" and distribution is None:
        return plot_metrics(result, metrics, figure=Figure(layout="constrained"))
    metric = distribution or "counters"
    if command == "explore":
        rows, where = result.distribution(metric), ""
    else:
        turn = result.meta["turns"] if turn is None else turn
        rows = result.distribution(metric, turn)
        where = " in the opening hand" if turn == 0 else f" at the end of turn {turn}"
    figure = Figure(figsize=(7, 4.5), layout="constrained")
    ax = plot_distribution(rows, metric=metric, ax=figure.subplots())
    ax.set_title(f"distribution of {metric_label(metric)}{where}", fontsize="medium")
    figure.suptitle(textwrap.fill(figure_title(result.meta), 70), fontsize="medium")
    return figure
