"""User card files: homebrew, unreleased or house-ruled cards, and classification fixes.

A TOML file holds one ``[[card]]`` table per card; a CSV file uses the columns of the built-in
catalog (``explore_sim/cards/data/cards.csv``) and ``mana_value``. Fields: ``name``,
``mana_cost``, ``type_line`` (required, not empty), ``layout``, ``power``, ``toughness``,
``mana_value`` (to override the cost's), and the abilities in the catalog's vocabulary:
``explores`` (a number or ``"X"``), ``explores_when``, ``explore_targets``, ``maps``,
``maps_when``, ``explore_trigger``, ``explore_replacement``, ``extra_land``, ``draws`` (the
cards drawn as the spell resolves or the permanent enters), ``keywords`` (a list),
``ability_cost``, ``note``, and the mana fields ``produces`` (``"G"``, ``"BG"`` for B or G,
``"any"``, ``"CC"``, ``"G+U"``, ``"commander"``), ``mana_ability_cost``, ``mana_life``,
``enters_tapped`` (true, or a rule such as ``"unless:forest|swamp"``, ``"shock"``),
``land_enters``, ``fetch``, ``fetch_when``, ``back_produces``, ``back_enters_tapped``, and
``target`` (``"opponent"``: a spell or aura whose target only an opponent has, held in a
goldfish game; ``"creature"``: it needs a creature you control) (see
:class:`explore_sim.cards.card.Card`). Example::

    [[card]]
    name = "Tidecaller Scout"
    mana_cost = "{1}{U}"
    type_line = "Creature — Merfolk Scout"
    power = 1
    toughness = 2
    explores = 1
    explores_when = "enter"

``mana_cost`` may be left out (a land, a card without a mana cost); written out empty on a
nonland card it is refused, so a skeleton from :func:`explore_sim.cards.card_template` that
was not filled in never loads as a free spell. Errors name the file and the line of the
offending card. A card file is a regular file of
at most :data:`MAX_CARD_FILE_BYTES` bytes with lines of at most :data:`MAX_CARD_FILE_LINE`
characters; the numbers must fit the ranges of :mod:`explore_sim.cards.card`.
"""

from __future__ import annotations

import io
import re
import tomllib
from os import PathLike
from pathlib import Path
from typing import Any

from ..errors import CardError, clip
from .card import Card, unknown_types
from .catalog import Catalog, read_card_rows
from .files import check_lines, read_text_file

__all__ = ["load_card_file", "MAX_CARD_FILE_BYTES", "MAX_CARD_FILE_LINE"]

#: Largest card file read.
MAX_CARD_FILE_BYTES = 5 << 20
#: Longest line of a card file.
MAX_CARD_FILE_LINE = 10_000

_FIELDS: dict[str, type | tuple[type, ...]] = {
    "name": str, "mana_cost": str, "type_line": str, "layout": str, "power": int,
    "toughness": int, "mana_value": int, "explores": (int, str), "explores_when": str,
    "explore_targets": bool, "maps": int, "maps_when": str, "explore_trigger": str,
    "explore_replacement": str, "extra_land": str, "draws": int, "keywords": list,
    "ability_cost": str,
    "set_number": str, "note": str, "produces": str, "mana_ability_cost": str,
    "mana_life": int, "enters_tapped": (str, bool), "land_enters": str, "fetch": str,
    "fetch_when": str, "back_produces": str, "back_enters_tapped": (str, bool),
    "colour_identity": str, "target": str,
}


