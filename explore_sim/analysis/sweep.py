"""Sweeps: goldfish metrics over a grid of deck variants and policies, as one tidy frame.

A sweep plays every *point*: each deck, each combination of the grid's values (land count,
copies of cards) and each policy, in that order, every point on the same seed (common random
numbers: neighbouring points see the same shuffles where their decks agree). The chunks of
all points go to one executor (:mod:`.executors`), so a sweep of many small points keeps
every worker busy, and each point's chunks are merged in chunk order, so the numbers are
the same wherever they ran. With ``out=`` the points go to a Parquet file as they finish
(:mod:`.results_files`), and a run with the same settings carries on where one stopped.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import numbers
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from os import PathLike
from typing import Any

import pandas as pd

from ..cards.decklist import DEFAULT_FILLER, Deck, load_deck
from ..engine.goldfish import OPENING_METRICS, Goldfish
from ..engine.policies import ExpressionPolicy, NamedPolicy, Policy, as_policies, policy_name
from ..errors import DeckError, OptionError, clip
from ..progress import callback, shows_progress
from .executors import Job, check_workers, executing
from .game_setup import (
    GameSetup,
    game_setup,
    options_meta,
    run_meta,
    with_engine,
    with_game_options,
)
from .games import SimulateTask, TurnStats
from .locking import ResultsLock
from .metric_checks import DEFAULT_COMPARE_METRICS, castable_metrics, check_metrics
from .report import engine_text, meta_text, ordered_categorical, render, unique_labels, versions
from .results import Result
from .results_files import FORMAT_VERSION, RESERVED_COLUMNS, SweepFile, deck_fingerprint
from .run_costs import Cost, check_cost
from .runner import CHUNK_TRIALS, chunk_seeds, seed_sequence
from .simulate import SimulationResult

__all__ = ["sweep", "SweepResult", "MAX_GRID_POINTS", "MAX_GRID_VALUES"]

#: The most points (decks x grid points x policies) one sweep plays.
MAX_GRID_POINTS = 100_000
#: The most values of one grid key (read no further: a range of a billion costs nothing).
MAX_GRID_VALUES = 1000


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class SweepResult(Result):
    """The outcome of :func:`sweep`: one goldfish simulation per deck, grid point and policy.

    Attributes
    ----------
    meta : dict
        What was run (JSON-safe): ``command`` (``"sweep"``), ``deck`` (the decks' records),
        ``grid`` (each key's values), ``filler`` (the filler card; a list of them with
        several decks), ``policy`` (a list of names), ``metrics``, the game options,
        ``trials``, ``seed``, ...
    grid : dict of str to list of int
        The swept values, in the order given; the first value of each key is its baseline.
    policies : list of str
        Policy labels, in the order given.
    results : list of SimulationResult
        One per point: decks in the order given, then grid points in ``itertools.product``
        order of the grid, then policies.
    decks : list of str
        Deck labels, in the order given.
    read_back : int
        Points read back from the ``out`` file rather than played.
    """

    meta: dict[str, Any]
    grid: dict[str, list[int]]
    policies: list[str]
    results: list[SimulationResult]
    decks: list[str] = dataclasses.field(default_factory=list)
    read_back: int = 0

    def _runs(self) -> Iterator[tuple[str, tuple[int, ...], str, SimulationResult]]:
        runs = iter(self.results)
        for deck in self.decks or [self.meta["deck"][0]["name"]]:
            for values in itertools.product(*self.grid.values()):
                for policy in self.policies:
                    yield deck, values, policy, next(runs)

    def summary(self, level: float = 0.95) -> pd.DataFrame:
        """Tidy statistics of every point by turn.

        Parameters
        ----------
        level : float
            Confidence level of the intervals.

        Returns
        -------
        DataFrame
            One row per point x turn x metric: ``deck`` when several decks were swept, one
            column per grid key, then ``policy, turn, metric, mean, se, ci_low, ci_high``.
            ``deck``, the grid keys and ``policy`` are ordered categoricals in the order
            given (the first value is the baseline); only ``meta["metrics"]`` are kept when
            the sweep named some, and ``attrs["explore_sim"]`` holds :attr:`meta`.
        """
        metrics = self.meta["metrics"]
        frames = []
        several = len(self.decks) > 1
        for deck, values, policy, result in self._runs():
            frame = result.stats.summary(level)
            if metrics is not None:
                frame = frame[frame["metric"].isin(metrics)]
            frame.insert(0, "policy", policy)
            for key, value in reversed(list(zip(self.grid, values))):
                frame.insert(0, key, value)
            if several:
                frame.insert(0, "deck", deck)
            frames.append(frame)
        frame = pd.concat(frames, ignore_index=True)
        for key, levels in self.grid.items():
            frame[key] = pd.Categorical(frame[key], categories=levels, ordered=True)
        frame["policy"] = ordered_categorical(frame["policy"].tolist(), self.policies)
        if several:
            frame["deck"] = ordered_categorical(frame["deck"].tolist(), self.decks)
        return self._with_meta(frame)

    def _points(self) -> list[str]:
        return [*(["deck"] if len(self.decks) > 1 else []), *self.grid, "policy"]

    def render(self, fmt: str = "table", metrics: Iterable[str] | None = None,
               turn: int | None = None) -> str:
        """The sweep as text, as the command line prints it.

        Parameters
        ----------
        fmt : {"table", "csv", "json"}
            ``table``: one line per point, ``mean (se)`` of each metric at the last turn
            (or ``turn``). ``csv`` and ``json``: the tidy rows of :meth:`summary`.
        metrics : iterable of str, optional
            Metrics to show (default: the sweep's ``metrics``, else a selection for the
            table and every metric for csv and json).
        turn : int, optional
            Keep only this turn's rows (the table's turn).

        Returns
        -------
        str
        """
        extra = castable_metrics(self.meta)
        rows = self.summary()
        if metrics is None and self.meta["metrics"] is not None:
            metrics = self.meta["metrics"]
        last = self.meta["turns"] if turn is None else turn
        if turn is not None:
            rows = rows[rows["turn"] == turn]
        if fmt != "table":
            if metrics is not None:
                rows = rows[rows["metric"].isin(check_metrics(metrics, extra=extra))]
            return render(fmt, self.meta, rows.reset_index(drop=True), "")
        chosen = check_metrics(metrics, (*DEFAULT_COMPARE_METRICS, *extra), extra=extra)
        at = rows[(rows["turn"] == last) & rows["metric"].isin(chosen)]
        at = at.assign(cell=[f"{m:.3f} ({s:.3f})" for m, s in zip(at["mean"], at["se"])])
        table = at.pivot_table(index=self._points(), columns="metric", values="cell",
                               aggfunc="first", observed=True, sort=False)
        table = table.reindex(columns=[m for m in chosen if m in table.columns])
        points = len(self.results)
        lines = [f"sweep: {points} points, turn {last}, "
                 f"{'on the play' if self.meta['on_play'] else 'on the draw'}"]
        for key in ("deck", "filler", "mulligan", "trials", "seed"):
            lines.append(f"  {key}: {meta_text(self.meta.get(key))}")
        lines.append(f"  engine: {engine_text(self.meta)}")
        if self.read_back:
            lines.append(f"  read back from the results file: {self.read_back} of {points} "
                         "points")
        lines.append("")
        lines.append(table.rename_axis(None, axis=1).to_string())
        lines.append("")
        lines.append("  cells: mean (standard error); see --format csv/json for every turn "
                     "and intervals")
        return "\n".join(lines) + "\n"

    def _facts(self) -> dict[str, Any]:
        decks = [d["name"] for d in self.meta["deck"]]
        return {"deck": decks[0] if len(decks) == 1 else decks, "grid": self.grid,
                "policies": self.policies, "turns": self.meta["turns"],
                "trials": self.meta["trials"], "seed": self.meta["seed"]}

    def _html(self) -> tuple[list[str], pd.DataFrame, bool]:
        rows = self.summary()
        last = self.meta["turns"]
        shown = self.meta["metrics"] or list(DEFAULT_COMPARE_METRICS)
        rows = rows[(rows["turn"] == last) & rows["metric"].isin(shown)]
        table = rows.pivot_table(index=self._points(), columns="metric",
                                 values="mean", observed=True, sort=False)
        table = table.reindex(columns=[m for m in shown if m in table.columns]).round(3)
        facts = [f"deck: {meta_text(self.meta['deck'])} (filler: {meta_text(self.meta['filler'])})",
                 f"policies: {'; '.join(self.policies)}",
                 f"turns: {last}, trials: {self.meta['trials']}, seed: {self.meta['seed']}",
                 f"cells: mean at turn {last}; summary() gives the tidy rows"]
        return facts, table.rename_axis(None, axis=1), True


def _check_grid(grid: object) -> tuple[dict[str, list[int]], list[Any] | None]:
    """The grid as ``{key: [values]}`` and its ``policy`` values (None if it has none);
    one-line errors for scalars, text and repeats."""
    if not isinstance(grid, Mapping) or not grid:
        raise OptionError(
            "sweep needs a grid such as {'lands': [22, 24], 'Cenote Scout': [0, 4]}, "
            f"got {clip(repr(grid))}"
        )
    checked = {}
    policies = None
    for key, values in grid.items():
        if not isinstance(key, str):
            raise OptionError(f"grid keys must be 'lands', 'policy' or card names, got "
                              f"{clip(repr(key))}")
        if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
            raise OptionError(
                f"grid[{key!r}] must be a list of values, got {clip(repr(values))} "
                f"(write [{clip(repr(values))}])"
            )
        values = _grid_values(key, values)
        if not values:
            raise OptionError(f"grid[{key!r}] has no values")
        if key == "policy":
            policies = values
            continue
        if key in RESERVED_COLUMNS:
            raise OptionError(f"grid key {key!r} names a column of the results; grid keys "
                              "are 'lands', 'policy' or card names")
        for value in values:
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
                raise OptionError(
                    f"grid[{key!r}]: copies must be whole numbers >= 0, got {clip(repr(value))}"
                )
        values = [int(value) for value in values]
        if len(set(values)) != len(values):
            raise OptionError(f"grid[{key!r}] repeats a value: {clip(values)}")
        checked[key] = values
    return checked, policies


def _check_size(points: int, setup: GameSetup) -> None:
    """Refuse a sweep of more than :data:`MAX_GRID_POINTS` points or over the cost caps
    (its points are played one at a time), before any of them is built."""
    if points > MAX_GRID_POINTS:
        raise OptionError(f"the sweep has {points:,} points (decks x grid x policies); the "
                          f"most is {MAX_GRID_POINTS:,}: split it")
    check_cost(Cost(setup.trials, points, 1, setup.config.turns))


def _grid_values(key: str, values: Iterable[Any]) -> list[Any]:
    """A grid key's values, at most :data:`MAX_GRID_VALUES` of them, read no further."""
    try:
        size: int | None = len(values)  # type: ignore[arg-type]  # an Iterable: len may fail
    except (TypeError, OverflowError):
        size = None
    taken = [] if size is not None and size > MAX_GRID_VALUES else \
        list(itertools.islice(values, MAX_GRID_VALUES + 1))
    if size is not None and size > MAX_GRID_VALUES or len(taken) > MAX_GRID_VALUES:
        count = f"{size:,} values" if size is not None else "more values"
        raise OptionError(f"grid[{clip(key)!r}] has {count}; a key takes at most "
                          f"{MAX_GRID_VALUES:,} (and a sweep {MAX_GRID_POINTS:,} points): "
                          "split the sweep")
    return taken


