"""What an explore card is worth: against its vanilla stand-in, and in lands.

For each explore or Map card of a deck, :func:`value` plays, on the same shuffles (common
random numbers), the variants of a :class:`~explore_sim.analysis.stand_ins.StandInPlan`:

- the deck as it is (the *explorer deck*);
- the *vanilla deck*: the same deck with every copy of the card replaced by its vanilla
  stand-in (:func:`vanilla_stand_in`: the same cost, colours, types, power and toughness,
  without the explore and Map abilities);
- for ``k = 1, 2, ...`` up to the card's copies (at most ``max_lands``, 8 by default), the
  vanilla deck with ``k`` stand-ins replaced by basic lands of the deck's colours
  (:func:`added_basics`).

A Commander deck's commander is valued the same way, against a vanilla stand-in commander
(the same cost, colour identity, types, power and toughness, still cast from the command zone
with its tax): the commander is not in the library, so no copy of it can be traded for a land
and it has no land-equivalent; what its abilities add is the explorer - vanilla difference.

The explorer deck is played once for every card (the plans share its order,
:func:`~explore_sim.analysis.stand_ins.stand_in_plan`), and the land variants only up to
the card's basis turn, recording only the basis metric, and only as far as the first ``k``
that reaches the explorer deck (:mod:`.value_games`, :mod:`.land_curves`; ``full_curve``
plays every ``k``).

*What exploring adds* is the paired difference explorer deck - vanilla deck, by turn and
metric. The *land-equivalent* is the fractional ``k`` at which the chosen metric at the
chosen turn of the vanilla deck with ``k`` more lands equals the explorer deck's, by linear
interpolation between the two whole ``k`` around the crossing
(:func:`~explore_sim.analysis.stand_ins.land_equivalent`; se by the delta method, 95%
interval ``k ± 1.96 se``).

The default basis is one every card can move: ``on_curve`` (at least as many lands on the
battlefield as the turn number) at the turn after the card can first be cast, its mana value
+ 1, and no earlier than turn 3 (:func:`basis_turn`): a card's explores and Maps find lands
from the turn it is cast, and those lands are played by the end of the next turn at the
latest; a basis turn at or before the card's mana value cannot see them, and the first two
land drops are made whatever a card does (the mulligan keeps hands of two lands or more). A
card whose difference is 0 in every game is told why, with the basis that would show it
(another turn, or another metric whose difference is not 0).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Sequence
from os import PathLike
from typing import Any

import numpy as np
import pandas as pd

from ..cards import Card, Catalog
from ..cards.decklist import Deck, load_deck
from ..cards.karsten import coloured_sources, cost_colours
from ..engine.abilities import held_reason
from ..engine.policies import Policy, one_policy, policy_name
from ..errors import OptionError, clip
from ..progress import shows_progress
from .compare import CompareResult
from .executors import executing
from .game_setup import ASSUMPTIONS, game_formats, game_setup, options_meta, with_engine
from .land_curves import LandCurve
from .metric_checks import check_metrics
from .report import deck_meta, engine_text, versions, with_meta
from .results import Result
from .run_costs import Cost, check_cost
from .runner import seed_sequence
from .stand_ins import (
    StandInPlan,
    added_basics,
    named_spells,
    play_plan,
    stand_in_plan,
    vanilla_stand_in,
)
from .value_games import play_value_plans

__all__ = ["value", "ValueResult", "explore_cards", "chosen_cards", "vanilla_stand_in",
           "added_basics", "basis_turn", "basis_text", "DEFAULT_VALUE_METRICS",
           "VALUE_COLUMNS"]

#: Metrics whose explorer - vanilla differences are reported by default (with the
#: land-equivalent's metric).
DEFAULT_VALUE_METRICS = ("on_curve", "lands_played", "explore_lands", "counters",
                         "mana_spent", "cards_cast", "compounded_mana")
#: Why a valuation takes only the metrics by turn (:func:`~.metric_checks.check_metrics`).
BY_TURN = "value compares the decks turn by turn"
#: Columns of :meth:`ValueResult.summary`.
VALUE_COLUMNS = ("card", "copies", "metric", "basis", "turn", "mean", "se", "ci_low",
                 "ci_high", "note")
#: Abilities cast as vanilla cards in a goldfish game anyway (not modelled): such cards are
#: not picked automatically.
_UNMODELLED_EXPLORES = frozenset({"dies", "lifegain", "reanimate"})
_UNMODELLED_MAPS = frozenset({"opponent", "cast_tapped_target"})
_LAND_RULE = ("the stand-ins are replaced by basic lands of the deck's colours, in "
              "proportion to the coloured mana symbols of its spells (and commander)")
_BASIS_RULE = ("land-equivalent basis: unless a turn is given, each card's is the turn after "
               "it can first be cast (mana value + 1, turn 3 at the earliest), when the lands "
               "its explores and Maps find are on the battlefield")
_INTERVAL = ("land-equivalent: linear interpolation between the two whole numbers of lands "
             "around the crossing; se by the delta method from the exact covariance of the "
             "three paired means; 95% interval = estimate +/- 1.96 se")


def _explore_related(card: Card) -> bool:
    """The card has an explore, Map or explore-trigger ability the goldfish models."""
    explores = (card.explores > 0 or card.explores_x) and card.explores_when not in \
        _UNMODELLED_EXPLORES
    maps = card.maps > 0 and card.maps_when not in _UNMODELLED_MAPS
    return bool(explores or maps or card.explore_trigger or card.explore_replacement)


def explore_cards(deck: Deck) -> list[Card]:
    """The main deck's spells with a modelled explore, Map, explore-trigger or explore
    replacement ability, in deck order, then such a commander.

    Parameters
    ----------
    deck : Deck

    Returns
    -------
    list of Card
        Lands (Restless Anchorage) and abilities the goldfish casts as vanilla cards anyway
        (dies, life gain, Maps for the opponent) are left out; name them to include them.
    """
    cards = [*deck.cards, *_commanders(deck)]
    return [card for card in cards if not card.is_land and _explore_related(card)]


def _commanders(deck: Deck) -> list[Card]:
    """The deck's commanders that are not also in its main deck."""
    return [card for card, _ in deck.commander if card not in deck.cards]


