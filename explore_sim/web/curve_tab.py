"""The page's ``curve`` analysis: every nonland card's chance to be castable on curve.

The form takes what ``explore-sim curve`` takes (its turns, the keep-or-mill policy and the
game options but ``castable``: every nonland card is), the run is :func:`explore_sim.curve`,
and the result is one table, the command's, under one sentence that says its answer in words
(:func:`curve_answer`): how many cards are castable on curve at least
:data:`ANSWER_LEVEL` of the time, and which are short of Karsten's sources.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..analysis.curve import MAX_CURVE_TURNS, curve, curve_turns, sources_column
from ..analysis.report import start_text
from ..cards import CardSources
from ..cards.decklist import Deck
from .checks import card_option_errors, engine_errors
from .forms import Field
from .game_fields import GameFields
from .parts import Analysis, Progress, Table, policy_error, render_download, trials_and_seed

__all__ = ["CURVE", "ANSWER_LEVEL", "curve_answer", "curve_table"]

#: The share of games a card must be castable on curve in to count as such in the answer.
ANSWER_LEVEL = 0.8
#: The game options of the form: those of ``explore-sim curve`` (its own turns aside, and
#: castable: every nonland card is), card lists last.
_GAME = GameFields(("on_play", "mulligan", "removal", "scry_policy", "use_maps",
                    "replacement_order", "opponent_land_fraction", "game", "land_faces",
                    "engine", "cast_order"))
_FIELDS = (
    Field("turns", "turns", "int", None, "turns to play: a card is judged on turn max(mana "
          "value, 1), at most this (blank: the largest mana value of the deck's nonland "
          f"cards, at most {MAX_CURVE_TURNS})", low=1, high=50),
    Field("policy", "policy", "text", "forge", "keep or mill each revealed nonland card: a "
          "preset (keep, mill, forge, xmage, ...) or an expression"),
    _GAME,
    *trials_and_seed("games"),
)


def _nonland(deck: Deck) -> list:
    return [card for card, _ in deck.main if not card.is_land]


def _check(options: dict[str, Any], decks: list[Deck], sources: CardSources) -> dict[str, str]:
    """The policies, the cards to cast first, a deck without a nonland card (beside the
    deck), and what the kernel cannot play when it is asked for."""
    errors = {**policy_error(options, "policy"), **policy_error(options, "scry_policy"),
              **card_option_errors(options, decks)}
    deck = decks[0]
    if not _nonland(deck):
        errors["deck"] = f"curve: the deck {deck.name!r} has no nonland card"
    if errors:
        return errors
    game = dict(_GAME.options(options), turns=curve_turns(deck, options["turns"]),
                castable=_nonland(deck))
    return engine_errors(game, decks[:1], [options["policy"]])


def _run(decks: list[Deck], options: Mapping[str, Any], progress: Progress) -> Any:
    return curve(decks[0], turns=options["turns"], policy=options["policy"],
                 trials=options["trials"], seed=options["seed"], progress=progress,
                 **_GAME.options(options))


def _probability_cell(p: float, se: float) -> str:
    return "-" if pd.isna(p) else f"{p:.3f} ({se:.3f})"


def _pairs(text: str) -> dict[str, str]:
    """``"G 17, U 9"`` as ``{"G": "17", "U": "9"}``."""
    return dict(part.split(" ") for part in text.split(", ")) if text else {}


def _cost_cell(row: Any) -> str:
    """The cost, then the Karsten row each of its colours reads: ``{4}{G}{G} (G 2CC)``."""
    return f"{row.cost} ({row.karsten_row})" if row.karsten_row else row.cost


def _sources_cell(row: Any) -> str:
    have, want = _pairs(row.sources), _pairs(row.karsten)
    return ", ".join(f"{c} {have[c]} ({want[c]})" for c in row.colours) or "-"


def curve_answer(rows: pd.DataFrame, level: float = ANSWER_LEVEL) -> str:
    """The answer of a curve result in one sentence, from its numbers.

    Parameters
    ----------
    rows : DataFrame
        :meth:`~explore_sim.CurveResult.summary`'s rows.
    level : float
        The share of games that counts as castable on curve.

    Returns
    -------
    str
        How many nonland cards are castable on curve at least ``level`` of the time (and how
        many given enough lands) and the least castable card, then the cards short of
        Karsten's sources with the deck's number of each short colour and the recommended
        one.
    """
    total = len(rows)
    castable = int((rows["probability"] >= level).sum())
    given = int((rows["given_lands"] >= level).sum())  # NaN (never enough lands): not counted
    noun = "nonland card" if total == 1 else "nonland cards"
    verb = "is" if castable == 1 else "are"
    head = (f"{castable} of {total} {noun} {verb} castable on curve at least {level:.0%} of "
            f"the time ({given} of {total} given enough lands)")
    known = rows.dropna(subset=["probability"])
    if total > 1 and not known.empty:  # the weakest link of the curve, with the table's figure
        lowest = known["probability"].idxmin()
        least = known.loc[lowest]  # type: ignore[call-overload]  # loc takes idxmin's label
        head += f"; the least is {least['card']} at {100 * least['probability']:.1f}%"
    short = []
    row: Any  # a row of text columns (pandas' stubs name no column's type)
    for row in rows[rows["short"] != ""].itertuples():
        have, want = _pairs(row.sources), _pairs(row.karsten)
        short.append(f"{row.card} ({', '.join(f'{c} {have[c]} of {want[c]}' for c in row.short)})")
    if not short:
        return f"{head}; none is short of Karsten's sources."
    return f"{head}; short of Karsten's sources: {', '.join(short)}."


def curve_table(result: Any, options: Mapping[str, Any]) -> list[Table]:
    """The curve result as the page shows it: the command's table under its answer.

    Parameters
    ----------
    result : CurveResult
    options : mapping
        The run's options (unused: the result records them).

    Returns
    -------
    list of Table
    """
    rows = result.summary()
    meta = result.meta
    body = [[row.card, str(row.copies), _cost_cell(row), str(row.turn),
             _probability_cell(row.probability, row.se),
             _probability_cell(row.given_lands, row.given_lands_se),
             _sources_cell(row), row.short]
            for row in rows.itertuples()]
    play = start_text(meta)
    return [Table(
        f"curve: each nonland card on its turn (mana value, at least 1), {play}",
        ["card", "copies", "cost (Karsten row)", "turn", "castable", "given lands",
         "sources (Karsten)", "short of"],
        body,
        "cells: probability (standard error); given lands: castable given at least "
        "mana-value lands in play; Karsten row: the row of Karsten's table each colour of "
        "the cost reads (G 2CC: two green pips and two more mana; +1: a gold card's extra "
        "source); sources: the deck's sources of each colour of the cost "
        f"(Karsten 2022's recommendation, {sources_column(meta)}); short of: "
        "the colours with fewer sources than recommended",
        lead=curve_answer(rows))]


CURVE = Analysis(
    name="curve",
    title="Castable on curve",
    description="For every nonland card, the chance that the mana in play can cast it on "
                "the turn of its mana value (also given enough lands), beside the deck's "
                "coloured sources and Frank Karsten's recommended numbers.",
    form=_FIELDS,
    check=_check,
    run=_run,
    tables=curve_table,
    figure=None,  # curve draws no figure (the command has no --plot)
    download=render_download,
)
