"""The analyses the web page offers: one registry entry each.

An :class:`Analysis` says everything the page needs about one question: its form fields
(with defaults and help), a check of the options that can be refused before anything runs
(policies through the whitelist parser, metric names, card names), the call of the public
Python API that answers it (with ``progress=``, so the page can show a bar and cancel), the
result's tables and figure, and its CSV / JSON downloads (the command line's ``--format csv``
and ``--format json`` output). :data:`ANALYSES` lists them in the page's order.

Adding an analysis is adding one entry: fields (the command's options, with its names and
defaults, then ``trials`` and ``seed``), ``check``, ``run``, ``tables``, ``figure`` (None when
the command has no ``--plot``) and ``download``, then one line in :data:`ANALYSES`. The
pieces every entry is made of are in :mod:`explore_sim.web.parts`; an entry may live in a
module of its own (``curve``: :mod:`explore_sim.web.curve_tab`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from ..analysis.advise import PHASES, advice_cells, advise, maps_text, position
from ..analysis.compare import compare
from ..analysis.curve import sources_column
from ..analysis.engines import POSITION_FALLBACK
from ..analysis.explore import EXPLORE_METRICS, assumed_explores_text, explore
from ..analysis.metric_checks import (
    DEFAULT_COMPARE_METRICS,
    DEFAULT_TABLE_METRICS,
    check_metrics,
)
from ..analysis.objectives import parse_objectives
from ..analysis.report import engine_text, explores_text, meta_text, start_text
from ..analysis.simulate import mulligans_text, simulate
from ..analysis.value import DEFAULT_VALUE_METRICS, basis_text, chosen_cards, value
from ..cards import CardSources
from ..cards.decklist import Deck
from ..cards.name_lists import joined_card_lists
from ..engine.goldfish import TURN_METRICS
from ..engine.metrics import CASTABLE_PREFIX
from ..engine.policies import as_policy
from ..errors import ExploreSimError, OptionError, clip
from ..plotting import result_figure
from .answers import compare_answer, explore_answer, simulate_answer
from .checks import card_option_errors, engine_errors, explore_errors
from .curve_tab import CURVE
from .forms import Field
from .game_fields import GameFields
from .lands_tab import LANDS
from .parts import (
    Analysis,
    GameVariant,
    Progress,
    Table,
    frame_table,
    page_message,
    policy_error,
    render_download,
    trials_and_seed,
    wide_table,
)
from .replay_part import distribution_table

__all__ = ["Analysis", "Table", "ANALYSES", "MAX_VARIANTS", "Progress", "value_answer",
           "advise_answer"]

#: The most deck x policy variants one comparison plays.
MAX_VARIANTS = 8


# --------------------------------------------------------------------------- explore

_EXPLORE_FIELDS = (
    Field("explores", "explores", "int", None, "explores in a row (blank: the explorer's own "
          "count, else 1)", low=1, high=100),
    Field("drawn", "cards drawn", "int", 8, "cards drawn before exploring (opening hand and "
          "draws)", low=0, high=1000),
    Field("policy", "policy", "text", "forge", "keep or mill each revealed nonland card: a "
          "preset (keep, mill, forge, xmage, ...) or an expression"),
    Field("explorer", "explorer", "text", None, "the exploring card; one copy leaves the "
          "library"),
    Field("known", "known cards", "lines", [], "cards known to be out of the library besides "
          "those drawn, one a line or separated by commas, e.g. Forest, Cenote Scout"),
    Field("turn", "turn", "int", None, "the turn the policy sees (blank: cards drawn - 6, at "
          "least 1)", low=1, high=1000),
    Field("explorer_gone", "explorer gone", "flag", False, "the explorer left the battlefield "
          "before exploring: it still explores, without counters"),
    Field("targeted", "targeted", "flag", False, "the explore targets the explorer (a Map, a "
          "spell): gone means nothing happens"),
    Field("distribution", "distribution of", "choice", "counters", "the metric whose full "
          "distribution is listed and drawn", choices=tuple(EXPLORE_METRICS)),
    *trials_and_seed("shuffles"),
)


def _explore_check(options: dict[str, Any], decks: list[Deck],
                   sources: CardSources) -> dict[str, str]:
    return {**policy_error(options, "policy"), **explore_errors(options, decks[0])}


def _explore_run(decks: list[Deck], options: Mapping[str, Any], progress: Progress) -> Any:
    return explore(decks[0], explores=options["explores"], drawn=options["drawn"],
                   policy=options["policy"], explorer_gone=options["explorer_gone"],
                   known=joined_card_lists(options["known"]),
                   trials=options["trials"], seed=options["seed"], explorer=options["explorer"],
                   targeted=options["targeted"], turn=options["turn"], progress=progress)


def _explore_tables(result: Any, options: Mapping[str, Any]) -> list[Table]:
    metric = options["distribution"]
    summary = result.summary()
    return [
        dataclasses.replace(
            frame_table(summary, f"explore: {explores_text(result.meta['explores'])} after "
                        f"{result.meta['drawn']} cards drawn", result.meta["interval"]),
            lead=explore_answer(summary, result.meta)),
        frame_table(result.distribution(metric), f"distribution of {metric}",
                    "probability of each value, with its standard error and 95% Wilson "
                    "interval"),
    ]


EXPLORE = Analysis(
    name="explore",
    title="Explore sequence",
    description="K explores in a row by one explorer after D cards are drawn, over many "
                "shuffles: counters, lands to hand, cards milled.",
    form=_EXPLORE_FIELDS,
    check=_explore_check,
    run=_explore_run,
    tables=_explore_tables,
    figure=lambda result, options: result_figure(result, distribution=options["distribution"]),
    download=render_download,
)


# --------------------------------------------------------------------------- simulate, compare

#: Every game option of the schema with a web field.
_GAME_FIELDS = GameFields()


def _game_check(options: dict[str, Any], sources: CardSources, default_metrics: Sequence[str],
                ) -> dict[str, str]:
    """Resolve castable card names; check the metric names and the scry policy."""
    errors = policy_error(options, "scry_policy")
    castable = []
    for name in options.get("castable") or []:
        card = sources.find(name)
        if card is None:
            errors["castable"] = (f"castable: unknown card {clip(name)!r}"
                                  f"{sources.suggestion_text(name)}")
            break
        castable.append(card.name)
    options["castable"] = castable
    extra = [CASTABLE_PREFIX + name for name in castable]
    if options.get("metrics") is not None:
        try:
            options["metrics"] = check_metrics(
                [m.strip() for m in options["metrics"].split(",") if m.strip()],
                label="metrics", extra=extra) or None  # blank: the defaults
        except ExploreSimError as error:
            errors["metrics"] = str(error)
    return errors


def _game_options(options: Mapping[str, Any]) -> dict[str, Any]:
    return dict(_GAME_FIELDS.options(options), trials=options["trials"], seed=options["seed"])


def _metric_fields(default: Sequence[str]) -> tuple[Field]:
    return (
        Field("metrics", "metrics", "text", None, "comma-separated metrics for the tables and "
              f"the figure, one panel each (blank: {', '.join(default[:4])}, ...)", wide=True),
    )


def _games_figure(result: Any, options: Mapping[str, Any]) -> Figure:
    """The metrics of the tables, one panel each: the figure ``--plot`` writes."""
    return result_figure(result, options["metrics"])


def _with_castable(metrics: Sequence[str], result: Any) -> list[str]:
    return [*metrics, *(CASTABLE_PREFIX + name for name in result.meta.get("castable", []))]


def _simulate_check(options: dict[str, Any], decks: list[Deck],
                    sources: CardSources) -> dict[str, str]:
    errors = {**policy_error(options, "policy"),
              **_game_check(options, sources, DEFAULT_TABLE_METRICS),
              **card_option_errors(options, decks)}
    turn, turns = options.get("turn"), options.get("turns")
    if turn is not None and turns is not None and turn > turns:
        errors["turn"] = (f"turn: the distribution's turn must be at most turns ({turns}), got "
                          f"{turn}")
    return errors or engine_errors(_GAME_FIELDS.options(options), decks, [options["policy"]])


def _simulate_run(decks: list[Deck], options: Mapping[str, Any], progress: Progress) -> Any:
    return simulate(decks[0], policy=options["policy"], progress=progress, **_game_options(options))


def _simulate_tables(result: Any, options: Mapping[str, Any]) -> list[Table]:
    rows = result.summary()
    metrics = options["metrics"] or result.default_metrics()
    turns = range(1, result.meta["turns"] + 1)
    by_turn = rows[rows["turn"] > 0]
    mulligans = mulligans_text(rows)
    title = (f"simulate: {result.meta['turns']} turns, {start_text(result.meta)}"
             + (f"; {mulligans}" if mulligans else ""))
    last = result.meta["turns"]
    return [
        dataclasses.replace(
            wide_table(by_turn, "metric", "turn", turns, metrics,
                       lambda r: f"{r['mean']:.3f} ({r['se']:.3f})", title,
                       "cells: mean (standard error)", header=lambda t: f"turn {t}"),
            lead=simulate_answer(by_turn, metrics, last)),
        wide_table(by_turn, "metric", "turn", turns, metrics,
                   lambda r: f"{r['ci_low']:.3f} to {r['ci_high']:.3f}", "95% intervals",
                   result.meta["interval"], header=lambda t: f"turn {t}"),
        distribution_table(result, options["distribution"], options["turn"] or last),
    ]


def _simulate_games(decks: list[Deck], options: Mapping[str, Any],
                    result: Any) -> list[GameVariant]:
    """The run's one deck and policy, for its sample game and ``/replay``."""
    return [GameVariant("", decks[0], dict(_game_options(options), policy=options["policy"]))]


