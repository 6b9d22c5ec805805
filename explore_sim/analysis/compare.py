"""Paired comparisons: :func:`compare` plays every deck x policy variant on the same
shuffles, and :class:`CompareResult` differences them game by game."""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from os import PathLike
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from ..cards.decklist import Deck, load_deck
from ..engine.mulligan import MulliganRule
from ..engine.policies import Policy, as_policies, policy_name
from ..errors import OptionError, close_matches
from ..progress import callback, shows_progress
from .game_setup import chosen_engine, game_setup, run_meta, with_engine, with_game_options
from .games import TurnPairs, TurnStats, play_paired
from .kill_turn import kill_turn
from .metric_checks import DEFAULT_COMPARE_METRICS, castable_metrics, check_metrics
from .report import (
    cell_table,
    engine_text,
    meta_text,
    ordered_categorical,
    render,
    unique_labels,
    with_meta,
)
from .results import Result
from .run_costs import Cost, check_cost
from .runner import seed_sequence, stopped_meta
from .stats import SUMMARY_COLUMNS

__all__ = ["compare", "CompareResult"]


def _first(items: list[str], first: str) -> list[str]:
    return [first, *(x for x in items if x != first)]


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class CompareResult(Result):
    """The outcome of :func:`compare`: every deck x policy variant, and paired differences.

    Attributes
    ----------
    meta : dict
        What was run (JSON-safe): ``deck`` (a list of deck records), ``policy`` (a list of
        names), ``variants`` (their labels), the game options, ``trials``, ``seed``, ...
    decks : list of str
        Deck labels, in the order given (numbered if two decks share a name).
    policies : list of str
        Policy labels, in the order given (numbered if two share a name).
    labels : list of str
        Variant labels, deck-major: the policy when one deck is compared, the deck when one
        policy is, else ``"deck / policy"``. The first variant is the default baseline.
    """

    meta: dict[str, Any]
    decks: list[str]
    policies: list[str]
    labels: list[str]
    variants: list[TurnStats]
    pairs: TurnPairs

    def _index(self, deck: int, policy: int) -> int:
        return deck * len(self.policies) + policy

    def summary(self, level: float = 0.95) -> pd.DataFrame:
        """Tidy statistics of every variant by turn.

        Parameters
        ----------
        level : float
            Confidence level of the intervals.

        Returns
        -------
        DataFrame
            ``variant, deck, policy, turn, metric, mean, se, ci_low, ci_high``; ``variant``,
            ``deck`` and ``policy`` are ordered categoricals in the order given (the baseline
            first), and ``attrs["explore_sim"]`` holds :attr:`meta`.
        """
        frames = []
        for label, stats in zip(self.labels, self.variants):
            frame = stats.summary(level)
            frame.insert(0, "variant", label)
            frames.append(frame)
        frame = pd.concat(frames, ignore_index=True)
        self._insert_variables(frame, self.decks, self.policies)
        return self._with_meta(frame)

    def _insert_variables(self, frame: pd.DataFrame, decks: list[str], policies: list[str]) -> None:
        """Make ``variant`` and new ``deck`` and ``policy`` columns ordered categoricals, in
        the order of ``decks`` and ``policies``."""
        variables = {self.labels[self._index(d, p)]: (deck, policy)
                     for d, deck in enumerate(self.decks)
                     for p, policy in enumerate(self.policies)}
        order = [self.labels[self._index(self.decks.index(deck), self.policies.index(policy))]
                 for deck in decks for policy in policies]
        variant = frame["variant"].tolist()
        frame["variant"] = ordered_categorical(variant, order)
        deck_column = ordered_categorical([variables[v][0] for v in variant], decks)
        policy_column = ordered_categorical([variables[v][1] for v in variant], policies)
        frame.insert(1, "deck", deck_column)  # type: ignore[arg-type]  # stubs omit Categorical
        frame.insert(2, "policy", policy_column)  # type: ignore[arg-type]  # stubs omit Categorical

    def paired_differences(
        self,
        level: float = 0.95,
        baseline: str | int | tuple[str | int, str] | None = None,
        by: str | None = None,
    ) -> pd.DataFrame:
        """Variant minus baseline, game by game on the same shuffles.

        Parameters
        ----------
        level : float
            Confidence level of the intervals.
        baseline : str, int or (deck, policy), optional
            What to difference against. A deck (its label or its index in the order given):
            each variant minus the same policy with that deck. A policy (its label): each
            variant minus the same deck with that policy. A ``(deck, policy)`` pair or a
            variant label: every variant minus that one. Default: the first deck with the
            first policy, or what ``by`` implies.
        by : {"deck", "policy"}, optional
            ``"deck"``: differences between policies within each deck, against each deck's
            first policy (or the policy ``baseline`` names). ``"policy"``: differences between
            decks within each policy, against the first deck (or the deck ``baseline`` names).

        Returns
        -------
        DataFrame
            ``variant, deck, policy, baseline, turn, metric, mean, se, ci_low, ci_high,
            se_unpaired``, one row per variant other than its baseline, turn and metric.
            ``se`` is the paired standard error (from per-game differences);
            ``se_unpaired`` is what two independent runs of the same size would give,
            sqrt(se_a^2 + se_b^2). ``variant``, ``deck``, ``policy`` and ``baseline`` are
            ordered categoricals with the baseline first; ``attrs["explore_sim"]`` holds
            :attr:`meta` and ``attrs["explore_sim"]["baseline"]`` the baselines used.

        Raises
        ------
        OptionError
            For an unknown baseline (with suggestions) or one that contradicts ``by``.
        """
        deck0, policy0 = self._baseline(baseline, by)
        decks = self.decks if deck0 is None else _first(self.decks, self.decks[deck0])
        policies = self.policies if policy0 is None else _first(self.policies,
                                                                self.policies[policy0])
        frames = []
        for deck in decks:
            for policy in policies:
                d, p = self.decks.index(deck), self.policies.index(policy)
                base = self._index(d if deck0 is None else deck0, p if policy0 is None else policy0)
                index = self._index(d, p)
                if index != base:
                    frames.append(self._difference(index, base, level))
        if not frames:
            raise OptionError(f"baseline {baseline!r} (by={by!r}) leaves no variant to "
                              f"difference: decks {self.decks}, policies {self.policies}")
        frame = pd.concat(frames, ignore_index=True)
        baselines = list(dict.fromkeys(frame["baseline"]))
        frame["baseline"] = ordered_categorical(frame["baseline"].tolist(), baselines)
        self._insert_variables(frame, decks, policies)
        return with_meta(frame, {**self.meta, "baseline": [str(b) for b in baselines]})

    def kill_turn_differences(self, level: float = 0.95) -> pd.DataFrame:
        """The mean of min(kill turn, turns + 1) of every variant, and each variant minus the
        first, game by game on the same shuffles.

        The mean is :meth:`SimulationResult.kill_turn()
        <explore_sim.analysis.simulate.SimulationResult.kill_turn>`'s: a game still alive
        after the last turn counts as killed on the turn after it (censored). Lower is
        sooner: a negative difference kills earlier than the first variant.

        Parameters
        ----------
        level : float
            Confidence level of the intervals (normal).

        Returns
        -------
        DataFrame
            ``variant, baseline, mean, se, ci_low, ci_high, se_unpaired``: first one row per
            variant (its mean, ``baseline`` empty, ``se_unpaired`` its se), then one row per
            variant other than the first (``mean`` the paired difference, ``se`` its paired
            standard error, ``se_unpaired`` sqrt(se_a^2 + se_b^2) of two independent runs).
            ``attrs["explore_sim"]`` holds :attr:`meta`.

        Raises
        ------
        OptionError
            ``opponent_dead`` was not recorded in every game.
        """
        kill = self.pairs.kill
        if kill is None:
            raise OptionError("the kill turn needs the metric opponent_dead, not recorded here")
        clocks = [kill_turn(stats, level) for stats in self.variants]
        rows = [{"variant": label, "baseline": "", "mean": clock.mean, "se": clock.mean_se,
                 **_interval(clock.mean, clock.mean_se, level), "se_unpaired": clock.mean_se}
                for label, clock in zip(self.labels, clocks)]
        for index, label in enumerate(self.labels[1:], start=1):
            found = kill.difference(index, 0, level)
            rows.append({"variant": label, "baseline": self.labels[0], **found,
                         "se_unpaired": math.hypot(clocks[index].mean_se, clocks[0].mean_se)})
        columns = ["variant", "baseline", "mean", "se", "ci_low", "ci_high", "se_unpaired"]
        return self._with_meta(pd.DataFrame(rows, columns=columns))

    def _kill_text(self) -> list[str]:
        """The kill-turn lines of the table (``--kill-turn``)."""
        rows = self.kill_turn_differences()
        turns = self.meta["turns"]
        means, diffs = rows[rows["baseline"] == ""], rows[rows["baseline"] != ""]
        width = max(len(label) for label in self.labels)
        lines = ["", f"mean kill turn, min(kill turn, {turns + 1}): mean (se)"]
        lines += [f"  {row.variant:<{width}}  {row.mean:.3f} ({row.se:.3f})"
                  for row in means.itertuples()]
        lines.append(f"paired differences to {self.labels[0]!r}: mean (paired se) "
                     "[unpaired se]")
        row: Any  # a row of numbers and labels (pandas' stubs name neither)
        for row in diffs.itertuples():
            way = "lowers" if row.mean < 0 else "raises"
            lines.append(f"  {row.variant:<{width}}  {row.mean:+.3f} ({row.se:.3f}) "
                         f"[{row.se_unpaired:.3f}]: {way} the mean kill turn by "
                         f"{abs(row.mean):.3f} turns")
        lines.append(f"  kill turn: a game alive after turn {turns} counts as killed on turn "
                     f"{turns + 1} (censored); lower is sooner")
        return lines

    def _difference(self, index: int, base: int, level: float) -> pd.DataFrame:
        frame = self.pairs.difference(self.variants[base], self.variants[index], base, index,
                                      level)
        base_se = self.variants[base].summary(level).set_index(["turn", "metric"])["se"]
        other_se = self.variants[index].summary(level).set_index(["turn", "metric"])["se"]
        keys = pd.MultiIndex.from_arrays([frame["turn"], frame["metric"]])
        frame["se_unpaired"] = [math.hypot(a, b) for a, b in
                                zip(other_se.reindex(keys).to_numpy(),
                                    base_se.reindex(keys).to_numpy())]
        frame.insert(0, "baseline", self.labels[base])
        frame.insert(0, "variant", self.labels[index])
        return frame

    def _baseline(self, baseline: Any, by: str | None) -> tuple[int | None, int | None]:
        """``(deck index or None, policy index or None)``: None varies with the variant."""
        if by not in (None, "deck", "policy"):
            raise OptionError(f"by must be 'deck', 'policy' or None, got {by!r}")
        if baseline is None:
            return {None: (0, 0), "deck": (None, 0), "policy": (0, None)}[by]
        chosen: tuple[int | None, int | None]
        if isinstance(baseline, tuple):
            if len(baseline) != 2:
                raise OptionError(f"baseline pair must be (deck, policy), got {baseline!r}")
            chosen = (self._deck_index(baseline[0]), self._policy_index(baseline[1]))
        elif isinstance(baseline, (int, np.integer)) and not isinstance(baseline, bool):
            chosen = (self._deck_index(baseline), None)
        elif isinstance(baseline, str):
            chosen = self._named_baseline(baseline)
        else:
            raise OptionError(f"baseline must be a deck, a policy or a (deck, policy) pair, "
                              f"got {baseline!r}")
        if by == "deck" and chosen[0] is not None:
            raise OptionError(f"by='deck' differences policies within each deck; baseline "
                              f"{baseline!r} must be a policy")
        if by == "policy" and chosen[1] is not None:
            raise OptionError(f"by='policy' differences decks within each policy; baseline "
                              f"{baseline!r} must be a deck")
        return chosen

    def _named_baseline(self, name: str) -> tuple[int | None, int | None]:
        in_decks, in_policies = name in self.decks, name in self.policies
        if in_decks and in_policies:
            raise OptionError(f"baseline {name!r} names a deck and a policy; "
                              "pass a (deck, policy) pair")
        if in_decks:
            return self.decks.index(name), None
        if in_policies:
            return None, self.policies.index(name)
        if name in self.labels:
            index = self.labels.index(name)
            return divmod(index, len(self.policies))
        close = close_matches(name, [*self.decks, *self.policies, *self.labels])
        hint = f" (did you mean {close}?)" if close else ""
        raise OptionError(f"baseline {name!r} is not a deck, policy or variant of this "
                          f"comparison{hint}; decks: {', '.join(map(repr, self.decks))}; "
                          f"policies: {', '.join(map(repr, self.policies))}")

    def _deck_index(self, deck: str | int | np.integer) -> int:
        if isinstance(deck, (int, np.integer)) and not isinstance(deck, bool):
            if not 0 <= deck < len(self.decks):
                raise OptionError(f"baseline deck index must be 0 to {len(self.decks) - 1}, "
                                  f"got {deck}")
            return int(deck)
        if deck not in self.decks:
            close = close_matches(str(deck), self.decks)
            hint = f" (did you mean {close}?)" if close else ""
            raise OptionError(f"baseline deck {deck!r} is not compared{hint}; "
                              f"decks: {', '.join(map(repr, self.decks))}")
        return self.decks.index(deck)

    def _policy_index(self, policy: str) -> int:
        if policy not in self.policies:
            close = close_matches(str(policy), self.policies)
            hint = f" (did you mean {close}?)" if close else ""
            raise OptionError(f"baseline policy {policy!r} is not compared{hint}; "
                              f"policies: {', '.join(map(repr, self.policies))}")
        return self.policies.index(policy)

    def render(self, fmt: str = "table", metrics: Iterable[str] | None = None,
               turn: int | None = None, kill_turn: bool = False) -> str:
        """The comparison as text, as the command line prints it.

        Parameters
        ----------
        fmt : {"table", "csv", "json"}
            ``table``: ``mean (se)`` of each variant at the last turn, then the paired
            differences to the first variant. ``csv``: the variants' rows then the
            differences' rows in one tidy table. ``json``: ``{"meta", "rows",
            "differences"}``.
        metrics : iterable of str, optional
            Metrics to show (default: a selection).
        turn : int, optional
            Keep only this turn's rows.
        kill_turn : bool
            Also the mean kill turn of every variant and its paired differences
            (:meth:`kill_turn_differences`): lines after the table's, rows with ``metric``
            ``kill_turn`` at the last turn in the CSV, ``"kill_turn"`` in the JSON.

        Returns
        -------
        str
        """
        chosen = check_metrics(metrics, (*DEFAULT_COMPARE_METRICS, *castable_metrics(self.meta)),
                               extra=castable_metrics(self.meta))
        variants = self.summary()
        diffs = self.paired_differences()
        variants = variants[variants["metric"].isin(chosen)]
        diffs = diffs[diffs["metric"].isin(chosen)]
        if turn is not None:
            variants = variants[variants["turn"] == turn]
            diffs = diffs[diffs["turn"] == turn]
        if fmt == "json":
            import json

            payload = json.loads(render("json", self.meta, variants.reset_index(drop=True), ""))
            payload["differences"] = json.loads(
                render("json", {}, diffs.reset_index(drop=True), ""))["rows"]
            if kill_turn:
                payload["kill_turn"] = json.loads(
                    render("json", {}, self.kill_turn_differences(), ""))["rows"]
            return json.dumps(payload, indent=2) + "\n"
        if fmt == "csv":
            both = pd.concat([variants.assign(baseline=""), diffs], ignore_index=True)
            if kill_turn:
                both = pd.concat([both, self.kill_turn_differences().assign(
                    metric="kill_turn", turn=self.meta["turns"])], ignore_index=True)
            columns = ["variant", "deck", "policy", "baseline", "turn", *SUMMARY_COLUMNS,
                       "se_unpaired"]
            return render("csv", self.meta, both.reindex(columns=columns), "")
        text = self._text(variants, diffs, chosen)
        return text + "\n".join(self._kill_text()) + "\n" if kill_turn else text

    def _text(self, variants: pd.DataFrame, diffs: pd.DataFrame, metrics: list[str]) -> str:
        last = int(variants["turn"].max())
        lines = [f"compare: {len(self.labels)} variants on the same shuffles, turn {last}",
                 f"  {'decks' if len(self.decks) > 1 else 'deck'}: {meta_text(self.meta['deck'])}",
                 f"  {'policies' if len(self.policies) > 1 else 'policy'}: "
                 f"{meta_text(self.meta['policy'])}",
                 f"  trials: {self.meta['trials']}  seed: {self.meta['seed']}  "
                 f"mulligan: {self.meta['mulligan']}  removal: {self.meta['removal']}",
                 f"  engine: {engine_text(self.meta)}",
                 ""]
        at_last = variants[variants["turn"] == last]
        lines.append(cell_table(at_last, "metric", "variant", self.labels, metrics).to_string())
        d = diffs[diffs["turn"] == last]
        if len(d):
            lines.append("")
            lines.append(f"paired differences to {self.labels[0]!r}: mean (paired se) "
                         "[unpaired se]")
            cells = d.assign(cell=[f"{m:+.4f} ({s:.4f}) [{u:.4f}]" for m, s, u in
                                   zip(d["mean"], d["se"], d["se_unpaired"])])
            wide = cells.pivot(index="metric", columns="variant", values="cell")
            wide = wide.reindex(index=[m for m in metrics if m in wide.index],
                                columns=self.labels[1:])
            lines.append(wide.rename_axis(None).rename_axis(None, axis=1).to_string())
        lines.append("")
        lines.append("  cells: mean (standard error); all variants play the same shuffles")
        return "\n".join(lines) + "\n"

    def _facts(self) -> dict[str, Any]:
        return {"decks": self.decks, "policies": self.policies, "turns": self.meta["turns"],
                "trials": self.meta["trials"], "seed": self.meta["seed"]}

    def _html(self) -> tuple[list[str], pd.DataFrame, bool]:
        rows = self.summary()
        last = self.meta["turns"]
        table = cell_table(rows[rows["turn"] == last], "metric", "variant", self.labels,
                            DEFAULT_COMPARE_METRICS)
        facts = [f"decks: {'; '.join(self.decks)}", f"policies: {'; '.join(self.policies)}",
                 f"turns: {last}, trials: {self.meta['trials']}, seed: {self.meta['seed']}",
                 f"cells: mean (standard error) at turn {last}; summary() and "
                 "paired_differences() give the tidy rows"]
        return facts, table, True


