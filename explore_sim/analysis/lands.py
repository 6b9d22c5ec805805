"""How many lands to play: the land count that maximises an objective, the counts tied with
it, and what the deck's explorers are worth there.

:func:`lands` sweeps the land count around the deck's own (:mod:`.land_counts`: lands traded
against the deck's filler or the cards named, each colour keeping its share of the sources)
and plays every count on the same shuffles (common random numbers), half of the games on
the play and half on the draw unless told otherwise, as Frank Karsten's model does. For each
count it keeps the objective's per-game values and their products with every other
count's (:class:`~.objectives.PairedValues`), so that:

- the *best count* is the one of highest mean objective (lowest for ``kill_turn@T``);
- a count is *tied* with it when the 95% interval of their paired difference (per game,
  count minus best, on the same shuffles) includes 0: no test of these games tells them
  apart (each count is compared with the best one on its own, without a correction for
  the several comparisons);
- the shares of *screwed* and *flooded* games are those screwed (or flooded) at the end of
  at least one of the turns played (docs/guide/metrics.md), with Wilson intervals.

The default objective is Karsten's criterion, ``compounded_mana@7`` (compounded mana spent
over turns 1-7; turns 1-8 in a Commander game). Beside the answer stand Karsten's 2022
regression count (:mod:`explore_sim.cards.karsten_lands`) and, at the best count, the
land-equivalent of the deck's explore cards taken together (how many of their vanilla
stand-ins, turned into basic lands, put as many lands on the battlefield by the last turn),
played as ``value`` plays a card's land variants: only as far as the first count of lands
that reaches the explorer deck, recording only ``lands_played``
(:func:`~.value_games.play_value_plans`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from os import PathLike
from typing import Any

import numpy as np
import pandas as pd

from ..cards import Card
from ..cards.decklist import Deck, load_deck
from ..cards.karsten_lands import KARSTEN_LANDS_SOURCE, MDFC_LAND, karsten_land_count
from ..engine.policies import Policy, one_policy
from ..errors import OptionError, clip
from ..progress import shows_progress
from .executors import executing
from .game_setup import (
    ASSUMPTIONS,
    GameSetup,
    chosen_engine,
    game_setup,
    run_meta,
    with_engine,
    with_game_options,
)
from .games import TurnPairs, TurnStats, play_paired
from .land_counts import (
    ANOTHER_CARD,
    ANOTHER_CARD_RULE,
    LandLadder,
    default_counts,
    land_ladder,
    traded_cards,
)
from .objectives import Objective, PairedValues, parse_objective
from .report import engine_text, meta_text, never_cast_lines
from .results import Result
from .run_costs import Cost, check_cost
from .runner import child_seed, seed_sequence
from .stand_ins import stand_in_plan
from .stats import wilson_interval
from .value import explore_cards
from .value_games import basis_config, play_value_plans

__all__ = ["lands", "LandsResult", "LANDS_COLUMNS", "MAX_LANDS", "default_objective",
           "objective_label"]

#: The most explore cards' stand-ins turned into lands by default: a Commander deck's explore
#: cards are worth about 8.5 (its land variants are played only as far as the first that
#: reaches the explorer deck, so a higher ceiling costs only where it is needed).
MAX_LANDS = 12

#: Columns of :meth:`LandsResult.summary`.
LANDS_COLUMNS = ("lands", "best", "tied", "mean", "se", "ci_low", "ci_high", "difference",
                 "difference_se", "difference_ci_low", "difference_ci_high", "screwed",
                 "screwed_ci_low", "screwed_ci_high", "flooded", "flooded_ci_low",
                 "flooded_ci_high", "change")
_TIED = ("tied: the 95% interval of the paired difference to the best count (per game, on "
         "the same shuffles) includes 0; each count is compared with the best on its own")


def default_objective(commander: bool) -> str:
    """Karsten's criterion: ``compounded_mana@7``, or ``compounded_mana@8`` in a Commander
    game (a multiplayer game lasts a turn longer).

    Parameters
    ----------
    commander : bool

    Returns
    -------
    str
    """
    return f"compounded_mana@{8 if commander else 7}"


def objective_label(text: str) -> str:
    """``compounded_mana@7`` as ``Karsten's compounded mana spent over turns 1-7``; any
    other objective as written.

    Parameters
    ----------
    text : str

    Returns
    -------
    str
    """
    metric, _, turn = text.partition("@")
    if metric == "compounded_mana" and turn.isdigit():
        return f"Karsten's compounded mana spent over turns 1-{turn}"
    return text


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class LandsResult(Result):
    """The outcome of :func:`lands`: the objective at each land count, the best count and
    those tied with it, the shares of screwed and flooded games, Karsten's regression count
    and what the explore cards are worth.

    Attributes
    ----------
    meta : dict
        What was run and assumed (JSON-safe): ``command`` (``"lands"``), ``deck``,
        ``objective``, ``counts``, ``trade``, ``changes``, ``best``, ``tied``, ``karsten``
        (the regression), ``explorers`` (their land-equivalent, or None), the game
        options (``on_play``: ``"both"`` for half on the play, half on the draw),
        ``trials``, ``seed``, ``assumptions`` and ``versions``.
    counts : list of int
        The land counts played, increasing.
    objective : PairedValues
        Every count's per-game objective sums and their products.
    screwed, flooded : PairedValues
        Every count's games screwed (flooded) at least once.
    stats : list of TurnStats
        Every count's metrics by turn.
    """

    meta: dict[str, Any]
    counts: list[int]
    objective: PairedValues
    screwed: PairedValues
    flooded: PairedValues
    stats: list[TurnStats]

    @property
    def best(self) -> int:
        """The best land count."""
        return self.meta["best"]

    @property
    def tied(self) -> list[int]:
        """The counts tied with the best (the best excluded)."""
        return self.meta["tied"]

    def _rows(self, level: float) -> pd.DataFrame:
        best = self.counts.index(self.best)
        rows = []
        for i, count in enumerate(self.counts):
            found = self.objective.mean(i, level)
            diff = self.objective.difference(i, best, level)
            row = {"lands": count, "best": count == self.best,
                   "tied": count in self.tied or count == self.best, **found,
                   "difference": diff["mean"], "difference_se": diff["se"],
                   "difference_ci_low": diff["ci_low"], "difference_ci_high": diff["ci_high"]}
            for name, sums in (("screwed", self.screwed), ("flooded", self.flooded)):
                share = sums.total[i] / sums.n
                low, high = wilson_interval(int(round(sums.total[i])), sums.n, level)
                row.update({name: share, f"{name}_ci_low": low, f"{name}_ci_high": high})
            row["change"] = self.meta["changes"][i]
            rows.append(row)
        return pd.DataFrame(rows, columns=list(LANDS_COLUMNS))

    def curve(self, metric: str, turn: int | None = None, level: float = 0.95) -> pd.DataFrame:
        """A per-turn metric at every land count.

        Parameters
        ----------
        metric : str
            A recorded metric, such as ``on_curve`` or ``mana_spent``.
        turn : int, optional
            The turn (default: the last played).
        level : float
            Confidence level of the intervals.

        Returns
        -------
        DataFrame
            ``lands, metric, turn, mean, se, ci_low, ci_high``.
        """
        turn = self.meta["turns"] if turn is None else turn
        frames = []
        for count, stats in zip(self.counts, self.stats):
            rows = stats.summary(level)
            rows = rows[(rows["metric"] == metric) & (rows["turn"] == turn)]
            if rows.empty:
                raise OptionError(f"metric {metric!r} at turn {turn} is not recorded here")
            frames.append(rows.assign(lands=count))
        frame = pd.concat(frames, ignore_index=True)
        return self._with_meta(frame[["lands", "metric", "turn", "mean", "se", "ci_low",
                                      "ci_high"]])

    def answer(self) -> str:
        """The answer in words: the best count and its objective, the counts tied with it,
        the deck's own count against them, the shares of screwed and flooded games,
        Karsten's regression count and what the explore cards are worth.

        Returns
        -------
        str
        """
        return _answer(self.meta, self._rows(0.95))

    def _table(self, rows: pd.DataFrame) -> str:
        return _text(self.meta, rows)

    def _facts(self) -> dict[str, Any]:
        return {"deck": self.meta["deck"][0]["name"], "objective": self.meta["objective"],
                "best": self.best, "tied": self.tied, "trials": self.meta["trials"],
                "seed": self.meta["seed"]}

    def _html(self) -> tuple[list[str], pd.DataFrame, bool]:
        table = self.summary()[["lands", "tied", "mean", "ci_low", "ci_high", "difference",
                                "screwed", "flooded"]].round(3)
        return [self._facts_line(), self.answer()], table, False


@with_game_options(positional=("turns", "on_play"))
@shows_progress("lands")
def lands(
    deck: Deck | str | PathLike[str],
    counts: Sequence[int] | None = None,
    *,
    trade: str | Sequence[str] | None = None,
    objective: str | Objective | None = None,
    policy: str | Policy = "forge",
    on_play: bool | None = None,
    trials: int = 50_000,
    seed: Any = None,
    explorers: bool = True,
    max_lands: int = MAX_LANDS,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
    scheduler: Any = None,
    **options: Any,
) -> LandsResult:
    """How many lands to play: every land count around the deck's own on the same shuffles.

    Parameters
    ----------
    deck : Deck, path or decklist text
    counts : sequence of int, optional
        The land counts to play. Default: the deck's own, give or take 7% of its size (3
        lands for 40 cards, 4 for 60, 7 for 99), as far as the traded spells allow.
    trade : str or sequence of str, optional
        Spells of the main deck traded against lands (a string holds names separated by
        commas). Default: the deck's filler (``// filler:``) when it is a spell of the main
        deck, else every spell but spell // land cards and ramp, by mana value.
    objective : str or Objective, optional
        What to maximise (:mod:`.objectives`; ``kill_turn@T`` alone is minimised). Default:
        Karsten's criterion, ``compounded_mana@7`` (``@8`` in a Commander game). The games
        last its latest turn.
    policy : str or callable
        Keep-or-mill policy (default ``forge``).
    on_play : bool, optional
        True: every game on the play; False: on the draw; None (default): half of the games
        on the play and half on the draw, as in Karsten's model.
    trials : int
        Games at each count (default 50,000).
    seed : int, SeedSequence, Generator or None
        As for :func:`explore_sim.simulate`.
    explorers : bool
        Also value the deck's explore cards together at the best count (default True).
    max_lands : int
        The most of their stand-ins turned into lands (default :data:`MAX_LANDS`).
    {game_options}
    progress, workers, scheduler
        As for :func:`explore_sim.simulate`.
    **options
        The game options (keyword-only, listed above) but ``turns`` (the objective's latest
        turn) and ``on_play`` (above).

    Returns
    -------
    LandsResult

    Raises
    ------
    OptionError
        A bad objective, count or option; a run over the cost caps (:mod:`.run_costs`).
    DeckError
        A deck without lands, a traded card not in the deck, or counts the traded spells
        cannot reach.
    """
    deck = deck if isinstance(deck, Deck) else load_deck(deck)
    if "turns" in options:
        raise OptionError("lands: the games last the objective's latest turn; write it into "
                          "the objective (compounded_mana@8) rather than turns")
    game = options.get("game", "auto")
    commander = bool(deck.commander) if game == "auto" else game == "commander"
    target = parse_objective(objective if objective is not None else default_objective(commander))
    turns = target.last_turn
    setup = game_setup([deck], trials, {**options, "turns": turns, "on_play": True})
    policy = one_policy(policy, "lands")
    _check_lands_options(on_play, max_lands)
    traded, _ = traded_cards(deck, trade)
    capacity = deck.land_count + sum(n for card, n in deck.main if card in traded)
    ladder = land_ladder(deck, default_counts(deck, capacity) if counts is None else counts,
                         trade)
    worth = _explorer_copies(deck, setup.config.cast_order) if explorers else 0
    total = _checked_cost(setup, len(ladder.decks), 2 + min(worth, max_lands) if worth else 0)
    setup = with_engine(setup, [(variant, policy) for variant in ladder.decks])
    seed_seq = seed_sequence(seed)
    extra = _ever(turns)
    with executing(workers, scheduler) as executor:
        stats, pairs = _halves([(d, policy) for d in ladder.decks], ladder.card_ids, setup,
                               seed_seq, on_play, [target, *extra], progress, 0, total,
                               executor)
        sums = pairs.objectives[target.text]
        best, tied = _best_and_tied(ladder.counts, sums, target.lower_is_better)
        found = None
        if worth:
            found = _explorers(ladder, best, policy, setup, seed_seq, on_play, max_lands,
                               turns, progress, setup.trials * len(ladder.decks), total,
                               executor)
    meta = _meta(deck, ladder, target, setup, policy, seed_seq, on_play, best, tied, found)
    return LandsResult(meta=meta, counts=ladder.counts, objective=sums,
                       screwed=pairs.objectives[extra[0].text],
                       flooded=pairs.objectives[extra[1].text], stats=stats)


def _copies(deck: Deck, cards: list[Card]) -> int:
    """How many copies of ``cards`` the main deck holds."""
    return sum(n for card, n in deck.main if card in cards)


def _checked_cost(setup: GameSetup, counts: int, explorers: int) -> int:
    """The games a run plays (every count, then the explore cards' variants), its cost
    checked first (:func:`~.run_costs.check_cost`)."""
    config = setup.config
    check_cost(Cost(setup.trials, counts + explorers, max(counts, explorers), config.turns,
                    pair_sums=(config.turns + 1) * len(config.metric_names),
                    groups=2 if explorers else 1))
    return setup.trials * (counts + explorers)


def _ever(turns: int) -> list[Objective]:
    """The objectives ``screwed_by@turns`` and ``flooded_by@turns``: 1 in a game screwed
    (flooded) at the end of one of turns 1 to ``turns``."""
    return [parse_objective(f"{name}_by@{turns}") for name in ("screwed", "flooded")]


def _explorer_copies(deck: Deck, names: Sequence[str]) -> int:
    """The copies of the deck's explore cards (:func:`~.value.explore_cards`), refusing
    before any game a card to cast first (``names``) among them: their valuation swaps each
    for its vanilla stand-in, and those decks hold no such card."""
    cards = explore_cards(deck)
    swapped = {name.casefold(): card.name for card in cards
               for name in (card.name, card.name.split(" // ")[0])}
    for name in names:
        if name.casefold() in swapped:
            raise OptionError(
                f"cast_order: {clip(swapped[name.casefold()])!r} is one of the explore cards "
                "whose worth lands values by swapping each for a vanilla stand-in; leave it "
                "out, or leave out that valuation (explorers=False, --no-explorers)")
    return _copies(deck, cards)


#: Searches that put their land into the hand (the land drop then plays it).
_TO_HAND = ("basic_hand", "land_hand")
#: A land's searches that sacrifice it for one land: a land for a land.
_ONE_FOR_ONE = ("basic_tapped", "basic_passage", "land_untapped", "land_tapped")


def lands_by_drops_only(cards: Sequence[Card]) -> bool:
    """Whether no card of ``cards`` puts a land onto the battlefield but by the land drop
    (so a deck of them has at most ``T`` lands in play at turn ``T``, whatever its lands):
    no extra land drop or land put from the hand (``extra_land``, Nicanzil's trigger), no
    search onto the battlefield but a land's sacrificing itself for one land.

    Parameters
    ----------
    cards : sequence of Card

    Returns
    -------
    bool
    """
    for card in cards:
        if card.extra_land or card.explore_trigger == "nicanzil":
            return False
        kind = card.fetch.split(":")[0]  # a typed search: KIND:TYPES
        if kind and kind not in _TO_HAND and not (
                card.is_land and card.fetch_when == "sacrifice" and kind in _ONE_FOR_ONE):
            return False
    return True


def _check_lands_options(on_play: Any, max_lands: Any) -> None:
    """Refuse an ``on_play`` other than True, False or None, and a bad ``max_lands``."""
    if on_play not in (None, True, False):
        raise OptionError(f"on_play must be True, False or None (both), got {on_play!r}")
    if isinstance(max_lands, bool) or not isinstance(max_lands, (int, np.integer)) or \
            not 1 <= max_lands <= 60:
        raise OptionError(f"max_lands must be a whole number from 1 to 60, got {max_lands!r}")


def _sides(on_play: bool | None, trials: int) -> list[tuple[bool, int]]:
    """``(on_play, games)``: every game on one side, or (None) half of them on the play
    (the odd one too) and half on the draw."""
    if on_play is None:
        return [(True, (trials + 1) // 2), (False, trials // 2)]
    return [(on_play, trials)]


def _halves(variants: list[tuple[Deck, Policy]], card_ids: list[np.ndarray], setup: GameSetup,
            seed_seq: Any, on_play: bool | None, objectives: list[Objective],
            progress: Callable[[int, int], None] | None, before: int, total: int,
            executor: Any) -> tuple[list[TurnStats], TurnPairs]:
    """Every variant on the same shuffles, on the play, on the draw, or half and half (each
    half from its own child of the seed, its sums merged into one)."""
    halves = _sides(on_play, setup.trials)
    stats: list[TurnStats] | None = None
    pairs: TurnPairs | None = None
    done = before
    for index, (first, games) in enumerate(halves):
        if games == 0:
            continue
        config = dataclasses.replace(setup.config, on_play=first)

        def step(count: int, _: int, start: int = done) -> None:
            if progress is not None:
                progress(start + count * len(variants), total)

        part_stats, part_pairs = play_paired(
            variants, config, setup.rule, setup.scry, games, child_seed(seed_seq, index),
            card_ids=card_ids, progress=step, scheduler=executor,
            engine=chosen_engine(setup), objectives=objectives)
        done += games * len(variants)
        if stats is None or pairs is None:
            stats, pairs = part_stats, part_pairs
        else:
            for total_stats, part in zip(stats, part_stats):
                total_stats.merge(part)
            pairs.merge(part_pairs)
    assert stats is not None and pairs is not None
    return stats, pairs


def _best_and_tied(counts: list[int], sums: PairedValues,
                   lower_is_better: bool) -> tuple[int, list[int]]:
    """The best count and the counts whose paired difference to it has a 95% interval that
    includes 0."""
    means = np.array([sums.mean(i)["mean"] for i in range(len(counts))])
    best = int(np.argmin(means) if lower_is_better else np.argmax(means))
    tied = []
    for i, count in enumerate(counts):
        if i != best:
            diff = sums.difference(i, best)
            if diff["ci_low"] <= 0 <= diff["ci_high"]:
                tied.append(count)
    return counts[best], tied


def _explorers(ladder: LandLadder, best: int, policy: Policy, setup: GameSetup, seed_seq: Any,
               on_play: bool | None, max_lands: int, turns: int,
               progress: Callable[[int, int], None] | None, before: int, total: int,
               executor: Any) -> dict[str, Any] | None:
    """The land-equivalent of the explore cards together at the best count, on
    ``lands_played`` at the last turn: the explorer deck, the vanilla deck and the vanilla
    deck with 1, 2, ... more lands, as far as the first that reaches the explorer deck, on
    the same shuffles as :func:`_halves` would play them (half on the play and half on the
    draw, each from its child of the seed)."""
    deck = ladder.decks[ladder.counts.index(best)]
    cards = explore_cards(deck)
    if not cards:
        return None
    plan = stand_in_plan(deck, cards, max_lands, label="its explore cards")
    seed = child_seed(seed_seq, 2)
    parts = [(first, games, child_seed(seed, index))
             for index, (first, games) in enumerate(_sides(on_play, setup.trials)) if games]

    def step(done: int, games: int) -> None:  # the first round fills the rest of the bar
        if progress is not None:
            progress(before + (total - before) * done // max(games, 1), total)

    basis = dataclasses.replace(setup, config=basis_config(setup.config, "lands_played", turns))
    kept = [card for card in (*deck.cards, *(card for card, _ in deck.commander))
            if card not in cards]  # the stand-ins' deck's other cards
    # Without the explore cards, one land drop a turn: at most `turns` lands by then.
    ceiling = float(turns) if lands_by_drops_only(kept) else None
    ((_, curve),) = play_value_plans([plan], policy, basis, [("lands_played", turns)], seed,
                                     step, executor, parts=parts, ceilings=[ceiling])
    found = curve.land_equivalent(plan.copies)
    if found.get("beyond"):
        found["note"] += (f"; one land drop a turn gives at most {turns} lands by turn "
                          f"{turns}, and no other card of the deck puts a land onto the "
                          "battlefield")
    return {"cards": [card.name for card in cards], "copies": plan.copies,
            "lands": best, "metric": "lands_played", "turn": turns,
            **{key: (None if isinstance(found[key], float) and math.isnan(found[key])
                     else float(found[key])) for key in ("mean", "se", "ci_low", "ci_high")},
            "note": found["note"], "above": bool(found.get("above")),
            "beyond_drops": bool(found.get("beyond")),
            "land_makers": [card.name for card in cards if not lands_by_drops_only([card])],
            **dict(zip(("explorer_mean", "explorer_ci_low", "explorer_ci_high"),
                       curve.explorer_interval())),
            "vanilla_mean": curve.total(1) / curve.n,
            "tried": curve.tried, "played": curve.played, "variants": curve.played_labels}


def _meta(deck: Deck, ladder: LandLadder, target: Objective, setup: GameSetup, policy: Policy,
          seed_seq: Any, on_play: bool | None, best: int, tied: list[int],
          explorers: dict[str, Any] | None) -> dict[str, Any]:
    """The metadata of a land-count answer (JSON-safe)."""
    meta = run_meta("lands", [deck], setup, [policy], seed_seq)
    regression = karsten_land_count(deck)
    meta.update(
        on_play="both" if on_play is None else on_play,
        objective=target.text, objective_label=objective_label(target.text),
        lower_is_better=target.lower_is_better, counts=ladder.counts,
        trade=[card.name for card in ladder.traded], trade_rule=ladder.trade_rule,
        changes=ladder.changes, best=best, tied=tied, explorers=explorers,
        karsten={"lands": regression.lands, "deck_lands": regression.deck_lands,
                 "average_mana_value": regression.average_mana_value,
                 "cheap": list(regression.cheap), "mdfcs": regression.mdfcs,
                 "formula": regression.formula, "rule": regression.rule,
                 "source": KARSTEN_LANDS_SOURCE},
        tie_rule=_TIED,
        assumptions=[*ASSUMPTIONS,
                     "games: half on the play and half on the draw (each half from its own "
                     "child of the seed)" if on_play is None else
                     f"games: all {'on the play' if on_play else 'on the draw'}",
                     "lands added or removed are basic lands keeping each colour's share of "
                     "the land sources; the spells traded keep their mana values' shares",
                     ANOTHER_CARD_RULE,
                     _TIED,
                     "screwed / flooded games: screwed (flooded) at the end of at least one "
                     f"of turns 1-{target.last_turn} (docs/guide/metrics.md); Wilson intervals",
                     "Karsten's regression counts a spell // land card as "
                     f"{MDFC_LAND} land and no explore card as card draw or ramp"])
    return meta


def share_text(row: Any, name: str, decimals: int = 0) -> str:
    """A share of games with its 95% interval, ``31% [30, 33]``.

    Parameters
    ----------
    row : mapping
        A row of :meth:`LandsResult.summary`: ``name``, ``name_ci_low`` and
        ``name_ci_high`` (fractions).
    name : {"screwed", "flooded"}
    decimals : int
        Decimals of the percentages.

    Returns
    -------
    str
    """
    share, low, high = (100 * row[key] for key in (name, f"{name}_ci_low", f"{name}_ci_high"))
    return f"{share:.{decimals}f}% [{low:.{decimals}f}, {high:.{decimals}f}]"


def _answer(meta: dict[str, Any], rows: pd.DataFrame) -> str:
    """The answer in words (see :meth:`LandsResult.answer`)."""
    best, tied, own = meta["best"], meta["tied"], meta["deck"][0]["lands"]
    row = rows[rows["lands"] == best].iloc[0]
    lower = ", lower is better" if meta["lower_is_better"] else ""
    score = (f"{meta['objective_label']} ({meta['objective']}{lower}: {row['mean']:.2f}, 95% "
             f"interval {row['ci_low']:.2f} to {row['ci_high']:.2f})")
    counts = meta["counts"]
    if len(counts) == 1:  # nothing to compare: no best count, no verdict
        text = [f"Only one count was played, {best} lands, {score}: there is no other to "
                "compare it with (play more counts: --counts A..B)"]
    else:
        text = [f"{best} lands is best by {score}"]
        text.append(f"; tied with it: {_listed(tied)} lands (the 95% interval of their paired "
                    f"difference to {best} includes 0)" if tied else
                    f"; no other count is tied with it (every paired difference to {best} has "
                    "a 95% interval without 0)")
        if best in (counts[0], counts[-1]):
            edge = "most" if best == counts[-1] else "fewest"
            text.append(f"; {best} is the {edge} tried, so the best count may lie beyond it "
                        "(play more counts, trading more spells if need be)")
    if own not in counts:  # nothing is known of a count not played
        text.append(f". The deck plays {own}, a count not played here (add it to the counts "
                    "to compare it).")
    else:
        text.append(f". The deck plays {own}: {_verdict(own, best, tied)}." if len(counts) > 1
                    else ".")
    text.append(f" At {best} lands {share_text(row, 'screwed')} of games are screwed and "
                f"{share_text(row, 'flooded')} flooded at least once by turn {meta['turns']} "
                "(95% intervals).")
    karsten = meta["karsten"]
    text.append(f" Karsten's 2022 regression gives {karsten['lands']:.1f} lands "
                f"({karsten['formula']}).")
    found = meta["explorers"]
    if found is not None:
        cards = f"{found['copies']} explore, Map and explore-trigger cards"
        if found.get("beyond_drops"):
            makers = found.get("land_makers") or []
            who = (f" ({', '.join(makers)} put{'s' if len(makers) == 1 else ''} extra lands "
                   "onto the battlefield)") if makers else ""
            text.append(f" At {best} lands its {cards} are worth more than any number of "
                        f"extra lands: with them the deck averages {found['explorer_mean']:.2f} "
                        f"lands in play at turn {found['turn']} (95% interval "
                        f"{found['explorer_ci_low']:.2f} to {found['explorer_ci_high']:.2f}), "
                        f"more than the {found['turn']} "
                        f"one land drop a turn allows{who}, while without them no card of the "
                        "deck puts a land onto the battlefield but the land drop (with vanilla "
                        f"stand-ins: {found['vanilla_mean']:.2f}).")
        elif found["mean"] == 0 and found["se"] == 0:  # the same games with the stand-ins
            text.append(f" At {best} lands its {cards} make no difference: the lands on the "
                        f"battlefield at turn {found['turn']} are the same with vanilla "
                        "stand-ins in every game.")
        elif found.get("above"):
            text.append(f" At {best} lands its {cards} are worth more than {found['tried']} "
                        "lands (the most tried), by the lands on the battlefield at turn "
                        f"{found['turn']}.")
        elif found["mean"] is None:
            text.append(f" Its {cards} at {best} lands: {found['note']}.")
        else:
            text.append(f" At {best} lands its {cards} are worth {found['mean']:.2f} lands "
                        f"({found['ci_low']:.2f} to {found['ci_high']:.2f}), by the lands on "
                        f"the battlefield at turn {found['turn']}.")
    return "".join(text)


def _verdict(own: int, best: int, tied: list[int]) -> str:
    """The deck's own count (one of those played) against the best and those tied with it."""
    group = sorted([best, *tied])
    if own == best:
        return "the best count"
    if own in tied:
        return "tied with the best"
    if own > group[-1]:
        return "too many by this objective"
    if own < group[0]:
        return "too few by this objective"
    return f"not one of the counts tied with {best}"


def _listed(counts: list[int]) -> str:
    items = [str(c) for c in counts]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _text(meta: dict[str, Any], rows: pd.DataFrame) -> str:
    """The command line's table."""
    import textwrap

    deck = meta["deck"][0]
    start = {"both": "half on the play, half on the draw", True: "on the play",
             False: "on the draw"}[meta["on_play"]]
    lines = [f"lands: {deck['name']} ({deck['size']} cards, {deck['lands']} lands), "
             + (f"{len(meta['counts'])} land counts on the same shuffles"
                if len(meta["counts"]) > 1 else "1 land count"),
             f"  objective: {meta['objective']} ({meta['objective_label']}), "
             f"{'lower' if meta['lower_is_better'] else 'higher'} is better",
             f"  traded against the lands: {meta['trade_rule']}",
             *never_cast_lines(meta),
             f"  games: {start}, {meta['trials']} per count; seed: {meta['seed']}; policy: "
             f"{meta_text(meta['policy'])}",
             f"  engine: {engine_text(meta)}", ""]
    lines += textwrap.wrap(_answer(meta, rows), 92)
    lines.append("")
    table = pd.DataFrame({
        "lands": [f"{c}{' *' if b else ''}" for c, b in zip(rows["lands"], rows["best"])],
        "objective (se)": [f"{m:.3f} ({s:.3f})" for m, s in zip(rows["mean"], rows["se"])],
        "- best (paired se)": [f"{m:+.3f} ({s:.3f})" for m, s in
                               zip(rows["difference"], rows["difference_se"])],
        "tied": ["best" if b else "yes" if t else "no" for b, t in
                 zip(rows["best"], rows["tied"])],
        "screwed [95%]": [share_text(row, "screwed") for _, row in rows.iterrows()],
        "flooded [95%]": [share_text(row, "flooded") for _, row in rows.iterrows()],
        "change": rows["change"].replace("", "(the deck)")})
    lines += ["  " + line for line in table.to_string(index=False).splitlines()]
    karsten = meta["karsten"]
    lines += ["",
              f"  Karsten's regression: {karsten['lands']:.2f} lands = {karsten['formula']} "
              f"({karsten['rule']});",
              f"    the deck's own count, MDFCs as {MDFC_LAND} land: {karsten['deck_lands']:.2f}; "
              f"cheap card draw or ramp: {len(karsten['cheap'])} (mana creatures and rocks "
              "of mana value 2 or less count, explore cards do not)",
              f"  {_TIED}",
              "  screwed / flooded: games screwed (flooded) at the end of at least one turn"]
    if any(ANOTHER_CARD in change for change in meta["changes"]):
        lines.append(f"  another card: {ANOTHER_CARD_RULE}")
    found = meta["explorers"]
    if found is not None:
        lines.append(f"  explore cards at {found['lands']} lands ({found['copies']} copies): "
                     f"land-equivalent of lands_played at turn {found['turn']}; "
                     f"{found['note']}")
    return "\n".join(lines) + "\n"