SIMULATE = Analysis(
    name="simulate",
    title="Goldfish by turn",
    description="Whole goldfish games with one deck: land drops, curve, counters, explores "
                "and more, turn by turn.",
    form=(
        Field("policy", "policy", "text", "forge", "keep or mill each revealed nonland card: a "
              "preset (keep, mill, forge, xmage, ...) or an expression"),
        _GAME_FIELDS,
        *_metric_fields(DEFAULT_TABLE_METRICS),
        Field("distribution", "distribution of", "choice", "lands_played", "the per-turn "
              "metric whose full distribution is listed, each value with a game that took it",
              choices=tuple(TURN_METRICS)),
        Field("turn", "on turn", "int", None, "the turn of the distribution (blank: the last "
              "turn played)", low=1, high=50),
        *trials_and_seed("games"),
    ),
    check=_simulate_check,
    run=_simulate_run,
    tables=_simulate_tables,
    figure=_games_figure,
    download=lambda result, options, fmt: result.render(fmt, metrics=options["metrics"]),
    replays=_simulate_games,
)


def _compare_check(options: dict[str, Any], decks: list[Deck],
                   sources: CardSources) -> dict[str, str]:
    errors = {**_game_check(options, sources, DEFAULT_COMPARE_METRICS),
              **card_option_errors(options, decks)}
    policies = options["policies"]
    for text in policies:
        try:
            as_policy(text)
        except ExploreSimError as error:
            errors["policies"] = f"policies: {clip(text)!r}: {error}"
            break
    variants = len(decks) * len(policies)
    if "policies" not in errors and variants < 2:
        errors["policies"] = ("policies: compare needs two variants: add a second policy (one "
                              "per line) or a second deck")
    elif variants > MAX_VARIANTS:
        errors["policies"] = (f"policies: {variants} variants (decks x policies); at most "
                              f"{MAX_VARIANTS} on this page")
    return errors or engine_errors(_GAME_FIELDS.options(options), decks, policies)


