"""Offline card databases: import Scryfall / MTGJSON bulk files into a local card index.

``explore-sim cards import FILE`` streams a Scryfall bulk file (``oracle_cards`` or
``default_cards``, JSON array, optionally gzip / xz / bzip2 compressed) or an MTGJSON
``AtomicCards.json`` and writes a compact SQLite index, ``cards.sqlite``, into the card
directory (:func:`cards_dir`). Cards are classified by the rules (RULES.md E10):

* the front face decides for transforming, modal double-faced, flip, meld and adventurer
  cards; a spell // land modal double-faced card is a nonland with ``is_land_like``;
* split cards combine both halves (types and mana value);
* tokens, emblems, art-series and other non-deck objects are skipped.

Explore and Map abilities of cards outside the built-in catalog are read from oracle text
(:mod:`explore_sim.oracle`); text that mentions exploring but matches no template is
reported, and the card is modelled as a vanilla card.
"""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..errors import CardError
from .card import KNOWN_LAYOUTS, Card, normalize_name
from .catalog import CardSources, Catalog
from .jsonstream import first_char, iter_array, iter_object, open_text
from .mana_text import mana_from_text
from .oracle import abilities_from_text

__all__ = [
    "CARDS_DIR_ENV",
    "INDEX_NAME",
    "cards_dir",
    "index_path",
    "CardIndex",
    "ImportReport",
    "import_cards",
    "card_from_scryfall",
    "card_from_mtgjson",
    "card_sources",
]

#: Environment variable naming the card directory.
CARDS_DIR_ENV = "EXPLORE_SIM_CARDS_DIR"
#: File name of the card index inside the card directory.
INDEX_NAME = "cards.sqlite"
_SCHEMA_VERSION = "2"

#: Scryfall / MTGJSON layouts that are not cards of a deck.
SKIPPED_LAYOUTS = frozenset({
    "token", "double_faced_token", "emblem", "art_series", "planar", "scheme", "vanguard",
    "reversible_token",
})

_FIELDS = [field.name for field in dataclasses.fields(Card)
           if field.name not in {"is_land", "is_creature", "is_land_like"}]


def cards_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The directory of the local card index.

    ``override`` (``--cards-dir``), else the ``EXPLORE_SIM_CARDS_DIR`` environment variable,
    else ``$XDG_DATA_HOME/explore_sim`` (``~/.local/share/explore_sim``).
    """
    if override:
        return Path(override)
    if os.environ.get(CARDS_DIR_ENV):
        return Path(os.environ[CARDS_DIR_ENV])
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "explore_sim"


def index_path(directory: str | os.PathLike[str] | None = None) -> Path:
    """Path of the card index file."""
    return cards_dir(directory) / INDEX_NAME


# ------------------------------------------------------------------------------------------
# Classification


def _oracle_abilities(name: str, text: str) -> tuple[dict[str, Any], list[str]]:
    fields, unmatched = abilities_from_text(name, text)
    warnings = [f"{name}: modelled as a vanilla card: {line.strip()!r}" for line in unmatched]
    return fields, warnings


def _mana_fields(name: str, layout: str, faces: list[tuple[str, str, str]],
                 produced: list[str] | None) -> tuple[dict[str, Any], list[str]]:
    """Mana fields from the faces' ``(name, type line, oracle text)``: the front face's mana
    ability and enters-tapped rule; for a modal double-faced card with a land back face,
    the back face's as ``back_produces`` / ``back_enters_tapped``."""
    if layout in {"split", "aftermath"}:
        faces = [(name, "", "\n".join(text for _, _, text in faces))]
    front_name, _, front_text = faces[0]
    fields, unmatched = mana_from_text(front_name, front_text,
                                       produced if layout != "modal_dfc" else None)
    warnings = [f"{name}: mana text not modelled: {line!r}" for line in unmatched]
    if layout == "modal_dfc" and len(faces) > 1 and "land" in faces[1][1].casefold():
        back, back_unmatched = mana_from_text(faces[1][0], faces[1][2])
        fields["back_produces"] = back.get("produces", "")
        fields["back_enters_tapped"] = back.get("enters_tapped", "")
        warnings += [f"{name}: mana text not modelled: {line!r}" for line in back_unmatched]
    return fields, warnings


