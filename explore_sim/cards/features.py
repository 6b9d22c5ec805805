"""Per-card feature arrays: what the engine reads instead of :class:`~explore_sim.cards.card.Card`.

The engine never looks at :class:`Card` objects while it runs. It reads a
:class:`FeatureTable`: one small NumPy array per feature, indexed by a deck-local card id,
where id 0 is reserved for :data:`EMPTY` (the padding read past the bottom of a library).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import numpy as np

from .card import FETCH_WHEN, FETCHES, SACRIFICE_FOR_MANA, Card, mana_value_of
from .costs import ANY_COLOUR, B, G, R, U, W

__all__ = ["EMPTY", "FeatureTable", "TAPPED_RULES", "LAND_ENTERS_CODES", "FETCH_CODES",
           "FETCH_WHEN_CODES", "FETCH_BASIC", "pip_demand"]

#: Card id of "no card": what a reveal or a draw finds past the bottom of the library.
EMPTY = 0


#: Codes of :attr:`FeatureTable.tapped_rule` (how a land enters).
TAPPED_RULES = ("", "yes", "unless", "fast", "slow", "life")
#: Codes of :attr:`FeatureTable.land_enters`.
LAND_ENTERS_CODES = ("", "scry", "bounce")
#: Codes of :attr:`FeatureTable.fetch` and :attr:`FeatureTable.fetch_when`.
FETCH_CODES = ("", *FETCHES)
FETCH_WHEN_CODES = ("", *FETCH_WHEN)
#: The searches that put a land onto the battlefield (a spell's or a permanent's: ramp).
_ONTO_BATTLEFIELD = frozenset({"basic_tapped", "basic_passage", "basic_tapped_and_hand",
                               "two_basics_tapped", "land_untapped", "land_tapped"})
_TYPE_BITS = {"plains": W, "island": U, "swamp": B, "mountain": R, "forest": G}


@dataclasses.dataclass(frozen=True, eq=False)
class FeatureTable:
    """Per-card feature arrays, indexed by deck-local card id (id 0 is ``EMPTY``).

    Every array has ``n_cards + 1`` rows and is read-only; entry 0 describes no card (not a
    land, not a nonland, mana value 0). The deck's cards have ids ``1 .. n_deck``; after them
    come the *land faces* of modal double-faced cards (the back face of a spell // land card
    or of a Pathway), which exist only on the battlefield: playing such a card's land face
    puts its face id there.

    Attributes
    ----------
    cards : tuple of Card
        ``cards[i - 1]`` is the card with id ``i`` (commanders after the deck's cards, land
        faces last).
    n_deck : int
        Ids ``1 .. n_deck`` are the deck's cards, commanders included.
    commander_ids : ndarray of intp
        The commanders' ids (they start in the command zone, not in the library).
    is_card, is_land, is_nonland, is_creature, is_land_like, is_permanent : ndarray of bool
    is_merfolk, has_haste, enters_tapped : ndarray of bool
    mana_value, power, toughness, explores, maps : ndarray of int16
    draws : ndarray of int16
        Cards drawn as the spell resolves or the permanent enters.
    face_of, land_face : ndarray of int16
        For a land face, the id of its card; for a card with a land face, the face's id
        (0 where there is none).
    unit_classes : tuple of (int, bool)
        The distinct kinds of mana the deck's sources make: a colour mask
        (:mod:`explore_sim.cards.costs`) and whether coloured mana of that kind costs life.
    source_units : ndarray, shape (n_cards + 1, n_classes), int8
        Units of each class one activation of the card's mana ability makes.
    source_cost : ndarray of int8
        Generic mana the mana ability needs (a Signet-style filter: 1).
    is_source, is_basic : ndarray of bool
    ramps : ndarray of bool
        A mana source, or a spell that puts a land onto the battlefield (Rampant Growth,
        Cultivate): of two spells that cost the same, cast first, bottomed and discarded
        last.
    mana_once : ndarray of bool
        A one-shot mana source: its mana ability sacrifices it (Lotus Petal).
    tapped_rule, tapped_arg : ndarray of int8
        How the land enters (:data:`TAPPED_RULES`) and the rule's argument: the basic land
        types (colour bits) of a check land, the life of ``life``.
    basic_types : ndarray of int8
        The card's basic land types as colour bits (Forest: G).
    land_enters, fetch, fetch_when : ndarray of int8
        Codes of :data:`LAND_ENTERS_CODES`, :data:`FETCH_CODES`, :data:`FETCH_WHEN_CODES`.
    fetch_types : ndarray of int8
        What a typed search finds (:data:`~explore_sim.cards.card.TYPED_FETCHES`): a land
        card with one of these basic land types (colour bits, as ``basic_types``), or a
        basic land card (:data:`FETCH_BASIC`); 0 for other cards.
    pips : ndarray, shape (n_cards + 1, 5), int8
        Pips of each colour (W, U, B, R, G) in the card's first way to pay its cost (a
        hybrid pip counts for each of its colours): what the card asks of your lands.
    """

    cards: tuple[Card, ...]
    n_deck: int
    commander_ids: np.ndarray
    is_card: np.ndarray
    is_land: np.ndarray
    is_nonland: np.ndarray
    is_creature: np.ndarray
    is_land_like: np.ndarray
    is_permanent: np.ndarray
    is_merfolk: np.ndarray
    has_haste: np.ndarray
    enters_tapped: np.ndarray
    mana_value: np.ndarray
    power: np.ndarray
    toughness: np.ndarray
    explores: np.ndarray
    maps: np.ndarray
    draws: np.ndarray
    face_of: np.ndarray
    land_face: np.ndarray
    unit_classes: tuple[tuple[int, bool], ...]
    source_units: np.ndarray
    source_cost: np.ndarray
    is_source: np.ndarray
    ramps: np.ndarray
    is_basic: np.ndarray
    mana_once: np.ndarray
    tapped_rule: np.ndarray
    tapped_arg: np.ndarray
    basic_types: np.ndarray
    land_enters: np.ndarray
    fetch: np.ndarray
    fetch_types: np.ndarray
    fetch_when: np.ndarray
    pips: np.ndarray

    @classmethod
    def from_cards(cls, cards: Iterable[Card], commander_colours: int = 0,
                   commanders: Iterable[Card] = ()) -> FeatureTable:
        """Build the table.

        Parameters
        ----------
        cards : iterable of Card
            The deck's distinct cards; the i-th gets id ``i + 1`` (id 0 is ``EMPTY``); the
            land faces of modal double-faced cards get the ids after them.
        commander_colours : int
            A colour mask: what "one mana of any color in your commander's color identity"
            makes; without a commander it makes nothing.
        commanders : iterable of Card
            Commanders: they get the ids after ``cards``.

        Returns
        -------
        FeatureTable
        """
        deck = tuple(cards)
        commanders = tuple(c for c in commanders if c not in deck)
        deck = deck + commanders
        faces = tuple(face for face in (card.land_face for card in deck) if face is not None)
        cards = deck + faces

        def column(values: list, dtype: type) -> np.ndarray:
            array: np.ndarray = np.array([0, *values], dtype=dtype)
            array.flags.writeable = False
            return array

        def table(rows: list[list[int]], width: int, dtype: type) -> np.ndarray:
            array: np.ndarray = np.zeros((len(rows) + 1, width), dtype=dtype)
            for i, row in enumerate(rows, start=1):
                array[i, : len(row)] = row
            array.flags.writeable = False
            return array

        units = [card.mana_units(commander_colours) for card in cards]
        classes = sorted({(unit, bool(card.mana_life) and bool(unit & ANY_COLOUR))
                          for card, card_units in zip(cards, units) for unit in card_units},
                         key=lambda c: (bin(c[0]).count("1"), c[1], c[0]))
        index = {cls_: i for i, cls_ in enumerate(classes)}
        source_rows = []
        for card, card_units in zip(cards, units):
            row = [0] * len(classes)
            for unit in card_units:
                row[index[(unit, bool(card.mana_life) and bool(unit & ANY_COLOUR))]] += 1
            source_rows.append(row)
        face_index = {face.name: len(deck) + 1 + i for i, face in enumerate(faces)}
        land_face = [face_index.get(card.land_face.name, 0) if card.land_face else 0
                     for card in cards]
        face_of = [0] * len(deck) + [deck.index(next(c for c in deck if c.land_face == face)) + 1
                                     for face in faces]
        rules = [_tapped_rule(card) for card in cards]
        is_land = [c.is_land for c in cards]
        commander_ids = np.arange(len(deck) - len(commanders) + 1, len(deck) + 1, dtype=np.intp)
        commander_ids.flags.writeable = False
        return cls(
            cards=cards,
            n_deck=len(deck),
            commander_ids=commander_ids,
            is_card=column([True] * len(cards), bool),
            is_land=column(is_land, bool),
            is_nonland=column([not land for land in is_land], bool),
            is_creature=column([c.is_creature for c in cards], bool),
            is_land_like=column([c.is_land_like for c in cards], bool),
            is_permanent=column([c.is_permanent for c in cards], bool),
            is_merfolk=column(["merfolk" in c.subtypes for c in cards], bool),
            has_haste=column([c.has_keyword("haste") for c in cards], bool),
            enters_tapped=column([bool(c.enters_tapped) for c in cards], bool),
            mana_value=column([c.mana_value for c in cards], np.int16),
            power=column([c.power or 0 for c in cards], np.int16),
            toughness=column([c.toughness or 0 for c in cards], np.int16),
            explores=column([c.explores for c in cards], np.int16),
            maps=column([c.maps for c in cards], np.int16),
            draws=column([c.draws for c in cards], np.int16),
            face_of=column(face_of, np.int16),
            land_face=column(land_face, np.int16),
            unit_classes=tuple(classes),
            source_units=table(source_rows, len(classes), np.int8),
            source_cost=column([mana_value_of(c.mana_ability_cost) for c in cards], np.int8),
            is_source=column([bool(u) for u in units], bool),
            ramps=column([bool(u) or (not c.is_land and c.fetch_kind in _ONTO_BATTLEFIELD)
                          for c, u in zip(cards, units)], bool),
            mana_once=column([bool(u) and c.has_keyword(SACRIFICE_FOR_MANA)
                              for c, u in zip(cards, units)], bool),
            is_basic=column(["basic" in c.type_line.split("—")[0].casefold().split()
                             and c.is_land for c in cards], bool),
            tapped_rule=column([rule for rule, _ in rules], np.int8),
            tapped_arg=column([arg for _, arg in rules], np.int8),
            basic_types=column([_types_mask(c.subtypes) for c in cards], np.int8),
            land_enters=column([LAND_ENTERS_CODES.index(c.land_enters) for c in cards], np.int8),
            fetch=column([FETCH_CODES.index(c.fetch_kind) for c in cards], np.int8),
            fetch_types=column([_fetch_types_mask(c.fetch_types) for c in cards], np.int8),
            fetch_when=column([FETCH_WHEN_CODES.index(c.fetch_when) for c in cards], np.int8),
            pips=table([pip_demand(c) for c in cards], 5, np.int8),
        )

    def id_of(self, card: Card) -> int:
        """The deck-local id of a card.

        Parameters
        ----------
        card : Card

        Returns
        -------
        int
        """
        return self.cards.index(card) + 1

    def __len__(self) -> int:
        return len(self.cards) + 1


def _types_mask(subtypes: frozenset[str]) -> int:
    return sum(bit for name, bit in _TYPE_BITS.items() if name in subtypes)


#: The bit of :attr:`FeatureTable.fetch_types` for "a basic land card".
FETCH_BASIC = 32


def _fetch_types_mask(types: tuple[str, ...]) -> int:
    """The land types a typed search finds as colour bits, :data:`FETCH_BASIC` for basic."""
    return sum(FETCH_BASIC if name == "basic" else _TYPE_BITS[name] for name in types)


def _tapped_rule(card: Card) -> tuple[int, int]:
    """(code in TAPPED_RULES, argument) of a card's ``enters_tapped``."""
    rule = card.enters_tapped
    if not rule:
        return 0, 0
    if rule == "shock":
        return TAPPED_RULES.index("life"), 2
    kind, _, arg = rule.partition(":")
    if kind == "unless":
        return TAPPED_RULES.index("unless"), sum(_TYPE_BITS[t] for t in arg.split("|"))
    if kind == "life":
        return TAPPED_RULES.index("life"), int(arg)
    return TAPPED_RULES.index(kind), 0


def pip_demand(card: Card) -> list[int]:
    """Pips of each colour in the card's first cost mode (hybrids count for each colour)."""
    if card.is_land or not card.mana_cost:
        return [0] * 5
    mode = card.cost_modes[0]
    return [sum(1 for pip in mode.pips if pip & bit) for bit in (W, U, B, R, G)]