def _compare_run(decks: list[Deck], options: Mapping[str, Any], progress: Progress) -> Any:
    return compare(decks, list(options["policies"]), progress=progress, **_game_options(options))


def _compare_games(decks: list[Deck], options: Mapping[str, Any],
                   result: Any) -> list[GameVariant]:
    """Every deck x policy variant, deck-major as the result's labels are: each plays the
    run's shuffles, so trial K of one is the same deal as trial K of another."""
    pairs = [(deck, policy) for deck in decks for policy in options["policies"]]
    return [GameVariant(label, deck, dict(_game_options(options), policy=policy))
            for label, (deck, policy) in zip(result.labels, pairs)]


def _compare_tables(result: Any, options: Mapping[str, Any]) -> list[Table]:
    metrics = options["metrics"] or _with_castable(DEFAULT_COMPARE_METRICS, result)
    last = result.meta["turns"]
    rows = result.summary()
    diffs = result.paired_differences()
    at_last = rows[rows["turn"] == last]
    d = diffs[diffs["turn"] == last]
    baseline = result.labels[0]
    lead = compare_answer(d, at_last, result.labels, metrics[0], last) if metrics else ""
    return [
        dataclasses.replace(
            wide_table(at_last, "metric", "variant", result.labels, metrics,
                       lambda r: f"{r['mean']:.3f} ({r['se']:.3f})",
                       f"compare: {len(result.labels)} variants on the same shuffles, turn "
                       f"{last}", "cells: mean (standard error); all variants play the same "
                       "shuffles"), lead=lead),
        wide_table(d, "metric", "variant", result.labels[1:], metrics,
                   lambda r: f"{r['mean']:+.4f} ({r['se']:.4f}) [{r['se_unpaired']:.4f}]",
                   f"paired differences to {baseline}, turn {last}",
                   "cells: mean difference (paired standard error) [unpaired standard error]"),
        wide_table(d, "metric", "variant", result.labels[1:], metrics,
                   lambda r: f"{r['ci_low']:+.4f} to {r['ci_high']:+.4f}",
                   f"95% intervals of the differences to {baseline}, turn {last}",
                   result.meta["interval"]),
    ]


