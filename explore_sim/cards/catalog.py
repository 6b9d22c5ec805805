"""Card lookup: the built-in :class:`Catalog`, several :class:`CardSources` in order, and
the catalog's CSV format.

Lookup ignores case, accents, ’ vs ' and accepts the front-face name of a double-faced card;
an unknown name that is a near miss of a known one gets a suggestion (:mod:`.spelling`).
"""

from __future__ import annotations

import collections
import csv
import functools
import io
import re
from collections.abc import Iterable, Iterator
from importlib import resources
from typing import Protocol

from ..errors import CardError, clip
from .card import MAX_NAME_LENGTH, Card, normalize_name
from .spelling import edit_distance, near_miss_limit

__all__ = [
    "Catalog",
    "CardSources",
    "NameSuggester",
    "close_names",
    "suggestion_text",
    "read_card_rows",
    "CATALOG_COLUMNS",
]


class Catalog:
    """A set of cards with forgiving name lookup.

    Lookup ignores case, accents, ’ vs ' and accepts the front-face name of a double-faced
    card. :meth:`builtin` is the catalog shipped with the package.
    """

    def __init__(self, cards: Iterable[Card]) -> None:
        self._cards: dict[str, Card] = {}
        for card in cards:
            key = normalize_name(card.name)
            if key in self._cards:
                raise CardError(f"card {card.name!r} appears twice in the catalog")
            self._cards[key] = card
        self._front: dict[str, Card] = {}
        for card in self._cards.values():
            front = normalize_name(card.front_name)
            if front not in self._cards:
                self._front.setdefault(front, card)
        self._suggester: NameSuggester | None = None

    @classmethod
    @functools.cache
    def builtin(cls) -> Catalog:
        """The built-in catalog (``explore_sim/cards/data/cards.csv``).

        Returns
        -------
        Catalog
        """
        source = resources.files("explore_sim.cards") / "data" / "cards.csv"
        with io.TextIOWrapper(source.open("rb"), encoding="utf-8", newline="") as handle:
            return cls(read_card_rows(handle, "cards.csv"))

    def find(self, name: str) -> Card | None:
        """Look a card up by name (ignoring case, accents and ’ vs ', front faces too).

        Parameters
        ----------
        name : str

        Returns
        -------
        Card or None
            None if the catalog has no such card.
        """
        key = normalize_name(name)
        return self._cards.get(key) or self._front.get(key)

    def get(self, name: str) -> Card:
        """The card called ``name``.

        Parameters
        ----------
        name : str

        Returns
        -------
        Card

        Raises
        ------
        CardError
            If unknown, with the closest names.
        """
        card = self.find(name)
        if card is None:
            raise CardError(f"unknown card {clip(name)!r}{self.suggestion_text(name)}")
        return card

    def suggest(self, name: str, n: int = 3) -> list[str]:
        """Catalog names close to a mistyped name.

        Parameters
        ----------
        name : str
        n : int
            At most this many.

        Returns
        -------
        list of str
            Best first.
        """
        if self._suggester is None:
            self._suggester = NameSuggester(self.names())
        return self._suggester.suggest(name, n)

    def suggestion_text(self, name: str) -> str:
        """A hint for an error message.

        Parameters
        ----------
        name : str

        Returns
        -------
        str
            `` (did you mean 'X'?)``, or an empty string.
        """
        return suggestion_text(self.suggest(name))

    def names(self) -> list[str]:
        """Every card name of the catalog.

        Returns
        -------
        list of str
        """
        return [card.name for card in self._cards.values()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.find(name) is not None

    def __iter__(self) -> Iterator[Card]:
        return iter(self._cards.values())

    def __len__(self) -> int:
        return len(self._cards)

    def __repr__(self) -> str:
        return f"Catalog({len(self)} cards)"


class NameSuggester:
    """Close-name suggestions ("did you mean ...?") over a fixed list of card names.

    Only near misses are suggested: names whose lookup key (full or front-face name) is
    within :func:`~explore_sim.cards.spelling.near_miss_limit` edits of the typed name's
    (see :mod:`explore_sim.cards.spelling`), the fewest edits first. A name as far from
    every known name as another card's is never taken for a typo. Over a large list (an
    imported index of 35,000 cards) only the names sharing the most three-letter groups
    with the query are compared, so one suggestion takes milliseconds instead of a second.
    """

    #: Lists up to this many keys are compared in full.
    SMALL = 2000
    #: Names compared per query on a large list.
    CANDIDATES = 200

    def __init__(self, names: Iterable[str]) -> None:
        self._by_key: dict[str, str] = {}
        for full in names:
            self._by_key.setdefault(normalize_name(full), full)
            self._by_key.setdefault(normalize_name(full.split(" // ")[0]), full)
        self._keys = list(self._by_key)
        self._grams: dict[str, list[int]] | None = None
        if len(self._keys) > self.SMALL:
            self._grams = {}
            for number, key in enumerate(self._keys):
                for gram in _trigrams(key):
                    self._grams.setdefault(gram, []).append(number)

    def suggest(self, name: str, n: int = 3) -> list[str]:
        """Names close to a mistyped name.

        Parameters
        ----------
        name : str
            What the user typed.
        n : int
            At most this many.

        Returns
        -------
        list of str
            Full card names, the fewest edits first (none for a name longer than any
            card's, none that is not a near miss).
        """
        key = normalize_name(name)
        if not key or len(key) > MAX_NAME_LENGTH:
            return []
        candidates = self._keys if self._grams is None else self._candidates(key)
        limit = near_miss_limit(key)
        distances = {k: edit_distance(key, k, limit) for k in candidates}
        if 0 in distances.values():
            return []  # a known name: there is nothing to correct
        close = sorted((k for k, d in distances.items() if d <= limit),
                       key=lambda k: (distances[k], k))
        return list(dict.fromkeys(self._by_key[k] for k in close))[:n]

    def _candidates(self, key: str) -> list[str]:
        assert self._grams is not None
        shared: collections.Counter[int] = collections.Counter()
        for gram in _trigrams(key):
            shared.update(self._grams.get(gram, ()))
        return [self._keys[number] for number, _ in shared.most_common(self.CANDIDATES)]


def _trigrams(key: str) -> set[str]:
    padded = f"  {key} "
    return {padded[i: i + 3] for i in range(len(padded) - 2)}


def close_names(name: str, names: Iterable[str], n: int = 3) -> list[str]:
    """Names close to a mistyped name (full or front-face names).

    Parameters
    ----------
    name : str
        What the user typed.
    names : iterable of str
        The card names to choose from.
    n : int
        At most this many.

    Returns
    -------
    list of str
        Best first.
    """
    return NameSuggester(names).suggest(name, n)


def suggestion_text(close: list[str]) -> str:
    """`` (did you mean 'X' or 'Y'?)`` for a list of names, or an empty string."""
    if not close:
        return ""
    return " (did you mean " + " or ".join(repr(c) for c in close) + "?)"


class CardLookup(Protocol):
    """Where a decklist's card names are looked up: a :class:`Catalog` or
    :class:`CardSources`."""

    def find(self, name: str) -> Card | None: ...

    def get(self, name: str) -> Card: ...

    def suggest(self, name: str, n: int = 3) -> list[str]: ...

    def suggestion_text(self, name: str) -> str: ...


class CardSource(Protocol):
    """What :class:`CardSources` searches: a :class:`Catalog` (built-in or a card file's) or
    the imported card index."""

    def find(self, name: str) -> Card | None: ...

    def names(self) -> list[str]: ...


class CardSources:
    """Several card sources searched in order: the first that knows a name wins.

    The default order is the built-in catalog (it carries the modelled abilities), then
    user card files (``--cards``), then the imported card index.
    """

    def __init__(self, sources: Iterable[CardSource]) -> None:
        self.sources = list(sources)
        self._suggester: NameSuggester | None = None

    def find(self, name: str) -> Card | None:
        for source in self.sources:
            card = source.find(name)
            if card is not None:
                return card
        return None

    def get(self, name: str) -> Card:
        card = self.find(name)
        if card is None:
            raise CardError(f"unknown card {clip(name)!r}{self.suggestion_text(name)}")
        return card

    def names(self) -> list[str]:
        return [name for source in self.sources for name in source.names()]

    def suggest(self, name: str, n: int = 3) -> list[str]:
        """Up to ``n`` names of any source close to ``name`` (the index is built once)."""
        if self._suggester is None:
            self._suggester = NameSuggester(self.names())
        return self._suggester.suggest(name, n)

    def suggestion_text(self, name: str) -> str:
        return suggestion_text(self.suggest(name))


#: Columns of the catalog CSV format (``explore_sim/cards/data/cards.csv``).
CATALOG_COLUMNS = (
    "name",
    "mana_cost",
    "type_line",
    "layout",
    "power",
    "toughness",
    "explores",
    "explores_when",
    "explore_targets",
    "maps",
    "maps_when",
    "explore_trigger",
    "explore_replacement",
    "extra_land",
    "draws",
    "keywords",
    "ability_cost",
    "set_number",
    "note",
    "produces",
    "mana_ability_cost",
    "mana_life",
    "enters_tapped",
    "land_enters",
    "fetch",
    "fetch_when",
    "back_produces",
    "back_enters_tapped",
    "colour_identity",
    "target",
)


#: Columns a card CSV file may have: the catalog's, and a mana value overriding the cost's.
CARD_FILE_COLUMNS = (*CATALOG_COLUMNS, "mana_value")


def read_card_rows(handle: Iterable[str], filename: str, source: str = "built-in") -> list[Card]:
    """Read catalog-format CSV rows into cards; errors name the file and line.

    Refused: a column outside :data:`CARD_FILE_COLUMNS` (or twice), a row with more fields
    than the header, a field spanning lines (an unclosed quote swallowing the rows after
    it), and malformed CSV.
    """
    reader = csv.reader(handle, strict=True)
    start = 1
    try:
        header = [column.strip() for column in next(reader, [])]
        _check_columns(header, filename)
        cards = []
        start = reader.line_num + 1
        for row in reader:
            where = f"{filename}:{start}"
            if any("\n" in field or "\r" in field for field in row):
                raise CardError(f"{where}: a field spans several lines (an unclosed quote?)")
            if len(row) > len(header):
                raise CardError(f"{where}: {len(row)} fields, but the header has {len(header)}")
            if row:
                try:
                    cards.append(_card_from_row(dict(zip(header, row)), source))
                except CardError as error:
                    raise CardError(f"{where}: {error}") from None
            start = reader.line_num + 1
    except csv.Error as error:
        raise CardError(f"{filename}:{start}: malformed CSV: {error}") from None
    return cards


def _check_columns(header: list[str], filename: str) -> None:
    missing = [c for c in ("name", "mana_cost", "type_line") if c not in header]
    if missing:
        raise CardError(f"{filename}: missing column(s) {', '.join(missing)}")
    unknown = [clip(c, 40) for c in header if c not in CARD_FILE_COLUMNS]
    if unknown:
        raise CardError(f"{filename}:1: unknown column(s) {', '.join(map(repr, unknown[:5]))}; "
                        f"known: {', '.join(CARD_FILE_COLUMNS)}")
    twice = sorted({c for c in header if header.count(c) > 1})
    if twice:
        raise CardError(f"{filename}:1: column(s) {', '.join(twice)} appear twice")


def _card_from_row(row: dict[str, str | None], source: str) -> Card:
    def text(column: str) -> str:
        return (row.get(column) or "").strip()

    def integer(column: str) -> int | None:
        value = text(column)
        if not value:
            return None
        if not re.fullmatch(r"[+-]?[0-9]{1,9}", value):
            raise CardError(f"{column} must be a whole number, got {clip(value)!r}")
        return int(value)

    explores_text = text("explores")
    explores_x = explores_text.upper() == "X"
    targets = text("explore_targets").casefold()
    if targets not in {"", "yes", "no", "true", "false"}:
        raise CardError(f"explore_targets must be yes or no, got {clip(targets)!r}")
    return Card(
        name=text("name"),
        mana_cost=text("mana_cost"),
        type_line=text("type_line"),
        layout=text("layout") or "normal",
        power=integer("power"),
        toughness=integer("toughness"),
        explores=0 if explores_x else (integer("explores") or 0),
        explores_x=explores_x,
        explores_when=text("explores_when"),
        explore_targets=targets in {"yes", "true"},
        maps=integer("maps") or 0,
        maps_when=text("maps_when"),
        explore_trigger=text("explore_trigger"),
        explore_replacement=text("explore_replacement"),
        extra_land=text("extra_land"),
        draws=integer("draws") or 0,
        keywords=tuple(k.strip().casefold() for k in text("keywords").split(";") if k.strip()),
        ability_cost=text("ability_cost"),
        set_number=text("set_number"),
        note=text("note"),
        source=source,
        produces=text("produces"),
        mana_ability_cost=text("mana_ability_cost"),
        mana_life=integer("mana_life") or 0,
        enters_tapped=text("enters_tapped"),
        land_enters=text("land_enters"),
        fetch=text("fetch"),
        fetch_when=text("fetch_when"),
        back_produces=text("back_produces"),
        back_enters_tapped=text("back_enters_tapped"),
        colour_identity=text("colour_identity"),
        target=text("target"),
        mana_value=integer("mana_value"),
    )
