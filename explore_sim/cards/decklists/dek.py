"""MTGO ``.dek`` XML (``<Cards Quantity="4" Sideboard="false" Name="..."/>``), parsed with
defusedxml: DTDs and entity tricks are refused."""

from __future__ import annotations

import collections
import re

from ...errors import DeckError, clip
from .limits import BAD_NAME, MAX_CARD_LINES, MAX_COPIES_PER_LINE, MAX_LINE_LENGTH, Entry
from .sample import ParsedList, Sample

__all__ = ["NAME", "detect", "parse"]

NAME = "dek"


def detect(sample: Sample) -> bool:
    """An XML declaration or a ``<Deck>`` element first.

    Parameters
    ----------
    sample : Sample

    Returns
    -------
    bool
    """
    return sample.head.startswith("<?xml") or sample.head.startswith("<deck")


def parse(text: str, source: str, forced: bool) -> ParsedList:
    """The ``<Cards>`` elements by section (a .dek file names no deck and no filler).

    Parameters
    ----------
    text : str
    source : str
    forced : bool
        The format was named, not detected.

    Returns
    -------
    ParsedList

    Raises
    ------
    DeckError
        Malformed or refused XML, or a bad element, naming its line.
    """
    import xml.etree.ElementTree as ElementTree

    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import fromstring

    try:
        root = fromstring(text, forbid_dtd=True)
    except DefusedXmlException as error:
        raise DeckError(f"{source}: refused: the XML uses {type(error).__name__} "
                        "(DTDs and entities are not allowed in a .dek file)") from None
    except ElementTree.ParseError as error:
        line, column = error.position
        raise DeckError(f"{source}:{line}: malformed XML at column {column + 1}") from None
    if root.tag != "Deck":
        raise DeckError(f"{source}: not an MTGO .dek file (root element <{clip(root.tag, 40)}>)")
    card_lines = [i + 1 for i, line in enumerate(text.splitlines()) if "<Cards" in line]
    entries: dict[str, list[Entry]] = collections.defaultdict(list)
    for index, element in enumerate(root.iter("Cards")):
        line = card_lines[index] if index < len(card_lines) else 0
        where = f"{source}:{line}"
        name = (element.get("Name") or "").strip()
        quantity = (element.get("Quantity") or "").strip()
        if not name:
            raise DeckError(f"{where}: <Cards> element without a Name")
        if len(name) > MAX_LINE_LENGTH or BAD_NAME.search(name):
            raise DeckError(f"{where}: malformed card name {clip(name)!r}")
        if index >= MAX_CARD_LINES:
            raise DeckError(f"{where}: more than {MAX_CARD_LINES:,} <Cards> elements")
        if not re.fullmatch(r"\d{1,4}", quantity) or not 1 <= int(quantity) <= MAX_COPIES_PER_LINE:
            raise DeckError(
                f"{where}: Quantity {clip(quantity, 12)!r} is out of range "
                f"(1 to {MAX_COPIES_PER_LINE})"
            )
        side = (element.get("Sideboard") or "false").strip().casefold()
        if side not in {"true", "false"}:
            raise DeckError(f"{where}: Sideboard must be true or false, got {clip(side, 12)!r}")
        entries["sideboard" if side == "true" else "main"].append((line, name, int(quantity)))
    return entries, None, None
