"""The look of every plot: the palette, line styles, markers and hatches, axis labels, and
the helpers that split a tidy frame into series and place a legend."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from ..engine.metrics import CATALOGUE
from ..errors import OptionError

__all__ = ["PALETTE", "LINESTYLES", "MARKERS", "HATCHES", "LABELS", "LEGEND_PLACES",
           "VALUE_COLUMNS", "metric_label", "axes_or_current", "require_columns",
           "one_row_per_point", "levels", "split_series", "legend_title", "place_legend",
           "error_bars"]

#: Okabe-Ito colours, distinguishable with the common colour-vision deficiencies.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
LINESTYLES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1)), (0, (1, 1)))
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
HATCHES = ("", "//", "..", "xx", "\\\\", "--", "++", "oo")

#: Axis labels by metric name, from the metrics catalogue (a metric measured both in an
#: explore sequence and in goldfish games has one label).
LABELS: dict[str, str] = {metric.name: metric.label for metric in CATALOGUE}


def metric_label(metric: str) -> str:
    """A readable axis label for a metric name.

    Parameters
    ----------
    metric : str

    Returns
    -------
    str
    """
    return LABELS.get(metric, metric.replace("_", " "))


def axes_or_current(ax: Axes | None) -> Axes:
    """``ax``, or the current axes when None (as pyplot and seaborn do). Where pyplot has no
    figure yet, the new one lays itself out (``layout="constrained"``), so that a legend
    beside the axes is inside the figure when it is saved."""
    if ax is None:
        import matplotlib.pyplot as plt

        if not plt.get_fignums():
            plt.figure(layout="constrained")
        ax = plt.gca()
    return ax


def require_columns(frame: pd.DataFrame, columns: Sequence[str | None], what: str) -> None:
    """Refuse a frame without ``columns`` (None entries are skipped), naming ``what`` needs them."""
    missing = [c for c in columns if c is not None and c not in frame.columns]
    if missing:
        raise OptionError(
            f"{what} needs columns {', '.join(missing)}; got {', '.join(map(str, frame.columns))}"
        )


#: Columns that hold what is drawn, never what tells rows apart.
VALUE_COLUMNS = frozenset({"mean", "se", "ci_low", "ci_high", "se_unpaired", "count",
                            "probability"})


def one_row_per_point(rows: pd.DataFrame, keys: Sequence[str], what: str, hint: str) -> None:
    """Refuse rows that would be drawn at the same point, naming the columns that differ."""
    repeated = rows.duplicated(subset=list(keys), keep=False)
    if not repeated.any():
        return
    shared = rows[repeated]
    differ = [
        column for column in shared.columns
        if column not in keys and column not in VALUE_COLUMNS
        and shared.groupby(list(keys), observed=True, sort=False)[column]
        .nunique(dropna=False).max() > 1
    ]
    why = f"they differ in {', '.join(differ)}" if differ else "they are repeated rows"
    raise OptionError(
        f"{what}: several rows for one point ({', '.join(keys)}): {why}; {hint}"
    )


def levels(frame: pd.DataFrame, column: str | None) -> list[Any]:
    """A column's values in plotting order: category order, else first appearance."""
    if column is None:
        return [None]
    values = frame[column]
    if isinstance(values.dtype, pd.CategoricalDtype):
        present = set(values.dropna())
        return [c for c in values.cat.categories if c in present]
    return list(dict.fromkeys(values))


def split_series(
    frame: pd.DataFrame, hue: str | None, style: str | None = None,
    hue_order: Sequence[Any] | None = None,
) -> list[tuple[str | None, pd.DataFrame, dict[str, Any]]]:
    """``(label, rows, look)`` per line: colour by ``hue``, line style, marker and hatch by
    ``style`` (by ``hue`` too when there is no ``style``, so lines also differ in grey).

    ``hue_order`` fixes each hue value's colour by its place in that list, whether or not
    the frame holds every value, so several panels give one value one colour."""
    hues, styles = levels(frame, hue), levels(frame, style)
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
            # past the palette, a hue's marker and line style move on from the colour's
            # first use, so that no two hues look the same
            shape = k if style is not None else h + h // len(PALETTE)
            colour = h if hue is not None else 0
            names = [str(v) for v, c in ((hue_value, hue), (style_value, style)) if c is not None]
            out.append((", ".join(names) or None, frame[mask], {
                "color": PALETTE[colour % len(PALETTE)],
                "linestyle": LINESTYLES[shape % len(LINESTYLES)],
                "marker": MARKERS[shape % len(MARKERS)],
                "hatch": HATCHES[shape % len(HATCHES)],
            }))
    return out


def legend_title(hue: str | None, style: str | None) -> str | None:
    """The legend's title: the columns that tell the series apart."""
    return ", ".join(c for c in (hue, style) if c is not None) or None


#: Where a legend may go: right of the axes (never over the data), matplotlib's best place
#: inside the axes, or nowhere (a figure-level legend, say).
LEGEND_PLACES = ("outside", "inside", False)


def place_legend(ax: Axes, title: str | None, legend: str | bool) -> None:
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


def error_bars(center: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Error bar lengths below and above ``center``, shape (2, n).

    An interval that rounding puts a hair inside its centre (a probability of exactly 1, a
    constant metric) gives a zero-length bar, never a negative one.
    """
    return np.clip(np.vstack([center - low, high - center]), 0, None)
