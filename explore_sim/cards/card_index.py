"""Offline card databases: import Scryfall / MTGJSON bulk files into a local card index.

``explore-sim cards import FILE`` streams a Scryfall bulk file (``oracle_cards`` or
``default_cards``, JSON array, optionally gzip / xz / bzip2 compressed) or an MTGJSON
``AtomicCards.json`` and writes a compact SQLite index, ``cards.sqlite``, into the card
directory (:func:`cards_dir`). Cards are classified by the rules (docs/rules.md E10):

* the front face decides for transforming, modal double-faced, flip, meld and adventurer
  cards; a spell // land modal double-faced card is a nonland with ``is_land_like``;
* split cards combine both halves (types and mana value);
* tokens, emblems, art-series and other non-deck objects are skipped.

Explore and Map abilities of cards outside the built-in catalog are read from oracle text
(:mod:`explore_sim.oracle`); text that mentions exploring but matches no template is
reported, and the card is modelled as a vanilla card. A card whose data is of the wrong type
or out of range (a mana value of 1,000,000, NaN, a power of 99999) is skipped and counted
in the report; the rest of the file is imported.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import sqlite3
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple

from ..errors import CardError, clip
from .card import KNOWN_LAYOUTS, POWER_RANGE, Card, normalize_name
from .catalog import CardSource, CardSources, Catalog
from .costs import basic_land_colours
from .files import check_regular_file
from .jsonstream import (
    JsonReader,
    expect_end,
    first_char,
    iter_array,
    iter_object,
    open_text,
)
from .oracle import abilities_from_text, target_from_faces
from .oracle_mana import mana_from_text

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
    "CardRecord",
    "prepare_cards_dir",
    "temporary_file",
]

#: Environment variable naming the card directory.
CARDS_DIR_ENV = "EXPLORE_SIM_CARDS_DIR"
#: File name of the card index inside the card directory.
INDEX_NAME = "cards.sqlite"
_SCHEMA_VERSION = "5"

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


#: Temporary files of imports (``.cards-PID-*``) and downloads (``.download-PID-*``).
_TEMPORARY = (".cards-", ".download-")
#: A temporary file of unknown owner older than this is left over from a killed run.
_STALE_SECONDS = 3600


def prepare_cards_dir(directory: Path) -> Path:
    """Create the card directory if needed, refuse a path that is not a directory, and
    remove temporary files that interrupted imports or updates left behind.

    Parameters
    ----------
    directory : Path
        The card directory.

    Returns
    -------
    Path
        ``directory``.

    Raises
    ------
    CardError
        A path that is not a directory or cannot be created.
    """
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise CardError(f"{directory}: not a directory (the card directory)") from None
    except OSError as error:
        raise CardError(f"{directory}: cannot create the card directory: "
                        f"{error.strerror or error}") from None
    if not directory.is_dir():
        raise CardError(f"{directory}: not a directory (the card directory)")
    _remove_stale_files(directory)
    return directory


def temporary_file(directory: Path, kind: str, suffix: str) -> Path:
    """A new empty temporary file in the card directory, named after this process.

    Interrupted runs leave such files; the next import or update removes those whose process
    is gone (:func:`prepare_cards_dir`).

    Parameters
    ----------
    directory : Path
        The card directory.
    kind : str
        ``"cards"`` (an index being written) or ``"download"``.
    suffix : str
        The file name's ending.

    Returns
    -------
    Path

    Raises
    ------
    CardError
        A directory that cannot be written to.
    """
    try:
        handle, name = tempfile.mkstemp(prefix=f".{kind}-{os.getpid()}-", suffix=suffix,
                                        dir=directory)
    except OSError as error:
        raise CardError(f"{directory}: cannot write to the card directory: "
                        f"{error.strerror or error}") from None
    os.close(handle)
    return Path(name)


def _remove_stale_files(directory: Path) -> None:
    try:
        names = [entry.name for entry in os.scandir(directory)]
    except OSError:
        return
    for name in names:
        if name.startswith(_TEMPORARY) and _is_stale(directory / name):
            try:
                (directory / name).unlink()
            except OSError:
                pass  # another run removed it, or it cannot be removed: harmless


def _is_stale(path: Path) -> bool:
    """A temporary file whose process has ended (or, of unknown owner, an hour old)."""
    match = re.match(r"\.(?:cards|download)-(\d{1,10})-", path.name)
    if match and os.name == "posix":
        return not _process_alive(int(match.group(1)))
    try:
        return time.time() - path.stat().st_mtime > _STALE_SECONDS
    except OSError:
        return False


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists but belongs to someone else
    return True


# ------------------------------------------------------------------------------------------
# Classification


def _oracle_abilities(name: str, text: str, type_line: str) -> tuple[dict[str, Any], list[str]]:
    fields, unmatched = abilities_from_text(name, text, type_line)
    warnings = [f"{clip(name)}: modelled as a vanilla card: {clip(line.strip())!r}"
                for line in unmatched]
    return fields, warnings


def _mana_fields(name: str, layout: str, faces: list[tuple[str, str, str]],
                 produced: list[str] | None) -> tuple[dict[str, Any], list[str]]:
    """Mana fields from the faces' ``(name, type line, oracle text)``: the front face's mana
    ability and enters-tapped rule; for a modal double-faced card with a land back face,
    the back face's as ``back_produces`` / ``back_enters_tapped``."""
    if layout in {"split", "aftermath"}:
        faces = [(name, "", "\n".join(text for _, _, text in faces))]
    front_name, front_type, front_text = faces[0]
    fields, unmatched = mana_from_text(front_name, front_text,
                                       produced if layout != "modal_dfc" else None)
    fields["produces"] = _land_produces(front_type, fields, unmatched)
    warnings = [f"{name}: {MANA_TEXT_UNMODELLED}: {line!r}" for line in unmatched]
    if layout == "modal_dfc" and len(faces) > 1 and "land" in faces[1][1].casefold():
        back, back_unmatched = mana_from_text(faces[1][0], faces[1][2])
        fields["back_produces"] = _land_produces(faces[1][1], back, back_unmatched)
        fields["back_enters_tapped"] = back.get("enters_tapped", "")
        warnings += [f"{name}: {MANA_TEXT_UNMODELLED}: {line!r}" for line in back_unmatched]
    return fields, warnings