def basis_turn(card: Card) -> int:
    """The default turn of a card's land-equivalent: the turn after it can first be cast.

    Parameters
    ----------
    card : Card

    Returns
    -------
    int
        Its mana value + 1, at least 3 and at most 50: cast on curve at the earliest on the
        turn of its mana value, the lands its explores or Maps find are on the battlefield
        by the end of the next turn; and the first two land drops are made whatever a card
        does, since the mulligan's keep rule keeps a hand of two lands or more.
    """
    assert card.mana_value is not None  # Card sets it from the cost when not given
    return min(max(card.mana_value + 1, 3), 50)


def chosen_cards(deck: Deck, cards: Iterable[str | Card] | str | Card | None) -> list[Card]:
    """The cards to value: the named ones (in the main deck), else every explore card.

    Parameters
    ----------
    deck : Deck
    cards : str, Card, iterable of them, or None
        Names looked up in the deck's own cards (ignoring case and accents); a string holds
        names separated by commas or line breaks, a name with commas read whole
        (:func:`~explore_sim.cards.name_lists.split_card_names`); None: every card
        :func:`explore_cards` finds.

    Returns
    -------
    list of Card
        The deck's cards, each once, in the order named.

    Raises
    ------
    OptionError
        No card named, or none found in a deck without explore cards.
    DeckError
        A name that is neither a card of the main deck nor the commander, or a land.
    """
    if cards is None:
        found = explore_cards(deck)
        if not found:
            raise OptionError(f"{clip(deck.name)} has no explore or Map card; name the cards "
                              "to value (--card NAME)")
        return found
    if isinstance(cards, str):  # names a line or separated by commas, a name's commas kept
        from ..cards.card_index import card_sources
        from ..cards.name_lists import split_card_names

        held = [*deck.cards, *(c for c, _ in deck.commander if c not in deck.cards)]
        cards = split_card_names(cards, Catalog(held), card_sources)
    elif isinstance(cards, Card):
        cards = [cards]
    chosen = named_spells(cards, Catalog([*deck.cards, *_commanders(deck)]), deck, "card",
                          "value weighs a spell of the deck against a vanilla stand-in and "
                          "against lands; name a spell")
    if not chosen:
        raise OptionError("card: no card named")
    return chosen


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class ValueResult(Result):
    """The outcome of :func:`value`: per card, what exploring adds and its land-equivalent.

    Attributes
    ----------
    meta : dict
        What was run and assumed (JSON-safe): ``command`` (``"value"``), ``deck`` (the
        explorer deck's record), ``cards`` (each card's copies, stand-in and the basic lands
        added, and the variants played), ``policy``, ``land_equivalent`` (metric, turn,
        ``max_lands``, ``full_curve``), the game options, ``trials``, ``seed``,
        ``interval``, ``assumptions`` and ``versions``.
    comparisons : dict of str to CompareResult
        Per card, the ``"explorer deck"`` and ``"vanilla"`` deck on the same shuffles, every
        turn, with the metrics of ``meta["metrics"]`` (the games record only those).
    curves : dict of str to LandCurve
        Per card, the land-equivalent's metric at the basis turn for ``"explorer deck"``,
        ``"vanilla"``, ``"vanilla +1 land"``, ..., on the same shuffles, as far as the first
        count of lands that reaches the explorer deck (every count with ``full_curve``).
    every_metric : dict of str to CompareResult
        For a card that changes its basis in no game: the explorer and vanilla decks again,
        on the same shuffles, with every metric recorded, to say what the card does change.
    """

    meta: dict[str, Any]
    comparisons: dict[str, CompareResult]
    curves: dict[str, LandCurve]
    every_metric: dict[str, CompareResult] = dataclasses.field(default_factory=dict)

    @property
    def cards(self) -> list[str]:
        """The cards valued, in order."""
        return list(self.comparisons)

    def summary(self, level: float = 0.95, metrics: Iterable[str] | None = None) -> pd.DataFrame:
        """What exploring adds (explorer deck - vanilla deck, by turn) and the land-equivalent.

        Parameters
        ----------
        level : float
            Confidence level of the intervals.
        metrics : iterable of str, optional
            The metrics of the difference rows (default: those of the run).

        Returns
        -------
        DataFrame
            :data:`VALUE_COLUMNS`: per card, one row per metric and turn (``basis``
            ``"explorer - vanilla"``: the paired difference), then one row with ``metric``
            ``"land_equivalent"`` (``basis`` such as ``"on_curve@4"``; ``mean`` NaN when the
            card is worth more than all its copies, as ``note`` says). ``attrs["explore_sim"]``
            holds :attr:`meta`.
        """
        chosen = check_metrics(metrics, self.meta["metrics"])
        missing = [name for name in chosen if name not in self.meta["metrics"]]
        if missing:
            raise OptionError(f"metrics: {', '.join(missing)} not recorded by this run (it "
                              f"recorded {', '.join(self.meta['metrics'])}); pass "
                              "metrics= to value to record them")
        frames = []
        for card, compared in self.comparisons.items():
            copies = self.meta["cards"][card]["copies"]
            metric, turn = self.basis(card)
            every = compared.paired_differences(level=level, baseline="vanilla")
            every = every[(every["variant"] == "explorer deck") & (every["turn"] > 0)]
            diffs = every[every["metric"].isin(chosen)].copy()
            diffs["metric"] = pd.Categorical(diffs["metric"], categories=chosen, ordered=True)
            diffs = diffs.sort_values(["metric", "turn"], kind="stable")
            rows = pd.DataFrame({
                "card": card, "copies": copies, "metric": diffs["metric"].astype(str),
                "basis": "explorer - vanilla", "turn": diffs["turn"], "mean": diffs["mean"],
                "se": diffs["se"], "ci_low": diffs["ci_low"], "ci_high": diffs["ci_high"],
                "note": "",
            })
            found = self.curves[card].land_equivalent(copies, level)
            if found["note"].startswith("no difference"):
                moved = every
                if card in self.every_metric:  # the same rows, with every metric
                    moved = self.every_metric[card].paired_differences(level=level,
                                                                      baseline="vanilla")
                    moved = moved[(moved["variant"] == "explorer deck") & (moved["turn"] > 0)]
                found["note"] += "; " + _why_no_difference(self.meta["cards"][card], metric,
                                                           turn, moved)
            row = {"card": card, "copies": copies, "metric": "land_equivalent",
                   "basis": f"{metric}@{turn}", "turn": turn,
                   **{key: found[key] for key in ("mean", "se", "ci_low", "ci_high")},
                   "note": found["note"]}
            frames += [rows, pd.DataFrame([row])]
        frame = pd.concat(frames, ignore_index=True)[list(VALUE_COLUMNS)]
        return with_meta(frame, self.meta)

    def basis(self, card: str) -> tuple[str, int]:
        """The metric and turn a card's land-equivalent matches.

        Parameters
        ----------
        card : str
            A card of :attr:`cards`.

        Returns
        -------
        (str, int)
            ``meta["land_equivalent"]["metric"]`` and the card's turn: the one given, else
            the turn after it can first be cast (:func:`basis_turn`).
        """
        return self.meta["land_equivalent"]["metric"], self.meta["cards"][card]["basis_turn"]

    def land_equivalents(self, level: float = 0.95) -> pd.DataFrame:
        """Only the land-equivalent rows of :meth:`summary`.

        Parameters
        ----------
        level : float
            Confidence level of the intervals.

        Returns
        -------
        DataFrame
            :data:`VALUE_COLUMNS`, one row per card.
        """
        frame = self.summary(level)
        return with_meta(frame[frame["metric"] == "land_equivalent"].reset_index(drop=True),
                         self.meta)

    def curve(self, level: float = 0.95) -> pd.DataFrame:
        """The land-equivalent's metric for the explorer deck and every vanilla variant.

        Parameters
        ----------
        level : float
            Confidence level of the intervals.

        Returns
        -------
        DataFrame
            ``card, variant, lands, metric, turn, mean, se, ci_low, ci_high``: ``lands`` is
            the number of stand-ins replaced by lands (NaN for the explorer deck), what
            :func:`explore_sim.plotting.plot_land_equivalent` draws; the variants played (as
            far as the crossing, or every one with ``full_curve``).
        """
        frames = []
        for card, curve in self.curves.items():
            metric, turn = self.basis(card)
            rows = curve.summary(level)
            labels = rows["variant"].astype(str)
            lands = [math.nan if label == "explorer deck" else
                     0 if label == "vanilla" else int(label.split("+")[1].split()[0])
                     for label in labels]
            frames.append(pd.DataFrame({
                "card": card, "variant": labels.to_numpy(), "lands": lands, "metric": metric,
                "turn": turn, "mean": rows["mean"].to_numpy(), "se": rows["se"].to_numpy(),
                "ci_low": rows["ci_low"].to_numpy(), "ci_high": rows["ci_high"].to_numpy(),
            }))
        return with_meta(pd.concat(frames, ignore_index=True), self.meta)

    def render(self, fmt: str = "table") -> str:
        """The result as text, as the command line prints it.

        Parameters
        ----------
        fmt : {"table", "csv", "json"}
            ``table``: per card, the land-equivalent, the curve and the differences by turn;
            ``csv`` and ``json``: the rows of :meth:`summary`.

        Returns
        -------
        str
        """
        return super().render(fmt)

    def _table(self, rows: pd.DataFrame) -> str:
        meta = self.meta
        basis = meta["land_equivalent"]
        lines = ["value: explore and Map cards against vanilla stand-ins, on the same shuffles",
                 f"  deck: {meta['deck'][0]['name']} ({meta['deck'][0]['size']} cards, "
                 f"{meta['deck'][0]['lands']} lands)",
                 f"  policy: {meta['policy'][0]}",
                 f"  land-equivalent of: {basis_text(basis)}",
                 f"  trials: {meta['trials']}  seed: {meta['seed']}",
                 f"  engine: {engine_text(meta)}", ""]
        curve = self.curve()
        for card in self.cards:
            info = meta["cards"][card]
            lands = ", ".join(f"{n} {name}" for name, n in info["lands_added"].items())
            where = ("the commander" if info.get("commander") else
                     f"{info['copies']} {'copy' if info['copies'] == 1 else 'copies'}")
            lines.append(f"{card} ({where}; stand-in: {info['stand_in']}"
                         + (f"; lands: {lands})" if lands else ")"))
            found = rows[(rows["card"] == card) & (rows["metric"] == "land_equivalent")].iloc[0]
            if math.isnan(found["mean"]):
                lines.append(f"  land-equivalent: {found['note']}")
            else:
                lines.append(f"  land-equivalent: {found['mean']:.3f} lands (se {found['se']:.3f})"
                             f" [{found['ci_low']:.3f}, {found['ci_high']:.3f}]; {found['note']}")
            points = curve[curve["card"] == card]
            metric, turn = self.basis(card)
            lines.append(f"  {metric} at turn {turn}, mean (se):")
            cells = pd.DataFrame([[f"{m:.4f} ({s:.4f})" for m, s in
                                   zip(points["mean"], points["se"])]],
                                 columns=[label.replace("vanilla +", "+") for label in
                                          points["variant"]])
            lines += ["  " + line for line in cells.to_string(index=False).splitlines()]
            diffs = rows[(rows["card"] == card) & (rows["metric"] != "land_equivalent")]
            table = diffs.assign(cell=[f"{m:+.4f} ({s:.4f})" for m, s in
                                       zip(diffs["mean"], diffs["se"])])
            wide = table.pivot(index="metric", columns="turn", values="cell")
            wide = wide.reindex(index=[m for m in meta["metrics"] if m in wide.index])
            wide.columns = [f"turn {t}" for t in wide.columns]
            lines.append("  explorer deck - vanilla deck: mean (paired se)")
            lines += ["  " + line for line in
                      wide.rename_axis(None).rename_axis(None, axis=1).to_string().splitlines()]
            lines.append("")
        if any(curve.played < curve.tried for curve in self.curves.values()):
            lines.append("  lands added: as far as the first count that reaches the explorer "
                         "deck (--full-curve: every count)")
        lines.append("  land-equivalent: interpolated between whole numbers of lands, se by the "
                     "delta method;")
        lines.append("  intervals: 95%, mean +/- 1.96 (paired) se")
        return "\n".join(lines) + "\n"

    def _facts(self) -> dict[str, Any]:
        return {"deck": self.meta["deck"][0]["name"], "cards": self.cards,
                "land_equivalent": basis_text(self.meta["land_equivalent"]),
                "trials": self.meta["trials"], "seed": self.meta["seed"]}

    def _html(self) -> tuple[list[str], pd.DataFrame, bool]:
        table = self.land_equivalents()[["card", "copies", "basis", "mean", "se", "ci_low",
                                         "ci_high", "note"]].round(3)
        return [self._facts_line(), "rows: land-equivalent (lands); summary() adds what "
                "exploring adds by turn"], table, False


