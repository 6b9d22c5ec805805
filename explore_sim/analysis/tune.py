"""Which keep-or-mill rule suits a deck best: a search of the policy space by racing.

The space (:func:`policy_space`): ``keep`` and ``mill``; Forge's rule over its grid
``need_lands`` 0-4 x ``max_mv_diff`` 0-4; threshold rules "mill when ``mana_value >= t``",
"``lands_in_hand <= t``", "``lands_in_play <= t``", "``mana_sources <= t``", "``turn <= t``",
"``turn >= t``", "``not castable_next_turn``"; and every conjunction (``and``) of two of
them on different names. Every rule is a ``--policy`` expression, parsed by the policy
whitelist.

The search is successive halving (racing): each round plays every surviving rule on the same
new games (common random numbers: the same shuffles for all), ranks the survivors by their mean
objective over all the games they have played, and keeps the better half (the higher means; the
lower for ``kill_turn@T``, where an earlier kill is better), until ``top`` rules remain. A rule
that scored exactly the same as a better one in every game so far (``lands_in_play <= 5`` and
``mill`` by turn 4) is counted as that one's twin and does not take a survivor's place, so the
finalists behave differently; each round gets an equal share of 80% of the budget, so later
rounds play more games per rule. The ranking is then re-evaluated on games of a fresh seed,
with ``forge`` and ``keep`` on the same shuffles: the figures reported are those fresh ones, so
the winner is not flattered by having been picked on lucky games (no winner's curse). Should
the fresh games find the winner worse than ``forge`` beyond noise (its 95% interval of the
difference below 0), ``forge`` is recommended instead, and the result says so.

The budget counts every game played, racing and re-evaluation.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Sequence
from os import PathLike
from typing import Any

import numpy as np
import pandas as pd

from ..cards.decklist import Deck, load_deck
from ..engine.policies import Policy, as_policies, as_policy, policy_name
from ..errors import OptionError, clip
from ..progress import shows_progress
from .executors import Executor, Job, executing
from .game_setup import (
    ASSUMPTIONS,
    chosen_engine,
    game_formats,
    game_setup,
    options_meta,
    with_engine,
)
from .games import play_games
from .objectives import Objective, PairedValues, parse_objective
from .report import deck_meta, engine_text, text_table, unique_labels, versions
from .results import Result
from .run_costs import Cost, check_cost
from .runner import MAX_TRIALS, child_seed, chunk_seeds, seed_sequence

__all__ = ["tune", "TuneResult", "policy_space", "TUNE_COLUMNS", "THRESHOLDS", "RACING_SHARE"]

#: Threshold rules: per observation name, the mill conditions tried.
THRESHOLDS: dict[str, tuple[str, ...]] = {
    "mana_value": tuple(f"mana_value >= {t}" for t in range(2, 8)),
    "lands_in_hand": tuple(f"lands_in_hand <= {t}" for t in range(0, 3)),
    "lands_in_play": tuple(f"lands_in_play <= {t}" for t in range(1, 6)),
    "mana_sources": tuple(f"mana_sources <= {t}" for t in range(1, 6)),
    "turn": (*(f"turn <= {t}" for t in range(2, 7)), *(f"turn >= {t}" for t in range(3, 8))),
    "castable_next_turn": ("not castable_next_turn",),
}
#: Share of the budget spent racing; the rest re-evaluates the best on a fresh seed.
RACING_SHARE = 0.8
#: The fewest racing games two rules must have scored the same in, every one of them, to be
#: counted as twins: over a few games many different rules score alike (every game on curve),
#: and one of them left out as another's twin would be lost from the race.
MIN_TWIN_GAMES = 1000
#: Columns of :meth:`TuneResult.summary`.
TUNE_COLUMNS = ("rank", "policy", "racing_mean", "racing_games", "same_games", "mean", "se",
                "ci_low",
                "ci_high", "vs_forge", "vs_forge_se", "vs_forge_ci_low", "vs_forge_ci_high",
                "vs_keep", "vs_keep_se", "vs_keep_ci_low", "vs_keep_ci_high")
#: The most rules one task plays (one after the other, on one chunk of games); fewer when
#: there are few rules, so that every worker gets a task.
_GROUP = 8


def policy_space() -> list[str]:
    """Every rule :func:`tune` searches, as ``--policy`` text.

    Returns
    -------
    list of str
        ``keep``, ``mill``, the 25 Forge rules (``forge`` for the default
        ``need_lands=2, max_mv_diff=2``), the threshold rules of :data:`THRESHOLDS`, then the
        conjunctions of two thresholds on different names.
    """
    rules = ["keep", "mill"]
    for need, diff in itertools.product(range(5), range(5)):
        rules.append("forge" if (need, diff) == (2, 2) else
                     f"forge:need_lands={need},max_mv_diff={diff}")
    singles = [rule for group in THRESHOLDS.values() for rule in group]
    rules += singles
    for first, second in itertools.combinations(THRESHOLDS, 2):
        rules += [f"{a} and {b}" for a in THRESHOLDS[first] for b in THRESHOLDS[second]]
    return rules


def _schedule(candidates: int, top: int) -> list[int]:
    """Survivors at the start of each racing round (halving down to ``top``); one round at
    least, which ranks the finalists when there are no more than ``top`` rules."""
    survivors = [candidates]
    while survivors[-1] > top:
        survivors.append(max(top, math.ceil(survivors[-1] / 2)))
    return survivors[:-1] or survivors


@dataclasses.dataclass
class _Race:
    """Cumulative sums of each candidate's objective over the games it has played, and of
    the squared differences between every two candidates (0: the same value in every game)."""

    total: np.ndarray
    squares: np.ndarray
    games: np.ndarray
    apart: np.ndarray
    sign: float = 1.0  # -1: a lower objective is better (kill_turn@T)

    @classmethod
    def start(cls, candidates: int, lower_is_better: bool = False) -> _Race:
        return cls(np.zeros(candidates), np.zeros(candidates), np.zeros(candidates, int),
                   np.zeros((candidates, candidates)), -1.0 if lower_is_better else 1.0)

    def add(self, alive: list[int], sums: PairedValues) -> None:
        diagonal = np.diag(sums.products)
        self.total[alive] += sums.total
        self.squares[alive] += diagonal
        self.games[alive] += sums.n
        self.apart[np.ix_(alive, alive)] += (diagonal[:, None] + diagonal[None, :]
                                             - 2 * sums.products)

    def mean(self, index: int) -> float:
        return float(self.total[index] / self.games[index]) if self.games[index] else math.nan

    def same_games(self, i: int, j: int) -> bool:
        """Candidates ``i`` and ``j`` scored the same (up to rounding) in every game so far,
        and so far is at least :data:`MIN_TWIN_GAMES` games."""
        if min(self.games[i], self.games[j]) < MIN_TWIN_GAMES:
            return False
        return bool(self.apart[i, j] <= 1e-9 * max(1.0, self.squares[i], self.squares[j]))

    def cut(self, alive: list[int], keep: int, twins: dict[int, int]) -> list[int]:
        """The ``keep`` best of ``alive``, counting a candidate that scored the same as a
        better one in every game as that one's twin (``twins[best] += 1``), not a survivor."""
        kept: list[int] = []
        for index in sorted(alive, key=lambda i: (-self.sign * self.mean(i), i)):
            twin = next((k for k in kept if self.same_games(k, index)), None)
            if twin is not None:
                twins[twin] = twins.get(twin, 0) + 1 + twins.pop(index, 0)
            elif len(kept) < keep:
                kept.append(index)
        return kept