def _land_produces(type_line: str, fields: dict[str, Any], unmatched: list[str]) -> str:
    """A face's ``produces``: what its text makes; ``"none"`` for a land face whose text has
    no mana ability at all (and no basic land type, whose ability is intrinsic)."""
    produces = fields.get("produces", "")
    _, _, subtypes = type_line.partition("—")
    is_land = "land" in type_line.split("—")[0].casefold().split()
    if (produces or not is_land or unmatched or fields.get("fetch")
            or basic_land_colours({word.casefold() for word in subtypes.split()})):
        return produces
    return "none"

def _text(obj: dict[str, Any], key: str) -> str:
    """A text field of a card object ("" when it is missing or null)."""
    value = obj.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise CardError(f"{key} must be text, got {type(value).__name__}")
    return value


def _faces(value: Any, key: str) -> list[dict[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(face, dict) for face in value):
        raise CardError(f"{key} must be a list of objects")
    return value


def _keywords(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(k, str) for k in value):
        raise CardError("keywords must be a list of text")
    return tuple(k.casefold() for k in value)


def card_from_scryfall(obj: dict[str, Any]) -> tuple[Card | None, list[str]]:
    """A :class:`Card` from one Scryfall card object, or None for a non-deck object.

    Returns the card (or None) and warnings about unrecognised explore / Map text.
    """
    if not isinstance(obj, dict) or obj.get("object") != "card":
        raise CardError("not a Scryfall card object")
    layout = _text(obj, "layout") or "normal"
    if layout in SKIPPED_LAYOUTS or obj.get("set_type") in {"token", "memorabilia"}:
        return None, []
    name = _text(obj, "name")
    faces = _faces(obj.get("card_faces"), "card_faces")
    type_line = _text(obj, "type_line") or " // ".join(_text(f, "type_line") for f in faces)
    mana_cost = _text(obj, "mana_cost")
    if obj.get("mana_cost") is None or (mana_cost == "" and faces):
        mana_cost = " // ".join(_text(f, "mana_cost") for f in faces)
    text = _text(obj, "oracle_text") or "\n".join(_text(f, "oracle_text") for f in faces)
    front = faces[0] if faces and layout not in {"split", "aftermath"} else obj
    fields, warnings = _oracle_abilities(name, text, type_line)
    face_texts = [(_text(f, "name") or name, _text(f, "type_line"), _text(f, "oracle_text"))
                  for f in faces] or [(name, type_line, _text(obj, "oracle_text"))]
    produced = obj.get("produced_mana")
    mana, mana_warnings = _mana_fields(name, layout, face_texts,
                                       _words(produced) if isinstance(produced, list) else None)
    fields.update(mana)
    warnings = _held_warnings(fields, layout, face_texts, warnings + mana_warnings)
    keywords = _keywords(obj.get("keywords")) + tuple(fields.pop("keywords", ())) \
        + tuple(fields.pop("mana_keywords", ()))
    number = f"{_text(obj, 'set').upper()} {_text(obj, 'collector_number')}".strip()
    card = Card(
        name=name,
        mana_cost=mana_cost,
        type_line=type_line,
        layout=_layout(layout),
        power=_stat(front.get("power"), "power"),
        toughness=_stat(front.get("toughness"), "toughness"),
        keywords=keywords,
        set_number=number,
        source="scryfall",
        mana_value=_mana_value(  # type: ignore[arg-type]  # Card floors a float
            obj, faces, layout, "cmc"),
        colour_identity="".join(_words(obj.get("color_identity"))),
        unmodelled=_unmodelled(warnings),
        **fields,
    )
    return card, warnings


def card_from_mtgjson(name: str, faces: list[dict[str, Any]]) -> tuple[Card | None, list[str]]:
    """A :class:`Card` from one MTGJSON AtomicCards entry (its list of faces)."""
    if not isinstance(faces, list) or not faces or not all(isinstance(f, dict) for f in faces):
        raise CardError("an MTGJSON entry must be a list of faces")
    ordered = sorted(faces, key=lambda f: str(f.get("side") or "a"))
    first = ordered[0]
    layout = _text(first, "layout") or "normal"
    if layout in SKIPPED_LAYOUTS:
        return None, []
    type_line = " // ".join(_text(f, "type") or " ".join(_words(f.get("types"))) for f in ordered)
    mana_cost = " // ".join(_text(f, "manaCost") for f in ordered)
    if len(ordered) == 1:
        mana_cost = _text(first, "manaCost")
    text = "\n".join(_text(f, "text") for f in ordered)
    fields, warnings = _oracle_abilities(name, text, type_line)
    face_texts = [(_text(f, "faceName") or _text(f, "name") or name, _text(f, "type"),
                   _text(f, "text")) for f in ordered]
    mana, mana_warnings = _mana_fields(name, layout, face_texts, None)
    fields.update(mana)
    warnings = _held_warnings(fields, layout, face_texts, warnings + mana_warnings)
    keywords = _keywords(first.get("keywords")) + tuple(fields.pop("keywords", ())) \
        + tuple(fields.pop("mana_keywords", ()))
    if layout in {"split", "aftermath"}:
        mana_value = first.get("manaValue", first.get("convertedManaCost"))
    else:
        mana_value = first.get("faceManaValue",
                               first.get("manaValue", first.get("convertedManaCost")))
    card = Card(
        name=name,
        mana_cost=mana_cost,
        type_line=type_line,
        layout=_layout(layout),
        power=_stat(first.get("power"), "power"),
        toughness=_stat(first.get("toughness"), "toughness"),
        keywords=keywords,
        source="mtgjson",
        mana_value=_whole(mana_value),  # type: ignore[arg-type]  # Card floors a float
        colour_identity="".join(_words(first.get("colorIdentity"))),
        unmodelled=_unmodelled(warnings),
        **fields,
    )
    return card, warnings


def _held_warnings(fields: dict[str, Any], layout: str, faces: list[tuple[str, str, str]],
                   warnings: list[str]) -> list[str]:
    """Set ``fields["target"]`` from the faces' text; a card held for want of a target only
    an opponent has is never cast, so what its other text does is no warning."""
    fields["target"] = target_from_faces(layout, faces)
    if fields["target"] != "opponent":
        return warnings
    return [w for w in warnings if ": modelled as a vanilla card: " not in w]


def _unmodelled(warnings: list[str]) -> str:
    """The warnings' texts, kept with the card so ``cards check`` can repeat them."""
    return "; ".join(w.split(": ", 1)[-1] for w in warnings)[:500]

def _words(value: Any) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(word, str) for word in value):
        raise CardError("types must be a list of text")
    return value