@shows_progress("value")
def value(
    deck: Deck | str | PathLike[str],
    cards: str | Card | Sequence[str | Card] | None = None,
    *,
    metric: str = "on_curve",
    turn: int | None = None,
    turns: int | None = None,
    metrics: Iterable[str] | None = None,
    policy: str | Policy = "forge",
    on_play: bool = True,
    mulligan: str | None = "london",
    trials: int = 100_000,
    seed: Any = None,
    game: str = "auto",
    max_lands: int = 8,
    full_curve: bool = False,
    engine: str = "auto",
    progress: Callable[[int, int], None] | bool | None = None,
    workers: int = 1,
    scheduler: Any = None,
) -> ValueResult:
    """What each explore or Map card adds to a deck, and how many lands it is worth.

    Parameters
    ----------
    deck : Deck, path or decklist text
    cards : str, Card or sequence of them, optional
        The cards to value (in the main deck, or the commander; any spell, such as Grizzly
        Bears, whose land-equivalent is then 0). Default: every card :func:`explore_cards`
        finds.
    metric : str
        The per-turn metric the land-equivalent matches (default ``on_curve``).
    turn : int, optional
        The turn it is matched at, at most ``turns``. Default: per card, the turn after it
        can first be cast (:func:`basis_turn`: its mana value + 1), a basis every card's
        explores and Maps can move.
    turns : int, optional
        Turns played; the differences are reported for each. Default: 6, or the latest
        basis turn if later.
    metrics : iterable of str, optional
        Metrics of the difference rows (default :data:`DEFAULT_VALUE_METRICS` and
        ``metric``).
    policy : str or callable
        Keep-or-mill policy of every deck (default ``forge``).
    max_lands : int
        The most stand-ins replaced by lands (default 8); a card worth more is said to be.
    full_curve : bool
        Play every count of lands up to the copies, at most ``max_lands`` (the whole curve),
        not only up to the first that reaches the explorer deck (the same land-equivalent).
    on_play, mulligan, trials, seed, game, engine, progress, workers, scheduler
        As for :func:`explore_sim.simulate`; every card's variants play the same shuffles
        (the same seed), ``trials`` games each, all on one engine. A ``progress`` that
        raises :class:`~explore_sim.analysis.runner.StopRun` stops the whole valuation: it
        is made of several runs, none of them complete, so the exception propagates.

    Returns
    -------
    ValueResult

    Raises
    ------
    OptionError
        A bad metric, turn or option; a deck without explore cards when none is named; a
        run over the cost caps of :mod:`.run_costs`.
    DeckError
        A named card that is neither in the main deck nor the commander, a land, or a deck
        without coloured mana symbols.
    """
    deck = deck if isinstance(deck, Deck) else load_deck(deck)
    _refuse_kill_turn(metric, "metric")
    (metric_name,) = check_metrics([metric], label="metric", by_turn=BY_TURN)
    chosen = chosen_cards(deck, cards)
    turn_of, turns = _basis_turns(chosen, turn, turns)
    turn = None if turn is None else int(turn)  # checked: a whole number
    setup = game_setup([deck], trials, {"turns": turns, "on_play": on_play,
                                        "mulligan": mulligan, "game": game, "engine": engine})
    config, trials = setup.config, setup.trials
    chosen_metrics = check_metrics(metrics, DEFAULT_VALUE_METRICS, by_turn=BY_TURN)
    if metric_name not in chosen_metrics:
        chosen_metrics = [metric_name, *chosen_metrics]
    # The games record only the metrics reported; a card that changes nothing is played
    # again with every metric, by the engine chosen for every metric.
    reported = dataclasses.replace(config, record=tuple(chosen_metrics))
    policy = one_policy(policy, "value")
    _check_whole("max_lands", max_lands, 1, 60)
    plans = [stand_in_plan(deck, [card], int(max_lands), order=chosen) for card in chosen]
    # one explorer deck for every card; in memory at once, it and one card's variants
    variants = 1 + sum(len(plan.decks) - 1 for plan in plans)
    check_cost(Cost(trials, variants, max(len(plan.decks) for plan in plans), config.turns,
                    pair_sums=(config.turns + 1) * len(reported.metric_names),
                    groups=len(plans)))
    every_setup = with_engine(setup, [(d, policy) for plan in plans for d in plan.decks])
    setup = dataclasses.replace(every_setup, config=reported)
    seed_seq = seed_sequence(seed)
    with executing(workers, scheduler) as executor:  # one executor (Dask: one connection)
        played = _play_plans(plans, policy, (setup, every_setup), seed_seq,
                             (metric_name, turn_of), progress, executor, bool(full_curve))
    meta = _value_meta(deck, plans, played[1], policy, metric_name, turn, turn_of,
                       int(max_lands), bool(full_curve), chosen_metrics, setup, seed_seq)
    return ValueResult(meta, *played)