def _policy_spec(policy: Policy) -> str:
    """What a policy is, as text that does not change from run to run (for the settings)."""
    if isinstance(policy, NamedPolicy):
        return f"{policy.name}: {_policy_spec(policy.policy)}"
    if isinstance(policy, ExpressionPolicy) or (
            dataclasses.is_dataclass(policy) and type(policy).__module__.startswith("explore_sim")):
        return repr(policy)
    module = getattr(policy, "__module__", "?")
    return f"{module}.{getattr(policy, '__qualname__', policy_name(policy))}"


@with_game_options(positional=())
@shows_progress("sweep")
def sweep(
    deck: Deck | str | PathLike[str] | Sequence[Deck | str | PathLike[str]],
    grid: Mapping[str, Sequence[Any]],
    policies: str | Policy | Sequence[str | Policy] | Mapping[str, str | Policy] = "forge",
    *,
    filler: str | None = None,
    metrics: Iterable[str] | None = None,
    trials: int = 100_000,
    seed: Any = None,
    out: str | PathLike[str] | None = None,
    progress: Callable[[int, int], None] | bool | None = None,
    workers: int = 1,
    scheduler: Any = None,
    catalog: Any = None,
    **options: Any,
) -> SweepResult:
    """Simulate every combination of decks, deck counts and policies.

    Parameters
    ----------
    deck : Deck, path or decklist text, or a list of them
        The base deck, or several (each swept over the same grid).
    grid : mapping of str to list
        For each key, the values to try, the first being its baseline: ``"lands"`` (total
        land cards, changing the deck's most numerous land), a card name (its copies), or
        ``"policy"`` (keep-or-mill policies, instead of ``policies``). The deck size is kept
        by adding or removing copies of the filler card.
    policies : str, callable, sequence or dict
        Keep-or-mill policies; a dict ``{name: policy}`` names them. Left at its default
        when the grid has a ``"policy"`` key.
    filler : str, optional
        The card traded against to keep the deck size. Default: each deck's declared filler
        (a ``// filler: Card Name`` line), else :data:`~explore_sim.cards.decklist.DEFAULT_FILLER`
        (Grizzly Bears).
    metrics : list of str, optional
        Keep only these metrics in :meth:`SweepResult.summary`.
    trials : int
        Games per point.
    seed : int, SeedSequence, Generator or None
        Every point uses the same seed, so neighbouring points see the same shuffles where
        their decks agree. None draws fresh entropy, recorded in ``meta["seed"]`` (with
        ``out``: the seed recorded in the file, if there is one).
    out : str or PathLike, optional
        A Parquet file that receives the points as they finish (:mod:`.results_files`). If it holds
        points of a run with the same settings, they are read back and not played again;
        a file of other settings is refused.
    progress : callable, False or None
        ``progress(games done, games)`` after every chunk (games of the points played);
        a :class:`~explore_sim.analysis.runner.StopRun` it raises propagates (the points
        already written to ``out`` are kept there).
        None (the default) shows a progress display from a second on, in a terminal or
        a notebook (:func:`~explore_sim.progress.shows_progress`); False, none.
    workers : int
        Local processes to run chunks in (0: every core).
    scheduler : str, distributed.Client or Executor, optional
        A Dask scheduler (``tcp://HOST:PORT``) to run the chunks on instead.
    catalog : Catalog or CardSources, optional
        Where grid card names not in a deck are looked up (default: the built-in catalog
        and the imported index).
    {game_options}
    **options
        The game options (keyword-only, listed above), as for :func:`explore_sim.simulate`.

    Returns
    -------
    SweepResult

    Raises
    ------
    OptionError
        A grid that is not ``{key: [values]}`` of whole numbers, an unknown metric, a key of
        more than :data:`MAX_GRID_VALUES` values (read no further), more than
        :data:`MAX_GRID_POINTS` points, a run over the cost caps of :mod:`.run_costs`, or an
        ``out`` file that cannot be written or holds another run.
    DeckError
        A grid point that cannot be built, naming the point and the card.
    ExecutorError
        A scheduler that cannot be used.
    """
    bases, grid, resolved = _sweep_inputs(deck, grid, policies)
    labels = unique_labels([policy_name(policy) for policy in resolved])
    setup = game_setup(bases, trials, options)
    config, scry = setup.config, setup.scry
    chosen = None if metrics is None else check_metrics(
        metrics, extra=[f"castable:{card.name}" for card in config.castable])
    deck_labels = unique_labels([d.name for d in bases])
    _check_size(len(bases) * len(labels) * _product([len(v) for v in grid.values()]), setup)

    fillers, variants = _variants(bases, deck_labels, grid, filler, catalog)
    for variant in variants:
        Goldfish(variant.features(), config, resolved[0], scry, {})  # check cast_order
    setup = with_engine(setup, [(variant, policy) for variant in variants for policy in resolved])
    plan = _Plan(bases, deck_labels, fillers, grid, resolved, labels, setup, chosen,
                 [(variant, policy) for variant in variants for policy in resolved],
                 [(label, *values, policy_label) for label in deck_labels
                  for values in itertools.product(*grid.values()) for policy_label in labels])
    out = None if out is None else SweepFile.check_path(out)  # a link's target
    with _writing(out):  # one run at a time writes a results file: from here to the end
        return _run(plan, seed, out, callback(progress), workers, scheduler)


