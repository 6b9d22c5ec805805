"""Whole goldfish games: :func:`simulate` one deck, :func:`compare` decks and policies.

Every chunk of trials draws its randomness from named streams of its own
``SeedSequence`` child (shuffles of each mulligan attempt, policy, removal, parley), so
variants compared on the same seed see the same shuffles (common random numbers): a paired
difference then has a much smaller standard error than two independent runs would give.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from os import PathLike
from typing import Any

import numpy as np
import pandas as pd

from ..cards import Card, normalize_name
from ..cards.decklist import Deck, load_deck
from ..engine.goldfish import (
    OPENING_METRICS,
    TURN_METRICS,
    GameConfig,
    GameState,
    Goldfish,
)
from ..engine.metrics import CASTABLE_PREFIX
from ..engine.mulligan import MulliganRule, as_mulligan_rule, deal_opening_hands
from ..engine.policies import Policy, as_policy, policy_name
from ..errors import OptionError
from .report import INTERVAL, deck_meta, render, versions
from .runner import CHUNK_TRIALS, check_trials, run_chunks, seed_sequence
from .stats import SUMMARY_COLUMNS, Accumulator

__all__ = ["simulate", "compare", "SimulationResult", "CompareResult", "play_games", "DEFAULT_COMPARE_METRICS"]

#: Metrics shown by default in people-readable tables.
DEFAULT_TABLE_METRICS = (
    "lands_played", "on_curve", "land_drop", "counters", "explores", "explore_lands",
    "milled", "maps_created", "maps_used", "mana_spent", "hand_size",
)
#: Metrics compared by default.
DEFAULT_COMPARE_METRICS = ("on_curve", "lands_played", "counters", "explores", "explore_lands",
                           "milled", "mana_spent", "cards_cast")

_STREAM_POLICY, _STREAM_REMOVAL, _STREAM_PARLEY, _STREAM_SHUFFLE, _STREAM_SEARCH = range(5)

ASSUMPTIONS = [
    "goldfish: no opponent; attacks are unblocked",
    "mana: colours, mana creatures (summoning sick the turn they enter), mana rocks, lands "
    "entering tapped and land faces follow the card data; a spell is cast when the untapped "
    "sources can pay it exactly (colours included), tapping the least flexible sources first",
    "land choice: a land that lets a spell in hand be cast, untapped when mana is used this "
    "turn, a missing colour, then the colour most demanded by the hand and the library; a "
    "spell // land card is played as a land only when no land card can be (land_faces)",
    "cast priority: explore and Map makers first, most expensive first; "
    "Jadelight Spelunker takes the mana left (X >= 1)",
    "Maps and Seeker of Sunlight are used with the mana left in the second main phase",
    "event metrics are cumulative from the start of the game; lands_played, on_curve, "
    "land_drop, creatures and hand_size describe the end of the turn",
]


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
) -> dict[int, dict[str, np.ndarray]]:
    """Play ``trials`` goldfish games; per-trial metrics by turn (0: the opening hand).

    Returns
    -------
    dict of int to dict of str to ndarray of shape (trials,)
    """
    features = deck.features()
    opening = deal_opening_hands(
        deck.card_ids(), features, trials, mulligan,
        lambda attempt: _stream(chunk_seed, _STREAM_SHUFFLE, attempt),
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


class _TurnStats:
    """One :class:`Accumulator` per turn (turn 0: the opening hand)."""

    def __init__(self, turns: int, paired_differences: bool = False,
                 metrics: dict[str, bool] | None = None) -> None:
        def accumulator(metrics: dict[str, bool]) -> Accumulator:
            if paired_differences:  # signed values: normal intervals, no histograms
                return Accumulator(dict.fromkeys(metrics, False), histograms=False)
            return Accumulator(metrics)

        self.by_turn = {0: accumulator(OPENING_METRICS)}
        for turn in range(1, turns + 1):
            self.by_turn[turn] = accumulator(metrics or TURN_METRICS)

    def add(self, values: dict[int, dict[str, np.ndarray]]) -> None:
        for turn, metrics in values.items():
            self.by_turn[turn].add(metrics)

    def merge(self, other: _TurnStats) -> None:
        for turn, acc in other.by_turn.items():
            self.by_turn[turn].merge(acc)

    @classmethod
    def of(cls, values: dict[int, dict[str, np.ndarray]], turns: int,
           paired_differences: bool = False, metrics: dict[str, bool] | None = None
           ) -> _TurnStats:
        stats = cls(turns, paired_differences, metrics)
        stats.add(values)
        return stats

    def summary(self, level: float = 0.95) -> pd.DataFrame:
        frames = []
        for turn, acc in self.by_turn.items():
            frame = acc.summary(level)
            frame.insert(0, "turn", turn)
            frames.append(frame)
        return pd.concat(frames, ignore_index=True)

    @property
    def n(self) -> int:
        return self.by_turn[0].n


def check_metrics(metrics: Iterable[str] | None, default: Sequence[str] = (),
                  label: str = "metrics", extra: Iterable[str] = ()) -> list[str]:
    """The metric names to show (``default`` when None); unknown names are an OptionError
    whose message starts with ``label``. ``extra``: more known names (``castable:CARD``)."""
    chosen = list(default if metrics is None else metrics)
    known = set(TURN_METRICS) | set(OPENING_METRICS) | set(extra)
    unknown = [m for m in chosen if m not in known]
    if unknown:
        raise OptionError(
            f"{label}: unknown {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )
    return chosen


@dataclasses.dataclass(frozen=True, eq=False)
class SimulationResult:
    """The outcome of :func:`simulate`: per-turn tidy statistics and full distributions."""

    meta: dict[str, Any]
    stats: _TurnStats

    def summary(self, level: float = 0.95) -> pd.DataFrame:
        """Tidy frame: ``turn, metric, mean, se, ci_low, ci_high`` (turn 0: opening hand)."""
        return self.stats.summary(level)

    def distribution(self, metric: str, turn: int, level: float = 0.95) -> pd.DataFrame:
        """Full distribution of a metric at the end of a turn."""
        if turn not in self.stats.by_turn:
            raise OptionError(f"turn must be between 0 and {len(self.stats.by_turn) - 1}")
        return self.stats.by_turn[turn].distribution(metric, level)

    def render(self, fmt: str = "table", metrics: Iterable[str] | None = None) -> str:
        rows = self.summary()
        if fmt != "table":
            if metrics is not None:
                rows = rows[rows["metric"].isin(check_metrics(metrics, extra=_extra(self.meta)))]
            return render(fmt, self.meta, rows.reset_index(drop=True), "")
        chosen = check_metrics(metrics, (*DEFAULT_TABLE_METRICS, *_extra(self.meta)),
                               extra=_extra(self.meta))
        return _turn_table(self.meta, rows, chosen, f"simulate: {self.meta['turns']} turns, "
                           f"{'on the play' if self.meta['on_play'] else 'on the draw'}")

    def __repr__(self) -> str:
        return f"SimulationResult(trials={self.stats.n}, turns={self.meta['turns']})"


def _turn_table(meta: dict, rows: pd.DataFrame, metrics: list[str], title: str) -> str:
    """Metrics down, turns across: ``mean (se)``."""
    shown = rows[rows["metric"].isin(metrics) & (rows["turn"] > 0)].copy()
    shown["cell"] = [f"{m:.3f} ({s:.3f})" for m, s in zip(shown["mean"], shown["se"])]
    table = shown.pivot(index="metric", columns="turn", values="cell")
    table = table.reindex([m for m in metrics if m in table.index])
    table.columns = [f"turn {t}" for t in table.columns]
    opening = rows[rows["turn"] == 0].set_index("metric")["mean"]
    lines = [title]
    for key in ("deck", "policy", "mulligan", "removal", "trials", "seed"):
        value = meta.get(key)
        if isinstance(value, dict):
            value = f"{value.get('name')} ({value.get('size')} cards, {value.get('lands')} lands)"
        lines.append(f"  {key}: {value}")
    lines.append(f"  mulligans per game: {opening.get('mulligans', float('nan')):.3f}")
    lines.append("")
    lines.append(table.rename_axis(None).to_string())
    lines.append("")
    lines.append("  cells: mean (standard error); see --format csv/json for intervals")
    return "\n".join(lines) + "\n"


def _extra(meta: dict[str, Any]) -> list[str]:
    """The ``castable:CARD`` metrics of a result."""
    return [CASTABLE_PREFIX + name for name in meta.get("castable", [])]


def _config_meta(config: GameConfig) -> dict[str, Any]:
    meta = {field.name: getattr(config, field.name) for field in dataclasses.fields(config)}
    meta["cast_order"] = list(config.cast_order)
    meta["castable"] = [card.name for card in config.castable]
    return meta


def _options(
    turns: int, on_play: bool, mulligan: str | MulliganRule | None, trials: int, removal: float,
    scry_policy: str | Policy | None, use_maps: bool, replacement_order: str,
    opponent_land_fraction: float, cast_order: Sequence[str], free_mulligan: bool,
    keep: Callable | None, castable: Sequence[str | Card] = (), land_faces: str = "when-needed",
    decks: Sequence[Deck] = (),
) -> tuple[GameConfig, MulliganRule, Policy | None, int]:
    config = GameConfig(
        turns=turns, on_play=bool(on_play), removal=removal, replacement_order=replacement_order,
        opponent_land_fraction=opponent_land_fraction, use_maps=bool(use_maps),
        cast_order=tuple(cast_order), land_faces=land_faces,
        castable=_castable_cards(castable, decks),
    )
    rule = as_mulligan_rule(mulligan, free_first=free_mulligan, keep=keep)
    scry = as_policy(scry_policy) if scry_policy is not None else None
    return config, rule, scry, check_trials(trials)


def _castable_cards(names: Sequence[str | Card] | str, decks: Sequence[Deck]) -> tuple[Card, ...]:
    """Cards named for ``castable``: looked up in the decks, then in the card sources."""
    if isinstance(names, (str, Card)):
        names = [names]
    cards: list[Card] = []
    for name in names:
        if isinstance(name, Card):
            card = name
        elif not isinstance(name, str) or not name.strip():
            raise OptionError(f"castable: expected card names, got {name!r}")
        else:
            card = next((c for d in decks for c in d.cards if normalize_name(c.name) == normalize_name(name)
                         or normalize_name(c.front_name) == normalize_name(name)), None)
            if card is None:
                from ..cards.index import card_sources

                sources = card_sources()
                card = sources.find(name)
                if card is None:
                    raise OptionError(f"castable: unknown card {name!r}{sources.suggestion_text(name)}")
        if card.is_land:
            raise OptionError(f"castable: {card.name!r} is a land; name a spell")
        if card not in cards:
            cards.append(card)
    return tuple(cards)


def simulate(
    deck: Deck | str | PathLike[str],
    turns: int = 6,
    on_play: bool = True,
    mulligan: str | MulliganRule | None = "london",
    policy: str | Policy = "forge",
    trials: int = 100_000,
    seed: Any = None,
    removal: float = 0.0,
    *,
    scry_policy: str | Policy | None = None,
    use_maps: bool = True,
    replacement_order: str = "tracker-first",
    opponent_land_fraction: float = 0.4,
    cast_order: Sequence[str] = (),
    free_mulligan: bool = False,
    keep: Callable | None = None,
    castable: Sequence[str | Card] = (),
    land_faces: str = "when-needed",
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
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
        Mulligan rule (:mod:`explore_sim.mulligan`); ``free_mulligan`` and ``keep`` refine it.
    policy : str or callable
        Keep-or-mill policy for explore.
    trials : int
        Games to play.
    seed : int, SeedSequence, Generator or None
    removal : float
        Probability that an explorer leaves the battlefield in response to its explore.
    scry_policy : str or callable, optional
        Twists and Turns' scry: True puts a nonland on the bottom (default: the keep-or-mill
        policy's decision).
    use_maps : bool
        Use Map tokens with spare mana (True) or never.
    replacement_order : {"tracker-first", "twists-first"}
        RULES.md R3.
    opponent_land_fraction : float
        Land share of the opponent's library for parley (Storm Fleet Negotiator).
    cast_order : sequence of str
        Cards to cast first, in this order.
    castable : sequence of str or Card
        Cards (in the deck or not) whose per-turn metric ``castable:NAME`` is taken: 1 where
        the sources in play after the turn's land drop, before any spell is cast, could pay
        the card's cost, colours included.
    land_faces : {"when-needed", "always", "never"}
        When a spell // land card is played as its land face (default: only when no land
        card can be played).
    progress : callable, optional
        ``progress(games done, games)`` after every chunk.
    workers : int
        Processes to run chunks in (0: every core); the numbers do not depend on it.

    Returns
    -------
    SimulationResult
        ``summary()`` has one row per turn and metric (:data:`explore_sim.goldfish.TURN_METRICS`
        plus the opening hand's ``mulligans``, ``hand_size`` and ``opening_lands`` at turn 0).
    """
    deck = deck if isinstance(deck, Deck) else load_deck(deck)
    config, rule, scry, trials = _options(
        turns, on_play, mulligan, trials, removal, scry_policy, use_maps, replacement_order,
        opponent_land_fraction, cast_order, free_mulligan, keep, castable, land_faces, [deck],
    )
    policy = as_policy(policy)
    Goldfish(deck.features(), config, policy, scry, {})  # validate cast_order up front
    seed_seq = seed_sequence(seed)
    stats = _TurnStats(config.turns, metrics=config.metric_names)
    run_chunks(
        lambda size, child: _TurnStats.of(
            play_games(deck, config, policy, rule, size, child, scry), config.turns,
            metrics=config.metric_names),
        stats.merge, trials, seed_seq, progress=progress, workers=workers,
    )
    meta = _meta("simulate", deck, config, rule, policy, scry, trials, seed_seq)
    return SimulationResult(meta=meta, stats=stats)


