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
from collections.abc import Callable, Iterable, Mapping, Sequence
from os import PathLike
from typing import Any

import numpy as np
import pandas as pd

from ..cards import Card, FeatureTable, normalize_name
from ..cards.decklist import Deck, load_deck
from ..engine.goldfish import (
    OPENING_METRICS,
    TURN_METRICS,
    GameConfig,
    GameState,
    Goldfish,
    is_commander_game,
)
from ..engine.metrics import CASTABLE_PREFIX
from ..engine.mulligan import MulliganRule, as_mulligan_rule, deal_opening_hands
from ..engine.policies import Policy, as_policies, one_policy, policy_name
from ..errors import OptionError, close_matches
from .report import (
    INTERVAL,
    deck_meta,
    html_repr,
    meta_text,
    ordered_categorical,
    render,
    short_repr,
    unique_labels,
    versions,
    with_meta,
)
from .runner import CHUNK_TRIALS, check_trials, run_chunks, seed_sequence
from .stats import SUMMARY_COLUMNS, Accumulator, PairedSums

__all__ = ["simulate", "compare", "SimulationResult", "CompareResult", "play_games", "play_paired",
           "check_metrics", "table_metrics", "check_distribution", "DEFAULT_COMPARE_METRICS",
           "SimulateTask", "CompareTask"]

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
    "turn (a fetch land counts as tapped), the one closing most of the remaining colour "
    "deficit of the spells in hand, the commander and the castable cards, then the colour "
    "with the largest remaining deficit and the library's; a spell // land card is played as "
    "a land only when no land card can be (land_faces)",
    "generic mana is paid with the colour the rest of the hand, then the library, needs "
    "least; ties between cards go to a mana source, then by name (never the decklist's "
    "order); mana creatures do not attack",
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
    card_ids: np.ndarray | None = None,
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

    Returns
    -------
    dict of int to dict of str to ndarray of shape (trials,)
    """
    features = deck.features()
    mulligan = game_mulligan(mulligan, config, features)
    opening = deal_opening_hands(
        deck.card_ids() if card_ids is None else card_ids, features, trials, mulligan,
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


def game_mulligan(rule: MulliganRule, config: GameConfig, features: FeatureTable) -> MulliganRule:
    """The mulligan rule of a game: in a Commander game the London mulligan's first mulligan is
    free (CR 103.5c).

    Parameters
    ----------
    rule : MulliganRule
    config : GameConfig
    features : FeatureTable

    Returns
    -------
    MulliganRule
    """
    if is_commander_game(config, features) and rule.kind == "london" and not rule.free_first:
        return dataclasses.replace(rule, free_first=True)
    return rule


def game_formats(decks: Sequence[Deck], config: GameConfig,
                 rule: MulliganRule) -> list[dict[str, Any]]:
    """What kind of game each deck plays, for result metadata.

    Parameters
    ----------
    decks : sequence of Deck
    config : GameConfig
    rule : MulliganRule

    Returns
    -------
    list of dict
        Per deck: ``game`` (normal or commander), ``commander``, ``library``,
        ``starting_life``, ``mulligan`` (the rule as played), ``first_draw_skipped_on_the_play``.
    """
    formats = []
    for deck in decks:
        features = deck.features()
        commander = is_commander_game(config, features)
        formats.append({
            "game": "commander" if commander else "normal",
            "commander": [card.name for card, _ in deck.commander] if commander else [],
            "library": deck.size,
            "starting_life": 40 if commander else 20,
            "mulligan": game_mulligan(rule, config, features).name,
            "first_draw_skipped_on_the_play": not commander,
        })
    return formats


class _TurnStats:
    """One :class:`Accumulator` per turn (turn 0: the opening hand)."""

    def __init__(self, turns: int, metrics: dict[str, bool] | None = None) -> None:
        self.by_turn = {0: Accumulator(OPENING_METRICS)}
        for turn in range(1, turns + 1):
            self.by_turn[turn] = Accumulator(metrics or TURN_METRICS)

    def add(self, values: dict[int, dict[str, np.ndarray]]) -> None:
        for turn, metrics in values.items():
            self.by_turn[turn].add(metrics)

    def merge(self, other: _TurnStats) -> None:
        for turn, acc in other.by_turn.items():
            self.by_turn[turn].merge(acc)

    @classmethod
    def from_turns(cls, accumulators: Sequence[Accumulator]) -> _TurnStats:
        stats = cls.__new__(cls)
        stats.by_turn = dict(enumerate(accumulators))
        return stats

    @classmethod
    def of(cls, values: dict[int, dict[str, np.ndarray]], turns: int,
           metrics: dict[str, bool] | None = None) -> _TurnStats:
        stats = cls(turns, metrics)
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
    """

    deck: Deck
    config: GameConfig
    policy: Policy
    rule: MulliganRule
    scry: Policy | None = None

    def __call__(self, trials: int, chunk_seed: np.random.SeedSequence) -> _TurnStats:
        """Play one chunk.

        Parameters
        ----------
        trials : int
        chunk_seed : numpy.random.SeedSequence

        Returns
        -------
        _TurnStats
            The chunk's exact sums by turn.
        """
        return _TurnStats.of(
            play_games(self.deck, self.config, self.policy, self.rule, trials, chunk_seed,
                       self.scry),
            self.config.turns, self.config.metric_names)


