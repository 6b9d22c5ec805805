"""Decklists in every common format, read into a :class:`Deck`.

Each format is a module of :mod:`explore_sim.cards.decklists`, which detects and reads it.

Formats (detected automatically, or forced with ``format=``)
------------------------------------------------------------
``arena``
    MTG Arena exports: ``4 Cenote Scout (LCI) 178`` under optional section headers ``About``
    (with a ``Name ...`` line), ``Commander``, ``Companion``, ``Deck``, ``Sideboard``; headers
    may carry counts (``Deck (60)``, ``Sideboard: 15``) and may repeat.
``mtgo``, ``moxfield``
    MTGO / plain text: ``4 Name``, ``4x Name``, ``SB: 2 Name``, a ``Sideboard`` line;
    Moxfield text: Arena-style lines with ``*F*`` / ``*E*`` finish markers and ``#tags``.
``archidekt``
    Archidekt text: ``1x Name (set) 123 [Category]``; the categories ``Sideboard``,
    ``Maybeboard`` and ``Commander`` decide the section.
``dek``
    MTGO ``.dek`` XML (``<Cards Quantity="4" Sideboard="false" Name="..."/>``), parsed with
    defusedxml: DTDs and entity tricks are refused.
``text``
    Plain lists: blank lines never start a sideboard.

Header-less Arena / MTGO exports put the sideboard after a blank line. Auto-detection reads
a second block as the sideboard only when the cards form exactly two blocks and the second
has at most 15 cards (a :class:`~explore_sim.errors.DeckWarning` says so); forcing ``arena``
or ``mtgo`` always does. Whole-line ``#`` and ``//`` comments and type headers such as
``Creatures (24)`` are skipped, except ``// filler: Card Name`` (or ``# filler: ...``), which
names the deck's filler card: the card :meth:`Deck.with_counts` (and so
:func:`explore_sim.sweep`) adds or removes to keep the deck's size when other counts change.

A list without sections of 99 to 101 cards, singleton but for basic lands, with a legendary
creature is a Commander deck (:mod:`explore_sim.cards.commanders`).

Only the main deck goes into the library; commander, companion and sideboard are kept for
reference. Construction rules (copy limits, minimum sizes) are not enforced, so what-if decks
are fine; an empty main deck, counts of 0 or over 250 on a line, and unknown main-deck or
commander cards are refused with the file and line named, every unknown card listed at once
(the first :data:`MAX_LISTED_UNKNOWN` with suggestions, then how many more) and how to make
them known (``explore-sim cards update``, ``cards import`` of a downloaded card database, or
a card file written by ``explore-sim cards template``). A shipped deck is named by its short
name (:mod:`explore_sim.cards.shipped`). Unknown sideboard and companion cards are left out
of the deck with a :class:`~explore_sim.errors.DeckWarning`: they are never shuffled.

Limits: a decklist is a regular file of at most :data:`MAX_DECK_BYTES` bytes, a text line is
at most :data:`MAX_LINE_LENGTH` characters, and a list has at most :data:`MAX_CARD_LINES`
card lines. Every line is read in time linear in its length.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from os import PathLike
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import (
    MAX_ECHO,
    MAX_MESSAGE,
    CardError,
    DeckError,
    DeckWarning,
    OptionError,
    clip,
)
from .card import Card, normalize_name
from .catalog import CardLookup, Catalog
from .commanders import check_commanders, commander_sections
from .decklists import DECK_FORMATS, detect_format, read_entries
from .decklists.limits import (
    MAX_CARD_LINES,
    MAX_COPIES_PER_LINE,
    MAX_DECK_BYTES,
    MAX_LINE_LENGTH,
    Entry,
)
from .features import FeatureTable
from .files import check_regular_file, read_file_bytes
from .shipped import resolve_deck_path, shipped_source

__all__ = [
    "Deck",
    "DEFAULT_FILLER",
    "load_deck",
    "parse_deck",
    "deck_from_counts",
    "deck_card_files",
    "read_entries",
    "read_deck_text",
    "deck_sources",
    "detect_format",
    "DECK_FORMATS",
    "MAX_COPIES_PER_LINE", "MAX_DECK_SIZE", "MAX_DECK_BYTES",
    "MAX_LINE_LENGTH", "MAX_CARD_LINES", "MAX_LISTED_UNKNOWN",
]

#: The filler card of a deck that names none (``// filler: ...``) when none is given.
DEFAULT_FILLER = "Grizzly Bears"
#: The largest main deck accepted.
MAX_DECK_SIZE = 1000
#: Unknown cards named in an error, with suggestions; the rest are counted.
MAX_LISTED_UNKNOWN = 20
def _by_name(entry: tuple[Card, int]) -> tuple[str, str]:
    """The canonical order of a section's cards: by name, ignoring case."""
    return entry[0].name.casefold(), entry[0].name


