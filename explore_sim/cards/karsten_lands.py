"""How many lands Frank Karsten's 2022 regression gives a deck.

Frank Karsten, "How Many Lands Do You Need in Your Deck? An Updated Analysis"
(ChannelFireball, 2022), fits the land counts of 95,143 successful 60-card tournament decks:

- 60 cards: ``19.59 + 1.90 x average mana value - 0.28 x cheap card draw or mana ramp spells
  + 0.27 x companion`` (R² 0.395, root mean square error 2.75 lands);
- 99 cards (Commander): ``31.42 + 3.13 x average mana value - 0.28 x the same spells``, his
  port of the 60-card formula (x 99/60, the commander counted as a companion, less 1.35
  lands for the free mulligan and the draw on turn 1), which he calls a back-of-the-envelope
  estimate;
- other sizes: he published no regression; he ports the 60-card formula to 80 cards by
  scaling every term but the cheap spells by 80/60, and this module ports it the same way
  to any size (40 cards: ``40/60 x (19.59 + 1.90 x average mana value) - 0.28 x cheap
  spells``, 16.9 lands at an average mana value of 3, the usual 17).

The counts are his "number of lands, counting MDFCs partially": a spell // land modal
double-faced card counts 0.38 land (his figure for non-mythic ones; 0.74 for mythic ones,
which the card data cannot tell apart). How each quantity is read from the card data:

- *average mana value*: of the main deck's nonland cards (a spell // land card by its front
  face), a card with X counted with X = 0; a Commander deck's commander is left out (the
  formula already counts it);
- *cheap card draw or mana ramp spells*: nonland cards of mana value 2 or less that draw a
  card (the ``draw`` keyword), have a mana ability (mana creatures and mana rocks), or search
  the library for a land. Explore is neither card draw nor ramp by his definition (Oracle
  text with "draw", or a noncreature spell that looks at the library and puts a card into
  the hand), so explorers and Map makers are not counted: the ``lands`` analysis measures
  what they are worth instead.
"""

from __future__ import annotations

import dataclasses

from .card import Card
from .decklist import Deck

__all__ = ["KARSTEN_LANDS_SOURCE", "MDFC_LAND", "LandRegression", "karsten_land_count",
           "cheap_draw_or_ramp"]

#: Where the regression comes from.
KARSTEN_LANDS_SOURCE = ('Frank Karsten, "How Many Lands Do You Need in Your Deck? An Updated '
                        'Analysis" (2022)')
#: What a spell // land modal double-faced card counts as (his non-mythic figure).
MDFC_LAND = 0.38


@dataclasses.dataclass(frozen=True)
class LandRegression:
    """Karsten's regression applied to one deck.

    Attributes
    ----------
    lands : float
        The regression's number of lands (MDFCs counted as :data:`MDFC_LAND`).
    deck_lands : float
        The deck's own count, counted the same way: its lands + 0.38 x its MDFCs.
    average_mana_value : float
        Of the nonland cards.
    cheap : tuple of str
        The cheap card draw or mana ramp spells, one name per copy.
    mdfcs : int
        Spell // land cards in the main deck.
    formula : str
        The formula with the deck's numbers, such as ``19.59 + 1.90 x 2.95 - 0.28 x 4``.
    rule : str
        Which formula, and how it fits this deck's size.
    """

    lands: float
    deck_lands: float
    average_mana_value: float
    cheap: tuple[str, ...]
    mdfcs: int
    formula: str
    rule: str


def cheap_draw_or_ramp(card: Card) -> bool:
    """Whether a card is a cheap card draw or mana ramp spell in Karsten's regression.

    Parameters
    ----------
    card : Card

    Returns
    -------
    bool
        A nonland card of mana value 2 or less that draws a card, has a mana ability (a
        mana creature or a mana rock) or searches for a land.
    """
    if card.is_land or _mana_value(card) > 2:
        return False
    return card.draws > 0 or card.is_mana_source or bool(card.fetch)


def karsten_land_count(deck: Deck) -> LandRegression:
    """The number of lands Karsten's 2022 regression gives ``deck``.

    Parameters
    ----------
    deck : Deck

    Returns
    -------
    LandRegression
    """
    spells = [(card, n) for card, n in deck.main if not card.is_land]
    count = sum(n for _, n in spells)
    average = sum(_mana_value(card) * n for card, n in spells) / count if count else 0.0
    cheap = tuple(card.name for card, n in spells if cheap_draw_or_ramp(card) for _ in range(n))
    mdfcs = deck.land_like_count
    if deck.commander:
        lands = 31.42 + 3.13 * average - 0.28 * len(cheap)
        formula = f"31.42 + 3.13 x {average:.2f} - 0.28 x {len(cheap)}"
        rule = ("his 99-card formula: the 60-card one x 99/60, the commander counted as a "
                "companion, less 1.35 lands for the free mulligan and the draw on turn 1")
    else:
        companion = 0.27 if deck.companion else 0.0
        scale = deck.size / 60
        lands = scale * (19.59 + 1.90 * average + companion) - 0.28 * len(cheap)
        plus = " + 0.27" if companion else ""
        if deck.size == 60:
            formula = f"19.59 + 1.90 x {average:.2f}{plus} - 0.28 x {len(cheap)}"
            rule = "his 60-card regression"
        else:
            formula = (f"{deck.size}/60 x (19.59 + 1.90 x {average:.2f}{plus}) - 0.28 x "
                       f"{len(cheap)}")
            rule = (f"his 60-card regression scaled by {deck.size}/60 but for the cheap "
                    f"spells, as he ports it to 80 cards (he published none for "
                    f"{deck.size}-card decks)")
    return LandRegression(lands=lands, deck_lands=deck.land_count + MDFC_LAND * mdfcs,
                          average_mana_value=average, cheap=cheap, mdfcs=mdfcs,
                          formula=formula, rule=rule)


def _mana_value(card: Card) -> int:
    assert card.mana_value is not None  # Card sets it from the cost when not given
    return card.mana_value