class _TurnPairs:
    """One :class:`PairedSums` per turn: products of every two variants' per-game metrics."""

    def __init__(self, turns: int, variants: int, metrics: dict[str, bool] | None = None) -> None:
        self.by_turn = {0: PairedSums(list(OPENING_METRICS), variants)}
        for turn in range(1, turns + 1):
            self.by_turn[turn] = PairedSums(list(metrics or TURN_METRICS), variants)

    def add(self, results: list[dict[int, dict[str, np.ndarray]]]) -> None:
        for turn, sums in self.by_turn.items():
            sums.add([result[turn] for result in results])

    def merge(self, other: _TurnPairs) -> None:
        for turn, sums in other.by_turn.items():
            self.by_turn[turn].merge(sums)

    def difference(self, base: _TurnStats, other: _TurnStats, base_index: int,
                   other_index: int, level: float) -> pd.DataFrame:
        frames = []
        for turn, sums in self.by_turn.items():
            frame = sums.difference(base.by_turn[turn], other.by_turn[turn], base_index,
                                    other_index, level)
            frame.insert(0, "turn", turn)
            frames.append(frame)
        return pd.concat(frames, ignore_index=True)


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
    """

    variants: tuple[tuple[Deck, Policy], ...]
    config: GameConfig
    rule: MulliganRule
    scry: Policy | None = None
    card_ids: tuple[np.ndarray | None, ...] | None = None

    def __call__(self, trials: int,
                 chunk_seed: np.random.SeedSequence) -> tuple[list[_TurnStats], _TurnPairs]:
        """Play one chunk with every variant.

        Parameters
        ----------
        trials : int
        chunk_seed : numpy.random.SeedSequence

        Returns
        -------
        (list of _TurnStats, _TurnPairs)
            Each variant's sums, and the sums of products of every two variants.
        """
        config = self.config
        card_ids = self.card_ids or (None,) * len(self.variants)
        results = [play_games(deck, config, policy, self.rule, trials, chunk_seed, self.scry, ids)
                   for (deck, policy), ids in zip(self.variants, card_ids)]
        pairs = _TurnPairs(config.turns, len(self.variants), config.metric_names)
        pairs.add(results)
        return ([_TurnStats.of(result, config.turns, config.metric_names) for result in results],
                pairs)


def check_metrics(metrics: Iterable[str] | None, default: Sequence[str] = (),
                  label: str = "metrics", extra: Iterable[str] = ()) -> list[str]:
    """The metric names to show.

    Parameters
    ----------
    metrics : iterable of str or None
        Metric names, or None for ``default``.
    default : sequence of str
    label : str
        Starts the error message (``"--metrics"`` on the command line).
    extra : iterable of str
        More known names (the ``castable:CARD`` metrics of a run).

    Returns
    -------
    list of str

    Raises
    ------
    OptionError
        Naming every unknown metric, with the closest known names.
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    chosen = list(default if metrics is None else metrics)
    known = [*TURN_METRICS, *(m for m in OPENING_METRICS if m not in TURN_METRICS), *extra]
    unknown = [m for m in chosen if m not in known]
    if unknown:
        described = []
        for name in unknown:
            close = close_matches(str(name), known)
            described.append(f"{name} (did you mean {close}?)" if close else str(name))
        raise OptionError(
            f"{label}: unknown {', '.join(described)}; known: {', '.join(sorted(known))}"
        )
    return chosen


