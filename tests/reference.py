"""A slow, one-trial-at-a-time reference of explore sequences and opening hands.

It is written straight from the explore rules (E1-E10) and the documented mulligan rule, with
plain Python lists and scalars, independently of the vectorised engine, and must agree with it
exactly on the same shuffled libraries: the ``explore`` command's sequences (which no goldfish
game plays) and the deal. Whole goldfish games have their scalar implementation in the
package itself, the compiled game (:mod:`explore_sim.engine.kernel`), which the tests hold
to the vectorised engine game by game.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from math import comb

EMPTY = 0


@dataclass
class Cards:
    """Per-card facts as plain lists indexed by card id (0 = no card)."""

    is_land: list[bool]
    mana_value: list[int]
    is_land_like: list[bool] | None = None  # spell // land double-faced cards
    ramps: list[bool] | None = None  # mana sources and spells that put a land into play
    never_cast: list[bool] | None = None  # spells a goldfish game never casts

    def __post_init__(self) -> None:
        if self.ramps is None:
            self.ramps = [False] * len(self.is_land)
        if self.never_cast is None:
            self.never_cast = [False] * len(self.is_land)

    @classmethod
    def from_features(cls, features) -> Cards:
        from explore_sim.engine.abilities import held_reason  # the card's classification

        return cls(
            is_land=[bool(x) for x in features.is_land],
            mana_value=[int(x) for x in features.mana_value],
            is_land_like=[bool(x) for x in features.is_land_like],
            ramps=[bool(x) for x in features.ramps],
            never_cast=[False] + [bool(held_reason(card))
                                  for card in features.cards[:len(features) - 1]],
        )

    def counts_as_land(self, card: int) -> bool:
        """For mulligans a spell // land double-faced card counts as a land."""
        return self.is_land[card] or bool(self.is_land_like and self.is_land_like[card])


def keep(obs: dict) -> bool:
    return False


def mill(obs: dict) -> bool:
    return True


def forge(need_lands: int = 2, max_mv_diff: int = 2):
    def decide(obs: dict) -> bool:
        if obs["lands_in_hand"] == 0 and obs["lands_in_play"] <= need_lands:
            return True
        predicted = obs.get("mana_sources", obs["lands_in_play"]) + obs["lands_in_hand"]
        return obs["mana_value"] >= predicted + max_mv_diff

    return decide


def explore_one(
    library: list[int],
    cards: Cards,
    *,
    drawn: int,
    explores: int,
    decide,
    explorer_gone: bool = False,
    targeted: bool = False,
    turn: int = 1,
    known_cards: int = 0,
    known_lands: int = 0,
) -> dict[str, int]:
    """One trial. ``library`` lists card ids top first (no padding)."""
    deck = [card for card in library if card != EMPTY]
    hand = deck[:drawn]
    rest = deck[drawn:]
    lands_seen = sum(cards.is_land[c] for c in hand) + known_lands
    lands_in_play = min(lands_seen, turn)
    lands_in_hand = lands_seen - lands_in_play
    cards_in_hand = known_cards + drawn - lands_in_play
    present = not explorer_gone
    out = dict(explores=0, counters=0, lands_to_hand=0, land_hit=0,
               nonlands_revealed=0, milled=0, empty_reveals=0)
    if targeted and explorer_gone:
        return out  # E9: nothing happens
    for _ in range(explores):
        out["explores"] += 1
        if not rest:  # E4
            out["empty_reveals"] += 1
            if present:
                out["counters"] += 1
            continue
        card = rest[0]
        if cards.is_land[card]:  # E1
            rest.pop(0)
            lands_in_hand += 1
            cards_in_hand += 1
            out["lands_to_hand"] += 1
            continue
        out["nonlands_revealed"] += 1  # E2 / E3
        if present:
            out["counters"] += 1
        obs = dict(mana_value=cards.mana_value[card], lands_in_hand=lands_in_hand,
                   lands_in_play=lands_in_play, cards_in_hand=cards_in_hand)
        if decide(obs):
            rest.pop(0)
            out["milled"] += 1
    out["land_hit"] = int(out["lands_to_hand"] > 0)
    return out


