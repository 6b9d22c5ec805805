"""A deck at other land counts: lands traded against spells, each colour keeping its share of
the sources, every count's library lined up with the others' (common random numbers).

:func:`land_ladder` builds the variants :func:`~explore_sim.analysis.lands.lands` plays:

- *lands*: from the deck's own count, a land added is a basic land of the colour furthest
  below its share of the deck's land sources (the share a colour's sources hold among the
  deck's lands: a dual counts for both colours), and a land removed is a basic land of the
  colour furthest above it (the most numerous land when no basic is left); a deck whose
  lands make no colour adds or removes copies of its most numerous land;
- *spells*: the cards traded, the deck's declared filler (``// filler:``) when it is a spell
  of the main deck, else the cards named, else every spell of the main deck but spell //
  land cards, ramp (mana creatures, mana rocks, land searches) and the spells a goldfish game
  never casts (``target = "opponent"``, or no effect it plays: traded, each would be a free
  slot for a land); a spell removed is one of the mana value furthest above its share of the
  traded copies, a spell added one of the mana value furthest below it (the card of that mana
  value with the most copies, then the first by name), so the curve keeps its shape; a
  legendary permanent is traded only when no other card of its mana value is left (copies of
  a legend beyond the one in play are dead, so trading them would credit the lands with a
  better deck).

The counts are nested: the deck with ``L + 1`` lands is the deck with ``L`` lands with one
traded spell replaced by one land. Every variant's library is shuffled from an order that
puts the other spells first, then the traded spells, then the lands in the order of the
ladder, so neighbouring counts differ at one position of the shuffled library.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

from ..cards import Card, Catalog
from ..cards.costs import ANY_COLOUR
from ..cards.decklist import Deck
from ..cards.name_lists import split_card_names
from ..engine.abilities import held_reason
from ..errors import DeckError, OptionError, clip
from .stand_ins import named_spells

__all__ = ["LandLadder", "land_ladder", "default_counts", "traded_cards", "parse_counts",
           "copy_limit", "another_card", "ANOTHER_CARD", "ANOTHER_CARD_RULE"]

#: The end of the name of a card :func:`another_card` makes.
ANOTHER_CARD = " (another card)"
#: What a spell added past the format's copies is (:func:`another_card`), in words.
ANOTHER_CARD_RULE = ("a spell added past the copies a deck may hold (one in a Commander deck, "
                     "four in a deck of 60 cards or more) is another card like a traded "
                     "permanent, 'NAME (another card)': its cost, types, power and toughness, "
                     "none of its abilities")
_COUNT_ITEM = re.compile(r"\s*(\d{1,6})\s*(?:\.\.\s*(\d{1,6})\s*)?")
_BASIC_NAMES = ("Plains", "Island", "Swamp", "Mountain", "Forest")  # W U B R G


@dataclasses.dataclass(frozen=True)
class LandLadder:
    """A deck at several land counts, nested and lined up.

    Attributes
    ----------
    counts : list of int
        The land counts, increasing.
    decks : list of Deck
        One per count.
    card_ids : list of ndarray
        Per count, the order its library is shuffled from.
    traded : tuple of Card
        The spells traded against the lands.
    trade_rule : str
        Which spells are traded, in words.
    changes : list of str
        Per count, what changed from the deck's own (``"+2 Forest, -2 Grizzly Bears"``).
    """

    counts: list[int]
    decks: list[Deck]
    card_ids: list[np.ndarray]
    traded: tuple[Card, ...]
    trade_rule: str
    changes: list[str]


def traded_cards(deck: Deck, trade: str | Sequence[str] | None = None) -> tuple[list[Card], str]:
    """The spells traded against lands, and the rule that chose them.

    Parameters
    ----------
    deck : Deck
    trade : str or sequence of str, optional
        Cards of the main deck to trade (names; a string holds names separated by commas or
        line breaks, a name with commas read whole).
        Default: the deck's filler when it is a spell of the main deck, else every spell
        but spell // land cards, ramp (mana sources, land searches) and the spells a
        goldfish game never casts (:func:`~explore_sim.engine.abilities.held_reason`).

    Returns
    -------
    (list of Card, str)

    Raises
    ------
    DeckError
        A named card that is not a spell of the main deck.
    """
    own = Catalog(deck.cards)
    spells = [card for card, _ in deck.main if not card.is_land and not card.is_land_like
              and not card.is_mana_source and not card.fetch and not held_reason(card)]
    if trade:
        names = split_card_names(trade, own) if isinstance(trade, str) else trade
        chosen = named_spells(names, own, deck, "trade",
                              "name spells to trade against the lands")
        return chosen, f"the cards named: {', '.join(card.name for card in chosen)}"
    filler = own.find(deck.filler) if deck.filler else None
    if filler is not None and not filler.is_land:
        return [filler], f"the deck's filler, {filler.name}"
    if not spells:
        raise DeckError(f"{clip(deck.name)} has no spell to trade against lands")
    why = (f"its filler {filler.name} is a land, so " if filler is not None else
           "the deck declares no filler, so ")
    return spells, why + ("every spell but spell // land cards, ramp (mana sources, land "
                          "searches) and spells a goldfish game never casts (held for an "
                          "opponent's target, or with no effect it plays), by mana value in "
                          "proportion to its copies (the curve kept)")


def default_counts(deck: Deck, capacity: int) -> list[int]:
    """The counts swept by default: the deck's own, give or take 7% of its size (3 lands
    for 40 cards, 4 for 60, 7 for 99), within what the traded spells allow.

    Parameters
    ----------
    deck : Deck
    capacity : int
        The most lands the traded spells allow (the deck's lands + their copies).

    Returns
    -------
    list of int
    """
    own = deck.land_count
    span = max(2, round(deck.size * 0.07))
    return list(range(max(own - span, 1), min(own + span, capacity) + 1))


def _colours(card: Card, commander: int) -> int:
    """The colours a land's mana can be, as a mask."""
    mask = 0
    for unit in card.mana_units(commander):
        mask |= unit
    return mask & ANY_COLOUR


def _land_steps(deck: Deck, up: int, down: int) -> tuple[list[Card], list[Card]]:
    """The lands added one by one above the deck's count, and removed one by one below it."""
    commander = 0
    for card, _ in deck.commander:
        commander |= card.identity
    lands = Counter({card: n for card, n in deck.main if card.is_land})
    own = sum(lands.values())
    masks = {card: _colours(card, commander) for card in lands}
    shares = np.array([sum(n for card, n in lands.items() if masks[card] >> b & 1)
                       for b in range(5)], dtype=float) / own
    catalog = Catalog(deck.cards)
    basics = [catalog.find(name) or Catalog.builtin().get(name) for name in _BASIC_NAMES]
    most = max(lands, key=lambda card: (lands[card], card.name))

    def sources(held: Counter) -> np.ndarray:
        return np.array([sum(n for card, n in held.items() if _colours(card, commander) >> b & 1)
                         for b in range(5)], dtype=float)

    added, held = [], Counter(lands)
    for step in range(up):
        if shares.any():
            gap = shares * (own + step + 1) - sources(held) - (shares == 0) * 1e9
            card = basics[int(np.argmax(gap))]
        else:
            card = most
        added.append(card)
        held[card] += 1
    removed, held = [], Counter(lands)
    for step in range(down):
        present = [b for b in range(5) if held[basics[b]] > 0]
        if present and shares.any():
            surplus = sources(held) - shares * (own - step - 1)
            card = basics[max(present, key=lambda b: (surplus[b], -b))]
        else:
            card = max((c for c in held if held[c] > 0), key=lambda c: (held[c], c.name))
        removed.append(card)
        held[card] -= 1
    return added, removed


def _spell_steps(deck: Deck, traded: list[Card], up: int,
                 down: int) -> tuple[list[Card], list[Card]]:
    """The traded spells removed one by one (more lands) and added one by one (fewer): from
    the mana value furthest from its share of the traded copies, the card of it with the
    most copies (then by name), so the curve keeps its shape; a legendary permanent last."""
    counts = dict(deck.main)
    own = {card: counts.get(card, 0) for card in traded}
    total = sum(own.values())
    values = sorted({_mana_value(card) for card in traded})
    shares = {v: (sum(n for c, n in own.items() if _mana_value(c) == v) / total if total else
                  sum(_mana_value(c) == v for c in traded) / len(traded)) for v in values}
    removed, held = [], dict(own)
    for step in range(up):
        left = [v for v in values if any(held[c] > 0 for c in traded if _mana_value(c) == v)]
        if not left:
            names = ", ".join(card.name for card in traded)
            raise DeckError(f"{deck.land_count + up} lands would trade {up} copies of "
                            f"{clip(names)}, more than the deck has ({total}): at most "
                            f"{deck.land_count + total} lands; name more cards to trade "
                            "(trade, --trade)")
        bucket = max(left, key=lambda v: (_held(held, v) - shares[v] * (total - step - 1), -v))
        card = max((c for c in traded if _mana_value(c) == bucket and held[c] > 0),
                   key=lambda c: (not c.is_legendary, held[c], _by_name(c)))
        removed.append(card)
        held[card] -= 1
    limit = copy_limit(deck)
    added, held = [], dict(own)
    stand_ins: dict[Card, Card] = {}
    for step in range(down):
        short = _below_share(shares, held, total + step + 1)
        bucket = max(values, key=short)
        room = [c for c in traded if _mana_value(c) == bucket
                and (limit is None or held[c] < limit)]
        if room:
            card = max(room, key=lambda c: (not c.is_legendary, own[c], -held[c], _by_name(c)))
        else:  # no copy more of any: another card like one of them
            like = _stand_in_base(deck, traded, own, short)
            card = stand_ins.setdefault(like, another_card(like))
            held.setdefault(card, 0)
        added.append(card)
        held[card] += 1
    return removed, added


def copy_limit(deck: Deck) -> int | None:
    """The most copies of one card (basic lands aside) the deck's format allows: 1 in a
    Commander deck (CR 903.5b), 4 in a deck of 60 cards or more (CR 100.2a), none in a
    smaller deck (Limited).

    Parameters
    ----------
    deck : Deck

    Returns
    -------
    int or None
    """
    if deck.commander:
        return 1
    return 4 if deck.size >= 60 else None


def _stand_in_base(deck: Deck, traded: list[Card], own: dict[Card, int],
                   short: Callable[[int], tuple[float, int]]) -> Card:
    """The traded permanent another card is made like: of the mana value furthest below
    its share (``short``) among the permanents', the one with the most copies, then the
    first by name. (A blank instant or sorcery would never be cast.)"""
    permanents = [c for c in traded if c.is_permanent]
    if not permanents:
        names = ", ".join(card.name for card in traded)
        raise DeckError(f"{clip(deck.name)} can hold no more copies of {clip(names)} and none "
                        "is a permanent to stand in for another card: name spells with copies "
                        "to spare (trade, --trade), or count from the deck's own lands up "
                        "(counts, --counts)")
    bucket = max({_mana_value(c) for c in permanents}, key=short)
    return max((c for c in permanents if _mana_value(c) == bucket),
               key=lambda c: (own[c], _by_name(c)))


def another_card(card: Card) -> Card:
    """A card like ``card`` that the deck does not hold: a spell added where no copy more
    is allowed (:func:`copy_limit`).

    Parameters
    ----------
    card : Card
        A permanent spell, not a land.

    Returns
    -------
    Card
        Named ``"NAME (another card)"``: the front face's mana cost, card types and
        subtypes (not legendary), power and toughness and haste, and no other ability: a
        creature is a vanilla creature, another permanent is cast and does nothing.
    """
    front = [part.split(" // ")[0] for part in (card.name, card.mana_cost, card.type_line)]
    type_line = " ".join(word for word in front[2].split(" ") if word != "Legendary")
    return Card(name=front[0] + ANOTHER_CARD, mana_cost=front[1], type_line=type_line,
                power=card.power, toughness=card.toughness,
                keywords=("haste",) if card.has_keyword("haste") else (), source="stand-in",
                note=f"another card like {card.name}, without its abilities")


def _below_share(shares: dict[int, float], held: dict[Card, int],
                 copies: int) -> Callable[[int], tuple[float, int]]:
    """A key for ``max``: how far a mana value's copies in ``held`` are below its share of
    ``copies``, then the cheaper value."""
    return lambda v: (shares[v] * copies - _held(held, v), -v)


def _held(held: dict[Card, int], value: int) -> int:
    return sum(n for card, n in held.items() if _mana_value(card) == value)


def _by_name(card: Card) -> str:
    """A key that prefers the name first in alphabetical order (for ``max``)."""
    return "".join(chr(0x10FFFF - ord(ch)) for ch in card.name.casefold())


def land_ladder(deck: Deck, counts: Sequence[int], trade: str | Sequence[str] | None = None
                ) -> LandLadder:
    """The deck at each of ``counts`` lands, nested and lined up for common random numbers.

    Parameters
    ----------
    deck : Deck
    counts : sequence of int
        Land counts, each from 0 to the deck's size (in any order, each once).
    trade : str or sequence of str, optional
        The spells traded against lands (:func:`traded_cards`).

    Returns
    -------
    LandLadder

    Raises
    ------
    OptionError
        Counts that are not whole numbers within the deck, or repeated.
    DeckError
        A deck without lands, or counts the traded spells cannot reach.
    """
    checked = sorted(_checked_counts(deck, counts))
    own = deck.land_count
    if own == 0:
        raise DeckError(f"{clip(deck.name)} has no land to add or remove")
    traded, rule = traded_cards(deck, trade)
    up, down = max(checked[-1] - own, 0), max(own - checked[0], 0)
    lands_added, lands_removed = _land_steps(deck, up, down)
    spells_removed, spells_added = _spell_steps(deck, traded, up, down)
    base = Counter(dict(deck.main))
    for card in [*lands_removed, *spells_removed]:
        base[card] -= 1
    others = [(card, n) for card, n in deck.main if card not in traded and not card.is_land]
    # Spells in the order they stay (the last traded away first), lands in the ladder's order.
    spell_order = [c for c, n in base.items() if c in traded and n > 0 for _ in range(n)]
    spell_order += [*reversed(spells_removed), *spells_added]
    land_order = [c for c, n in base.items() if c.is_land and n > 0 for _ in range(n)]
    land_order += [*reversed(lands_removed), *lands_added]
    spells_own = sum(n for card, n in deck.main if card in traded)
    decks, ids, changes = [], [], []
    for count in checked:
        lands = land_order[:count]
        spells = spell_order[:spells_own - (count - own)]
        main = Counter(dict(others))
        main.update(lands)
        main.update(spells)
        variant = dataclasses.replace(
            deck, name=f"{deck.name} [{count} lands]",
            main=tuple((card, n) for card, n in main.items() if n > 0))
        decks.append(variant)
        ids.append(_order(variant, others, spells, lands))
        changes.append(_change(deck, variant))
    return LandLadder(checked, decks, ids, tuple(traded), rule, changes)


def parse_counts(text: str, label: str, most: int = 1000) -> list[int]:
    """Whole numbers and inclusive ``A..B`` ranges separated by commas (``20..26`` or
    ``0,4,8``), each once.

    Parameters
    ----------
    text : str
    label : str
        What the errors are about (``"--counts"``).
    most : int
        The most numbers.

    Returns
    -------
    list of int
        In the order given.

    Raises
    ------
    OptionError
        Anything else, an empty range, a repeat, or more than ``most``.
    """
    values: list[int] = []
    for item in text.split(","):
        match = _COUNT_ITEM.fullmatch(item)
        if match is None:
            raise OptionError(f"{label}: expected whole numbers and A..B ranges "
                              f"such as 20..26 or 0,4,8, got {clip(item.strip())!r}")
        low = int(match.group(1))
        high = int(match.group(2)) if match.group(2) is not None else low
        if high < low:
            raise OptionError(f"{label}: the range {low}..{high} is empty (write {high}..{low})")
        if len(values) + high - low + 1 > most:
            raise OptionError(f"{label}: more than {most} values")
        values.extend(range(low, high + 1))
    repeated = sorted({v for v in values if values.count(v) > 1})
    if repeated:
        raise OptionError(f"{label}: {', '.join(map(str, repeated[:5]))} given twice")
    return values


def _checked_counts(deck: Deck, counts: Sequence[int]) -> list[int]:
    if isinstance(counts, (str, bytes)) or not isinstance(counts, Sequence) or not counts:
        raise OptionError(f"counts must be a list of land counts, got {clip(repr(counts))}")
    out = []
    for count in counts:
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or \
                not 0 <= count <= deck.size:
            beyond = [c for c in counts if isinstance(c, (int, np.integer))
                      and not isinstance(c, bool) and not 0 <= c <= deck.size]
            more = (f" and {len(beyond) - 1} more, up to {max(beyond)}"
                    if len(beyond) > 1 and count in beyond else "")
            raise OptionError(f"counts: a land count must be a whole number from 0 to "
                              f"{deck.size}, got {clip(repr(count))}{more}")
        if int(count) in out:
            raise OptionError(f"counts: {count} is given twice")
        out.append(int(count))
    return out


def _order(deck: Deck, others: list[tuple[Card, int]], spells: list[Card],
           lands: list[Card]) -> np.ndarray:
    """The shuffle order: the other spells, the traded spells, then the lands last first."""
    ids = {card: i + 1 for i, card in enumerate(deck.cards)}
    order = [ids[card] for card, n in others for _ in range(n)]
    order += [ids[card] for card in spells]
    order += [ids[card] for card in reversed(lands)]
    array = np.array(order, dtype=np.int16)
    if len(array) != deck.size:  # the order must hold the deck exactly
        raise AssertionError(f"the order of {deck.name} has {len(array)} cards, not {deck.size}")
    return array


def _change(deck: Deck, variant: Deck) -> str:
    """What a variant adds and removes, as ``+1 Forest, -1 Grizzly Bears`` (``""``: none),
    each by card name."""
    before, after = Counter(dict(deck.main)), Counter(dict(variant.main))
    plus = [f"+{after[c] - before[c]} {c.name}" for c in after if after[c] > before[c]]
    minus = [f"-{before[c] - after[c]} {c.name}" for c in before if before[c] > after[c]]
    return ", ".join(sorted(plus, key=_card_of) + sorted(minus, key=_card_of))


def _card_of(item: str) -> str:
    """The card of ``+2 Forest``: ``Forest``."""
    return item.split(" ", 1)[1]


def _mana_value(card: Card) -> int:
    assert card.mana_value is not None  # Card sets it from the cost when not given
    return card.mana_value
