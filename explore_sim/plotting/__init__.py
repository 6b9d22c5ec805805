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

The package's modules: :mod:`.axes_plots` (the axes-level helpers), :mod:`.figures` (whole
figures), :mod:`.style` (palette, series and legends) and :mod:`.docstrings` (the parameter
descriptions the helpers share). Two functions draw whole figures of a result instead:
:func:`plot_metrics` (small multiples of a simulation or comparison) and :func:`result_figure`,
the one figure ``--plot`` writes and the web page shows.
"""

from __future__ import annotations

from .axes_plots import (
    plot_differences,
    plot_distribution,
    plot_heatmap,
    plot_land_equivalent,
    plot_lands,
    plot_sweep,
    plot_turns,
)
from .figures import (
    LABEL_WIDTH,
    figure_title,
    plot_metrics,
    result_figure,
    short_labels,
    sweep_dimensions,
)
from .style import LEGEND_PLACES, PALETTE, metric_label

__all__ = [
    "plot_turns",
    "plot_distribution",
    "plot_differences",
    "plot_heatmap",
    "plot_sweep",
    "plot_land_equivalent",
    "plot_lands",
    "plot_metrics",
    "sweep_dimensions",
    "short_labels",
    "figure_title",
    "result_figure",
    "metric_label",
    "PALETTE",
    "LEGEND_PLACES",
    "LABEL_WIDTH",
]