@functools.lru_cache(maxsize=64)
def _features(deck: Deck) -> FeatureTable:
    """:meth:`Deck.features`, once per deck (by content)."""
    commanders = [card for card, _ in deck.commander]
    identity = 0
    for card in commanders:
        identity |= card.identity
    return FeatureTable.from_cards(deck.cards, identity, commanders)


@dataclasses.dataclass(frozen=True, repr=False)
class Deck:
    """A decklist resolved against a catalog.

    Attributes
    ----------
    name : str
        The deck's name (Arena ``Name`` line, else the file's stem).
    main, sideboard, commander, companion : tuple of (Card, int)
        Cards and copy counts per section, in canonical order (by name): the order of a
        decklist's lines changes no card id, so no result depends on it.
    source : str
        Where the list came from (a path or ``"<text>"``).
    format : str
        The decklist format it was read as (:data:`DECK_FORMATS`).
    filler : str or None
        The card that :meth:`with_counts` trades against to keep the size, as declared by a
        ``// filler: Card Name`` line (None: :data:`DEFAULT_FILLER`).
    """

    name: str
    main: tuple[tuple[Card, int], ...]
    sideboard: tuple[tuple[Card, int], ...] = ()
    commander: tuple[tuple[Card, int], ...] = ()
    companion: tuple[tuple[Card, int], ...] = ()
    source: str = "<text>"
    format: str = "text"
    filler: str | None = None

    def __post_init__(self) -> None:
        for section in ("main", "sideboard", "commander", "companion"):
            entries = tuple(getattr(self, section))
            object.__setattr__(self, section, tuple(sorted(entries, key=_by_name)))
        check_commanders(self.main, self.commander, self.source)

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
        """The distinct main-deck cards, in canonical order (by name)."""
        return tuple(card for card, _ in self.main)

    def count(self, name: str) -> int:
        """Copies of a card in the main deck.

        Parameters
        ----------
        name : str

        Returns
        -------
        int
            0 if the deck has none.
        """
        card = Catalog(self.cards).find(name)
        return 0 if card is None else dict(self.main)[card]

    def features(self) -> FeatureTable:
        """Feature arrays for the main deck's cards.

        Returns
        -------
        FeatureTable
            Card ``i`` of :attr:`cards` has id ``i + 1``; the commanders come after them,
            and "your commander's colours" are their colour identity. Built once per deck
            (equal decks share it; its arrays are read-only): every chunk of a run, and
            every engine check, reads the same table, so the tables built from it
            (:func:`~explore_sim.engine.goldfish.deck_tables`) are built once too.
        """
        return _features(self)

    def card_ids(self) -> np.ndarray:
        """The main deck as deck-local card ids.

        Nonland cards come first and lands last, each in canonical order, so two decks with the
        same size and land count put their lands in the same shuffled positions when they
        are shuffled with the same random numbers (common random numbers in comparisons).

        Returns
        -------
        ndarray of shape (size,), int16
        """
        ids = np.arange(1, len(self.main) + 1, dtype=np.int16)
        counts = np.array([count for _, count in self.main])
        is_land = np.array([card.is_land for card, _ in self.main], dtype=bool)
        return np.concatenate(
            [np.repeat(ids[~is_land], counts[~is_land]), np.repeat(ids[is_land], counts[is_land])]
        )

    def digest(self) -> str:
        """A short hash of the main deck's contents, for result metadata.

        Returns
        -------
        str
            12 hexadecimal digits.
        """
        lines = sorted(f"{count} {card.name}" for card, count in self.main)
        text = "\n".join(lines)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def table(self) -> pd.DataFrame:
        """How every card is classified: one row per card and section.

        Returns
        -------
        DataFrame
            ``section, count, name, class`` (land, land-like or nonland, by E10), ``mv,
            type_line, layout, abilities`` (the modelled explore / Map abilities), ``mana``
            (what the card makes, how it enters, its land face), ``source`` (built-in, a
            card file, or the imported index) and ``unmodelled`` (card text an importer
            could not model).
        """
        rows = []
        for section, entries in (("main", self.main), ("sideboard", self.sideboard),
                                 ("commander", self.commander), ("companion", self.companion)):
            for card, count in entries:
                kind = "land" if card.is_land else "land-like" if card.is_land_like else "nonland"
                rows.append({
                    "section": section, "count": count, "name": card.name, "class": kind,
                    "mv": card.mana_value, "type_line": card.type_line, "layout": card.layout,
                    "abilities": card.abilities(), "mana": card.mana(), "source": card.source,
                    "unmodelled": card.unmodelled,
                })
        return pd.DataFrame(rows)

    def with_counts(
        self,
        counts: dict[str, int],
        filler: str | None = None,
        catalog: CardLookup | None = None,
    ) -> Deck:
        """A what-if variant: set copies of some cards, keeping the deck size with ``filler``.

        Parameters
        ----------
        counts : dict of str to int
            Card name -> copies wanted. The key ``"lands"`` sets the total number of land
            cards, by changing the copies of the deck's most numerous land.
        filler : str, optional
            The card whose copies absorb the difference, so the size stays the same.
            Default: the deck's declared filler (``// filler: ...``), else
            :data:`DEFAULT_FILLER`.
        catalog : Catalog or CardSources, optional
            Where new card names are looked up (default: the built-in catalog and the
            imported index).

        Returns
        -------
        Deck
            A deck named ``"name [key=value, ...]"`` with the same size.

        Raises
        ------
        DeckError
            A count that cannot be met (negative copies of a card or of the filler), an
            unknown card, or a count that is not a whole number >= 0.
        """
        if catalog is None:
            from .card_index import card_sources

            catalog = card_sources()
        main = dict(self.main)

        def card_named(name: str) -> Card:
            card = Catalog(self.cards).find(name) or catalog.find(name)
            if card is None:
                raise DeckError(f"unknown card {clip(name)!r}{catalog.suggestion_text(name)}")
            return card

        filler_card = card_named(filler or self.filler or DEFAULT_FILLER)
        for name, wanted in counts.items():
            if isinstance(wanted, bool) or not isinstance(wanted, (int, np.integer)) or wanted < 0:
                raise DeckError(f"{name}: copies must be a whole number >= 0, got {wanted!r}")
            if name == "lands":
                lands = [(card, n) for card, n in main.items() if card.is_land]
                if not lands:
                    raise DeckError(f"{self.name}: has no land to add or remove")
                card = max(lands, key=lambda item: item[1])[0]
                delta = int(wanted) - sum(n for _, n in lands)
            else:
                card = card_named(name)
                delta = int(wanted) - main.get(card, 0)
            if card == filler_card:
                raise DeckError(
                    f"{name}: {card.name} is the filler card too; choose another filler"
                )
            main[card] = main.get(card, 0) + delta
            main[filler_card] = main.get(filler_card, 0) - delta
            for changed in (card, filler_card):
                if main[changed] < 0:
                    fix = (" (the filler: choose one with more copies, or other counts)"
                           if changed == filler_card else "")
                    raise DeckError(
                        f"{self.name}: {changed.name} would have {main[changed]} copies "
                        f"with {name} = {wanted}{fix}"
                    )
        label = ", ".join(f"{k}={v}" for k, v in counts.items())
        return dataclasses.replace(
            self,
            name=f"{self.name} [{label}]",
            main=tuple((card, n) for card, n in main.items() if n > 0),
            filler=filler_card.name,
        )

    def summary_line(self) -> str:
        """``name: N cards (L lands, K land-like, M nonland), D distinct``, for headers.

        Returns
        -------
        str
        """
        nonland = self.size - self.land_count - self.land_like_count
        like = f", {self.land_like_count} land-like" if self.land_like_count else ""
        return (f"{self.name}: {self.size} cards ({self.land_count} lands{like}, "
                f"{nonland} nonland), {len(self.main)} distinct")

    def __repr__(self) -> str:
        name = self.name if len(self.name) <= 60 else self.name[:57] + "..."
        extra = f", sideboard={sum(c for _, c in self.sideboard)}" if self.sideboard else ""
        filler = f", filler={self.filler!r}" if self.filler else ""
        return (f"Deck({name!r}, size={self.size}, lands={self.land_count}, "
                f"distinct={len(self.main)}{extra}{filler}, source={self.source!r})")

    def _repr_html_(self) -> str:
        import html

        table = self.table()[["section", "count", "name", "class", "mv", "abilities"]]
        return (f"<div><strong>{html.escape(self.summary_line())}</strong>"
                f"{table.to_html(index=False, border=0)}</div>")

    def __str__(self) -> str:
        lines = [f"{count} {card.name}" for card, count in self.main]
        if self.sideboard:
            lines += ["", "Sideboard", *(f"{c} {card.name}" for card, c in self.sideboard)]
        return "\n".join(lines)


