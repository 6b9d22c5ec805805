"""Plain lists (``4 Name``): what a list is when no other format says it is; read as this
format, a blank line never starts a sideboard."""

from __future__ import annotations

from .lines import parse_lines
from .sample import ParsedList, Sample

__all__ = ["NAME", "detect", "parse"]

NAME = "text"


def detect(sample: Sample) -> bool:
    """Always: the last format tried.

    Parameters
    ----------
    sample : Sample

    Returns
    -------
    bool
    """
    return True


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