def _layout(layout: str) -> str:
    """A layout the classifier knows; anything new is read like a normal card (front face)."""
    return layout if layout in KNOWN_LAYOUTS else "normal"


def _mana_value(obj: dict, faces: list[dict], layout: str, key: str) -> int | float | None:
    # Scryfall's cmc is the whole card's (split: both halves; others: the front face).
    if layout not in {"split", "aftermath"} and faces and faces[0].get(key) is not None:
        return _whole(faces[0][key])
    return _whole(obj.get(key))


def _whole(value: Any) -> int | float | None:
    """A mana value as given (the card checks its range), refusing NaN and infinities."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CardError(f"mana value must be a number, got {clip(repr(value))}")
    if not math.isfinite(value):
        raise CardError(f"mana value must be a finite number, got {value!r}")
    return value


_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")


def _stat(value: Any, field: str) -> int | None:
    """Power / toughness as an int where it is a plain number (``*``, ``1+*`` and no value
    give None); a number far too long to be a card's is refused, as one out of range is."""
    if value is None or isinstance(value, bool):
        return None
    text = value.strip() if isinstance(value, str) else str(value)
    if not _WHOLE_NUMBER.fullmatch(text):
        return None
    digits = len(text.lstrip("+-").lstrip("0"))
    if digits > 9:
        low, high = POWER_RANGE
        raise CardError(f"{field} must be a whole number from {low} to {high}, got a number "
                        f"of {digits:,} digits")
    return int(text)


