"""Frozen deck tables: every per-card array a goldfish game reads, built once per deck and game.

:class:`DeckTables` is built from the cards layer's :class:`~explore_sim.cards.FeatureTable`
and a :class:`~explore_sim.engine.config.GameConfig`, before any game is played; while games
are played the engine reads only these arrays and never a :class:`~explore_sim.cards.Card`.
Both engines read them: the vectorised turn loop (:mod:`explore_sim.engine.goldfish`) and
the compiled one. Card ids index every per-card array (id 0 is ``EMPTY``, no card).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np

from ..cards import Card, Catalog, FeatureTable
from ..cards.features import FETCH_CODES, FETCH_WHEN_CODES, LAND_ENTERS_CODES
from ..cards.mana import ANY_COLOUR
from ..errors import OptionError, clip
from .config import GameConfig, is_commander_game
from .paying import ManaTables

__all__ = ["DeckTables", "LandOptions", "ColourNeeds", "CastingOrder", "BASIC_GROUPS",
           "COLOUR_BITS", "NO_LIFE_TIEBREAK"]

#: Colour bits in W U B R G order.
COLOUR_BITS = (1, 2, 4, 8, 16)
#: Groups of permanents counted before the abilities' own: lands, creatures, mana sources.
BASIC_GROUPS: tuple[tuple[str, Callable[[Card], bool] | None], ...] = (
    ("land", lambda card: card.is_land),
    ("creature", lambda card: card.is_creature),
    ("source", None),  # a mana source (FeatureTable.is_source)
)
_SACRIFICE = FETCH_WHEN_CODES.index("sacrifice")
_PASSAGE = FETCH_CODES.index("basic_passage")
_BOUNCE = LAND_ENTERS_CODES.index("bounce")


#: Step 5 of the land choice: added to the tiebreak of a land that pays no life to enter
#: untapped, more than the rest of the tiebreak (colours, a land card) can add.
NO_LIFE_TIEBREAK = 30_000
#: :attr:`DeckTables.castable_cheapest` without a card named by ``castable``.
NO_CASTABLE_COST = 1 << 30

@dataclasses.dataclass(frozen=True, eq=False)
class LandOptions:
    """The ways a deck's lands can be played: ``(card in hand, permanent on the battlefield)``.

    Attributes
    ----------
    card, kind : ndarray of intp, shape (n_options,)
        The card that leaves the hand and the id that enters (a land face's id for a
        Pathway's back or a spell // land card).
    is_spell_face, is_land_card : ndarray of bool
        The option plays a spell's land face, or a land card.
    is_bounce : ndarray of bool
        The option is a bounce land (it returns a land you control to hand).
    is_fetch : ndarray of bool
        A land that sacrifices itself to search for a basic land (Evolving Wilds).
    is_passage : ndarray of bool
        A fetch whose land is untapped once you control four lands (Fabled Passage).
    colours : ndarray of int64
        Colours the option's mana can be (W U B R G bits); a fetch's are the deck's basics'.
    units : ndarray, shape (n_options, n_classes), int32
        Mana units the option makes.
    basic_units : ndarray, shape (n_basic_kinds, n_classes), int32
        Units of each basic land kind of the deck (what a fetch may find).
    tiebreak : ndarray of int64
        Step 5 of the choice, larger first.
    tapped_rule, tapped_arg : ndarray, shape (n_options,)
        How the option's land enters (:data:`~explore_sim.cards.features.TAPPED_RULES`).
    """

    card: np.ndarray
    kind: np.ndarray
    is_spell_face: np.ndarray
    is_land_card: np.ndarray
    is_bounce: np.ndarray
    is_fetch: np.ndarray
    is_passage: np.ndarray
    colours: np.ndarray
    units: np.ndarray
    basic_units: np.ndarray
    tiebreak: np.ndarray
    tapped_rule: np.ndarray
    tapped_arg: np.ndarray

    @classmethod
    def build(cls, f: FeatureTable, land_faces: str, basic_ids: np.ndarray,
              land_colours: np.ndarray) -> LandOptions:
        cards, kinds, spell_face = [], [], []
        for card_id in range(1, f.n_deck + 1):
            face = int(f.land_face[card_id])
            if f.is_land[card_id]:
                cards.append(card_id)
                kinds.append(card_id)
                spell_face.append(False)
                if face:  # a Pathway: either face
                    cards.append(card_id)
                    kinds.append(face)
                    spell_face.append(False)
            elif face and land_faces != "never":
                cards.append(card_id)
                kinds.append(face)
                spell_face.append(True)
        kind = np.array(kinds, dtype=np.intp)
        is_spell_face = np.array(spell_face, dtype=bool)
        class_mask = np.array([mask for mask, _ in f.unit_classes], dtype=np.int64)
        units = f.source_units[kind].astype(np.int32)
        is_fetch = f.fetch_when[kind] == _SACRIFICE
        # A fetch land may find any basic land of the deck: its colours are theirs.
        basic_colours = int(np.bitwise_or.reduce(land_colours[basic_ids], initial=0))
        colours = np.array([
            basic_colours if fetch else
            np.bitwise_or.reduce(class_mask[row > 0] & ANY_COLOUR) if (row > 0).any() else 0
            for row, fetch in zip(units, is_fetch)], dtype=np.int64)
        n_colours = np.array([bin(int(c)).count("1") for c in colours])
        tiebreak = (n_colours * 4 + (~is_spell_face) * 2).astype(np.int64) * 1000 \
            - np.arange(len(cards))
        return cls(
            card=np.array(cards, dtype=np.intp), kind=kind, is_spell_face=is_spell_face,
            is_land_card=~is_spell_face, is_bounce=f.land_enters[kind] == _BOUNCE,
            is_fetch=is_fetch, is_passage=is_fetch & (f.fetch[kind] == _PASSAGE),
            colours=colours, units=units,
            basic_units=f.source_units[basic_ids].astype(np.int32), tiebreak=tiebreak,
            tapped_rule=f.tapped_rule[kind], tapped_arg=f.tapped_arg[kind].astype(np.int64))


@dataclasses.dataclass(frozen=True, eq=False)
class ColourNeeds:
    """What the wanted cards of a game need, for steps 3 and 4 of the land choice.

    Wanted cards with the same pips (every symbol but generic mana, ``{C}`` and ``{S}``
    included, in every way to pay them) share a *profile*; cards with no pip need nothing
    and have none.

    Attributes
    ----------
    profile_modes : tuple of tuple of int
        The :class:`~explore_sim.engine.paying.ManaTables` mode indices of each profile.
    hand_profiles : ndarray of int32, shape (len(cast_ids), n_profiles)
        One-hot profile of each spell the casting order casts.
    commander_profiles : ndarray of int32, shape (len(commander_ids), n_profiles)
    castable_profiles : ndarray of int32, shape (n_profiles,)
        Profiles of the cards named by ``castable`` (always wanted).
    pips : ndarray of int32, shape (n_profiles, 5)
        Pips of each colour (W U B R G) in a profile's first mode.
    colour_units : ndarray of int32, shape (n_classes, 5)
        Whether a unit of each class can be each colour.
    """

    profile_modes: tuple[tuple[int, ...], ...]
    hand_profiles: np.ndarray
    commander_profiles: np.ndarray
    castable_profiles: np.ndarray
    pips: np.ndarray
    colour_units: np.ndarray

    @property
    def n_profiles(self) -> int:
        return len(self.profile_modes)

    @classmethod
    def build(cls, mana: ManaTables, kind_modes: Sequence[Sequence[int]], cast_ids: np.ndarray,
              commander_ids: np.ndarray, castable_modes: Sequence[Sequence[int]]) -> ColourNeeds:
        profiles: dict[bytes, int] = {}
        profile_modes: list[tuple[int, ...]] = []

        def profile_of(modes: Sequence[int]) -> int:
            if not modes or not any(mana.modes[m].pips for m in modes):
                return -1
            key = b"".join(mana.req[m].tobytes() for m in modes)
            if key not in profiles:
                profiles[key] = len(profile_modes)
                profile_modes.append(tuple(modes))
            return profiles[key]

        hand = [profile_of(kind_modes[k]) for k in cast_ids.tolist()]
        commanders = [profile_of(kind_modes[k]) for k in commander_ids.tolist()]
        extra = [profile_of(modes) for modes in castable_modes]
        n = len(profile_modes)

        def one_hot(indices: list[int]) -> np.ndarray:
            table = np.zeros((len(indices), n), dtype=np.int32)
            for row, p in enumerate(indices):
                if p >= 0:
                    table[row, p] = 1
            return table

        pips = np.array([[sum(1 for pip in mana.modes[modes[0]].pips if pip & bit)
                          for bit in COLOUR_BITS] for modes in profile_modes],
                        dtype=np.int32).reshape(n, 5)
        colour_units = ((mana.class_mask[:, None] & np.array(COLOUR_BITS)[None, :]) != 0
                        ).astype(np.int32)
        return cls(tuple(profile_modes), one_hot(hand), one_hot(commanders),
                   one_hot(extra).sum(axis=0).astype(np.int32), pips, colour_units)


@dataclasses.dataclass(frozen=True, eq=False)
class CastingOrder:
    """Which spells are cast, in what order, and what each costs.

    Attributes
    ----------
    priority : ndarray of float64, shape (n_cards + 1,)
        Higher is cast first; -1: never cast (lands).
    kind_modes : tuple of tuple of int
        Each card id's :class:`~explore_sim.engine.paying.ManaTables` mode indices.
    first_mode, cheapest : ndarray, shape (n_cards + 1,)
        A card's first mode, and the least mana any of its modes takes.
    multi_mode_ids : ndarray of intp
        Cards with more than one way to pay (split cards, Phyrexian and {2/G} pips).
    cast_ids : ndarray of intp
        The spells the casting order casts, by id.
    pass_ids : ndarray of intp
        The casting pass's columns, in casting order (commanders included).
    pass_commanders : tuple of (int, int)
        ``(column, card id)`` of the commanders among :attr:`pass_ids`.
    pass_x, pass_targeted, pass_legendary, pass_payoff, cast_x : ndarray of intp
        Columns of X spells (Jadelight Spelunker), of spells that target a creature you
        control, of legendary permanents and of explore payoffs (:data:`PAYOFF_TRIGGERS`)
        in :attr:`pass_ids`, and of X spells in :attr:`cast_ids`.
    base_rank : ndarray of int64, shape (n_cards + 1,)
        Each card's place in the order without the commanders' and payoffs' groups (0 first;
        the cards never cast last): a payoff is cast before a spell it would follow there
        only when the mana pays both (:func:`~explore_sim.engine.casting.cast_pass`).
    pass_lookup, cast_lookup : ndarray of bool or None
        Whether each row of :attr:`ManaTables.lookup` pays each column's card in any of its
        ways; None when the deck has no lookup table.
    """

    priority: np.ndarray
    kind_modes: tuple[tuple[int, ...], ...]
    first_mode: np.ndarray
    cheapest: np.ndarray
    multi_mode_ids: np.ndarray
    cast_ids: np.ndarray
    pass_ids: np.ndarray
    pass_commanders: tuple[tuple[int, int], ...]
    pass_x: np.ndarray
    pass_targeted: np.ndarray
    pass_legendary: np.ndarray
    pass_payoff: np.ndarray
    base_rank: np.ndarray
    cast_x: np.ndarray
    pass_lookup: np.ndarray | None
    cast_lookup: np.ndarray | None


@dataclasses.dataclass(frozen=True, eq=False)
class DeckTables:
    """Everything the engine reads about one deck in one kind of game.

    Attributes
    ----------
    features : FeatureTable
        The per-card arrays of the cards layer.
    n_kinds : int
        Card ids are ``0 .. n_kinds - 1`` (0: no card).
    is_commander : bool
        A Commander game.
    commander_ids : ndarray of intp
        The commanders' ids (empty outside a Commander game).
    castable_cards : tuple of Card
        The cards whose ``castable:NAME`` is taken.
    mana : ManaTables
        The mana model: unit classes, every way to pay, the exact test and its lookup table.
    castable_card_modes : tuple of tuple of int
        The mode indices of each of :attr:`castable_cards`.
    cost : ndarray of int32, shape (n_cards + 1,)
        Mana values.
    land_ids, basic_ids, spell_ids, merfolk_ids, x_ids : ndarray of intp
        Land cards; basic lands of the deck; nonland cards; Merfolk creatures; X explorers.
    needs_creature_target : ndarray of bool, shape (n_cards + 1,)
        A spell that needs a creature you control as its target (it makes target creature
        you control explore, or its ``target`` is ``creature``): cast only while you
        control one.
    held_ids : ndarray of intp
        Spells and auras whose target only an opponent has (``target = "opponent"``), and
        instants and sorceries none of whose effects the game plays (``held_reason``):
        never cast in a goldfish game (no priority), discarded first.
    discard_order : ndarray of int64
        The card ids in the order cleanup discards them: the held spells, then the most
        expensive spells (of two that cost the same, neither a mana source nor ramp first),
        lands last, then the lower id.
    land_colours : ndarray of int64, shape (n_cards + 1,)
        The colours each source's mana can be.
    lands : LandOptions
    casting : CastingOrder
    colour_needs : ColourNeeds
    groups : tuple of str
        The groups of permanents counted as they enter and leave: :data:`BASIC_GROUPS`, then
        the abilities (in registry order).
    members : ndarray of int16, shape (n_cards + 1, n_groups)
        Whether each card id is in each group (row 0, no card, in none; read-only).
    groups_of : tuple of tuple of int
        For each card id, its groups (the nonzero columns of :attr:`members`).
    ids : dict of str to ndarray of intp
        The card ids of each group.
    ability_cost_mode : ndarray of intp, shape (n_cards + 1,)
        The mode index of each card's activated ability cost (``{2}`` equip, Seeker's
        ``{2}{G}``, ...), -1 for none.
    """

    features: FeatureTable
    n_kinds: int
    is_commander: bool
    commander_ids: np.ndarray
    castable_cards: tuple[Card, ...]
    mana: ManaTables
    castable_card_modes: tuple[tuple[int, ...], ...]
    cost: np.ndarray
    land_ids: np.ndarray
    basic_ids: np.ndarray
    spell_ids: np.ndarray
    merfolk_ids: np.ndarray
    x_ids: np.ndarray
    needs_creature_target: np.ndarray
    held_ids: np.ndarray
    discard_order: np.ndarray
    land_colours: np.ndarray
    lands: LandOptions
    casting: CastingOrder
    colour_needs: ColourNeeds
    groups: tuple[str, ...]
    members: np.ndarray
    groups_of: tuple[tuple[int, ...], ...]
    ids: dict[str, np.ndarray]
    ability_cost_mode: np.ndarray

    @property
    def castable_cheapest(self) -> int:
        """The least mana a card named by ``castable`` can be cast for (X = 0); a number no
        game reaches when none is named. The land choice counts those cards as held
        (docs/mana.md, steps 1 and 2)."""
        return min((mode.mana for card in self.castable_cards for mode in card.cost_modes),
                   default=NO_CASTABLE_COST)

    def group(self, name: str) -> int:
        """The column of group ``name`` in :attr:`members` (and ``GameState.permanents``)."""
        return self.groups.index(name)

    @classmethod
    def build(cls, features: FeatureTable, config: GameConfig,
              abilities: Sequence[tuple[str, Callable[[Card], bool], str]],
              held_reason: Callable[[Card], str]) -> DeckTables:
        """The tables of a deck's games with ``config``.

        Parameters
        ----------
        features : FeatureTable
        config : GameConfig
        abilities : sequence of (name, pattern, ability cost field)
            The ability registry's entries: each ability's group name, the card-data
            pattern of its members, and the card field holding its activation cost ("" for
            none), in registry order.
        held_reason : callable
            ``held_reason(card)``: why the game never casts the card, or "" when it casts it
            (:func:`~explore_sim.engine.abilities.held_reason`).

        Returns
        -------
        DeckTables
        """
        cards = features.cards
        n_kinds = len(features)
        ids = np.arange(1, n_kinds)

        def kinds(predicate: Callable[[Card], bool]) -> np.ndarray:
            return np.array([i for i, card in zip(ids, cards) if predicate(card)], dtype=np.intp)

        groups = [*BASIC_GROUPS, *((name, pattern) for name, pattern, _ in abilities)]
        members = np.zeros((n_kinds, len(groups)), dtype=np.int16)
        for g, (_, belongs) in enumerate(groups):
            if belongs is None:
                members[:, g] = features.is_source
            else:
                members[1:, g] = [belongs(card) for card in cards]
        members.flags.writeable = False
        group_ids = {name: np.flatnonzero(members[:, g]).astype(np.intp)
                     for g, (name, _) in enumerate(groups)}
        basic_ids = kinds(lambda c: c.is_land and "basic" in c.type_line.split("—")[0].casefold())
        basic_ids = basic_ids[basic_ids <= features.n_deck]
        is_commander = is_commander_game(config, features)
        commander_ids = features.commander_ids if is_commander else np.zeros(0, dtype=np.intp)
        # Every cost that may be paid: the cards', activated abilities', castable cards'.
        cost_fields = {name: field for name, _, field in abilities if field}
        ability_costs = {i: getattr(cards[i - 1], cost_fields[name])
                         for name in cost_fields for i in group_ids[name].tolist()}
        held_ids = kinds(lambda c: bool(held_reason(c)))
        needs_target = np.array([False] + [
            (c.explores_when == "cast" and c.explore_targets) or c.target == "creature"
            for c in cards])
        legendary = np.array([False] + [c.is_legendary for c in cards])
        priority, base = _cast_priority(features, config.cast_order, held_reason, commander_ids)
        ranked = np.flatnonzero(priority >= 0)
        mana = ManaTables(features, ["{1}", *ability_costs.values()], config.castable,
                          taxed=commander_ids.tolist(), never_cast=held_ids.tolist(),
                          waits=(np.flatnonzero(legendary), np.flatnonzero(needs_target)),
                          casting_order=ranked[np.argsort(_ranks(base)[ranked])])
        ability_cost_mode = np.full(n_kinds, -1, dtype=np.intp)
        for i, cost in ability_costs.items():
            ability_cost_mode[i] = mana.cost_mode[cost]
        class_mask = mana.class_mask
        land_colours = np.array(
            [int(np.bitwise_or.reduce(class_mask[row > 0])) & ANY_COLOUR if (row > 0).any() else 0
             for row in features.source_units], dtype=np.int64)
        spell_ids = kinds(lambda c: not c.is_land)
        x_ids = kinds(lambda c: c.explores_x)
        casting = _casting_order(mana, (priority, base), spell_ids, x_ids, needs_target,
                                 legendary, commander_ids, n_kinds)
        castable_card_modes = tuple(tuple(m) for m in mana.extra_card_modes)
        return cls(
            features=features, n_kinds=n_kinds, is_commander=is_commander,
            commander_ids=commander_ids, castable_cards=tuple(config.castable), mana=mana,
            castable_card_modes=castable_card_modes,
            cost=features.mana_value.astype(np.int32),
            land_ids=kinds(lambda c: c.is_land), basic_ids=basic_ids, spell_ids=spell_ids,
            merfolk_ids=kinds(lambda c: c.is_creature and "merfolk" in c.subtypes),
            x_ids=x_ids, needs_creature_target=needs_target, held_ids=held_ids,
            discard_order=_discard_order(features, held_ids), land_colours=land_colours,
            lands=LandOptions.build(features, config.land_faces, basic_ids, land_colours),
            casting=casting,
            colour_needs=ColourNeeds.build(mana, casting.kind_modes, casting.cast_ids,
                                           commander_ids, castable_card_modes),
            groups=tuple(name for name, _ in groups), members=members,
            groups_of=tuple(tuple(np.flatnonzero(row).tolist()) for row in members),
            ids=group_ids, ability_cost_mode=ability_cost_mode,
        )


#: Explore triggers that pay off explores in a goldfish game (counters, life, damage): their
#: permanents are cast before the cards that explore (Lurking Chupacabra's trigger needs an
#: opponent's creature, and does nothing here).
PAYOFF_TRIGGERS = ("walker", "cave_diver", "caravel", "nicanzil")
#: The casting order's groups of commanders, of explore payoffs and of ramp
#: (:func:`_cast_priority`).
_COMMANDERS, _PAYOFFS, _RAMP = 3000, 2000, 1500


def _cast_priority(features: FeatureTable, cast_order: Sequence[str],
                   held_reason: Callable[[Card], str],
                   commander_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A score per card id (higher is cast first; -1: never cast), and the score without the
    commanders' and payoffs' groups (:attr:`CastingOrder.base_rank`).

    Default: a commander first (from the command zone), then the permanents that pay off
    explores (:data:`PAYOFF_TRIGGERS`: cast before the explores they count, when the mana
    also pays the spell cast otherwise; the casting pass checks that), then ramp (mana rocks
    and spells that put a land onto the battlefield, :attr:`FeatureTable.ramps`, but mana
    creatures: Sol Ring, Simic Signet, Cultivate; what they add pays for the rest sooner),
    then the cards that explore or make Maps, then everything else; within each group the
    most expensive first, and of two that cost the same a mana source or ramp first
    (Llanowar Elves before a vanilla one-drop, after Cenote Scout, an explorer); Jadelight
    Spelunker after the other explore and Map makers (X takes the mana left). Names in
    ``cast_order`` come before all of these, in the given order. Remaining ties go to the
    lower id (by name). A spell whose target only an opponent has (``target = "opponent"``)
    is never cast, nor one none of whose effects the game plays (``held_reason``).
    """
    score = np.full(len(features), -1.0)
    base = np.full(len(features), -1.0)
    deck = features.cards[: features.n_deck]
    catalog = Catalog(deck)
    commanders = set(np.asarray(commander_ids).tolist())
    for i, card in enumerate(deck, start=1):
        if card.is_land or held_reason(card):
            continue
        makes_value = card.explores > 0 or card.explores_x or card.maps > 0
        assert card.mana_value is not None  # Card sets it from the cost when not given
        # Ramp first but a mana creature: it makes nothing the turn it comes (summoning
        # sickness), and cast before the turn's explorer it leaves mana unspent (measured: less
        # mana spent and damage dealt in the shipped decks with Llanowar Elves).
        ramp = features.ramps[i] and not card.is_creature
        group = _RAMP if ramp else 1000 if makes_value else 0
        score[i] = group + card.mana_value
        score[i] += 0.5 * bool(features.ramps[i])  # a mana source or ramp first at equal cost
        if card.explores_x and group == 1000:
            score[i] = 500  # after the other explore / Map makers, before the rest
        base[i] = score[i]
        if i in commanders:
            score[i] += _COMMANDERS
        elif card.explore_trigger in PAYOFF_TRIGGERS:
            score[i] += _PAYOFFS - group
    for rank, name in enumerate(cast_order):
        found = catalog.find(name)
        if found is None:
            raise OptionError(f"cast_order: {clip(name)!r} is not in the deck"
                              f"{catalog.suggestion_text(name)}")
        if found.is_land:
            raise OptionError(f"cast_order: {found.name!r} is a land, not a spell")
        if found.target == "opponent":
            raise OptionError(f"cast_order: {found.name!r} needs a target only an opponent "
                              "has: a goldfish game never casts it")
        if held_reason(found):
            raise OptionError(f"cast_order: {found.name!r} has no effect a goldfish game "
                              "plays: it is never cast")
        score[features.id_of(found)] = 10_000 - rank
    return score, base


