"""``sweep --vary KEY=VALUES``: the grid of a sweep, read and checked."""

from __future__ import annotations

import re
from typing import Any

from ..analysis.land_counts import parse_counts
from ..analysis.sweep import MAX_GRID_VALUES
from ..errors import OptionError, clip

__all__ = ["MAX_VARY_VALUES", "parse_vary"]

#: The most values one --vary key takes (a grid key's, :data:`MAX_GRID_VALUES`).
MAX_VARY_VALUES = MAX_GRID_VALUES
_FORGE_ARGUMENT = re.compile(r"\s*[a-z_]+\s*=(?!=)")


def parse_vary(texts: list[str], sources: Any) -> dict[str, list]:
    """``--vary KEY=VALUES`` options as a sweep grid, checked.

    Parameters
    ----------
    texts : list of str
        The ``--vary`` values: keys ``lands``, ``policy`` or a known card; values whole
        numbers and inclusive ``A..B`` ranges (policies: names or expressions, separated by
        commas).
    sources : CardSources
        Where card keys are looked up.

    Returns
    -------
    dict of str to list
    """
    if not texts:
        raise OptionError('sweep needs at least one --vary KEY=VALUES, such as --vary '
                          'lands=22..25 or --vary "Cenote Scout=0,4,8"')
    grid: dict[str, list] = {}
    for text in texts:
        key, sep, values = text.partition("=")
        key = " ".join(key.split())
        if not sep or not key or not values.strip():
            raise OptionError(f"--vary: expected KEY=VALUES such as lands=20..26, got "
                              f"{clip(text)!r}")
        parsed: list[str] | list[int]
        if key.casefold() == "policy":
            name, parsed = "policy", _vary_policies(values)
        else:
            name = "lands" if key.casefold() == "lands" else _vary_card(key, sources)
            parsed = _vary_counts(name, values)
        if name in grid:
            raise OptionError(f"--vary: {clip(name)} is varied twice; give its values once")
        grid[name] = parsed
    return grid


def _vary_card(key: str, sources: Any) -> str:
    card = sources.find(key)
    if card is None:
        raise OptionError(f"--vary: unknown card {clip(key)!r}{sources.suggestion_text(key)}; "
                          "keys are lands, policy or card names")
    return card.name


def _vary_counts(name: str, text: str) -> list[int]:
    return parse_counts(text, f"--vary {clip(name)}", MAX_VARY_VALUES)


def _vary_policies(text: str) -> list[str]:
    """Policies separated by commas; ``forge:need_lands=3,max_mv_diff=1`` keeps its commas."""
    policies: list[str] = []
    for item in text.split(","):
        if policies and policies[-1].startswith("forge:") and _FORGE_ARGUMENT.match(item):
            policies[-1] += "," + item.strip()
        elif item.strip():
            policies.append(item.strip())
        else:
            raise OptionError(f"--vary policy: an empty policy in {clip(text)!r}")
    if len(policies) > MAX_VARY_VALUES:
        raise OptionError(f"--vary policy: more than {MAX_VARY_VALUES} policies")
    if len(set(policies)) != len(policies):
        raise OptionError("--vary policy: a policy is given twice")
    return policies