# ------------------------------------------------------------------------------------------
# Import


class CardRecord(NamedTuple):
    """One record of a card database file, as read."""

    #: The card, or None for a non-deck object (a token) or a refused record.
    card: Card | None
    #: Explore or Map text no template matches (the card is modelled as vanilla).
    warnings: list[str]
    #: Why the record was refused ("" when it was read).
    refused: str = ""


#: What a warning about mana text the import could not read says (after the card's name).
MANA_TEXT_UNMODELLED = "mana text not modelled"


@dataclasses.dataclass
class ImportReport:
    """What an import did."""

    source: str
    format: str
    cards: int = 0
    skipped: int = 0
    modelled: int = 0
    warnings: list[str] = dataclasses.field(default_factory=list)
    refused: list[str] = dataclasses.field(default_factory=list)
    seconds: float = 0.0
    index: str = ""
    replaced: str = ""  # what the import replaced (an earlier import's index), or ""

    def summary(self) -> str:
        lines = [
            f"imported {self.cards} cards from {self.source} ({self.format}) into {self.index}",
            *([self.replaced] if self.replaced else []),
            f"  skipped {self.skipped} non-deck objects (tokens, emblems, art cards, ...)",
        ]
        if self.refused:
            lines.append(f"  skipped {len(self.refused)} cards with data of the wrong type or "
                         "out of range")
        mana = [w for w in self.warnings if f": {MANA_TEXT_UNMODELLED}: " in w]
        lines += [
            f"  {self.modelled} cards with explore / Map abilities read from their text",
            f"  {len(self.warnings) - len(mana)} cards mention explore or Map in text no "
            "template matches (modelled as vanilla cards)",
            f"  {len(mana)} lines of mana text no template matches (those abilities are not "
            "modelled)",
            f"  {self.seconds:.1f} s",
        ]
        lines += _listed("skipped", self.refused)
        lines += _listed("warning", self.warnings)
        return "\n".join(lines) + "\n"


def _listed(label: str, items: list[str], limit: int = 20) -> list[str]:
    lines = [f"  {label}: {item}" for item in items[:limit]]
    if len(items) > limit:
        lines.append(f"  ... and {len(items) - limit} more")
    return lines


#: What a malformed record of a card database may raise while it is read.
_RECORD_ERRORS = (CardError, KeyError, TypeError, ValueError)


def iter_card_file(path: Path, label: str | None = None) -> tuple[str, Iterator[CardRecord]]:
    """Detect the file type and iterate its records: ``(format, iterator)``.

    ``label`` names the file in messages (default: the path).
    """
    label = str(path) if label is None else label
    stream = open_text(path, label)
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
    raise CardError(f"{label}: not a Scryfall bulk file (a JSON array) or an MTGJSON file (a JSON "
                    "object)")


