"""Decks and card files as the web page receives them: pasted text, shipped decks, uploaded
card files; and deck errors turned into problems listed by line.

The page takes up to :data:`MAX_CARD_FILES` card files at once (uploaded together, or one
pasted); the form carries each under its own keys (:func:`card_file_keys`). They are one card
source with the card files of the shipped decks the run started from, as repeated ``--cards``
options are on the command line: looked up in order, the first file that defines a card wins
(:func:`card_sources_for`).

An uploaded card file is written into a fresh temporary directory under a fixed name, read
by the ordinary card-file reader (:func:`explore_sim.cards.card_files.load_card_file`: TOML
or CSV, parsed, never executed) and the directory is removed at once. Shipped decks are
looked up by name in a fixed listing of the decks directory, never by a path from the page.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tempfile
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from ..cards import CardSources, Catalog
from ..cards.card_files import load_card_file
from ..cards.card_index import CardIndex
from ..cards.catalog import CardSource
from ..cards.decklist import MAX_DECK_BYTES, Deck, deck_card_files, parse_deck
from ..cards.files import read_text_file
from ..errors import CardError, DeckError, DeckWarning, clip

__all__ = [
    "MAX_CARD_FILE_CHARS",
    "MAX_CARD_FILES",
    "CardText",
    "card_file_keys",
    "card_texts",
    "card_file_text",
    "DeckInput",
    "DeckProblem",
    "ShippedDeck",
    "shipped_decks",
    "shipped_texts",
    "normalised_deck_text",
    "card_sources_for",
    "read_deck",
    "deck_problems",
    "short_paths",
]

#: The longest card file the page accepts, in characters (uploaded or pasted).
MAX_CARD_FILE_CHARS = 512 * 1024
#: The most card files one run takes from the page (the request's size caps them together).
MAX_CARD_FILES = 8
_DECK_SUFFIXES = (".txt", ".dek")


@dataclasses.dataclass(frozen=True)
class ShippedDeck:
    """A decklist of the decks directory and the card file that travels with it."""

    name: str
    path: Path
    card_files: tuple[Path, ...]

    def text(self) -> str:
        """The decklist's text, read now: the file may have changed since the server started.

        Returns
        -------
        str

        Raises
        ------
        DeckError
            The path is no longer a regular file of at most a decklist's bytes, checked on
            the descriptor opened (opened without waiting: a FIFO put there never blocks),
            or its bytes are not UTF-8.
        """
        return read_text_file(self.path, "decklist file", DeckError, MAX_DECK_BYTES)


def shipped_decks(directory: Path | None) -> dict[str, ShippedDeck]:
    """The decklists of ``directory`` by name (the file name without its extension).

    Parameters
    ----------
    directory : Path or None

    Returns
    -------
    dict of str to ShippedDeck
        In name order; empty when there is no such directory.
    """
    if directory is None or not directory.is_dir():
        return {}
    decks = {}
    for path in sorted(directory.iterdir()):
        if path.suffix in _DECK_SUFFIXES and path.is_file() and not path.name.startswith("."):
            decks[path.stem] = ShippedDeck(path.stem, path, tuple(deck_card_files(path)))
    return decks


def normalised_deck_text(text: str) -> str:
    """A decklist's text without the white space that copying and pasting changes.

    Parameters
    ----------
    text : str

    Returns
    -------
    str
    """
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def shipped_texts(decks: Mapping[str, ShippedDeck]) -> dict[str, str]:
    """The shipped decks' names by their text (:func:`normalised_deck_text`); a deck that
    cannot be read is left out (loading it says why).

    Parameters
    ----------
    decks : mapping of str to ShippedDeck

    Returns
    -------
    dict of str to str
    """
    texts = {}
    for name, deck in decks.items():
        try:
            texts[normalised_deck_text(deck.text())] = name
        except DeckError:
            pass
    return texts


@dataclasses.dataclass(frozen=True)
class DeckInput:
    """One deck of a run as the page sent it.

    Attributes
    ----------
    slot : str
        The form field: ``deck`` or ``deck2``.
    label : str
        Names the deck in messages: ``deck`` or ``second deck``.
    text : str
        The decklist.
    base : str or None
        The shipped deck it started from: its card file is read.
    shipped : str or None
        The shipped deck whose text this is, as it was loaded (copying aside): its name
        names the deck when the list gives none. Other text, even one edited from a shipped
        deck, is named by its ``About`` / ``Name`` header, else ``pasted deck`` (``pasted
        deck 2`` for the second deck).
    """

    slot: str
    label: str
    text: str
    base: str | None
    shipped: str | None = None


@dataclasses.dataclass(frozen=True)
class DeckProblem:
    """One problem of a decklist, for the list beside the text area.

    Attributes
    ----------
    line : int or None
        The 1-based line of the decklist, if the problem has one.
    text : str
        That line as typed ("" without a line).
    message : str
        What is wrong.
    name : str
        The unknown card name as typed ("" for other problems).
    suggestions : tuple of str
        Known names close to it; choosing one replaces the name on that line.
    """

    line: int | None
    text: str
    message: str
    name: str = ""
    suggestions: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class CardText:
    """One card file of the page: its text, format and name as the user knows it.

    Attributes
    ----------
    text : str
    format : {"toml", "csv"}
    name : str
        The uploaded file's name ("cards" for a pasted one), for messages.
    """

    text: str
    format: str = "toml"
    name: str = "cards"


def card_file_keys(index: int) -> tuple[str, str, str]:
    """The form keys of the ``index``-th card file (0: the text area's): text, format, name.

    Parameters
    ----------
    index : int
        0 to ``MAX_CARD_FILES - 1``.

    Returns
    -------
    (str, str, str)
        ``cards_text``, ``cards_format``, ``cards_name``, then ``cards_text_2``, ...
    """
    suffix = "" if index == 0 else f"_{index + 1}"
    return f"cards_text{suffix}", f"cards_format{suffix}", f"cards_name{suffix}"


def card_texts(data: Mapping[str, str]) -> list[CardText]:
    """The card files a form carries, in order (blank ones left out).

    Parameters
    ----------
    data : mapping of str to str
        The form.

    Returns
    -------
    list of CardText
    """
    found = []
    for index in range(MAX_CARD_FILES):
        text_key, format_key, name_key = card_file_keys(index)
        if data.get(text_key, "").strip():
            found.append(CardText(data[text_key], data.get(format_key) or "toml",
                                  data.get(name_key) or "cards"))
    return found


def card_file_text(name: str, raw: bytes) -> CardText:
    """An uploaded card file checked as the page takes it: its suffix, size and encoding.

    Parameters
    ----------
    name : str
        The file's name as uploaded.
    raw : bytes
        Its first ``MAX_CARD_FILE_CHARS + 1`` bytes.

    Returns
    -------
    CardText

    Raises
    ------
    CardError
        Not .toml or .csv, too large, or not UTF-8 text: one line naming the file.
    """
    suffix = Path(name).suffix.casefold()
    if suffix not in {".toml", ".csv"}:
        raise CardError(f"card file {clip(name)!r}: a card file ends in .toml or .csv")
    if len(raw) > MAX_CARD_FILE_CHARS:
        raise CardError(f"card file {clip(name)!r}: too large (at most "
                        f"{MAX_CARD_FILE_CHARS:,} bytes on this page)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise CardError(f"card file {clip(name)!r}: not UTF-8 text (byte {error.start})") \
            from None
    return CardText(text, suffix[1:], Path(name).name[:100])


def card_sources_for(cards: Sequence[CardText], companions: list[Path],
                     cards_dir: Path | None) -> CardSources:
    """Where the run's card names are looked up: the page's card files in order, the card
    files of the shipped decks it started from, the built-in catalog, then the imported
    card index. As with repeated ``--cards`` on the command line, the first file that
    defines a card wins; a card defined by more than one of the page's files is named in a
    :class:`~explore_sim.errors.DeckWarning` (the page shows it as a note).

    Parameters
    ----------
    cards : sequence of CardText
        The page's card files (uploaded or pasted), in order.
    companions : list of Path
        Card files of shipped decks.
    cards_dir : Path or None
        Directory of the imported card index (None: the default one).

    Returns
    -------
    CardSources

    Raises
    ------
    CardError
        A card file that cannot be read, naming it and its line.
    """
    sources: list[CardSource] = [_read_card_text(card.text, card.format, card.name)
                             for card in cards[:MAX_CARD_FILES]]
    _warn_of_shadowed_cards(sources, [card.name for card in cards])
    sources.extend(load_card_file(path) for path in companions)
    sources.append(Catalog.builtin())
    index = CardIndex.open_default(cards_dir)
    if index is not None:
        sources.append(index)
    return CardSources(sources)


def _warn_of_shadowed_cards(catalogs: Sequence[CardSource], names: Sequence[str]) -> None:
    """Warn of each card that more than one of the page's card files defines (the first
    file's card is played, as the first ``--cards`` file's on the command line)."""
    first: dict[str, int] = {}
    for index, catalog in enumerate(catalogs):
        for card in catalog.names():
            key = card.casefold()
            if first.setdefault(key, index) != index:
                warnings.warn(f"card {clip(card)!r} is defined in card files "
                              f"{clip(names[first[key]])!r} and {clip(names[index])!r}: the "
                              "first one's is used", DeckWarning, stacklevel=2)


def _read_card_text(text: str, card_format: str, name: str) -> Catalog:
    """A card file's text read by the card-file reader from a temporary directory."""
    if card_format not in {"toml", "csv"}:
        raise CardError(f"card file: the format must be toml or csv, got {clip(card_format)!r}")
    if len(text) > MAX_CARD_FILE_CHARS:
        raise CardError(f"card file: too large ({len(text):,} characters; at most "
                        f"{MAX_CARD_FILE_CHARS:,} on this page)")
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", Path(name).stem)[:60].strip("._") or "cards"
    with tempfile.TemporaryDirectory(prefix="explore-sim-cards-") as directory:
        path = Path(directory) / f"{stem}.{card_format}"
        path.write_text(text, encoding="utf-8")
        try:
            return load_card_file(path)
        except CardError as error:  # name the file as the user knows it, not the directory
            raise CardError(str(error).replace(f"{directory}/", "")) from None


