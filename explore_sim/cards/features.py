"""Per-card feature arrays: what the engine reads instead of :class:`~explore_sim.cards.card.Card`.

The engine never looks at :class:`Card` objects while it runs. It reads a
:class:`FeatureTable`: one small NumPy array per feature, indexed by a deck-local card id,
where id 0 is reserved for :data:`EMPTY` (the padding read past the bottom of a library).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import numpy as np

from .card import Card

__all__ = ["EMPTY", "FeatureTable"]

#: Card id of "no card": what a reveal or a draw finds past the bottom of the library.
EMPTY = 0


@dataclasses.dataclass(frozen=True, eq=False)
class FeatureTable:
    """Per-card feature arrays, indexed by deck-local card id (id 0 is ``EMPTY``).

    Every array has shape ``(n_cards + 1,)`` and is read-only; entry 0 describes no card
    (not a land, not a nonland, mana value 0).

    Attributes
    ----------
    cards : tuple of Card
        ``cards[i - 1]`` is the card with id ``i``.
    is_card, is_land, is_nonland, is_creature, is_land_like, is_permanent : ndarray of bool
    is_merfolk, has_haste, enters_tapped : ndarray of bool
    mana_value, power, toughness, explores, maps : ndarray of int16
    """

    cards: tuple[Card, ...]
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

    @classmethod
    def from_cards(cls, cards: Iterable[Card]) -> FeatureTable:
        """Build the table.

        Parameters
        ----------
        cards : iterable of Card
            The deck's distinct cards; the i-th gets id ``i + 1`` (id 0 is ``EMPTY``).

        Returns
        -------
        FeatureTable
        """
        cards = tuple(cards)

        def column(values: list, dtype: type) -> np.ndarray:
            array = np.array([0, *values], dtype=dtype)
            array.flags.writeable = False
            return array

        is_land = [c.is_land for c in cards]
        return cls(
            cards=cards,
            is_card=column([True] * len(cards), bool),
            is_land=column(is_land, bool),
            is_nonland=column([not land for land in is_land], bool),
            is_creature=column([c.is_creature for c in cards], bool),
            is_land_like=column([c.is_land_like for c in cards], bool),
            is_permanent=column([c.is_permanent for c in cards], bool),
            is_merfolk=column(["merfolk" in c.subtypes for c in cards], bool),
            has_haste=column([c.has_keyword("haste") for c in cards], bool),
            enters_tapped=column([c.has_keyword("enters_tapped") for c in cards], bool),
            mana_value=column([c.mana_value for c in cards], np.int16),
            power=column([c.power or 0 for c in cards], np.int16),
            toughness=column([c.toughness or 0 for c in cards], np.int16),
            explores=column([c.explores for c in cards], np.int16),
            maps=column([c.maps for c in cards], np.int16),
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