def _scryfall_cards(stream: IO[str], reader: JsonReader, label: str) -> Iterator[CardRecord]:
    with stream:
        for number, obj in enumerate(iter_array(reader)):
            if not isinstance(obj, dict) or obj.get("object") != "card":
                kind = (type(obj).__name__ if not isinstance(obj, dict) else
                        repr(obj["object"]) if "object" in obj else 'no "object" field')
                raise CardError(f"{label}: element {number} is not a Scryfall card object "
                                f"({clip(kind, 40)})")
            try:
                yield CardRecord(*card_from_scryfall(obj))
            except _RECORD_ERRORS as error:
                yield CardRecord(None, [], _refusal(obj.get("name"), number, error))
        expect_end(reader)


def _mtgjson_cards(stream: IO[str], reader: JsonReader, label: str) -> Iterator[CardRecord]:
    seen_data = False
    with stream:
        for number, (key, name, faces) in enumerate(iter_object(reader, descend="data")):
            if key != "data" or name is None:  # a member of "data" always has its name
                continue
            seen_data = True
            try:
                yield CardRecord(*card_from_mtgjson(name, faces))
            except _RECORD_ERRORS as error:
                yield CardRecord(None, [], _refusal(name, number, error))
        expect_end(reader)
    if not seen_data:
        raise CardError(f"{label}: a JSON object without a 'data' member is not an MTGJSON "
                        "AtomicCards file")


def _refusal(name: Any, number: int, error: Exception) -> str:
    """Why a record was refused, naming the card (or its place in the file)."""
    what = f"card {clip(name)!r}" if isinstance(name, str) else f"element {number}"
    reason = str(error) if isinstance(error, CardError) else f"malformed ({type(error).__name__})"
    if not reason.startswith(f"{what}:"):
        reason = f"{what}: {reason}"
    return clip(reason, 300)


def _earlier_import(target: Path) -> str:
    """What an import into ``target`` replaces, for its report ("": nothing readable)."""
    try:
        meta = CardIndex(target).meta() if target.is_file() else {}
    except CardError:
        meta = {}
    return (f"  replacing its {meta['cards']} cards imported from {meta.get('source')} (an "
            "import replaces the index)") if "cards" in meta else ""


def import_cards(
    path: str | os.PathLike[str],
    directory: str | os.PathLike[str] | None = None,
    *,
    label: str | None = None,
) -> ImportReport:
    """Import a Scryfall or MTGJSON file into the card index, replacing it atomically.

    The new index is written to a temporary file next to the old one and renamed over it
    only when the whole file has been read: a failed import leaves the old index intact.
    Records of the wrong type or out of range are skipped and listed in the report.
    ``label`` names the file in messages and in the index (default: the path).

    Raises
    ------
    CardError
        A file that is not a regular file, too large, malformed or holds no card, or a card
        directory that cannot be written.
    """
    started = time.perf_counter()
    path = Path(path)
    label = str(path) if label is None else label
    target = index_path(directory)
    prepare_cards_dir(target.parent)
    fmt, records = iter_card_file(path, label)
    report = ImportReport(source=label, format=fmt, index=str(target),
                          replaced=_earlier_import(target))
    temp = temporary_file(target.parent, "cards", ".sqlite")
    try:
        _write_index(temp, records, report, label)
        if report.cards == 0:
            first = f"; {len(report.refused)} refused, the first: {report.refused[0]}" \
                if report.refused else ""
            raise CardError(f"{label}: no cards found{first}")
        try:
            os.replace(temp, target)
        except OSError as error:
            raise CardError(f"{target}: cannot replace the card index: "
                            f"{error.strerror or error}") from None
    except BaseException:
        for leftover in (temp, temp.with_name(temp.name + "-journal")):
            leftover.unlink(missing_ok=True)
        raise
    finally:
        close = getattr(records, "close", None)
        if close is not None:
            close()
    report.seconds = time.perf_counter() - started
    return report