@dataclasses.dataclass(frozen=True)
class _GroupTask:
    """A group of rules on one chunk's games: each rule's objective values, one per game (a
    picklable chunk task for :mod:`.executors`)."""

    deck: Deck
    config: Any
    rule: Any
    objective: Objective
    policies: tuple[Policy, ...]
    engine: str = "auto"

    def __call__(self, trials: int, chunk_seed: np.random.SeedSequence) -> list[np.ndarray]:
        chosen = self.engine in ("kernel", "numpy")  # the run's choice, made once
        return [self.objective.values(play_games(self.deck, self.config, policy, self.rule,
                                                 trials, chunk_seed, engine=self.engine,
                                                 chosen=chosen))
                for policy in self.policies]


def _play(deck: Deck, config: Any, rule: Any, objective: Objective, policies: list[Policy],
          games: int, seed: np.random.SeedSequence, executor: Executor,
          progress: Callable[[int], None], engine: str) -> PairedValues:
    """Every policy on the same ``games`` games (chunks of the seed, as every command cuts
    them): sums of their objective values. The work is split by chunk and by groups of
    policies, so that small rounds of many rules use every worker too; each task's values
    depend only on its chunk and policies, and the sums are taken in chunk order, so they do
    not depend on where the tasks run."""
    chunks = list(chunk_seeds(games, seed))
    # Groups small enough that every worker gets one when there are few rules (the fresh
    # evaluation of the finalists), at most _GROUP rules each otherwise.
    per_task = max(1, min(_GROUP, math.ceil(len(policies) / max(1, executor.capacity))))
    tasks = [_GroupTask(deck, config, rule, objective, tuple(policies[start:start + per_task]),
                        engine)
             for start in range(0, len(policies), per_task)]
    jobs = (Job(group, size, child) for size, child in chunks for group in range(len(tasks)))
    results = executor.map(tasks, jobs)
    sums = PairedValues(len(policies))
    for size, _ in chunks:
        part = PairedValues(len(policies))
        part.add([values for _ in tasks for values in next(results)])
        sums.merge(part)
        progress(size * len(policies))
    return sums


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class TuneResult(Result):
    """The outcome of :func:`tune`.

    Attributes
    ----------
    meta : dict
        What was run (JSON-safe): ``command`` (``"tune"``), ``deck``, ``objective``,
        ``candidates`` (how many rules), ``budget``, ``rounds`` (per racing round: survivors,
        games each, leader), ``final_games`` (games per rule on the fresh seed),
        ``recommended`` (the policy to use) and ``note``, the game options, ``seed``,
        ``assumptions`` and ``versions``.
    rows : DataFrame
        :data:`TUNE_COLUMNS`, one row per finalist in racing order (rank 1: the winner).
    """

    meta: dict[str, Any]
    rows: pd.DataFrame

    @property
    def winner(self) -> str:
        """The recommended ``--policy`` text (the racing's winner, or ``forge`` if the fresh
        games found the winner worse than ``forge`` beyond noise)."""
        return self.meta["recommended"]

    def summary(self) -> pd.DataFrame:  # type: ignore[override]  # no level: fixed as it ran
        """The finalists with their fresh-seed figures.

        Returns
        -------
        DataFrame
            :data:`TUNE_COLUMNS`: ``rank`` (racing order), ``policy`` (``--policy`` text),
            ``racing_mean`` and ``racing_games`` (the racing's view, biased upward for the
            winner), then on the fresh seed: the mean objective with its standard error and
            interval, and the paired differences to ``forge`` and to ``keep``. ``forge`` and
            ``keep`` themselves follow with ``rank`` 0 when they are not finalists.
            ``attrs["explore_sim"]`` holds :attr:`meta`.
        """
        return self._with_meta(self.rows.copy())

    def render(self, fmt: str = "table") -> str:
        """The result as text, as the command line prints it.

        Parameters
        ----------
        fmt : {"table", "csv", "json"}

        Returns
        -------
        str
        """
        return super().render(fmt)

    def _table(self, rows: pd.DataFrame) -> str:
        meta = self.meta
        lower = " (lower is better)" if parse_objective(meta["objective"]).lower_is_better \
            else ""
        lines = [f"tune: {meta['objective']}{lower} over {meta['candidates']} keep-or-mill "
                 "rules, racing on the same shuffles",
                 f"  deck: {meta['deck'][0]['name']}",
                 f"  budget: {meta['budget']} games ({meta['racing_games']} racing in "
                 f"{len(meta['rounds'])} rounds, {meta['final_games'] * meta['final_rules']} "
                 f"on a fresh seed: {meta['final_games']} per rule)",
                 f"  seed: {meta['seed']}  engine: {engine_text(meta)}", ""]
        shown = pd.DataFrame({
            "rank": [str(r) if r else "-" for r in rows["rank"]],
            "policy": rows["policy"],
            "racing": [f"{m:.4f}" if np.isfinite(m) else "-" for m in rows["racing_mean"]],
            "twins": [str(n) if r else "-" for n, r in zip(rows["same_games"], rows["rank"])],
            "fresh mean": [f"{m:.4f} ({s:.4f})" for m, s in zip(rows["mean"], rows["se"])],
            "- forge": [f"{m:+.4f} ({s:.4f})"
                        for m, s in zip(rows["vs_forge"], rows["vs_forge_se"])],
            "- keep": [f"{m:+.4f} ({s:.4f})" for m, s in zip(rows["vs_keep"], rows["vs_keep_se"])],
        })
        lines += [line.rstrip() for line in text_table(shown).splitlines()]
        lines.append("")
        lines.append(f"recommended: --policy \"{meta['recommended']}\"")
        lines.append(f"  {meta['note']}")
        lines.append("")
        lines.append("  cells: mean (standard error) on the fresh seed; differences are paired "
                     "(every rule plays the same shuffles); racing: the mean that ranked it; "
                     "twins: rules that scored the same in every racing game, left out")
        return "\n".join(lines) + "\n"

    def _facts(self) -> dict[str, Any]:
        return {"deck": self.meta["deck"][0]["name"], "objective": self.meta["objective"],
                "candidates": self.meta["candidates"], "budget": self.meta["budget"],
                "recommended": self.meta["recommended"], "seed": self.meta["seed"]}

    def _html(self) -> tuple[list[str], pd.DataFrame, bool]:
        table = self.rows[["rank", "policy", "mean", "se", "vs_forge", "vs_forge_se",
                           "vs_keep", "vs_keep_se"]].round(4)
        return [self._facts_line(), self.meta["note"]], table, False


