"""``curve``: for every nonland card of a deck, the probability it is castable on curve."""

from __future__ import annotations

import argparse

from ..analysis.curve import MAX_CURVE_TURNS, curve
from ..errors import OptionError
from . import shared
from .arguments import add_policy, add_seed_and_format, deck_help, whole
from .game_options import add_game_options, game_options_of, option_names_leaving_out
from .output import Output

__all__ = ["add_parser", "run"]

#: The game options ``curve`` leaves out: its own ``--turns``, and ``--castable`` (every
#: nonland card is).
_OWN = ("turns", "castable")


def add_parser(commands: argparse._SubParsersAction, parents: list) -> None:
    """Add ``curve`` to the command line.

    Parameters
    ----------
    commands : argparse subparsers
    parents : list of argparse.ArgumentParser
        The card-source, decklist-format and output options.
    """
    text = ("for every nonland card, the probability it is castable on curve (on the turn of "
            "its mana value), also given enough lands, beside the deck's coloured sources "
            "and Frank Karsten's recommended numbers")
    run = commands.add_parser("curve", parents=parents, help=text, description=text)
    run.add_argument("deck", help=deck_help())
    run.add_argument("--turns", type=whole, default=None,
                     help="turns to play: a card is judged on turn max(mana value, 1), at most "
                          f"this (default: the largest mana value, at most {MAX_CURVE_TURNS})")
    add_policy(run)
    add_game_options(run, option_names_leaving_out(_OWN))
    run.add_argument("--trials", type=whole, default=100_000, help="games (default 100000)")
    add_seed_and_format(run)


def run(args: argparse.Namespace) -> Output:
    """Run ``curve``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    Output
    """
    if args.turns is not None and not 1 <= args.turns <= 50:
        raise OptionError(f"--turns: must be between 1 and 50, got {args.turns}")
    deck = shared.deck(args, args.deck)
    bar = shared.progress(args, "curve")
    with shared.scheduler(args) as scheduler:
        result = curve(deck, turns=args.turns, policy=args.policy, trials=args.trials,
                       seed=args.seed, **game_options_of(args, option_names_leaving_out(_OWN)),
                       progress=bar,
                       workers=1 if scheduler else args.workers, scheduler=scheduler)
    bar.close()
    return Output(result.render(args.format))