COMPARE = Analysis(
    name="compare",
    title="Compare policies or decks",
    description="Every deck x policy variant plays the same shuffles; paired differences to "
                "the first variant have small standard errors.",
    form=(
        Field("policies", "policies", "lines", ["keep", "forge"], "keep-or-mill policies to "
              "compare, one per line (presets or expressions); the first is the baseline"),
        _GAME_FIELDS,
        *_metric_fields(DEFAULT_COMPARE_METRICS),
        *trials_and_seed("games"),
    ),
    check=_compare_check,
    run=_compare_run,
    tables=_compare_tables,
    figure=_games_figure,
    download=lambda result, options, fmt: result.render(fmt, metrics=options["metrics"]),
    second_deck=True,
    replays=_compare_games,
)


# --------------------------------------------------------------------------- value

_VALUE_TURNS = GameFields(("turns",), help=(("turns", "turns to play; the differences are "
                                                     "shown for each"),))
_VALUE_GAME = GameFields(("on_play", "mulligan", "game", "engine"))
_VALUE_FIELDS = (
    Field("card", "cards to value", "lines", [], "cards of the main deck to value, one per "
          "line (blank: every explore or Map card of the deck)"),
    Field("metric", "land-equivalent of", "choice", "on_curve", "the per-turn metric the "
          "land-equivalent matches", choices=tuple(TURN_METRICS)),
    Field("turn", "at turn", "int", None, "the turn it is matched at, at most turns (blank: "
          "per card, the turn after it can first be cast: its mana value + 1, turn 3 at the "
          "earliest)", low=1, high=50),
    _VALUE_TURNS,
    Field("metrics", "metrics", "text", None, "comma-separated metrics of the differences by "
          f"turn (blank: {', '.join(DEFAULT_VALUE_METRICS[:4])}, ...)", wide=True),
    Field("max_lands", "max lands", "int", 8, "the most stand-ins replaced by basic lands; a "
          "card worth more is reported as such", low=1, high=60),
    Field("full_curve", "full curve", "flag", False, "play every count of lands up to the "
          "card's copies, at most max lands, for the whole curve (else only as far as the "
          "first that reaches the explorer deck: the same land-equivalent, faster)"),
    Field("policy", "policy", "text", "forge", "keep-or-mill policy of every deck: a preset "
          "(keep, mill, forge, xmage, ...) or an expression"),
    _VALUE_GAME,
    *trials_and_seed("games of each deck variant"),
)