def _write_index(temp: Path, records: Iterable[CardRecord], report: ImportReport,
                 label: str) -> None:
    """Write every card of ``records`` into a new index at ``temp``, counting in ``report``."""
    try:
        connection = sqlite3.connect(temp)
        try:
            _create_schema(connection)
            rows, aliases = [], []
            for card, warnings, refused in records:
                if refused:
                    report.refused.append(refused)
                    continue
                if card is None:
                    report.skipped += 1
                    continue
                report.cards += 1
                report.modelled += bool(card.explores or card.explores_x or card.maps
                                        or card.explore_trigger)
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
                ("schema", _SCHEMA_VERSION), ("source", label), ("format", report.format),
                ("cards", str(report.cards)),
            ])
            connection.commit()
        finally:
            connection.close()
    except sqlite3.Error as error:
        raise CardError(f"{temp.parent}: cannot write the card index: {error}") from None


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
    """Read access to an imported card index (cards are built only when looked up).

    The index must be a regular file. A damaged or hand-edited index gives a one-line
    :class:`CardError` naming it whenever it is read, never a crash.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = check_regular_file(path, "card index", CardError)
        uri = f"{self.path.resolve().as_uri()}?mode=ro"
        try:
            self._connection = sqlite3.connect(uri, uri=True)
            version = self._connection.execute(
                "SELECT value FROM meta WHERE key = 'schema'").fetchone()
        except sqlite3.Error as error:
            raise CardError(f"{self.path}: not a card index ({error}); re-run 'explore-sim cards "
                            "import'") from None
        if version is None or version[0] != _SCHEMA_VERSION:
            raise CardError(f"{self.path}: card index of another version; re-run 'explore-sim "
                            "cards import'")
        self._names: list[str] | None = None

    @classmethod
    def open_default(cls, directory: str | os.PathLike[str] | None = None) -> CardIndex | None:
        """The index in the card directory, or None if nothing was imported yet."""
        folder = cards_dir(directory)
        if os.path.lexists(folder) and not folder.is_dir():
            raise CardError(f"{folder}: not a directory (the card directory)")
        path = folder / INDEX_NAME
        return cls(path) if os.path.lexists(path) else None

    def _query(self, sql: str, parameters: tuple = ()) -> list[Any]:
        try:
            return self._connection.execute(sql, parameters).fetchall()
        except sqlite3.Error as error:
            raise self._damaged(error) from None

    def _damaged(self, error: object) -> CardError:
        return CardError(f"{self.path}: the card index is damaged ({clip(error)}); "
                         "re-run 'explore-sim cards import'")

    def _card(self, row: Iterable[Any]) -> Card:
        try:
            return _card_from_row(row, f"index {self.path.name}")
        except (CardError, TypeError, ValueError, AttributeError) as error:
            raise self._damaged(error) from None

    def find(self, name: str) -> Card | None:
        key = normalize_name(name)
        rows = self._query("SELECT * FROM cards WHERE key = ?", (key,))
        if not rows:
            rows = self._query(
                "SELECT c.* FROM aliases a JOIN cards c ON c.key = a.card WHERE a.key = ?",
                (key,))
        return self._card(rows[0][1:]) if rows else None

    def names(self) -> list[str]:
        if self._names is None:
            self._names = [str(row[0]) for row in self._query("SELECT name FROM cards")]
        return self._names

    def __len__(self) -> int:
        return int(self._query("SELECT COUNT(*) FROM cards")[0][0])

    def meta(self) -> dict[str, str]:
        return dict(self._query("SELECT key, value FROM meta"))

    def __iter__(self) -> Iterator[Card]:
        try:
            cursor = self._connection.execute("SELECT * FROM cards")
            for row in cursor:
                yield self._card(row[1:])
        except sqlite3.Error as error:
            raise self._damaged(error) from None


def _card_from_row(row: Iterable[Any], source: str) -> Card:
    values = dict(zip(_FIELDS, row, strict=True))
    for name in ("power", "toughness", "mana_value"):
        values[name] = None if values[name] in (None, "", "None") else int(values[name])
    for name in ("explores", "maps", "draws", "mana_life"):
        values[name] = int(values[name] or 0)
    for name in ("explores_x", "explore_targets"):
        values[name] = bool(int(values[name] or 0))
    values["keywords"] = tuple(k for k in str(values["keywords"] or "").split(";") if k)
    for name, value in values.items():
        if value is None and name not in {"power", "toughness", "mana_value"}:
            values[name] = ""
    values["source"] = values["source"] or source
    return Card(**values)


def card_sources(
    card_files: Iterable[str | os.PathLike[str]] = (),
    directory: str | os.PathLike[str] | None = None,
    use_index: bool = True,
) -> CardSources:
    """Where card names are looked up, in order: user card files (a card there replaces the
    built-in or imported card of the same name: that is what a correction is for), the built-in
    catalog (it carries the modelled explore / Map abilities), then the imported index."""
    from .card_files import load_card_file

    sources: list[CardSource] = [load_card_file(path) for path in card_files]
    sources.append(Catalog.builtin())
    if use_index:
        index = CardIndex.open_default(directory)
        if index is not None:
            sources.append(index)
    return CardSources(sources)
