"""Games of a goldfish run to watch on the web page: the sample game under a result, the
distribution table whose every bucket links to a game in it, and ``GET /replay``.

A goldfish run (simulate, compare) lists its games as :class:`~.parts.GameVariant` (each
deck and policy with the run's options and seed). Its games are played again with
:func:`explore_sim.replay`, which plays trial K of the run alone on the compiled kernel: the
game shown is the run's own. A bucket's game is the first trial that landed there, found by
:func:`explore_sim.find_trial` among the run's first
:data:`~explore_sim.analysis.replay.SEARCH_TRIALS` trials (played again at once, without
logs); when none of them did, the page says so.

``GET /replay?job=ID&trial=K`` (``&variant=I`` for the I-th variant of a comparison) shows
trial K; ``GET /replay?job=ID&metric=M&turn=T&value=V`` the first trial whose M is V on turn
T. Every value is checked and refused in one line naming it.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

from starlette.exceptions import HTTPException

from ..analysis.replay import SEARCH_TRIALS, GameReplay, find_trial, replay
from ..errors import ExploreSimError, clip
from .answers import distribution_answer
from .parts import GameVariant, Table

__all__ = ["SampleGame", "sample_games", "distribution_table", "replay_view", "engine_refusal"]

#: One replay at a time: they run on the request's worker threads, outside the run pool.
_REPLAY_LOCK = threading.Lock()
#: The query-string keys ``/replay`` reads.
_KEYS = ("job", "variant", "trial", "metric", "turn", "value")


@dataclasses.dataclass(frozen=True)
class SampleGame:
    """One game of a run as the page shows it.

    Attributes
    ----------
    label : str
        The variant (blank when the run has one).
    trial : int
    text : str
        The replay's log (:meth:`~explore_sim.GameReplay.text`); blank when ``error`` says
        why there is none.
    error : str
    """

    label: str
    trial: int
    text: str = ""
    error: str = ""


def engine_refusal(meta: Mapping[str, Any]) -> str:
    """Why the games of a run cannot be watched ("" when they can): a replay plays the
    compiled kernel's game, so a run played on the NumPy engine has none to show.

    Parameters
    ----------
    meta : mapping
        The run's metadata (its ``engine``).

    Returns
    -------
    str
    """
    if meta.get("engine") == "numpy":
        return ("no game to watch: this run played on the numpy engine, and a replay plays "
                "the compiled kernel's game (run it with engine auto or kernel)")
    return ""


def _play(variant: GameVariant, trial: int) -> GameReplay:
    with _REPLAY_LOCK:
        return replay(variant.deck, trial=trial, **variant.options)


def sample_games(variants: Sequence[GameVariant], meta: Mapping[str, Any],
                 trial: int = 0) -> list[SampleGame]:
    """Trial ``trial`` of every variant of a run, with its log (or why there is none).

    Parameters
    ----------
    variants : sequence of GameVariant
    meta : mapping
        The run's metadata.
    trial : int

    Returns
    -------
    list of SampleGame
    """
    refusal = engine_refusal(meta)
    games = []
    for variant in variants:
        if refusal:
            games.append(SampleGame(variant.label, trial, error=refusal))
            continue
        try:
            games.append(SampleGame(variant.label, trial, _play(variant, trial).text()))
        except ExploreSimError as error:
            games.append(SampleGame(variant.label, trial, error=str(error)))
    return games


def distribution_table(result: Any, metric: str, turn: int) -> Table:
    """The distribution of ``metric`` on ``turn`` of a simulate run, each value taken with a
    link to a game that took it.

    Parameters
    ----------
    result : SimulationResult
    metric : str
    turn : int

    Returns
    -------
    Table
        value, count, probability (se), 95% interval; ``links`` for the values taken.
    """
    rows = result.distribution(metric, turn)
    body = [[str(int(r.value)), f"{int(r.count):,}", f"{r.probability:.4f} ({r.se:.4f})",
             f"{r.ci_low:.4f} to {r.ci_high:.4f}"] for r in rows.itertuples()]
    links = tuple(urlencode({"metric": metric, "turn": turn, "value": int(r.value)})
                  if r.count else "" for r in rows.itertuples())
    return Table(f"distribution of {metric} on turn {turn}",
                 ["value", "games", "probability (se)", "95% interval"], body,
                 "probability of each value, with its standard error and 95% Wilson interval; "
                 "show me a game: the first trial of the run with that value (among its first "
                 f"{SEARCH_TRIALS:,}), played again", lead=distribution_answer(rows, metric, turn),
                 links=links)


def _whole(query: Mapping[str, str], name: str, low: int, high: int | None) -> int | None:
    """``query[name]`` as a whole number from ``low`` to ``high`` (None: not given)."""
    text = query.get(name, "").strip()
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        raise HTTPException(400, f"{name}: expected a whole number, got {clip(text)!r}") \
            from None
    if value < low or (high is not None and value > high):
        bound = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise HTTPException(400, f"{name}: expected a whole number {bound}, got {value}")
    return value


def _variant(outcome: Mapping[str, Any], query: Mapping[str, str]) -> tuple[int, GameVariant]:
    variants = outcome.get("variants")
    if not variants:
        raise HTTPException(400, "job: this run has no games to watch (simulate and compare "
                                 "runs have)")
    refusal = engine_refusal(outcome["result"].meta)
    if refusal:
        raise HTTPException(400, refusal)
    index = _whole(query, "variant", 0, len(variants) - 1) or 0
    return index, variants[index]


def _bucket_trial(variant: GameVariant, query: Mapping[str, str], turns: int) -> dict[str, Any]:
    """The first trial in the bucket the query names, or a one-line 404 when none of the
    trials looked at is in it."""
    metric = query.get("metric", "").strip()
    turn = _whole(query, "turn", 1, turns)
    value = _whole(query, "value", 0, None)
    if turn is None or value is None:
        raise HTTPException(400, "metric: a game of a bucket needs its metric, turn and value "
                                 "(/replay?job=ID&metric=M&turn=T&value=V)")
    try:
        with _REPLAY_LOCK:
            trial = find_trial(variant.deck, metric, turn, value, **variant.options)
    except ExploreSimError as error:
        raise HTTPException(400, f"metric: {error}") from None
    if trial is None:
        looked = min(SEARCH_TRIALS, variant.options["trials"])
        raise HTTPException(404, f"no game found: none of the first {looked:,} trials of "
                                 f"this run has {metric} {value} on turn {turn}")
    return {"trial": trial, "metric": metric, "turn": turn, "value": value}


def replay_view(outcome: Mapping[str, Any] | None, job_id: str,
                query: Mapping[str, str]) -> dict[str, Any]:
    """What ``/replay`` shows: one game of a finished run, chosen by trial or by bucket.

    Parameters
    ----------
    outcome : mapping or None
        The finished run's outcome (its ``result`` and ``variants``); None: no such run.
    job_id : str
    query : mapping
        The query string (``variant``, and ``trial`` or ``metric``, ``turn``, ``value``).

    Returns
    -------
    dict
        ``job``, ``label``, ``trial``, ``text`` (the log), ``bucket`` (metric, turn, value and
        the game's own value there; None when chosen by trial).

    Raises
    ------
    HTTPException
        400 or 404 with a one-line message naming the value.
    """
    unknown = sorted(set(query) - set(_KEYS))
    if unknown:
        raise HTTPException(400, f"{clip(unknown[0])}: not an option of /replay (it takes "
                                 f"{', '.join(_KEYS)})")
    if outcome is None:
        raise HTTPException(404, "job: this run is not kept any more (or never was), or has "
                                 "not finished: run it again from its permalink or the form")
    index, variant = _variant(outcome, query)
    trials = variant.options["trials"]
    bucket = None
    if query.get("metric", "").strip():
        bucket = _bucket_trial(variant, query, variant.options["turns"])
        trial = bucket["trial"]
    else:
        trial = _whole(query, "trial", 0, trials - 1) or 0
    try:
        game = _play(variant, trial)
    except ExploreSimError as error:
        raise HTTPException(400, f"trial: {error}") from None
    if bucket is not None:  # the game's own value, read from its replay
        bucket["seen"] = int(game.metrics.loc[bucket["turn"], bucket["metric"]])
    return {"job": job_id, "label": variant.label, "variant": index, "trial": trial,
            "trials": trials, "text": game.text(), "bucket": bucket}