def read_deck(deck: DeckInput, sources: CardSources) -> Deck:
    """The deck of one text area.

    Parameters
    ----------
    deck : DeckInput
    sources : CardSources

    Returns
    -------
    Deck

    Raises
    ------
    DeckError
        As :func:`explore_sim.parse_deck`, with ``deck:LINE:`` in the message.
    """
    if not deck.text.strip():
        raise DeckError(f"{deck.label}: paste a decklist (or load a shipped deck)")
    pasted = "pasted deck 2" if deck.slot == "deck2" else "pasted deck"
    return parse_deck(deck.text, catalog=sources, source=deck.label,
                      name=deck.shipped or pasted)


_AT_LINE = re.compile(r"^(?P<label>[\w ]+):(?P<line>\d+): (?P<message>.*)$", re.S)
_UNKNOWN = re.compile(r"^(?P<label>[\w ]+): unknown cards?: (?P<items>.*)$", re.S)
_ITEM = re.compile(r"line (?P<line>\d+) (?P<rest>.*?)(?=; line \d+ |; and \d+ more$|$)", re.S)
_QUOTED = re.compile(r"""(['"])(.*?)\1""")
#: The command line's advice at the end of an unknown-card error (card files by path): the
#: page gives its own, beside the list (a suggestion, or a card file on the page).
_COMMAND_LINE_FIX = re.compile(r"; to fix: run 'explore-sim cards update'.*$", re.S)