def _value_check(options: dict[str, Any], decks: list[Deck],
                 sources: CardSources) -> dict[str, str]:
    """The policy, the metrics, the turn and the cards to value (in the main deck)."""
    errors = policy_error(options, "policy")
    if options.get("metrics") is not None:
        try:
            options["metrics"] = check_metrics(
                [m.strip() for m in options["metrics"].split(",") if m.strip()],
                label="metrics") or None  # blank: the defaults
        except ExploreSimError as error:
            errors["metrics"] = str(error)
    if options.get("turn") is not None and options.get("turns") is not None \
            and options["turn"] > options["turns"]:
        errors["turn"] = (f"turn: the land-equivalent's turn must be at most turns "
                          f"({options['turns']}), got {options['turn']}")
    try:  # as the command line looks them up: among the deck's own cards
        chosen_cards(decks[0], joined_card_lists(options.get("card")) or None)
    except ExploreSimError as error:
        text = page_message(error)
        errors["card"] = text if text.startswith("card") else f"card: {text}"
    game = {**_VALUE_TURNS.options(options), **_VALUE_GAME.options(options)}
    return errors or engine_errors(game, decks[:1], [options["policy"]])


def _value_run(decks: list[Deck], options: Mapping[str, Any], progress: Progress) -> Any:
    return value(decks[0], joined_card_lists(options["card"]) or None, metric=options["metric"],
                 turn=options["turn"], metrics=options["metrics"], policy=options["policy"],
                 trials=options["trials"], seed=options["seed"], max_lands=options["max_lands"],
                 full_curve=options["full_curve"], progress=progress,
                 **_VALUE_TURNS.options(options),
                 **_VALUE_GAME.options(options))


def _value_tables(result: Any, options: Mapping[str, Any]) -> list[Table]:
    """The land-equivalents, then per card: the matched metric of every deck variant, what
    exploring adds by turn (mean and paired standard error) and its 95% intervals."""
    meta = result.meta
    basis = meta["land_equivalent"]
    rows = result.summary()
    found = rows.loc[rows["metric"] == "land_equivalent",
                     ["card", "copies", "basis", "mean", "se", "ci_low", "ci_high", "note"]]
    found = found.astype(object).where(found.notna(), "")  # no number: the note says why
    tables = [frame_table(
        found,
        f"value: land-equivalents of {basis_text(basis)}",
        "mean: lands the card is worth (blank when it is worth more than every land tried, "
        "as the note says); se by the delta method; 95% interval ci_low to ci_high")]
    tables[0] = dataclasses.replace(tables[0], lead=value_answer(found))
    curve = result.curve()
    turns = range(1, meta["turns"] + 1)
    for card in result.cards:
        info = meta["cards"][card]
        lands = ", ".join(f"{n} {name}" for name, n in info["lands_added"].items())
        points = curve[curve["card"] == card]
        metric, turn = result.basis(card)
        tables.append(wide_table(
            points, "metric", "variant", info["variants"], [metric],
            lambda r: f"{r['mean']:.4f} ({r['se']:.4f})",
            f"{card} ({info['copies']} {'copy' if info['copies'] == 1 else 'copies'}): "
            f"{metric} at turn {turn} of each deck",
            f"cells: mean (standard error); stand-in: {info['stand_in']}; lands added: "
            f"{lands}"))
        diffs = rows[(rows["card"] == card) & (rows["metric"] != "land_equivalent")]
        tables.append(wide_table(
            diffs, "metric", "turn", turns, meta["metrics"],
            lambda r: f"{r['mean']:+.4f} ({r['se']:.4f})",
            f"{card}: explorer deck - vanilla deck", "cells: mean difference (paired "
            "standard error); every deck plays the same shuffles",
            header=lambda t: f"turn {t}"))
        tables.append(wide_table(
            diffs, "metric", "turn", turns, meta["metrics"],
            lambda r: f"{r['ci_low']:+.4f} to {r['ci_high']:+.4f}",
            f"{card}: 95% intervals of explorer deck - vanilla deck",
            "95%: mean difference +/- 1.96 paired standard errors",
            header=lambda t: f"turn {t}"))
    return tables


