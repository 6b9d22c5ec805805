"""Casting on curve: :func:`curve` and its :class:`CurveResult`.

For every nonland card of a deck, the probability that the sources in play after the land
drop of the card's turn (its mana value, at least 1) can pay its cost (the metric
``castable:CARD``), and the same given at least mana-value lands in play then (Frank
Karsten's criterion: a missed land drop is not a colour failure), beside the deck's
coloured sources and the number Karsten's 2022 table recommends
(:mod:`explore_sim.cards.karsten`). The games are :func:`~explore_sim.simulate`'s, with
``castable_lands`` on: the engines also take ``main_lands`` and ``castable_lands:CARD``,
whose histograms give the joint probabilities exactly (docs/guide/curve.md).

Each card is judged in games whose land drops play toward it, as a player holding it would:
one run per group of cards with the same coloured pips (:func:`curve_runs`), all on the same
seed, so every run deals the same libraries. With several wanted cards at once the land
choice closes the most total deficit, which need not be best for each card (a Forest for
the one-drop {G} can lose to an Island wanted by two blue cards).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from os import PathLike
from typing import Any

import numpy as np
import pandas as pd

from ..cards.card import Card, mana_value_of
from ..cards.decklist import Deck, load_deck
from ..cards.karsten import (
    KARSTEN_SOURCE,
    coloured_sources,
    cost_colours,
    karsten_column,
    karsten_column_text,
    karsten_row,
    karsten_sources,
)
from ..engine.metrics import CASTABLE_LANDS_PREFIX, CASTABLE_PREFIX, MAIN_LANDS
from ..engine.mulligan import MulliganRule
from ..engine.policies import Policy
from ..errors import OptionError
from ..progress import callback, shows_progress
from .game_setup import game_setup, with_game_options
from .games import TurnStats
from .report import engine_text, meta_text, start_text
from .results import Result
from .run_costs import Cost, check_cost
from .runner import check_trials
from .simulate import play_deck
from .stats import wilson_interval

__all__ = ["curve", "CurveResult", "CURVE_COLUMNS", "MAX_CURVE_TURNS", "curve_mana_value",
           "curve_cards", "curve_runs", "curve_turns", "sources_column"]

#: The most turns :func:`curve` plays when ``turns`` is not given (a card of mana value 11
#: is then judged on turn 10).
MAX_CURVE_TURNS = 10
#: The columns of :meth:`CurveResult.summary`, in order.
CURVE_COLUMNS = ("card", "copies", "mana_value", "cost", "turn", "probability", "se",
                 "ci_low", "ci_high", "lands_probability", "given_lands", "given_lands_se",
                 "given_lands_ci_low", "given_lands_ci_high", "colours", "karsten_row",
                 "sources", "karsten", "short")


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class CurveResult(Result):
    """The outcome of :func:`curve`: each nonland card's chance of being castable on curve.

    Attributes
    ----------
    meta : dict
        What was run and assumed (JSON-safe), as :func:`~explore_sim.simulate` records it
        (``command`` is ``curve``; ``castable`` names every nonland card; ``trials`` are
        each run's), with ``curve_runs`` (the runs played), ``karsten_column`` (the deck
        size whose recommendations are read) and ``karsten_source``.
    stats : dict of str to TurnStats
        Each card's run (:func:`curve_runs`): exact sums and histograms of every metric, by
        turn; the cards of one run share it.
    cards : tuple of (Card, int)
        The cards judged (:func:`curve_cards`: the commander, then the main deck's nonland
        cards) and their copies.
    sources : dict of str to int
        The deck's cards that can make each colour of ``WUBRG``.
    turn_sources : dict of int to dict of str to int
        The same for casting a card on each turn played
        (:func:`~explore_sim.cards.karsten.coloured_sources` of that turn: a mana creature
        or rock counts from the turn after its mana value); the rows read these.
    """

    meta: dict[str, Any]
    stats: dict[str, TurnStats]
    cards: tuple[tuple[Card, int], ...]
    sources: dict[str, int]
    turn_sources: dict[int, dict[str, int]] = dataclasses.field(default_factory=dict)

    def _rows(self, level: float) -> pd.DataFrame:
        """One row per card: :data:`CURVE_COLUMNS`."""
        rows = []
        for card, copies in self.cards:
            turn = min(max(curve_mana_value(card), 1), self.meta["turns"])
            rows.append({"card": card.name, "copies": copies,
                         "mana_value": curve_mana_value(card),
                         "cost": _cost_text(card), "turn": turn,
                         **_probabilities(self.stats[card.name], card, turn, level),
                         **_colour_columns(card, self.turn_sources.get(turn, self.sources),
                                           self.meta["deck"][0]["size"])})
        return pd.DataFrame(rows, columns=list(CURVE_COLUMNS))

    def _table(self, rows: pd.DataFrame) -> str:
        meta = self.meta
        play = start_text(meta)
        lines = [f"curve: each nonland card on its turn (mana value, at least 1), {play}"]
        for key in ("deck", "policy", "mulligan", "trials", "seed"):
            lines.append(f"  {key}: {meta_text(meta.get(key))}")
        lines.append(f"  engine: {engine_text(meta)}")
        lines.append(f"  sources recommended: Karsten 2022, {sources_column(meta)}")
        lines.append("")
        shown = pd.DataFrame({
            "card": rows["card"], "n": rows["copies"], "cost": rows["cost"],
            "Karsten row": [row or "-" for row in rows["karsten_row"]],
            "turn": rows["turn"],
            "castable": [_cell(p, se) for p, se in zip(rows["probability"], rows["se"])],
            "given lands": [_cell(p, se) for p, se in zip(rows["given_lands"],
                                                           rows["given_lands_se"])],
            "sources (Karsten)": [_sources_cell(r) for r in rows.itertuples()],
        })
        lines.append(shown.to_string(index=False))
        lines.append("")
        lines.append("  cells: probability (standard error); given lands: castable given at "
                     "least mana-value lands in play; Karsten row: the row of Karsten's table "
                     "each colour of the cost reads (+1: a gold card's extra source); * short "
                     "of Karsten's number")
        return "\n".join(lines) + "\n"

    def _facts(self) -> dict[str, Any]:
        return {"deck": meta_text([d["name"] for d in self.meta["deck"]]),
                "cards": len(self.cards), "on_play": self.meta["on_play"],
                "trials": self.meta["trials"], "seed": self.meta["seed"]}

    def _html(self) -> tuple[list[str], pd.DataFrame, bool]:
        table = self.summary()[["card", "copies", "cost", "turn", "probability", "se",
                                "given_lands", "given_lands_se", "sources", "karsten",
                                "short"]]
        return [self._facts_line(), "summary() gives every column"], table, False


def _probabilities(stats: TurnStats, card: Card, turn: int, level: float) -> dict[str, float]:
    """``castable:CARD`` on ``turn``, and given ``main_lands >= mana value``.

    P(castable and lands >= k) is the share of ``castable_lands:CARD >= k`` (k >= 1; for
    k = 0 every castable trial), P(lands >= k) that of ``main_lands >= k``; their ratio is
    the share of the trials with lands >= k that can cast, whose binomial standard error is
    what the delta method gives for the ratio (the joint event lies inside the condition).
    """
    acc = stats.by_turn[turn]
    n, k = acc.n, curve_mana_value(card)
    castable = acc.total[CASTABLE_PREFIX + card.name]
    joint = int(acc.histogram[CASTABLE_LANDS_PREFIX + card.name][k:].sum()) if k else castable
    lands = int(acc.histogram[MAIN_LANDS][k:].sum())
    p = castable / n
    low, high = wilson_interval(castable, n, level)
    out = {"probability": p, "se": math.sqrt(p * (1 - p) / n), "ci_low": low, "ci_high": high,
           "lands_probability": lands / n}
    if lands == 0:
        given = dict.fromkeys(("given_lands", "given_lands_se", "given_lands_ci_low",
                               "given_lands_ci_high"), float("nan"))
    else:
        q = joint / lands
        q_low, q_high = wilson_interval(joint, lands, level)
        given = {"given_lands": q, "given_lands_se": math.sqrt(q * (1 - q) / lands),
                 "given_lands_ci_low": q_low, "given_lands_ci_high": q_high}
    return {**out, **given}


def _colour_columns(card: Card, sources: Mapping[str, int], deck_size: int) -> dict[str, str]:
    """``colours``, ``karsten_row``, ``sources``, ``karsten`` and ``short`` of a card (text,
    one entry per colour of its first cost mode: ``"G 17, U 9"``, ``"G 2CC"``)."""
    mode = card.cost_modes[0]
    colours = cost_colours(mode)
    have = {c: sources[c] for c in colours}
    want = {c: karsten_sources(mode, c, deck_size) for c in colours}
    return {"colours": colours,
            "karsten_row": ", ".join(f"{c} {karsten_row(mode, c)}" for c in colours),
            "sources": ", ".join(f"{c} {have[c]}" for c in colours),
            "karsten": ", ".join(f"{c} {want[c]}" for c in colours),
            "short": "".join(c for c in colours if have[c] < want[c])}


def _cost_text(card: Card) -> str:
    """The cost as cast from hand (a spell // land card's front face)."""
    faces = [face.strip() for face in card.mana_cost.split("//")]
    faces = faces[:1] if card.land_face is not None else faces
    return " // ".join(face for face in faces if face) or "{0}"


def _cell(p: float, se: float) -> str:
    return "-" if np.isnan(p) else f"{p:.3f} ({se:.3f})"


def _sources_cell(row: Any) -> str:
    if not row.colours:
        return "-"
    have = dict(part.split(" ") for part in row.sources.split(", "))
    want = dict(part.split(" ") for part in row.karsten.split(", "))
    return ", ".join(f"{c} {have[c]} ({want[c]}){'*' if c in row.short else ''}"
                     for c in row.colours)


def curve_mana_value(card: Card) -> int:
    """The mana value a card is cast on curve at: its mana value, but a split card's cheaper
    half (Find // Finality is a two-drop: on the stack a split card's mana value is the half
    cast's)."""
    if card.layout != "split":
        assert card.mana_value is not None  # Card sets it from the cost when not given
        return card.mana_value
    return min(mana_value_of(half.strip()) for half in card.mana_cost.split("//"))


def curve_turns(deck: Deck, turns: int | None = None) -> int:
    """The turns :func:`curve` plays for ``deck``: ``turns`` when given, else the largest
    on-curve mana value of its nonland cards (:func:`curve_mana_value`), at least 1 and at
    most :data:`MAX_CURVE_TURNS`.

    Parameters
    ----------
    deck : Deck
    turns : int, optional
        The turns asked for (checked by the option schema: 1-50).

    Returns
    -------
    int
    """
    if turns is not None:
        return turns
    values = [curve_mana_value(card) for card, _ in curve_cards(deck)]
    return min(max([*values, 1]), MAX_CURVE_TURNS)


def sources_column(meta: Mapping[str, Any]) -> str:
    """The column of Karsten's table a curve's recommendations come from, as its header says
    it (``"60-card column"``, and for a deck of another size the deck's size).

    Parameters
    ----------
    meta : mapping
        A curve's metadata (:attr:`CurveResult.meta`).

    Returns
    -------
    str
    """
    return karsten_column_text(meta["deck"][0]["size"])


@with_game_options(positional=("turns", "on_play", "mulligan", "removal"))
@shows_progress("curve")
def curve(
    deck: Deck | str | PathLike[str],
    turns: int | None = None,
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
) -> CurveResult:
    """For every nonland card of a deck (and its commander), the probability that it is
    castable on curve.

    Parameters
    ----------
    deck : Deck, path or decklist text
    turns : int, optional
        Turns to play (1-50); a card is judged on turn ``max(mana value, 1)``, at most
        ``turns``. Default: the largest mana value of the deck's nonland cards, at least 1
        and at most :data:`MAX_CURVE_TURNS`.
    on_play : bool
        On the play (no draw on turn 1) or on the draw.
    mulligan : {"london", "london-free", "none"} or MulliganRule
        Mulligan rule (:mod:`explore_sim.engine.mulligan`).
    policy : str, callable or dict
        Keep-or-mill policy for explore, as :func:`~explore_sim.simulate` takes it.
    trials : int
        Games to play.
    seed : int, SeedSequence, Generator or None
        None draws fresh entropy, recorded in ``meta["seed"]``.
    removal : float
        Probability that an explorer leaves the battlefield in response to its explore.
    {game_options}
    progress : callable, False or None
        ``progress(games done, games)`` after every chunk, over every run's games; a
        :class:`~explore_sim.analysis.runner.StopRun` it raises propagates (curve is judged
        from runs of the same seed, none of them complete when stopped).
        None (the default) shows a progress display from a second on, in a terminal or
        a notebook (:func:`~explore_sim.progress.shows_progress`); False, none.
    workers : int
        Local processes to run chunks in (0: every core); the numbers do not depend on it.
    scheduler : str, distributed.Client or Executor, optional
        Run the chunks on a Dask cluster (as :func:`~explore_sim.simulate`).
    **options
        The other game options (keyword-only, listed above), except ``castable``: every
        nonland card is, each in its own run (:func:`curve_runs`: ``trials`` games each).

    Returns
    -------
    CurveResult
        ``summary()`` has one row per card of :func:`curve_cards` (:data:`CURVE_COLUMNS`).

    Raises
    ------
    OptionError
        A bad option, ``castable`` given, a deck without a nonland card, or a run over the
        cost caps of :mod:`.run_costs` (a run per group of cards).
    """
    deck = deck if isinstance(deck, Deck) else load_deck(deck)
    if options.get("castable"):
        raise OptionError("curve: castable is not an option of curve (every nonland card of "
                          "the deck is taken)")
    cards = curve_cards(deck)
    if not cards:
        raise OptionError(f"curve: the deck {deck.name!r} has no nonland card")
    turns = curve_turns(deck, turns)
    groups = curve_runs(deck)
    check_cost(Cost(check_trials(trials), len(groups), 1, turns))
    stats: dict[str, TurnStats] = {}
    for index, group in enumerate(groups):
        setup = game_setup([deck], trials, dict(
            options, turns=turns, on_play=on_play, mulligan=mulligan, removal=removal,
            castable=list(group)))
        setup = dataclasses.replace(setup, config=dataclasses.replace(setup.config,
                                                                      castable_lands=True))
        meta, run = play_deck("curve", deck, setup, policy, seed,
                              progress=_run_progress(callback(progress), index, len(groups)),
                              workers=workers, scheduler=scheduler)
        stats.update((card.name, run) for card in group)
    meta["castable"] = [card.name for card, _ in cards]
    meta["curve_runs"] = len(groups)
    meta["karsten_column"] = karsten_column(deck.size)
    meta["karsten_source"] = KARSTEN_SOURCE
    return CurveResult(meta=meta, stats=stats, cards=cards, sources=coloured_sources(deck),
                       turn_sources={t: coloured_sources(deck, t) for t in range(1, turns + 1)})


def curve_runs(deck: Deck) -> list[tuple[Card, ...]]:
    """The runs :func:`curve` plays for ``deck``: its nonland cards grouped by the coloured
    pips of their costs, in the deck's order.

    The land choice plays toward the colour deficits of the cards it wants
    (docs/mana.md, "Which land to play"), and a cost's generic part does not enter them, so
    the cards of one group are played toward together, each exactly as if it were the only
    card wanted; cards without a coloured pip share one run.

    Parameters
    ----------
    deck : Deck

    Returns
    -------
    list of tuple of Card
        One tuple per run, each card once.
    """
    groups: dict[tuple, list[Card]] = {}
    for card, _ in curve_cards(deck):
        pips = tuple(tuple(sorted(pip for pip in mode.pips if pip)) for mode in card.cost_modes)
        groups.setdefault(pips if any(pips) else (), []).append(card)
    return [tuple(group) for group in groups.values()]


def curve_cards(deck: Deck) -> tuple[tuple[Card, int], ...]:
    """The cards :func:`curve` judges: the commander (cast from the command zone, its first
    cast untaxed), then every nonland card of the main deck, with their copies.

    Parameters
    ----------
    deck : Deck

    Returns
    -------
    tuple of (Card, int)
    """
    commanders = tuple((card, n) for card, n in deck.commander if not card.is_land)
    return commanders + tuple((card, n) for card, n in deck.main if not card.is_land)


def _run_progress(progress: Callable[[int, int], None] | None, index: int,
                  runs: int) -> Callable[[int, int], None] | None:
    """Run ``index`` of ``runs``'s progress as the whole curve's: ``progress(done, total)``
    over every run's games."""
    if progress is None:
        return None
    return lambda done, total: progress(index * total + done, runs * total)
