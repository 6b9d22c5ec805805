"""Whole figures of a result: :func:`plot_metrics` (small multiples of a simulation or
comparison) and :func:`result_figure`, the one figure ``--plot`` writes and the web page
shows; and the labels and titles they draw."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..errors import OptionError
from .axes_plots import (
    plot_differences,
    plot_distribution,
    plot_heatmap,
    plot_land_equivalent,
    plot_lands,
    plot_sweep,
    plot_turns,
)
from .style import metric_label

__all__ = ["LABEL_WIDTH", "short_labels", "figure_title", "plot_metrics", "sweep_dimensions",
           "result_figure"]

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
        start = ("half on the play, half on the draw" if meta.get("on_play") == "both" else
                 f"on the {'play' if meta.get('on_play') else 'draw'}")
        parts.append(f"{meta['turns']} turns {start}")
    if "drawn" in meta:
        from ..analysis.report import explores_text

        by = f" by {meta['explorer']}" if meta.get("explorer") else ""
        explores = meta.get("explores")
        text = explores_text(explores)  # type: ignore[arg-type]  # None if meta lacks it
        parts.append(f"{text}{by} after {meta['drawn']} cards drawn")
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
    from ..analysis.metric_checks import DEFAULT_COMPARE_METRICS, check_metrics, table_metrics

    meta = result.meta
    extra = [f"castable:{name}" for name in meta.get("castable", [])]
    compared = hasattr(result, "paired_differences")
    default = [*DEFAULT_COMPARE_METRICS, *extra] if compared else table_metrics(meta)
    chosen = check_metrics(metrics, default, extra=extra)
    if not chosen:
        raise OptionError("plot_metrics needs at least one metric")
    per_metric = 2 if compared and differences else 1
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
    if metrics is None:  # the default panels: leave out and name those zero on every turn
        chosen, zero = _drawable(summary, chosen)
        if zero:
            note = f"zero on every turn, not drawn: {', '.join(zero)}"
            caption = f"{caption}; {note}" if caption else note
    columns = columns or (2 if per_metric == 2 else 3)
    columns = max(1, min(int(columns), len(chosen)))
    rows = -(-len(chosen) // columns)
    if figure is None:
        import matplotlib.pyplot as plt

        figure = plt.figure(layout="constrained")
    legend_width = 3.2 if compared else 0.0
    figure.set_size_inches(3.6 * columns * per_metric + 0.4 + legend_width, 2.9 * rows + 1.2)
    axes = np.atleast_2d(figure.subplots(rows, columns * per_metric, squeeze=False))
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


def _drawable(summary: Any, chosen: Sequence[str]) -> tuple[list[str], list[str]]:
    """The metrics of ``chosen`` with a nonzero mean on some turn (of some variant), and the
    others; all of them when every one is zero (a figure keeps at least its panels)."""
    means = summary.groupby("metric", observed=True)["mean"].apply(lambda m: m.abs().max())
    zero = [m for m in chosen if m in means.index and means[m] == 0]
    kept = [m for m in chosen if m not in zero]
    return (kept, zero) if kept else (list(chosen), [])


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
        plot_heatmap(rows, varying[0], varying[1], metric, ax=figure.subplots(), best="max")
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
    ``value``: :func:`plot_land_equivalent` of every card valued. ``lands``:
    :func:`plot_lands`. ``sweep``: the first of ``metrics`` (default on_curve) at the last
    turn, as a :func:`plot_heatmap` when exactly two grid keys vary (one deck, one policy;
    each row's highest cell outlined), else as :func:`plot_sweep` lines (the first varying
    parameter across, the next ones as colour and line style).

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
    if command not in ("explore", "simulate", "compare", "value", "sweep", "lands"):
        raise OptionError(f"result_figure draws explore, simulate, compare, value, sweep and "
                          f"lands results, not {command!r}")
    if command == "lands":
        if metrics is not None or distribution is not None or turn is not None:
            raise OptionError("a lands figure is its objective by land count: it takes no "
                              "metrics=, distribution= or turn=")
        figure = Figure(figsize=(8, 5), layout="constrained")
        plot_lands(result.summary(), ax=figure.subplots())
        figure.suptitle(textwrap.fill(figure_title(result.meta), 70), fontsize="medium")
        return figure
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