def value_answer(found: pd.DataFrame) -> str:
    """The land-equivalents in words: "4 Jadelight Ranger are worth 0.26 lands (0.24 to
    0.28), for on_curve at turn 4." (a card without a number, or the same as its
    stand-in in every game, gets its note; cards matched at different turns each say theirs).

    Parameters
    ----------
    found : DataFrame
        The land-equivalent rows: card, copies, basis (``metric@turn``), mean, ci_low,
        ci_high, note ("" for none).

    Returns
    -------
    str
        One sentence for every card.
    """
    bases = [" at turn ".join(str(basis).split("@")) for basis in found["basis"]]
    shared = len(set(bases)) == 1
    parts = []
    for row, basis in zip(found.itertuples(), bases):
        same = row.mean == 0 and row.ci_low == 0 and row.ci_high == 0  # in every game
        if row.mean == "" or (same and row.note):
            part = f"{row.copies} {row.card}: {row.note}"
        else:
            part = (f"{row.copies} {row.card} {'is' if row.copies == 1 else 'are'} worth "
                    f"{row.mean:.2f} lands ({row.ci_low:.2f} to {row.ci_high:.2f})")
        parts.append(part if shared else f"{part}, for {basis}")
    return f"{'; '.join(parts)}, for {bases[0]}." if shared else f"{'; '.join(parts)}."


VALUE = Analysis(
    name="value",
    title="Value of explore cards",
    description="What each explore or Map card adds against a vanilla stand-in (the same "
                "card without explore), and how many lands it is worth, on the same "
                "shuffles.",
    form=_VALUE_FIELDS,
    check=_value_check,
    run=_value_run,
    tables=_value_tables,
    figure=lambda result, options: result_figure(result),  # what value --plot writes
    download=render_download,
)


# --------------------------------------------------------------------------- advise

#: The advise form's help of the engine (the NumPy engine plays on from a position).
_ADVISE_ENGINE = ("auto or numpy: the numpy engine plays on from a position (kernel is "
                  "refused: it plays whole games from the deal)")
_ADVISE_FIELDS = (
    Field("turn", "turn", "int", None, "the turn being played (required)", low=1, high=50),
    GameFields(("on_play",), help=(("on_play", "you are on the draw"),)),
    Field("revealed", "revealed", "text", None, "the nonland card the explore revealed "
          "(required)"),
    Field("explorer", "explorer", "text", None, "the exploring permanent (blank: the only "
          "explore card on the battlefield; added to it if not listed)"),
    Field("explores_left", "explores left", "int", 1, "explores left in this sequence, this "
          "one included (Jadelight Ranger's first: 2)", low=1, high=20),
    Field("explorer_in_play", "explorer in play", "flag", False, "the explorer was not cast "
          "this turn (a Map, an attack, a spell made it explore): nothing is paid for it, it "
          "is not summoning sick"),
    Field("mana_used", "mana used", "int", 0, "mana paid from your sources (lands, mana "
          "creatures) this turn besides the explorer's cost (a Map's {1}, a spell cast before "
          "the explore), as generic mana", low=0, high=99),
    Field("maps", "Map tokens", "int", 0, "Map tokens you control now, besides any used for "
          "this explore: the game uses them as it uses its own", low=0, high=20),
    Field("phase", "phase", "choice", "main1", "where in the turn the explore happens: the "
          "first or the second main phase", choices=PHASES),
    Field("hand", "hand", "lines", [], "cards in hand, one a line or separated by commas, "
          "e.g. Forest, 2 Swamp"),
    Field("battlefield", "battlefield", "lines", [], "permanents you control, lands "
          "included, one a line or separated by commas"),
    Field("graveyard", "graveyard", "lines", [], "cards in your graveyard, one a line or "
          "separated by commas"),
    Field("objective", "objectives", "text", None, "comma-separated objectives such as "
          "on_curve@5,mana_spent@6 (blank: on_curve next turn, mana_spent three turns on)",
          wide=True),
    Field("policy", "policy", "text", "forge", "later keep-or-mill decisions (and scries): a "
          "preset (keep, mill, forge, xmage, ...) or an expression"),
    GameFields(("game", "engine"), help=(("engine", _ADVISE_ENGINE),)),
    *trials_and_seed("libraries (each played by both choices)"),
)
#: The advise fields a position's error can name (its message starts with the name).
_POSITION_FIELDS = ("hand", "battlefield", "graveyard", "revealed", "explorer",
                    "explores_left", "mana_used", "maps", "turn", "phase")


