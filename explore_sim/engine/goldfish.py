"""The goldfish turn loop: whole games without an opponent, vectorised over trials.

Each turn: untap; draw (not on turn 1 on the play); first main phase (play a land as soon as
one is in hand, cast spells by the casting priority, equip); combat (beginning-of-combat
explores, every creature able to attack attacks and is unblocked: attack and combat-damage
triggers); second main phase (a land found meanwhile is still played, more casting, Map
tokens and activated explores with the mana left); cleanup (discard down to seven).

The state is a :class:`GameState` of arrays with the trial axis first. The turn loop owns it
and updates it in place, one vectorised step at a time. This module holds the turn structure,
land drops and casting; what each card does is in :mod:`explore_sim.engine.abilities` (one
function per ability, listed in its ``MODELLED``) and explore instructions with their
replacements and triggers are in :mod:`explore_sim.engine.explore_effects`. Python loops run
over turns, casting passes, card kinds and explores in a sequence, never over trials.
Comments cite RULES.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np

from ..cards import EMPTY, Catalog, FeatureTable
from ..errors import OptionError, clip
from . import abilities
from .metrics import OPENING_METRICS, TURN_METRICS
from .policies import Policy
from .state import GameState

__all__ = ["GameConfig", "GameState", "Goldfish", "TURN_METRICS", "OPENING_METRICS"]

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
    """

    turns: int = 6
    on_play: bool = True
    removal: float = 0.0
    replacement_order: str = "tracker-first"
    opponent_land_fraction: float = 0.4
    use_maps: bool = True
    cast_order: tuple[str, ...] = ()
    hand_limit: int = 7

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
        Twists and Turns' scry 1 (R2): returns True to put the top card on the bottom. A
        land is always kept on top. Default: bottom a nonland card the keep-or-mill policy
        would mill.
    rngs : dict of str to Generator
        ``"policy"``, ``"removal"`` and ``"parley"`` streams.
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
        self.creature_ids = kinds(lambda c: c.is_creature)
        self.merfolk_ids = kinds(lambda c: c.is_creature and "merfolk" in c.subtypes)
        self.trigger_ids = {
            name: kinds(lambda c, n=name: c.explore_trigger == n)
            for name in ("walker", "cave_diver", "chupacabra", "caravel", "nicanzil")
        }
        self.tracker_ids = kinds(lambda c: c.explore_replacement == "tracker")
        self.twists_ids = kinds(lambda c: c.explore_replacement == "twists")
        self.enters_explorer_ids = kinds(lambda c: c.explores_when == "creature_enters")
        self.each_turn_land_ids = kinds(lambda c: c.extra_land == "each_turn")
        self.helm_ids = kinds(lambda c: c.maps_when == "token_extra")
        self.combat_explorer_ids = kinds(lambda c: c.explores_when == "beginning_of_combat")
        self.hakbal_ids = kinds(lambda c: c.explores_when == "merfolk_at_combat")
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
        self.x_ids = kinds(lambda c: c.explores_x)
        # Lands to play: untapped ones first, then those that enter tapped, land creatures last.
        self.land_play_order = np.array(sorted(
            self.land_ids.tolist(),
            key=lambda i: (cards[i - 1].is_creature, cards[i - 1].has_keyword("enters_tapped")),
        ), dtype=np.intp)
        self.cost = features.mana_value.astype(np.int32)
        self.is_land_row = features.is_land
        self.is_creature_row = features.is_creature
        self.needs_creature_target = np.array(
            [False] + [c.explores_when == "cast" and c.explore_targets for c in cards]
        )
        self.priority = self._cast_priority(config.cast_order)
        # The same order as small positive integers (0: never cast), for a fast argmax.
        order = np.unique(self.priority[self.priority >= 0])
        self.rank = np.where(self.priority >= 0, np.searchsorted(order, self.priority) + 1, 0
                             ).astype(np.int16)

    # ----------------------------------------------------------------------------------
    # Casting priority

    def _cast_priority(self, cast_order: Sequence[str]) -> np.ndarray:
        """A score per card id (higher is cast first; -1: never cast).

        Default: cards that explore or make Maps first, then everything else; within each
        group the most expensive first; Jadelight Spelunker last (X takes the mana left).
        Names in ``cast_order`` come before all of these, in the given order.
        """
        score = np.full(self.n_kinds, -1.0)
        catalog = Catalog(self.f.cards)
        for i, card in enumerate(self.f.cards, start=1):
            if card.is_land:
                continue
            makes_value = card.explores > 0 or card.explores_x or card.maps > 0
            score[i] = (1000 if makes_value else 0) + card.mana_value
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

    def on_battlefield(self, state: GameState, ids: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Permanents with the given ids in each of ``rows``, shape (len(rows),), int32."""
        if ids.size == 0:
            return np.zeros(len(rows), dtype=np.int32)
        if ids.size == 1:
            return state.battlefield[rows, ids[0]].astype(np.int32)
        return state.battlefield[np.ix_(rows, ids)].sum(axis=1, dtype=np.int32)

    def creatures(self, state: GameState, rows: np.ndarray) -> np.ndarray:
        return self.on_battlefield(state, self.creature_ids, rows)

    def pick_creature(self, state: GameState, rows: np.ndarray, prefer_sick: bool = False) -> np.ndarray:
        """A creature you control in each of ``rows`` (its card id), ``EMPTY`` if none.

        Targets of Maps and spells are picked this way: the first creature kind in deck
        order (or a summoning-sick one first, ``prefer_sick``).
        """
        present = (state.battlefield[rows] > 0) & self.is_creature_row
        if prefer_sick:
            sick = present & (state.sick[rows] > 0)
            present = np.where(sick.any(axis=1)[:, None], sick, present)
        choice = np.argmax(present, axis=1)
        return np.where(present.any(axis=1), choice, EMPTY).astype(np.intp)

    def peek(self, state: GameState, rows: np.ndarray) -> np.ndarray:
        """Top card of each library in ``rows``, ``EMPTY`` where it is empty."""
        top = state.top[rows]
        card = state.library[rows, top % state.library.shape[1]]
        return np.where(top < state.end[rows], card, EMPTY).astype(np.intp)

    def draw(self, state: GameState, rows: np.ndarray) -> None:
        """Each of ``rows`` draws a card; drawing from an empty library is recorded (``decked``)."""
        card = self.peek(state, rows)
        ok = card != EMPTY
        drawn = rows[ok]
        state.hand[drawn, card[ok]] += 1
        state.top[drawn] += 1
        state.library_lands[drawn] -= self.is_land_row[card[ok]]
        state.totals["decked"][rows[~ok]] = 1

    def remove(self, state: GameState, rows: np.ndarray, card: np.ndarray) -> None:
        """Permanent ``card`` (aligned with rows) leaves the battlefield (the removal model)."""
        there = (card != EMPTY) & (state.battlefield[rows, card] > 0)
        rows, card = rows[there], card[there]
        state.battlefield[rows, card] -= 1
        state.sick[rows, card] = np.minimum(state.sick[rows, card], state.battlefield[rows, card])
        state.graveyard[rows] += 1

    # ----------------------------------------------------------------------------------
    # Lands and permanents entering

    def choose_land(self, state: GameState, rows: np.ndarray) -> np.ndarray:
        """The land in hand to play in each of ``rows`` (untapped first), ``EMPTY`` if none."""
        if not self.land_play_order.size:
            return np.full(len(rows), EMPTY, dtype=np.intp)
        held = state.hand[np.ix_(rows, self.land_play_order)] > 0
        return np.where(held.any(axis=1), self.land_play_order[np.argmax(held, axis=1)], EMPTY)

    def play_land(self, state: GameState, rows: np.ndarray) -> np.ndarray:
        """Play a land where a land drop is left and a land is in hand; the mask of rows that did."""
        rows_with_drop = state.land_drops[rows] > 0
        land = np.full(len(rows), EMPTY, dtype=np.intp)
        land[rows_with_drop] = self.choose_land(state, rows[rows_with_drop])
        playing = land != EMPTY
        if playing.any():
            players = rows[playing]
            state.land_drops[players] -= 1
            state.played_land[players] = True
            self._land_enters(state, players, land[playing], tapped=False)
        return playing

    def put_land(self, state: GameState, rows: np.ndarray, tapped: bool) -> None:
        """Put a land from hand onto the battlefield (not a land drop) in each of ``rows``."""
        land = self.choose_land(state, rows)
        putting = land != EMPTY
        if putting.any():
            state.totals["nicanzil_lands"][rows[putting]] += 1
            self._land_enters(state, rows[putting], land[putting], tapped=tapped)

    def _land_enters(self, state: GameState, rows: np.ndarray, land: np.ndarray,
                     tapped: bool) -> None:
        state.hand[rows, land] -= 1
        # A land gives its mana this turn unless it enters tapped or is a summoning-sick
        # land creature (Dryad Arbor).
        if not tapped:
            state.mana[rows] += ~self.f.enters_tapped[land] & ~self.is_creature_row[land]
        abilities.enters(self, state, rows, land)

    # ----------------------------------------------------------------------------------
    # Casting

    def cast_pass(self, state: GameState, rows: np.ndarray) -> np.ndarray:
        """Each of ``rows`` casts at most one spell, the castable one of highest priority."""
        mana = state.mana[rows][:, None]
        castable = (state.hand[rows] > 0) & (self.priority >= 0) & (self.cost <= mana)
        if self.x_ids.size:  # Jadelight Spelunker wants X >= 1
            castable[:, self.x_ids] &= mana >= self.cost[self.x_ids] + 1
        if self.needs_creature_target.any():
            has_creature = (self.creatures(state, rows) > 0)[:, None]
            castable &= ~self.needs_creature_target | has_creature
        score = castable * self.rank  # 0 where not castable
        best = np.argmax(score, axis=1)
        casting = score[np.arange(len(rows)), best] > 0
        if not casting.any():
            return casting
        for kind in np.unique(best[casting]).tolist():
            self.cast(state, rows[casting & (best == kind)], kind)
        return casting

    def cast(self, state: GameState, rows: np.ndarray, kind: int) -> None:
        """Cast card ``kind`` in each of ``rows`` and resolve it."""
        info = self.f.cards[kind - 1]
        x = state.mana[rows] - self.cost[kind] if info.explores_x else None
        paid = self.cost[kind] + (x if x is not None else 0)
        state.mana[rows] -= paid
        state.totals["mana_spent"][rows] += paid
        state.totals["cards_cast"][rows] += 1
        state.hand[rows, kind] -= 1
        abilities.resolve(self, state, rows, kind, x)

    def main_phase(self, state: GameState, second: bool) -> None:
        """Play lands and cast until nothing changes; in the second, use Maps and abilities.

        A trial that did nothing in one round cannot do anything in the next (its state did
        not change), so each round works only on the trials that acted in the last one.
        """
        rows = np.arange(state.trials)
        for _ in range(_MAX_ACTIONS):
            progressed = self.play_land(state, rows)
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
            rows = rows[progressed]
            if rows.size == 0:
                return

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

    def attackers(self, state: GameState) -> np.ndarray:
        """Creatures able to attack per card id, shape (trials, n_cards + 1), int32: those
        not summoning sick, and every creature with haste (CR 302.6)."""
        return np.where(
            self.is_creature_row & ~self.f.has_haste, state.battlefield - state.sick,
            np.where(self.is_creature_row, state.battlefield, 0),
        ).astype(np.int32)

    # ----------------------------------------------------------------------------------
    # Turns

    def untap_and_draw(self, state: GameState) -> None:
        state.turn += 1
        state.sick[:] = 0
        everyone = np.arange(state.trials)
        state.mana = self.on_battlefield(state, self.land_ids, everyone)
        extra = self.on_battlefield(state, self.each_turn_land_ids, everyone)
        state.land_drops = 1 + extra
        state.totals["extra_land_drops"] += extra
        state.played_land[:] = False
        if state.turn > 1 or not self.config.on_play:
            self.draw(state, everyone)

    def cleanup(self, state: GameState) -> None:
        """Discard down to the hand limit: the most expensive spells first, lands last."""
        excess = state.hand.sum(axis=1) - self.config.hand_limit
        if not (excess > 0).any():
            return
        order = sorted(range(1, self.n_kinds),
                       key=lambda i: (not self.is_land_row[i], self.cost[i]), reverse=True)
        for kind in order:
            dropping = np.minimum(np.maximum(excess, 0), state.hand[:, kind])
            state.hand[:, kind] -= dropping.astype(np.int16)
            state.graveyard += dropping
            excess -= dropping

    def play_turn(self, state: GameState) -> None:
        self.untap_and_draw(state)
        self.main_phase(state, second=False)
        self.combat(state)
        self.main_phase(state, second=True)
        self.cleanup(state)

    def turn_metrics(self, state: GameState) -> dict[str, np.ndarray]:
        """Per-trial values of :data:`TURN_METRICS` at the end of the current turn."""
        everyone = np.arange(state.trials)
        lands = self.on_battlefield(state, self.land_ids, everyone)
        out = {name: value.copy() for name, value in state.totals.items()}
        out["counters"] = out["explore_counters"] + out["trigger_counters"]
        out["lands_played"] = lands
        out["on_curve"] = (lands >= state.turn).astype(np.int32)
        out["land_drop"] = state.played_land.astype(np.int32)
        out["creatures"] = self.creatures(state, everyone)
        out["hand_size"] = state.hand.sum(axis=1, dtype=np.int32)
        return {name: out[name] for name in TURN_METRICS}