def load_deck(
    path_or_text: str | PathLike[str],
    catalog: CardLookup | None = None,
    format: str = "auto",
    *,
    cards: Iterable[str | PathLike[str]] | str | PathLike[str] = (),
    cards_dir: str | PathLike[str] | None = None,
) -> Deck:
    """Read a decklist from a file path or from decklist text.

    Parameters
    ----------
    path_or_text : str or path-like
        A path to a decklist file, or the decklist itself as text (any string containing a
        line break is read as text).
    catalog : Catalog or CardSources, optional
        Where card names are looked up. Default: the card files ``cards``, the decklist's
        own card file if there is one (:func:`deck_card_files`), the built-in catalog, then
        the imported card index if there is one
        (:func:`explore_sim.cards.card_index.card_sources`).
    format : str
        One of :data:`DECK_FORMATS`; ``auto`` detects it.
    cards : path or iterable of paths
        Card files (TOML or CSV) whose cards replace built-in or imported cards of the same
        name (``--cards FILE`` on the command line); not with ``catalog``.
    cards_dir : str or path-like, optional
        The directory of the imported card index (``--cards-dir``; default
        ``$EXPLORE_SIM_CARDS_DIR``, else ``~/.local/share/explore_sim``); not with
        ``catalog``.

    Returns
    -------
    Deck

    Raises
    ------
    DeckError
        A missing or unreadable file, a malformed line, a bad count, unknown cards (all listed
        with suggestions and how to make them known) or an empty main deck. The message names
        the file and line.
    CardError
        A card file that cannot be read.
    """
    text, source, name, format, path = read_deck_text(path_or_text, format)
    catalog = deck_sources(catalog, cards, cards_dir, path)
    if path is None:
        return parse_deck(text, catalog=catalog, format=format)
    return parse_deck(text, catalog=catalog, source=source, name=name, format=format)


