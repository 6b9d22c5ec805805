"""Decklists: MTG Arena exports and MTGO / plain text, read into a :class:`Deck`.

Accepted shapes
---------------
* Arena: ``4 Cenote Scout (LCI) 178`` lines under optional section headers ``About``
  (with a ``Name ...`` line), ``Commander``, ``Companion``, ``Deck``, ``Sideboard``; a header
  may carry a count (``Deck (60)``, ``Sideboard: 15``).
* MTGO / plain text: ``4 Name``, ``4x Name``, ``SB: 2 Name``, a ``Sideboard`` line.
* Header-less files (Arena's and MTGO's older export): when the cards form exactly two
  blocks separated by blank lines and the second has at most 15 cards, the second block is
  the sideboard (a :class:`~explore_sim.errors.DeckWarning` says so).
* Whole-line comments starting with ``#`` or ``//``.

Only the main deck goes into the library; commander, companion and sideboard are kept for
reference. Construction rules (copy limits, minimum sizes) are not enforced, so what-if decks
are fine; an empty main deck, counts of 0 or over 250 on a line, and unknown cards are refused
with the file and line named, every unknown card listed at once.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import re
import warnings
from collections.abc import Iterable
from os import PathLike
from pathlib import Path

import numpy as np

from .cards import Card, Catalog, FeatureTable
from .errors import CardError, DeckError, DeckWarning

__all__ = ["Deck", "load_deck", "parse_deck", "deck_from_counts", "MAX_COPIES_PER_LINE", "MAX_DECK_SIZE"]

#: The most copies one line may ask for; more is treated as a typo.
MAX_COPIES_PER_LINE = 250
#: The largest main deck accepted.
MAX_DECK_SIZE = 1000
#: A header-less second block of at most this many cards is read as the sideboard.
_SIDEBOARD_BLOCK_MAX = 15

_SECTIONS = {
    "about": "about",
    "name": "about",
    "deck": "main",
    "main": "main",
    "maindeck": "main",
    "main deck": "main",
    "mainboard": "main",
    "sideboard": "sideboard",
    "side board": "sideboard",
    "side": "sideboard",
    "commander": "commander",
    "commanders": "commander",
    "companion": "companion",
}
_HEADER = re.compile(
    r"^(?P<name>[A-Za-z][A-Za-z ]*?)\s*:?\s*(?:\(\s*\d+\s*\)|\d+)?\s*:?\s*$"
)
_CARD_LINE = re.compile(
    r"^(?P<sb>SB:\s*)?(?P<count>[+-]?\d+)\s*[xX]?\s+(?P<name>.+?)"
    r"(?:\s+\((?P<set>[A-Za-z0-9_]{2,6})\)(?:\s+(?P<number>[A-Za-z0-9\-★*]+))?)?\s*$"
)
_BAD_NAME = re.compile(r"[\x00-\x1f\x7f{}\[\]<>|\\]")


@dataclasses.dataclass(frozen=True)
class Deck:
    """A decklist resolved against a catalog.

    Attributes
    ----------
    name : str
        The deck's name (Arena ``Name`` line, else the file's stem).
    main, sideboard, commander, companion : tuple of (Card, int)
        Cards and copy counts per section, in first-seen order.
    source : str
        Where the list came from (a path or ``"<text>"``).
    """

    name: str
    main: tuple[tuple[Card, int], ...]
    sideboard: tuple[tuple[Card, int], ...] = ()
    commander: tuple[tuple[Card, int], ...] = ()
    companion: tuple[tuple[Card, int], ...] = ()
    source: str = "<text>"

    @property
    def size(self) -> int:
        """Cards in the main deck (the library before the opening hand)."""
        return sum(count for _, count in self.main)

    @property
    def land_count(self) -> int:
        """Land cards in the main deck (E10: the type in the library decides)."""
        return sum(count for card, count in self.main if card.is_land)

    @property
    def land_like_count(self) -> int:
        """Spell // land modal double-faced cards in the main deck."""
        return sum(count for card, count in self.main if card.is_land_like)

    @property
    def cards(self) -> tuple[Card, ...]:
        """The distinct main-deck cards, in deck order."""
        return tuple(card for card, _ in self.main)

    def count(self, name: str) -> int:
        """Copies of the card called ``name`` in the main deck."""
        card = Catalog(self.cards).find(name)
        return 0 if card is None else dict(self.main)[card]

    def features(self) -> FeatureTable:
        """Feature arrays for the main deck's cards: card ``i`` of :attr:`cards` has id i+1."""
        return FeatureTable.from_cards(self.cards)

    def card_ids(self) -> np.ndarray:
        """The main deck as deck-local card ids, shape ``(size,)``, dtype int16.

        Nonland cards come first and lands last, each in deck order, so two decks with the
        same size and land count put their lands in the same shuffled positions when they
        are shuffled with the same random numbers (common random numbers in comparisons).
        """
        ids = np.arange(1, len(self.main) + 1, dtype=np.int16)
        counts = np.array([count for _, count in self.main])
        is_land = np.array([card.is_land for card, _ in self.main], dtype=bool)
        return np.concatenate(
            [np.repeat(ids[~is_land], counts[~is_land]), np.repeat(ids[is_land], counts[is_land])]
        )

    def digest(self) -> str:
        """A short hash of the main deck's contents, for result metadata."""
        lines = sorted(f"{count} {card.name}" for card, count in self.main)
        text = "\n".join(lines)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def __str__(self) -> str:
        lines = [f"{count} {card.name}" for card, count in self.main]
        if self.sideboard:
            lines += ["", "Sideboard", *(f"{c} {card.name}" for card, c in self.sideboard)]
        return "\n".join(lines)


