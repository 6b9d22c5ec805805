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
    is_source: list[bool] | None = None  # cards with a mana ability

    def __post_init__(self) -> None:
        if self.is_source is None:
            self.is_source = [False] * len(self.is_land)

    @classmethod
    def from_features(cls, features) -> "Cards":
        return cls(
            is_land=[bool(x) for x in features.is_land],
            mana_value=[int(x) for x in features.mana_value],
            is_land_like=[bool(x) for x in features.is_land_like],
            is_source=[bool(x) for x in features.is_source],
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
    Spells go first, the most expensive first (of two that cost the same, the one that is not
    a mana source); a land is one of the kind held most. Other ties go to the lowest id (by
    name).
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
            card = min(options, key=lambda c: (-cards.mana_value[c], cards.is_source[c], c))
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
#
# Mana is modelled from the documented rules with plain Python: units of mana are described
# by (colour mask, costs life); a cost is payable when a brute-force search matches its pips
# to distinct units (no Hall's condition here), and the payment follows the documented rule
# (pips most demanding first, each by the least flexible unit that leaves the rest payable;
# generic by the least flexible units; the pool first, then sources in tapping order).

W, U, B, R, G, C, S = 1, 2, 4, 8, 16, 32, 64
ANY = W | U | B | R | G
ALL = ANY | C | S
COLOUR_BITS = (W, U, B, R, G)


def popcount(mask):
    return bin(mask).count("1")


def can_pay(units, pips, generic):
    """Brute force: match every pip to a distinct unit, the rest pays the generic part."""
    if sum(units.values()) < len(pips) + generic:
        return False
    avail = dict(units)

    def match(i):
        if i == len(pips):
            return True
        for cls in list(avail):
            if avail[cls] > 0 and cls[0] & pips[i]:
                avail[cls] -= 1
                ok = match(i + 1)
                avail[cls] += 1
                if ok:
                    return True
        return False

    return match(0)


def pip_demand(card):
    if card.is_land or not card.mana_cost:
        return [0] * 5
    mode = card.cost_modes[0]
    return [sum(1 for pip in mode.pips if pip & bit) for bit in COLOUR_BITS]


class Game:
    """One goldfish game with plain lists and dicts, written from the explore rules, the mana
    rules and the turn structure documented in explore_sim.engine (goldfish, lands, mana); no
    removal; parley's coin is fixed by ``opponent_land_fraction`` of 0 or 1; a library is
    "shuffled" by reversing it (the engine is given the same stand-in)."""

    def __init__(self, cards, library, hand, *, on_play=True, decide=keep, scry=None,
                 use_maps=True, replacement_order="tracker-first", opponent_land_fraction=0.4,
                 hand_limit=7, land_faces="when-needed", castable=(), cast_order=(),
                 commanders=()):
        # Commanders come after the deck's cards, land faces after both.
        deck = list(cards) + [c for c in commanders if c not in cards]
        self.commanders = [deck.index(c) + 1 for c in commanders]
        self.identity = 0
        for card in commanders:
            self.identity |= card.identity
        self.command = {i: 0 for i in range(1, len(deck) + 1)}
        self.command_casts = dict(self.command)
        faces = [card.land_face for card in deck if card.land_face is not None]
        self.cards = deck + faces  # cards[i - 1] is card id i; land faces after the deck
        self.n_deck = len(deck)
        self.ids = range(1, len(self.cards) + 1)
        self.face_of = {}
        self.face_id = {}
        next_face = self.n_deck + 1
        for i, card in enumerate(deck, start=1):
            if card.land_face is not None:
                self.face_id[i] = next_face
                self.face_of[next_face] = i
                next_face += 1
        self.library = list(library)  # top first
        self.hand = {i: 0 for i in self.ids}
        for card, count in hand.items():
            self.hand[card] += count
        self.battlefield = {i: 0 for i in self.ids}
        self.sick = {i: 0 for i in self.ids}
        self.tapped = {i: 0 for i in self.ids}
        self.pool = {}
        self.on_play, self.decide, self.scry_decide = on_play, decide, scry or decide
        self.use_maps, self.order = use_maps, replacement_order
        self.theirs_nonland = opponent_land_fraction < 0.5
        self.hand_limit, self.land_faces = hand_limit, land_faces
        self.castable_cards = list(castable)
        self.cast_order = list(cast_order)
        self.land_drops = self.maps = self.equipped = self.graveyard = 0
        self.played_land = False
        self.turn = 0
        self.main = {}
        self.totals = dict.fromkeys(
            ["explores", "explore_counters", "trigger_counters", "explore_lands", "milled",
             "scries", "maps_created", "maps_used", "mana_spent", "cards_cast", "life_gained",
             "cave_diver_pumps", "chupacabra_triggers", "nicanzil_lands", "explorers_removed",
             "extra_land_drops", "decked", "life_paid", "tapped_lands_played",
             "commander_cast", "commander_tax_paid", "lands_put"], 0)
        self._mana_facts()

    # facts
    def card(self, i):
        return self.cards[i - 1]

    def _mana_facts(self):
        self.units = {}
        for i in self.ids:
            card = self.card(i)
            self.units[i] = [(u, bool(card.mana_life) and bool(u & ANY))
                             for u in card.mana_units(self.identity)]
        costs = ["{1}"] + [self.card(i).ability_cost for i in self.ids if (
            self.card(i).explores_when in ("equipped_attack", "activated")
            or self.card(i).maps_when == "land_attack" or self.card(i).fetch_when == "activated")
            and self.card(i).ability_cost]
        from explore_sim.cards.costs import cost_modes
        modes = [m for i in self.ids if not self.card(i).is_land for m in self.card(i).cost_modes]
        modes += [cost_modes(c)[0] for c in costs]
        modes += [m for card in self.castable_cards for m in card.cost_modes]
        self.relevant = 0
        for mode in modes:
            for pip in mode.pips:
                self.relevant |= pip
        self.classes = sorted({cls for units in self.units.values() for cls in units},
                              key=lambda c: (popcount(c[0]), c[1], c[0]))
        self.sources = [i for i in self.ids if self.units[i]]

        def tap_key(i):
            widest = max(self.flex(c) for c in self.units[i])
            card = self.card(i)
            return (widest, card.is_creature, not card.is_land, bool(card.mana_ability_cost), i)

        self.sources.sort(key=tap_key)
        self.has_filters = any(self.card(i).mana_ability_cost for i in self.sources)
        self.generic_order = sorted(self.classes, key=lambda c: (self.flex(c), c[0]))
        self.spells = [i for i in self.ids if not self.card(i).is_land]
        self.lands = [i for i in self.ids if self.card(i).is_land]
        self.basics = [i for i in self.lands if i <= self.n_deck
                       and "basic" in self.card(i).type_line.split("—")[0].casefold()]
        self.pips = {i: pip_demand(self.card(i)) for i in self.ids}
        self.basic_colours = 0
        for i in self.basics:
            self.basic_colours |= self.colours_of(i)
        self.options = []  # (card in hand, permanent that enters, is a spell's land face)
        for i in range(1, self.n_deck + 1):
            card = self.card(i)
            if card.is_land:
                self.options.append((i, i, False))
                if i in self.face_id:
                    self.options.append((i, self.face_id[i], False))
            elif i in self.face_id and self.land_faces != "never":
                self.options.append((i, self.face_id[i], True))

    def flex(self, cls):
        return popcount(cls[0] & self.relevant)

    def colours_of(self, kind):
        mask = 0
        for cls in self.units[kind]:
            mask |= cls[0]
        return mask & ANY

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

    def priority(self, i):
        card = self.card(i)
        if card.is_land:
            return -1
        if i <= self.n_deck:
            for rank, name in enumerate(self.cast_order):
                if name == card.name:
                    return 10_000 - rank
        if card.explores_x:
            return 500
        makes = card.explores > 0 or card.maps > 0
        return (1000 if makes else 0) + card.mana_value + 0.5 * bool(self.units[i])

    # ---- mana
    def untapped(self, i, unavailable=None):
        card = self.card(i)
        n = self.battlefield[i] - self.tapped[i]
        if card.is_creature and not card.has_keyword("haste"):
            n -= self.sick[i]
        if unavailable is not None and unavailable[0] == i:
            n -= unavailable[1]
        return max(n, 0)

    def plain_units(self, unavailable=None, untapped=None):
        units = {cls: n for cls, n in self.pool.items() if n}
        for i in self.sources:
            if self.card(i).mana_ability_cost:
                continue
            copies = untapped[i] if untapped is not None else self.untapped(i, unavailable)
            for cls in self.units[i]:
                units[cls] = units.get(cls, 0) + copies
        return units

    def take_least_flexible(self, units):
        for cls in self.generic_order:
            if units.get(cls, 0) > 0:
                units[cls] -= 1
                return cls
        return None

    def filtered_units(self, unavailable=None):
        units = self.plain_units(unavailable)
        for i in self.sources:
            cost = _generic(self.card(i).mana_ability_cost)
            if not cost:
                continue
            for _ in range(self.untapped(i, unavailable)):
                if sum(units.values()) < cost:
                    continue
                for _ in range(cost):
                    self.take_least_flexible(units)
                for cls in self.units[i]:
                    units[cls] = units.get(cls, 0) + 1
        return units

    def unit_sets(self, unavailable=None):
        if not self.has_filters:
            return [self.plain_units(unavailable)]
        return [self.plain_units(unavailable), self.filtered_units(unavailable)]

    def payable(self, mode, sets):
        return any(can_pay(units, list(mode.pips), mode.generic) for units in sets)

    def cheapest(self, i):
        return min(mode.mana for mode in self.card(i).cost_modes)

    def castable_kind(self, i, sets, x_rule=True):
        card = self.card(i)
        if x_rule and card.explores_x and sum(sets[-1].values()) < card.mana_value + 1:
            return False
        return any(self.payable(mode, sets) for mode in card.cost_modes)

    def generic_order_now(self, paying):
        """Generic mana's order: least flexible first; of equally flexible classes, the one
        whose colours the rest of the hand (then the library) needs least."""
        hand = [sum(self.hand[i] * self.pips[i][k] for i in self.ids) for k in range(5)]
        if paying is not None and self.hand.get(paying, 0) > 0:
            hand = [h - p for h, p in zip(hand, self.pips[paying])]
        library = self.library_pips()

        def need(pips, cls):
            return sum(pips[k] for k, bit in enumerate(COLOUR_BITS) if cls[0] & bit)

        static = {cls: n for n, cls in enumerate(self.generic_order)}
        return sorted(self.classes, key=lambda c: (self.flex(c), min(need(hand, c), 2**15 - 1),
                                                  min(need(library, c), 2**12 - 1), static[c]))

    def allocate(self, units, mode, take_all, paying=None):
        units = dict(units)
        used = {}
        life = mode.life
        pips = list(mode.pips)
        for k, pip in enumerate(pips):
            candidates = sorted([c for c in self.classes if c[0] & pip],
                                key=lambda c: (c[1] and bool(pip & ANY), self.flex(c), c[0]))
            for cls in candidates:
                if units.get(cls, 0) <= 0:
                    continue
                units[cls] -= 1
                if can_pay(units, pips[k + 1:], mode.generic):
                    used[cls] = used.get(cls, 0) + 1
                    if cls[1] and pip & ANY and not pip & ~ANY & ALL:
                        life += 1
                    break
                units[cls] += 1
            else:
                raise AssertionError("a payable cost was not paid")
        need = mode.generic
        for cls in self.generic_order_now(paying):
            have = units.get(cls, 0)
            take = have if take_all else min(have, need)
            units[cls] = have - take
            used[cls] = used.get(cls, 0) + take
            need -= take
        x = sum(used.values()) - mode.mana if take_all else 0
        return used, life, x

    def tap(self, used, untapped):
        need = {}
        for cls, n in used.items():
            from_pool = min(self.pool.get(cls, 0), n)
            self.pool[cls] = self.pool.get(cls, 0) - from_pool
            need[cls] = n - from_pool
        for i in self.sources:
            if self.card(i).mana_ability_cost:
                continue
            made = {}
            for cls in self.units[i]:
                made[cls] = made.get(cls, 0) + 1
            if not any(need.get(cls, 0) > 0 for cls in made):
                continue
            copies = min(untapped[i], max(-(-need.get(cls, 0) // n) for cls, n in made.items()))
            for cls, n in made.items():
                produced = copies * n
                spent = min(produced, need.get(cls, 0))
                need[cls] = need.get(cls, 0) - spent
                self.pool[cls] = self.pool.get(cls, 0) + produced - spent
            self.tapped[i] += copies
            untapped[i] -= copies

    def activate_filters(self, untapped):
        for i in self.sources:
            cost = _generic(self.card(i).mana_ability_cost)
            if not cost:
                continue
            for _ in range(untapped[i]):
                units = self.plain_units(untapped=untapped)
                if sum(units.values()) < cost:
                    break
                for _ in range(cost):
                    units = self.plain_units(untapped=untapped)
                    cls = next(c for c in self.generic_order if units.get(c, 0) > 0)
                    self.tap({cls: 1}, untapped)
                untapped[i] -= 1
                self.tapped[i] += 1
                for cls in self.units[i]:
                    self.pool[cls] = self.pool.get(cls, 0) + 1

    def pay(self, modes, take_all=False, unavailable=None, paying=None):
        for mode in modes:
            if len(modes) > 1 and not self.payable(mode, self.unit_sets()):
                continue
            untapped = {i: self.untapped(i, unavailable) for i in self.sources}
            units = self.plain_units(untapped=untapped)
            if self.has_filters and not can_pay(units, list(mode.pips), mode.generic):
                self.activate_filters(untapped)
                units = self.plain_units(untapped=untapped)
            used, life, x = self.allocate(units, mode, take_all, paying)
            self.tap(used, untapped)
            self.totals["mana_spent"] += sum(used.values())
            self.totals["life_paid"] += life
            return x
        raise AssertionError("no payable mode")

    def can_pay_cost(self, cost, unavailable=None):
        from explore_sim.cards.costs import cost_modes
        return self.payable(cost_modes(cost)[0], self.unit_sets(unavailable))

    def pay_cost(self, cost, unavailable=None):
        from explore_sim.cards.costs import cost_modes
        self.pay([cost_modes(cost)[0]], unavailable=unavailable)

    # ---- observation
    def observation(self, card):
        lands_in_hand = sum(n for i, n in self.hand.items() if self.card(i).is_land)
        return dict(mana_value=self.card(card).mana_value, lands_in_hand=lands_in_hand,
                    lands_in_play=self.lands_in_play(), cards_in_hand=sum(self.hand.values()),
                    mana_sources=sum(self.battlefield[i] for i in self.sources))

    # ---- library
    def library_pips(self):
        return [sum(self.pips[c][k] for c in self.library) for k in range(5)]

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

    # ---- explore
    def scry_top(self):
        if not self.library:
            return
        top = self.library[0]
        self.totals["scries"] += 1
        if not self.card(top).is_land and self.scry_decide(self.observation(top)):
            self.library.append(self.library.pop(0))

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
            if step == "scry":
                self.scry_top()
                continue
            top = self.library[0] if self.library else None
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
            if self.put_land():
                self.totals["nicanzil_lands"] += 1

    # ---- lands
    def wanted_cards(self):
        """The cards the land choice plays toward: the distinct spells in hand that are cast,
        the commanders in the command zone, the cards named by ``castable``."""
        cards = [self.card(i) for i in self.spells
                 if self.hand[i] > 0 and self.priority(i) >= 0 and i not in self.commanders]
        cards += [self.card(i) for i in self.commanders if self.command[i] > 0]
        return cards + self.castable_cards

    def units_in_play(self):
        """Every plain source you control, tapped or not, as a list of unit masks."""
        units = []
        for i in self.sources:
            if not self.card(i).mana_ability_cost:
                units += [cls[0] for cls in self.units[i]] * self.battlefield[i]
        return units

    def deficit(self, card, units):
        """The fewest pips of ``card``, over its ways to pay, that no distinct unit can pay:
        ``len(pips)`` minus a largest matching of pips to units (augmenting paths)."""
        best = None
        for mode in card.cost_modes:
            pips = list(mode.pips)
            owner = [None] * len(units)

            def augment(p, seen):
                for u, mask in enumerate(units):
                    if mask & pips[p] and u not in seen:
                        seen.add(u)
                        if owner[u] is None or augment(owner[u], seen):
                            owner[u] = p
                            return True
                return False

            short = len(pips) - sum(augment(p, set()) for p in range(len(pips)))
            best = short if best is None else min(best, short)
        return best or 0

    def colour_key(self, units, colours, fetch=False):
        """Steps 3 and 4 of the land choice for a land making ``units`` (masks)."""
        wanted = self.wanted_cards()
        in_play = self.units_in_play()
        before = [self.deficit(card, in_play) for card in wanted]

        def closed(extra):
            return sum(b - self.deficit(card, in_play + extra) for card, b in zip(wanted, before))

        if fetch:  # the best basic land of the deck
            closes = max([closed([cls[0] for cls in self.units[b]]) for b in self.basics] or [0])
        else:
            closes = closed(list(units))
        short = [sum(max(0, pip_demand(card)[k] - sum(1 for u in in_play if u & bit))
                     for card in wanted) for k, bit in enumerate(COLOUR_BITS)]
        library_pips = self.library_pips()

        def demand(pips):
            return max([pips[k] for k, bit in enumerate(COLOUR_BITS) if colours & bit] or [0])

        return ((min(closes, 255) << 41) + (min(demand(short), 255) << 33)
                + (min(demand(library_pips), 4095) << 21))

    def will_use(self):
        total = sum(self.unit_sets()[-1].values())
        return any(self.hand[i] > 0 and self.cheapest(i) <= total + 1 for i in self.spells)

    def enters_untapped(self, kind, will_use):
        rule = self.card(kind).enters_tapped
        if not rule:
            return True
        if rule == "yes":
            return False
        lands = self.lands_in_play()
        if rule == "fast":
            return lands <= 2
        if rule == "slow":
            return lands >= 2
        if rule == "shock" or rule.startswith("life:"):
            return will_use
        types = rule.partition(":")[2].split("|")
        return any(self.battlefield[i] > 0 and set(types) & self.card(i).subtypes
                   for i in self.lands)

    def castable_in_hand(self, sets):
        total = sum(sets[-1].values())
        return any(self.hand[i] > 0 and self.priority(i) >= 0 and self.cheapest(i) <= total
                   and self.castable_kind(i, sets) for i in self.spells)

    def choose_land(self, land_drop, tapped=False):
        held = [(n, o) for n, o in enumerate(self.options) if self.hand[o[0]] > 0]
        if land_drop:
            if self.land_faces == "when-needed" and any(not o[2] for _, o in held):
                held = [(n, o) for n, o in held if not o[2]]
        else:
            held = [(n, o) for n, o in held if not o[2]]
        if not any(self.battlefield[i] for i in self.ids if self.card(i).is_land):
            # A bounce land with no other land to return would return itself.
            held = [(n, o) for n, o in held if self.card(o[1]).land_enters != "bounce"]
        if len(held) <= 1:
            return held[0][1] if held else None
        may_use = land_drop or not tapped  # Hakbal's land may be used in the second main phase
        will_use = False
        if may_use:
            sets = self.unit_sets()
            will_use = self.will_use()
            before = self.castable_in_hand(sets)
        best, best_key = None, None
        for n, (card, kind, spell_face) in held:
            key = 0
            fetch = self.card(kind).fetch_when == "sacrifice"
            colours = self.basic_colours if fetch else self.colours_of(kind)
            untapped = self.enters_untapped(kind, will_use)
            if fetch:  # the land it finds enters tapped (a Passage's, from the 4th land on)
                untapped = self.card(kind).fetch == "basic_passage" and self.lands_in_play() >= 3
            key += (untapped == will_use) << 49
            if may_use:
                enables = False
                if untapped and not before:
                    more = []
                    for units in sets:
                        extra = dict(units)
                        for cls in self.units[kind]:
                            extra[cls] = extra.get(cls, 0) + 1
                        more.append(extra)
                    enables = self.castable_in_hand(more)
                key += enables << 50
            key += self.colour_key([cls[0] for cls in self.units[kind]], colours, fetch)
            key += (popcount(colours) * 4 + (not spell_face) * 2) * 1000 - n + (1 << 20)
            if best_key is None or key > best_key:
                best, best_key = (card, kind, spell_face), key
        return best

    def play_land(self):
        option = self.choose_land(True) if self.land_drops > 0 else None
        if option is None:
            return False
        self.land_drops -= 1
        self.played_land = True
        self.hand[option[0]] -= 1
        self.land_enters(option[1], tapped=False, land_drop=True)
        return True

    def put_land(self, tapped=True):
        option = self.choose_land(False, tapped)
        if option is None:
            return False
        self.hand[option[0]] -= 1
        self.land_enters(option[1], tapped=tapped)
        return True

    def land_enters(self, kind, tapped, land_drop=False):
        card = self.card(kind)
        if not land_drop:
            self.totals["lands_put"] += 1
        rule = card.enters_tapped
        if tapped or rule == "yes":
            enters_tapped = True
        elif not rule:
            enters_tapped = False
        else:
            untapped = self.enters_untapped(kind, self.will_use())
            enters_tapped = not untapped
            if untapped and (rule == "shock" or rule.startswith("life:")):
                self.totals["life_paid"] += 2 if rule == "shock" else int(rule[5:])
        if enters_tapped:
            self.tapped[kind] += 1
            if land_drop:
                self.totals["tapped_lands_played"] += 1
        self.enters(kind)
        if card.land_enters == "scry":
            self.scry_top()
        elif card.land_enters == "bounce":
            self.bounce(kind)
        if card.fetch_when == "sacrifice":
            if self.battlefield[kind] - self.tapped[kind] > 0 and self.basics_in_library():
                self.sacrifice(kind)
                self.search(card.fetch)
                if land_drop and (card.fetch != "basic_passage" or self.lands_in_play() < 4):
                    self.totals["tapped_lands_played"] += 1  # the land it found is tapped

    def bounce(self, bounce_land):
        best, best_key = bounce_land, None
        for n, i in enumerate(self.lands):
            present = self.battlefield[i] - (1 if i == bounce_land else 0)
            if present <= 0:
                continue
            key = ((self.tapped[i] > 0) << 20) + ((8 - popcount(self.colours_of(i))) << 12) + 4095 - n
            if best_key is None or key > best_key:
                best, best_key = i, key
        if self.units[best] and self.untapped(best) > 0:  # tapped for mana first
            for cls in self.units[best]:
                self.pool[cls] = self.pool.get(cls, 0) + 1
            self.tapped[best] += 1
        self.battlefield[best] -= 1
        self.tapped[best] = min(self.tapped[best], self.battlefield[best])
        self.sick[best] = min(self.sick[best], self.battlefield[best])
        self.hand[self.face_of.get(best, best)] += 1

    def sacrifice(self, kind):
        self.battlefield[kind] -= 1
        self.sick[kind] = min(self.sick[kind], self.battlefield[kind])
        self.tapped[kind] = min(self.tapped[kind], self.battlefield[kind])
        self.graveyard += 1

    def basics_in_library(self):
        return [i for i in self.basics if i in self.library]

    def take_basic(self, same_type_as=None):
        best, best_key = None, None
        for n, i in enumerate(self.basics):
            if i not in self.library:
                continue
            if same_type_as is not None and not self.card(i).subtypes & self.card(same_type_as).subtypes:
                continue
            key = self.colour_key([cls[0] for cls in self.units[i]], self.colours_of(i)) + (1 << 20) - n
            if best_key is None or key > best_key:
                best, best_key = i, key
        if best is not None:
            j = self.library.index(best)
            self.library[0], self.library[j] = self.library[j], self.library[0]
            self.library.pop(0)
        return best

    def search(self, how):
        if how in ("basic_tapped", "basic_passage"):
            found = self.take_basic()
            untap = how == "basic_passage" and self.lands_in_play() + 1 >= 4
            if found is not None:
                self.land_enters(found, tapped=True)
                if untap:
                    self.tapped[found] -= 1
        elif how == "basic_hand":
            found = self.take_basic()
            if found is not None:
                self.hand[found] += 1
        elif how == "basic_tapped_and_hand":
            first, second = self.take_basic(), None
            second = self.take_basic()
            if first is not None:
                self.land_enters(first, tapped=True)
            if second is not None:
                self.hand[second] += 1
        elif how == "two_basics_tapped":
            first = self.take_basic()
            second = self.take_basic(same_type_as=first) if first is not None else None
            for found in (first, second):
                if found is not None:
                    self.land_enters(found, tapped=True)
        self.library.reverse()  # the stand-in for a shuffle

    # ---- permanents
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
        if card.fetch_when == "enter":
            self.search(card.fetch)

    # ---- casting
    def taxed_modes(self, i):
        import dataclasses
        casts = self.command_casts[i]
        return [dataclasses.replace(m, generic=m.generic + 2 * casts)
                for m in self.card(i).cost_modes]

    def castable(self, i):
        card = self.card(i)
        if i in self.commanders:  # from the command zone, with its tax
            return (self.command[i] > 0 and self.priority(i) >= 0
                    and any(self.payable(m, self.unit_sets()) for m in self.taxed_modes(i)))
        if self.hand[i] == 0 or self.priority(i) < 0:
            return False
        sets = self.unit_sets()
        total = sum(sets[-1].values())
        if self.cheapest(i) > total or (card.explores_x and total < card.mana_value + 1):
            return False
        if card.explores_when == "cast" and card.explore_targets and self.creature_count() == 0:
            return False
        return self.castable_kind(i, sets)

    def cast_one(self):
        options = [i for i in self.spells if self.castable(i)]
        if not options:
            return False
        best = max(options, key=lambda i: (self.priority(i), -i))
        self.cast(best)
        return True

    def cast(self, kind):
        card = self.card(kind)
        if kind in self.commanders:
            x = self.pay(self.taxed_modes(kind), take_all=card.explores_x, paying=kind)
            self.totals["commander_tax_paid"] += 2 * self.command_casts[kind]
            self.totals["commander_cast"] += 1
            self.command_casts[kind] += 1
            self.command[kind] -= 1
        else:
            x = self.pay(list(card.cost_modes), take_all=card.explores_x, paying=kind)
            self.hand[kind] -= 1
        self.totals["cards_cast"] += 1
        if card.is_permanent:
            self.enters(kind, x if card.explores_x else None)
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
        if card.fetch_when == "cast":
            self.search(card.fetch)

    def equip(self):
        lanterns = [i for i in self.ids if self.card(i).explores_when == "equipped_attack"]
        if not lanterns:
            return False
        free = sum(self.battlefield[i] for i in lanterns) - self.equipped
        cost = self.card(lanterns[0]).ability_cost
        if free > 0 and self.creature_count() > 0 and self.can_pay_cost(cost):
            self.pay_cost(cost)
            self.equipped += 1
            return True
        return False

    def activate_map(self):
        target = self.pick_creature()
        if not self.use_maps or self.maps == 0 or not self.can_pay_cost("{1}") or target is None:
            return False
        self.maps -= 1
        self.pay_cost("{1}")
        self.totals["maps_used"] += 1
        self.explore_instruction(target, 1, True)
        return True

    def activate_seekers(self):
        progressed = False
        for i in self.ids:
            card = self.card(i)
            if card.explores_when == "activated" and card.ability_mana > 0:
                if self.battlefield[i] > 0 and self.can_pay_cost(card.ability_cost):
                    self.pay_cost(card.ability_cost)
                    self.explore_instruction(i, 1, False)
                    progressed = True
        return progressed

    def activate_searches(self):
        progressed = False
        for i in self.ids:
            card = self.card(i)
            if card.fetch_when != "activated":
                continue
            if (self.battlefield[i] - self.tapped[i] > 0 and self.basics_in_library()
                    and self.can_pay_cost(card.ability_cost, (i, 1))):
                self.pay_cost(card.ability_cost, (i, 1))
                self.sacrifice(i)
                self.search(card.fetch)
                progressed = True
        return progressed

    def record_main_phase(self):
        sets = self.unit_sets()
        total = sum(sets[-1].values())
        self.main["mana_available"] = total
        self.main["colour_screwed"] = int(any(
            self.hand[i] > 0 and self.priority(i) >= 0 and self.cheapest(i) <= total
            and not self.castable_kind(i, sets, x_rule=False) for i in self.spells))
        for card in self.castable_cards:
            self.main[f"castable:{card.name}"] = int(any(
                self.payable(mode, sets) for mode in card.cost_modes))

    def main_phase(self, second):
        for step in range(60):
            progressed = self.play_land()
            if step == 0 and not second:
                self.record_main_phase()
            progressed = self.cast_one() or progressed
            if not progressed:
                progressed = self.equip()
            if not progressed and second:
                progressed = (self.activate_map() or self.activate_seekers()
                              or self.activate_searches())
            if not progressed:
                break
        self.pool = {}

    # ---- combat
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
                ready = self.battlefield[i] - self.sick[i] - self.tapped[i] > 0
                if ready and self.can_pay_cost(card.ability_cost, (i, 1)):
                    self.pay_cost(card.ability_cost, (i, 1))
                    self.tapped[i] += 1
                    anchorage_attacks += 1
        attackers = {}
        for i in self.ids:
            card = self.card(i)
            if not card.is_creature or self.units[i]:  # a mana creature stays back for its mana
                attackers[i] = 0
            else:
                ready = self.battlefield[i] if card.has_keyword("haste") else self.battlefield[i] - self.sick[i]
                attackers[i] = max(ready - self.tapped[i], 0)
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
        for i in self.ids:  # Hakbal: a land card from hand onto the battlefield, else a card
            if self.card(i).extra_land == "attack_or_draw":
                for _ in range(attackers[i]):
                    if not self.put_land(tapped=False):
                        self.draw()
        if any_attacker:
            first = next(i for i in self.ids if attackers[i] > 0)
            for _ in range(min(self.equipped, sum(attackers.values()))):
                self.explore_instruction(first, 1, False)
        for i in self.ids:
            if self.card(i).explores_when == "combat_damage":
                for _ in range(min(attackers[i], self.battlefield[i])):
                    self.explore_instruction(i, 1, False)
        self.pool = {}

    # ---- turns
    def play_turn(self):
        self.turn += 1
        self.sick = dict.fromkeys(self.sick, 0)
        self.tapped = dict.fromkeys(self.tapped, 0)
        self.pool = {}
        extra = self.count(lambda c: c.extra_land == "each_turn")
        self.land_drops = 1 + extra
        self.totals["extra_land_drops"] += extra
        self.played_land = False
        if self.turn == 1:
            for i in self.commanders:
                self.command[i] = 1
        if self.turn > 1 or not self.on_play or self.commanders:
            self.draw()
        self.main_phase(second=False)
        self.combat()
        self.main_phase(second=True)
        excess = sum(self.hand.values()) - self.hand_limit
        order = sorted(self.ids, key=lambda i: (not self.card(i).is_land, self.card(i).mana_value,
                                                not self.units[i], -i), reverse=True)
        for i in order:
            drop = min(max(excess, 0), self.hand[i])
            self.hand[i] -= drop
            self.graveyard += drop
            excess -= drop

    def metrics(self):
        out = dict(self.totals)
        out.update(self.main)
        lands = self.lands_in_play()
        out["counters"] = out["explore_counters"] + out["trigger_counters"]
        out["lands_played"] = lands
        out["on_curve"] = int(lands >= self.turn)
        out["land_drop"] = int(self.played_land)
        out["creatures"] = self.creature_count()
        out["hand_size"] = sum(self.hand.values())
        return out


def _generic(cost):
    """The generic mana of a simple cost such as "{1}" (0 for none)."""
    import re
    return sum(int(n) for n in re.findall(r"\{(\d+)\}", cost or ""))