def card_from_scryfall(obj: dict[str, Any]) -> tuple[Card | None, list[str]]:
    """A :class:`Card` from one Scryfall card object, or None for a non-deck object.

    Returns the card (or None) and warnings about unrecognised explore / Map text.
    """
    if not isinstance(obj, dict) or obj.get("object") != "card":
        raise CardError("not a Scryfall card object")
    layout = str(obj.get("layout") or "normal")
    if layout in SKIPPED_LAYOUTS or obj.get("set_type") in {"token", "memorabilia"}:
        return None, []
    name = str(obj["name"])
    faces = obj.get("card_faces") or []
    type_line = str(obj.get("type_line") or " // ".join(f.get("type_line", "") for f in faces))
    mana_cost = obj.get("mana_cost")
    if mana_cost is None or (mana_cost == "" and faces):
        mana_cost = " // ".join(str(f.get("mana_cost") or "") for f in faces)
    text = obj.get("oracle_text") or "\n".join(str(f.get("oracle_text") or "") for f in faces)
    front = faces[0] if faces and layout not in {"split", "aftermath"} else obj
    fields, warnings = _oracle_abilities(name, text)
    face_texts = [(str(f.get("name") or name), str(f.get("type_line") or ""),
                   str(f.get("oracle_text") or "")) for f in faces] or [
        (name, type_line, str(obj.get("oracle_text") or ""))]
    produced = obj.get("produced_mana")
    mana, mana_warnings = _mana_fields(name, layout, face_texts,
                                       produced if isinstance(produced, list) else None)
    fields.update(mana)
    warnings += mana_warnings
    keywords = tuple(k.casefold() for k in obj.get("keywords") or []) + tuple(
        fields.pop("keywords", ())
    )
    number = f"{str(obj.get('set', '')).upper()} {obj.get('collector_number', '')}".strip()
    card = Card(
        name=name,
        mana_cost=str(mana_cost or ""),
        type_line=type_line,
        layout=_layout(layout),
        power=_stat(front.get("power")),
        toughness=_stat(front.get("toughness")),
        keywords=keywords,
        set_number=number,
        source="scryfall",
        mana_value=_mana_value(obj, faces, layout, "cmc"),
        unmodelled=_unmodelled(warnings),
        **fields,
    )
    return card, warnings


def card_from_mtgjson(name: str, faces: list[dict[str, Any]]) -> tuple[Card | None, list[str]]:
    """A :class:`Card` from one MTGJSON AtomicCards entry (its list of faces)."""
    if not isinstance(faces, list) or not faces or not all(isinstance(f, dict) for f in faces):
        raise CardError(f"MTGJSON entry {name!r} is not a list of faces")
    ordered = sorted(faces, key=lambda f: str(f.get("side") or "a"))
    first = ordered[0]
    layout = str(first.get("layout") or "normal")
    if layout in SKIPPED_LAYOUTS:
        return None, []
    type_line = " // ".join(str(f.get("type") or " ".join(f.get("types") or [])) for f in ordered)
    mana_cost = " // ".join(str(f.get("manaCost") or "") for f in ordered)
    if len(ordered) == 1:
        mana_cost = str(first.get("manaCost") or "")
    text = "\n".join(str(f.get("text") or "") for f in ordered)
    fields, warnings = _oracle_abilities(name, text)
    face_texts = [(str(f.get("faceName") or f.get("name") or name), str(f.get("type") or ""),
                   str(f.get("text") or "")) for f in ordered]
    mana, mana_warnings = _mana_fields(name, layout, face_texts, None)
    fields.update(mana)
    warnings += mana_warnings
    keywords = tuple(k.casefold() for k in first.get("keywords") or []) + tuple(
        fields.pop("keywords", ())
    )
    if layout in {"split", "aftermath"}:
        mana_value = first.get("manaValue", first.get("convertedManaCost"))
    else:
        mana_value = first.get("faceManaValue", first.get("manaValue", first.get("convertedManaCost")))
    card = Card(
        name=name,
        mana_cost=mana_cost,
        type_line=type_line,
        layout=_layout(layout),
        power=_stat(first.get("power")),
        toughness=_stat(first.get("toughness")),
        keywords=keywords,
        source="mtgjson",
        mana_value=_whole(mana_value),
        unmodelled=_unmodelled(warnings),
        **fields,
    )
    return card, warnings


def _unmodelled(warnings: list[str]) -> str:
    """The warnings' texts, kept with the card so ``cards check`` can repeat them."""
    return "; ".join(w.split(": ", 1)[-1] for w in warnings)[:500]


def _layout(layout: str) -> str:
    """A layout the classifier knows; anything new is read like a normal card (front face)."""
    return layout if layout in KNOWN_LAYOUTS else "normal"


def _mana_value(obj: dict, faces: list[dict], layout: str, key: str) -> int | None:
    # Scryfall's cmc is the whole card's (split: both halves; others: the front face).
    if layout not in {"split", "aftermath"} and faces and faces[0].get(key) is not None:
        return _whole(faces[0][key])
    return _whole(obj.get(key))


