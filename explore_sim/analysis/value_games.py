"""The games of a valuation: every card's variants on the same shuffles, the explorer deck
played once for all of them, and the land variants only as far as the land-equivalent reads.

:func:`~explore_sim.analysis.value.value` weighs each card against its vanilla stand-in
(every turn, every metric reported) and against the vanilla deck with ``k`` more lands (only
the land-equivalent's metric at its basis turn). The plans share the explorer deck's order
(:func:`~.stand_ins.stand_in_plan` with one ``order``), so one play of the explorer deck
pairs with every card's variants; a land variant's games stop at the basis turn, which gives
the same games cut short (the game plays its turns one after another, whatever their
number), and record only the basis metric.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..engine.goldfish import GameConfig
from ..engine.mulligan import MulliganRule
from ..engine.policies import Policy, policy_name
from .compare import CompareResult
from .game_setup import GameSetup
from .games import TurnPairs, TurnStats, play_games
from .report import deck_meta
from .runner import run_chunks
from .stand_ins import StandInPlan

__all__ = ["ValueTask", "PlanSums", "play_value_plans", "basis_config"]

#: One chunk's (or a whole run's) sums of a group of variants on the same shuffles.
Sums = tuple[list[TurnStats], TurnPairs]


def basis_config(config: GameConfig, metric: str, turn: int) -> GameConfig:
    """``config`` played up to ``turn``, recording ``metric`` only: the land variants'."""
    return dataclasses.replace(config, turns=turn, record=(metric,))


def _cut(result: dict[int, dict[str, np.ndarray]], metric: str,
         turn: int) -> dict[int, dict[str, np.ndarray]]:
    """A game's metrics up to ``turn``, only ``metric`` after the opening hand (views)."""
    return {t: values if t == 0 else {metric: values[metric]}
            for t, values in result.items() if t <= turn}


def _stats(result: dict[int, dict[str, np.ndarray]], config: GameConfig) -> TurnStats:
    return TurnStats.of(result, config.turns, config.metric_names)


def _pairs(results: Sequence[dict[int, dict[str, np.ndarray]]],
           config: GameConfig) -> TurnPairs:
    """The products of every two results' metrics, by turn."""
    pairs = TurnPairs(config.turns, len(results), config.metric_names)
    pairs.add(list(results))
    return pairs


@dataclasses.dataclass
class PlanSums:
    """A card's sums: explorer deck and vanilla deck (every turn and metric), and every
    variant at the land-equivalent's basis.

    Attributes
    ----------
    against_vanilla : (list of TurnStats, TurnPairs)
        The explorer deck and the vanilla deck.
    at_basis : (list of TurnStats, TurnPairs)
        The explorer deck, the vanilla deck and the vanilla deck with ``k`` more lands, up to
        the basis turn, with the basis metric only.
    """

    against_vanilla: Sums
    at_basis: Sums

    def merge(self, other: PlanSums) -> None:
        for mine, theirs in ((self.against_vanilla, other.against_vanilla),
                             (self.at_basis, other.at_basis)):
            for total, part in zip(mine[0], theirs[0]):
                total.merge(part)
            mine[1].merge(theirs[1])