def exact_explore(library: dict[int, int], cards: Cards, *, drawn: int, explores: int,
                  decide, **options) -> dict[str, Fraction]:
    """Exact expectation of every metric of :func:`explore_one` over all shuffles of a library.

    ``library`` maps card ids to copies. The player model sees only how many of the ``drawn``
    cards are lands, and the explores reveal at most the next ``explores`` cards, so it is
    enough to enumerate the number of lands drawn (hypergeometric) and every sequence of
    the next cards: lands as one class, nonlands by id. Given the lands drawn, the next card
    is a land with probability (lands left) / (cards left); a nonland card is uniform among
    the nonland cards not yet revealed, because the order of the nonland cards among
    themselves is independent of where the lands are.
    """
    size = sum(library.values())
    lands = sum(n for card, n in library.items() if cards.is_land[card])
    nonland = {card: n for card, n in library.items() if not cards.is_land[card] and n}
    nonlands = size - lands
    a_land = next((card for card, n in library.items() if cards.is_land[card] and n), None)
    a_nonland = next(iter(nonland), None)
    reach = min(explores, size - drawn)
    totals: dict[str, Fraction] = {}

    def sequences(prefix, p, lands_left, nonlands_left, used):
        if len(prefix) == reach:
            yield prefix, p
            return
        left = lands_left + nonlands_left
        if lands_left:
            yield from sequences(prefix + [a_land], p * Fraction(lands_left, left),
                                 lands_left - 1, nonlands_left, used)
        if nonlands_left:
            seen = sum(used.values())
            for card, copies in nonland.items():
                if copies > used[card]:
                    q = (Fraction(nonlands_left, left)
                         * Fraction(copies - used[card], nonlands - seen))
                    yield from sequences(prefix + [card], p * q, lands_left,
                                         nonlands_left - 1, used + Counter({card: 1}))

    for k in range(max(0, drawn - nonlands), min(lands, drawn) + 1):
        p_k = Fraction(comb(lands, k) * comb(nonlands, drawn - k), comb(size, drawn))
        hand = [a_land] * k + [a_nonland] * (drawn - k)
        for sequence, p in sequences([], p_k, lands - k, nonlands - (drawn - k), Counter()):
            out = explore_one(hand + sequence, cards, drawn=drawn, explores=explores,
                              decide=decide, **options)
            for name, value in out.items():
                totals[name] = totals.get(name, Fraction(0)) + p * value
    return totals


# ------------------------------------------------------------------------------------------
# Opening hands: the London mulligan with Karsten's keep / bottom rule, one game at a time

HAND_SIZE = 7


def karsten_bottom(seven: list[int], bottoms: int, cards: Cards) -> tuple[list[int], list[int]]:
    """Karsten's bottom rule: ``(kept cards, bottomed cards in the order they go under)``.

    To 6: a spell if 3+ spells were drawn, else a land. To 5: two spells with 4+ spells, a
    spell and a land with 3, two lands with 2 or fewer. To 4: toward 3 lands and 1 spell.
    Spells go first, one a goldfish game never casts first, then the most expensive (of two
    that cost the same, the one that is not a mana source); a land is one of the kind held
    most. Other ties go to the lowest id (by name).
    """
    spells = sum(not cards.counts_as_land(card) for card in seven)
    lands = len(seven) - spells
    if bottoms == 0:
        spell_bottoms = 0
    elif bottoms == 1:
        spell_bottoms = 1 if spells >= 3 else 0
    elif bottoms == 2:
        spell_bottoms = 2 if spells >= 4 else 1 if spells == 3 else 0
    else:  # keep 3 lands (or all there are) and fill up with spells, lands if spells run out
        keep = len(seven) - bottoms
        spells_kept = min(spells, keep - min(lands, 3))
        spell_bottoms = spells - spells_kept
    held, bottomed = list(seven), []
    for j in range(bottoms):
        if j < spell_bottoms:
            options = [card for card in held if not cards.counts_as_land(card)]
            card = min(options, key=lambda c: (not cards.never_cast[c], -cards.mana_value[c],
                                               cards.ramps[c], c))
        else:
            options = [card for card in held if cards.counts_as_land(card)]
            card = min(options, key=lambda c: (-held.count(c), c))
        held.remove(card)
        bottomed.append(card)
    return held, bottomed


def karsten_keeps(hand: list[int], cards: Cards) -> bool:
    """Keep 7 cards with 2-5 lands, 6 or 5 cards with 2-4 lands."""
    lands = sum(cards.counts_as_land(card) for card in hand)
    return 2 <= lands <= (5 if len(hand) >= HAND_SIZE else 4)


def deal_hands(trials: int, shuffles, cards: Cards, *, mulligan: str = "london",
               free_first: bool = False) -> list[tuple[dict[int, int], list[int], int]]:
    """Deal and mulligan ``trials`` games one at a time: ``(hand counts, library, mulligans)``.

    ``shuffles(attempt, games)`` returns, for the ``attempt``-th deal (0: the first), one
    shuffled library per game that still has to deal (top first, in game order). Each
    mulligan is a fresh shuffle; ``bottoms`` cards go under the library in the order chosen.
    Hands of 4 are always kept.
    """
    last = 0 if mulligan == "none" else HAND_SIZE - 4 + int(free_first)
    dealt: list = [None] * trials
    pending = list(range(trials))
    for attempt in range(last + 1):
        libraries = shuffles(attempt, len(pending))
        bottoms = max(0, attempt - int(free_first and attempt > 0))
        still = []
        for game, library in zip(pending, libraries):
            library = list(library)
            kept, bottomed = karsten_bottom(library[:HAND_SIZE], bottoms, cards)
            if attempt == last or karsten_keeps(kept, cards):
                dealt[game] = (dict(Counter(kept)), library[HAND_SIZE:] + bottomed, attempt)
            else:
                still.append(game)
        pending = still
        if not pending:
            break
    return dealt