def _whole(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CardError(f"mana value must be a number, got {value!r}")
    return int(value)


def _stat(value: Any) -> int | None:
    """Power / toughness as an int where it is a plain number (``*`` and ``1+*`` give None)."""
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


# ------------------------------------------------------------------------------------------
# Import


@dataclasses.dataclass
class ImportReport:
    """What an import did."""

    source: str
    format: str
    cards: int = 0
    skipped: int = 0
    modelled: int = 0
    warnings: list[str] = dataclasses.field(default_factory=list)
    seconds: float = 0.0
    index: str = ""

    def summary(self) -> str:
        lines = [
            f"imported {self.cards} cards from {self.source} ({self.format}) into {self.index}",
            f"  skipped {self.skipped} non-deck objects (tokens, emblems, art cards, ...)",
            f"  {self.modelled} cards with explore / Map abilities read from their text",
            f"  {len(self.warnings)} cards mention explore or Map in text no template matches "
            "(modelled as vanilla cards)",
            f"  {self.seconds:.1f} s",
        ]
        lines += [f"  warning: {w}" for w in self.warnings[:20]]
        if len(self.warnings) > 20:
            lines.append(f"  ... and {len(self.warnings) - 20} more")
        return "\n".join(lines) + "\n"


def iter_card_file(path: Path) -> tuple[str, Iterator[tuple[Card | None, list[str]]]]:
    """Detect the file type and iterate its cards: ``(format, iterator)``."""
    stream = open_text(path)
    label = str(path)
    try:
        char, reader = first_char(stream, label)
    except CardError:
        stream.close()
        raise
    if char == "[":
        return "scryfall", _scryfall_cards(stream, reader, label)
    if char == "{":
        return "mtgjson", _mtgjson_cards(stream, reader, label)
    stream.close()
    raise CardError(f"{label}: not a Scryfall bulk file (a JSON array) or an MTGJSON file (a JSON object)")


def _scryfall_cards(stream, reader, label: str) -> Iterator[tuple[Card | None, list[str]]]:
    with stream:
        for number, obj in enumerate(iter_array(reader)):
            if not isinstance(obj, dict) or obj.get("object") != "card":
                kind = obj.get("object") if isinstance(obj, dict) else type(obj).__name__
                raise CardError(f"{label}: element {number} is not a Scryfall card object ({kind!r})")
            try:
                yield card_from_scryfall(obj)
            except (CardError, KeyError, TypeError) as error:
                raise CardError(f"{label}: card {obj.get('name', number)!r}: {error}") from None


def _mtgjson_cards(stream, reader, label: str) -> Iterator[tuple[Card | None, list[str]]]:
    seen_data = False
    with stream:
        for key, name, faces in iter_object(reader, descend="data"):
            if key != "data":
                continue
            seen_data = True
            try:
                yield card_from_mtgjson(name, faces)
            except (CardError, KeyError, TypeError) as error:
                raise CardError(f"{label}: card {name!r}: {error}") from None
    if not seen_data:
        raise CardError(f"{label}: a JSON object without a 'data' member is not an MTGJSON AtomicCards file")


def import_cards(path: str | os.PathLike[str], directory: str | os.PathLike[str] | None = None) -> ImportReport:
    """Import a Scryfall or MTGJSON file into the card index, replacing it atomically.

    The new index is written to a temporary file next to the old one and renamed over it
    only when the whole file has been read: a failed import leaves the old index intact.
    """
    started = time.perf_counter()
    path = Path(path)
    target = index_path(directory)
    target.parent.mkdir(parents=True, exist_ok=True)
    fmt, cards = iter_card_file(path)
    report = ImportReport(source=str(path), format=fmt, index=str(target))
    handle, temp_name = tempfile.mkstemp(prefix=".cards-", suffix=".sqlite", dir=target.parent)
    os.close(handle)
    try:
        connection = sqlite3.connect(temp_name)
        try:
            _create_schema(connection)
            rows, aliases = [], []
            for card, warnings in cards:
                if card is None:
                    report.skipped += 1
                    continue
                report.cards += 1
                report.modelled += bool(card.explores or card.explores_x or card.maps or card.explore_trigger)
                report.warnings.extend(warnings)
                key = normalize_name(card.name)
                rows.append((key, *_row(card)))
                front = normalize_name(card.front_name)
                if front != key:
                    aliases.append((front, key))
                if len(rows) >= 5000:
                    _insert(connection, rows, aliases)
                    rows, aliases = [], []
            _insert(connection, rows, aliases)
            connection.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [
                ("schema", _SCHEMA_VERSION), ("source", str(path)), ("format", fmt),
                ("cards", str(report.cards)),
            ])
            connection.commit()
        finally:
            connection.close()
        if report.cards == 0:
            raise CardError(f"{path}: no cards found")
        os.replace(temp_name, target)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    report.seconds = time.perf_counter() - started
    return report