@dataclasses.dataclass(frozen=True)
class _Plan:
    """Everything a sweep plays, checked: its decks, grid, policies and points."""

    bases: list[Deck]
    deck_labels: list[str]
    fillers: list[str]
    grid: dict[str, list[int]]
    policies: list[Policy]
    labels: list[str]
    setup: GameSetup
    metrics: list[str] | None
    runs: list[tuple[Deck, Policy]]
    keys: list[tuple]


def _run(plan: _Plan, seed: Any, out: str | PathLike[str] | None,
         progress: Callable[[int, int], None] | None, workers: int,
         scheduler: Any) -> SweepResult:
    """Play a sweep's points (those not read back from ``out``), with the file's lock held."""
    config, setup = plan.setup.config, plan.setup
    if seed is None and out is not None:
        stored = SweepFile.stored_settings(out)
        if stored is not None and "seed" in stored:
            seed = stored["seed"]
    seed_seq = seed_sequence(seed)
    meta = run_meta("sweep", plan.bases, setup, plan.policies, seed_seq)
    meta.update(grid=plan.grid, filler=plan.fillers[0] if len(plan.bases) == 1 else plan.fillers,
                policy=plan.labels, metrics=plan.metrics)
    turn_metrics = [OPENING_METRICS, *[config.metric_names] * config.turns]
    store = None
    finished: dict[tuple, list] = {}
    if out is not None:
        settings = _settings(plan.bases, plan.deck_labels, plan.fillers, plan.grid,
                             plan.policies, plan.labels, setup, seed_seq)
        store = SweepFile(out, settings, list(plan.grid), meta)
        finished = store.read(plan.keys, turn_metrics)
    stats = {key: TurnStats.from_turns(finished[key]) for key in finished}
    pending = [i for i, key in enumerate(plan.keys) if key not in finished]
    try:
        _play_points(plan.runs, plan.keys, pending, setup, seed_seq, stats, store, progress,
                     workers, scheduler)
    finally:
        if store is not None:
            store.write()
    results = [_point_result(variant, policy, key[-1], setup, seed_seq, stats[key])
               for (variant, policy), key in zip(plan.runs, plan.keys)]
    return SweepResult(meta=meta, grid=plan.grid, policies=plan.labels, results=results,
                       decks=plan.deck_labels, read_back=len(finished))