def load_deck(path_or_text: str | PathLike[str], catalog: Catalog | None = None) -> Deck:
    """Read a decklist from a file path or from decklist text.

    Parameters
    ----------
    path_or_text : str or path-like
        A path to a decklist file, or the decklist itself as text (any string containing a
        line break is read as text).
    catalog : Catalog, optional
        Where card names are looked up; the built-in catalog by default.

    Raises
    ------
    DeckError
        A missing or unreadable file, a malformed line, a bad count, unknown cards (all listed
        with suggestions) or an empty main deck. The message names the file and line.
    """
    if isinstance(path_or_text, str) and "\n" in path_or_text:
        return parse_deck(path_or_text, catalog=catalog)
    path = Path(path_or_text)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise DeckError(f"{path}: no such decklist file") from None
    except IsADirectoryError:
        raise DeckError(f"{path}: is a directory, not a decklist file") from None
    except OSError as error:
        raise DeckError(f"{path}: cannot read: {error.strerror or error}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise DeckError(
            f"{path}: not a text decklist (byte {error.start} is not UTF-8)"
        ) from None
    return parse_deck(text, catalog=catalog, source=str(path), name=path.stem)


def parse_deck(
    text: str,
    catalog: Catalog | None = None,
    *,
    source: str = "<text>",
    name: str | None = None,
) -> Deck:
    """Parse decklist text; see the module docstring for the accepted shapes."""
    catalog = catalog or Catalog.builtin()
    if "\x00" in text:
        raise DeckError(f"{source}: not a text decklist (it contains NUL bytes)")
    lines = text.splitlines()
    has_headers = any(_section_of(line) is not None for line in lines)
    section = "main"
    deck_name = name
    blocks: list[list[tuple[int, str, int]]] = [[]]  # header-less: blocks between blank lines
    entries: dict[str, list[tuple[int, str, int]]] = collections.defaultdict(list)
    for number, raw_line in enumerate(lines, start=1):
        line = raw_line.strip()
        where = f"{source}:{number}"
        if not line:
            if not has_headers and blocks[-1]:
                blocks.append([])
            continue
        if line.startswith("#") or line.startswith("//"):
            continue
        header = _section_of(line)
        if header is not None:
            section = header
            continue
        if section == "about":
            match = re.match(r"^name\s+(.+)$", line, flags=re.IGNORECASE)
            if match:
                deck_name = match.group(1).strip()
                continue
            raise DeckError(f"{where}: expected 'Name <deck name>' in the About section, got {line!r}")
        match = _CARD_LINE.match(line)
        if match is None:
            raise DeckError(
                f"{where}: malformed line {_clip(line)!r} (expected a count and a card name, "
                "such as '4 Cenote Scout')"
            )
        count = int(match.group("count"))
        if count <= 0 or count > MAX_COPIES_PER_LINE or match.group("count")[0] in "+-":
            raise DeckError(
                f"{where}: count {match.group('count')} is out of range "
                f"(1 to {MAX_COPIES_PER_LINE} copies per line)"
            )
        card_name = match.group("name").strip()
        if _BAD_NAME.search(card_name):
            raise DeckError(f"{where}: malformed card name {_clip(card_name)!r}")
        target = "sideboard" if match.group("sb") else section
        if has_headers or target == "sideboard":
            entries[target].append((number, card_name, count))
        else:
            blocks[-1].append((number, card_name, count))

    if not has_headers:
        blocks = [block for block in blocks if block]
        side_cards = sum(c for _, _, c in blocks[-1]) if len(blocks) == 2 else None
        if side_cards is not None and side_cards <= _SIDEBOARD_BLOCK_MAX:
            entries["main"].extend(blocks[0])
            entries["sideboard"][:0] = blocks[1]
            warnings.warn(
                f"{source}: the {side_cards} cards after the blank line (line "
                f"{blocks[1][0][0]}) are read as the sideboard; add a 'Deck' header above "
                "the list to keep them in the main deck",
                DeckWarning,
                stacklevel=2,
            )
        else:
            for block in blocks:
                entries["main"].extend(block)

    resolved = _resolve(entries, catalog, source)
    main = resolved.get("main", ())
    size = sum(count for _, count in main)
    if size == 0:
        raise DeckError(f"{source}: the main deck is empty (no card lines found)")
    if size > MAX_DECK_SIZE:
        raise DeckError(f"{source}: the main deck has {size} cards (at most {MAX_DECK_SIZE})")
    return Deck(
        name=deck_name or ("deck" if source == "<text>" else Path(source).stem),
        main=main,
        sideboard=resolved.get("sideboard", ()),
        commander=resolved.get("commander", ()),
        companion=resolved.get("companion", ()),
        source=source,
    )