def _play_plans(plans: list[StandInPlan], policy: Policy, setups: tuple[Any, Any],
                seed_seq: Any, basis: tuple[str, dict[str, int]],
                progress: Callable[[int, int], None] | bool | None,
                executor: Any, full_curve: bool
                ) -> tuple[dict[str, CompareResult], dict[str, LandCurve],
                           dict[str, CompareResult]]:
    """Every card's variants on the same shuffles (``setups[0]``: the metrics reported;
    :func:`~.value_games.play_value_plans`), and for a card that changes its basis
    (``basis``: metric and each card's turn) in no game, its explorer and vanilla decks
    again with every metric (``setups[1]``): the comparisons, the curves and those."""
    (setup, every_setup), (metric_name, turn_of) = setups, basis
    names = [plan.cards[0].name for plan in plans]
    played = play_value_plans(plans, policy, setup, [(metric_name, turn_of[name])
                                                     for name in names], seed_seq,
                              progress if callable(progress) else None, executor, full_curve)
    comparisons = {name: pair[0] for name, pair in zip(names, played)}
    curves = {name: pair[1] for name, pair in zip(names, played)}
    every_metric = {}
    for name, plan in zip(names, plans):
        if _changes_nothing(comparisons[name], metric_name, turn_of[name]):
            pair = dataclasses.replace(plan, decks=plan.decks[:2], card_ids=plan.card_ids[:2],
                                       labels=plan.labels[:2])
            every_metric[name] = play_plan(pair, policy, every_setup, seed_seq, None, executor)
    return comparisons, curves, every_metric


