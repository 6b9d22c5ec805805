"""The page's ``lands`` analysis: how many lands to play.

The form takes what ``explore-sim lands`` takes (the land counts, the spells traded, the
objective, which side of the table the games start on, the policy, the game options but the
turns, whether to value the explore cards), the run is :func:`explore_sim.lands`,
and the result is the command's table under the answer in words
(:meth:`~explore_sim.LandsResult.answer`), with a figure of the objective by land count.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..analysis.land_counts import default_counts, land_ladder, parse_counts, traded_cards
from ..analysis.lands import MAX_LANDS, lands, share_text
from ..analysis.objectives import parse_objective
from ..cards import CardSources
from ..cards.decklist import Deck
from ..cards.name_lists import joined_card_lists
from ..errors import ExploreSimError
from ..plotting import result_figure
from .checks import card_option_errors, engine_errors
from .forms import Field
from .game_fields import GameFields
from .parts import (
    Analysis,
    Progress,
    Table,
    page_message,
    policy_error,
    render_download,
    trials_and_seed,
)

__all__ = ["LANDS", "lands_counts", "lands_table"]

_STARTS = {"both": None, "play": True, "draw": False}
_GAME = GameFields(("mulligan", "removal", "scry_policy", "use_maps", "replacement_order",
                    "opponent_land_fraction", "life", "game", "land_faces", "engine",
                    "cast_order"))
_FIELDS = (
    Field("counts", "land counts", "text", None, "such as 20..27 or 22,24,26 (blank: the "
          "deck's own give or take 7% of its size, as far as the traded spells allow)"),
    Field("trade", "trade against", "lines", [], "spells traded against the lands, one per "
          "line (blank: the deck's filler, else every spell but spell // land cards and "
          "ramp, by mana value)"),
    Field("objective", "objective", "text", None, "what to maximise, such as mana_spent@6 "
          "(kill_turn@T alone: minimised; blank: compounded_mana@7, Karsten's compounded "
          "mana spent, @8 in Commander games)", wide=True),
    Field("start", "games start", "choice", "both", "half on the play and half on the draw "
          "(Karsten's), or all on the play, or all on the draw", choices=tuple(_STARTS)),
    Field("policy", "policy", "text", "forge", "keep or mill each revealed nonland card: a "
          "preset (keep, mill, forge, xmage, ...) or an expression"),
    _GAME,
    Field("no_explorers", "no explorers", "flag", False, "do not value the explore cards at "
          "the best count"),
    Field("max_lands", "max lands", "int", MAX_LANDS, "the most explore cards' stand-ins "
          "turned into lands", low=1, high=60),
    *trials_and_seed("games at each land count"),
)


def lands_counts(deck: Deck, options: Mapping[str, Any]) -> list[int]:
    """The land counts a run plays: those of the ``counts`` field, else the default ones.

    Parameters
    ----------
    deck : Deck
    options : mapping
        The form's options.

    Returns
    -------
    list of int
    """
    if options.get("counts"):
        return parse_counts(options["counts"], "counts")
    traded, _ = traded_cards(deck, _trade(options))
    return default_counts(deck, deck.land_count + sum(n for c, n in deck.main if c in traded))


def _trade(options: Mapping[str, Any]) -> str | None:
    return joined_card_lists(options.get("trade") or []) or None


def _check(options: dict[str, Any], decks: list[Deck], sources: CardSources) -> dict[str, str]:
    """The policy, the counts, the spells traded and the objective, each beside its field;
    then what the kernel cannot play when it is asked for."""
    errors = {**policy_error(options, "policy"), **policy_error(options, "scry_policy"),
              **card_option_errors(options, decks)}
    deck = decks[0]
    if not deck.land_count:  # the decklist's fault, whatever the counts asked
        return {**errors, "deck": f"lands: the deck {deck.name!r} has no land to add or remove"}
    for name, test in (("counts", lambda: land_ladder(deck, lands_counts(deck, options),
                                                      _trade(options))),
                       ("trade", lambda: traded_cards(deck, _trade(options))),
                       ("objective", lambda: options.get("objective") and
                        parse_objective(options["objective"]))):
        try:
            test()
        except ExploreSimError as error:
            text = page_message(error)
            errors[name] = text if text.startswith(name) else f"{name}: {text}"
    if errors:
        return errors
    objective = options.get("objective") or ("compounded_mana@8" if deck.commander else
                                             "compounded_mana@7")
    game = dict(_GAME.options(options), turns=parse_objective(objective).last_turn)
    return engine_errors(game, decks[:1], [options["policy"]])


def _run(decks: list[Deck], options: Mapping[str, Any], progress: Progress) -> Any:
    return lands(decks[0], lands_counts(decks[0], options), trade=_trade(options),
                 objective=options.get("objective") or None, policy=options["policy"],
                 on_play=_STARTS[options["start"]], trials=options["trials"],
                 seed=options["seed"], explorers=not options["no_explorers"],
                 max_lands=options["max_lands"], progress=progress, **_GAME.options(options))


def lands_table(result: Any, options: Mapping[str, Any]) -> list[Table]:
    """The lands result as the page shows it: one row per land count under the answer.

    Parameters
    ----------
    result : LandsResult
    options : mapping
        The run's options (unused: the result records them).

    Returns
    -------
    list of Table
    """
    rows = result.summary()
    meta = result.meta
    body = [[str(row.lands), "best" if row.best else "yes" if row.tied else "no",
             f"{row.mean:.3f} ({row.se:.3f})",
             f"{row.ci_low:.3f} to {row.ci_high:.3f}",
             f"{row.difference:+.3f} ({row.difference_se:.3f})",
             share_text(row._asdict(), "screwed", 1), share_text(row._asdict(), "flooded", 1),
             row.change or "(the deck)"]
            for row in rows.itertuples()]
    start = {"both": "half on the play, half on the draw", True: "on the play",
             False: "on the draw"}[meta["on_play"]]
    return [Table(
        f"lands: {meta['objective']} by land count ({meta['objective_label']}), {start}",
        ["lands", "tied", "objective", "95% interval", "- best", "screwed", "flooded",
         "change"],
        body,
        f"objective: mean (standard error); - best: the paired difference to the best count "
        f"(paired standard error); tied: {meta['tie_rule'].split(': ', 1)[1]}; screwed, "
        f"flooded: games screwed (flooded) at the end of at least one of turns 1-"
        f"{meta['turns']}, [95% interval]; traded: {meta['trade_rule']}",
        lead=result.answer())]


LANDS = Analysis(
    name="lands",
    title="How many lands",
    description="How many lands to play: every land count around the deck's own on the same "
                "shuffles, the best by an objective that pays for both screw and flood "
                "(Karsten's compounded mana spent), the counts tied with it, the share of "
                "screwed and flooded games, Karsten's regression count, and what the explore "
                "cards are worth.",
    form=_FIELDS,
    check=_check,
    run=_run,
    tables=lands_table,
    figure=lambda result, options: result_figure(result),  # what lands --plot writes
    download=render_download,
)