def _sweep_inputs(deck: Any, grid: Mapping[str, Sequence[Any]],
                  policies: Any) -> tuple[list[Deck], dict[str, list[int]], list[Policy]]:
    """The decks, the checked grid and the policies of a sweep (the grid's or ``policies``)."""
    bases = list(deck) if isinstance(deck, (list, tuple)) else [deck]
    if not bases:
        raise OptionError("sweep needs at least one deck")
    bases = [d if isinstance(d, Deck) else load_deck(d) for d in bases]
    checked, grid_policies = _check_grid(grid)
    if grid_policies is not None and not (isinstance(policies, str) and policies == "forge"):
        raise OptionError("give the policies either in the grid ('policy') or as policies, "
                          "not both")
    return bases, checked, as_policies(policies if grid_policies is None else grid_policies)


def _point_result(variant: Deck, policy: Policy, label: str, setup: GameSetup, seed_seq: Any,
                  stats: TurnStats) -> SimulationResult:
    """One point of a sweep as the simulation it is (its policy under its sweep label)."""
    meta = run_meta("simulate", [variant], setup, [policy], seed_seq)
    meta["policy"] = [label]
    return SimulationResult(meta=meta, stats=stats)


def _variants(bases: list[Deck], deck_labels: list[str], grid: dict[str, list[int]],
              filler: str | None, catalog: Any) -> tuple[list[str], list[Deck]]:
    """Each deck's filler, and every deck x grid point's deck, in order."""
    fillers = []
    variants: list[Deck] = []
    for label, base in zip(deck_labels, bases):
        fillers.append(filler or base.filler or DEFAULT_FILLER)
        for values in itertools.product(*grid.values()):
            point = dict(zip(grid, values))
            try:
                variants.append(base.with_counts(point, filler=fillers[-1], catalog=catalog))
            except DeckError as error:
                where = ", ".join(f"{key}={value}" for key, value in point.items())
                deck_text = f"deck {label!r}, " if len(bases) > 1 else ""
                raise DeckError(f"sweep point {deck_text}{where}: {error}") from None
    return fillers, variants


