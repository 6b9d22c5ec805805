"""Commander decks read from a decklist: which card is the commander, and what is told.

- **A list without sections** (no header line such as ``Commander`` or ``Deck``, no
  sideboard) of 99 to 101 cards, singleton apart from basic lands, holding a card that can
  be a commander (a legendary creature, or a card whose text says it can be your
  commander: the ``can_be_commander`` keyword) is a Commander deck, as deckbuilding sites
  export one. Its commander is the card of the first card line if it can be one, else the
  only card that can be; a :class:`~explore_sim.errors.DeckWarning` names it. With several
  candidates and none on the first line the list is refused with one line saying how to
  mark the commander. A ``Deck`` line above the cards keeps the list a deck without a
  commander.
- **Such a list with duplicates** (two copies of a card that is not a basic land), its first
  line a card that can be a commander, is played without a commander, and a
  :class:`~explore_sim.errors.DeckWarning` names the duplicates.
- **A commander also listed in the main deck** is refused, naming both lines: the
  commander starts in the command zone (CR 903.6), never in the library.
- **A Commander deck whose size is not 100** (the commander included, CR 903.5a) is told
  once, with a :class:`~explore_sim.errors.DeckWarning`; it is played as it is.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Protocol

from ..errors import DeckError, DeckWarning, clip
from .card import CAN_BE_COMMANDER, Card, normalize_name
from .costs import ANY_COLOUR, basic_land_colours, mask_text, parse_produces
from .decklists.limits import Entry
from .decklists.lines import section_of

__all__ = ["COMMANDER_DECK_SIZE", "COMMANDER_LIST_SIZES",
           "can_be_commander", "is_basic_land", "commander_sections", "check_commanders"]

#: Cards in a Commander deck, its commander included (CR 903.5a).
COMMANDER_DECK_SIZE = 100
#: Sizes of a list without sections read as a Commander deck: 100, or one card off.
COMMANDER_LIST_SIZES = range(COMMANDER_DECK_SIZE - 1, COMMANDER_DECK_SIZE + 2)
#: The fewest cards a deck holds in any format (Limited); a smaller main deck is told once.
SMALLEST_DECK = 40
#: Candidates named in the error of a list whose commander is not marked.
_MAX_NAMED = 6
#: Cards outside the commander's colour identity named in its warning (each is a fix to make).
_MAX_OFF_IDENTITY = 40

Sections = dict[str, tuple[tuple[Card, int], ...]]


class _Names(Protocol):
    def find(self, name: str) -> Card | None: ...


def can_be_commander(card: Card) -> bool:
    """Whether ``card`` can be a commander: a legendary creature (its front face), or a card
    with the :data:`CAN_BE_COMMANDER` keyword (CR 903.3).

    Parameters
    ----------
    card : Card

    Returns
    -------
    bool
    """
    types = card.type_line.split("//")[0].split("—")[0].casefold().split()
    return ("legendary" in types and "creature" in types) or card.has_keyword(CAN_BE_COMMANDER)


def is_basic_land(card: Card) -> bool:
    """Whether ``card`` is a basic land (any number of copies is allowed).

    Parameters
    ----------
    card : Card

    Returns
    -------
    bool
    """
    return card.is_land and "basic" in card.type_line.split("//")[0].split("—")[0].casefold()


def commander_sections(sections: Sections, entries: Mapping[str, Sequence[Entry]],
                       catalog: _Names, text: str, source: str) -> Sections:
    """The deck's sections with its commander where it belongs.

    Parameters
    ----------
    sections : dict of str to tuple of (Card, int)
        The resolved cards of each section (``main``, ``commander``, ...).
    entries : mapping of str to sequence of (int, str, int)
        The card lines of each section, as read: ``(line number, name, copies)``.
    catalog : Catalog or CardSources
        Where the names were looked up.
    text : str
        The decklist (its header lines say whether it marks its sections).
    source : str
        Names the list in messages.

    Returns
    -------
    dict of str to tuple of (Card, int)
        ``sections``, or a copy with the detected commander moved from ``main`` to
        ``commander``.

    Raises
    ------
    DeckError
        A commander also listed in the main deck (both lines named), or a list without
        sections whose commander cannot be told.
    """
    main, commanders = sections.get("main", ()), sections.get("commander", ())
    if commanders:
        _refuse_commander_in_deck(main, commanders, entries, catalog, source)
    elif _unmarked(sections, text) and _singleton_of_commander_size(main):
        found = _detect(main, entries.get("main", ()), catalog, source)
        if found is not None:
            commander, line, why = found
            commanders = ((commander, 1),)
            main = tuple((card, count - (card == commander)) for card, count in main
                         if card != commander or count > 1)
            sections = {**sections, "main": main, "commander": commanders}
            warnings.warn(
                f"{source}: read as a Commander deck (a singleton list of "
                f"{_size(main) + 1} cards without sections): {clip(commander.name)!r} "
                f"(line {line}, {why}) is the commander; write a 'Deck' line above the "
                "cards to play the list without a commander", DeckWarning, stacklevel=3)
    elif _unmarked(sections, text) and _size(main) in COMMANDER_LIST_SIZES:
        _tell_not_singleton(main, entries.get("main", ()), catalog, source)
    if commanders:
        total = _size(main) + _size(commanders)
        if total != COMMANDER_DECK_SIZE:
            held = f"{_size(commanders)} commander{'s' if _size(commanders) > 1 else ''}"
            warnings.warn(
                f"{source}: a Commander deck has {COMMANDER_DECK_SIZE} cards with its "
                f"commander; this one has {total} ({_size(main)} + {held}); it is played "
                "as it is", DeckWarning, stacklevel=3)
        _tell_off_identity(main, commanders, entries.get("main", ()), catalog, source)
    elif 0 < _size(main) < SMALLEST_DECK:
        warnings.warn(
            f"{source}: {_size(main)} card{'s' if _size(main) > 1 else ''}, fewer than any "
            f"format's deck holds ({SMALLEST_DECK} "
            "in Limited, 60 constructed); it is played as it is, so every answer is of this "
            "deck (a list pasted in part?)", DeckWarning, stacklevel=3)
    return sections


def deck_identity(card: Card) -> int:
    """The colours a commander's colour identity must hold for ``card`` to be in its deck
    (CR 903.4, 903.5d): the card's colour identity (``colour_identity``, else its cost's
    pips), the colours its mana ability names (``produces`` letters; "any colour" and "your
    commander's colours" name none), and the colours of its basic land types.

    Parameters
    ----------
    card : Card

    Returns
    -------
    int
        A colour mask (W U B R G bits).
    """
    mask = card.identity
    for produces in (card.produces, card.back_produces):
        key = produces.strip().casefold()
        if key and key not in {"any", "any color", "any colour", "commander", "none"}:
            for unit in parse_produces(produces):
                mask |= unit & ANY_COLOUR
    return mask | basic_land_colours(card.subtypes)


def _tell_off_identity(main: Sequence[tuple[Card, int]],
                       commanders: Sequence[tuple[Card, int]], lines: Sequence[Entry],
                       catalog: _Names, source: str) -> None:
    """A DeckWarning naming the main-deck cards outside the commanders' colour identity
    (with their lines): a Commander deck may not hold them; they are played as listed."""
    identity = 0
    for card, _ in commanders:
        identity |= card.identity
    line_of: dict[str, int] = {}
    for number, name, _ in lines:
        found = catalog.find(name)
        if found is not None:
            line_of.setdefault(found.name, number)
    outside = [card for card, _ in main if deck_identity(card) & ~identity & ANY_COLOUR]
    if not outside:
        return
    named = _some([(f"line {line_of[card.name]} " if card.name in line_of else "")
                   + f"{clip(card.name, 40)!r} ({mask_text(deck_identity(card) & ~identity)})"
                   for card in outside], _MAX_OFF_IDENTITY)
    warnings.warn(
        f"{source}: {len(outside)} card{'s' if len(outside) > 1 else ''} outside the "
        f"commander's colour identity ({mask_text(identity) or 'colourless'}): {named}; a "
        "Commander deck may not hold them (CR 903.4, 903.5d); they are played as listed",
        DeckWarning, stacklevel=4)


def check_commanders(main: Sequence[tuple[Card, int]], commanders: Sequence[tuple[Card, int]],
                     source: str) -> None:
    """Refuse a deck whose commander is also in its main deck (a deck built in Python; a
    decklist's error names both lines).

    Parameters
    ----------
    main, commanders : sequence of (Card, int)
    source : str
        Names the deck in the message.

    Raises
    ------
    DeckError
    """
    both = sorted({card.name for card, _ in commanders} & {card.name for card, _ in main})
    if both:
        raise DeckError(f"{source}: {clip(both[0])!r} is both the commander and in the main "
                        "deck; a commander starts in the command zone, not in the library: "
                        "list it once, as the commander")


def _size(section: Sequence[tuple[Card, int]]) -> int:
    return sum(count for _, count in section)


def _unmarked(sections: Mapping[str, Sequence[tuple[Card, int]]], text: str) -> bool:
    """The list has no section header and no card outside the main deck."""
    if any(cards for name, cards in sections.items() if name != "main"):
        return False
    return not any(section_of(line) not in (None, "type") for line in text.splitlines())


def _singleton_of_commander_size(main: Sequence[tuple[Card, int]]) -> bool:
    """99 to 101 cards, one copy of each but basic lands."""
    return _size(main) in COMMANDER_LIST_SIZES and all(
        count == 1 or is_basic_land(card) for card, count in main)


def _some(names: Sequence[str], most: int = _MAX_NAMED) -> str:
    """The first ``most`` of ``names`` joined by commas, and how many more."""
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def _tell_not_singleton(main: Sequence[tuple[Card, int]], lines: Sequence[Entry],
                        catalog: _Names, source: str) -> None:
    """A list of Commander size without sections, its first card one that can be a
    commander, but with more than one copy of some card: it is played without a commander,
    and a DeckWarning says why (an accidental duplicate would otherwise pass unseen)."""
    first = catalog.find(lines[0][1]) if lines else None
    if first is None or not can_be_commander(first):
        return
    doubled = [(card, count) for card, count in main if count > 1 and not is_basic_land(card)]
    named = _some([f"{count} {clip(card.name, 40)}" for card, count in doubled])
    warnings.warn(
        f"{source}: a list of {_size(main)} cards without sections, its first line "
        f"{clip(first.name)!r}, reads like a Commander deck, but it is not singleton "
        f"({named}): it is played as a deck without a commander; list one copy of "
        "each, or put the commander under a 'Commander' line", DeckWarning, stacklevel=4)


def _detect(main: Sequence[tuple[Card, int]], lines: Sequence[Entry], catalog: _Names,
            source: str) -> tuple[Card, int | str, str] | None:
    """The commander of a list without sections, its line ("?" if no line names it) and why
    it is the one; None when no card of the list can be a commander."""
    candidates = [card for card, _ in main if can_be_commander(card)]
    if not candidates or not lines:
        return None
    first = catalog.find(lines[0][1])
    if first is not None and can_be_commander(first):
        return first, lines[0][0], "the first line"
    if len(candidates) == 1:
        only = candidates[0]
        return only, _line_of(only, lines, catalog), "the only card that can be a commander"
    named = _some([repr(clip(card.name, 40)) for card in candidates])
    raise DeckError(
        f"{source}: a singleton list of {_size(main)} cards without sections reads as a "
        f"Commander deck, but its first line is not a legendary creature and it holds "
        f"{len(candidates)} ({named}): put the commander on the first line, or under "
        "a 'Commander' line with the other cards under 'Deck' (a 'Deck' line alone plays "
        "the list without a commander)")


def _refuse_commander_in_deck(main: Sequence[tuple[Card, int]],
                              commanders: Sequence[tuple[Card, int]],
                              entries: Mapping[str, Sequence[Entry]], catalog: _Names,
                              source: str) -> None:
    """A card both the commander and in the main deck is an error naming both lines."""
    in_deck = {card for card, _ in main}
    for card, _ in commanders:
        if card in in_deck:
            commander_line = _line_of(card, entries.get("commander", ()), catalog)
            deck_line = _line_of(card, entries.get("main", ()), catalog)
            raise DeckError(
                f"{source}:{deck_line}: {clip(card.name)!r} is the commander (line "
                f"{commander_line}) and also in the deck (line {deck_line}); a commander "
                "starts in the command zone, not in the library: list it once, under "
                "'Commander'")


def _line_of(card: Card, lines: Sequence[Entry], catalog: _Names) -> int | str:
    """The first line of ``lines`` that names ``card`` ("?" if none does)."""
    key = normalize_name(card.name)
    for number, name, _ in lines:
        if normalize_name(name) == key or catalog.find(name) == card:
            return number
    return "?"