def _ranks(score: np.ndarray) -> np.ndarray:
    """Each card id's place when ordered by ``score``, highest first, ties to the lower id."""
    order = np.lexsort((np.arange(len(score)), -score))
    ranks = np.empty(len(score), dtype=np.int64)
    ranks[order] = np.arange(len(score))
    return ranks


def _discard_order(features: FeatureTable, held_ids: np.ndarray) -> np.ndarray:
    """:attr:`DeckTables.discard_order`: held spells first, then the most expensive spells
    (of two that cost the same, the one that is neither a mana source nor ramp), lands last,
    then the lower id."""
    held = np.zeros(len(features), dtype=bool)
    held[held_ids] = True
    order = sorted(range(1, len(features)), key=lambda i: (
        held[i], not features.is_land[i], features.mana_value[i], not features.ramps[i],
        -i), reverse=True)
    return np.array(order, dtype=np.int64)


def _casting_order(mana: ManaTables, priorities: tuple[np.ndarray, np.ndarray],
                   spell_ids: np.ndarray,
                   x_ids: np.ndarray, needs_target: np.ndarray, legendary: np.ndarray,
                   commander_ids: np.ndarray, n_kinds: int) -> CastingOrder:
    """``priorities``: :func:`_cast_priority`'s scores, with and without the commanders' and
    payoffs' groups; ``needs_target`` and ``legendary``: per card id, whether it needs a
    creature you control as its target, and whether it is a legendary permanent."""
    priority, base = priorities
    kind_modes = tuple(tuple(mana.card_modes.get(k, [])) for k in range(n_kinds))
    first_mode = np.array([m[0] if m else 0 for m in kind_modes], dtype=np.intp)
    # The least mana each spell can be cast for (a split card's cheaper half), for the quick
    # "enough mana?" tests before the exact one.
    cheapest = mana.cheapest
    multi_mode_ids = np.array([k for k, m in enumerate(kind_modes) if len(m) > 1],
                              dtype=np.intp)
    # Spells the casting order casts; the casting pass's columns (commanders included), in
    # casting order: highest priority first, ties to the lower id, so that the first
    # candidate of a row is the one it casts.
    cast_ids = spell_ids[priority[spell_ids] >= 0]
    ranked = np.flatnonzero(priority >= 0)
    pass_ids = ranked[np.lexsort((ranked, -priority[ranked]))].astype(np.intp)
    pass_commanders = tuple((j, int(k)) for j, k in enumerate(pass_ids) if k in commander_ids)
    pass_lookup = cast_lookup = None
    lookup = mana.lookup
    if lookup is not None:  # each row of the lookup table, for every card in any of its ways
        card = lookup[:, first_mode].copy()  # (n_keys, n_kinds)
        for kind in multi_mode_ids.tolist():
            for other in kind_modes[kind][1:]:
                card[:, kind] |= lookup[:, other]
        pass_lookup = np.ascontiguousarray(card[:, pass_ids])
        pass_lookup[:, [j for j, _ in pass_commanders]] = True  # checked with tax
        cast_lookup = np.ascontiguousarray(card[:, cast_ids])
    return CastingOrder(
        priority=priority, kind_modes=kind_modes, first_mode=first_mode, cheapest=cheapest,
        multi_mode_ids=multi_mode_ids, cast_ids=cast_ids, pass_ids=pass_ids,
        pass_commanders=pass_commanders,
        pass_x=np.flatnonzero(np.isin(pass_ids, x_ids)),
        pass_targeted=np.flatnonzero(needs_target[pass_ids]),
        pass_legendary=np.flatnonzero(legendary[pass_ids]),
        pass_payoff=np.flatnonzero((priority[pass_ids] >= _PAYOFFS)
                                   & (priority[pass_ids] < _COMMANDERS)),
        base_rank=_ranks(base),
        cast_x=np.flatnonzero(np.isin(cast_ids, x_ids)),
        pass_lookup=pass_lookup, cast_lookup=cast_lookup)
