"""``replay``: one trial of a ``simulate`` run played again, turn by turn."""

from __future__ import annotations

import argparse

from ..analysis.replay import replay
from ..analysis.report import render
from . import shared
from .arguments import add_policy, add_seed_and_format, deck_help, whole
from .game_options import add_game_options, game_options_of, option_names_leaving_out
from .output import Output

__all__ = ["add_parser", "run"]

#: The game options ``replay`` reads apart: ``--engine`` (a replay is the compiled kernel's
#: game, left out) and ``--castable`` (card names, found as simulate finds them: the cards
#: named steer the land choice, so a replay of a run with them names them too).
_OWN = ("engine", "castable")


def add_parser(commands: argparse._SubParsersAction, parents: list) -> None:
    """Add ``replay`` to the command line.

    Parameters
    ----------
    commands : argparse subparsers
    parents : list of argparse.ArgumentParser
        The card-source and decklist-format options.
    """
    text = ("play one trial of a simulate run again (the same deck, options and seed) and "
            "print what happened in it, turn by turn")
    run = commands.add_parser("replay", parents=parents, help=text, description=text)
    run.add_argument("deck", help=deck_help())
    run.add_argument("--trial", type=whole, default=0,
                     help="the game's index in the run: 0 to --trials minus 1 (default 0)")
    add_policy(run)
    add_game_options(run, option_names_leaving_out(_OWN))
    run.add_argument("--castable", action="append", default=[], metavar="CARD",
                     help="a card named by simulate's --castable (repeatable): the land choice "
                          "plays toward it, so the run replayed named it too")
    run.add_argument("--trials", type=whole, default=100_000,
                     help="the run's games (default 100000, as simulate); bounds --trial")
    add_seed_and_format(run)


def run(args: argparse.Namespace) -> Output:
    """Run ``replay``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    Output
        The log (``--format table``), or the events' rows (csv, json).
    """
    deck = shared.deck(args, args.deck)
    castable = shared.castable_cards(args, shared.sources_with_decks(args, [args.deck]))
    result = replay(deck, trial=args.trial, policy=args.policy, trials=args.trials,
                    seed=args.seed, castable=castable,
                    **game_options_of(args, option_names_leaving_out(_OWN)))
    if args.format == "table":
        return Output(result.text())
    return Output(render(args.format, result.meta, result.events, ""))