def _position_options(options: Mapping[str, Any]) -> dict[str, Any]:
    return dict(turn=options["turn"], revealed=options["revealed"],
                hand=joined_card_lists(options["hand"]),
                battlefield=joined_card_lists(options["battlefield"]),
                graveyard=joined_card_lists(options["graveyard"]),
                explorer=options["explorer"], explores_left=options["explores_left"],
                explorer_cast=not options["explorer_in_play"], mana_used=options["mana_used"],
                maps=options["maps"], on_play=not options["on_draw"], phase=options["phase"])


def _advise_check(options: dict[str, Any], decks: list[Deck],
                  sources: CardSources) -> dict[str, str]:
    """The policy, the objectives and the position (its cards looked up in the deck)."""
    errors = policy_error(options, "policy")
    if options.get("engine") == "kernel":
        errors["engine"] = f"engine 'kernel': {POSITION_FALLBACK}; choose auto or numpy"
    for name, what in (("turn", "the turn being played"),
                       ("revealed", "the nonland card the explore revealed")):
        if options.get(name) is None:
            errors[name] = f"{name}: enter {what}"
    if errors.keys() & {"turn", "revealed"}:
        return errors
    if options.get("objective") is not None:
        try:
            for objective in parse_objectives(options["objective"]):
                if objective.first_turn < options["turn"]:
                    raise OptionError(f"{objective.text!r} looks at turn "
                                      f"{objective.first_turn}, before the position's turn "
                                      f"{options['turn']}")
        except ExploreSimError as error:
            text = str(error)
            errors["objective"] = text if text.startswith("objective") else \
                f"objectives: {text}"
    try:
        position(decks[0], **_position_options(options))
    except ExploreSimError as error:
        text = page_message(error)
        field = next((name for name in _POSITION_FIELDS
                      if text.startswith((f"{name}:", f"{name} "))), "position")
        errors[field] = text
    return errors


def _advise_run(decks: list[Deck], options: Mapping[str, Any], progress: Progress) -> Any:
    return advise(decks[0], **_position_options(options), objectives=options["objective"],
                  policy=options["policy"], trials=options["trials"], seed=options["seed"],
                  game=options["game"], engine=options["engine"], progress=progress)


def _advise_tables(result: Any, options: Mapping[str, Any]) -> list[Table]:
    rows = result.summary()
    where = result.meta["position"]
    shown = advice_cells(rows, interval=lambda lo, hi: f"{lo:+.4f} to {hi:+.4f}")
    table = frame_table(
        shown, f"advise: keep or mill {where['revealed']}, revealed by {where['explorer']} "
               f"on turn {where['turn']}",
        "cells: mean (standard error); mill - keep is paired: both choices play the same "
        "library in every trial; verdict: mill or keep when the 95% interval is on one side "
        "of 0")
    return [dataclasses.replace(table, lead=advise_answer(rows, where["revealed"]))]


def advise_answer(rows: pd.DataFrame, revealed: str) -> str:
    """The verdicts in words: "Mill Tishana's Wayfinder: on_curve@4 +0.1420 (se 0.0078)."

    Parameters
    ----------
    rows : DataFrame
        :meth:`~explore_sim.analysis.advise.AdviceResult.summary`: objective, difference
        (mill - keep), se, verdict.
    revealed : str
        The card the explore revealed.

    Returns
    -------
    str
        "Mill CARD", "Keep CARD" or "No single choice for CARD", then each objective's
        difference.
    """
    # An objective the choice cannot change (the same in every game: difference and se 0)
    # does not stand in the way of the others' verdict.
    same = (rows["difference"] == 0) & (rows["se"] == 0)
    verdicts = set(rows.loc[~same, "verdict"])
    if verdicts == {"mill"} or verdicts == {"keep"}:
        head = f"{verdicts.pop().capitalize()} {revealed}"
        unchanged = list(rows.loc[same, "objective"])
        if unchanged:
            head += f" ({', '.join(unchanged)} the same either way)"
    else:  # the objectives disagree, or an interval straddles 0
        head = f"No single choice for {revealed}"
    cells = ", ".join(f"{r.objective} {r.difference:+.4f} (se {r.se:.4f})"
                      for r in rows.itertuples())
    return f"{head}: mill - keep {cells}."


