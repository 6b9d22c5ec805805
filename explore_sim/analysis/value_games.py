"""The games of a valuation: every card's variants on the same shuffles, the explorer deck
played once for all of them, and the land variants only as far as the land-equivalent reads.

:func:`~explore_sim.analysis.value.value` weighs each card against its vanilla stand-in
(every turn, every metric reported) and against the vanilla deck with ``k`` more lands (only
the land-equivalent's metric at its basis turn). The plans share the explorer deck's order
(:func:`~.stand_ins.stand_in_plan` with one ``order``), so one play of the explorer deck
pairs with every card's variants; a land variant's games stop at the basis turn, which gives
the same games cut short (the game plays its turns one after another, whatever their
number), and record only the basis metric.

The land variants are played in rounds (:mod:`.land_curves`): the first round plays, beside
the explorer and vanilla decks, the vanilla deck with 1 more land (with every count of lands
for a full curve); each later round, for the cards whose land variants played do not yet
reach the explorer deck, the next land variant, paired with the explorer deck's and the
last land variant's games of the same shuffles. Those games' basis values are kept from
round to round, chunk by chunk (at most :data:`KEPT_VALUES` of them; a larger run plays the
explorer deck and the last land variant again instead: the same games). A card worth 0.8
lands plays one land variant, not all its copies.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..engine.coupled import SameGames, Watch
from ..engine.goldfish import GameConfig
from ..engine.mulligan import MulliganRule
from ..engine.policies import Policy, policy_name
from .compare import CompareResult
from .game_setup import GameSetup
from .games import TurnPairs, TurnStats, play_games
from .land_curves import BasisGroup, LandCurve
from .report import deck_meta
from .runner import run_chunks
from .stand_ins import StandInPlan

__all__ = ["ValueTask", "LandRoundTask", "PlanSums", "play_value_plans", "basis_config",
           "watched_bits", "KEPT_VALUES", "WATCHED_CARDS"]

#: The most per-game values a valuation keeps between the rounds of its land variants (one
#: or two bytes each, mostly): beyond, a later round plays the explorer deck and the last land
#: variant again, which gives the same games.
KEPT_VALUES = 50_000_000

#: One chunk's (or a whole run's) sums of a group of variants on the same shuffles.
Sums = tuple[list[TurnStats], TurnPairs]


def basis_config(config: GameConfig, metric: str, turn: int) -> GameConfig:
    """``config`` played up to ``turn``, recording ``metric`` only: the land variants'."""
    return dataclasses.replace(config, turns=turn, record=(metric,))


def _compact(values: np.ndarray) -> np.ndarray:
    """``values`` (whole numbers) in the smallest integer type that holds them."""
    if not values.size:
        return values
    return values.astype(np.promote_types(np.min_scalar_type(int(values.min())),
                                          np.min_scalar_type(int(values.max()))))


#: Per chunk, per plan: its explorer deck's and its last land variant's basis values.
Kept = list[tuple[np.ndarray, np.ndarray] | None]


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
    """A card's sums of the first round: explorer deck and vanilla deck (every turn and
    metric), and the variants of the first round at the land-equivalent's basis.

    Attributes
    ----------
    against_vanilla : (list of TurnStats, TurnPairs)
        The explorer deck and the vanilla deck.
    at_basis : BasisGroup
        The explorer deck, the vanilla deck and the vanilla deck with ``k`` more lands (the
        first round's), with the basis metric at the basis turn.
    """

    against_vanilla: Sums
    at_basis: BasisGroup

    def merge(self, other: PlanSums) -> None:
        for total, part in zip(self.against_vanilla[0], other.against_vanilla[0]):
            total.merge(part)
        self.against_vanilla[1].merge(other.against_vanilla[1])
        self.at_basis.merge(other.at_basis)


def _player(task: ValueTask | LandRoundTask, trials: int, chunk_seed: np.random.SeedSequence
            ) -> Callable[..., dict[int, dict[str, np.ndarray]]]:
    """``play(deck, config, card_ids, **watching)``: one chunk's games of a deck on ``task``'s
    engine (``watching``: :func:`~.games.play_games`' ``watch`` and ``same_as``)."""
    def play(deck: Any, config: GameConfig, ids: np.ndarray,
             **watching: Any) -> dict[int, dict[str, np.ndarray]]:
        return play_games(deck, config, task.policy, task.rule, trials, chunk_seed,
                          task.scry, card_ids=ids, engine=task.engine, chosen=True,
                          **watching)
    return play


#: The most cards whose vanilla decks copy the explorer deck's same games (one bit each of
#: a game's int32 watch bits; a card beyond them has every game played).
WATCHED_CARDS = 31


