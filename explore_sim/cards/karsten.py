"""Coloured mana sources: how many a deck has of each colour, and how many Frank Karsten
recommends for casting a card on curve.

The recommendations are the table of Frank Karsten, "How Many Sources Do You Need to
Consistently Cast Your Spells? A 2022 Update", kept as data in
``explore_sim/cards/data/karsten_2022.csv`` (one row per cost, one column per deck size).
How a cost is matched to a row, how gold cards are counted and which deck-size column is
read are written down in ``docs/guide/curve.md``:

- the colour's pips are the pips of exactly that one colour; every other mana of the cost
  (generic, other colours, hybrid, ``{C}``) counts as generic;
- a cost not in the table reads the row with the same pips (at most three) and the most
  generic mana not above the cost's (5C reads 4C, 3CC reads 2CC, 2CCC reads 1CCC);
- a gold card (single-colour pips of two or more colours) needs one more source of each of
  its colours;
- the deck-size column is the nearest of 40, 60, 80 and 99 cards (the larger on a tie).
"""

from __future__ import annotations

import csv
import functools
from importlib import resources

from .card import Card
from .costs import ANY_COLOUR, COLOURS, CostMode
from .decklist import Deck

__all__ = ["KARSTEN_SOURCE", "KARSTEN_DECK_SIZES", "karsten_table", "karsten_column",
           "karsten_column_text", "karsten_key", "karsten_row", "karsten_sources",
           "coloured_sources", "cost_colours"]

#: Where the recommendations come from.
KARSTEN_SOURCE = ('Frank Karsten, "How Many Sources Do You Need to Consistently Cast Your '
                  'Spells? A 2022 Update"')
#: The deck sizes of the table's columns.
KARSTEN_DECK_SIZES = (40, 60, 80, 99)


@functools.cache
def karsten_table() -> dict[tuple[int, int], dict[int, int]]:
    """The recommendations, read from the package's data.

    Returns
    -------
    dict of (int, int) to dict of int to int
        ``{(generic, pips): {deck size: sources}}``: 1CC is ``(1, 2)``.
    """
    text = (resources.files("explore_sim.cards") / "data" / "karsten_2022.csv").read_text(
        encoding="utf-8")
    rows = csv.DictReader(line for line in text.splitlines() if not line.startswith("#"))
    return {(int(row["generic"]), int(row["pips"])):
            {size: int(row[f"deck_{size}"]) for size in KARSTEN_DECK_SIZES} for row in rows}


def karsten_column(deck_size: int) -> int:
    """The table's deck size nearest ``deck_size`` (the larger on a tie).

    Parameters
    ----------
    deck_size : int

    Returns
    -------
    int
        One of :data:`KARSTEN_DECK_SIZES`.
    """
    return min(KARSTEN_DECK_SIZES, key=lambda size: (abs(size - deck_size), -size))


def karsten_column_text(deck_size: int) -> str:
    """Which column of the table a deck's recommendations come from, for a table's header.

    Parameters
    ----------
    deck_size : int

    Returns
    -------
    str
        ``"60-card column"``, or for a deck of another size ``"60-card column, the nearest
        to this 56-card deck"``.

    Examples
    --------
    >>> karsten_column_text(99)
    '99-card column'
    >>> karsten_column_text(56)
    '60-card column, the nearest to this 56-card deck'
    """
    column = karsten_column(deck_size)
    nearest = "" if column == deck_size else f", the nearest to this {deck_size}-card deck"
    return f"{column}-card column{nearest}"


def cost_colours(mode: CostMode) -> str:
    """The colours of a cost's single-colour pips, in WUBRG order.

    Parameters
    ----------
    mode : CostMode

    Returns
    -------
    str
        Such as ``"GU"`` -> ``"UG"``; empty for a colourless or hybrid-only cost.
    """
    return "".join(letter for bit, letter in enumerate(COLOURS[:5])
                   if any(pip == 1 << bit for pip in mode.pips))


