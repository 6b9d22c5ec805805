"""``sweep --vary KEY=VALUES``: the grid of a sweep, read and checked."""

from __future__ import annotations

import re
from typing import Any

from ..analysis.sweep import MAX_GRID_VALUES
from ..errors import OptionError, clip

__all__ = ["MAX_VARY_VALUES", "parse_vary", "parse_counts"]

#: The most values one --vary key takes (a grid key's, :data:`MAX_GRID_VALUES`).
MAX_VARY_VALUES = MAX_GRID_VALUES
_VARY_ITEM = re.compile(r"\s*(\d{1,6})\s*(?:\.\.\s*(\d{1,6})\s*)?")
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
    return parse_counts(text, f"--vary {clip(name)}")


def parse_counts(text: str, label: str) -> list[int]:
    """Whole numbers and inclusive ``A..B`` ranges separated by commas (``20..26`` or
    ``0,4,8``), each once.

    Parameters
    ----------
    text : str
    label : str
        What the errors are about (``"--counts"``).

    Returns
    -------
    list of int
        In the order given.

    Raises
    ------
    OptionError
        Anything else, an empty range, a repeat, or more than :data:`MAX_VARY_VALUES`.
    """
    values: list[int] = []
    for item in text.split(","):
        match = _VARY_ITEM.fullmatch(item)
        if match is None:
            raise OptionError(f"{label}: expected whole numbers and A..B ranges "
                              f"such as 20..26 or 0,4,8, got {clip(item.strip())!r}")
        low = int(match.group(1))
        high = int(match.group(2)) if match.group(2) is not None else low
        if high < low:
            raise OptionError(f"{label}: the range {low}..{high} is empty (write {high}..{low})")
        if len(values) + high - low + 1 > MAX_VARY_VALUES:
            raise OptionError(f"{label}: more than {MAX_VARY_VALUES} values")
        values.extend(range(low, high + 1))
    repeated = sorted({v for v in values if values.count(v) > 1})
    if repeated:
        raise OptionError(f"{label}: {', '.join(map(str, repeated[:5]))} given twice")
    return values


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
