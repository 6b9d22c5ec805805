"""Archidekt text: ``1x Name (set) 123 [Category]``; the categories ``Sideboard``,
``Maybeboard``, ``Commander`` and ``Companion`` decide the section."""

from __future__ import annotations

import re

from .lines import categories, parse_lines
from .sample import ParsedList, Sample

__all__ = ["NAME", "detect", "parse"]

NAME = "archidekt"


def detect(sample: Sample) -> bool:
    """A card line that ends in ``[categories]``.

    Parameters
    ----------
    sample : Sample

    Returns
    -------
    bool
    """
    return any(categories(line) is not None and line.endswith("]") for line, _ in sample.cards)


def parse(text: str, source: str, forced: bool) -> ParsedList:
    """The list's card lines by section (its categories first); forced, a blank line never
    starts a sideboard.

    Parameters
    ----------
    text : str
    source : str
    forced : bool
        The format was named, not detected.

    Returns
    -------
    ParsedList
    """
    return parse_lines(text, source, "never" if forced else "auto", _section)


def _section(line: str, default: str) -> str:
    """The section the categories of a card line put it in."""
    found = categories(line)
    if found is None:
        return default
    names = {re.sub(r"\{[^{}]*\}", "", c).strip().casefold() for c in found.split(",")}
    for category, section in (("commander", "commander"), ("sideboard", "sideboard"),
                              ("maybeboard", "maybeboard"), ("companion", "companion")):
        if category in names:
            return section
    return default
