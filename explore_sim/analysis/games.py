"""Playing goldfish games in seeded chunks: :func:`play_games` (one deck and policy),
:func:`play_paired` (every variant on the same shuffles), and the exact sums they keep by turn.

Every chunk of trials draws its randomness from its own ``SeedSequence`` child, so variants
compared on the same seed see the same shuffles (common random numbers): a paired difference
then has a much smaller standard error than two independent runs would give. The games are
played by the engine the ``engine`` option chooses (:mod:`.engines`): the vectorised NumPy
engine draws from named streams of the chunk's seed (shuffles of each mulligan attempt,
policy, removal, parley, searches); the compiled kernel keys every game's streams from the
chunk's seed and the game's index in the chunk. Each engine's numbers depend only on the
seed and the chunks (:data:`~.runner.CHUNK_TRIALS` games each), never on where they run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..cards.decklist import Deck
from ..engine.coupled import SameGames, Watch
from ..engine.goldfish import (
    OPENING_METRICS,
    TURN_METRICS,
    GameConfig,
    GameState,
    Goldfish,
    deck_tables,
)
from ..engine.mulligan import MulliganRule, deal_opening_hands
from ..engine.policies import Policy
from .engines import EnginePlay, choose_engine
from .game_setup import engine_plays, game_mulligan
from .objectives import Objective, PairedValues, parse_objective
from .runner import run_chunks
from .stats import SUMMARY_COLUMNS, Accumulator, PairedSums

__all__ = ["count_games", "play_games", "play_paired", "TurnStats", "TurnPairs", "SimulateTask",
           "CompareTask"]

_STREAM_POLICY, _STREAM_REMOVAL, _STREAM_PARLEY, _STREAM_SHUFFLE, _STREAM_SEARCH = range(5)


def _stream(chunk_seed: np.random.SeedSequence, *key: int) -> np.random.Generator:
    child = np.random.SeedSequence(
        chunk_seed.entropy, spawn_key=(*chunk_seed.spawn_key, *key), pool_size=chunk_seed.pool_size
    )
    return np.random.default_rng(child)


def play_games(
    deck: Deck,
    config: GameConfig,
    policy: Policy,
    mulligan: MulliganRule,
    trials: int,
    chunk_seed: np.random.SeedSequence,
    scry_policy: Policy | None = None,
    card_ids: np.ndarray | None = None,
    engine: str = "auto",
    *,
    chosen: bool = False,
    watch: Watch | None = None,
    same_as: SameGames | None = None,
) -> dict[int, dict[str, np.ndarray]]:
    """Play ``trials`` goldfish games; per-trial metrics by turn (0: the opening hand).

    Parameters
    ----------
    deck : Deck
    config : GameConfig
    policy : callable
        Keep-or-mill policy.
    mulligan : MulliganRule
    trials : int
    chunk_seed : numpy.random.SeedSequence
        The chunk's seed; shuffles, policy, removal and parley draw from separate streams of
        it, so every variant played from the same seed sees the same shuffles.
    scry_policy : callable, optional
        Twists and Turns' scry (default: ``policy``).
    card_ids : ndarray of shape (size,), optional
        The main deck's card ids in the order the shuffle starts from (default
        :meth:`Deck.card_ids`). Decks of the same size shuffled with the same random
        numbers hold the same card at every position where their orders agree, so an
        order that lines up what two decks share couples their games closely (common
        random numbers); any order gives the same distribution of games.
    engine : {"auto", "kernel", "numpy"}
        The engine that plays them (:func:`~.engines.choose_engine`): the compiled kernel
        (its streams keyed from ``chunk_seed`` and each game's index, so the first games of
        a chunk do not depend on ``trials``), the vectorised NumPy engine, or ``auto``: the
        kernel when it can play them.
    chosen : bool
        ``engine`` is ``"kernel"`` or ``"numpy"`` as the run's engine choice made it (once
        per run, :func:`~.engines.choose_engine`): it is not made again for every chunk.
    watch, same_as : optional
        The compiled kernel's watched cards and games copied from a coupled deck
        (:class:`~explore_sim.engine.coupled.Watch`,
        :class:`~explore_sim.engine.coupled.SameGames`); the vectorised engine plays every
        game and refuses them.

    Returns
    -------
    dict of int to dict of str to ndarray of shape (trials,)

    Raises
    ------
    OptionError
        ``engine="kernel"`` for games the compiled kernel cannot play.
    """
    features = deck.features()
    mulligan = game_mulligan(mulligan, config, features)
    ids = deck.card_ids() if card_ids is None else card_ids
    if not chosen:
        play = EnginePlay(features, policy, mulligan, deck.name)
        engine = choose_engine(engine, [play], config, scry_policy).engine
    if engine == "kernel":
        from ..engine.kernel import play_games_kernel

        return play_games_kernel(deck_tables(features, config), config, policy, mulligan,
                                 trials, chunk_seed, ids, scry_policy, watch=watch,
                                 same_as=same_as)
    if watch is not None or same_as is not None:
        raise ValueError("only the compiled kernel watches cards and copies coupled games")
    opening = deal_opening_hands(
        ids, features, trials, mulligan,
        lambda attempt: _stream(chunk_seed, _STREAM_SHUFFLE, attempt),
        never_cast=deck_tables(features, config).held_ids.tolist(),  # built once, kept for the game
    )
    state = GameState.from_opening_hands(opening, features)
    rngs = {
        "policy": _stream(chunk_seed, _STREAM_POLICY),
        "removal": _stream(chunk_seed, _STREAM_REMOVAL),
        "parley": _stream(chunk_seed, _STREAM_PARLEY),
        "search": _stream(chunk_seed, _STREAM_SEARCH),
    }
    game = Goldfish(features, config, policy, scry_policy, rngs)
    lands = game.land_ids
    out = {0: {
        "mulligans": opening.mulligans,
        "hand_size": opening.hand.sum(axis=1, dtype=np.int32),
        "opening_lands": opening.hand[:, lands].sum(axis=1, dtype=np.int32),
    }}
    for turn in range(1, config.turns + 1):
        game.play_turn(state)
        out[turn] = game.turn_metrics(state)
    return out


def _by_turn(rows: dict[int, list[tuple]]) -> pd.DataFrame:
    """One frame ``turn, metric, mean, se, ci_low, ci_high`` of summary rows by turn (made at
    once: a frame per turn and their concatenation cost far more on long games)."""
    return pd.DataFrame([(turn, *row) for turn, turn_rows in rows.items() for row in turn_rows],
                        columns=["turn", *SUMMARY_COLUMNS])


class TurnStats:
    """One :class:`Accumulator` per turn (turn 0: the opening hand).

    Attributes
    ----------
    by_turn : dict of int to Accumulator
    """

    def __init__(self, turns: int, metrics: dict[str, bool] | None = None) -> None:
        self.by_turn = {0: Accumulator(OPENING_METRICS)}
        for turn in range(1, turns + 1):
            self.by_turn[turn] = Accumulator(metrics or TURN_METRICS)

    def add(self, values: dict[int, dict[str, np.ndarray]]) -> None:
        for turn, metrics in values.items():
            self.by_turn[turn].add(metrics)

    def merge(self, other: TurnStats) -> None:
        for turn, acc in other.by_turn.items():
            self.by_turn[turn].merge(acc)

    @classmethod
    def from_turns(cls, accumulators: Sequence[Accumulator]) -> TurnStats:
        stats = cls.__new__(cls)
        stats.by_turn = dict(enumerate(accumulators))
        return stats

    @classmethod
    def of(cls, values: dict[int, dict[str, np.ndarray]], turns: int,
           metrics: dict[str, bool] | None = None) -> TurnStats:
        stats = cls(turns, metrics)
        stats.add(values)
        return stats

    def summary(self, level: float = 0.95) -> pd.DataFrame:
        return _by_turn({turn: acc.summary_rows(level) for turn, acc in self.by_turn.items()})

    @property
    def n(self) -> int:
        return self.by_turn[0].n


@dataclasses.dataclass(frozen=True)
class SimulateTask:
    """One deck and policy's games, as a picklable chunk task (:mod:`.executors`).

    Attributes
    ----------
    deck : Deck
    config : GameConfig
    policy : callable
        Keep-or-mill policy.
    rule : MulliganRule
    scry : callable or None
        Twists and Turns' scry policy (None: ``policy``).
    engine : {"auto", "kernel", "numpy"}
        The engine that plays the games (:func:`play_games`).
    """

    deck: Deck
    config: GameConfig
    policy: Policy
    rule: MulliganRule
    scry: Policy | None = None
    engine: str = "auto"

    def __call__(self, trials: int, chunk_seed: np.random.SeedSequence) -> TurnStats:
        """Play one chunk.

        Parameters
        ----------
        trials : int
        chunk_seed : numpy.random.SeedSequence

        Returns
        -------
        TurnStats
            The chunk's exact sums by turn.
        """
        if self.engine == "kernel":  # counted by value in the compiled game
            return count_games(self.deck, self.config, self.policy, self.rule, trials,
                               chunk_seed, self.scry)
        return TurnStats.of(
            play_games(self.deck, self.config, self.policy, self.rule, trials, chunk_seed,
                       self.scry, engine=self.engine,
                       chosen=self.engine in ("kernel", "numpy")),
            self.config.turns, self.config.metric_names)


def count_games(deck: Deck, config: GameConfig, policy: Policy, mulligan: MulliganRule,
                trials: int, chunk_seed: np.random.SeedSequence,
                scry_policy: Policy | None = None) -> TurnStats:
    """The exact sums of :func:`play_games` on the compiled kernel (the engine chosen for
    them), from the metrics it counts by value as it plays
    (:func:`~explore_sim.engine.kernel.count_games_kernel`): no game's metrics are written
    out, unless more large values come than it has room for.

    Parameters
    ----------
    deck, config, policy, mulligan, trials, chunk_seed, scry_policy
        As for :func:`play_games`.

    Returns
    -------
    TurnStats
    """
    from ..engine.kernel import count_games_kernel

    features = deck.features()
    counted = count_games_kernel(deck_tables(features, config), config, policy,
                                 game_mulligan(mulligan, config, features), trials, chunk_seed,
                                 deck.card_ids(), scry_policy)
    if counted is None:  # more large values than the kernel had room for: written out
        return TurnStats.of(play_games(deck, config, policy, mulligan, trials, chunk_seed,
                                       scry_policy, engine="kernel", chosen=True),
                            config.turns, config.metric_names)
    opening, counts, apart = counted
    stats = TurnStats(config.turns, config.metric_names)
    stats.by_turn[0].add(opening)
    for turn, by_value in counts.items():
        stats.by_turn[turn].add_counts(by_value, trials, apart.get(turn))
    return stats


class TurnPairs:
    """One :class:`PairedSums` per turn: products of every two variants' per-game metrics;
    the paired sums of each game's min(kill turn, turns + 1); and those of the objectives
    asked for.

    Attributes
    ----------
    by_turn : dict of int to PairedSums
    kill : PairedValues or None
        The sums of every variant's per-game ``kill_turn@turns`` (the objective,
        :mod:`.objectives`) and of their products, which the per-turn sums cannot give (the
        kill turn adds ``opponent_dead`` across turns); None without ``opponent_dead``.
    objectives : dict of str to PairedValues
        Per objective (by its text), the sums of every variant's per-game values and of
        their products (:class:`~.objectives.PairedValues`).
    """

    def __init__(self, turns: int, variants: int, metrics: dict[str, bool] | None = None,
                 objectives: Sequence[Objective] = ()) -> None:
        self.by_turn = {0: PairedSums(list(OPENING_METRICS), variants)}
        for turn in range(1, turns + 1):
            self.by_turn[turn] = PairedSums(list(metrics or TURN_METRICS), variants)
        self.kill = (PairedValues(variants)
                     if turns >= 1 and "opponent_dead" in (metrics or TURN_METRICS) else None)
        self._kill_turn = parse_objective(f"kill_turn@{turns}") if self.kill else None
        self._objectives = tuple(objectives)
        self.objectives = {objective.text: PairedValues(variants) for objective in objectives}

    def add(self, results: list[dict[int, dict[str, np.ndarray]]]) -> None:
        for turn, sums in self.by_turn.items():
            sums.add([result[turn] for result in results])
        if self.kill is not None and self._kill_turn is not None:
            self.kill.add([self._kill_turn.values(result) for result in results])
        for objective in self._objectives:
            self.objectives[objective.text].add([objective.values(result)
                                                 for result in results])

    def merge(self, other: TurnPairs) -> None:
        for turn, sums in other.by_turn.items():
            self.by_turn[turn].merge(sums)
        if self.kill is not None and other.kill is not None:
            self.kill.merge(other.kill)
        for text, values in other.objectives.items():
            self.objectives[text].merge(values)

    def difference(self, base: TurnStats, other: TurnStats, base_index: int,
                   other_index: int, level: float) -> pd.DataFrame:
        return _by_turn({turn: sums.difference_rows(base.by_turn[turn], other.by_turn[turn],
                                                    base_index, other_index, level)
                         for turn, sums in self.by_turn.items()})


@dataclasses.dataclass(frozen=True)
class CompareTask:
    """Every deck x policy variant on the same shuffles, as a picklable chunk task.

    Attributes
    ----------
    variants : tuple of (Deck, callable)
        The variants, in order.
    config : GameConfig
    rule : MulliganRule
    scry : callable or None
        Twists and Turns' scry (None: each variant's policy).
    card_ids : tuple of (ndarray or None), optional
        Per variant, the order its deck's cards are shuffled from (:func:`play_games`).
    engine : {"auto", "kernel", "numpy"}
        The engine that plays every variant (:func:`play_games`).
    objectives : tuple of Objective
        Objectives whose per-game values are paired too (:attr:`TurnPairs.objectives`).
    """

    variants: tuple[tuple[Deck, Policy], ...]
    config: GameConfig
    rule: MulliganRule
    scry: Policy | None = None
    card_ids: tuple[np.ndarray | None, ...] | None = None
    engine: str = "auto"
    objectives: tuple[Objective, ...] = ()

    def __call__(self, trials: int,
                 chunk_seed: np.random.SeedSequence) -> tuple[list[TurnStats], TurnPairs]:
        """Play one chunk with every variant.

        Parameters
        ----------
        trials : int
        chunk_seed : numpy.random.SeedSequence

        Returns
        -------
        (list of TurnStats, TurnPairs)
            Each variant's sums, and the sums of products of every two variants.
        """
        config = self.config
        card_ids = self.card_ids or (None,) * len(self.variants)
        engine = self.engine  # chosen for every variant of the run (play_paired)
        if engine not in ("kernel", "numpy"):
            engine = choose_engine(engine, engine_plays(self.variants, config, self.rule),
                                   config, self.scry).engine
        results = [play_games(deck, config, policy, self.rule, trials, chunk_seed, self.scry, ids,
                              engine, chosen=True)
                   for (deck, policy), ids in zip(self.variants, card_ids)]
        pairs = TurnPairs(config.turns, len(self.variants), config.metric_names,
                          self.objectives)
        pairs.add(results)
        return ([TurnStats.of(result, config.turns, config.metric_names) for result in results],
                pairs)


def play_paired(
    variants: Sequence[tuple[Deck, Policy]],
    config: GameConfig,
    rule: MulliganRule,
    scry: Policy | None,
    trials: int,
    seed_seq: np.random.SeedSequence,
    *,
    card_ids: Sequence[np.ndarray | None] | None = None,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
    scheduler: Any = None,
    engine: str = "auto",
    stop_early: bool = False,
    objectives: Sequence[Objective] = (),
) -> tuple[list[TurnStats], TurnPairs]:
    """Play every ``(deck, policy)`` variant on the same shuffles; statistics for pairing.

    Parameters
    ----------
    variants : sequence of (Deck, callable)
        The decks and keep-or-mill policies, each pair played on every chunk's shuffles.
    config : GameConfig
    rule : MulliganRule
    scry : callable or None
        Twists and Turns' scry (None: each variant's policy).
    trials : int
    seed_seq : numpy.random.SeedSequence
    card_ids : sequence of (ndarray or None), optional
        Per variant, the order its deck's cards are shuffled from (:func:`play_games`).
    progress : callable, optional
        ``progress(games done, games)`` after every chunk.
    workers : int
        Processes (0: every core); the numbers do not depend on it.
    scheduler : str, distributed.Client or Executor, optional
        Run the chunks on a Dask cluster instead (:func:`~.runner.run_chunks`).
    engine : {"auto", "kernel", "numpy"}
        The engine that plays every variant (one for all, so that they share their
        shuffles): as for :func:`play_games`, ``auto`` choosing the kernel only when it can
        play every variant.
    stop_early : bool
        A :class:`~.runner.StopRun` raised by ``progress`` ends the games there (the
        statistics count the games finished, ``stats[0].n``); else it propagates
        (:func:`~.runner.run_chunks`).
    objectives : sequence of Objective
        Objectives (:mod:`.objectives`) whose per-game values are paired as well, in
        :attr:`TurnPairs.objectives`; each looks at turns up to ``config.turns``.

    Returns
    -------
    (list of TurnStats, TurnPairs)
        Each variant's exact sums and histograms by turn, and the sums of products of every
        two variants' per-game metrics (for :class:`CompareResult`).
    """
    card_ids = list(card_ids) if card_ids is not None else [None] * len(variants)
    if len(card_ids) != len(variants):
        raise ValueError("card_ids needs one entry per variant")
    for deck, policy in variants:
        Goldfish(deck.features(), config, policy, scry, {})  # validate cast_order up front
    engine = choose_engine(engine, engine_plays(variants, config, rule), config, scry).engine
    stats = [TurnStats(config.turns, config.metric_names) for _ in variants]
    pairs = TurnPairs(config.turns, len(variants), config.metric_names, objectives)

    def merge(part: tuple[list[TurnStats], TurnPairs]) -> None:
        for total, chunk_stats in zip(stats, part[0]):
            total.merge(chunk_stats)
        pairs.merge(part[1])

    task = CompareTask(tuple(variants), config, rule, scry, tuple(card_ids), engine,
                       tuple(objectives))
    run_chunks(task, merge, trials, seed_seq, progress=progress, workers=workers,
               scheduler=scheduler, stop_early=stop_early)
    return stats, pairs