def read_deck_text(
    path_or_text: str | PathLike[str], format: str
) -> tuple[str, str, str | None, str, Path | None]:
    """The text of a decklist file, or decklist text itself.

    Parameters
    ----------
    path_or_text : str or path-like
        A path, or decklist text (any string with a line break).
    format : str
        The format asked for (a ``.dek`` file is read as ``dek`` when it is ``auto``).

    Returns
    -------
    (str, str, str or None, str, Path or None)
        ``(text, source, name, format, path)``; text has no path (None).
    """
    if isinstance(path_or_text, str) and "\n" in path_or_text:
        return path_or_text, "<text>", None, format, None
    if not isinstance(path_or_text, (str, PathLike)):
        raise DeckError(f"expected a decklist path or text, got {type(path_or_text).__name__}")
    path = resolve_deck_path(path_or_text)  # a shipped deck's name, or a path
    raw = read_file_bytes(path, "decklist file", DeckError, MAX_DECK_BYTES)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise DeckError(
            f"{path}: not a text decklist (byte {error.start} is not UTF-8)"
        ) from None
    if format == "auto" and path.suffix.casefold() == ".dek":
        format = "dek"
    return text, shipped_source(path_or_text, path), path.stem, format, path


def deck_sources(
    catalog: CardLookup | None,
    cards: Iterable[str | PathLike[str]] | str | PathLike[str],
    cards_dir: str | PathLike[str] | None,
    path: Path | None,
) -> CardLookup:
    """``catalog``, else the card sources of ``cards``, the deck's own card file and
    ``cards_dir``.

    Parameters
    ----------
    catalog : Catalog or CardSources, optional
    cards : path or paths of card files
    cards_dir : path, optional
    path : Path or None
        The decklist file (its ``NAME.cards.toml`` joins the sources).

    Returns
    -------
    Catalog or CardSources
    """
    if isinstance(cards, (str, PathLike)):
        cards = [cards]
    cards = list(cards)
    if catalog is not None:
        if cards or cards_dir is not None:
            raise OptionError("give either catalog= or cards= / cards_dir=, not both")
        return catalog
    from .card_index import card_sources

    companions = deck_card_files(path) if path is not None else []
    return card_sources([*cards, *companions], cards_dir)