def _play_points(runs: list[tuple[Deck, Policy]], keys: list[tuple], pending: list[int],
                 setup: GameSetup, seed_seq: Any, stats: dict[tuple, TurnStats],
                 store: SweepFile | None, progress: Callable[[int, int], None] | None,
                 workers: int, scheduler: Any) -> None:
    """Play the pending points' chunks on one executor; each point's sums go into ``stats``
    (and the results file) in point order, once all its chunks are in."""
    config, trials = setup.config, setup.trials
    chunks = list(chunk_seeds(trials, seed_seq, CHUNK_TRIALS))
    if scheduler is None and pending:
        workers = min(check_workers(workers), len(pending) * len(chunks))
    engine = setup.engine.engine if setup.engine is not None else "auto"
    tasks = [SimulateTask(runs[i][0], config, runs[i][1], setup.rule, setup.scry, engine)
             for i in pending]
    jobs = (Job(t, size, child) for t in range(len(pending)) for size, child in chunks)
    total, done = len(pending) * trials, 0
    if not pending:
        return
    with executing(workers, scheduler) as executor:
        results = executor.map(tasks, jobs)
        try:
            for i in pending:
                point = TurnStats(config.turns, config.metric_names)
                for size, _ in chunks:
                    point.merge(next(results))
                    done += size
                    if progress is not None:
                        progress(done, total)
                stats[keys[i]] = point
                if store is not None:
                    store.add(keys[i], list(point.by_turn.values()), runs[i][0].digest())
        finally:
            getattr(results, "close", lambda: None)()


