"""The goldfish turn loop: whole games without an opponent, vectorised over trials.

Each turn: untap; draw (not on turn 1 on the play); first main phase (play a land as soon as
one can be played, chosen by colour (:mod:`explore_sim.engine.lands`), cast spells by the
casting priority (:mod:`explore_sim.engine.casting`), equip, a Map with mana left in the
pool); combat (beginning-of-combat explores, every creature able to attack attacks and is
unblocked, mana creatures aside (attacking taps them): attack and combat-damage triggers);
second main phase (a land found meanwhile is still played, more casting, Map tokens and
activated abilities with the mana left); cleanup (discard down to seven). Mana comes from
untapped sources and is paid exactly by colour (:mod:`explore_sim.engine.paying`); unspent
mana empties between phases.

The state is a :class:`GameState` of arrays with the trial axis first. The turn loop owns it
and updates it in place, one vectorised step at a time. This module holds the turn
structure; what each card does is an entry of the ability registry
(:mod:`explore_sim.engine.abilities`), run at its step, and every per-card array comes from
the deck's frozen :class:`~explore_sim.engine.tables.DeckTables`. Python loops run over
turns, casting passes, card kinds and explores in a sequence, never over trials. Comments
cite docs/rules.md and docs/mana.md.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..cards import FeatureTable
from . import abilities
from .castability import available_mana, castable_card, record_main_phase
from .casting import cast_pass
from .config import GAMES, MAX_ACTIONS, GameConfig, is_commander_game, starting_life
from .context import Play
from .lands import play_land
from .metrics import OPENING_METRICS, TURN_METRICS
from .paying import ManaTables
from .policies import Policy
from .rowwise import row_sum
from .state import GameState, from_hand
from .tables import DeckTables
from .zones import count, creatures, draw, peek

__all__ = ["GameConfig", "GameState", "Goldfish", "TURN_METRICS", "OPENING_METRICS", "GAMES",
           "is_commander_game", "deck_tables"]

#: Tables already built, by feature table and the options that shape them (every chunk of a
#: run plays the same deck).
_TABLES: dict[tuple, DeckTables] = {}


def deck_tables(features: FeatureTable, config: GameConfig) -> DeckTables:
    """The :class:`DeckTables` of ``features`` in games with ``config``, built once (the
    turns, the policy-independent options and the randomness do not change them)."""
    key = (id(features), config.castable, config.cast_order, config.land_faces, config.game)
    tables = _TABLES.get(key)
    if tables is None or tables.features is not features:
        tables = DeckTables.build(features, config, abilities.patterns(),
                                  abilities.held_reason)
        if len(_TABLES) >= 32:
            _TABLES.clear()
        _TABLES[key] = tables
    return tables


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
    tables : DeckTables, optional
        The deck's tables, if already built (default: :func:`deck_tables`).
    """

    def __init__(self, features: FeatureTable, config: GameConfig, policy: Policy,
                 scry_policy: Policy | None, rngs: dict[str, np.random.Generator],
                 tables: DeckTables | None = None) -> None:
        self.tables = tables if tables is not None else deck_tables(features, config)
        self.config = config
        self.play = Play(self.tables, config, policy, scry_policy or policy, rngs,
                         abilities.steps())

    # The deck's tables, as the analyses and tests read them.
    @property
    def f(self) -> FeatureTable:
        return self.tables.features

    @property
    def mana(self) -> ManaTables:
        return self.tables.mana

    @property
    def is_commander(self) -> bool:
        return self.tables.is_commander

    @property
    def land_ids(self) -> np.ndarray:
        return self.tables.land_ids

    @property
    def kind_modes(self) -> tuple[tuple[int, ...], ...]:
        return self.tables.casting.kind_modes

    @property
    def metric_names(self) -> dict[str, bool]:
        """Every per-turn metric this game records (:attr:`GameConfig.metric_names`)."""
        return self.config.metric_names

    def attach(self, state: GameState) -> GameState:
        """Count the permanents of this deck's ability groups in ``state`` (once; every step
        below does it first, so a state set up by hand may be passed to any of them)."""
        state.attach(self.tables.members, self.tables.groups_of)
        return state

    # ----------------------------------------------------------------------------------
    # Steps the analyses call on their own (a position set up by hand)

    def peek(self, state: GameState, rows: np.ndarray) -> np.ndarray:
        """Top card of each library in ``rows``, ``EMPTY`` where it is empty."""
        return peek(self.play, state, rows)

    def castable_card(self, card: np.ndarray, unit_sets: list[np.ndarray]) -> np.ndarray:
        """Whether the mana in ``unit_sets`` can pay each row's ``card`` in any of its ways."""
        return castable_card(self.play, card, unit_sets)

    def available_mana(self, state: GameState, rows: np.ndarray | None = None) -> np.ndarray:
        """Mana the untapped sources and the pool can make now, shape (rows,), int32."""
        return available_mana(self.play, state, rows)

    def pay(self, state: GameState, rows: np.ndarray, modes: Sequence[int]) -> np.ndarray:
        """Pay the first payable of ``modes`` in each row
        (:func:`~explore_sim.engine.casting.pay`)."""
        from .casting import pay

        return pay(self.play, self.attach(state), rows, modes)

    def cast_pass(self, state: GameState, rows: np.ndarray) -> np.ndarray:
        """Each of ``rows`` casts at most one spell, the castable one of highest priority."""
        return cast_pass(self.play, self.attach(state), rows)

    # ----------------------------------------------------------------------------------
    # Phases

    def main_phase(self, state: GameState, second: bool) -> None:
        """Play lands and cast until nothing changes; in the second, use Maps and abilities.

        A trial that did nothing in one round cannot do anything in the next (its state did
        not change), so each round works only on the trials that acted in the last one.
        The first main phase takes the main-phase metrics after its land drop.
        """
        play = self.play
        self.attach(state)
        activations = play.steps["main_phase"] + (play.steps["second_main_phase"] if second
                                                  else ())
        rows = np.arange(state.trials)
        for step in range(MAX_ACTIONS):
            progressed = play_land(play, state, rows)
            if step == 0 and not second:
                record_main_phase(play, state)
            progressed |= cast_pass(play, state, rows)
            for activate in activations:  # tried in order on the trials that did nothing
                idle = ~progressed
                if idle.any():
                    progressed[idle] = activate(play, state, rows[idle])
            rows = rows[progressed]
            if rows.size == 0:
                break
        state.empty_pool()  # mana empties at the end of the phase

    def combat(self, state: GameState) -> None:
        """Beginning of combat, attackers (every creature that can), attack triggers and
        unblocked combat damage."""
        from .abilities.combat import AttackEvent, combat_damage

        play = self.play
        self.attach(state)
        play.run("beginning_of_combat", state)
        animated = np.zeros(state.trials, dtype=np.int32)
        for animate in play.steps["animate"]:
            animated += animate(play, state)
        attackers = self.attackers(state)
        crewers = [crew for crew_step in play.steps["crew"]
                   for crew in crew_step(play, state, attackers)]
        play.run("attack", state, AttackEvent(attackers, animated, crewers))
        combat_damage(play, state, attackers)
        play.run("combat_damage", state, attackers)
        state.empty_pool()

    def attackers(self, state: GameState) -> np.ndarray:
        """Creatures that attack per card id, shape (trials, n_cards + 1), int32: untapped
        ones not summoning sick, and untapped ones with haste (CR 302.6). Attacking taps a
        creature (CR 508.1f), so a creature with a mana ability stays back for the mana of
        the second main phase."""
        f = self.tables.features
        ready = np.where(f.has_haste, state.battlefield, state.battlefield - state.sick)
        attacks = f.is_creature & ~f.is_source
        return np.where(attacks, ready - state.tapped, 0).clip(0).astype(np.int32)

    # ----------------------------------------------------------------------------------
    # Turns

    def untap_and_draw(self, state: GameState) -> None:
        """The untap step (with its extra land drops) and the draw step."""
        play = self.play
        self.attach(state)
        state.turn += 1
        state.recount()
        state.counters += state.sick_counters  # no copy is summoning sick any more
        state.sick_counters[:] = 0
        state.explores_before[:] = state.totals["explores"]
        state.sick[:] = 0
        state.tapped[:] = 0
        state.empty_pool()
        play.mana.recount(state)
        state.land_drops[:] = 1
        play.run("untap", state)
        state.played_land[:] = False
        commander_ids = self.tables.commander_ids
        if state.turn == 1 and commander_ids.size:  # commanders start in the command zone
            state.command[:, commander_ids] = 1
        # The player on the play skips the first draw, except in a multiplayer Commander game.
        if state.turn > 1 or not self.config.on_play or self.tables.is_commander:
            draw(play, state, np.arange(state.trials))

    def cleanup(self, state: GameState) -> None:
        """The end of the turn: the mana spent on spells so far joins ``compounded_mana`` (the
        running sum of ``spell_mana`` over the turns, docs/guide/metrics.md); then discard
        down to the hand limit (:attr:`DeckTables.discard_order`): the spells never cast
        first; then land cards while the lands you control and hold stay at least the mana
        value of the most expensive spell in hand (surplus lands); then the most expensive
        spells (of two that cost the same, the one that is neither a mana source nor ramp,
        then the lower id); lands last. Lands go one at a time, the kind held most first
        (ties to the lower id), so that the hand keeps its mix of lands."""
        state.totals["compounded_mana"] += state.totals["spell_mana"]
        excess = row_sum(state.hand) - self.config.hand_limit
        if not (excess > 0).any():
            return
        t = self.tables
        everyone = np.arange(state.trials)
        order = t.discard_order.tolist()
        held = len(t.held_ids)  # the order's first cards: the spells never cast
        spells = np.setdiff1d(t.casting.cast_ids, t.land_ids)
        dearest = np.max(np.where(state.hand[:, spells] > 0, t.cost[spells], 0), axis=1,
                         initial=0)
        lands = row_sum(state.battlefield[:, t.land_ids]) + row_sum(state.hand[:, t.land_ids])
        surplus = np.maximum(lands - dearest, 0)  # land cards that can go
        never_cast, others = order[:held], order[held:]
        other_spells = [kind for kind in others if not t.features.is_land[kind]]

        def discard(kind: int, limit: np.ndarray) -> np.ndarray:
            dropping = np.minimum(np.maximum(limit, 0), state.hand[:, kind])
            from_hand(state, everyone, kind, dropping)
            state.graveyard += dropping
            return dropping

        for kind in never_cast:
            excess -= discard(kind, excess)
        excess -= self.discard_lands(state, np.minimum(excess, surplus))  # surplus lands
        for kind in other_spells:
            excess -= discard(kind, excess)
        self.discard_lands(state, excess)  # lands last

    def discard_lands(self, state: GameState, most: np.ndarray) -> np.ndarray:
        """Up to ``most`` (trials,) land cards from each hand to the graveyard, one at a time
        the kind held most (ties to the lower id); how many went, (trials,)."""
        land_ids = self.tables.land_ids
        most = np.maximum(most, 0)
        dropped = np.zeros_like(most)
        if land_ids.size == 0:
            return dropped
        while True:
            held = state.hand[:, land_ids]
            rows = np.flatnonzero((dropped < most) & (held.max(axis=1, initial=0) > 0))
            if rows.size == 0:
                return dropped
            kind = land_ids[np.argmax(held[rows], axis=1)]  # the first of the most held
            from_hand(state, rows, kind, 1)
            state.graveyard[rows] += 1
            dropped[rows] += 1

    def play_turn(self, state: GameState) -> None:
        self.untap_and_draw(state)
        self.main_phase(state, second=False)
        self.combat(state)
        self.main_phase(state, second=True)
        self.cleanup(state)

    def turn_metrics(self, state: GameState) -> dict[str, np.ndarray]:
        """Per-trial values of :attr:`metric_names` at the end of the current turn."""
        play = self.play
        self.attach(state)
        everyone = np.arange(state.trials)
        lands_in_play = count(play, state, "land", everyone)
        out = {name: value.copy() for name, value in state.totals.items()}
        out.update(state.main_phase)
        out["counters"] = out["explore_counters"] + out["trigger_counters"]
        out["lands_played"] = lands_in_play
        out["on_curve"] = (lands_in_play >= state.turn).astype(np.int32)
        out["land_drop"] = state.played_land.astype(np.int32)
        lands_in_hand = row_sum(state.hand[:, self.tables.land_ids], np.int32)
        # spells left: nonland cards in hand but those held for want of a target (never
        # cast in a goldfish game), and commanders in the command zone
        spells_left = (row_sum(state.hand, np.int32) - lands_in_hand
                       - row_sum(state.hand[:, self.tables.held_ids], np.int32)
                       + row_sum(state.command, np.int32))
        out["screwed"] = (~state.played_land & (lands_in_play < state.turn)
                          & (spells_left > 0)).astype(np.int32)
        out["flooded"] = ((spells_left == 0)
                          & (lands_in_play + lands_in_hand > state.turn)).astype(np.int32)
        out["creatures"] = creatures(play, state, everyone)
        out["hand_size"] = row_sum(state.hand, np.int32)
        life = starting_life(self.config, self.tables.is_commander)
        out["opponent_dead"] = (out["damage"] >= life).astype(np.int32)
        return {name: out[name] for name in self.metric_names}