def watched_bits(plans: Sequence[StandInPlan], config: GameConfig, engine: str) -> list[int]:
    """Per plan, the watch bit whose unseen games its vanilla deck copies from the explorer
    deck (:mod:`~explore_sim.engine.coupled`), 0 where it plays them all.

    A plan's vanilla deck copies the games in which the explorer deck never dealt a copy of
    its cards, where that is exact: on the compiled kernel; with no ``castable`` metric (the
    land choice plays toward a card named by ``castable`` whether or not it is held, and the
    vanilla deck holds none); where each stand-in has its card's id (the vanilla deck is the
    explorer deck with the cards swapped in place, so the two decks hold the same card at
    every id but those) and the two libraries are shuffled from the same order of ids, with
    a copy of each of its cards in it (a commander is in the command zone, seen from the
    first turn: a plan that swaps it plays every game).
    """
    if engine != "kernel" or config.castable or config.castable_lands:
        return [0] * len(plans)
    explorer, order = plans[0].decks[0], plans[0].card_ids[0]
    in_library = {explorer.cards[i - 1] for i in set(order.tolist())}
    bits = []
    for index, plan in enumerate(plans):
        swap = dict(zip(plan.cards, plan.stand_ins))
        swapped = [swap.get(card, card) for card in explorer.cards]
        exact = (index < WATCHED_CARDS and swapped == list(plan.decks[1].cards)
                 and np.array_equal(order, plan.card_ids[1])
                 and all(card in in_library for card in plan.cards))
        bits.append(1 << index if exact else 0)
    return bits


def _watch(plans: Sequence[StandInPlan], bits: Sequence[int], trials: int) -> Watch | None:
    """The explorer deck's :class:`~explore_sim.engine.coupled.Watch` of the plans' cards
    (by their ids in its deck) with their ``bits``, None where no plan has one."""
    if not any(bits):
        return None
    ids = {card: i + 1 for i, card in enumerate(plans[0].decks[0].cards)}
    marks: dict[int, int] = {}
    for plan, bit in zip(plans, bits):
        for card in plan.cards if bit else ():
            marks[ids[card]] = marks.get(ids[card], 0) | bit
    return Watch(marks, np.zeros(trials, np.int32))


@dataclasses.dataclass(frozen=True)
class ValueTask:
    """The first round: every card's explorer and vanilla decks and first land variants on
    the same shuffles, as a picklable chunk task.

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
    lands : tuple of int
        Per plan, the land variants to play (``k = 1`` to ``lands``).
    keep : bool
        Return the basis values a later round pairs with (:data:`Kept`).
    copy_unseen : bool
        A card's vanilla deck copies the explorer deck's games that never dealt the card
        (:func:`watched_bits`), the same games, rather than play them again (False: every
        game is played, as the tests compare).
    scry : callable or None
        Twists and Turns' scry policy (None: the keep-or-mill policy).
    """

    plans: tuple[StandInPlan, ...]
    policy: Policy
    config: GameConfig
    basis: tuple[tuple[str, int], ...]
    rule: MulliganRule
    engine: str
    lands: tuple[int, ...]
    keep: bool = False
    copy_unseen: bool = True
    scry: Policy | None = None

    def __call__(self, trials: int, chunk_seed: np.random.SeedSequence
                 ) -> tuple[list[PlanSums], Kept | None]:
        """Play one chunk: the explorer deck once, then each card's other variants.

        Parameters
        ----------
        trials : int
        chunk_seed : numpy.random.SeedSequence

        Returns
        -------
        list of PlanSums
            One per plan.
        Kept or None
            With ``keep``: per plan, the explorer deck's and the last land variant's values
            of the basis metric at the basis turn, every game of the chunk.
        """
        play = _player(self, trials, chunk_seed)
        first = self.plans[0]
        bits = (watched_bits(self.plans, self.config, self.engine) if self.copy_unseen
                else [0] * len(self.plans))
        watch = _watch(self.plans, bits, trials)
        explorer = play(first.decks[0], self.config, first.card_ids[0], watch=watch)
        explorer_stats = _stats(explorer, self.config)  # the same for every plan
        binary = self.config.metric_names
        sums: list[PlanSums] = []
        kept: Kept = []
        for plan, (metric, turn), lands, bit in zip(self.plans, self.basis, self.lands, bits):
            # The games that never dealt the card are the explorer deck's: copied, not played.
            same = (SameGames(explorer, (watch.seen & bit) == 0) if watch is not None and bit
                    else None)
            vanilla = play(plan.decks[1], self.config, plan.card_ids[1], same_as=same)
            short = basis_config(self.config, metric, turn)
            played = [explorer, vanilla] + [play(deck, short, ids) for deck, ids in
                                            zip(plan.decks[2:2 + lands],
                                                plan.card_ids[2:2 + lands])]
            sums.append(PlanSums(
                ([explorer_stats, _stats(vanilla, self.config)],
                 _pairs([explorer, vanilla], self.config)),
                BasisGroup.of(range(len(played)), played, metric, turn, binary[metric])))
            kept.append((_compact(explorer[turn][metric]), _compact(played[-1][turn][metric]))
                        if self.keep and lands else None)
        return sums, (kept if self.keep else None)