@dataclasses.dataclass(frozen=True)
class ValueTask:
    """Every card's variants on the same shuffles, as a picklable chunk task.

    Attributes
    ----------
    plans : tuple of StandInPlan
        Each card's variants; every plan's explorer deck is shuffled from the same order.
    policy : callable
        Keep-or-mill policy of every variant.
    config : GameConfig
        The explorer and vanilla decks' games (every turn, the metrics reported).
    basis : tuple of (str, int)
        Per plan, the land-equivalent's metric and turn.
    rule : MulliganRule
    engine : {"kernel", "numpy"}
        The engine chosen for every variant of the run.
    """

    plans: tuple[StandInPlan, ...]
    policy: Policy
    config: GameConfig
    basis: tuple[tuple[str, int], ...]
    rule: MulliganRule
    engine: str

    def __call__(self, trials: int, chunk_seed: np.random.SeedSequence) -> list[PlanSums]:
        """Play one chunk: the explorer deck once, then each card's other variants.

        Parameters
        ----------
        trials : int
        chunk_seed : numpy.random.SeedSequence

        Returns
        -------
        list of PlanSums
            One per plan.
        """
        def play(deck: Any, config: GameConfig,
                 ids: np.ndarray) -> dict[int, dict[str, np.ndarray]]:
            return play_games(deck, config, self.policy, self.rule, trials, chunk_seed,
                              card_ids=ids, engine=self.engine, chosen=True)

        first = self.plans[0]
        explorer = play(first.decks[0], self.config, first.card_ids[0])
        explorer_stats = _stats(explorer, self.config)  # the same for every plan
        sums = []
        for plan, (metric, turn) in zip(self.plans, self.basis):
            vanilla = play(plan.decks[1], self.config, plan.card_ids[1])
            short = basis_config(self.config, metric, turn)
            lands = [play(deck, short, ids)
                     for deck, ids in zip(plan.decks[2:], plan.card_ids[2:])]
            at_basis = [_cut(result, metric, turn) for result in (explorer, vanilla)] + lands
            sums.append(PlanSums(
                ([explorer_stats, _stats(vanilla, self.config)],
                 _pairs([explorer, vanilla], self.config)),
                ([_stats(result, short) for result in at_basis], _pairs(at_basis, short))))
        return sums


def play_value_plans(plans: Sequence[StandInPlan], policy: Policy, setup: GameSetup,
                     basis: Sequence[tuple[str, int]], seed_seq: np.random.SeedSequence,
                     progress: Callable[[int, int], None] | None,
                     executor: Any) -> list[tuple[CompareResult, CompareResult]]:
    """Every plan's variants played on the same shuffles (:class:`ValueTask`).

    Parameters
    ----------
    plans : sequence of StandInPlan
        Made with one ``order``: their explorer decks are shuffled from the same order.
    policy : callable
    setup : GameSetup
        The game options, the metrics reported, and the engine chosen for every variant.
    basis : sequence of (str, int)
        Per plan, the land-equivalent's metric and turn.
    seed_seq : numpy.random.SeedSequence
    progress : callable or None
        ``progress(games done, games)`` after every chunk.
    executor : Executor
        Where the chunks run (:func:`~.executors.executing`).

    Returns
    -------
    list of (CompareResult, CompareResult)
        Per plan: the explorer deck against the vanilla deck (labels ``"explorer deck"``
        and ``"vanilla"``), and every variant (:attr:`StandInPlan.labels`) with the basis
        metric up to the basis turn.
    """
    if setup.engine is None:
        raise RuntimeError("no engine chosen yet: with_engine chooses it")
    orders = {plan.card_ids[0].tobytes() for plan in plans}
    if len(orders) != 1:
        raise ValueError("the plans' explorer decks must be shuffled from one order")
    config, basis = setup.config, tuple(basis)
    totals = [PlanSums(_empty(config, 2), _empty(basis_config(config, *at), len(plan.decks)))
              for plan, at in zip(plans, basis)]

    def merge(part: list[PlanSums]) -> None:
        for total, sums in zip(totals, part):
            total.merge(sums)

    task = ValueTask(tuple(plans), policy, config, basis, setup.rule, setup.engine.engine)
    run_chunks(task, merge, setup.trials, seed_seq, progress=progress, scheduler=executor)
    common = {"command": "value", "trials": setup.trials, "seed": seed_seq.entropy,
              "mulligan": setup.rule.name, "policy": [policy_name(policy)],
              **setup.engine.meta()}
    return [(_compared(plan, plan.labels[:2], total.against_vanilla, config.turns, common),
             _compared(plan, plan.labels, total.at_basis, at[1], common))
            for plan, at, total in zip(plans, basis, totals)]


def _empty(config: GameConfig, variants: int) -> Sums:
    return ([TurnStats(config.turns, config.metric_names) for _ in range(variants)],
            TurnPairs(config.turns, variants, config.metric_names))


def _compared(plan: StandInPlan, labels: list[str], sums: Sums, turns: int,
              common: dict[str, Any]) -> CompareResult:
    """A group of a plan's variants (the first ``len(labels)``) as a comparison."""
    meta = {**common, "turns": turns, "variants": labels,
            "deck": [deck_meta(deck) for deck in plan.decks[:len(labels)]]}
    return CompareResult(meta=meta, decks=labels, policies=common["policy"], labels=labels,
                         variants=sums[0], pairs=sums[1])
