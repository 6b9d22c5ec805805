"""``simulate``, ``compare`` and ``sweep``: goldfish games with every game option."""

from __future__ import annotations

import argparse
from typing import Any

from ..analysis.compare import compare
from ..analysis.metric_checks import check_distribution, check_metrics
from ..analysis.report import render
from ..analysis.simulate import simulate
from ..analysis.sweep import sweep
from ..cards import Card
from ..errors import OptionError
from . import shared
from .arguments import add_policy, add_seed_and_format, deck_help, whole
from .game_options import add_game_options, game_options_of
from .metrics import names_help
from .output import Output
from .vary import parse_vary

__all__ = ["add_parsers", "run"]


def add_parsers(commands: argparse._SubParsersAction, parents: list) -> None:
    """Add ``simulate``, ``compare`` and ``sweep`` to the command line.

    Parameters
    ----------
    commands : argparse subparsers
    parents : list of argparse.ArgumentParser
        The card-source, decklist-format and output options.
    """
    for name, help_text in (
        ("simulate", "play goldfish games with one deck and report metrics by turn"),
        ("compare", "compare decks and/or policies on the same shuffles, with paired differences"),
    ):
        game = commands.add_parser(name, parents=parents, help=help_text,
                                   description=help_text)
        if name == "simulate":
            game.add_argument("deck", help=deck_help())
            add_policy(game)
        else:
            game.add_argument("decks", nargs="+", metavar="DECK", help=deck_help(several=True))
            game.add_argument("--policy", action="append", dest="policies", default=None,
                              metavar="POLICY",
                              help="a policy to compare (repeat for several; default forge)")
        _add_game_options(game)
        if name == "simulate":
            game.add_argument("--distribution", default=None, metavar="METRIC",
                              help="print the full distribution of one metric at one turn "
                                   "instead of the summary: a name of --metrics; at --turn 0, "
                                   + names_help("opening"))
            game.add_argument("--turn", type=whole, default=None,
                              help="the turn of --distribution (0: the opening hand; "
                                   "default: the last turn)")
            game.add_argument("--kill-turn", action="store_true",
                              help="print the kill turn instead of the summary: per turn the "
                                   "games whose combat damage has killed the goldfish "
                                   "opponent, the median kill turn and the mean of "
                                   "min(kill turn, --turns + 1)")
        else:
            game.add_argument("--kill-turn", action="store_true",
                              help="also the mean of min(kill turn, --turns + 1) of each "
                                   "variant and its paired differences")
    sweeping = commands.add_parser(
        "sweep", parents=parents,
        help="simulate a grid of land counts, card counts, policies and decks",
        description="Simulate every combination of the --vary values (and every --deck), "
                    "each on the same seed; --out keeps the points in a Parquet file that a "
                    "rerun of the same command completes.")
    sweeping.add_argument("deck", help=deck_help())
    sweeping.add_argument("--deck", action="append", default=[], dest="more_decks",
                          metavar="DECK", help="another deck swept the same way (repeatable)")
    sweeping.add_argument("--vary", action="append", default=[], metavar="KEY=VALUES",
                          help="lands=20..26, \"Cenote Scout=0,4,8\" or policy=keep,mill,forge "
                               "(repeatable; ranges are inclusive)")
    sweeping.add_argument("--filler", default=None, metavar="CARD",
                          help="the card traded against to keep the deck size (default: the "
                               "deck's // filler: line, else Grizzly Bears)")
    sweeping.add_argument("--out", default=None, metavar="FILE",
                          help="write the points to a Parquet file as they finish; rerunning "
                               "the same command reads them back and plays only the rest")
    _add_game_options(sweeping)


def _add_game_options(game: argparse.ArgumentParser) -> None:
    """The game options of simulate, compare and sweep (from the option schema), then
    ``--metrics``, ``--trials``, ``--seed`` and ``--format``."""
    add_game_options(game)
    game.add_argument("--metrics", default=None,
                      help="comma-separated metrics to show (default: a selection): "
                           + names_help("turn"))
    game.add_argument("--trials", type=whole, default=100_000, help="games (default 100000)")
    add_seed_and_format(game)


def run(args: argparse.Namespace) -> Output:
    """Run ``simulate``, ``compare`` or ``sweep``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    Output
    """
    paths = [args.deck, *args.more_decks] if args.command == "sweep" else \
        [args.deck] if args.command == "simulate" else args.decks
    # Card names of --castable and --vary come from every deck's own card file too.
    sources = shared.sources_with_decks(args, paths)
    castable = shared.castable_cards(args, sources)
    metrics = None
    if args.metrics:  # checked before the games are played
        metrics = check_metrics([m.strip() for m in args.metrics.split(",") if m.strip()],
                                label="--metrics",
                                extra=[f"castable:{card.name}" for card in castable])
    grid = parse_vary(args.vary, sources) if args.command == "sweep" else None
    options = dict(game_options_of(args), castable=castable, trials=args.trials, seed=args.seed)
    distribution = _distribution_option(args, castable)
    if getattr(args, "kill_turn", False) and args.command == "simulate":
        if distribution is not None or args.metrics or args.plot:
            raise OptionError("--kill-turn prints the kill turn alone; leave out "
                              "--distribution, --turn, --metrics and --plot")
    shared.check_plot_path(args)
    if args.plot and grid is not None:
        from ..plotting import sweep_dimensions  # matplotlib only for a command that plots

        sweep_dimensions(grid, len(paths), label="--plot")
    decks = [shared.deck(args, path) for path in paths]
    bar = shared.progress(args, args.command)
    with shared.scheduler(args) as scheduler:
        options.update(workers=1 if scheduler else args.workers, scheduler=scheduler,
                       progress=bar)
        if args.command == "simulate":
            result: Any = simulate(decks[0], policy=args.policy, **options)
        elif args.command == "compare":
            result = compare(decks, args.policies or ["forge"], **options)
        else:
            assert grid is not None
            result = sweep(decks, grid, filler=args.filler, metrics=metrics, out=args.out,
                           catalog=sources, **options)
    bar.close()
    if getattr(args, "kill_turn", False) and args.command == "simulate":
        return Output(result.kill_turn().render(args.format, result.meta))
    if distribution is not None:
        metric, turn = distribution
        rows = result.distribution(metric, turn)
        where = " in the opening hand" if turn == 0 else f" at the end of turn {turn}"
        plot = shared.plot_later(args.plot, result, distribution=metric, turn=turn) if args.plot \
            else None
        return Output(render(args.format, result.meta, rows,
                              f"simulate: distribution of {metric}{where}"), plot)
    plot = shared.plot_later(args.plot, result, metrics) if args.plot else None
    if args.command == "compare":
        return Output(result.render(args.format, metrics=metrics, kill_turn=args.kill_turn),
                      plot)
    return Output(result.render(args.format, metrics=metrics), plot)


def _distribution_option(args: argparse.Namespace, castable: list[Card]) -> tuple[str, int] | None:
    """``(metric, turn)`` of ``simulate --distribution METRIC [--turn T]``, checked before
    any game is played (the turn defaults to the last)."""
    metric = getattr(args, "distribution", None)
    turn = getattr(args, "turn", None)
    if metric is None:
        if turn is not None:
            raise OptionError("--turn goes with --distribution METRIC")
        return None
    turn = args.turns if turn is None else turn
    if not 0 <= turn <= args.turns:
        raise OptionError(f"--turn: must be between 0 (the opening hand) and {args.turns} "
                          f"(--turns), got {turn}")
    check_distribution(metric, turn, args.turns, [f"castable:{card.name}" for card in castable],
                       label="--distribution")
    return metric, turn