def deck_card_files(path: str | PathLike[str]) -> list[Path]:
    """The card file that travels with a decklist, read automatically with the deck.

    Parameters
    ----------
    path : str or path-like
        The decklist file, e.g. ``decks/golgari_explore.txt``.

    Returns
    -------
    list of Path
        ``[NAME.cards.toml]`` when that file stands beside the decklist (any extension),
        else ``[]``.

    Raises
    ------
    CardError
        Something of that name that is not a readable regular file (a FIFO, a device, a
        directory, a broken link): it is named, never skipped, and never opened for reading.
    """
    path = resolve_deck_path(path)
    companion = path.with_name(f"{path.stem}.cards.toml")
    if not os.path.lexists(companion):
        return []
    return [check_regular_file(companion, "card file", CardError)]


def parse_deck(
    text: str,
    catalog: CardLookup | None = None,
    *,
    source: str = "<text>",
    name: str | None = None,
    format: str = "auto",
) -> Deck:
    """Parse decklist text; see the module docstring for the accepted formats.

    Parameters
    ----------
    text : str
        The decklist (a byte-order mark at its start is dropped, as when a file is read).
    catalog : Catalog or CardSources, optional
        Where card names are looked up (default: the built-in catalog, then the imported
        card index).
    source : str
        Names the list in error messages and metadata.
    name : str, optional
        The deck's name when the list gives none.
    format : str
        One of :data:`DECK_FORMATS`; ``auto`` detects it.

    Returns
    -------
    Deck

    Raises
    ------
    DeckError
        Naming the line of a malformed entry, every unknown card, or an empty main deck.
    """
    if catalog is None:
        from .card_index import card_sources

        catalog = card_sources()
    text = text.removeprefix("\ufeff")  # a byte-order mark, as a file read gives it
    entries, deck_name, filler, format = read_entries(text, source, format)
    deck_name = deck_name or name
    resolved = commander_sections(_resolve(entries, catalog, source), entries, catalog, text,
                                  source)
    filler_name = _resolve_filler(filler, catalog, source)
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
        format=format,
        filler=filler_name,
    )


def _resolve_filler(filler: tuple[int, str] | None, catalog: CardLookup, source: str) -> str | None:
    """The declared filler card's catalog name, or None if the list declares none."""
    if filler is None:
        return None
    number, name = filler
    card = catalog.find(name)
    if card is None:
        raise DeckError(f"{source}:{number}: unknown filler card {clip(name)!r}"
                        f"{catalog.suggestion_text(name)}")
    return card.name


#: Sections whose cards are played: an unknown card there is an error. Unknown cards of the
#: other sections (sideboard, companion) are left out with a warning: they are never shuffled.
_REQUIRED_SECTIONS = ("main", "commander")


