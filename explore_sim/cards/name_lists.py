"""Lists of card names typed as text, where a name may itself hold a comma.

``--hand "Forest, 2 Swamp"`` separates cards by commas, but ``Sheoldred, the Apocalypse``
and ``Nicanzil, Current Conductor`` are single cards. :func:`split_card_names` reads such a
list the one way the command line, the Python functions and the web page share: line
breaks always separate names (a repeated option or a text area holds one list a line,
:func:`joined_card_lists`); within a line, each comma-separated run of pieces (at most
:data:`MAX_NAME_PIECES`) that names a known card is taken whole, the longest run first,
and a piece that starts no known name stands alone (so the error that follows names it as
typed). The deck's own cards decide first; the other card sources (the catalog, the
imported index) only where the deck knows no run starting there, so two cards of the deck
are never merged into a name only the index knows.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Protocol

from ..errors import OptionError, clip
from .card import MAX_NAME_LENGTH

__all__ = ["split_card_names", "joined_card_lists", "card_counts", "COUNT_AND_NAME",
           "MAX_NAME_PIECES", "MAX_COPIES"]

#: The most comma-separated pieces one name is made of (real names have one or two commas).
MAX_NAME_PIECES = 6

#: The most copies one item of a card list may name.
MAX_COPIES = 250
#: An item with a count: ``2 Swamp``, ``2x Swamp``, ``2 x Swamp``.
COUNT_AND_NAME = re.compile(r"^(?P<count>\d{1,3})\s*[xX]?\s+(?P<name>\S.*)$")


class _Finder(Protocol):
    def find(self, name: str) -> object | None: ...


#: Where names are looked up: a catalog, card sources, or a function that returns one (it is
#: called only when a run of pieces is not found in the sources before it).
Names = _Finder | Callable[[], _Finder]


def split_card_names(text: str, *names: Names, counted: bool = False) -> list[str]:
    """The items of a typed list of cards, each name with its commas.

    Parameters
    ----------
    text : str
        Names separated by line breaks or commas, such as ``"Forest, Sheoldred, the
        Apocalypse\\nCenote Scout"``.
    *names : Catalog, CardSources or callable returning one
        Where names are known, in order of trust (the deck's own cards first). At each
        position of a line, the longest run of pieces that the first of them knows is
        taken; only when it knows no run starting there is the next one asked, and so on.
        A callable is called (once) the first time it is needed, so a slow source such as
        the imported card index is opened only for a name the deck does not hold.
    counted : bool
        Items may start with a count (``2 Swamp``, ``2x Swamp``); the count is kept in the
        item and ignored when the name is looked up.

    Returns
    -------
    list of str
        The items in order, stripped, the pieces of one name joined by ``", "``; blank
        pieces are dropped.

    Examples
    --------
    >>> from explore_sim.cards import Catalog
    >>> split_card_names("Forest, Nicanzil, Current Conductor, 2 Island", Catalog.builtin(),
    ...                  counted=True)
    ['Forest', 'Nicanzil, Current Conductor', '2 Island']
    """
    sources = list(names)
    items: list[str] = []
    for line in text.splitlines():
        pieces = [piece.strip() for piece in line.split(",")]
        pieces = [piece for piece in pieces if piece]
        start = 0
        while start < len(pieces):
            taken = _longest_name(pieces, start, sources, counted)
            items.append(", ".join(pieces[start: start + taken]))
            start += taken
    return items


def joined_card_lists(lists: Iterable[str] | None) -> str:
    """Several typed lists (a repeated option, the lines of a text area) as one list text.

    Parameters
    ----------
    lists : iterable of str, or None
        Each a list as :func:`split_card_names` reads it.

    Returns
    -------
    str
        The lists one a line ("" for none), so no name runs into the next list's.
    """
    return "\n".join(lists or ())


def _longest_name(pieces: list[str], start: int, sources: list, counted: bool) -> int:
    """How many pieces from ``start`` make the longest known name (1 when none does)."""
    runs = []  # the candidate names, shortest first, no longer than a card name can be
    for end in range(start + 1, min(len(pieces), start + MAX_NAME_PIECES) + 1):
        item = ", ".join(pieces[start:end])
        if counted:
            match = COUNT_AND_NAME.match(item)
            item = match["name"] if match else item
        if len(item) > MAX_NAME_LENGTH:
            break
        runs.append(item)
    if len(runs) <= 1:
        return 1
    for number in range(len(sources)):
        if not hasattr(sources[number], "find"):  # opened the first time it is needed
            sources[number] = sources[number]()
        # The first source also settles a lone piece: a card of the deck is never merged
        # with its neighbours into a name only a later source knows.
        for taken in range(len(runs), 0 if number == 0 else 1, -1):
            if sources[number].find(runs[taken - 1]) is not None:
                return taken
    return 1


def card_counts(cards: str | Iterable[str] | Mapping[str, int], label: str,
                *names: Names) -> list[tuple[str, int]]:
    """A list of cards with their copies, as the command line, Python and the web page take
    it: ``"Forest, 2 Swamp"`` (names a line or separated by commas, a name's own commas kept:
    :func:`split_card_names` over ``names``), a list of such items or a ``{name: copies}``
    dict.

    Parameters
    ----------
    cards : str, iterable of str or mapping of str to int
    label : str
        The option, as errors name it.
    *names : Catalog, CardSources or callable returning one
        Where names are known (:func:`split_card_names`).

    Returns
    -------
    list of (str, int)
        Each name as typed, with its copies (1 to :data:`MAX_COPIES`).

    Raises
    ------
    OptionError
        An item that is not a name, or copies out of range.
    """
    if isinstance(cards, Mapping):
        pairs = list(cards.items())
    else:
        if isinstance(cards, str):
            cards = split_card_names(cards, *names, counted=True)
        elif not isinstance(cards, Iterable):
            raise OptionError(f"{label}: expected card names, got {clip(repr(cards))}")
        pairs = []
        for item in cards:
            if not isinstance(item, str):
                raise OptionError(f"{label}: expected card names, got {clip(repr(item))}")
            item = item.strip()
            if not item:
                continue
            match = COUNT_AND_NAME.match(item)
            pairs.append((match["name"].strip(), int(match["count"])) if match else (item, 1))
    for name, count in pairs:
        if not isinstance(name, str) or isinstance(count, bool) or \
                not isinstance(count, numbers.Integral) or not 1 <= int(count) <= MAX_COPIES:
            raise OptionError(f"{label}: {clip(repr(name))}: copies must be 1 to {MAX_COPIES}, "
                              f"got {clip(repr(count))}")
    return [(name, int(count)) for name, count in pairs]
