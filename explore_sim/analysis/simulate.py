"""Whole goldfish games with one deck: :func:`simulate` and its :class:`SimulationResult`.

The games are played by :mod:`~explore_sim.analysis.games` (seeded chunks, exact sums by turn),
the options are checked by :mod:`.game_setup` (from the schema of
:mod:`explore_sim.engine.options`), and the metric names by :mod:`.metric_checks`.
:func:`compare` (paired comparisons, :mod:`.compare`) and the names of those modules that this
one always offered are importable from here too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from os import PathLike
from typing import Any

import pandas as pd

from ..cards.decklist import Deck, load_deck
from ..engine.goldfish import Goldfish
from ..engine.mulligan import MulliganRule
from ..engine.policies import Policy, one_policy
from ..progress import callback, shows_progress
from .compare import CompareResult, compare
from .game_setup import (
    ASSUMPTIONS,
    GameSetup,
    chosen_engine,
    game_formats,
    game_mulligan,
    game_setup,
    run_meta,
    with_engine,
    with_game_options,
)
from .games import CompareTask, SimulateTask, TurnStats, play_games, play_paired
from .kill_turn import KillTurn, kill_turn
from .metric_checks import (
    DEFAULT_COMPARE_METRICS,
    DEFAULT_TABLE_METRICS,
    castable_metrics,
    check_distribution,
    check_metrics,
    table_metrics,
)
from .report import cell_table, engine_text, meta_text, never_cast_lines, render, start_text
from .results import Result
from .runner import run_chunks, seed_sequence, stopped_meta

__all__ = ["simulate", "play_deck", "compare", "SimulationResult", "CompareResult", "play_games",
           "play_paired",
           "check_metrics", "table_metrics", "check_distribution", "DEFAULT_COMPARE_METRICS",
           "DEFAULT_TABLE_METRICS", "SimulateTask", "CompareTask", "ASSUMPTIONS",
           "game_formats", "game_mulligan"]


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class SimulationResult(Result):
    """The outcome of :func:`simulate`: per-turn tidy statistics and full distributions.

    Attributes
    ----------
    meta : dict
        What was run and assumed (JSON-safe): ``command``, ``deck`` (a list of one deck
        record), ``policy`` (a list of one name), the game options, ``trials``, ``seed``,
        ``assumptions`` and ``versions``.
    stats : TurnStats
        Exact sums and histograms of every metric, by turn.
    """

    meta: dict[str, Any]
    stats: TurnStats

    def summary(self, level: float = 0.95) -> pd.DataFrame:
        """Tidy statistics of every metric by turn.

        Parameters
        ----------
        level : float
            Confidence level of the intervals.

        Returns
        -------
        DataFrame
            ``turn, metric, mean, se, ci_low, ci_high`` (turn 0: the opening hand), with
            :attr:`meta` in ``attrs["explore_sim"]``.
        """
        return self._with_meta(self.stats.summary(level))

    def distribution(self, metric: str, turn: int, level: float = 0.95) -> pd.DataFrame:
        """Full distribution of a metric at the end of a turn.

        Parameters
        ----------
        metric : str
            A per-turn metric, or at turn 0 an opening-hand metric (``mulligans``,
            ``hand_size``, ``opening_lands``).
        turn : int
            0 (the opening hand) to the last turn played.
        level : float
            Confidence level of the intervals.

        Returns
        -------
        DataFrame
            ``value, count, probability, se, ci_low, ci_high``, with :attr:`meta` in
            ``attrs["explore_sim"]``.

        Raises
        ------
        OptionError
            An unknown metric, a turn out of range or a metric not recorded at that turn.
        """
        check_distribution(metric, turn, self.meta["turns"], castable_metrics(self.meta))
        return self._with_meta(self.stats.by_turn[turn].distribution(metric, level))

    def kill_turn(self, level: float = 0.95) -> KillTurn:
        """The damage clock: P(opponent dead by turn T), the median kill turn and the mean
        of min(kill turn, turns + 1) (:func:`explore_sim.analysis.kill_turn.kill_turn`).

        Parameters
        ----------
        level : float
            Confidence level of the Wilson intervals.

        Returns
        -------
        KillTurn
        """
        return kill_turn(self.stats, level)

    def default_metrics(self) -> list[str]:
        """The metrics the table shows by default: :func:`table_metrics` of the run, less
        ``maps_created`` and ``maps_used`` when no game made a Map (the deck makes none).

        Returns
        -------
        list of str
        """
        chosen = table_metrics(self.meta)
        if self.stats.by_turn[self.meta["turns"]].total.get("maps_created") == 0:
            chosen = [m for m in chosen if m not in _MAP_METRICS]
        return chosen

    def render(self, fmt: str = "table", metrics: Iterable[str] | None = None) -> str:
        """The result as text, as the command line prints it.

        Parameters
        ----------
        fmt : {"table", "csv", "json"}
            A table of ``mean (se)`` by metric and turn, or the tidy rows.
        metrics : iterable of str, optional
            Metrics to show (the table's default is a selection; csv and json give all).

        Returns
        -------
        str
        """
        rows = self.summary()
        extra = castable_metrics(self.meta)
        if fmt != "table":
            if metrics is not None:
                rows = rows[rows["metric"].isin(check_metrics(metrics, extra=extra))]
            return render(fmt, self.meta, rows.reset_index(drop=True), "")
        chosen = check_metrics(metrics, self.default_metrics(), extra=extra)
        notes = ([NO_MAPS_NOTE] if metrics is None and not set(_MAP_METRICS) & set(chosen)
                 else [])
        turns = self.meta["turns"]
        return _turn_table(self.meta, rows, chosen, f"simulate: {turns} turn"
                           f"{'s' if turns != 1 else ''}, {start_text(self.meta)}", notes)

    def _facts(self) -> dict[str, Any]:
        return {"deck": meta_text([d["name"] for d in self.meta["deck"]]),
                "policy": meta_text(self.meta["policy"]), "turns": self.meta["turns"],
                "on_play": self.meta["on_play"], "trials": self.meta["trials"],
                "seed": self.meta["seed"]}

    def _html(self) -> tuple[list[str], pd.DataFrame, bool]:
        table = cell_table(self.summary().query("turn > 0"), "metric", "turn",
                           range(1, self.meta["turns"] + 1), self.default_metrics())
        table.columns = [f"turn {t}" for t in table.columns]
        facts = [self._facts_line(), "cells: mean (standard error); summary() gives the tidy rows"]
        return facts, table, True


def mulligans_text(rows: pd.DataFrame) -> str:
    """``mulligans per game: MEAN (SE)`` from a summary's opening rows (turn 0), or ``""``
    where the mulligans were not recorded."""
    opening = rows[rows["turn"] == 0].set_index("metric")
    if "mulligans" not in opening.index:
        return ""
    found = opening.loc["mulligans"].to_dict()
    return f"mulligans per game: {found['mean']:.3f} ({found['se']:.3f})"


def _turn_table(meta: dict, rows: pd.DataFrame, metrics: list[str], title: str,
                notes: Sequence[str] = ()) -> str:
    """Metrics down, turns across: ``mean (se)``; ``notes``: lines under the table."""
    turns = sorted(t for t in rows["turn"].unique() if t > 0)
    table = cell_table(rows[rows["turn"] > 0], "metric", "turn", turns, metrics)
    table.columns = [f"turn {t}" for t in table.columns]
    lines = [title]
    for key in ("deck", "policy", "mulligan", "removal", "trials", "seed"):
        lines.append(f"  {key}: {meta_text(meta.get(key))}")
        if key == "deck":
            lines += never_cast_lines(meta)
    lines.append(f"  engine: {engine_text(meta)}")
    mulligans = mulligans_text(rows)
    if mulligans:
        lines.append(f"  {mulligans}")
    lines.append("")
    lines.append(table.to_string())
    lines.append("")
    lines.append("  cells: mean (standard error); see --format csv/json for intervals")
    lines += [f"  {note}" for note in notes]
    return "\n".join(lines) + "\n"


#: The Map metrics a default table leaves out when no game made a Map.
_MAP_METRICS = ("maps_created", "maps_used")
#: Said under such a table.
NO_MAPS_NOTE = "no game made a Map: maps_created and maps_used are not shown (--metrics names them)"


@with_game_options(positional=("turns", "on_play", "mulligan", "removal"))
@shows_progress("simulate")
def simulate(
    deck: Deck | str | PathLike[str],
    turns: int = 6,
    on_play: bool = True,
    mulligan: str | MulliganRule | None = "london",
    policy: str | Policy | Mapping[str, str | Policy] = "forge",
    trials: int = 100_000,
    seed: Any = None,
    removal: float = 0.0,
    *,
    progress: Callable[[int, int], None] | bool | None = None,
    workers: int = 1,
    scheduler: Any = None,
    **options: Any,
) -> SimulationResult:
    """Play goldfish games with one deck and report per-turn metrics.

    Parameters
    ----------
    deck : Deck, path or decklist text
    turns : int
        Turns to play (1-50).
    on_play : bool
        On the play (no draw on turn 1) or on the draw.
    mulligan : {"london", "london-free", "none"} or MulliganRule
        Mulligan rule (:mod:`explore_sim.engine.mulligan`); ``free_mulligan`` and ``keep``
        refine it.
    policy : str, callable or dict
        Keep-or-mill policy for explore: a preset, an expression, a callable, or a one-entry
        ``{name: policy}`` dict that names it.
    trials : int
        Games to play.
    seed : int, SeedSequence, Generator or None
        None draws fresh entropy, recorded in ``meta["seed"]``.
    removal : float
        Probability that an explorer leaves the battlefield in response to its explore.
    {game_options}
    progress : callable, False or None
        ``progress(games done, games)`` after every chunk; raising
        :class:`~explore_sim.analysis.runner.StopRun` stops the run there, and the result is
        that of the games finished (``meta["trials"]``, with ``meta["trials_asked"]``), the
        same as a run of that many games with the same seed.
        None (the default) shows a progress display from a second on, in a terminal or
        a notebook (:func:`~explore_sim.progress.shows_progress`); False, none.
    workers : int
        Local processes to run chunks in (0: every core); the numbers do not depend on it.
    scheduler : str, distributed.Client or Executor, optional
        Run the chunks on a Dask cluster instead: its scheduler's address
        (``tcp://HOST:PORT``) or a client (:mod:`explore_sim.analysis.executors`); the
        numbers do not depend on it either.
    **options
        The other game options (keyword-only, listed above): one per entry of
        :data:`explore_sim.engine.options.GAME_OPTIONS` with a keyword.

    Returns
    -------
    SimulationResult
        ``summary()`` has one row per turn and metric
        (:data:`explore_sim.engine.goldfish.TURN_METRICS` plus the opening hand's
        ``mulligans``, ``hand_size`` and ``opening_lands`` at turn 0).
    """
    deck = deck if isinstance(deck, Deck) else load_deck(deck)
    setup = game_setup([deck], trials, dict(options, turns=turns, on_play=on_play,
                                            mulligan=mulligan, removal=removal))
    meta, stats = play_deck("simulate", deck, setup, policy, seed, progress=callback(progress),
                            workers=workers, scheduler=scheduler, stop_early=True)
    return SimulationResult(meta=meta, stats=stats)


def play_deck(command: str, deck: Deck, setup: GameSetup, policy: Any, seed: Any, *,
              progress: Callable[[int, int], None] | None = None, workers: int = 1,
              scheduler: Any = None, stop_early: bool = False
              ) -> tuple[dict[str, Any], TurnStats]:
    """Play ``setup.trials`` goldfish games of one deck in seeded chunks, on the engine the
    run chooses: what :func:`simulate` and :func:`~.curve.curve` share.

    Parameters
    ----------
    command : str
        The analysis, named in the metadata and in a policy's errors.
    deck : Deck
    setup : GameSetup
        The game (:func:`~.game_setup.game_setup`).
    policy : str, callable or dict
        Keep-or-mill policy for explore (one for the deck).
    seed : int, SeedSequence, Generator or None
    progress, workers, scheduler
        As :func:`simulate` takes them.
    stop_early : bool
        The caller's result is this one run: a :class:`~.runner.StopRun` from ``progress``
        ends it with the games finished. False (a run that is one of several): it
        propagates.

    Returns
    -------
    meta : dict
        What was run and assumed (:func:`~.game_setup.run_meta`); a run that ``progress``
        stopped early records the games finished (:func:`~.runner.stopped_meta`).
    stats : TurnStats
        Exact sums and histograms of every metric, by turn.
    """
    config = setup.config
    policy = one_policy(policy, command)
    Goldfish(deck.features(), config, policy, setup.scry, {})  # validate cast_order up front
    setup = with_engine(setup, [(deck, policy)])
    seed_seq = seed_sequence(seed)
    stats = TurnStats(config.turns, config.metric_names)
    task = SimulateTask(deck, config, policy, setup.rule, setup.scry, chosen_engine(setup))
    done = run_chunks(task, stats.merge, setup.trials, seed_seq, progress=progress,
                      workers=workers, scheduler=scheduler, stop_early=stop_early)
    meta = run_meta(command, [deck], setup, [policy], seed_seq)
    return stopped_meta(meta, done, setup.trials), stats
