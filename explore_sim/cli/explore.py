"""``explore``: one explore sequence over many shuffles of a deck."""

from __future__ import annotations

import argparse

from ..analysis.explore import EXPLORE_METRICS, explore
from ..analysis.report import render
from ..cards.name_lists import joined_card_lists
from . import shared
from .arguments import add_policy, add_seed_and_format, count, deck_help, whole
from .metrics import names_help
from .output import Output

__all__ = ["add_parser", "run"]


def add_parser(commands: argparse._SubParsersAction, parents: list) -> None:
    """Add ``explore`` to the command line.

    Parameters
    ----------
    commands : argparse subparsers
    parents : list of argparse.ArgumentParser
        The card-source, decklist-format and output options.
    """
    run = commands.add_parser(
        "explore", parents=parents,
        help="simulate an explore sequence over many shuffles of a deck",
        description="Simulate K explores in a row after D cards are drawn, over many shuffles.",
    )
    run.add_argument("deck", help=deck_help())
    run.add_argument("--explores", type=count, default=None,
                     help="explores in a row (default: the explorer's own count, else 1)")
    run.add_argument("--drawn", type=count, default=8,
                     help="cards drawn before exploring (default 8)")
    add_policy(run)
    run.add_argument("--explorer", default=None,
                     help="the exploring card, in the deck: one copy leaves the library")
    run.add_argument("--explorer-outside", action="store_true",
                     help="the explorer comes from outside the deck (a token, the sideboard): "
                          "no copy leaves the library")
    run.add_argument("--explorer-gone", action="store_true",
                     help="the explorer left the battlefield before exploring: it still "
                          "explores, without counters")
    run.add_argument("--targeted", action="store_true",
                     help="the explore targets the explorer (Map, spell): gone means nothing")
    run.add_argument("--known", action="append", default=[], metavar="CARDS",
                     help='cards known to be out of the library besides those drawn, e.g. '
                          '"Forest, Cenote Scout" (repeatable; a name with commas is read '
                          "whole)")
    run.add_argument("--turn", type=whole, default=None,
                     help="turn number the policy sees (default: drawn - 6, at least 1)")
    run.add_argument("--trials", type=whole, default=100_000, help="shuffles (default 100000)")
    add_seed_and_format(run)
    run.add_argument("--distribution", choices=list(EXPLORE_METRICS), default=None,
                     metavar="METRIC",
                     help="print the full distribution of one metric instead of the summary: "
                          + names_help("explore"))


def run(args: argparse.Namespace) -> Output:
    """Run ``explore``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    Output
    """
    shared.check_plot_path(args)
    deck = shared.deck(args, args.deck)
    explorer = args.explorer
    if explorer:  # the deck's card if it has one, else any card of --cards or --cards-dir
        explorer = shared.sources(args).find(explorer) or explorer
    bar = shared.progress(args, "explore")
    with shared.scheduler(args) as scheduler:
        result = explore(
            deck,
            explores=args.explores,
            drawn=args.drawn,
            policy=args.policy,
            explorer_gone=args.explorer_gone,
            known=joined_card_lists(args.known),
            trials=args.trials,
            seed=args.seed,
            explorer=explorer,
            explorer_outside=args.explorer_outside,
            targeted=args.targeted,
            turn=args.turn,
            progress=bar,
            workers=1 if scheduler else args.workers,
            scheduler=scheduler,
        )
    bar.close()
    plot = shared.plot_later(args.plot, result, distribution=args.distribution) if args.plot \
        else None
    if args.distribution:
        rows = result.distribution(args.distribution)
        title = f"distribution of {args.distribution}"
        return Output(render(args.format, result.meta, rows, title), plot)
    return Output(result.render(args.format), plot)