def karsten_key(mode: CostMode, colour: str) -> tuple[int, int]:
    """The table row that a cost reads for one of its colours.

    Parameters
    ----------
    mode : CostMode
    colour : str
        One letter of ``WUBRG`` among :func:`cost_colours`.

    Returns
    -------
    (int, int)
        ``(generic, pips)`` of a row of :func:`karsten_table`: the pips of ``colour`` (at
        most three) and the rest of the cost as generic mana, lowered to the nearest row.
    """
    bit = 1 << COLOURS.index(colour)
    pips = sum(1 for pip in mode.pips if pip == bit)
    if pips == 0:
        raise ValueError(f"the cost {mode.text()} has no {colour} pip")
    generic = mode.mana - pips
    pips = min(pips, 3)
    table = karsten_table()
    while (generic, pips) not in table:
        generic -= 1
    return generic, pips


def karsten_row(mode: CostMode, colour: str) -> str:
    """The name of the table row a cost reads for one of its colours, as the table writes
    it, with ``+1`` for a gold card (one source more of each colour).

    Parameters
    ----------
    mode : CostMode
    colour : str
        One letter of ``WUBRG`` among :func:`cost_colours`.

    Returns
    -------
    str
        Such as ``"2CC"`` for {3}{G}{G} (read on the {2}{G}{G} row), ``"2C+1"`` for the B
        (and the G) of {1}{B}{G}.

    Examples
    --------
    >>> from explore_sim.cards.costs import cost_modes
    >>> karsten_row(cost_modes("{3}{G}{G}")[0], "G")
    '2CC'
    >>> karsten_row(cost_modes("{1}{B}{G}")[0], "B")
    '2C+1'
    """
    generic, pips = karsten_key(mode, colour)
    gold = len(cost_colours(mode)) > 1
    return f"{generic or ''}{'C' * pips}{'+1' if gold else ''}"


def karsten_sources(mode: CostMode, colour: str, deck_size: int) -> int:
    """Sources of ``colour`` Karsten recommends for casting a card of this cost on curve.

    Parameters
    ----------
    mode : CostMode
    colour : str
        One letter of ``WUBRG`` among :func:`cost_colours`.
    deck_size : int
        Cards in the deck (the nearest column is read).

    Returns
    -------
    int
        The table's number, one more for a gold card (two or more colours).
    """
    gold = len(cost_colours(mode)) > 1
    return karsten_table()[karsten_key(mode, colour)][karsten_column(deck_size)] + int(gold)


def coloured_sources(deck: Deck, turn: int | None = None) -> dict[str, int]:
    """Cards of the main deck that can make each colour: lands and other mana sources.

    A card counts once for each colour one of its mana abilities (or its land face's) can
    make; a fetch land or a ramp spell makes no mana itself and is not counted.

    Parameters
    ----------
    deck : Deck
    turn : int, optional
        The sources for casting a card on this turn: a mana source that is not a land (a
        mana creature, a mana rock) counts only when its mana value is below ``turn`` (cast
        on an earlier turn, its mana is there; so Llanowar Elves is no source for a one-drop
        nor for itself). Default: every source.

    Returns
    -------
    dict of str to int
        ``{letter: copies}`` for each of ``WUBRG``.
    """
    commander = 0
    for card, _ in deck.commander:
        commander |= card.identity
    counts = dict.fromkeys(COLOURS[:5], 0)
    for card, copies in deck.main:
        nonland = not card.is_land and card.land_face is None
        if turn is not None and nonland and (card.mana_value or 0) >= turn:
            continue  # cast on this turn at the earliest: no mana for a card cast then
        mask = _makes(card, commander)
        for bit, letter in enumerate(COLOURS[:5]):
            if mask & (1 << bit):
                counts[letter] += copies
    return counts


def _makes(card: Card, commander: int) -> int:
    """The colours any mana of the card (or of its land face) can be, as a mask."""
    mask = 0
    for face in (card, card.land_face):
        if face is not None:
            for unit in face.mana_units(commander):
                mask |= unit
    return mask & ANY_COLOUR