def check_distribution(metric: str, turn: int, turns: int, extra: Iterable[str] = (),
                       label: str = "distribution") -> None:
    """Refuse a distribution that a run of ``turns`` turns does not record.

    Parameters
    ----------
    metric : str
        A per-turn metric (turns 1 to ``turns``) or an opening-hand metric (turn 0:
        ``mulligans``, ``hand_size``, ``opening_lands``).
    turn : int
        0 (the opening hand) to ``turns``.
    turns : int
        Turns played.
    extra : iterable of str
        More per-turn metrics of the run (``castable:CARD``).
    label : str
        Starts the error message (``"--distribution"`` on the command line).

    Raises
    ------
    OptionError
        An unknown metric (with the closest names), a turn out of range, or a metric that
        is not recorded at that turn.
    """
    extra = list(extra)
    check_metrics([metric], label=label, extra=extra)
    if isinstance(turn, bool) or not isinstance(turn, (int, np.integer)) \
            or not 0 <= turn <= turns:
        raise OptionError(f"{label}: turn must be between 0 (the opening hand) and {turns}, "
                          f"got {turn!r}")
    if turn == 0 and metric not in OPENING_METRICS:
        raise OptionError(f"{label}: {metric} is counted on turns 1 to {turns}; turn 0 (the "
                          f"opening hand) has {', '.join(OPENING_METRICS)}")
    if turn > 0 and metric not in TURN_METRICS and metric not in extra:
        raise OptionError(f"{label}: {metric} describes the opening hand: ask for turn 0")


def _cell_table(rows: pd.DataFrame, index: str, columns: str, order: Sequence[Any],
                metrics: Sequence[str], cell: str = "{:.3f} ({:.3f})") -> pd.DataFrame:
    """Metrics down, ``columns`` across: ``mean (se)`` cells, in ``metrics`` and ``order``."""
    shown = rows[rows["metric"].isin(metrics)]
    shown = shown.assign(cell=[cell.format(m, s) for m, s in zip(shown["mean"], shown["se"])])
    table = shown.pivot(index=index, columns=columns, values="cell")
    table = table.reindex(index=[m for m in metrics if m in table.index],
                          columns=[c for c in order if c in table.columns])
    return table.rename_axis(None).rename_axis(None, axis=1)


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class SimulationResult:
    """The outcome of :func:`simulate`: per-turn tidy statistics and full distributions.

    Attributes
    ----------
    meta : dict
        What was run and assumed (JSON-safe): ``command``, ``deck`` (a list of one deck
        record), ``policy`` (a list of one name), the game options, ``trials``, ``seed``,
        ``assumptions`` and ``versions``.
    stats : _TurnStats
        Exact sums and histograms of every metric, by turn.
    """

    meta: dict[str, Any]
    stats: _TurnStats

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
        return with_meta(self.stats.summary(level), self.meta)

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
        check_distribution(metric, turn, self.meta["turns"], _extra(self.meta))
        return with_meta(self.stats.by_turn[turn].distribution(metric, level), self.meta)

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
        if fmt != "table":
            if metrics is not None:
                rows = rows[rows["metric"].isin(check_metrics(metrics, extra=_extra(self.meta)))]
            return render(fmt, self.meta, rows.reset_index(drop=True), "")
        chosen = check_metrics(metrics, table_metrics(self.meta), extra=_extra(self.meta))
        return _turn_table(self.meta, rows, chosen, f"simulate: {self.meta['turns']} turns, "
                           f"{'on the play' if self.meta['on_play'] else 'on the draw'}")

    def _facts(self) -> dict[str, Any]:
        return {"deck": meta_text([d["name"] for d in self.meta["deck"]]),
                "policy": meta_text(self.meta["policy"]), "turns": self.meta["turns"],
                "on_play": self.meta["on_play"], "trials": self.meta["trials"],
                "seed": self.meta["seed"]}

    def __repr__(self) -> str:
        return short_repr("SimulationResult", self._facts())

    def _repr_html_(self) -> str:
        table = _cell_table(self.summary().query("turn > 0"), "metric", "turn",
                            range(1, self.meta["turns"] + 1), table_metrics(self.meta))
        table.columns = [f"turn {t}" for t in table.columns]
        facts = [", ".join(f"{k}: {v}" for k, v in self._facts().items()),
                 "cells: mean (standard error); summary() gives the tidy rows"]
        return html_repr("SimulationResult", facts, table, index=True)