def _changes_nothing(compared: CompareResult, metric: str, turn: int) -> bool:
    """Whether the explorer and vanilla decks have the same ``metric`` at ``turn`` in every
    game: the sum of the squared paired differences, ``sum(a^2) + sum(b^2) - 2 sum(a b)``,
    is 0."""
    explorer, vanilla = (stats.by_turn[turn] for stats in compared.variants)
    product = compared.pairs.by_turn[turn].products[(0, 1)][metric]
    return explorer.total_sq[metric] + vanilla.total_sq[metric] - 2 * product == 0


def _value_meta(deck: Deck, plans: list[StandInPlan], curves: dict[str, LandCurve],
                policy: Policy, metric_name: str,
                turn: int | None, turn_of: dict[str, int], max_lands: int, full_curve: bool,
                chosen_metrics: list[str], setup: Any, seed_seq: Any) -> dict[str, Any]:
    """The metadata of a valuation (JSON-safe)."""
    formats = game_formats([deck], setup.config, setup.rule)
    commanders = _commanders(deck)
    sources = coloured_sources(deck)
    meta = {
        "command": "value",
        "deck": [deck_meta(deck)],
        "cards": {plan.cards[0].name: {
            "copies": plan.copies or 1,
            "commander": plan.cards[0] in commanders,
            "mana_value": plan.cards[0].mana_value,
            "modelled": _explore_related(plan.cards[0]),
            "never_cast": held_reason(plan.cards[0]),
            "colours_unmade": _colours_unmade(plan.cards[0], sources),
            "basis_turn": turn_of[plan.cards[0].name],
            "stand_in": _describe(plan.stand_ins[0]),
            "lands_added": _land_counts(plan.lands_added),
            "variants": curves[plan.cards[0].name].played_labels,
        } for plan in plans},
        "policy": [policy_name(policy)],
        "land_equivalent": {"metric": metric_name, "turn": turn, "max_lands": max_lands,
                            "full_curve": full_curve},
        "metrics": chosen_metrics,
        "mulligan": formats[0]["mulligan"],
        "formats": formats,
        **options_meta(setup),
        "trials": setup.trials,
        "seed": seed_seq.entropy,
        "interval": _INTERVAL,
        "assumptions": [*ASSUMPTIONS, _LAND_RULE, _BASIS_RULE,
                        "vanilla stand-in: the card without its explore and Map abilities (a "
                        "commander's is still the commander, cast from the command zone)",
                        "every variant plays the same shuffles; the card's copies (or "
                        "stand-ins) and the lands added in their place share positions"],
        "versions": versions(),
    }
    return meta


