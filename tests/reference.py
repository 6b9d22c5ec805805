"""A slow, one-trial-at-a-time reference implementation of explore, opening hands and games.

It is written straight from the explore rules (E1-E10) and the documented turn structure and
mulligan rule, with plain Python lists and scalars, independently of the vectorised engine,
and must agree with it exactly on the same shuffled libraries.
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

    @classmethod
    def from_features(cls, features) -> "Cards":
        return cls(
            is_land=[bool(x) for x in features.is_land],
            mana_value=[int(x) for x in features.mana_value],
            is_land_like=[bool(x) for x in features.is_land_like],
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
                    q = Fraction(nonlands_left, left) * Fraction(copies - used[card], nonlands - seen)
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
    Spells go first, the most expensive first; a land is one of the kind held most. Ties go
    to the card listed first in the deck (the lowest id).
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
            card = min(options, key=lambda c: (-cards.mana_value[c], c))
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


# ------------------------------------------------------------------------------------------
# Goldfish games, one at a time


class Game:
    """One goldfish game with plain lists and dicts, written from the explore rules and the
    turn structure documented in explore_sim.engine.goldfish (no removal; parley's coin is fixed by
    ``opponent_land_fraction`` of 0 or 1)."""

    def __init__(self, cards, library, hand, *, on_play=True, decide=keep, scry=None,
                 use_maps=True, replacement_order="tracker-first", opponent_land_fraction=0.4,
                 hand_limit=7):
        self.cards = cards  # cards[i - 1] is card id i
        self.ids = range(1, len(cards) + 1)
        self.library = list(library)  # top first
        self.hand = {i: 0 for i in self.ids}
        for card, count in hand.items():
            self.hand[card] += count
        self.battlefield = {i: 0 for i in self.ids}
        self.sick = {i: 0 for i in self.ids}
        self.on_play, self.decide, self.scry_decide = on_play, decide, scry or decide
        self.use_maps, self.order = use_maps, replacement_order
        self.theirs_nonland = opponent_land_fraction < 0.5
        self.hand_limit = hand_limit
        self.mana = self.land_drops = self.maps = self.equipped = self.graveyard = 0
        self.played_land = False
        self.turn = 0
        self.totals = dict.fromkeys(
            ["explores", "explore_counters", "trigger_counters", "explore_lands", "milled",
             "scries", "maps_created", "maps_used", "mana_spent", "cards_cast", "life_gained",
             "cave_diver_pumps", "chupacabra_triggers", "nicanzil_lands", "explorers_removed",
             "extra_land_drops", "decked"], 0)

    # helpers
    def card(self, i):
        return self.cards[i - 1]

    def count(self, predicate):
        return sum(n for i, n in self.battlefield.items() if predicate(self.card(i)))

    def lands_in_play(self):
        return self.count(lambda c: c.is_land)

    def creature_count(self):
        return self.count(lambda c: c.is_creature)

    def pick_creature(self, prefer_sick=False):
        creatures = [i for i in self.ids if self.battlefield[i] > 0 and self.card(i).is_creature]
        if prefer_sick:
            sick = [i for i in creatures if self.sick[i] > 0]
            creatures = sick or creatures
        return creatures[0] if creatures else None

    def observation(self, card):
        lands_in_hand = sum(n for i, n in self.hand.items() if self.card(i).is_land)
        return dict(mana_value=self.card(card).mana_value, lands_in_hand=lands_in_hand,
                    lands_in_play=self.lands_in_play(), cards_in_hand=sum(self.hand.values()))

    def draw(self):
        if self.library:
            self.hand[self.library.pop(0)] += 1
        else:
            self.totals["decked"] = 1

    def create_maps(self, count):
        if count > 0:
            count += self.count(lambda c: c.maps_when == "token_extra")
        self.maps += count
        self.totals["maps_created"] += count

    # explore
    def explore_instruction(self, explorer, count, targeted, present=True, pending=None):
        present = explorer is not None and self.battlefield[explorer] > 0 and present
        if count <= 0 or (targeted and not present):
            return present
        trackers = min(self.count(lambda c: c.explore_replacement == "tracker"), 6)
        twists = self.count(lambda c: c.explore_replacement == "twists")
        steps = []
        if self.order == "tracker-first":
            for _ in range(count * 2**trackers):
                steps += ["scry"] * twists + ["explore"]
        else:
            for _ in range(count):
                steps += ["scry"] * twists + ["explore"] * 2**trackers
        explored = lands = nonlands = 0
        for step in steps:
            top = self.library[0] if self.library else None
            if step == "scry":
                if top is None:
                    continue
                self.totals["scries"] += 1
                if not self.card(top).is_land and self.scry_decide(self.observation(top)):
                    self.library.append(self.library.pop(0))
                continue
            explored += 1
            self.totals["explores"] += 1
            if top is None:  # E4
                self.totals["explore_counters"] += present
            elif self.card(top).is_land:  # E1
                self.hand[self.library.pop(0)] += 1
                lands += 1
                self.totals["explore_lands"] += 1
            else:  # E2, E3
                nonlands += 1
                self.totals["explore_counters"] += present
                if self.decide(self.observation(top)):
                    self.library.pop(0)
                    self.graveyard += 1
                    self.totals["milled"] += 1
        if pending is None:
            self.triggers(explored, lands, nonlands)
        else:
            pending[0] += explored
            pending[1] += lands
            pending[2] += nonlands
        return present

    def triggers(self, explored, lands, nonlands):
        walkers = self.count(lambda c: c.explore_trigger == "walker")
        self.totals["trigger_counters"] += walkers * explored
        self.totals["life_gained"] += 3 * walkers * explored
        self.totals["trigger_counters"] += self.count(lambda c: c.explore_trigger == "caravel") * explored
        self.totals["cave_diver_pumps"] += self.count(lambda c: c.explore_trigger == "cave_diver") * explored
        self.totals["chupacabra_triggers"] += self.count(lambda c: c.explore_trigger == "chupacabra") * explored
        nicanzils = self.count(lambda c: c.explore_trigger == "nicanzil")
        self.totals["trigger_counters"] += nicanzils * nonlands
        for _ in range(nicanzils * lands):
            self.put_land()

    # lands and permanents
    def land_order(self):
        lands = [i for i in self.ids if self.card(i).is_land]
        return sorted(lands, key=lambda i: (self.card(i).is_creature,
                                            self.card(i).has_keyword("enters_tapped")))

    def choose_land(self):
        return next((i for i in self.land_order() if self.hand[i] > 0), None)

    def play_land(self):
        land = self.choose_land() if self.land_drops > 0 else None
        if land is None:
            return False
        self.land_drops -= 1
        self.played_land = True
        self.land_enters(land, tapped=False)
        return True

    def put_land(self):
        land = self.choose_land()
        if land is not None:
            self.totals["nicanzil_lands"] += 1
            self.land_enters(land, tapped=True)

    def land_enters(self, land, tapped):
        self.hand[land] -= 1
        card = self.card(land)
        if not tapped and not card.has_keyword("enters_tapped") and not card.is_creature:
            self.mana += 1
        self.enters(land)

    def enters(self, kind, x=None):
        self.battlefield[kind] += 1
        self.sick[kind] += 1
        card = self.card(kind)
        if card.extra_land == "each_turn":
            self.land_drops += 1
            self.totals["extra_land_drops"] += 1
        if card.maps_when in ("enter", "enter_or_attack"):
            self.create_maps(card.maps)
        alive = True
        if card.explores_when == "enter":
            count = (x or 0) if card.explores_x else card.explores
            if card.explore_targets:
                target = self.pick_creature()
                if target is not None:
                    self.explore_instruction(target, count, True)
            else:
                alive = self.explore_instruction(kind, count, False, alive)
        if card.is_creature:
            for _ in range(self.count(lambda c: c.explores_when == "creature_enters")):
                alive = self.explore_instruction(kind, 1, False, alive)

    # casting
    def priority(self, i):
        card = self.card(i)
        if card.is_land:
            return -1
        if card.explores_x:
            return 500
        makes = card.explores > 0 or card.maps > 0
        return (1000 if makes else 0) + card.mana_value

    def castable(self, i):
        card = self.card(i)
        if self.hand[i] == 0 or self.priority(i) < 0 or card.mana_value > self.mana:
            return False
        if card.explores_x and self.mana < card.mana_value + 1:
            return False
        if card.explores_when == "cast" and card.explore_targets and self.creature_count() == 0:
            return False
        return True

    def cast_one(self):
        options = [i for i in self.ids if self.castable(i)]
        if not options:
            return False
        best = max(options, key=lambda i: (self.priority(i), -i))
        self.cast(best)
        return True

    def cast(self, kind):
        card = self.card(kind)
        x = self.mana - card.mana_value if card.explores_x else None
        paid = card.mana_value + (x or 0)
        self.mana -= paid
        self.totals["mana_spent"] += paid
        self.totals["cards_cast"] += 1
        self.hand[kind] -= 1
        if card.is_permanent:
            self.enters(kind, x)
            return
        if card.explores_when == "cast":
            target = self.pick_creature()
            if target is not None:
                self.explore_instruction(target, card.explores, True)
        self.graveyard += 1
        if card.extra_land == "this_turn":
            self.land_drops += 1
            self.totals["extra_land_drops"] += 1
        if card.has_keyword("draw"):
            self.draw()

    def equip(self):
        free = self.count(lambda c: c.explores_when == "equipped_attack") - self.equipped
        if free > 0 and self.mana >= 2 and self.creature_count() > 0:
            self.equipped += 1
            self.mana -= 2
            self.totals["mana_spent"] += 2
            return True
        return False

    def activate_map(self):
        target = self.pick_creature()
        if not self.use_maps or self.maps == 0 or self.mana < 1 or target is None:
            return False
        self.maps -= 1
        self.mana -= 1
        self.totals["mana_spent"] += 1
        self.totals["maps_used"] += 1
        self.explore_instruction(target, 1, True)
        return True

    def activate_seekers(self):
        progressed = False
        for i in self.ids:
            card = self.card(i)
            if card.explores_when == "activated" and card.ability_mana > 0:
                if self.battlefield[i] > 0 and self.mana >= card.ability_mana:
                    self.mana -= card.ability_mana
                    self.totals["mana_spent"] += card.ability_mana
                    self.explore_instruction(i, 1, False)
                    progressed = True
        return progressed

    def main_phase(self, second):
        for _ in range(60):
            progressed = self.play_land()
            progressed = self.cast_one() or progressed
            if not progressed:
                progressed = self.equip()
            if not progressed and second:
                progressed = self.activate_map() or self.activate_seekers()
            if not progressed:
                return

    # combat
    def combat(self):
        for i in self.ids:
            if self.card(i).explores_when == "beginning_of_combat":
                for _ in range(self.battlefield[i]):
                    self.explore_instruction(i, 1, False)
        for _ in range(self.count(lambda c: c.explores_when == "merfolk_at_combat")):
            pending = [0, 0, 0]
            for i in self.ids:
                if self.card(i).is_creature and "merfolk" in self.card(i).subtypes:
                    for _ in range(self.battlefield[i]):
                        self.explore_instruction(i, 1, False, pending=pending)
            self.triggers(*pending)
        anchorage_attacks = 0
        for i in self.ids:
            card = self.card(i)
            if card.maps_when == "land_attack":
                cost = card.ability_mana + 1
                if self.battlefield[i] - self.sick[i] > 0 and self.mana >= cost:
                    self.mana -= cost
                    self.totals["mana_spent"] += cost - 1
                    anchorage_attacks += 1
        attackers = {}
        for i in self.ids:
            card = self.card(i)
            if not card.is_creature:
                attackers[i] = 0
            elif card.has_keyword("haste"):
                attackers[i] = self.battlefield[i]
            else:
                attackers[i] = self.battlefield[i] - self.sick[i]
        crewers = []
        for i in self.ids:
            if self.card(i).explores_when == "crewed_attack":
                ready = self.battlefield[i] - self.sick[i] > 0
                crewer = self.pick_creature(prefer_sick=True)
                if ready and crewer is not None:
                    if attackers[crewer] > 0:
                        attackers[crewer] -= 1
                    crewers.append(crewer)
        any_attacker = sum(attackers.values()) > 0
        for i in self.ids:
            if self.card(i).maps_when in ("attack", "enter_or_attack"):
                self.create_maps(attackers[i] * self.card(i).maps)
        self.create_maps(anchorage_attacks)
        for i in self.ids:
            if self.card(i).explores_when == "attack":
                for _ in range(attackers[i]):
                    self.explore_instruction(i, 1, False)
        for i in self.ids:
            if self.card(i).maps_when == "parley":
                for _ in range(attackers[i]):
                    mine = self.library[0] if self.library else None
                    nonland = mine is not None and not self.card(mine).is_land
                    self.create_maps(int(nonland) + int(self.theirs_nonland))
                    self.draw()
        for crewer in crewers:
            self.explore_instruction(crewer, 1, True)
        if any_attacker:
            first = next(i for i in self.ids if attackers[i] > 0)
            for _ in range(min(self.equipped, sum(attackers.values()))):
                self.explore_instruction(first, 1, False)
        for i in self.ids:
            if self.card(i).explores_when == "combat_damage":
                for _ in range(min(attackers[i], self.battlefield[i])):
                    self.explore_instruction(i, 1, False)

    # turns
    def play_turn(self):
        self.turn += 1
        self.sick = dict.fromkeys(self.sick, 0)
        self.mana = self.lands_in_play()
        extra = self.count(lambda c: c.extra_land == "each_turn")
        self.land_drops = 1 + extra
        self.totals["extra_land_drops"] += extra
        self.played_land = False
        if self.turn > 1 or not self.on_play:
            self.draw()
        self.main_phase(second=False)
        self.combat()
        self.main_phase(second=True)
        excess = sum(self.hand.values()) - self.hand_limit
        order = sorted(self.ids, key=lambda i: (not self.card(i).is_land, self.card(i).mana_value),
                       reverse=True)
        for i in order:
            drop = min(max(excess, 0), self.hand[i])
            self.hand[i] -= drop
            self.graveyard += drop
            excess -= drop

    def metrics(self):
        out = dict(self.totals)
        lands = self.lands_in_play()
        out["counters"] = out["explore_counters"] + out["trigger_counters"]
        out["lands_played"] = lands
        out["on_curve"] = int(lands >= self.turn)
        out["land_drop"] = int(self.played_land)
        out["creatures"] = self.creature_count()
        out["hand_size"] = sum(self.hand.values())
        return out