def _meta(command: str, deck: Deck | list, config: GameConfig, rule: MulliganRule,
          policy: Policy | list, scry: Policy | None, trials: int,
          seed_seq: np.random.SeedSequence) -> dict[str, Any]:
    return {
        "command": command,
        "deck": [deck_meta(d) for d in deck] if isinstance(deck, list) else deck_meta(deck),
        "policy": [policy_name(p) for p in policy] if isinstance(policy, list) else policy_name(policy),
        "scry_policy": policy_name(scry) if scry is not None else "same as policy",
        "mulligan": rule.name,
        **_config_meta(config),
        "trials": trials,
        "seed": seed_seq.entropy,
        "chunk_trials": CHUNK_TRIALS,
        "interval": INTERVAL,
        "assumptions": ASSUMPTIONS,
        "versions": versions(),
    }


@dataclasses.dataclass(frozen=True, eq=False)
class CompareResult:
    """The outcome of :func:`compare`: each variant, and paired differences to the first.

    Attributes
    ----------
    labels : list of str
        Variant names (the policy, the deck, or ``deck / policy`` when both vary); the first
        is the baseline.
    """

    meta: dict[str, Any]
    labels: list[str]
    variants: list[_TurnStats]
    differences: list[_TurnStats]

    def summary(self, level: float = 0.95) -> pd.DataFrame:
        """Tidy frame: ``variant, turn, metric, mean, se, ci_low, ci_high``."""
        frames = []
        for label, stats in zip(self.labels, self.variants):
            frame = stats.summary(level)
            frame.insert(0, "variant", label)
            frames.append(frame)
        return pd.concat(frames, ignore_index=True)

    def paired_differences(self, level: float = 0.95) -> pd.DataFrame:
        """Variant minus baseline on the same shuffles: ``variant, baseline, turn, metric,
        mean, se, ci_low, ci_high, se_unpaired``.

        ``se`` is the paired standard error (from per-game differences); ``se_unpaired`` is
        what two independent runs of the same size would give, sqrt(se_a^2 + se_b^2).
        """
        base = self.variants[0].summary(level).set_index(["turn", "metric"])
        frames = []
        for label, stats, diff in zip(self.labels[1:], self.variants[1:], self.differences):
            frame = diff.summary(level)
            other = stats.summary(level).set_index(["turn", "metric"])
            keys = list(zip(frame["turn"], frame["metric"]))
            frame["se_unpaired"] = [
                math.hypot(other.loc[key, "se"], base.loc[key, "se"]) for key in keys
            ]
            frame.insert(0, "baseline", self.labels[0])
            frame.insert(0, "variant", label)
            frames.append(frame)
        if not frames:
            return pd.DataFrame(columns=["variant", "baseline", "turn", *SUMMARY_COLUMNS, "se_unpaired"])
        return pd.concat(frames, ignore_index=True)

    def render(self, fmt: str = "table", metrics: Iterable[str] | None = None,
               turn: int | None = None) -> str:
        chosen = check_metrics(metrics, (*DEFAULT_COMPARE_METRICS, *_extra(self.meta)),
                               extra=_extra(self.meta))
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
            return json.dumps(payload, indent=2) + "\n"
        if fmt == "csv":
            both = pd.concat([variants.assign(baseline=""), diffs], ignore_index=True)
            columns = ["variant", "baseline", "turn", *SUMMARY_COLUMNS, "se_unpaired"]
            return render("csv", self.meta, both.reindex(columns=columns), "")
        return self._table(variants, diffs, chosen)

    def _table(self, variants: pd.DataFrame, diffs: pd.DataFrame, metrics: list[str]) -> str:
        last = int(variants["turn"].max())
        lines = [f"compare: {len(self.labels)} variants on the same shuffles, turn {last}",
                 f"  trials: {self.meta['trials']}  seed: {self.meta['seed']}  "
                 f"mulligan: {self.meta['mulligan']}", ""]
        at_last = variants[variants["turn"] == last]
        table = at_last.assign(cell=[f"{m:.3f} ({s:.3f})" for m, s in zip(at_last["mean"], at_last["se"])])
        wide = table.pivot(index="metric", columns="variant", values="cell")
        wide = wide.reindex(index=[m for m in metrics if m in wide.index], columns=self.labels)
        lines.append(wide.rename_axis(None).rename_axis(None, axis=1).to_string())
        d = diffs[diffs["turn"] == last]
        if len(d):
            lines.append("")
            lines.append(f"paired differences to {self.labels[0]!r}: mean (paired se) [unpaired se]")
            cells = d.assign(cell=[f"{m:+.4f} ({s:.4f}) [{u:.4f}]" for m, s, u in
                                   zip(d["mean"], d["se"], d["se_unpaired"])])
            wide = cells.pivot(index="metric", columns="variant", values="cell")
            wide = wide.reindex(index=[m for m in metrics if m in wide.index],
                                columns=self.labels[1:])
            lines.append(wide.rename_axis(None).rename_axis(None, axis=1).to_string())
        lines.append("")
        lines.append("  cells: mean (standard error); all variants play the same shuffles")
        return "\n".join(lines) + "\n"