def _resolve(
    entries: dict[str, list[Entry]], catalog: CardLookup, source: str
) -> dict[str, tuple[tuple[Card, int], ...]]:
    """Look every name up at once, so all unknown cards are reported together.

    Unknown main-deck (and commander) cards are an error that names them all and says how
    to fix it: the first :data:`MAX_LISTED_UNKNOWN` are named with suggestions (as many as
    fit in one message), then how many more there are. Unknown sideboard and companion cards
    are left out with one :class:`~explore_sim.errors.DeckWarning`.
    """
    unknown: dict[str, tuple[int, str]] = {}  # each card once, at its first line
    left_out: dict[tuple[str, str], tuple[str, int, str]] = {}
    resolved: dict[str, tuple[tuple[Card, int], ...]] = {}
    for section, lines in entries.items():
        counts: dict[Card, int] = {}
        for number, name, count in lines:
            card = catalog.find(name)
            if card is None:
                key = normalize_name(name)
                if section in _REQUIRED_SECTIONS:
                    unknown.setdefault(key, (number, name))
                else:
                    left_out.setdefault((section, key), (section, number, name))
                continue
            counts[card] = counts.get(card, 0) + count
        resolved[section] = tuple(counts.items())
    if unknown:
        raise DeckError(_unknown_cards_message(sorted(unknown.values()), catalog, source))
    if left_out:
        listed = _listed([f"{section} line {number} {clip(name)!r}"
                          for section, number, name in sorted(left_out.values(),
                                                              key=lambda x: x[1])],
                         2 * MAX_ECHO * 10)
        warnings.warn(
            f"{source}: unknown card{'s' if len(left_out) > 1 else ''} left out of the deck "
            f"(sideboard and companion cards are never shuffled): {listed}",
            DeckWarning,
            stacklevel=3,
        )
    return resolved


def _unknown_cards_message(unknown: Sequence[tuple[int, str]], catalog: CardLookup,
                          source: str) -> str:
    """The one-line error for unknown main-deck cards: every name, and how to fix it.

    Parameters
    ----------
    unknown : sequence of (int, str)
        ``(line number, name)`` of each unknown card, in decklist order.
    catalog : Catalog or CardSources
        Where the names were looked up (it suggests close names).
    source : str
        The decklist's path, or ``"<text>"``.

    Returns
    -------
    str
        ``SOURCE: unknown cards: line N 'Name' (did you mean ...); ...; to fix: ...``, at
        most :data:`~explore_sim.errors.MAX_MESSAGE` characters with the fix always whole.
    """
    noun = "card" if len(unknown) == 1 else "cards"
    fix = _fix_text(source, len(unknown))
    head = f"{source}: unknown {noun}: "
    budget = MAX_MESSAGE - len(head) - len(fix) - 40
    listed = [f"line {number} {clip(name)!r}{catalog.suggestion_text(name)}"
              for number, name in unknown[:MAX_LISTED_UNKNOWN]]
    listed += [""] * (len(unknown) - len(listed))  # counted, not named
    return head + _listed(listed, budget) + fix


def _listed(items: list[str], budget: int) -> str:
    """``items`` joined with ``"; "`` while they fit in ``budget`` characters (empty items
    are never shown), then ``and N more``."""
    shown: list[str] = []
    used = 0
    for item in items:
        if not item or used + len(item) + 2 > budget:
            break
        shown.append(item)
        used += len(item) + 2
    rest = len(items) - len(shown)
    if rest:
        shown.append(f"and {rest} more")
    return "; ".join(shown)