def _turn_table(meta: dict, rows: pd.DataFrame, metrics: list[str], title: str) -> str:
    """Metrics down, turns across: ``mean (se)``."""
    turns = sorted(t for t in rows["turn"].unique() if t > 0)
    table = _cell_table(rows[rows["turn"] > 0], "metric", "turn", turns, metrics)
    table.columns = [f"turn {t}" for t in table.columns]
    opening = rows[rows["turn"] == 0].set_index("metric")["mean"]
    lines = [title]
    for key in ("deck", "policy", "mulligan", "removal", "trials", "seed"):
        lines.append(f"  {key}: {meta_text(meta.get(key))}")
    lines.append(f"  mulligans per game: {opening.get('mulligans', float('nan')):.3f}")
    lines.append("")
    lines.append(table.to_string())
    lines.append("")
    lines.append("  cells: mean (standard error); see --format csv/json for intervals")
    return "\n".join(lines) + "\n"


def _extra(meta: dict[str, Any]) -> list[str]:
    """The ``castable:CARD`` metrics of a result."""
    return [CASTABLE_PREFIX + name for name in meta.get("castable", [])]


def table_metrics(meta: dict[str, Any]) -> list[str]:
    """The metrics a simulation's table shows by default: :data:`DEFAULT_TABLE_METRICS`,
    ``commander_cast`` in Commander games, and the ``castable:CARD`` metrics asked for.

    Parameters
    ----------
    meta : dict
        A :class:`SimulationResult`'s metadata.

    Returns
    -------
    list of str
    """
    commander = any(f.get("game") == "commander" for f in meta.get("formats", []))
    return [*DEFAULT_TABLE_METRICS, *(["commander_cast"] if commander else []), *_extra(meta)]


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
    decks: Sequence[Deck] = (), game: str = "auto",
) -> tuple[GameConfig, MulliganRule, Policy | None, int]:
    config = GameConfig(
        turns=turns, on_play=bool(on_play), removal=removal, replacement_order=replacement_order,
        opponent_land_fraction=opponent_land_fraction, use_maps=bool(use_maps),
        cast_order=tuple(cast_order), land_faces=land_faces,
        castable=_castable_cards(castable, decks), game=game,
    )
    rule = as_mulligan_rule(mulligan, free_first=free_mulligan, keep=keep)
    scry = one_policy(scry_policy, "scry_policy") if scry_policy is not None else None
    return config, rule, scry, check_trials(trials)


