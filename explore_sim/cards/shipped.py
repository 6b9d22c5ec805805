"""The decks shipped with the package, and naming one by its short name.

The decklists and their card files (``NAME.cards.toml``) are package data, in
``explore_sim/decks/``, so they travel with every install. A deck can be named by its short
name (``merfolk``) or its file's name without the extension (``lci_merfolk_explore``)
anywhere a decklist path is accepted: :func:`resolve_deck_path` turns such a name into the
shipped file when no file of that name exists. A name that is the start of several decks'
names, or of none, is a one-line :class:`~explore_sim.errors.DeckError` listing the names.
"""

from __future__ import annotations

import dataclasses
import os
import warnings
from os import PathLike
from pathlib import Path

from ..errors import DeckError, DeckWarning, clip

__all__ = ["DECKS_DIR", "SHORT_NAMES", "ShippedDeckFile", "shipped_deck_files",
           "find_shipped_deck", "resolve_deck_path", "looks_like_a_name", "shipped_source"]

#: Where the shipped decklists are (package data).
DECKS_DIR = Path(__file__).resolve().parent.parent / "decks"

#: The shipped decks' short names, by their file's stem, in the order they are listed.
SHORT_NAMES = {
    "lci_merfolk_explore": "merfolk",
    "lci_merfolk_vanilla": "merfolk-vanilla",
    "lci_limited_gu": "limited",
    "xln_sultai_explore": "xln-sultai",
    "sultai_explore": "sultai",
    "golgari_explore": "golgari",
    "hakbal_merfolk_commander": "hakbal",
}

_SUFFIXES = (".txt", ".dek")


@dataclasses.dataclass(frozen=True)
class ShippedDeckFile:
    """A shipped decklist: its short name, its file and the card file beside it.

    Attributes
    ----------
    name : str
        The short name (``merfolk``); the file's stem for a deck without one.
    stem : str
        The file's name without its extension (``lci_merfolk_explore``).
    path : Path
    card_file : Path or None
        ``NAME.cards.toml`` beside the decklist, read with it, if there is one.
    """

    name: str
    stem: str
    path: Path
    card_file: Path | None


def shipped_deck_files(directory: Path | None = None) -> dict[str, ShippedDeckFile]:
    """The shipped decks by short name: those of :data:`SHORT_NAMES` first, in its order,
    then any other decklist of the directory by its stem.

    Parameters
    ----------
    directory : Path, optional
        Default :data:`DECKS_DIR`.

    Returns
    -------
    dict of str to ShippedDeckFile
        Empty when the directory does not exist.
    """
    directory = DECKS_DIR if directory is None else directory
    if not directory.is_dir():
        return {}
    files = {path.stem: path for path in sorted(directory.iterdir())
             if path.suffix in _SUFFIXES and path.is_file() and not path.name.startswith(".")}
    order = [stem for stem in SHORT_NAMES if stem in files]
    order += [stem for stem in files if stem not in SHORT_NAMES]
    decks = {}
    for stem in order:
        path = files[stem]
        card_file = path.with_name(f"{stem}.cards.toml")
        name = SHORT_NAMES.get(stem, stem)
        decks[name] = ShippedDeckFile(name, stem, path,
                                      card_file if card_file.is_file() else None)
    return decks


def _key(name: str) -> str:
    return name.strip().casefold().replace("_", "-")


def find_shipped_deck(name: str, directory: Path | None = None) -> Path:
    """The shipped decklist named ``name``: its short name or its file's stem (case, ``_``
    and ``-`` aside), else the one deck whose names start with it.

    Parameters
    ----------
    name : str
    directory : Path, optional
        Default :data:`DECKS_DIR`.

    Returns
    -------
    Path

    Raises
    ------
    DeckError
        No deck or several decks go by that name: one line listing the shipped decks'
        names.
    """
    decks = shipped_deck_files(directory)
    key = _key(name)
    exact = [deck for deck in decks.values() if key in (_key(deck.name), _key(deck.stem))]
    if exact:
        return exact[0].path
    starts = [deck for deck in decks.values()
              if key and (_key(deck.name).startswith(key) or _key(deck.stem).startswith(key))]
    if len(starts) == 1:
        return starts[0].path
    names = ", ".join(decks) or "none installed"
    if starts:
        raise DeckError(f"deck {clip(name)!r} is ambiguous: it could be "
                        f"{', '.join(deck.name for deck in starts)} (shipped decks: {names})")
    raise DeckError(f"{clip(name)}: no such decklist file, and no shipped deck of that name "
                    f"(shipped decks: {names}; 'explore-sim decks' lists them)")


def looks_like_a_name(text: str) -> bool:
    """Whether ``text`` could be a shipped deck's name rather than a path: no directory
    separator and no decklist extension.

    Parameters
    ----------
    text : str

    Returns
    -------
    bool
    """
    if not text or "/" in text or os.sep in text or (os.altsep and os.altsep in text):
        return False
    return Path(text).suffix.casefold() not in (*_SUFFIXES, ".toml", ".csv")


def resolve_deck_path(path: str | PathLike[str]) -> Path:
    """A decklist path, or the shipped deck a name stands for.

    A path that exists is itself, whatever its name; a name that does not exist as a file
    and has no directory part nor decklist extension (:func:`looks_like_a_name`) is looked
    up among the shipped decks (:func:`find_shipped_deck`); any other path is itself (its
    reader then says it is missing).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    Path

    Raises
    ------
    DeckError
        A name that is no shipped deck's, or several decks'.
    """
    text = os.fspath(path)
    if os.path.lexists(text) or not looks_like_a_name(text):
        return Path(text)
    found = find_shipped_deck(text)
    here = [text + suffix for suffix in _SUFFIXES if os.path.lexists(text + suffix)]
    if here:  # the name wins, as documented; say so, for the file beside it is not read
        warnings.warn(f"{text}: the shipped deck {found.name}, not {here[0]} here (give "
                      f"{here[0]} to play that file)", DeckWarning, stacklevel=2)
    return found


def shipped_source(given: str | PathLike[str], path: Path) -> str:
    """How messages and metadata name a decklist: the path as given, or, for a shipped deck
    named by its name, ``explore_sim/decks/FILE`` (the same on every install).

    Parameters
    ----------
    given : str or path-like
        What the user gave.
    path : Path
        What :func:`resolve_deck_path` made of it.

    Returns
    -------
    str
    """
    if os.fspath(given) == os.fspath(path):
        return str(path)
    return f"explore_sim/decks/{path.name}"