def deck_problems(error: DeckError, text: str) -> list[DeckProblem]:
    """The problems a :class:`DeckError` names, each with its line.

    Parameters
    ----------
    error : DeckError
        From :func:`read_deck`.
    text : str
        The decklist that was read.

    Returns
    -------
    list of DeckProblem
        One per unknown card (with suggestions) or the one malformed line; a problem
        without a line otherwise.
    """
    message = str(error)
    lines = text.splitlines()

    def line_text(number: int) -> str:
        return clip(lines[number - 1].strip(), 120) if 0 < number <= len(lines) else ""

    unknown = _UNKNOWN.match(message)
    if unknown:
        problems = []
        items = _COMMAND_LINE_FIX.sub("", unknown.group("items"))
        for item in _ITEM.finditer(items):
            number, rest = int(item.group("line")), item.group("rest")
            quoted = _QUOTED.match(rest)
            name = quoted.group(2) if quoted else ""
            hint = re.search(r"\(did you mean (.*)\?\)$", rest)
            suggestions = tuple(m.group(2) for m in _QUOTED.finditer(hint.group(1))) if hint \
                else ()
            problems.append(DeckProblem(number, line_text(number), f"unknown card {rest}",
                                        name, suggestions))
        more = re.search(r"; and (\d+) more$", items)
        if more:
            problems.append(DeckProblem(None, "", f"and {more.group(1)} more unknown cards"))
        if problems:
            return problems
    at_line = _AT_LINE.match(message)
    if at_line:
        number = int(at_line.group("line"))
        return [DeckProblem(number, line_text(number), at_line.group("message"))]
    return [DeckProblem(None, "", message)]


def short_paths(text: str, directories: Iterable[Path | None]) -> str:
    """``text`` with the server's paths shortened: a path inside one of ``directories`` keeps
    only that directory's name (``decks/golgari_explore.cards.toml``), and the home directory
    is ``~``.

    Parameters
    ----------
    text : str
        A message about to be shown on the page.
    directories : iterable of Path or None
        The decks directory, the card directory, ... (one that is not a directory is left
        as it is)

    Returns
    -------
    str
    """
    prefixes = set()
    for directory in directories:
        if directory is None or not os.path.isdir(directory):
            continue
        for form in (Path(os.path.abspath(directory)), Path(directory).resolve()):
            if str(form.parent) != form.anchor:
                prefixes.add(str(form.parent) + os.sep)
    home = os.path.expanduser("~")
    for prefix in sorted(prefixes, key=len, reverse=True):
        text = text.replace(prefix, "")
    if home not in ("", "/", "~"):
        text = text.replace(home + os.sep, "~" + os.sep)
    return text
