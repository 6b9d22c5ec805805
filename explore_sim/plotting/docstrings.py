"""Docstring components shared by the plotting helpers (as seaborn's ``_docstrings``): a
parameter described once, written into every helper that takes it.

A helper's docstring names a component as ``{name}`` on a line of its own, indented as a
parameter; :func:`share_docs` writes the component there.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

__all__ = ["COMPONENTS", "share_docs"]

#: Each component's text, its first line at a parameter's indentation in a function's
#: docstring, the following lines at its description's.
COMPONENTS = {
    "hue_order": """hue_order : sequence, optional
        The ``hue`` values in the order that fixes their colours (default: the column's
        category order, else first appearance). A value keeps its colour in every panel
        drawn with the same ``hue_order``, even a panel without it.""",
    "legend": """legend : {"outside", "inside", False}
        Where the legend goes: right of the axes, so it never hides the data (default),
        matplotlib's best place inside the axes, or no legend.""",
    "ax": """ax : matplotlib Axes, optional
        Where to draw (default: the current axes).""",
    "returns_axes": """Returns
    -------
    matplotlib Axes""",
}

F = TypeVar("F", bound=Callable)
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def share_docs(function: F) -> F:
    """Write the shared components into ``function``'s docstring.

    Parameters
    ----------
    function : callable

    Returns
    -------
    callable
        The same function.
    """
    if function.__doc__:
        function.__doc__ = _PLACEHOLDER.sub(
            lambda match: COMPONENTS.get(match.group(1), match.group(0)), function.__doc__)
    return function