#: The game options of :func:`simulate` and :func:`compare`, with their defaults (what
#: :func:`explore_sim.sweep` accepts as ``**options``).
GAME_OPTIONS: dict[str, Any] = {
    "turns": 6, "on_play": True, "mulligan": "london", "removal": 0.0, "scry_policy": None,
    "use_maps": True, "replacement_order": "tracker-first", "opponent_land_fraction": 0.4,
    "cast_order": (), "free_mulligan": False, "keep": None, "castable": (),
    "land_faces": "when-needed", "game": "auto",
}


def _game_setup(decks: Sequence[Deck], trials: int, options: Mapping[str, Any]
                ) -> tuple[GameConfig, MulliganRule, Policy | None, int]:
    """:func:`_options` from keyword options (unknown names are a TypeError, as in a call)."""
    unknown = sorted(set(options) - set(GAME_OPTIONS))
    if unknown:
        close = close_matches(unknown[0], GAME_OPTIONS)
        hint = f" (did you mean {close}?)" if close else ""
        raise TypeError(f"unexpected option {unknown[0]!r}{hint}; game options: "
                        f"{', '.join(GAME_OPTIONS)}")
    o = {**GAME_OPTIONS, **options}
    return _options(o["turns"], o["on_play"], o["mulligan"], trials, o["removal"],
                    o["scry_policy"], o["use_maps"], o["replacement_order"],
                    o["opponent_land_fraction"], o["cast_order"], o["free_mulligan"], o["keep"],
                    o["castable"], o["land_faces"], decks, o["game"])


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
    policy: str | Policy | Mapping[str, str | Policy] = "forge",
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
    game: str = "auto",
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
    scheduler: Any = None,
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
    scry_policy : str or callable, optional
        Twists and Turns' scry: True puts a nonland on the bottom (default: the keep-or-mill
        policy's decision).
    use_maps : bool
        Use Map tokens with spare mana (True) or never.
    replacement_order : {"tracker-first", "twists-first"}
        Topography Tracker and Twists and Turns: which replacement applies first.
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
    game : {"auto", "normal", "commander"}
        A Commander game (the commander cast from the command zone with tax, 40 life, the
        first mulligan free, no skipped first draw); ``auto``: when the deck has a
        commander.
    free_mulligan : bool
        The first mulligan is free.
    keep : callable, optional
        Replaces the mulligan rule's keep test.
    progress : callable, optional
        ``progress(games done, games)`` after every chunk.
    workers : int
        Local processes to run chunks in (0: every core); the numbers do not depend on it.
    scheduler : str, distributed.Client or Executor, optional
        Run the chunks on a Dask cluster instead: its scheduler's address
        (``tcp://HOST:PORT``) or a client (:mod:`explore_sim.analysis.executors`); the
        numbers do not depend on it either.

    Returns
    -------
    SimulationResult
        ``summary()`` has one row per turn and metric
        (:data:`explore_sim.engine.goldfish.TURN_METRICS` plus the opening hand's
        ``mulligans``, ``hand_size`` and ``opening_lands`` at turn 0).
    """
    deck = deck if isinstance(deck, Deck) else load_deck(deck)
    config, rule, scry, trials = _options(
        turns, on_play, mulligan, trials, removal, scry_policy, use_maps, replacement_order,
        opponent_land_fraction, cast_order, free_mulligan, keep, castable, land_faces, [deck],
        game,
    )
    policy = one_policy(policy, "simulate")
    Goldfish(deck.features(), config, policy, scry, {})  # validate cast_order up front
    seed_seq = seed_sequence(seed)
    stats = _TurnStats(config.turns, config.metric_names)
    run_chunks(SimulateTask(deck, config, policy, rule, scry), stats.merge, trials, seed_seq,
               progress=progress, workers=workers, scheduler=scheduler)
    meta = _meta("simulate", [deck], config, rule, [policy], scry, trials, seed_seq)
    return SimulationResult(meta=meta, stats=stats)


def _meta(command: str, decks: list[Deck], config: GameConfig, rule: MulliganRule,
          policies: list[Policy], scry: Policy | None, trials: int,
          seed_seq: np.random.SeedSequence) -> dict[str, Any]:
    formats = game_formats(decks, config, rule)
    played = {f["mulligan"] for f in formats}  # a Commander game's first mulligan is free
    return {
        "command": command,
        "deck": [deck_meta(d) for d in decks],
        "policy": [policy_name(p) for p in policies],
        "scry_policy": policy_name(scry) if scry is not None else "same as policy",
        "mulligan": played.pop() if len(played) == 1 else f"{rule.name} (per deck: see formats)",
        "formats": formats,
        **_config_meta(config),
        "trials": trials,
        "seed": seed_seq.entropy,
        "chunk_trials": CHUNK_TRIALS,
        "interval": INTERVAL,
        "assumptions": ASSUMPTIONS,
        "versions": versions(),
    }


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
) -> tuple[list[_TurnStats], _TurnPairs]:
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

    Returns
    -------
    (list of _TurnStats, _TurnPairs)
        Each variant's exact sums and histograms by turn, and the sums of products of every
        two variants' per-game metrics (for :class:`CompareResult`).
    """
    card_ids = list(card_ids) if card_ids is not None else [None] * len(variants)
    if len(card_ids) != len(variants):
        raise ValueError("card_ids needs one entry per variant")
    for deck, policy in variants:
        Goldfish(deck.features(), config, policy, scry, {})  # validate cast_order up front
    stats = [_TurnStats(config.turns, config.metric_names) for _ in variants]
    pairs = _TurnPairs(config.turns, len(variants), config.metric_names)

    def merge(part: tuple[list[_TurnStats], _TurnPairs]) -> None:
        for total, chunk_stats in zip(stats, part[0]):
            total.merge(chunk_stats)
        pairs.merge(part[1])

    task = CompareTask(tuple(variants), config, rule, scry, tuple(card_ids))
    run_chunks(task, merge, trials, seed_seq, progress=progress, workers=workers,
               scheduler=scheduler)
    return stats, pairs


def _first(items: list[str], first: str) -> list[str]:
    return [first, *(x for x in items if x != first)]


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class CompareResult:
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
    variants: list[_TurnStats]
    pairs: _TurnPairs

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
        return with_meta(frame, self.meta)

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
        frame.insert(1, "deck", ordered_categorical([variables[v][0] for v in variant], decks))
        frame.insert(2, "policy", ordered_categorical([variables[v][1] for v in variant], policies))

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

    def _difference(self, index: int, base: int, level: float) -> pd.DataFrame:
        frame = self.pairs.difference(self.variants[base], self.variants[index], base, index,
                                      level)
        base_se = self.variants[base].summary(level).set_index(["turn", "metric"])["se"]
        other_se = self.variants[index].summary(level).set_index(["turn", "metric"])["se"]
        keys = list(zip(frame["turn"], frame["metric"]))
        frame["se_unpaired"] = [math.hypot(other_se[key], base_se[key]) for key in keys]
        frame.insert(0, "baseline", self.labels[base])
        frame.insert(0, "variant", self.labels[index])
        return frame

    def _baseline(self, baseline: Any, by: str | None) -> tuple[int | None, int | None]:
        """``(deck index or None, policy index or None)``: None varies with the variant."""
        if by not in (None, "deck", "policy"):
            raise OptionError(f"by must be 'deck', 'policy' or None, got {by!r}")
        if baseline is None:
            return {None: (0, 0), "deck": (None, 0), "policy": (0, None)}[by]
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

    def _deck_index(self, deck: str | int) -> int:
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
               turn: int | None = None) -> str:
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

        Returns
        -------
        str
        """
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
            columns = ["variant", "deck", "policy", "baseline", "turn", *SUMMARY_COLUMNS,
                       "se_unpaired"]
            return render("csv", self.meta, both.reindex(columns=columns), "")
        return self._table(variants, diffs, chosen)

    def _table(self, variants: pd.DataFrame, diffs: pd.DataFrame, metrics: list[str]) -> str:
        last = int(variants["turn"].max())
        lines = [f"compare: {len(self.labels)} variants on the same shuffles, turn {last}",
                 f"  trials: {self.meta['trials']}  seed: {self.meta['seed']}  "
                 f"mulligan: {self.meta['mulligan']}", ""]
        at_last = variants[variants["turn"] == last]
        lines.append(_cell_table(at_last, "metric", "variant", self.labels, metrics).to_string())
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

    def _facts(self) -> dict[str, Any]:
        return {"decks": self.decks, "policies": self.policies, "turns": self.meta["turns"],
                "trials": self.meta["trials"], "seed": self.meta["seed"]}

    def __repr__(self) -> str:
        return short_repr("CompareResult", self._facts())

    def _repr_html_(self) -> str:
        rows = self.summary()
        last = self.meta["turns"]
        table = _cell_table(rows[rows["turn"] == last], "metric", "variant", self.labels,
                            DEFAULT_COMPARE_METRICS)
        facts = [f"decks: {'; '.join(self.decks)}", f"policies: {'; '.join(self.policies)}",
                 f"turns: {last}, trials: {self.meta['trials']}, seed: {self.meta['seed']}",
                 f"cells: mean (standard error) at turn {last}; summary() and "
                 "paired_differences() give the tidy rows"]
        return html_repr("CompareResult", facts, table, index=True)


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
    scry_policy: str | Policy | None = None,
    use_maps: bool = True,
    replacement_order: str = "tracker-first",
    opponent_land_fraction: float = 0.4,
    cast_order: Sequence[str] = (),
    free_mulligan: bool = False,
    keep: Callable | None = None,
    castable: Sequence[str | Card] = (),
    land_faces: str = "when-needed",
    game: str = "auto",
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
    scheduler: Any = None,
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
        As for :func:`simulate`.
    scry_policy, use_maps, replacement_order, opponent_land_fraction, cast_order
        As for :func:`simulate`.
    free_mulligan, keep, castable, land_faces, game, progress, workers, scheduler
        As for :func:`simulate`.

    Returns
    -------
    CompareResult
        ``summary()`` per variant, ``paired_differences()`` against a baseline of choice.

    Raises
    ------
    OptionError
        Fewer than two variants, or a bad option.
    PolicyError
        A policy that cannot be built.
    """
    if isinstance(decks, (Deck, str, PathLike)):
        decks = [decks]
    decks = [d if isinstance(d, Deck) else load_deck(d) for d in decks]
    policies = as_policies(policies)
    if not decks:
        raise OptionError("compare needs at least one deck and one policy")
    config, rule, scry, trials = _options(
        turns, on_play, mulligan, trials, removal, scry_policy, use_maps, replacement_order,
        opponent_land_fraction, cast_order, free_mulligan, keep, castable, land_faces, decks,
        game,
    )
    variants = list(itertools.product(decks, policies))
    if len(variants) < 2:
        raise OptionError("compare needs at least two variants (decks x policies)")
    deck_labels = unique_labels([deck.name for deck in decks])
    policy_labels = unique_labels([policy_name(policy) for policy in policies])
    if len(decks) == 1:
        labels = list(policy_labels)
    elif len(policies) == 1:
        labels = list(deck_labels)
    else:
        labels = unique_labels([f"{d} / {p}" for d in deck_labels for p in policy_labels])
    seed_seq = seed_sequence(seed)
    stats, pairs = play_paired(variants, config, rule, scry, trials, seed_seq,
                               progress=progress, workers=workers, scheduler=scheduler)
    meta = _meta("compare", decks, config, rule, policies, scry, trials, seed_seq)
    meta["variants"] = labels
    return CompareResult(meta=meta, decks=deck_labels, policies=policy_labels, labels=labels,
                         variants=stats, pairs=pairs)
