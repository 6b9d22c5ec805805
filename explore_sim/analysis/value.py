"""What an explore card is worth: against its vanilla stand-in, and in lands.

For each explore or Map card of a deck, :func:`value` plays, on the same shuffles (common
random numbers):

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

*What exploring adds* is the paired difference explorer deck - vanilla deck, by turn and
metric. The *land-equivalent* is the fractional ``k`` at which the chosen metric at the
chosen turn (default ``on_curve`` at turn 4) of the vanilla deck with ``k`` more lands equals
the explorer deck's, by linear interpolation between the two whole ``k`` around the
crossing. Its standard error comes from the delta method: the interpolated ``k`` is a smooth
function of three paired means (explorer, ``k``, ``k + 1``) whose covariance is known exactly
from the games' sums of products, and the 95% interval is ``k ± 1.96 se``. A card worth more
than all its copies is reported as such (no extrapolation above the last whole ``k``); a card
worth less than its stand-in gets a negative land-equivalent, extrapolated from ``k = 0, 1``.

Lining up the shuffles: every variant's library is shuffled from an order (``card_ids``)
that puts the card's copies (or stand-ins) last among the spells and the lands added in
their place right after them, the last added first. The variants then differ only at the
positions where they differ in cards: the explorer and vanilla decks hold the same card kind
at every position, and the deck with ``k + 1`` lands differs from the one with ``k`` at one
position. Any order gives the same distribution of games; this one makes the paired
differences precise.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Sequence
from os import PathLike
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from ..cards import Card, Catalog
from ..cards.costs import ANY_COLOUR
from ..cards.decklist import Deck, load_deck
from ..cards.features import pip_demand
from ..engine.policies import Policy, one_policy, policy_name
from ..errors import DeckError, OptionError, clip
from ..progress import shows_progress
from .compare import CompareResult
from .executors import executing
from .game_setup import ASSUMPTIONS, game_formats, game_setup, options_meta, with_engine
from .games import play_paired
from .metric_checks import check_metrics
from .report import deck_meta, engine_text, versions, with_meta
from .results import Result
from .run_costs import Cost, check_cost
from .runner import seed_sequence

__all__ = ["value", "ValueResult", "explore_cards", "chosen_cards", "vanilla_stand_in",
           "added_basics", "DEFAULT_VALUE_METRICS", "VALUE_COLUMNS"]

#: Metrics whose explorer - vanilla differences are reported by default (with the
#: land-equivalent's metric).
DEFAULT_VALUE_METRICS = ("on_curve", "lands_played", "explore_lands", "counters",
                         "mana_spent", "cards_cast")
#: Columns of :meth:`ValueResult.summary`.
VALUE_COLUMNS = ("card", "copies", "metric", "basis", "turn", "mean", "se", "ci_low",
                 "ci_high", "note")
#: Abilities cast as vanilla cards in a goldfish game anyway (not modelled): such cards are
#: not picked automatically.
_UNMODELLED_EXPLORES = frozenset({"dies", "lifegain", "reanimate"})
_UNMODELLED_MAPS = frozenset({"opponent", "cast_tapped_target"})
_BASIC_NAMES = ("Plains", "Island", "Swamp", "Mountain", "Forest")  # W U B R G
_LAND_RULE = ("the stand-ins are replaced by basic lands of the deck's colours, in "
              "proportion to the coloured mana symbols of its spells (and commander)")
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


def vanilla_stand_in(card: Card) -> Card:
    """The card without its explore and Map abilities: its vanilla stand-in.

    Parameters
    ----------
    card : Card

    Returns
    -------
    Card
        Named ``"NAME (vanilla)"``, with the same cost, colours, types, power, toughness and
        other abilities, and no ``explores``, ``maps``, explore trigger or explore
        replacement: a creature with nothing else is a vanilla creature (Jadelight Ranger: a
        2/1 for {1}{G}{G}); a noncreature card is cast and does nothing else.
    """
    faces = card.name.split(" // ")
    faces[0] = f"{faces[0]} (vanilla)"
    return dataclasses.replace(
        card, name=" // ".join(faces), explores=0, explores_x=False, explores_when="",
        explore_targets=False, maps=0, maps_when="", explore_trigger="",
        explore_replacement="", source="stand-in", mana_value=card.mana_value,
        note=f"{card.name} without its explore and Map abilities",
    )


def added_basics(deck: Deck, count: int) -> list[Card]:
    """The basic lands that replace stand-ins, in the order they are added.

    The ``j``-th land is the colour furthest below its share ``j * w / total`` of the
    deck's coloured mana symbols (ties: W, U, B, R, G), so the first ``k`` lands of the list
    are the ``k`` lands of every variant: the proportion of the deck's colours, kept at each
    ``k``. A Commander deck counts its commander's symbols and keeps to its colour identity.

    Parameters
    ----------
    deck : Deck
    count : int
        How many lands.

    Returns
    -------
    list of Card
        ``count`` basic lands (the deck's own basic land cards where it has them).

    Raises
    ------
    DeckError
        A deck whose spells have no coloured mana symbol.
    """
    weights = np.zeros(5)
    for card, copies in (*deck.main, *deck.commander):
        if not card.is_land:
            weights += copies * np.array(pip_demand(card), dtype=float)
    if deck.commander:
        identity = 0
        for card, _ in deck.commander:
            identity |= card.identity
        weights *= [(identity >> i) & 1 for i in range(5)] if identity & ANY_COLOUR else 1
    total = weights.sum()
    if total <= 0:
        raise DeckError(f"{clip(deck.name)}: its spells have no coloured mana symbol, so no "
                        "basic land type to add")
    own = Catalog(deck.cards)
    lands = [own.find(name) or Catalog.builtin().get(name) for name in _BASIC_NAMES]
    assigned = np.zeros(5)
    chosen = []
    for j in range(1, count + 1):
        colour = int(np.argmax(weights * j / total - assigned - (weights == 0) * 1e9))
        assigned[colour] += 1
        chosen.append(lands[colour])
    return chosen


@dataclasses.dataclass(frozen=True)
class _Plan:
    """One card's variants: the explorer deck, the vanilla deck, then ``k`` more lands."""

    card: Card
    copies: int
    stand_in: Card
    decks: list[Deck]
    card_ids: list[np.ndarray]
    labels: list[str]


def _coupled_ids(deck: Deck, target: Card, added: list[Card]) -> np.ndarray:
    """The order a variant is shuffled from: the other spells in deck order, ``target``'s
    copies, the lands added in their place (last added first), the deck's other lands."""
    ids = {card: i + 1 for i, card in enumerate(deck.cards)}
    counts = dict(deck.main)
    extra = {card: added.count(card) for card in set(added)}
    order = [ids[card] for card, n in deck.main if not card.is_land and card != target
             for _ in range(n)]
    order += [ids[target]] * counts[target] if counts.get(target, 0) else []
    order += [ids[card] for card in reversed(added)]
    order += [ids[card] for card, n in deck.main if card.is_land
              for _ in range(n - extra.get(card, 0))]
    array = np.array(order, dtype=np.int16)
    if len(array) != deck.size:  # the order must hold the deck exactly
        raise AssertionError(f"coupled order of {deck.name} has {len(array)} cards, "
                             f"not {deck.size}")
    return array


def _plan(deck: Deck, card: Card, max_lands: int) -> _Plan:
    stand_in = vanilla_stand_in(card)
    if card in _commanders(deck):  # in the command zone: its stand-in, and no lands
        vanilla = dataclasses.replace(
            deck, name=f"{deck.name} [{card.name} -> vanilla]",
            commander=tuple((stand_in if c == card else c, n) for c, n in deck.commander))
        return _Plan(card, 1, stand_in, [deck, vanilla],
                     [_coupled_ids(deck, card, []), _coupled_ids(vanilla, stand_in, [])],
                     ["explorer deck", "vanilla"])
    copies = dict(deck.main)[card]
    vanilla = dataclasses.replace(
        deck, name=f"{deck.name} [{card.name} -> vanilla]",
        main=tuple((stand_in if c == card else c, n) for c, n in deck.main),
    )
    added = added_basics(deck, min(copies, max_lands))
    decks, ids, labels = [deck, vanilla], [], ["explorer deck", "vanilla"]
    ids.append(_coupled_ids(deck, card, []))
    ids.append(_coupled_ids(vanilla, stand_in, []))
    base = dict(vanilla.main)
    for k in range(1, len(added) + 1):
        lands = added[:k]
        wanted = {land.name: base.get(land, 0) + lands.count(land) for land in dict.fromkeys(lands)}
        variant = vanilla.with_counts(wanted, filler=stand_in.name, catalog=Catalog.builtin())
        variant = dataclasses.replace(
            variant, name=f"{deck.name} [{card.name} -> vanilla, {k} as lands]",
            filler=deck.filler)
        decks.append(variant)
        ids.append(_coupled_ids(variant, stand_in, lands))
        labels.append(f"vanilla +{k} land{'s' if k > 1 else ''}")
    return _Plan(card, copies, stand_in, decks, ids, labels)


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
    own = Catalog([*deck.cards, *_commanders(deck)])
    chosen: list[Card] = []
    for item in cards:
        name = item.name if isinstance(item, Card) else item
        if not isinstance(name, str) or not name.strip():
            raise OptionError(f"card: expected a card name, got {clip(repr(item))}")
        card = own.find(name)
        if card is None:
            raise DeckError(f"card {clip(name)!r} is not in the main deck of "
                            f"{clip(deck.name)}{own.suggestion_text(name)}")
        if card.is_land:
            raise DeckError(f"{card.name} is a land: value weighs a spell of the deck against "
                            "a vanilla stand-in and against lands; name a spell")
        if card not in chosen:
            chosen.append(card)
    if not chosen:
        raise OptionError("no card named")
    return chosen


def _z(level: float) -> float:
    return NormalDist().inv_cdf(0.5 + level / 2)


def _land_equivalent(compared: CompareResult, copies: int, metric: str, turn: int,
                     level: float = 0.95) -> dict[str, Any]:
    """The land-equivalent of one card from its paired variants (explorer 0, vanilla + k at
    k + 1), by interpolation and the delta method; exact integer sums until the last step."""
    by_turn = [stats.by_turn[turn] for stats in compared.variants]
    tried = len(by_turn) - 2  # the most lands tried: the copies, at most max_lands
    if tried == 0:  # a commander: no copy in the library to trade for a land
        return {"mean": math.nan, "se": math.nan, "ci_low": math.nan, "ci_high": math.nan,
                "note": "the commander is in the command zone, not the library: no copy of "
                        "it can be traded for a land, so no land-equivalent; explorer - "
                        "vanilla is what its abilities add"}
    products = compared.pairs.by_turn[turn].products
    n = by_turn[0].n

    def total(i: int) -> int:
        return by_turn[i].total[metric]

    def product(i: int, j: int) -> int:
        return by_turn[i].total_sq[metric] if i == j else products[(min(i, j), max(i, j))][metric]

    def d_total(k: int) -> int:  # sum over games of (vanilla + k) - explorer
        return total(k + 1) - total(0)

    def d_product(a: int, b: int) -> int:  # sum of d_a * d_b
        return product(a + 1, b + 1) - product(a + 1, 0) - product(b + 1, 0) + product(0, 0)

    def cov(a: int, b: int) -> float:  # covariance of the mean differences
        return (n * d_product(a, b) - d_total(a) * d_total(b)) / (n * n * (n - 1))

    gaps = [d_total(k) / n for k in range(tried + 1)]
    explorer_mean = total(0) / n
    crossing = next((k for k, gap in enumerate(gaps) if gap >= 0), None)
    out: dict[str, Any] = {"mean": math.nan, "se": math.nan, "ci_low": math.nan,
                           "ci_high": math.nan}
    if crossing is None:
        se = math.sqrt(max(cov(tried, tried), 0.0))
        what = (f"all {copies} copies" if tried == copies else
                f"{tried} lands (the most tried, of its {copies} copies)")
        out["note"] = (f"worth more than {what}: with {tried} more land"
                       f"{'s' if tried > 1 else ''} the deck reaches "
                       f"{explorer_mean + gaps[-1]:.4f}, the explorer deck {explorer_mean:.4f} "
                       f"(difference {gaps[-1]:+.4f}, se {se:.4f})")
        out["above"] = True
        return out
    if crossing == 0 and d_total(0) == 0 and cov(0, 0) == 0:
        out.update(mean=0.0, se=0.0, ci_low=0.0, ci_high=0.0,
                   note=f"no difference: {metric} at turn {turn} is the same as with the "
                        "vanilla stand-in in every game")
        return out
    a, b = (0, 1) if crossing == 0 else (crossing - 1, crossing)
    slope = gaps[b] - gaps[a]
    if slope <= 0:  # only when the explorer deck is no better than the vanilla deck
        out["note"] = (f"no better than its vanilla stand-in on {metric} at turn {turn} "
                       f"(explorer - vanilla {-gaps[0]:+.4f}), and one more land does not "
                       "raise it here: no land-equivalent")
        return out
    # k = a - g_a / (g_b - g_a); d k / d g_a = -g_b / D^2, d k / d g_b = g_a / D^2
    estimate = a - gaps[a] / slope
    ga, gb = -gaps[b] / slope**2, gaps[a] / slope**2
    variance = ga * ga * cov(a, a) + 2 * ga * gb * cov(a, b) + gb * gb * cov(b, b)
    se = math.sqrt(max(variance, 0.0))
    z = _z(level)
    out.update(mean=estimate, se=se, ci_low=estimate - z * se, ci_high=estimate + z * se)
    if gaps[0] > 0:
        out["note"] = ("worth less than its vanilla stand-in: extrapolated below 0 from the "
                       "decks with 0 and 1 more land (the stand-in is also cast where the "
                       "casting priority puts a card that neither explores nor makes Maps, "
                       "so the difference includes that change of casting order)")
    else:
        out["note"] = f"interpolated between {a} and {b} more lands"
    return out


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class ValueResult(Result):
    """The outcome of :func:`value`: per card, what exploring adds and its land-equivalent.

    Attributes
    ----------
    meta : dict
        What was run and assumed (JSON-safe): ``command`` (``"value"``), ``deck`` (the
        explorer deck's record), ``cards`` (each card's copies, stand-in and the basic lands
        added), ``policy``, ``land_equivalent`` (metric and turn), the game options,
        ``trials``, ``seed``, ``interval``, ``assumptions`` and ``versions``.
    comparisons : dict of str to CompareResult
        Per card, its variants on the same shuffles: ``"explorer deck"``, ``"vanilla"``,
        ``"vanilla +1 land"``, ...
    """

    meta: dict[str, Any]
    comparisons: dict[str, CompareResult]

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
        metric, turn = self.meta["land_equivalent"]["metric"], self.meta["land_equivalent"]["turn"]
        frames = []
        for card, compared in self.comparisons.items():
            copies = self.meta["cards"][card]["copies"]
            diffs = compared.paired_differences(level=level, baseline="vanilla")
            diffs = diffs[(diffs["variant"] == "explorer deck") & (diffs["turn"] > 0)
                          & diffs["metric"].isin(chosen)].copy()
            diffs["metric"] = pd.Categorical(diffs["metric"], categories=chosen, ordered=True)
            diffs = diffs.sort_values(["metric", "turn"], kind="stable")
            rows = pd.DataFrame({
                "card": card, "copies": copies, "metric": diffs["metric"].astype(str),
                "basis": "explorer - vanilla", "turn": diffs["turn"], "mean": diffs["mean"],
                "se": diffs["se"], "ci_low": diffs["ci_low"], "ci_high": diffs["ci_high"],
                "note": "",
            })
            found = _land_equivalent(compared, copies, metric, turn, level)
            row = {"card": card, "copies": copies, "metric": "land_equivalent",
                   "basis": f"{metric}@{turn}", "turn": turn,
                   **{key: found[key] for key in ("mean", "se", "ci_low", "ci_high")},
                   "note": found["note"]}
            frames += [rows, pd.DataFrame([row])]
        frame = pd.concat(frames, ignore_index=True)[list(VALUE_COLUMNS)]
        return with_meta(frame, self.meta)

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
            :func:`explore_sim.plotting.plot_land_equivalent` draws.
        """
        metric, turn = self.meta["land_equivalent"]["metric"], self.meta["land_equivalent"]["turn"]
        frames = []
        for card, compared in self.comparisons.items():
            rows = compared.summary(level)
            rows = rows[(rows["metric"] == metric) & (rows["turn"] == turn)]
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
                 f"  land-equivalent of: {basis['metric']} at turn {basis['turn']}",
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
            lines.append(f"  {basis['metric']} at turn {basis['turn']}, mean (se):")
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
        lines.append("  land-equivalent: interpolated between whole numbers of lands, se by the "
                     "delta method;")
        lines.append("  intervals: 95%, mean +/- 1.96 (paired) se")
        return "\n".join(lines) + "\n"

    def _facts(self) -> dict[str, Any]:
        return {"deck": self.meta["deck"][0]["name"], "cards": self.cards,
                "land_equivalent": f"{self.meta['land_equivalent']['metric']}@"
                                   f"{self.meta['land_equivalent']['turn']}",
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
    turn: int = 4,
    turns: int = 6,
    metrics: Iterable[str] | None = None,
    policy: str | Policy = "forge",
    on_play: bool = True,
    mulligan: str | None = "london",
    trials: int = 100_000,
    seed: Any = None,
    game: str = "auto",
    max_lands: int = 8,
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
    turn : int
        The turn it is matched at (default 4), at most ``turns``.
    turns : int
        Turns played (default 6); the differences are reported for each.
    metrics : iterable of str, optional
        Metrics of the difference rows (default :data:`DEFAULT_VALUE_METRICS` and
        ``metric``).
    policy : str or callable
        Keep-or-mill policy of every deck (default ``forge``).
    max_lands : int
        The most stand-ins replaced by lands (default 8): a card with more copies is tried
        with 0 to ``max_lands`` lands, and one worth more is reported as such.
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
    (metric_name,) = check_metrics([metric], label="metric")
    _check_whole("turn", turn)
    setup = game_setup([deck], trials, {"turns": turns, "on_play": on_play,
                                        "mulligan": mulligan, "game": game, "engine": engine})
    config, trials = setup.config, setup.trials
    if not 1 <= turn <= config.turns:
        raise OptionError(f"turn must be between 1 and turns ({config.turns}), got {turn}")
    chosen_metrics = check_metrics(metrics, DEFAULT_VALUE_METRICS)
    if metric_name not in chosen_metrics:
        chosen_metrics = [metric_name, *chosen_metrics]
    policy = one_policy(policy, "value")
    _check_whole("max_lands", max_lands, 1, 60)
    plans = [_plan(deck, card, int(max_lands)) for card in chosen_cards(deck, cards)]
    widths = [len(plan.decks) for plan in plans]  # each card's variants play together
    check_cost(Cost(trials, sum(widths), max(widths), config.turns,
                    pair_sums=(config.turns + 1) * len(config.metric_names), groups=len(plans)))
    setup = with_engine(setup, [(d, policy) for plan in plans for d in plan.decks])
    seed_seq = seed_sequence(seed)
    total = trials * len(plans)
    comparisons = {}
    with executing(workers, scheduler) as executor:  # one executor (Dask: one connection)
        for index, plan in enumerate(plans):
            def step(done: int, _: int, before: int = index * trials) -> None:
                if callable(progress):
                    progress(before + done, total)

            comparisons[plan.card.name] = _compare_plan(plan, policy, setup, seed_seq, step,
                                                        executor)
    meta = _value_meta(deck, plans, policy, metric_name, int(turn), int(max_lands),
                       chosen_metrics, setup, seed_seq)
    return ValueResult(meta=meta, comparisons=comparisons)


def _value_meta(deck: Deck, plans: list[_Plan], policy: Policy, metric_name: str, turn: int,
                max_lands: int, chosen_metrics: list[str], setup: Any,
                seed_seq: Any) -> dict[str, Any]:
    """The metadata of a valuation (JSON-safe)."""
    formats = game_formats([deck], setup.config, setup.rule)
    meta = {
        "command": "value",
        "deck": [deck_meta(deck)],
        "cards": {plan.card.name: {
            "copies": plan.copies,
            "commander": plan.card in _commanders(deck),
            "stand_in": _describe(plan.stand_in),
            "lands_added": _land_counts(added_basics(deck, len(plan.decks) - 2)),
            "variants": plan.labels,
        } for plan in plans},
        "policy": [policy_name(policy)],
        "land_equivalent": {"metric": metric_name, "turn": turn, "max_lands": max_lands},
        "metrics": chosen_metrics,
        "mulligan": formats[0]["mulligan"],
        "formats": formats,
        **options_meta(setup),
        "trials": setup.trials,
        "seed": seed_seq.entropy,
        "interval": _INTERVAL,
        "assumptions": [*ASSUMPTIONS, _LAND_RULE,
                        "vanilla stand-in: the card without its explore and Map abilities (a "
                        "commander's is still the commander, cast from the command zone)",
                        "every variant plays the same shuffles; the card's copies (or "
                        "stand-ins) and the lands added in their place share positions"],
        "versions": versions(),
    }
    return meta


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


def _compare_plan(plan: _Plan, policy: Policy, setup: Any, seed_seq: Any,
                  step: Callable[[int, int], None], executor: Any) -> CompareResult:
    """One card's variants played on the same shuffles, as a comparison."""
    config, rule, trials = setup.config, setup.rule, setup.trials
    stats, pairs = play_paired([(d, policy) for d in plan.decks], config, rule, None,
                               trials, seed_seq, card_ids=plan.card_ids, progress=step,
                               scheduler=executor, engine=setup.engine.engine)
    compare_meta = {"command": "value", "turns": config.turns, "trials": trials,
                    "seed": seed_seq.entropy, "mulligan": rule.name,
                    "deck": [deck_meta(d) for d in plan.decks],
                    "policy": [policy_name(policy)], "variants": plan.labels,
                    **setup.engine.meta()}
    return CompareResult(meta=compare_meta, decks=plan.labels, policies=[policy_name(policy)],
                         labels=plan.labels, variants=stats, pairs=pairs)


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