@contextlib.contextmanager
def _writing(out: str | PathLike[str] | None) -> Iterator[None]:
    """Hold the lock of the results file ``out`` (if any) while the sweep runs."""
    if out is None:
        yield
        return
    with ResultsLock(out):
        yield


def _product(sizes: list[int]) -> int:
    out = 1
    for size in sizes:
        out *= size
    return out


def _settings(bases: list[Deck], deck_labels: list[str], fillers: list[str],
              grid: dict[str, list[int]], policies: list[Policy], labels: list[str],
              setup: GameSetup, seed_seq: Any) -> dict[str, Any]:
    """What decides a sweep's numbers, for its results file (JSON-safe)."""
    config, rule, scry = setup.config, setup.rule, setup.scry
    game = options_meta(setup)
    game.pop("engine_fallback", None)  # the engine that played decides the numbers, not why
    game["castable"] = [{"name": card.name, "fingerprint": deck_fingerprint([(card, 1)])}
                        for card in config.castable]
    game["mulligan"] = rule.name
    game["scry_policy"] = "same as policy" if scry is None else _policy_spec(scry)
    return {
        "format": FORMAT_VERSION,
        "command": "sweep",
        "decks": [{"name": label, "fingerprint": deck_fingerprint(base.main), "filler": fill}
                  for label, base, fill in zip(deck_labels, bases, fillers)],
        "grid": grid,
        "policies": [{"name": label, "spec": _policy_spec(policy)}
                     for label, policy in zip(labels, policies)],
        "game": game,
        "trials": setup.trials,
        "seed": seed_seq.entropy,
        "chunk_trials": CHUNK_TRIALS,
        "versions": versions(),
    }
