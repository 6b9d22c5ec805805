"""Decklist formats, one module each, behind a small registry.

A format module has a ``NAME``, ``detect(sample) -> bool`` (does a :class:`Sample` of the
text look like this format?) and ``parse(text, source, forced) -> ParsedList`` (the card lines
by section, the deck's name, its ``// filler:`` line). :data:`FORMATS` lists them in the order
detection tries them; the first that says yes reads the list. Adding a format is one module
and one line in :data:`FORMATS`; :data:`DECK_FORMATS` (what ``format=`` and ``--deck-format``
accept) follows.

The shared parts: :mod:`.limits` (sizes and counts), :mod:`.lines` (card lines, headers,
blocks of the text formats), :mod:`.sample` (what detection reads).
"""

from __future__ import annotations

from types import ModuleType

from ...errors import DeckError
from ..files import check_lines
from . import archidekt, arena, dek, moxfield, mtgo, text
from .limits import MAX_DECK_BYTES, MAX_LINE_LENGTH, Entry
from .sample import Sample

__all__ = ["FORMATS", "DECK_FORMATS", "detect_format", "read_entries"]

#: The formats, in the order detection tries them (``text`` says yes to anything).
FORMATS: dict[str, ModuleType] = {module.NAME: module for module in (
    dek, archidekt, moxfield, mtgo, arena, text)}
#: Formats accepted by ``format=`` (``auto`` detects), in the order the help lists them.
DECK_FORMATS = ("auto", "arena", "mtgo", "moxfield", "archidekt", "dek", "text")


def detect_format(text: str) -> str:
    """Guess the decklist format of ``text`` (one of :data:`DECK_FORMATS` but ``auto``).

    Parameters
    ----------
    text : str

    Returns
    -------
    str
    """
    sample = Sample.of(text)
    return next(name for name, module in FORMATS.items() if module.detect(sample))


def read_entries(
    text: str, source: str = "<text>", format: str = "auto"
) -> tuple[dict[str, list[Entry]], str | None, tuple[int, str] | None, str]:
    """The card lines of decklist text, per section, before any name is looked up.

    Parameters
    ----------
    text : str
        The decklist.
    source : str
        Names the list in error messages.
    format : str
        One of :data:`DECK_FORMATS`; ``auto`` detects it.

    Returns
    -------
    entries : dict of str to list of (int, str, int)
        ``(line number, card name as written, copies)`` per section (``main``,
        ``sideboard``, ``commander``, ``companion``); the maybeboard is dropped.
    name : str or None
        The deck's name if the list gives one.
    filler : (int, str) or None
        The line and card name of a ``// filler: ...`` line.
    format : str
        The format the text was read as.

    Raises
    ------
    DeckError
        An unknown format, a malformed line or count, or text too large for a decklist.
    """
    if format not in DECK_FORMATS:
        raise DeckError(f"unknown deck format {format!r}; use one of {', '.join(DECK_FORMATS)}")
    if "\x00" in text:
        raise DeckError(f"{source}: not a text decklist (it contains NUL bytes)")
    if len(text) > MAX_DECK_BYTES:
        raise DeckError(f"{source}: too large for a decklist ({len(text):,} characters, at "
                        f"most {MAX_DECK_BYTES:,})")
    forced = format != "auto"
    if not forced:
        format = detect_format(text)
    if format != "dek":
        check_lines(text, source, MAX_LINE_LENGTH, DeckError)
    entries, deck_name, filler = FORMATS[format].parse(text, source, forced)
    return entries, deck_name, filler, format
