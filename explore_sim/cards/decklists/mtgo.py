"""MTGO / plain text exports: ``4 Name``, ``4x Name``, ``SB: 2 Name``, a ``Sideboard`` line."""

from __future__ import annotations

import re

from .lines import parse_lines
from .sample import ParsedList, Sample

__all__ = ["NAME", "detect", "parse"]

NAME = "mtgo"


def detect(sample: Sample) -> bool:
    """``SB:`` lines, or counts written ``4x``.

    Parameters
    ----------
    sample : Sample

    Returns
    -------
    bool
    """
    return any(line.upper().startswith("SB:") for line in sample.lines) or \
        any(re.match(r"\d+x ", line) for line, _ in sample.cards)


def parse(text: str, source: str, forced: bool) -> ParsedList:
    """The list's card lines by section; forced, the last header-less block is the sideboard.

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
    return parse_lines(text, source, "last" if forced else "auto")