def _interval(mean: float, se: float, level: float) -> dict[str, float]:
    z = NormalDist().inv_cdf(0.5 + level / 2)
    return {"ci_low": mean - z * se, "ci_high": mean + z * se}


@with_game_options(positional=("turns", "on_play", "mulligan", "removal"))
@shows_progress("compare")
def compare(
    decks: Deck | str | PathLike[str] | Sequence[Deck | str | PathLike[str]],
    policies: str | Policy | Sequence[str | Policy] | Mapping[str, str | Policy] = "forge",
    turns: int = 6,
    on_play: bool = True,
    mulligan: str | MulliganRule | None = "london",
    trials: int = 100_000,
    seed: Any = None,
    removal: float = 0.0,
    *,
    progress: Callable[[int, int], None] | bool | None = None,
    workers: int = 1,
    scheduler: Any = None,
    **options: Any,
) -> CompareResult:
    """Play every deck x policy variant on the same shuffles and difference them.

    Each chunk of games is played by every variant from the same random streams (common
    random numbers), and the sums of per-game products of every two variants are kept, so
    a paired difference between any two variants has a standard error that reflects only
    the real difference between them, not the luck of the shuffle.

    Parameters
    ----------
    decks : Deck, path or decklist text, or a sequence of them
        The decks, in order; the first is the default baseline.
    policies : str, callable, sequence or dict
        Keep-or-mill policies, in order; the first is the default baseline. A dict
        ``{name: policy}`` names them (``{"greedy": my_function}``).
    turns, on_play, mulligan, trials, seed, removal
        As for :func:`~explore_sim.simulate`.
    {game_options}
    progress, workers, scheduler
        As for :func:`~explore_sim.simulate` (a ``progress`` that raises
        :class:`~explore_sim.analysis.runner.StopRun` ends the run with the games finished).
    **options
        The other game options (keyword-only, listed above), as for
        :func:`~explore_sim.simulate`.

    Returns
    -------
    CompareResult
        ``summary()`` per variant, ``paired_differences()`` against a baseline of choice.

    Raises
    ------
    OptionError
        Fewer than two variants, a run over the cost caps of :mod:`.run_costs`, or a bad
        option.
    PolicyError
        A policy that cannot be built.
    """
    if isinstance(decks, (Deck, str, PathLike)):
        decks = [decks]
    loaded: list[Deck] = [d if isinstance(d, Deck) else load_deck(d) for d in decks]
    decks = loaded
    policies = as_policies(policies)
    if not decks:
        raise OptionError("compare needs at least one deck and one policy")
    setup = game_setup(decks, trials, dict(options, turns=turns, on_play=on_play,
                                           mulligan=mulligan, removal=removal))
    variants = list(itertools.product(decks, policies))
    if len(variants) < 2:
        raise OptionError("compare needs at least two variants (decks x policies)")
    config = setup.config  # every two variants keep sums for each turn and metric
    check_cost(Cost(setup.trials, len(variants), len(variants), config.turns,
                    pair_sums=(config.turns + 1) * len(config.metric_names)))
    deck_labels = unique_labels([deck.name for deck in decks])
    policy_labels = unique_labels([policy_name(policy) for policy in policies])
    if len(decks) == 1:
        labels = list(policy_labels)
    elif len(policies) == 1:
        labels = list(deck_labels)
    else:
        labels = unique_labels([f"{d} / {p}" for d in deck_labels for p in policy_labels])
    setup = with_engine(setup, variants)
    seed_seq = seed_sequence(seed)
    stats, pairs = play_paired(variants, setup.config, setup.rule, setup.scry, setup.trials,
                               seed_seq, progress=callback(progress), workers=workers,
                               scheduler=scheduler, engine=chosen_engine(setup),
                               stop_early=True)
    meta = stopped_meta(run_meta("compare", decks, setup, policies, seed_seq), stats[0].n,
                        setup.trials)
    meta["variants"] = labels
    return CompareResult(meta=meta, decks=deck_labels, policies=policy_labels, labels=labels,
                         variants=stats, pairs=pairs)