@shows_progress("tune")
def tune(
    deck: Deck | str | PathLike[str],
    objective: str | Objective = "on_curve@4",
    *,
    budget: int = 400_000,
    candidates: Sequence[str | Policy] | None = None,
    top: int = 5,
    on_play: bool = True,
    mulligan: str | None = "london",
    seed: Any = None,
    game: str = "auto",
    engine: str = "auto",
    progress: Callable[[int, int], None] | bool | None = None,
    workers: int = 1,
    scheduler: Any = None,
) -> TuneResult:
    """Search keep-or-mill rules for the one that maximises an objective (minimises kill_turn@T).

    Parameters
    ----------
    deck : Deck, path or decklist text
    objective : str or Objective
        One objective (:mod:`explore_sim.analysis.objectives`), such as ``"mana_spent@6"``
        or ``"on_curve@4 + 0.1*counters@6"``; it is maximised.
    budget : int
        Games to play in all (racing and the fresh re-evaluation), default 400,000.
    candidates : sequence of str or callable, optional
        The rules to search (default :func:`policy_space`).
    top : int
        Finalists re-evaluated and reported (default 5).
    on_play, mulligan, game, engine
        As for :func:`explore_sim.simulate`; every rule plays on the same engine.
    seed : int, SeedSequence, Generator or None
        The racing uses one stream of it, the re-evaluation another: the same seed gives
        the same result.
    progress : callable, False or None
        ``progress(games done, budget)``; a ``StopRun`` it raises propagates (no answer).
        None (the default) shows a progress display from a second on, in a terminal or
        a notebook (:func:`~explore_sim.progress.shows_progress`); False, none.
    workers : int
        Processes (0: every core); the numbers do not depend on it.
    scheduler : str, distributed.Client or Executor, optional
        A Dask scheduler (``tcp://HOST:PORT``) to play the games on instead of local
        processes; the numbers do not depend on it.

    Returns
    -------
    TuneResult

    Raises
    ------
    OptionError
        Several objectives, a bad option, a budget too small for the candidates, or a run
        over the cost caps of :mod:`.run_costs`.
    PolicyError
        A candidate that is not a policy.
    """
    deck = deck if isinstance(deck, Deck) else load_deck(deck)
    target = _check_tune(objective, budget, top)
    setup = game_setup([deck], 2, {"turns": target.last_turn, "on_play": on_play,
                                   "mulligan": mulligan, "game": game, "engine": engine})
    config, rule = setup.config, setup.rule
    policies = as_policies(list(policy_space() if candidates is None else candidates))
    schedule, per_round = _race_plan(budget, len(policies), top, target)
    setup = with_engine(setup, [(deck, policy) for policy in policies])
    engine = chosen_engine(setup)
    labels = unique_labels([policy_name(policy) for policy in policies])
    seed_seq = seed_sequence(seed)
    done = [0]

    def step(games: int) -> None:
        done[0] += games
        if callable(progress):
            progress(min(done[0], budget), budget)

    with executing(workers, scheduler) as executor:  # one executor (Dask: one connection)
        race, twins, rounds, finalists = _racing(
            deck, config, rule, target, policies, labels, schedule, per_round, top,
            child_seed(seed_seq, 0), executor, step, engine)
        final = [policies[i] for i in finalists]
        final_labels = [labels[i] for i in finalists]
        for name in ("forge", "keep"):
            if name not in final_labels:
                final.append(as_policy(name))
                final_labels.append(name)
        final_games = (budget - done[0]) // len(final)
        if final_games < 2:
            raise OptionError(f"budget: {budget} games leave too few for the fresh evaluation; "
                              f"give at least {done[0] + 2 * len(final)}")
        fresh = _play(deck, config, rule, target, final, final_games, child_seed(seed_seq, 1),
                      executor, step, engine)
    frame = _final_rows(race, twins, finalists, final_labels, fresh)
    recommended, note = _recommend(frame, target.lower_is_better)
    if len(finalists) < min(top, len(policies)):
        note += (f"; {len(finalists)} finalist{'s' if len(finalists) > 1 else ''}, not {top}: "
                 "every other survivor scored as one of them in every racing game (its twin)")
    meta = _tune_meta(deck, target, policies, budget, rounds, final_games, final_labels,
                      recommended, note, setup, seed_seq)
    return TuneResult(meta=meta, rows=frame)