def basis_text(basis: dict[str, Any]) -> str:
    """``on_curve at turn 5``, or with no turn given ``on_curve at the turn after each
    card can first be cast``: the land-equivalent's basis in words.

    Parameters
    ----------
    basis : dict
        ``meta["land_equivalent"]`` of a :class:`ValueResult`.

    Returns
    -------
    str
    """
    if basis["turn"] is None:
        return (f"{basis['metric']} at the turn after each card can first be cast (mana value "
                "+ 1, turn 3 at the earliest)")
    return f"{basis['metric']} at turn {basis['turn']}"


def _why_no_difference(info: dict[str, Any], metric: str, turn: int,
                       diffs: pd.DataFrame) -> str:
    """Why a card changes ``metric`` at ``turn`` in no game, and the basis that would show
    what it changes (``diffs``: its explorer - vanilla rows, every metric and turn)."""
    if info.get("never_cast"):
        return (f"a goldfish game never casts it ({info['never_cast']}), nor its stand-in, "
                "so no basis shows a difference")
    if not info["modelled"]:
        return ("the card has no explore or Map ability the goldfish models: it plays as its "
                "vanilla stand-in, so no basis shows a difference")
    if info.get("colours_unmade"):
        unmade = " or ".join(f"{{{c}}}" for c in info["colours_unmade"])
        return (f"no card of the deck makes {unmade}, which its cost needs: it is never cast, "
                "nor is its stand-in")
    moved = diffs[(diffs["se"] > 0) | (diffs["mean"] != 0)]
    first = max(info["mana_value"], 1)
    reason = ""
    if turn <= first:
        reason = (f"cast on turn {first} at the earliest (mana value {info['mana_value']}), "
                  f"it explores too late to change {metric} at turn {turn}")
    elif turn <= 2:
        reason = ("the kept hand holds two lands or more (the mulligan's keep rule), so the "
                  "first two land drops are made whatever the card does")
    later = moved[(moved["metric"] == metric) & (moved["turn"] > turn)]
    others = moved[moved["metric"] != metric]
    if len(later):
        row = later.iloc[0]
        shown = f"--turn {int(row['turn'])} would show it ({metric} {row['mean']:+.4f})"
    elif len(others):
        row = others.iloc[int(np.argmax(np.abs(others["mean"].to_numpy())))]
        shown = (f"{row['metric']} at turn {int(row['turn'])} differs ({row['mean']:+.4f}, se "
                 f"{row['se']:.4f}): --metric {row['metric']} --turn {int(row['turn'])} would "
                 "show it (a land-equivalent needs a metric that more lands raise)")
    else:
        shown = ("no metric differs at any turn played: its abilities changed none of these "
                 "games (play more turns)")
    return f"{reason}; {shown}" if reason else shown