def load_card_file(path: str | PathLike[str]) -> Catalog:
    """Read a TOML or CSV card file into a :class:`Catalog` (cards marked with their file)."""
    path = Path(path)
    if path.suffix.casefold() not in {".csv", ".toml"}:
        raise CardError(f"{path}: card files must end in .toml or .csv")
    text = read_text_file(path, "card file", CardError, MAX_CARD_FILE_BYTES)
    check_lines(text, str(path), MAX_CARD_FILE_LINE, CardError)
    source = f"card file {path.name}"
    if path.suffix.casefold() == ".csv":
        catalog = read_card_rows(io.StringIO(text, newline=""), str(path), source=source)
        try:
            return Catalog(catalog)
        except CardError as error:
            raise CardError(f"{path}: {error}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise CardError(f"{path}: invalid TOML: {error}") from None
    except RecursionError:
        raise CardError(f"{path}: invalid TOML: nested too deeply") from None
    except ValueError as error:  # a whole number past Python's limit on the digits it reads
        raise CardError(_huge_number(text, path, error)) from None
    tables = data.get("card")
    if not isinstance(tables, list) or not tables:
        raise CardError(f"{path}: expected one or more [[card]] tables")
    unexpected = [clip(key, 40) for key in data if key != "card"]
    if unexpected:
        raise CardError(f"{path}: unexpected top-level key(s) {', '.join(unexpected[:5])}; "
                        "put cards in [[card]] tables")
    lines = [i + 1 for i, line in enumerate(text.splitlines())
             if re.match(r"^\s*\[\[\s*card\s*\]\]", line)]
    cards = []
    for index, table in enumerate(tables):
        line = lines[index] if index < len(lines) else "?"
        try:
            if not isinstance(table, dict):
                raise CardError("each card must be a [[card]] table")
            cards.append(_card(table, source))
        except CardError as error:
            raise CardError(f"{path}:{line}: {error}") from None
    try:
        return Catalog(cards)
    except CardError as error:
        raise CardError(f"{path}: {error}") from None


def _huge_number(text: str, path: Path, error: ValueError) -> str:
    """The message for a number too long to read: the file, the line of the longest run of
    digits and its length (every number of a card has at most a few digits)."""
    number, digits = "", 0
    for index, line in enumerate(text.splitlines(), start=1):
        for run in re.findall(r"[0-9][0-9_]*", line):
            length = len(run.replace("_", ""))
            if length > digits:
                number, digits = str(index), length
    if digits < 100:  # not a long number after all: what the reader said
        return f"{path}: invalid TOML: {clip(error)}"
    return (f"{path}:{number}: a number of {digits:,} digits; the numbers of a card have at "
            "most a few (power and toughness from -99 to 999, mana value up to 1000)")


def _card(table: dict[str, Any], source: str) -> Card:
    unknown = [clip(key, 40) for key in table if key not in _FIELDS]
    if unknown:
        raise CardError(f"unknown field(s) {', '.join(unknown[:5])}; known: {', '.join(_FIELDS)}")
    if not isinstance(table.get("name"), str) or not table["name"].strip():
        raise CardError("a card needs a name")
    where = f"card {clip(table['name'])!r}"
    if "type_line" not in table:
        raise CardError(f"{where}: a card needs a type_line")
    if isinstance(table["type_line"], str) and not table["type_line"].strip():
        raise CardError(f"{where}: type_line is empty; write the card's type line, e.g. "
                        '"Creature — Merfolk Scout", "Instant" or "Land — Forest Island"')
    if isinstance(table["type_line"], str) and (wrong := unknown_types(table["type_line"])):
        raise CardError(f"{where}: type_line {clip(repr(table['type_line']))} has "
                        f"{', '.join(repr(w) for w in wrong)}, not a card type or supertype; "
                        "write e.g. \"Creature — Merfolk Scout\", \"Legendary Creature — "
                        "Merfolk\" or \"Instant\"")
    for key, value in table.items():
        expected = _FIELDS[key]
        allowed = expected if isinstance(expected, tuple) else (expected,)
        if isinstance(value, bool) and bool not in allowed:
            raise CardError(f"{where}: {key} must be {_type_name(expected)}, "
                            f"got {str(value).lower()}")
        if not isinstance(value, expected):
            raise CardError(f"{where}: {key} must be {_type_name(expected)}, "
                            f"got {clip(repr(value))}")
    values = dict(table)
    explores = values.pop("explores", 0)
    if isinstance(explores, str):
        if explores.strip().upper() != "X":
            raise CardError(f"{where}: explores must be a number or \"X\"")
        values["explores_x"] = True
        explores = 0
    values["explores"] = explores
    keywords = values.get("keywords", [])
    if not all(isinstance(k, str) for k in keywords):
        raise CardError(f"{where}: keywords must be a list of text, got {clip(repr(keywords))}")
    values["keywords"] = tuple(k.casefold() for k in keywords)
    for field in ("enters_tapped", "back_enters_tapped"):  # true / false as well as a rule
        if isinstance(values.get(field), bool):
            values[field] = "yes" if values[field] else ""
    values.setdefault("mana_cost", "")
    values["source"] = source
    card = Card(**values)
    if "mana_cost" in table and not table["mana_cost"].strip() and not card.is_land:
        # An empty cost written out is a card file not filled in (see card_template), not a
        # free spell: a card without a mana cost leaves the field out.
        raise CardError(f"{where}: mana_cost is empty for a nonland card; write its cost, "
                        'e.g. "{1}{G}" (leave the field out for a card without a mana cost)')
    return card


def _type_name(expected: type | tuple[type, ...]) -> str:
    names = {str: "text", int: "a whole number", bool: "true or false", list: "a list"}
    if isinstance(expected, tuple):
        return " or ".join(names[t] for t in expected)
    return names[expected]
