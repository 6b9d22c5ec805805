"""MTG Arena exports: ``4 Cenote Scout (LCI) 178`` under optional section headers ``About``
(with a ``Name ...`` line), ``Commander``, ``Companion``, ``Deck``, ``Sideboard``; headers may
carry counts (``Deck (60)``, ``Sideboard: 15``) and may repeat."""

from __future__ import annotations

from .lines import parse_lines, section_of
from .sample import ParsedList, Sample

__all__ = ["NAME", "detect", "parse"]

NAME = "arena"


def detect(sample: Sample) -> bool:
    """Section headers, or set codes after the names.

    Parameters
    ----------
    sample : Sample

    Returns
    -------
    bool
    """
    return any(section_of(line) for line in sample.lines) or \
        any(card.set_code for _, card in sample.cards)


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