def _tune_meta(deck: Deck, target: Objective, policies: list[Policy], budget: int,
               rounds: list[dict[str, Any]], final_games: int, final_labels: list[str],
               recommended: str, note: str, setup: Any, seed_seq: Any) -> dict[str, Any]:
    """The metadata of a tune (JSON-safe)."""
    meta = {
        "command": "tune",
        "deck": [deck_meta(deck)],
        "objective": target.text,
        "candidates": len(policies),
        "budget": int(budget),
        "racing_games": int(sum(r["games_each"] * r["survivors"] for r in rounds)),
        "rounds": rounds,
        "final_games": int(final_games),
        "final_rules": len(final_labels),
        "recommended": recommended,
        "note": note,
        "policy": final_labels,
        "formats": game_formats([deck], setup.config, setup.rule),
        **options_meta(setup),
        "seed": seed_seq.entropy,
        "interval": "95%: mean +/- 1.96 se (paired for differences)",
        "assumptions": [*ASSUMPTIONS,
                        "racing: successive halving on common random numbers; the finalists "
                        "are re-evaluated on a fresh seed and those figures are reported"],
        "versions": versions(),
    }
    return meta


def _race_plan(budget: int, rules: int, top: int, target: Objective) -> tuple[list[int], int]:
    """The racing rounds' survivors and games a round, for ``rules`` rules; refused over the
    cost caps (the rules play the same games one after another, a value a game each kept,
    and every two keep the sum of their objectives' products) or with too few games."""
    check_cost(Cost(max(1, budget // max(1, rules)), rules, 1, target.last_turn, pair_sums=2,
                    paired=rules))
    schedule = _schedule(rules, top)
    per_round = int(budget * RACING_SHARE) // len(schedule)
    for survivors in schedule:
        if per_round // survivors < 2:
            need = 2 * survivors * len(schedule) / RACING_SHARE
            raise OptionError(f"budget: {budget} games are too few to race {rules} "
                              f"rules; give at least {math.ceil(need)}")
    return schedule, per_round


def _check_tune(objective: str | Objective, budget: int, top: int) -> Objective:
    """The one objective of a tune, its budget and finalists checked."""
    if isinstance(objective, str) and "," in objective:
        raise OptionError("tune optimises one objective; combine metrics with weights, "
                          "for example 'on_curve@4 + 0.1*counters@6'")
    target = parse_objective(objective)
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or \
            not 1 <= budget <= MAX_TRIALS:
        raise OptionError(f"budget must be a whole number of games from 1 to {MAX_TRIALS:.0e}, "
                          f"got {clip(repr(budget))}")
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or not 1 <= top <= 50:
        raise OptionError(f"top must be a whole number from 1 to 50, got {clip(repr(top))}")
    return target


def _racing(deck: Deck, config: Any, rule: Any, target: Objective, policies: list[Policy],
            labels: list[str], schedule: list[int], per_round: int, top: int,
            racing_seed: Any, executor: Any, step: Callable[[int], None], engine: str,
            ) -> tuple[_Race, dict[int, int], list[dict[str, Any]], list[int]]:
    """Successive halving on common random numbers: the race, the twins left out, each
    round's facts, and the finalists (indices into ``policies``, best first)."""
    race = _Race.start(len(policies), target.lower_is_better)
    twins: dict[int, int] = {}
    alive = list(range(len(policies)))
    rounds = []
    for number, _ in enumerate(schedule):
        games = per_round // len(alive)  # twins left out leave more games to the rest
        sums = _play(deck, config, rule, target, [policies[i] for i in alive], games,
                     child_seed(racing_seed, number), executor, step, engine)
        race.add(alive, sums)
        keep = schedule[number + 1] if number + 1 < len(schedule) else top
        ranked = race.cut(alive, keep, twins)
        rounds.append({"round": number + 1, "survivors": len(alive), "games_each": games,
                       "leader": labels[ranked[0]], "leader_mean": race.mean(ranked[0])})
        alive = ranked
    return race, twins, rounds, alive[:top]


def _final_rows(race: _Race, twins: dict[int, int], finalists: list[int],
                final_labels: list[str], fresh: Any) -> pd.DataFrame:
    """:data:`TUNE_COLUMNS`: each finalist's racing and fresh figures (then ``forge`` and
    ``keep`` when they are not finalists)."""
    forge_at, keep_at = final_labels.index("forge"), final_labels.index("keep")
    rows = []
    for j, label in enumerate(final_labels):
        finalist = j < len(finalists)
        mean = fresh.mean(j)
        vs_forge, vs_keep = fresh.difference(j, forge_at), fresh.difference(j, keep_at)
        rows.append({
            "rank": j + 1 if finalist else 0, "policy": label,
            "racing_mean": race.mean(finalists[j]) if finalist else math.nan,
            "racing_games": int(race.games[finalists[j]]) if finalist else 0,
            "same_games": twins.get(finalists[j], 0) if finalist else 0,
            **{key: mean[key] for key in ("mean", "se", "ci_low", "ci_high")},
            **{f"vs_forge{suffix}": vs_forge[key] for suffix, key in
               (("", "mean"), ("_se", "se"), ("_ci_low", "ci_low"), ("_ci_high", "ci_high"))},
            **{f"vs_keep{suffix}": vs_keep[key] for suffix, key in
               (("", "mean"), ("_se", "se"), ("_ci_low", "ci_low"), ("_ci_high", "ci_high"))},
        })
    return pd.DataFrame(rows, columns=list(TUNE_COLUMNS))


def _recommend(rows: pd.DataFrame, lower_is_better: bool = False) -> tuple[str, str]:
    """The policy to use: the racing's winner, unless the fresh games find it worse than
    ``forge`` beyond noise (the 95% interval of winner - forge below 0, or above 0 for an
    objective where lower is better)."""
    winner = rows[rows["rank"] == 1].iloc[0]
    figures = (f"on the fresh seed {winner['mean']:.4f} (se {winner['se']:.4f}), "
               f"{winner['vs_forge']:+.4f} (se {winner['vs_forge_se']:.4f}) against forge")
    worse = winner["vs_forge_ci_low"] > 0 if lower_is_better else winner["vs_forge_ci_high"] < 0
    if worse:
        return "forge", (f"the racing's winner {winner['policy']!r} is worse than forge beyond "
                         f"noise ({figures}): keep forge")
    return str(winner["policy"]), f"the racing's winner, {figures}"
