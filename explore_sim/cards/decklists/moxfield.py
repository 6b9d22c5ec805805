"""Moxfield text: Arena-style lines with ``*F*`` / ``*E*`` finish markers and ``#tags``."""

from __future__ import annotations

import re

from .lines import parse_lines
from .sample import ParsedList, Sample

__all__ = ["NAME", "detect", "parse"]

NAME = "moxfield"


def detect(sample: Sample) -> bool:
    """Finish markers or tags on a card line.

    Parameters
    ----------
    sample : Sample

    Returns
    -------
    bool
    """
    return any(re.search(r" \*[A-Z]\*( |$)| #\S", line) for line, _ in sample.cards)


def parse(text: str, source: str, forced: bool) -> ParsedList:
    """The list's card lines by section; forced, a blank line never starts a sideboard.

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
    return parse_lines(text, source, "never" if forced else "auto")