def _colours_unmade(card: Card, sources: dict[str, int]) -> str:
    """The colours of ``card``'s cost that no card of the deck makes, where every way to pay
    it needs one (``"B"``: it is never cast), else ``""``."""
    unmade = [[c for c in cost_colours(mode) if not sources.get(c)] for mode in card.cost_modes]
    return "" if not unmade or any(not colours for colours in unmade) else "".join(unmade[0])


def _basis_turns(cards: list[Card], turn: int | None,
                 turns: int | None) -> tuple[dict[str, int], int]:
    """Each card's land-equivalent turn (``turn``, else :func:`basis_turn`) and the turns to
    play (``turns``, else 6 or the latest of those turns)."""
    if turn is not None:
        _check_whole("turn", turn, 1, 50)
    if turns is not None:
        _check_whole("turns", turns, 1, 50)
    turn_of = {card.name: int(turn) if turn is not None else basis_turn(card) for card in cards}
    if turns is None:
        turns = max(6, *turn_of.values())
    late = [f"{name} ({at})" for name, at in turn_of.items() if at > turns]
    if late:
        raise OptionError(f"turn must be between 1 and turns ({turns}); the basis turn of "
                          f"{', '.join(late)} is later: play more turns (turns)")
    return turn_of, int(turns)


def _refuse_kill_turn(metric: Any, label: str) -> None:
    """Refuse ``kill_turn`` as the land-equivalent's basis (lower is better, and lands in place
    of the stand-ins kill later, so no count of lands matches an explorer's kill turn)."""
    if isinstance(metric, str) and metric.split("@")[0].strip() == "kill_turn":
        raise OptionError(f"{label}: the land-equivalent cannot match kill_turn (lower is "
                          "better, and lands in place of creatures only kill later); use "
                          "compare --kill-turn, or --metric opponent_dead")