@dataclasses.dataclass(frozen=True)
class LandRoundTask:
    """A later round: for each card still short of its crossing, the explorer deck, its last
    land variant and its next one to the basis turn, as a picklable chunk task.

    Attributes
    ----------
    plans : tuple of StandInPlan
        The cards still short of their crossing (one explorer deck order).
    rounds : tuple of tuple of int
        Per plan, the variants to play (:meth:`~.land_curves.LandCurve.next_round`).
    policy : callable
    config : GameConfig
        The run's games; each plan's are played to its basis turn with its basis metric.
    basis : tuple of (str, int)
        Per plan, the land-equivalent's metric and turn.
    rule : MulliganRule
    engine : {"kernel", "numpy"}
    kept : bool
        The explorer deck's and the last land variant's values were kept from the earlier
        rounds: play only each card's next land variant.
    scry : callable or None
        Twists and Turns' scry policy (None: the keep-or-mill policy).
    """

    plans: tuple[StandInPlan, ...]
    rounds: tuple[tuple[int, ...], ...]
    policy: Policy
    config: GameConfig
    basis: tuple[tuple[str, int], ...]
    rule: MulliganRule
    engine: str
    kept: bool = False
    scry: Policy | None = None

    def __call__(self, trials: int, chunk_seed: np.random.SeedSequence
                 ) -> list[BasisGroup] | list[np.ndarray]:
        """Play one chunk: the explorer deck once, to the latest basis turn, then each
        card's land variants.

        Returns
        -------
        list of BasisGroup, or of ndarray
            Per plan, the group of its round; with ``kept``, its next land variant's basis
            values (compact), which the caller pairs with the values it kept.
        """
        play = _player(self, trials, chunk_seed)
        if self.kept:
            return [_compact(play(plan.decks[indices[2]], basis_config(self.config, metric, turn),
                                  plan.card_ids[indices[2]])[turn][metric])
                    for plan, indices, (metric, turn) in zip(self.plans, self.rounds,
                                                             self.basis)]
        binary = self.config.metric_names
        metric = self.basis[0][0]  # one metric for every card of a run
        latest = max(turn for _, turn in self.basis)
        first = self.plans[0]
        explorer = play(first.decks[0], basis_config(self.config, metric, latest),
                        first.card_ids[0])
        groups = []
        for plan, indices, (metric, turn) in zip(self.plans, self.rounds, self.basis):
            short = basis_config(self.config, metric, turn)
            played = [explorer] + [play(plan.decks[i], short, plan.card_ids[i])
                                   for i in indices[1:]]
            groups.append(BasisGroup.of(indices, played, metric, turn, binary[metric]))
        return groups


#: A part of a run's games: ``(on_play, trials, seed)``, played from its own seed and merged.
Part = tuple[bool, int, np.random.SeedSequence]