def _section_of(line: str) -> str | None:
    """The section a header line opens, or None if the line is not a header."""
    match = _HEADER.match(line.strip())
    if match is None:
        return None
    return _SECTIONS.get(" ".join(match.group("name").casefold().split()))


def _resolve(
    entries: dict[str, list[tuple[int, str, int]]], catalog: Catalog, source: str
) -> dict[str, tuple[tuple[Card, int], ...]]:
    """Look every name up at once, so all unknown cards are reported together."""
    unknown: list[str] = []
    resolved: dict[str, tuple[tuple[Card, int], ...]] = {}
    for section, lines in entries.items():
        counts: dict[Card, int] = {}
        for number, name, count in lines:
            card = catalog.find(name)
            if card is None:
                unknown.append(f"line {number} {name!r}{catalog.suggestion_text(name)}")
                continue
            counts[card] = counts.get(card, 0) + count
        resolved[section] = tuple(counts.items())
    if unknown:
        noun = "card" if len(unknown) == 1 else "cards"
        raise DeckError(f"{source}: unknown {noun}: " + "; ".join(unknown))
    return resolved


def _clip(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def deck_from_counts(counts: Iterable[tuple[str, int]], name: str = "deck",
                     catalog: Catalog | None = None) -> Deck:
    """Build a deck from ``(card name, copies)`` pairs, as a quick what-if helper."""
    catalog = catalog or Catalog.builtin()
    main: dict[Card, int] = {}
    for card_name, count in counts:
        try:
            card = catalog.get(card_name)
        except CardError as error:
            raise DeckError(str(error)) from None
        if int(count) <= 0:
            raise DeckError(f"{card_name}: count must be positive, got {count}")
        main[card] = main.get(card, 0) + int(count)
    if not main:
        raise DeckError("the main deck is empty")
    return Deck(name=name, main=tuple(main.items()))
