"""The goldfish turn loop: whole games without an opponent, vectorised over trials.

Each turn: untap; draw (not on turn 1 on the play); first main phase (play a land as soon as
one can be played, chosen by colour (:mod:`explore_sim.engine.lands`), cast spells by the
casting priority, equip); combat (beginning-of-combat explores, every creature able to attack
attacks and is unblocked, mana creatures aside (attacking taps them): attack and combat-damage
triggers); second main phase (a land found
meanwhile is still played, more casting, Map tokens and activated abilities with the mana
left); cleanup (discard down to seven). Mana comes from untapped sources and is paid exactly
by colour (:mod:`explore_sim.engine.mana`); unspent mana empties between phases.

The state is a :class:`GameState` of arrays with the trial axis first. The turn loop owns it
and updates it in place, one vectorised step at a time. This module holds the turn structure,
land drops and casting; what each card does is in :mod:`explore_sim.engine.abilities` (one
function per ability, listed in its ``MODELLED``) and explore instructions with their
replacements and triggers are in :mod:`explore_sim.engine.explore_effects`. Python loops run
over turns, casting passes, card kinds and explores in a sequence, never over trials.
Comments cite docs/rules.md and docs/mana.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np

from ..cards import EMPTY, Card, Catalog, FeatureTable
from ..cards.mana import ANY_COLOUR
from ..errors import OptionError, clip
from . import abilities, explore_effects, lands
from .mana import MAX_TAXED_CASTS, ManaTables
from .metrics import CASTABLE_PREFIX, OPENING_METRICS, TURN_METRICS
from .policies import Policy
from .rowwise import row_any, row_bitwise_or, row_sum
from .state import GROUP, GameState, from_hand, kinds_in, leave, of_rows, to_hand

__all__ = ["GameConfig", "GameState", "Goldfish", "TURN_METRICS", "OPENING_METRICS", "GAMES",
           "is_commander_game"]

#: Kinds of game: ``auto`` is a Commander game when the deck has a commander.
GAMES = ("auto", "normal", "commander")

#: Safety bound on actions per main phase; every action uses a card, mana or a Map.
_MAX_ACTIONS = 60


@dataclasses.dataclass(frozen=True)
class GameConfig:
    """Options of a goldfish game (keyword-only, hashable, printable).

    Parameters
    ----------
    turns : int
        Turns to play.
    on_play : bool
        True: no draw on turn 1.
    removal : float
        Probability that an explorer leaves the battlefield in response to its explore
        (E3: no counter, still a trigger; a targeted explore then does nothing, E9).
    replacement_order : {"tracker-first", "twists-first"}
        R3: which replacement applies first when Topography Tracker and Twists and Turns
        both apply (tracker-first: scry, explore, scry, explore).
    opponent_land_fraction : float
        Chance that the opponent's revealed card is a land in parley (Storm Fleet
        Negotiator); 0.4 is 24 lands in 60 cards.
    use_maps : bool
        Activate every Map token possible with the mana left in the second main phase.
    cast_order : tuple of str
        Card names cast first, in this order, before the default priority.
    hand_limit : int
        Maximum hand size at cleanup.
    land_faces : {"when-needed", "always", "never"}
        When a spell // land modal double-faced card is played as its land face: only when
        no land card can be played (default), like any land, or never.
    castable : tuple of Card
        Cards (in the deck or not) whose ``castable:NAME`` metric is taken each turn: 1
        where the sources in play after the land drop, before any spell, could pay the cost.
    game : {"auto", "normal", "commander"}
        A Commander game (CR 903): the commanders start in the command zone and are cast from
        there with {2} of tax per earlier cast, a removed commander returns there, and nobody
        skips the first draw. ``auto``: Commander when the deck has a commander.
    """

    turns: int = 6
    on_play: bool = True
    removal: float = 0.0
    replacement_order: str = "tracker-first"
    opponent_land_fraction: float = 0.4
    use_maps: bool = True
    cast_order: tuple[str, ...] = ()
    hand_limit: int = 7
    land_faces: str = "when-needed"
    castable: tuple[Card, ...] = ()
    game: str = "auto"

    def __post_init__(self) -> None:
        if isinstance(self.turns, bool) or not isinstance(self.turns, (int, np.integer)):
            raise OptionError(f"turns must be a whole number, got {self.turns!r}")
        if not 1 <= self.turns <= 50:
            raise OptionError(f"turns must be between 1 and 50, got {self.turns}")
        for name in ("removal", "opponent_land_fraction"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise OptionError(f"{name} must be a probability between 0 and 1, got {clip(repr(value))}")
        if self.replacement_order not in {"tracker-first", "twists-first"}:
            raise OptionError(
                "replacement_order must be 'tracker-first' or 'twists-first', "
                f"got {self.replacement_order!r}"
            )
        if not 0 <= self.hand_limit <= 100:
            raise OptionError(f"hand_limit must be between 0 and 100, got {self.hand_limit}")
        if not all(isinstance(card, Card) for card in self.castable):
            raise OptionError("castable must be cards (resolve names with the card sources)")
        if self.game not in GAMES:
            raise OptionError(f"game must be one of {', '.join(GAMES)}, got {clip(self.game)!r}")
        if self.land_faces not in lands.LAND_FACES:
            raise OptionError(f"land_faces must be one of {', '.join(lands.LAND_FACES)}, "
                              f"got {self.land_faces!r}")

    @property
    def metric_names(self) -> dict[str, bool]:
        """Every per-turn metric of a game with this configuration (0/1 indicators True):
        :data:`TURN_METRICS` and one ``castable:NAME`` per card of :attr:`castable`."""
        names = dict(TURN_METRICS)
        names.update({CASTABLE_PREFIX + card.name: True for card in self.castable})
        return names


def is_commander_game(config: GameConfig, features: FeatureTable) -> bool:
    """Whether a game of these cards with this configuration is a Commander game."""
    return config.game == "commander" or (config.game == "auto" and features.commander_ids.size > 0)


class Goldfish:
    """Plays goldfish turns for one deck; see the module docstring for the turn structure.

    Parameters
    ----------
    features : FeatureTable
        The deck's cards.
    config : GameConfig
    policy : callable
        Keep-or-mill policy for explore (E2).
    scry_policy : callable, optional
        Scry 1 (Twists and Turns, R2; temples): returns True to put the top card on the
        bottom. A land is always kept on top. Default: bottom a nonland card the keep-or-mill
        policy would mill.
    rngs : dict of str to Generator
        ``"policy"``, ``"removal"``, ``"parley"`` and ``"search"`` (library shuffles after a
        land search) streams.
    """

    def __init__(
        self,
        features: FeatureTable,
        config: GameConfig,
        policy: Policy,
        scry_policy: Policy | None,
        rngs: dict[str, np.random.Generator],
    ) -> None:
        self.f = features
        self.config = config
        self.policy = policy
        self.scry_policy = scry_policy or policy
        self.rngs = rngs
        cards = features.cards
        self.n_kinds = len(features)
        ids = np.arange(1, self.n_kinds)

        def kinds(predicate: Callable) -> np.ndarray:
            return np.array([i for i, card in zip(ids, cards) if predicate(card)], dtype=np.intp)

        self.land_ids = kinds(lambda c: c.is_land)
        self.basic_ids = kinds(lambda c: c.is_land and "basic" in c.type_line.split("—")[0].casefold())
        self.basic_ids = self.basic_ids[self.basic_ids <= features.n_deck]
        self.spell_ids = kinds(lambda c: not c.is_land)
        self.merfolk_ids = kinds(lambda c: c.is_creature and "merfolk" in c.subtypes)
        # Permanents counted by kind (lands, creatures, explore replacements and triggers,
        # Helms, ...) are read from state.permanents (state.PERMANENT_GROUPS).
        self.combat_explorer_ids = kinds(lambda c: c.explores_when == "beginning_of_combat")
        self.attack_explorer_ids = kinds(lambda c: c.explores_when == "attack")
        self.damage_explorer_ids = kinds(lambda c: c.explores_when == "combat_damage")
        self.attack_map_ids = kinds(lambda c: c.maps_when in {"attack", "enter_or_attack"})
        self.parley_ids = kinds(lambda c: c.maps_when == "parley")
        self.lantern_ids = kinds(lambda c: c.explores_when == "equipped_attack")
        self.schooner_ids = kinds(lambda c: c.explores_when == "crewed_attack")
        self.anchorage_ids = kinds(lambda c: c.maps_when == "land_attack")
        self.seeker_ids = kinds(
            lambda c: c.explores_when == "activated" and c.ability_mana > 0
        )
        self.activated_search_ids = kinds(lambda c: c.fetch_when == "activated")
        self.x_ids = kinds(lambda c: c.explores_x)
        self.cost = features.mana_value.astype(np.int32)
        self.is_land_row = features.is_land
        self.is_creature_row = features.is_creature
        self.needs_creature_target = np.array(
            [False] + [c.explores_when == "cast" and c.explore_targets for c in cards]
        )
        self.priority = self._cast_priority(config.cast_order)
        # Mana: every cost that may be paid, and the land options.
        ability_costs = [cards[i - 1].ability_cost for i in (
            *self.lantern_ids, *self.seeker_ids, *self.anchorage_ids, *self.activated_search_ids)]
        self.castable_cards = config.castable
        self.is_commander = is_commander_game(config, features)
        self.commander_ids = features.commander_ids if self.is_commander else \
            np.zeros(0, dtype=np.intp)
        self.attack_land_ids = kinds(lambda c: c.extra_land == "attack_or_draw")
        self.mana = ManaTables(features, ["{1}", *ability_costs], self.castable_cards,
                               taxed=self.commander_ids.tolist())
        self.castable_card_modes = self.mana.extra_card_modes
        class_mask = self.mana.class_mask
        self.land_colours = np.array(
            [int(np.bitwise_or.reduce(class_mask[row > 0])) & ANY_COLOUR if (row > 0).any() else 0
             for row in features.source_units], dtype=np.int64)
        self.land_options = lands.LandOptions(self)
        # Spells in the casting order's terms: their modes and whether colours need checking.
        self.kind_modes = [self.mana.card_modes.get(k, []) for k in range(self.n_kinds)]
        self.first_mode = np.array([m[0] if m else 0 for m in self.kind_modes], dtype=np.intp)
        # The least mana each spell can be cast for (a split card's cheaper half), for the
        # quick "enough mana?" tests before the exact one.
        self.cheapest = np.array([min((self.mana.total[i] for i in m), default=0)
                                  for m in self.kind_modes], dtype=np.int32)
        self.multi_mode_ids = np.array([k for k, m in enumerate(self.kind_modes) if len(m) > 1],
                                       dtype=np.intp)
        # Spells the casting order casts; the casting pass's columns (commanders included),
        # in casting order: highest priority first, ties to the lower id, so that the first
        # candidate of a row is the one it casts.
        self.cast_ids = self.spell_ids[self.priority[self.spell_ids] >= 0]
        ranked = np.flatnonzero(self.priority >= 0)
        self.pass_ids = ranked[np.lexsort((ranked, -self.priority[ranked]))].astype(np.intp)
        self.pass_commanders = [(j, int(k)) for j, k in enumerate(self.pass_ids)
                                if k in self.commander_ids]
        self.pass_x = np.flatnonzero(np.isin(self.pass_ids, self.x_ids))
        self.pass_targeted = np.flatnonzero(self.needs_creature_target[self.pass_ids])
        self.cast_x = np.flatnonzero(np.isin(self.cast_ids, self.x_ids))
        self.colour_needs = lands.ColourNeeds(self)
        self._build_card_lookup()

    def _build_card_lookup(self) -> None:
        """Whether each amount of units (a row of :attr:`ManaTables.lookup`) pays each card
        in any of its ways, as columns for :attr:`pass_ids` and :attr:`cast_ids`; None when
        the deck has no lookup table (the exact test is then computed pair by pair)."""
        self.pass_lookup = self.cast_lookup = None
        lookup = self.mana.lookup
        if lookup is None:
            return
        card = lookup[:, self.first_mode].copy()  # (n_keys, n_kinds), as castable_pairs
        for kind in self.multi_mode_ids.tolist():
            for other in self.kind_modes[kind][1:]:
                card[:, kind] |= lookup[:, other]
        self.pass_lookup = np.ascontiguousarray(card[:, self.pass_ids])
        self.pass_lookup[:, [j for j, _ in self.pass_commanders]] = True  # checked with tax
        self.cast_lookup = np.ascontiguousarray(card[:, self.cast_ids])

    def castable_columns(self, unit_sets: list[np.ndarray], table: np.ndarray) -> np.ndarray:
        """Rows of a card lookup (:attr:`pass_lookup`, :attr:`cast_lookup`) for the mana in
        ``unit_sets``: whether each row can pay each column's card, (rows, columns)."""
        ok = np.take(table, self.mana.keys(unit_sets[0]), axis=0)
        for units in unit_sets[1:]:
            ok |= np.take(table, self.mana.keys(units), axis=0)
        return ok

    # ----------------------------------------------------------------------------------
    # Casting priority

    def _cast_priority(self, cast_order: Sequence[str]) -> np.ndarray:
        """A score per card id (higher is cast first; -1: never cast).

        Default: cards that explore or make Maps first, then everything else; within each
        group the most expensive first, and of two that cost the same a mana source first;
        Jadelight Spelunker last (X takes the mana left). Names in ``cast_order`` come before
        all of these, in the given order. Remaining ties go to the lower id (by name).
        """
        score = np.full(self.n_kinds, -1.0)
        catalog = Catalog(self.f.cards[: self.f.n_deck])
        for i, card in enumerate(self.f.cards[: self.f.n_deck], start=1):
            if card.is_land:
                continue
            makes_value = card.explores > 0 or card.explores_x or card.maps > 0
            score[i] = (1000 if makes_value else 0) + card.mana_value
            score[i] += 0.5 * bool(self.f.is_source[i])  # a mana source first at equal cost
            if card.explores_x:
                score[i] = 500  # after the other explore / Map makers, before the rest
        for rank, name in enumerate(cast_order):
            card = catalog.find(name)
            if card is None:
                raise OptionError(f"cast_order: {clip(name)!r} is not in the deck")
            if card.is_land:
                raise OptionError(f"cast_order: {card.name!r} is a land, not a spell")
            score[self.f.id_of(card)] = 10_000 - rank
        return score

    # ----------------------------------------------------------------------------------
    # Helpers. Every step takes ``rows``, the trials it acts on (sorted unique indices), so
    # work is proportional to the trials concerned; masks and values are aligned to rows.

    def count(self, state: GameState, group: str, rows: np.ndarray) -> np.ndarray:
        """Permanents of one of :data:`~explore_sim.engine.state.PERMANENT_GROUPS` in each
        of ``rows``, shape (len(rows),), int32."""
        return of_rows(state.permanents, rows, GROUP[group]).astype(np.int32)

    def creatures(self, state: GameState, rows: np.ndarray) -> np.ndarray:
        return self.count(state, "creature", rows)

    def pick_creature(self, state: GameState, rows: np.ndarray, prefer_sick: bool = False) -> np.ndarray:
        """A creature you control in each of ``rows`` (its card id), ``EMPTY`` if none.

        Targets of Maps and spells are picked this way: the first creature kind in deck
        order (or a summoning-sick one first, ``prefer_sick``).
        """
        present = (of_rows(state.battlefield, rows) > 0) & self.is_creature_row
        if prefer_sick:
            sick = present & (of_rows(state.sick, rows) > 0)
            present = np.where(row_any(sick)[:, None], sick, present)
        choice = np.argmax(present, axis=1)
        return np.where(row_any(present), choice, EMPTY).astype(np.intp)

    def peek(self, state: GameState, rows: np.ndarray) -> np.ndarray:
        """Top card of each library in ``rows``, ``EMPTY`` where it is empty."""
        top = state.top[rows]
        width = state.library.shape[1]
        card = np.take(state.library.reshape(-1), rows * width + top % width)  # [rows, top]
        return np.where(top < state.end[rows], card, EMPTY).astype(np.intp)

    def draw(self, state: GameState, rows: np.ndarray) -> None:
        """Each of ``rows`` draws a card; drawing from an empty library is recorded (``decked``)."""
        card = self.peek(state, rows)
        ok = card != EMPTY
        drawn = rows[ok]
        to_hand(state, drawn, card[ok])
        state.top[drawn] += 1
        state.library_lands[drawn] -= self.is_land_row[card[ok]]
        state.library_pips[drawn] -= self.f.pips[card[ok]]
        state.totals["decked"][rows[~ok]] = 1

    def remove(self, state: GameState, rows: np.ndarray, card: np.ndarray,
               just_entered: np.ndarray | bool = False) -> None:
        """Permanent ``card`` (aligned with rows) leaves the battlefield (the removal model).

        ``just_entered`` (aligned with rows): the removed copy is the one that entered this
        turn (an enter trigger's explorer), so an older copy stays free of summoning sickness
        (CR 302.6). A removed commander goes back to the command zone (CR 903.9).
        """
        there = (card != EMPTY) & (state.battlefield[rows, card] > 0)
        rows, card = rows[there], card[there]
        just_entered = np.broadcast_to(just_entered, there.shape)[there]
        for kind in kinds_in(card):
            is_kind = card == kind
            here, new = rows[is_kind], just_entered[is_kind]
            with self.mana.track(state, here, kind):
                sick = here[new & (state.sick[here, kind] > 0)]
                state.sick[sick, kind] -= 1
                leave(state, here, kind)
            if kind in self.commander_ids:
                state.command[here, kind] += 1
            else:
                state.graveyard[here] += 1

    def sacrifice(self, state: GameState, rows: np.ndarray, card: np.ndarray | int) -> None:
        """One permanent ``card`` (aligned with rows) goes from the battlefield to the
        graveyard; its summoning-sick and tapped counts stay within what is left."""
        card = np.broadcast_to(np.asarray(card, dtype=np.intp), rows.shape)
        for kind in kinds_in(card):
            here = rows[card == kind]
            with self.mana.track(state, here, kind):
                leave(state, here, kind)
        state.graveyard[rows] += 1

    def enters(self, state: GameState, rows: np.ndarray, card: np.ndarray | int,
               x: np.ndarray | None = None, tapped: np.ndarray | None = None) -> None:
        """A permanent enters the battlefield (:func:`explore_sim.engine.abilities.enters`)."""
        abilities.enters(self, state, rows, card, x, tapped)

    def scry(self, state: GameState, rows: np.ndarray, explores_left: np.ndarray,
             counters: np.ndarray, present: np.ndarray) -> None:
        """Scry 1 (:func:`explore_sim.engine.explore_effects.scry`)."""
        explore_effects.scry(self, state, rows, explores_left, counters, present)

    def land_types(self, state: GameState, rows: np.ndarray) -> np.ndarray:
        """Basic land types among the lands you control, (rows,) colour-bit masks."""
        types = self.f.basic_types[self.land_ids].astype(np.int64)
        present = of_rows(state.battlefield, rows)[:, self.land_ids] > 0
        return row_bitwise_or(np.where(present, types, 0)) if rows.size else \
            np.zeros(0, dtype=np.int64)

    def basics_in_library(self, state: GameState, rows: np.ndarray) -> np.ndarray:
        """Copies of each basic land kind (:attr:`basic_ids`) left in each library,
        shape (rows, n_basic_kinds)."""
        if not self.basic_ids.size:
            return np.zeros((len(rows), 0), dtype=np.int32)
        width = state.library.shape[1]
        offsets = np.arange(width)
        positions = (state.top[rows][:, None] + offsets[None, :]) % width
        cards = state.library[rows[:, None], positions]
        live = offsets[None, :] < (state.end[rows] - state.top[rows])[:, None]
        return np.stack([((cards == kind) & live).sum(axis=1) for kind in self.basic_ids],
                        axis=1).astype(np.int32)

    # ----------------------------------------------------------------------------------
    # Mana

    def available_mana(self, state: GameState, rows: np.ndarray | None = None) -> np.ndarray:
        """Mana the untapped sources and the pool can make now, shape (rows,), int32
        (Signet-style filters counted as activated)."""
        rows = np.arange(state.trials) if rows is None else rows
        return row_sum(self.mana.units(state, rows, filters=True)).astype(np.int32)

    def castable_pairs(self, unit_sets: list[np.ndarray], r: np.ndarray, k: np.ndarray,
                       x_rule: bool = True) -> np.ndarray:
        """Whether row ``r`` of the mana in ``unit_sets`` (:meth:`ManaTables.unit_sets`) can
        pay card ``k`` in any of its ways, for each pair; with ``x_rule`` Jadelight
        Spelunker needs X >= 1. ``r`` and ``k`` have shape (pairs,)."""
        ok = np.zeros(len(r), dtype=bool)
        if not len(r):
            return ok
        mode = self.first_mode[k]
        for units in unit_sets:
            ok |= self.mana.payable_rows(units, r, mode)
            for kind in self.multi_mode_ids.tolist():
                here = np.flatnonzero((k == kind) & ~ok)
                for other in self.kind_modes[kind][1:]:
                    ok[here] |= self.mana.payable(units[r[here]], other)
        if x_rule and self.x_ids.size:
            spelunker = np.isin(k, self.x_ids)
            ok[spelunker] &= row_sum(unit_sets[-1][r[spelunker]]) >= self.cost[k[spelunker]] + 1
        return ok

    def castable_card(self, card: np.ndarray, unit_sets: list[np.ndarray]) -> np.ndarray:
        """Whether the mana in ``unit_sets`` can pay each row's ``card`` (an id per row) in
        any of its ways; False for lands and no card."""
        ok = np.zeros(len(card), dtype=bool)
        spell = np.flatnonzero(self.f.is_nonland[card] & self.f.is_card[card])
        if not spell.size:
            return ok
        kinds = card[spell]
        for units in unit_sets:
            ok[spell] |= self.mana.payable(units[spell], self.first_mode[kinds])
            for kind in np.intersect1d(kinds, self.multi_mode_ids).tolist():
                here = spell[kinds == kind]
                for mode in self.kind_modes[kind][1:]:
                    ok[here] |= self.mana.payable(units[here], mode)
        return ok

    def castable_next_turn(self, state: GameState, rows: np.ndarray,
                           card: np.ndarray) -> np.ndarray:
        """Whether every source you control, untapped, plus one land from your hand (the best
        for the purpose) could pay each row's ``card``."""
        ids = self.mana.source_ids
        plain = np.where(self.mana.source_cost > 0, 0,
                         of_rows(state.battlefield, rows)[:, ids].astype(np.int32))
        units = plain @ self.mana.source_units
        ok = self.castable_card(card, [units])
        options = self.land_options
        for o in range(len(options.card)):
            held = (state.hand[rows, options.card[o]] > 0) & ~ok
            if held.any():
                here = np.flatnonzero(held)
                ok[here] = self.castable_card(card[here], [units[here] + options.units[o]])
        return ok

    def held_spells(self, state: GameState, rows: np.ndarray) -> np.ndarray:
        """Which of :attr:`cast_ids` each row holds, shape (rows, len(cast_ids)), bool."""
        return of_rows(state.hand, rows)[:, self.cast_ids] > 0

    def castable_in_hand(self, state: GameState, rows: np.ndarray,
                         unit_sets: list[np.ndarray], held: np.ndarray | None = None
                         ) -> np.ndarray:
        """Some spell in hand (one the casting order casts) can be paid with the mana in
        ``unit_sets``; ``held``: :meth:`held_spells` of ``rows`` if already known."""
        kinds = self.cast_ids
        if not kinds.size:
            return np.zeros(len(rows), dtype=bool)
        if held is None:
            held = self.held_spells(state, rows)
        total = row_sum(unit_sets[-1])
        cheap = self.cheapest[kinds][None, :] <= total[:, None]
        if self.cast_lookup is None:
            return self._first_castable(unit_sets, held & cheap, kinds) >= 0
        ok = held & cheap & self.castable_columns(unit_sets, self.cast_lookup)
        if self.cast_x.size:  # Jadelight Spelunker needs X >= 1
            ok[:, self.cast_x] &= total[:, None] >= self.cost[kinds[self.cast_x]] + 1
        return row_any(ok)

    def _first_castable(self, unit_sets: list[np.ndarray], candidate: np.ndarray,
                        kinds: np.ndarray, x_rule: bool = True) -> np.ndarray:
        """The first column of ``candidate`` (rows, len(kinds)) whose card each row can pay,
        -1 if none; ``candidate`` is cleared where a card cannot be paid. Candidates are
        checked one per row at a time, so a row usually costs one exact test."""
        first = np.full(len(candidate), -1, dtype=np.intp)
        pending = np.flatnonzero(row_any(candidate))
        while pending.size:
            j = np.argmax(candidate[pending], axis=1)
            ok = self.castable_pairs(unit_sets, pending, kinds[j], x_rule)
            first[pending[ok]] = j[ok]
            failed, j = pending[~ok], j[~ok]
            candidate[failed, j] = False
            pending = failed[row_any(candidate[failed])]
        return first

    def record_main_phase(self, state: GameState) -> None:
        """Take ``mana_available``, ``colour_screwed`` and ``castable:CARD`` for this turn."""
        everyone = np.arange(state.trials)
        unit_sets = self.mana.unit_sets(state, everyone)
        total = row_sum(unit_sets[-1])
        kinds = self.cast_ids
        held = state.hand[:, kinds] > 0
        affordable = held & (self.cheapest[kinds][None, :] <= total[:, None])
        if self.cast_lookup is None:
            r, j = np.nonzero(affordable)
            screwed = np.zeros(state.trials, dtype=bool)
            screwed[r[~self.castable_pairs(unit_sets, r, kinds[j], x_rule=False)]] = True
        else:
            screwed = row_any(affordable & ~self.castable_columns(unit_sets, self.cast_lookup))
        state.main_phase["mana_available"] = total.astype(np.int32)
        state.main_phase["colour_screwed"] = screwed.astype(np.int32)
        for card, modes in zip(self.castable_cards, self.castable_card_modes):
            ok = np.zeros(state.trials, dtype=bool)
            for mode in modes:
                ok |= self.mana.payable_any(unit_sets, mode)
            state.main_phase[CASTABLE_PREFIX + card.name] = ok.astype(np.int32)

    @property
    def metric_names(self) -> dict[str, bool]:
        """Every per-turn metric this game records (:attr:`GameConfig.metric_names`)."""
        return self.config.metric_names

    # ----------------------------------------------------------------------------------
    # Casting

    def cast_pass(self, state: GameState, rows: np.ndarray) -> np.ndarray:
        """Each of ``rows`` casts at most one spell, the castable one of highest priority."""
        unit_sets = self.mana.unit_sets(state, rows)
        mana = row_sum(unit_sets[-1])[:, None]
        # Candidates: the spells in hand the order casts that the mana can pay (checked
        # exactly by the lookup where the deck has one, else for enough mana, colours
        # aside), one column per :attr:`pass_ids`, in casting order.
        cols = self.pass_ids
        candidate = of_rows(state.hand, rows)[:, cols] > 0
        if self.pass_lookup is not None:
            candidate &= self.castable_columns(unit_sets, self.pass_lookup)
        else:
            candidate &= self.cheapest[cols] <= mana
        for j, kind in self.pass_commanders:  # from the command zone, with its tax
            tax = self.taxed_casts(state, rows, kind)
            here = np.flatnonzero(state.command[rows, kind] > 0)
            modes = self.mana.taxed_modes[kind]
            ok = np.zeros(len(here), dtype=bool)
            for option in range(len(modes[0])):
                ok |= self.mana.payable_any([u[here] for u in unit_sets],
                                            np.array([m[option] for m in modes])[tax[here]])
            candidate[:, j] = False
            candidate[here[ok], j] = True
        if self.pass_x.size:  # Jadelight Spelunker wants X >= 1
            candidate[:, self.pass_x] &= mana >= self.cost[cols[self.pass_x]] + 1
        if self.pass_targeted.size:  # a spell that targets a creature you control needs one
            candidate[:, self.pass_targeted] &= (self.creatures(state, rows) > 0)[:, None]
        # Colours: where the deck has a lookup table every candidate is payable, and each
        # row casts its first (commanders were checked above).
        if self.pass_lookup is not None:
            casting = row_any(candidate)
            if not casting.any():
                return casting
            best = cols[np.argmax(candidate, axis=1)]
        else:
            best, casting = self._best_payable(unit_sets, candidate)
            if not casting.any():
                return casting
        for kind in kinds_in(best[casting]):
            self.cast(state, rows[casting & (best == kind)], kind)
        return casting

    def _best_payable(self, unit_sets: list[np.ndarray], candidate: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
        """Without a lookup table: the first candidate of each row is checked exactly
        (commanders already were); where it cannot be paid, the next, and so on.
        Returns the card id chosen and whether there is one, each (rows,)."""
        cols = self.pass_ids
        best = np.zeros(len(candidate), dtype=np.intp)
        casting = np.zeros(len(candidate), dtype=bool)
        pending = np.flatnonzero(row_any(candidate))
        while pending.size:
            j = np.argmax(candidate[pending], axis=1)
            k = cols[j]
            ok = np.ones(len(pending), dtype=bool)
            exact = ~np.isin(k, self.commander_ids)
            ok[exact] = self.castable_pairs(unit_sets, pending[exact], k[exact], x_rule=False)
            casting[pending[ok]] = True
            best[pending[ok]] = k[ok]
            failed = pending[~ok]
            candidate[failed, j[~ok]] = False
            pending = failed[row_any(candidate[failed])]
        return best, casting

    def pay(self, state: GameState, rows: np.ndarray, modes: Sequence[int],
            take_all: bool = False, unavailable: tuple[int, int] | None = None) -> np.ndarray:
        """Pay the first payable of ``modes`` in each row (every row can pay one), record mana
        spent and life paid; returns X (the mana left taken by an X spell, else 0)."""
        x = np.zeros(len(rows), dtype=np.int32)
        left = np.ones(len(rows), dtype=bool)
        for mode in modes:
            if not left.any():
                break
            if len(modes) > 1:
                unit_sets = self.mana.unit_sets(state, rows[left])
                here = np.flatnonzero(left)[self.mana.payable_any(unit_sets, mode)]
            else:
                here = np.flatnonzero(left)
            if not here.size:
                continue
            payment = self.mana.pay(state, rows[here], mode, take_all, unavailable)
            state.totals["mana_spent"][rows[here]] += row_sum(payment.used)
            state.totals["life_paid"][rows[here]] += payment.life
            x[here] = payment.x
            left[here] = False
        return x

    def taxed_casts(self, state: GameState, rows: np.ndarray, kind: int) -> np.ndarray:
        """Earlier casts of commander ``kind`` from the command zone (capped at the tax levels
        registered), shape (rows,), intp."""
        return np.minimum(state.command_casts[rows, kind], MAX_TAXED_CASTS).astype(np.intp)

    def cast(self, state: GameState, rows: np.ndarray, kind: int) -> None:
        """Cast card ``kind`` in each of ``rows`` (from the command zone for a commander, with
        {2} of tax per earlier cast from there, CR 903.8) and resolve it."""
        info = self.f.cards[kind - 1]
        if kind in self.commander_ids:
            casts = self.taxed_casts(state, rows, kind)
            x = np.zeros(len(rows), dtype=np.int32)
            for level in kinds_in(casts):
                here = casts == level
                x[here] = self.pay(state, rows[here], self.mana.taxed_modes[kind][level],
                                   take_all=info.explores_x)
            state.totals["commander_tax_paid"][rows] += 2 * state.command_casts[rows, kind]
            state.totals["commander_cast"][rows] += 1
            state.command_casts[rows, kind] += 1
            state.command[rows, kind] -= 1
        else:
            x = self.pay(state, rows, self.kind_modes[kind], take_all=info.explores_x)
            from_hand(state, rows, kind)
        state.totals["cards_cast"][rows] += 1
        abilities.resolve(self, state, rows, kind, x if info.explores_x else None)

    def main_phase(self, state: GameState, second: bool) -> None:
        """Play lands and cast until nothing changes; in the second, use Maps and abilities.

        A trial that did nothing in one round cannot do anything in the next (its state did
        not change), so each round works only on the trials that acted in the last one.
        The first main phase takes the :data:`MAIN_PHASE_METRICS` after its land drop.
        """
        rows = np.arange(state.trials)
        for step in range(_MAX_ACTIONS):
            progressed = lands.play_land(self, state, rows)
            if step == 0 and not second:
                self.record_main_phase(state)
            progressed |= self.cast_pass(state, rows)
            idle = ~progressed
            if idle.any():
                progressed[idle] = abilities.equip(self, state, rows[idle])
            if second:
                idle = ~progressed
                if idle.any():
                    progressed[idle] = abilities.activate_map(self, state, rows[idle])
                idle = ~progressed
                if idle.any():
                    progressed[idle] = abilities.activate_explore_ability(self, state, rows[idle])
                idle = ~progressed
                if idle.any():
                    progressed[idle] = abilities.activate_search(self, state, rows[idle])
            rows = rows[progressed]
            if rows.size == 0:
                break
        state.empty_pool()  # mana empties at the end of the phase

    # ----------------------------------------------------------------------------------
    # Combat

    def combat(self, state: GameState) -> None:
        """Beginning of combat, attackers (every creature that can), attack triggers and
        unblocked combat damage."""
        abilities.beginning_of_combat(self, state)
        animated_lands = abilities.animate_lands(self, state)
        attackers = self.attackers(state)
        crewers = abilities.crew_vehicles(self, state, attackers)
        abilities.attack_triggers(self, state, attackers, animated_lands, crewers)
        abilities.combat_damage_triggers(self, state, attackers)
        state.empty_pool()

    def attackers(self, state: GameState) -> np.ndarray:
        """Creatures that attack per card id, shape (trials, n_cards + 1), int32: untapped
        ones not summoning sick, and untapped ones with haste (CR 302.6). Attacking taps a
        creature (CR 508.1f), so a creature with a mana ability stays back for the mana of
        the second main phase."""
        ready = np.where(self.f.has_haste, state.battlefield, state.battlefield - state.sick)
        attacks = self.is_creature_row & ~self.f.is_source
        return np.where(attacks, ready - state.tapped, 0).clip(0).astype(np.int32)

    # ----------------------------------------------------------------------------------
    # Turns

    def untap_and_draw(self, state: GameState) -> None:
        state.turn += 1
        state.recount()
        state.sick[:] = 0
        state.tapped[:] = 0
        state.empty_pool()
        self.mana.recount(state)
        everyone = np.arange(state.trials)
        extra = self.count(state, "each_turn_land", everyone)
        state.land_drops = 1 + extra
        state.totals["extra_land_drops"] += extra
        state.played_land[:] = False
        if state.turn == 1 and self.commander_ids.size:  # commanders start in the command zone
            state.command[:, self.commander_ids] = 1
        # The player on the play skips the first draw, except in a multiplayer Commander game.
        if state.turn > 1 or not self.config.on_play or self.is_commander:
            self.draw(state, everyone)

    def cleanup(self, state: GameState) -> None:
        """Discard down to the hand limit: the most expensive spells first (of two that cost
        the same, the one that is not a mana source), lands last; then the lower id."""
        excess = row_sum(state.hand) - self.config.hand_limit
        if not (excess > 0).any():
            return
        order = sorted(range(1, self.n_kinds), key=lambda i: (
            not self.is_land_row[i], self.cost[i], not self.f.is_source[i], -i), reverse=True)
        everyone = np.arange(state.trials)
        for kind in order:
            dropping = np.minimum(np.maximum(excess, 0), state.hand[:, kind])
            from_hand(state, everyone, kind, dropping)
            state.graveyard += dropping
            excess -= dropping

    def play_turn(self, state: GameState) -> None:
        self.untap_and_draw(state)
        self.main_phase(state, second=False)
        self.combat(state)
        self.main_phase(state, second=True)
        self.cleanup(state)

    def turn_metrics(self, state: GameState) -> dict[str, np.ndarray]:
        """Per-trial values of :attr:`metric_names` at the end of the current turn."""
        everyone = np.arange(state.trials)
        lands_in_play = self.count(state, "land", everyone)
        out = {name: value.copy() for name, value in state.totals.items()}
        out.update(state.main_phase)
        out["counters"] = out["explore_counters"] + out["trigger_counters"]
        out["lands_played"] = lands_in_play
        out["on_curve"] = (lands_in_play >= state.turn).astype(np.int32)
        out["land_drop"] = state.played_land.astype(np.int32)
        out["creatures"] = self.creatures(state, everyone)
        out["hand_size"] = row_sum(state.hand, np.int32)
        return {name: out[name] for name in self.metric_names}