def play_value_plans(plans: Sequence[StandInPlan], policy: Policy, setup: GameSetup,
                     basis: Sequence[tuple[str, int]], seed_seq: np.random.SeedSequence,
                     progress: Callable[[int, int], None] | None,
                     executor: Any, full_curve: bool = False,
                     parts: Sequence[Part] | None = None,
                     ceilings: Sequence[float | None] | None = None
                     ) -> list[tuple[CompareResult, LandCurve]]:
    """Every plan's variants played on the same shuffles (:class:`ValueTask`), then the
    land variants' later rounds (:class:`LandRoundTask`) until every card's reach the
    explorer deck or are all tried.

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
        ``progress(games done, games)`` after every chunk of the first round (the later
        rounds are short), the games counted over every part.
    executor : Executor
        Where the chunks run (:func:`~.executors.executing`).
    full_curve : bool
        Play every land variant in the first round (the whole curve, for a figure), not
        only as far as the crossing.
    parts : sequence of (bool, int, SeedSequence), optional
        The games as parts, each ``(on_play, trials, seed)`` played from its own seed, every
        round, and their sums merged (``lands``: half of the games on the play, half on the
        draw). Default: one part, ``setup``'s ``on_play`` and trials and ``seed_seq``.
    ceilings : sequence of float or None, optional
        Per plan, the most its basis metric's mean can be without the card whatever the
        lands (:attr:`~.land_curves.LandCurve.ceiling`; None, the default: not known). A
        card whose explorer deck is above it plays no later round.

    Returns
    -------
    list of (CompareResult, LandCurve)
        Per plan: the explorer deck against the vanilla deck (labels ``"explorer deck"``
        and ``"vanilla"``), and its land curve.
    """
    if setup.engine is None:
        raise RuntimeError("no engine chosen yet: with_engine chooses it")
    orders = {plan.card_ids[0].tobytes() for plan in plans}
    if len(orders) != 1:
        raise ValueError("the plans' explorer decks must be shuffled from one order")
    config, basis = setup.config, tuple(basis)
    parts = list(parts) if parts is not None else [(config.on_play, setup.trials, seed_seq)]
    trials = sum(games for _, games, _ in parts)
    ceilings = list(ceilings) if ceilings is not None else [None] * len(plans)
    curves = [LandCurve(metric, turn, list(plan.labels), ceiling=ceiling)
              for plan, (metric, turn), ceiling in zip(plans, basis, ceilings)]
    lands = tuple(curve.tried if full_curve else min(curve.tried, 1) for curve in curves)
    binary = config.metric_names
    totals = [PlanSums(_empty(config, 2),
                       BasisGroup.empty(range(2 + n), metric, binary[metric]))
              for n, (metric, _) in zip(lands, basis)]
    more = sum(curve.tried > n for curve, n in zip(curves, lands))  # may need a later round
    keep = bool(more) and 2 * more * trials <= KEPT_VALUES
    kept: list[list[Kept]] | None = [[] for _ in parts] if keep else None
    engine = setup.engine.engine
    done = 0
    for index, (on_play, games, seed) in enumerate(parts):

        def merge(part: tuple[list[PlanSums], Kept | None], index: int = index) -> None:
            for total, sums in zip(totals, part[0]):
                total.merge(sums)
            if kept is not None and part[1] is not None:
                kept[index].append(part[1])

        def step(count: int, _: int, before: int = done) -> None:
            if progress is not None:
                progress(before + count, trials)

        task = ValueTask(tuple(plans), policy, dataclasses.replace(config, on_play=on_play),
                         basis, setup.rule, engine, lands, kept is not None, scry=setup.scry)
        run_chunks(task, merge, games, seed, progress=step, scheduler=executor)
        done += games
    for curve, total in zip(curves, totals):
        curve.add(total.at_basis)
    while open_ := [i for i, curve in enumerate(curves) if not curve.crossed()]:
        _next_round(open_, plans, curves, basis, policy, setup, parts, executor, kept)
    common = {"command": "value", "trials": setup.trials, "seed": seed_seq.entropy,
              "mulligan": setup.rule.name, "policy": [policy_name(policy)],
              **setup.engine.meta()}
    return [(_compared(plan, plan.labels[:2], total.against_vanilla, config.turns, common),
             curve) for plan, total, curve in zip(plans, totals, curves)]


def _next_round(open_: list[int], plans: Sequence[StandInPlan], curves: list[LandCurve],
                basis: tuple[tuple[str, int], ...], policy: Policy, setup: GameSetup,
                parts: Sequence[Part], executor: Any, kept: list[list[Kept]] | None) -> None:
    """Play the next land variant of the cards ``open_`` (indices of ``plans``) on the same
    shuffles (:class:`LandRoundTask`), every part of the games, and count it in their
    curves: paired with the explorer deck's and the last land variant's values ``kept``
    part by part and chunk by chunk (which it updates), or with those games played again
    (``kept`` None)."""
    rounds = tuple(curves[i].next_round() for i in open_)
    binary = setup.config.metric_names
    groups = [BasisGroup.empty(indices, basis[i][0], binary[basis[i][0]])
              for i, indices in zip(open_, rounds)]
    assert setup.engine is not None
    for index, (on_play, games, seed) in enumerate(parts):
        chunk = iter(kept[index] if kept is not None else ())

        def merge(part: list[Any], chunk: Any = chunk) -> None:
            if kept is None:
                for total, group in zip(groups, part):
                    total.merge(group)
                return
            values = next(chunk)  # the chunks are merged in order
            for i, total, indices, new in zip(open_, groups, rounds, part):
                pair = values[i]
                assert pair is not None  # kept for every card with land variants
                explorer, last = pair
                metric = basis[i][0]
                total.merge(BasisGroup.of_values(indices, [explorer, last, new], metric,
                                                 binary[metric]))
                values[i] = (explorer, new)

        task = LandRoundTask(tuple(plans[i] for i in open_), rounds, policy,
                             dataclasses.replace(setup.config, on_play=on_play),
                             tuple(basis[i] for i in open_), setup.rule, setup.engine.engine,
                             kept is not None, setup.scry)
        run_chunks(task, merge, games, seed, scheduler=executor)
    for i, group in zip(open_, groups):
        curves[i].add(group)


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