def _check_whole(name: str, number: Any, low: int | None = None,
                 high: int | None = None) -> None:
    """Refuse a value that is not a whole number (from ``low`` to ``high``)."""
    whole = not isinstance(number, bool) and isinstance(number, (int, np.integer))
    if low is None:
        if not whole:
            raise OptionError(f"{name} must be a whole number, got {number!r}")
    elif not whole or not low <= number <= high:
        raise OptionError(f"{name} must be a whole number from {low} to {high}, got "
                          f"{number!r}")


def _describe(card: Card) -> str:
    """``a 2/1 creature for {1}{G}{G}`` or ``a sorcery for {G} (keeps: extra land this_turn)``."""
    cost = card.mana_cost.split("//")[0].strip() or "{0}"
    if card.is_creature and card.power is not None:
        text = f"a {card.power}/{card.toughness} creature for {cost}"
    else:
        kind = card.type_line.split("//")[0].split("—")[0].strip().casefold()
        text = f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind} for {cost}"
    kept = [*card.keywords]
    if card.extra_land:
        kept.append(f"extra land ({card.extra_land})")
    if card.fetch:
        kept.append(f"land search ({card.fetch})")
    if card.produces:
        kept.append(f"makes {card.produces}")
    return text + (f" (keeps: {', '.join(kept)})" if kept else "")


def _land_counts(lands: list[Card]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for land in lands:
        counts[land.name] = counts.get(land.name, 0) + 1
    return counts
