"""A slow, one-trial-at-a-time reference implementation of the explore sequence.

It is written straight from RULES.md with plain Python lists and scalars, independently of
the vectorised engine, and must agree with it exactly on the same shuffled libraries.
"""

from __future__ import annotations

from dataclasses import dataclass

EMPTY = 0


@dataclass
class Cards:
    """Per-card facts as plain lists indexed by card id (0 = no card)."""

    is_land: list[bool]
    mana_value: list[int]

    @classmethod
    def from_features(cls, features) -> "Cards":
        return cls(
            is_land=[bool(x) for x in features.is_land],
            mana_value=[int(x) for x in features.mana_value],
        )


def keep(obs: dict) -> bool:
    return False


def mill(obs: dict) -> bool:
    return True


def forge(need_lands: int = 2, max_mv_diff: int = 2):
    def decide(obs: dict) -> bool:
        if obs["lands_in_hand"] == 0 and obs["lands_in_play"] <= need_lands:
            return True
        predicted = obs["lands_in_play"] + obs["lands_in_hand"]
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