def _create_schema(connection: sqlite3.Connection) -> None:
    columns = ", ".join(f"{name} TEXT" for name in _FIELDS)
    connection.execute(f"CREATE TABLE cards (key TEXT PRIMARY KEY, {columns})")
    connection.execute("CREATE TABLE aliases (key TEXT PRIMARY KEY, card TEXT)")
    connection.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")


def _row(card: Card) -> list[Any]:
    values = []
    for name in _FIELDS:
        value = getattr(card, name)
        if isinstance(value, tuple):
            value = ";".join(value)
        elif isinstance(value, bool):
            value = int(value)
        values.append(value)
    return values


def _insert(connection: sqlite3.Connection, rows: list, aliases: list) -> None:
    marks = ", ".join("?" * (len(_FIELDS) + 1))
    # Later printings of a name replace earlier ones (default_cards lists every printing).
    connection.executemany(f"INSERT OR REPLACE INTO cards VALUES ({marks})", rows)
    connection.executemany("INSERT OR IGNORE INTO aliases VALUES (?, ?)", aliases)


# ------------------------------------------------------------------------------------------
# Lookup


class CardIndex:
    """Read access to an imported card index (cards are built only when looked up)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        try:
            self._connection = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
            version = self._connection.execute(
                "SELECT value FROM meta WHERE key = 'schema'").fetchone()
        except sqlite3.Error as error:
            raise CardError(f"{self.path}: not a card index ({error}); re-run 'explore-sim cards import'") from None
        if version is None or version[0] != _SCHEMA_VERSION:
            raise CardError(f"{self.path}: card index of another version; re-run 'explore-sim cards import'")
        self._names: list[str] | None = None

    @classmethod
    def open_default(cls, directory: str | os.PathLike[str] | None = None) -> CardIndex | None:
        """The index in the card directory, or None if nothing was imported yet."""
        path = index_path(directory)
        return cls(path) if path.exists() else None

    def find(self, name: str) -> Card | None:
        key = normalize_name(name)
        row = self._connection.execute("SELECT * FROM cards WHERE key = ?", (key,)).fetchone()
        if row is None:
            alias = self._connection.execute(
                "SELECT c.* FROM aliases a JOIN cards c ON c.key = a.card WHERE a.key = ?",
                (key,)).fetchone()
            row = alias
        return None if row is None else _card_from_row(row[1:], f"index {self.path.name}")

    def names(self) -> list[str]:
        if self._names is None:
            self._names = [r[0] for r in self._connection.execute("SELECT name FROM cards")]
        return self._names

    def __len__(self) -> int:
        return self._connection.execute("SELECT COUNT(*) FROM cards").fetchone()[0]

    def meta(self) -> dict[str, str]:
        return dict(self._connection.execute("SELECT key, value FROM meta"))

    def __iter__(self) -> Iterator[Card]:
        for row in self._connection.execute("SELECT * FROM cards"):
            yield _card_from_row(row[1:], f"index {self.path.name}")


def _card_from_row(row: Iterable[Any], source: str) -> Card:
    values = dict(zip(_FIELDS, row))
    for name in ("power", "toughness", "mana_value"):
        values[name] = None if values[name] in (None, "", "None") else int(values[name])
    for name in ("explores", "maps", "mana_life"):
        values[name] = int(values[name] or 0)
    for name in ("explores_x", "explore_targets"):
        values[name] = bool(int(values[name] or 0))
    values["keywords"] = tuple(k for k in (values["keywords"] or "").split(";") if k)
    for name, value in values.items():
        if value is None:
            values[name] = ""
    values["source"] = values["source"] or source
    return Card(**values)



def card_sources(
    card_files: Iterable[str | os.PathLike[str]] = (),
    directory: str | os.PathLike[str] | None = None,
    use_index: bool = True,
) -> CardSources:
    """Where card names are looked up, in order: user card files (a card there replaces the
    built-in or imported card of the same name: that is what a correction is for), the
    built-in catalog (it carries the modelled explore / Map abilities), then the imported
    index."""
    from .card_files import load_card_file

    sources: list[object] = [load_card_file(path) for path in card_files]
    sources.append(Catalog.builtin())
    if use_index:
        index = CardIndex.open_default(directory)
        if index is not None:
            sources.append(index)
    return CardSources(sources)