def compare(
    decks: Deck | str | PathLike[str] | Sequence[Deck | str | PathLike[str]],
    policies: str | Policy | Sequence[str | Policy] = "forge",
    turns: int = 6,
    on_play: bool = True,
    mulligan: str | MulliganRule | None = "london",
    trials: int = 100_000,
    seed: Any = None,
    removal: float = 0.0,
    *,
    scry_policy: str | Policy | None = None,
    use_maps: bool = True,
    replacement_order: str = "tracker-first",
    opponent_land_fraction: float = 0.4,
    cast_order: Sequence[str] = (),
    free_mulligan: bool = False,
    keep: Callable | None = None,
    castable: Sequence[str | Card] = (),
    land_faces: str = "when-needed",
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
) -> CompareResult:
    """Play every deck x policy variant on the same shuffles and difference them.

    The first deck with the first policy is the baseline. Each chunk of games is played by
    every variant from the same random streams (common random numbers), and per-game
    differences to the baseline are accumulated, so their standard error reflects only the
    real difference between variants, not the luck of the shuffle. Options are those of
    :func:`simulate` (``progress`` and ``workers`` included).
    """
    if isinstance(decks, (Deck, str, PathLike)):
        decks = [decks]
    if isinstance(policies, str) or callable(policies):
        policies = [policies]
    decks = [d if isinstance(d, Deck) else load_deck(d) for d in decks]
    policies = [as_policy(p) for p in policies]
    if not decks or not policies:
        raise OptionError("compare needs at least one deck and one policy")
    config, rule, scry, trials = _options(
        turns, on_play, mulligan, trials, removal, scry_policy, use_maps, replacement_order,
        opponent_land_fraction, cast_order, free_mulligan, keep, castable, land_faces, decks,
    )
    variants = list(itertools.product(decks, policies))
    if len(variants) < 2:
        raise OptionError("compare needs at least two variants (decks x policies)")
    if len(decks) == 1:
        labels = [policy_name(policy) for _, policy in variants]
    elif len(policies) == 1:
        labels = [deck.name for deck, _ in variants]
    else:
        labels = [f"{deck.name} / {policy_name(policy)}" for deck, policy in variants]
    if len(set(labels)) != len(labels):
        labels = [f"{i + 1}: {label}" for i, label in enumerate(labels)]
    for deck, policy in variants:
        Goldfish(deck.features(), config, policy, scry, {})  # validate cast_order up front
    seed_seq = seed_sequence(seed)
    stats = [_TurnStats(config.turns, metrics=config.metric_names) for _ in variants]
    diffs = [_TurnStats(config.turns, paired_differences=True, metrics=config.metric_names)
             for _ in variants[1:]]

    def chunk(size: int, child: np.random.SeedSequence) -> list[_TurnStats]:
        results = [play_games(deck, config, policy, rule, size, child, scry)
                   for deck, policy in variants]
        base = results[0]
        differences = [
            _TurnStats.of({turn: {name: result[turn][name] - base[turn][name] for name in metrics}
                           for turn, metrics in result.items()}, config.turns, True,
                          config.metric_names)
            for result in results[1:]
        ]
        return [_TurnStats.of(result, config.turns, metrics=config.metric_names)
                for result in results] + differences

    def merge(chunk_stats: list[_TurnStats]) -> None:
        for total, part in zip(stats + diffs, chunk_stats):
            total.merge(part)

    run_chunks(chunk, merge, trials, seed_seq, progress=progress, workers=workers)
    meta = _meta("compare", [d for d in decks], config, rule, list(policies), scry, trials, seed_seq)
    meta["variants"] = labels
    return CompareResult(meta=meta, labels=labels, variants=stats, differences=diffs)
