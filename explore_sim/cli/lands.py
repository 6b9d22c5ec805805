"""``lands``: how many lands to play, by an objective that pays for screw and flood."""

from __future__ import annotations

import argparse

from ..analysis.land_counts import parse_counts
from ..analysis.lands import MAX_LANDS, lands
from ..cards.name_lists import joined_card_lists
from ..errors import OptionError
from . import shared
from .arguments import add_policy, add_seed_and_format, deck_help, whole
from .game_options import add_game_options, game_options_of, option_names_leaving_out
from .output import Output

__all__ = ["add_parser", "run"]

#: The game options ``lands`` sets itself: the turns (the objective's) and the side the
#: games start on (its own --on-play / --on-draw, half and half by default).
_OWN = ("turns", "on_play")


def add_parser(commands: argparse._SubParsersAction, parents: list) -> None:
    """Add ``lands`` to the command line.

    Parameters
    ----------
    commands : argparse subparsers
    parents : list of argparse.ArgumentParser
        The card-source, decklist-format, ``--plot`` and output options.
    """
    text = ("how many lands to play: every land count around the deck's own on the same "
            "shuffles, the best by an objective that pays for screw and flood (default: "
            "Karsten's compounded mana spent), the counts tied with it, the share of "
            "screwed and flooded games, Karsten's regression count and what the explore "
            "cards are worth")
    run = commands.add_parser("lands", parents=parents, help=text, description=text)
    run.add_argument("deck", help=deck_help())
    run.add_argument("--counts", default=None, metavar="COUNTS",
                     help="land counts to play, such as 20..27 or 22,24,26 (default: the "
                          "deck's own give or take 7%% of its size, as the traded spells allow)")
    run.add_argument("--trade", action="append", default=None, metavar="NAMES",
                     help="spells traded against the lands (repeatable, or names separated "
                          "by commas; default: the deck's filler, else every spell but "
                          "spell // land cards and ramp, by mana value)")
    run.add_argument("--objective", default=None,
                     help="what to maximise (kill_turn@T alone: minimise), such as "
                          "mana_spent@6 or cards_cast@7 (default: compounded_mana@7, "
                          "Karsten's criterion; @8 in Commander games)")
    start = run.add_mutually_exclusive_group()
    start.add_argument("--on-play", dest="on_play", action="store_const", const=True,
                       default=None, help="every game on the play (default: half on the "
                                          "play, half on the draw)")
    start.add_argument("--on-draw", dest="on_play", action="store_const", const=False,
                       help="every game on the draw")
    add_policy(run)
    add_game_options(run, option_names_leaving_out(_OWN))
    run.add_argument("--no-explorers", dest="explorers", action="store_false",
                     help="do not value the explore cards at the best count")
    run.add_argument("--max-lands", type=whole, default=MAX_LANDS,
                     help="the most explore cards' stand-ins turned into lands (default "
                          f"{MAX_LANDS})")
    run.add_argument("--trials", type=whole, default=50_000,
                     help="games at each land count (default 50000)")
    add_seed_and_format(run)


def run(args: argparse.Namespace) -> Output:
    """Run ``lands``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    Output
    """
    counts = None if args.counts is None else parse_counts(args.counts, "--counts")
    shared.check_plot_path(args)
    trade = None if args.trade is None else joined_card_lists(args.trade)
    if trade is not None and not trade.strip():
        raise OptionError("--trade: no card named")
    deck = shared.deck(args, args.deck)
    bar = shared.progress(args, "lands")
    with shared.scheduler(args) as scheduler:
        result = lands(deck, counts, trade=trade, objective=args.objective,
                       policy=args.policy, on_play=args.on_play, trials=args.trials,
                       seed=args.seed, explorers=args.explorers, max_lands=args.max_lands,
                       **game_options_of(args, option_names_leaving_out(_OWN)), progress=bar,
                       workers=1 if scheduler else args.workers, scheduler=scheduler)
    bar.close()
    plot = shared.plot_later(args.plot, result) if args.plot else None
    return Output(result.render(args.format), plot)