ADVISE = Analysis(
    name="advise",
    title="Keep or mill, now",
    description="From your position (turn, hand, battlefield, graveyard and the card an "
                "explore just revealed), keep and mill are both played on, on the same "
                "libraries: the paired difference says which is better.",
    form=_ADVISE_FIELDS,
    check=_advise_check,
    run=_advise_run,
    tables=_advise_tables,
    figure=None,  # advise draws no figure (the command has no --plot)
    download=render_download,
)


#: The analyses of the page, in its order.
ANALYSES: dict[str, Analysis] = {a.name: a for a in (EXPLORE, SIMULATE, COMPARE, VALUE,
                                                       LANDS, CURVE, ADVISE)}


def describe_run(result: Any) -> list[tuple[str, str]]:
    """``(label, text)`` facts of a result's metadata for the page: decks, policies, trials,
    seed and the options that differ from the defaults.

    Parameters
    ----------
    result : ExploreResult, SimulationResult, CompareResult, ValueResult, CurveResult or
        AdviceResult

    Returns
    -------
    list of (str, str)
    """
    meta = result.meta
    facts = []
    for key, plural in (("deck", "decks"), ("policy", "policies")):
        if meta.get(key):
            facts.append((key if len(meta[key]) == 1 else plural, meta_text(meta[key])))
    if "cards" in meta:  # value
        basis = meta["land_equivalent"]
        facts += [("cards", meta_text(list(meta["cards"]))),
                  ("land-equivalent of", f"{basis_text(basis)} (at most "
                                         f"{basis['max_lands']} lands)")]
    where = meta.get("position")
    if where is not None:  # advise
        start = "on the play" if where["on_play"] else "on the draw"
        phase = "first" if where["phase"] == "main1" else "second"
        facts += [
            ("position", f"turn {where['turn']} {start}, {phase} main phase"
                         + (f"; {where['mana_used']} mana used before the explore"
                            if where.get("mana_used") else "")
                         + (f"; {maps_text(where['maps'])} in play"
                            if where.get("maps") else "")),
            ("revealed", f"{where['revealed']} by {where['explorer']} "
                         f"({explores_text(where['explores_left'])} left, this one included)"),
            *((zone, meta_text(where[zone]) or "-") for zone in ("hand", "battlefield",
                                                                 "graveyard")),
            ("objectives", meta_text(meta["objectives"])),
        ]
    for key in ("explores", "drawn", "turn", "explorer", "turns", "mulligan", "removal", "game"):
        if (key == "turns" and where) or (key == "removal" and "cards" in meta):
            continue  # advise plays to its objectives' last turn; value has no removal
        if key in meta and meta[key] is not None:
            assumed = key == "explores" and meta.get("explores_assumed")
            facts.append((key, meta_text(meta[key])
                          + (f" ({assumed_explores_text(meta)})" if assumed else "")))
    if "on_play" in meta:
        facts.append(("start", start_text(meta)))
    if "life" in meta:  # the goldfish opponent's; 0 is each format's (20, 40 in Commander)
        lives = sorted({f["starting_life"] for f in meta.get("formats", [])})
        facts.append(("opponent's life", str(meta["life"]) if meta["life"] else
                      f"{meta_text(lives)} (the format's)"))
    if "engine" in meta:
        facts.append(("engine", engine_text(meta)))
    if "karsten_column" in meta:  # curve
        facts.append(("sources recommended", f"Karsten 2022, {sources_column(meta)}"))
    trials = f"{meta['trials']:,}"
    if "trials_asked" in meta:  # stopped early: the trials finished (runner.stopped_meta)
        trials += f" of {meta['trials_asked']:,} asked (cancelled)"
    facts += [("trials", trials), ("seed", str(meta.get("seed")))]
    return facts


