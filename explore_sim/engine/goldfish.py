"""The goldfish turn loop: whole games without an opponent, vectorised over trials.

Each turn: untap; draw (not on turn 1 on the play); first main phase (play a land as soon as
one is in hand, cast spells by the casting priority, equip); combat (beginning-of-combat
explores, every creature able to attack attacks and is unblocked: attack and combat-damage
triggers); second main phase (a land found meanwhile is still played, more casting, Map
tokens and activated explores with the mana left); cleanup (discard down to seven).

The state is a :class:`GameState` of arrays with the trial axis first. The turn loop owns it
and updates it in place, one vectorised step at a time; the explore itself is decided by the
pure :func:`explore_sim.rules.explore_outcome`. Python loops run over turns, casting passes,
card kinds and explores in a sequence, never over trials. Comments cite RULES.md.

What is modelled, card by card, is listed in :data:`MODELLED` and in the README.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np

from ..cards.card import EMPTY, FeatureTable
from ..errors import OptionError
from .mulligan import OpeningHands
from .policies import Observation, Policy, decide
from .rules import explore_outcome

__all__ = ["GameConfig", "GameState", "Goldfish", "TURN_METRICS", "OPENING_METRICS", "MODELLED"]

#: Per-turn metrics recorded at the end of every turn; True marks 0/1 indicators.
TURN_METRICS: dict[str, bool] = {
    "lands_played": False,  # lands on the battlefield
    "on_curve": True,  # lands on the battlefield >= turn number
    "land_drop": True,  # a land was played this turn
    "counters": False,  # +1/+1 counters put on your permanents by explore and its triggers
    "explore_counters": False,  # ... by explore itself (E2, E4)
    "trigger_counters": False,  # ... by Wildgrowth Walker, Shadowed Caravel, Nicanzil
    "explores": False,  # explores that happened (E3, E4 included; E9 not)
    "explore_lands": False,  # lands put into hand by explore (E1)
    "milled": False,  # nonland cards put into the graveyard by explore
    "scries": False,  # scry 1 from Twists and Turns (R2)
    "maps_created": False,
    "maps_used": False,
    "mana_spent": False,
    "cards_cast": False,
    "creatures": False,  # creatures on the battlefield
    "hand_size": False,
    "life_gained": False,  # Wildgrowth Walker
    "cave_diver_pumps": False,  # Merfolk Cave-Diver +1/+0 triggers
    "chupacabra_triggers": False,  # Lurking Chupacabra -2/-2 triggers (no target in a goldfish)
    "nicanzil_lands": False,  # lands put onto the battlefield by Nicanzil
    "explorers_removed": False,  # explorers removed in response to their explore (removal=)
    "extra_land_drops": False,  # land drops beyond one a turn (Enter the Unknown, Janeway, ...)
    "decked": True,  # tried to draw from an empty library (the game would be lost)
}
#: Metrics of the opening hand (reported as turn 0).
OPENING_METRICS: dict[str, bool] = {
    "mulligans": False,
    "hand_size": False,
    "opening_lands": False,
}
#: Event metrics are cumulative from the start of the game.
_STATE_METRICS = ("lands_played", "on_curve", "land_drop", "creatures", "hand_size")

#: How each explore / Map ability of the catalog is treated in a goldfish game.
MODELLED: dict[str, str] = {
    "enter": "explores when it enters (X: Jadelight Spelunker takes the mana left)",
    "creature_enters": "Path of Discovery, Janeway: each creature you control that enters explores",
    "beginning_of_combat": "explores at the beginning of combat on your turn",
    "merfolk_at_combat": "Hakbal: each Merfolk you control explores at the beginning of combat",
    "attack": "explores when it attacks",
    "combat_damage": "explores when it deals combat damage (attacks are unblocked)",
    "cast": "a spell that makes target creature you control explore (needs a creature)",
    "activated": "Seeker of Sunlight's {2}{G} explore, with mana left in the second main phase",
    "equipped_attack": "Glowcap Lantern: equipped for {2} when possible; the equipped creature explores when it attacks",
    "crewed_attack": "Subterranean Schooner: crewed by a creature (a summoning-sick one when there is one), which explores",
    "maps enter / attack": "Map tokens when it enters and/or attacks",
    "parley": "Storm Fleet Negotiator: your top card and a coin flip for the opponent's",
    "land_attack": "Restless Anchorage: animated for {1}{W}{U} with 4 mana left before combat; attacks: a Map",
    "token_extra": "Worldwalker Helm: an extra Map whenever you create Maps",
    "not modelled": "activated explores needing an opponent, discards or sacrifices (Deadeye "
    "Tracker, Tomb Robber, Legion Vanguard), dies (Miner's Guidewing), life gain (Amalia), "
    "Defossilize, and Maps given to the opponent or needing a target (Get Lost, Brackish "
    "Blunder, Fanatical Offering): such cards are cast as vanilla cards",
}

#: The most explores one instruction may expand to (Topography Trackers double each other).
_MAX_TRACKER_DOUBLINGS = 6
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
                raise OptionError(f"{name} must be a probability between 0 and 1, got {value!r}")
        if self.replacement_order not in {"tracker-first", "twists-first"}:
            raise OptionError(
                "replacement_order must be 'tracker-first' or 'twists-first', "
                f"got {self.replacement_order!r}"
            )
        if not 0 <= self.hand_limit <= 100:
            raise OptionError(f"hand_limit must be between 0 and 100, got {self.hand_limit}")


@dataclasses.dataclass(eq=False)
class GameState:
    """Every trial's game, as arrays with the trial axis first (updated in place).

    Attributes
    ----------
    library : ndarray, shape (trials, width), int16
        Circular buffer of card ids; the library is logical positions ``top .. end - 1``,
        stored at ``position % width``. Cards put on the bottom are written at ``end``.
    top, end : ndarray, shape (trials,), int32
    library_lands : ndarray, shape (trials,), int32
        Land cards in the library.
    hand, battlefield, sick : ndarray, shape (trials, n_cards + 1), int16
        Cards per id in hand; permanents per id on the battlefield; of those, the ones that
        came under your control this turn (summoning sick).
    mana : ndarray, shape (trials,), int32
        Untapped mana available now (every land taps for one mana).
    land_drops : ndarray, shape (trials,), int32
        Land plays left this turn.
    played_land : ndarray, shape (trials,), bool
    maps, equipped : ndarray, shape (trials,), int32
        Map tokens; Glowcap Lanterns attached to a creature.
    graveyard : ndarray, shape (trials,), int32
        Cards in the graveyard (milled, resolved spells, discarded, removed permanents).
    turn : int
    totals : dict of str to ndarray, shape (trials,), int32
        Cumulative event counts (explores, counters, Maps, mana spent, ...).
    """

    library: np.ndarray
    top: np.ndarray
    end: np.ndarray
    library_lands: np.ndarray
    hand: np.ndarray
    battlefield: np.ndarray
    sick: np.ndarray
    mana: np.ndarray
    land_drops: np.ndarray
    played_land: np.ndarray
    maps: np.ndarray
    equipped: np.ndarray
    graveyard: np.ndarray
    turn: int
    totals: dict[str, np.ndarray]

    @property
    def trials(self) -> int:
        return self.library.shape[0]

    @classmethod
    def from_opening_hands(cls, opening: OpeningHands, features: FeatureTable) -> GameState:
        trials, n_kinds = opening.hand.shape
        zeros = np.zeros(trials, dtype=np.int32)
        # Every trial holds the same deck, split between library and hand.
        hand_lands = (opening.hand * features.is_land).sum(axis=1, dtype=np.int32)
        first = _library_cards(opening, 0)
        deck_lands = int(features.is_land[first].sum()) + int(hand_lands[0])
        library_lands = deck_lands - hand_lands
        totals = {
            name: zeros.copy() for name in TURN_METRICS if name not in _STATE_METRICS
        }
        totals["decked"] = zeros.copy()
        return cls(
            library=opening.library,
            top=opening.top.copy(),
            end=opening.end.copy(),
            library_lands=library_lands.astype(np.int32),
            hand=opening.hand.copy(),
            battlefield=np.zeros((trials, n_kinds), dtype=np.int16),
            sick=np.zeros((trials, n_kinds), dtype=np.int16),
            mana=zeros.copy(),
            land_drops=zeros.copy(),
            played_land=np.zeros(trials, dtype=bool),
            maps=zeros.copy(),
            equipped=zeros.copy(),
            graveyard=zeros.copy(),
            turn=0,
            totals=totals,
        )


def _library_cards(opening: OpeningHands, row: int) -> np.ndarray:
    """The card ids in one trial's library, top first."""
    width = opening.library.shape[1]
    positions = np.arange(opening.top[row], opening.end[row]) % width
    return opening.library[row, positions]


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
        from ..cards.card import Catalog

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
                raise OptionError(f"cast_order: {name!r} is not in the deck")
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

    def observe(
        self, state: GameState, rows: np.ndarray, revealed: np.ndarray,
        explores_left: np.ndarray, counters: np.ndarray, present: np.ndarray,
    ) -> Observation:
        # Counts are computed only if the policy asks for them; the state does not change
        # while the policy decides.
        return Observation.build(
            self.f,
            revealed,
            cards_in_hand=lambda: state.hand[rows].sum(axis=1, dtype=np.int32),
            lands_in_hand=lambda: state.hand[np.ix_(rows, self.land_ids)].sum(axis=1, dtype=np.int32),
            lands_in_play=lambda: self.on_battlefield(state, self.land_ids, rows),
            turn=state.turn,
            explores_left=explores_left,
            counters=counters,
            explorer_present=present,
            library_size=lambda: state.end[rows] - state.top[rows],
            lands_in_library=lambda: state.library_lands[rows],
        )

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

    def create_maps(self, state: GameState, rows: np.ndarray, count: np.ndarray | int) -> None:
        """Create ``count`` Maps in each of ``rows``; each Worldwalker Helm adds one per
        creation (M6)."""
        count = np.broadcast_to(np.asarray(count, dtype=np.int32), rows.shape)
        making = count > 0
        rows, count = rows[making], count[making]
        created = count + self.on_battlefield(state, self.helm_ids, rows)
        state.maps[rows] += created
        state.totals["maps_created"][rows] += created

    # ----------------------------------------------------------------------------------
    # Explore instructions, replacements and triggers

    def explore_instruction(
        self,
        state: GameState,
        rows: np.ndarray,
        explorer: np.ndarray | int,
        count: np.ndarray | int,
        targeted: bool,
        present: np.ndarray | None = None,
        pending: list[np.ndarray] | None = None,
    ) -> np.ndarray:
        """One effect that makes ``explorer`` explore ``count`` times (E6), then its triggers.

        Parameters
        ----------
        rows : ndarray of int
            Trials in which the effect resolves.
        explorer : ndarray aligned with rows, or int
            Card id of the exploring permanent.
        count : ndarray aligned with rows, or int
            Explores the effect makes before replacements.
        targeted : bool
            The effect targets the explorer (Map, spell): if it is gone, nothing happens (E9).
        present : ndarray aligned with rows, bool, optional
            False where this very permanent has already left the battlefield (an earlier
            trigger of the same event removed it). Default: it is there if a permanent of its
            kind is.
        pending : list of three ndarrays of shape (trials,), optional
            For effects that make several permanents explore (Hakbal): the explores are
            added to ``pending`` (explored, lands, nonlands, by trial) and the caller resolves
            the triggers once, after the whole effect (E8). Default: resolve them here.

        Returns
        -------
        ndarray aligned with rows, bool
            Where the explorer is still on the battlefield afterwards.
        """
        explorer = np.broadcast_to(np.asarray(explorer, dtype=np.intp), rows.shape)
        count = np.broadcast_to(np.asarray(count, dtype=np.int32), rows.shape)
        on_battlefield = (explorer != EMPTY) & (state.battlefield[rows, explorer] > 0)
        present = on_battlefield if present is None else on_battlefield & present
        active = count > 0
        if not active.any():
            return present
        # Removal model: the explorer leaves in response to its explore.
        if self.config.removal > 0:
            roll = self.rngs["removal"].random(len(rows))
            gone = active & present & (roll < self.config.removal)
            self.remove(state, rows[gone], explorer[gone])
            state.totals["explorers_removed"][rows[gone]] += 1
            present = present & ~gone
        if targeted:
            active = active & present  # E9: the target is gone, nothing happens at all
        # E3: an explorer that is gone still explores, without counters.
        # R1 (Topography Tracker doubles each explore), R2 (Twists and Turns: scry 1 first),
        # R3 (order chosen: tracker-first gives scry, explore, scry, explore).
        trackers = np.minimum(self.on_battlefield(state, self.tracker_ids, rows),
                              _MAX_TRACKER_DOUBLINGS)
        twists = self.on_battlefield(state, self.twists_ids, rows)
        explores_per = 2**trackers
        if self.config.replacement_order == "tracker-first":
            period = twists + 1
            steps = count * explores_per * period
        else:
            period = twists + explores_per
            steps = count * period
        steps = np.where(active, steps, 0)
        total_explores = np.where(active, count * explores_per, 0)
        explored = np.zeros(len(rows), dtype=np.int32)
        lands = np.zeros(len(rows), dtype=np.int32)
        nonlands = np.zeros(len(rows), dtype=np.int32)
        counters = np.zeros(len(rows), dtype=np.int32)
        totals = state.totals
        for step in range(int(steps.max())):
            in_step = step < steps
            is_scry = in_step & ((step % period) < twists)
            is_explore = in_step & ~is_scry
            if is_scry.any():
                self._scry(state, rows[is_scry], (total_explores - explored)[is_scry],
                           counters[is_scry], present[is_scry])
            if not is_explore.any():
                continue
            here = rows[is_explore]
            revealed = self.peek(state, here)
            obs = self.observe(state, here, revealed, (total_explores - explored)[is_explore],
                               counters[is_explore], present[is_explore])
            mill = decide(self.policy, obs, self.rngs["policy"])
            events = explore_outcome(revealed, self.f, mill, present[is_explore],
                                     np.ones(len(here), dtype=bool))
            found = here[events.land_to_hand]
            state.hand[found, revealed[events.land_to_hand]] += 1  # E1
            state.top[here] += events.land_to_hand | events.milled  # E2: kept cards stay (E6, E7)
            state.library_lands[here] -= events.land_to_hand
            state.graveyard[here] += events.milled
            explored[is_explore] += events.explored
            lands[is_explore] += events.land_to_hand
            nonlands[is_explore] += events.nonland
            counters[is_explore] += events.counter
            totals["explores"][here] += events.explored
            totals["explore_counters"][here] += events.counter
            totals["explore_lands"][here] += events.land_to_hand
            totals["milled"][here] += events.milled
        if pending is None:
            self._explore_triggers(state, rows, explored, lands, nonlands)
        else:
            for total, part in zip(pending, (explored, lands, nonlands)):
                total[rows] += part
        return present

    def _scry(self, state: GameState, rows: np.ndarray, explores_left: np.ndarray,
              counters: np.ndarray, present: np.ndarray) -> None:
        """Scry 1 (R2): a land stays on top; a nonland goes to the bottom if the policy says so."""
        card = self.peek(state, rows)
        obs = self.observe(state, rows, card, explores_left, counters, present)
        bottom = self.f.is_nonland[card] & decide(self.scry_policy, obs, self.rngs["policy"])
        moving = rows[bottom]
        width = state.library.shape[1]
        state.library[moving, state.end[moving] % width] = card[bottom]
        state.top[moving] += 1
        state.end[moving] += 1
        state.totals["scries"][rows[card != EMPTY]] += 1

    def _explore_triggers(self, state: GameState, rows: np.ndarray, explored: np.ndarray,
                          lands: np.ndarray, nonlands: np.ndarray) -> None:
        """"Whenever a creature you control explores" triggers, after the whole effect (E8)."""
        fired = explored > 0
        rows, explored, lands, nonlands = rows[fired], explored[fired], lands[fired], nonlands[fired]
        if rows.size == 0:
            return
        totals = state.totals

        def count(name: str) -> np.ndarray:
            return self.on_battlefield(state, self.trigger_ids[name], rows)

        walkers = count("walker")
        totals["trigger_counters"][rows] += walkers * explored + count("caravel") * explored
        totals["life_gained"][rows] += 3 * walkers * explored
        totals["cave_diver_pumps"][rows] += count("cave_diver") * explored
        totals["chupacabra_triggers"][rows] += count("chupacabra") * explored
        nicanzils = count("nicanzil")
        # Nicanzil: a nonland explored gives it a counter; a land explored lets you put a land
        # from hand onto the battlefield tapped. Neither fires on an empty library (E4).
        totals["trigger_counters"][rows] += nicanzils * nonlands
        land_triggers = nicanzils * lands
        for k in range(int(land_triggers.max(initial=0))):
            self.put_land(state, rows[k < land_triggers], tapped=True)

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
        self.enters(state, rows, land)

    def enters(self, state: GameState, rows: np.ndarray, card: np.ndarray | int,
               x: np.ndarray | None = None) -> None:
        """Permanent ``card`` (aligned with rows) enters the battlefield; its enter triggers."""
        card = np.broadcast_to(np.asarray(card, dtype=np.intp), rows.shape)
        state.battlefield[rows, card] += 1
        state.sick[rows, card] += 1
        for kind in np.unique(card).tolist():
            here = card == kind
            entering = rows[here]
            info = self.f.cards[kind - 1]
            if info.extra_land == "each_turn":  # Janeway: an additional land this turn too
                state.land_drops[entering] += 1
                state.totals["extra_land_drops"][entering] += 1
            if info.maps_when in {"enter", "enter_or_attack"}:
                self.create_maps(state, entering, info.maps)
            alive = np.ones(len(entering), dtype=bool)  # this very permanent, until removed
            if info.explores_when == "enter":
                count = (x[here] if x is not None else 0) if info.explores_x else info.explores
                if info.explore_targets:  # Twists and Turns: target creature you control
                    target = self.pick_creature(state, entering)
                    has = target != EMPTY
                    count = np.broadcast_to(count, entering.shape)[has]
                    self.explore_instruction(state, entering[has], target[has], count, True)
                else:
                    alive &= self.explore_instruction(state, entering, kind, count, False, alive)
            if info.is_creature:
                # Path of Discovery, Janeway (itself included): that creature explores.
                triggers = self.on_battlefield(state, self.enters_explorer_ids, entering)
                for k in range(int(triggers.max(initial=0))):
                    again = k < triggers
                    alive[again] &= self.explore_instruction(
                        state, entering[again], kind, 1, False, alive[again])

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
        if info.is_permanent:
            self.enters(state, rows, kind, x)
            return
        # Instants and sorceries.
        if info.explores_when == "cast":  # Enter the Unknown, Over the Edge: targeted
            target = self.pick_creature(state, rows)
            has = target != EMPTY
            self.explore_instruction(state, rows[has], target[has], info.explores, True)
        state.graveyard[rows] += 1
        if info.extra_land == "this_turn":
            state.land_drops[rows] += 1
            state.totals["extra_land_drops"][rows] += 1
        if info.has_keyword("draw"):
            self.draw(state, rows)

    def equip(self, state: GameState, rows: np.ndarray) -> np.ndarray:
        """Attach an unattached Glowcap Lantern for {2} when a creature is there."""
        if self.lantern_ids.size == 0:
            return np.zeros(len(rows), dtype=bool)
        free = self.on_battlefield(state, self.lantern_ids, rows) - state.equipped[rows]
        equipping = (free > 0) & (state.mana[rows] >= 2) & (self.creatures(state, rows) > 0)
        equipped = rows[equipping]
        state.equipped[equipped] += 1
        state.mana[equipped] -= 2
        state.totals["mana_spent"][equipped] += 2
        return equipping

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
                progressed[idle] = self.equip(state, rows[idle])
            if second:
                idle = ~progressed
                if idle.any():
                    progressed[idle] = self.activate_map(state, rows[idle])
                idle = ~progressed
                if idle.any():
                    progressed[idle] = self.activate_explore_ability(state, rows[idle])
            rows = rows[progressed]
            if rows.size == 0:
                return

    def activate_map(self, state: GameState, rows: np.ndarray) -> np.ndarray:
        """One Map activation where possible (M1-M5); the target is a creature you control."""
        if not self.config.use_maps:
            return np.zeros(len(rows), dtype=bool)
        can = state.maps[rows] > 0
        can[can] = state.mana[rows[can]] >= 1
        target = np.full(len(rows), EMPTY, dtype=np.intp)
        target[can] = self.pick_creature(state, rows[can])
        # M2: {1}, {T}, sacrifice; M3: sorcery speed (main phase); M4: needs a target;
        # M5: no summoning sickness for the Map itself.
        using = can & (target != EMPTY)
        users = rows[using]
        state.maps[users] -= 1
        state.mana[users] -= 1
        state.totals["mana_spent"][users] += 1
        state.totals["maps_used"][users] += 1
        if users.size:
            self.explore_instruction(state, users, target[using], 1, targeted=True)  # E9
        return using

    def activate_explore_ability(self, state: GameState, rows: np.ndarray) -> np.ndarray:
        """Seeker of Sunlight's sorcery-speed "{2}{G}: it explores" with mana left."""
        progressed = np.zeros(len(rows), dtype=bool)
        for kind in self.seeker_ids.tolist():
            cost = self.f.cards[kind - 1].ability_mana
            using = (state.battlefield[rows, kind] > 0) & (state.mana[rows] >= cost)
            users = rows[using]
            if users.size:
                state.mana[users] -= cost
                state.totals["mana_spent"][users] += cost
                self.explore_instruction(state, users, kind, 1, targeted=False)
                progressed |= using
        return progressed

    # ----------------------------------------------------------------------------------
    # Combat

    def combat(self, state: GameState) -> None:
        trials = state.trials
        everyone = np.arange(trials)
        # Beginning of combat: Deepfathom Echo explores; Hakbal makes each Merfolk explore.
        for kind in self.combat_explorer_ids.tolist():
            count = state.battlefield[:, kind].astype(np.int32)
            for k in range(int(count.max(initial=0))):
                self.explore_instruction(state, np.flatnonzero(k < count), kind, 1, False)
        hakbals = self.on_battlefield(state, self.hakbal_ids, everyone)
        for h in range(int(hakbals.max(initial=0))):
            # One effect: every Merfolk explores, then the explore triggers (E8).
            pending = [np.zeros(trials, dtype=np.int32) for _ in range(3)]
            for kind in self.merfolk_ids.tolist():
                count = np.where(h < hakbals, state.battlefield[:, kind], 0)
                for k in range(int(count.max(initial=0))):
                    self.explore_instruction(state, np.flatnonzero(k < count), kind, 1, False,
                                             pending=pending)
            fired = np.flatnonzero(h < hakbals)
            self._explore_triggers(state, fired, *(part[fired] for part in pending))
        # Restless Anchorage: animate ({1}{W}{U}, and it cannot tap for its own mana).
        anchorage_attacks = np.zeros(trials, dtype=np.int32)
        for kind in self.anchorage_ids.tolist():
            ready = state.battlefield[:, kind] - state.sick[:, kind]
            cost = self.f.cards[kind - 1].ability_mana + 1
            animating = (ready > 0) & (state.mana >= cost)
            state.mana -= cost * animating
            state.totals["mana_spent"] += (cost - 1) * animating
            anchorage_attacks += animating
        # Crew Subterranean Schooner with a creature (a summoning-sick one when possible).
        attackers = np.where(
            self.is_creature_row & ~self.f.has_haste, state.battlefield - state.sick,
            np.where(self.is_creature_row, state.battlefield, 0),
        ).astype(np.int32)
        crewers = []
        for kind in self.schooner_ids.tolist():
            ready = np.flatnonzero((state.battlefield[:, kind] - state.sick[:, kind]) > 0)
            crewer = self.pick_creature(state, ready, prefer_sick=True)
            has = crewer != EMPTY
            crew_rows, crewer = ready[has], crewer[has]
            tapped = attackers[crew_rows, crewer] > 0
            attackers[crew_rows[tapped], crewer[tapped]] -= 1  # a crewing creature is tapped
            crewers.append((crew_rows, crewer))
        any_attacker = attackers.sum(axis=1) > 0
        # Attack triggers.
        for kind in self.attack_map_ids.tolist():
            self.create_maps(state, everyone, attackers[:, kind] * self.f.cards[kind - 1].maps)
        self.create_maps(state, everyone, anchorage_attacks)
        for kind in self.attack_explorer_ids.tolist():
            for k in range(int(attackers[:, kind].max(initial=0))):
                self.explore_instruction(state, np.flatnonzero(k < attackers[:, kind]), kind, 1, False)
        for kind in self.parley_ids.tolist():
            for k in range(int(attackers[:, kind].max(initial=0))):
                self.parley(state, np.flatnonzero(k < attackers[:, kind]))
        for crew_rows, crewer in crewers:
            self.explore_instruction(state, crew_rows, crewer, 1, targeted=True)
        lantern_explores = np.where(any_attacker, np.minimum(state.equipped, attackers.sum(axis=1)), 0)
        explorer = np.argmax(attackers > 0, axis=1)
        for k in range(int(lantern_explores.max(initial=0))):
            lantern_rows = np.flatnonzero(k < lantern_explores)
            self.explore_instruction(state, lantern_rows, explorer[lantern_rows], 1, False)
        # Combat damage (unblocked): Emperor's Vanguard explores.
        for kind in self.damage_explorer_ids.tolist():
            attacking = np.minimum(attackers[:, kind], state.battlefield[:, kind])
            for k in range(int(attacking.max(initial=0))):
                self.explore_instruction(state, np.flatnonzero(k < attacking), kind, 1, False)

    def parley(self, state: GameState, rows: np.ndarray) -> None:
        """Storm Fleet Negotiator: each player reveals the top card; a Map per nonland
        revealed; then each player draws a card."""
        mine = self.peek(state, rows)
        theirs_nonland = self.rngs["parley"].random(len(rows)) >= self.config.opponent_land_fraction
        self.create_maps(state, rows, self.f.is_nonland[mine].astype(np.int32) + theirs_nonland)
        self.draw(state, rows)

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