def _fix_text(source: str, count: int) -> str:
    """How to make ``count`` unknown cards known, for the end of the unknown-card error."""
    them = "these cards" if count > 1 else "this card"
    python = " (load_deck(DECK, cards=[FILE]) in Python)"
    online = ("; to fix: run 'explore-sim cards update' to download the card database "
              "(online), or 'explore-sim cards import FILE' with Scryfall's 'Oracle Cards' or "
              "MTGJSON's AtomicCards file downloaded in a browser, or write a card file: ")
    if source == "<text>":
        return (online + f"'explore-sim cards template DECK -o FILE' writes one for {them}; "
                "fill it in and pass it with --cards FILE" + python)
    path = Path(source)
    deck = _shell_word(source)
    companion = path.with_name(f"{path.stem}.cards.toml")
    if not companion.exists():
        return (online + f"'explore-sim cards template {deck} -o "
                f"{_shell_word(str(companion))}' writes one for {them}; fill it in and it is "
                "read with the deck, or write it elsewhere and pass --cards FILE" + python)
    return (online + f"'explore-sim cards template {deck} -o FILE' writes one for {them}; "
            f"fill it in and pass it with --cards FILE{python}, or add its cards to "
            f"{clip(companion.name)}")


def _shell_word(text: str) -> str:
    """``text`` as one shell word (quoted when it holds anything but safe characters), cut
    to a few hundred characters."""
    import shlex

    return shlex.quote(clip(text, 300))


def deck_from_counts(
    counts: Mapping[str, int] | Iterable[tuple[str, int]],
    name: str = "deck",
    catalog: CardLookup | None = None,
    filler: str | None = None,
) -> Deck:
    """Build a deck from card counts, as a quick what-if helper.

    Parameters
    ----------
    counts : dict of str to int, or iterable of (str, int)
        ``{"Forest": 24, "Grizzly Bears": 36}`` or ``[("Forest", 24), ("Grizzly Bears", 36)]``;
        a name given twice adds up.
    name : str
        The deck's name.
    catalog : Catalog or CardSources, optional
        Where names are looked up (default: the built-in catalog and the imported index).
    filler : str, optional
        The deck's filler card for :meth:`Deck.with_counts` (default: :data:`DEFAULT_FILLER`).

    Returns
    -------
    Deck

    Raises
    ------
    DeckError
        Counts that are not such pairs or such a dict, an unknown card, a count that is not
        a whole number >= 1, or more than a decklist may hold: :data:`MAX_CARD_LINES`
        pairs, :data:`MAX_DECK_SIZE` cards (checked as the pairs are read, so that no
        count is ever dealt).
    """
    if catalog is None:
        from .card_index import card_sources

        catalog = card_sources()
    if isinstance(counts, Mapping):
        pairs = list(itertools.islice(counts.items(), MAX_CARD_LINES + 1))
    elif isinstance(counts, (str, bytes)) or not isinstance(counts, Iterable):
        raise DeckError(_PAIRS_EXPECTED + f", got {type(counts).__name__}")
    else:
        pairs = list(itertools.islice(counts, MAX_CARD_LINES + 1))
    if len(pairs) > MAX_CARD_LINES:
        raise DeckError(f"{clip(name)}: more than {MAX_CARD_LINES:,} (card, copies) pairs, "
                        "as a decklist has at most that many card lines")
    main: dict[Card, int] = {}
    size = 0
    for pair in pairs:
        if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise DeckError(_PAIRS_EXPECTED + f", got {clip(repr(pair))}")
        card_name, count = pair
        if not isinstance(card_name, str):
            raise DeckError(f"card names must be text, got {card_name!r}")
        try:
            card = catalog.get(card_name)
        except CardError as error:
            raise DeckError(str(error)) from None
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count <= 0:
            raise DeckError(f"{card_name}: count must be a whole number >= 1, got {count!r}")
        size += int(count)
        if size > MAX_DECK_SIZE:
            raise DeckError(f"{clip(name)}: the main deck has {size:,} cards or more (at most "
                            f"{MAX_DECK_SIZE:,}, as for a decklist)")
        main[card] = main.get(card, 0) + int(count)
    if not main:
        raise DeckError("the main deck is empty")
    filler_name = None
    if filler is not None:
        try:
            filler_name = catalog.get(filler).name
        except CardError as error:
            raise DeckError(f"filler: {error}") from None
    return Deck(name=name, main=tuple(main.items()), filler=filler_name)


_PAIRS_EXPECTED = ("deck_from_counts expects (card name, copies) pairs or a "
                   "{card name: copies} dict")
