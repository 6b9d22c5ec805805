"""The command line's parser: the options every command shares, then each command's own
(added by its module)."""

from __future__ import annotations

import argparse

from .._version import __version__
from ..analysis.executors import DEFAULT_CONNECT_TIMEOUT, SCHEDULER_ENV
from ..cards.decklist import DECK_FORMATS
from . import (
    answers,
    cards,
    curve,
    decks as shipped_decks,
    explore,
    games,
    lands,
    metrics,
    replay,
    serve,
)
from .arguments import PROG, Parser, count, seconds

__all__ = ["build_parser", "option_flags"]


def build_parser() -> argparse.ArgumentParser:
    """The ``explore-sim`` parser, built from the option schema as it is now.

    Returns
    -------
    argparse.ArgumentParser
    """
    parser = Parser(
        prog=PROG,
        description="Monte Carlo analysis of the explore mechanic for Magic: The Gathering decks.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sources, decks, plot, output = _parents()
    cards.add_parsers(commands, sources, decks)
    explore.add_parser(commands, [sources, decks, plot, output])
    games.add_parsers(commands, [sources, decks, plot, output])
    answers.add_parsers(commands, [sources, decks, output], plot)
    lands.add_parser(commands, [sources, decks, plot, output])
    curve.add_parser(commands, [sources, decks, output])
    replay.add_parser(commands, [sources, decks])
    metrics.add_parser(commands)
    shipped_decks.add_parser(commands)
    serve.add_parser(commands)
    return parser


def _parents() -> tuple[Parser, Parser, Parser, Parser]:
    """The shared options: card sources, the decklist format, ``--plot`` (for the commands
    that draw a figure), and output and where to run."""
    sources = Parser(add_help=False)
    sources.add_argument("--cards", action="append", default=[], metavar="FILE",
                         help="a card file (.toml or .csv) with homebrew cards or fixes; "
                              "repeatable")
    sources.add_argument("--cards-dir", default=None, metavar="DIR",
                         help="directory of the imported card index "
                              "(default $EXPLORE_SIM_CARDS_DIR or ~/.local/share/explore_sim)")
    decks = Parser(add_help=False)
    decks.add_argument("--deck-format", choices=DECK_FORMATS, default="auto",
                       help="decklist format (default: detected)")
    plot = Parser(add_help=False)
    plot.add_argument("--plot", default=None, metavar="FILE",
                      help="also draw a figure into FILE (.png, .svg or .pdf)")
    output = Parser(add_help=False)
    output.add_argument("--quiet", action="store_true", help="no progress bar")
    output.add_argument("--workers", type=count, default=1,
                        help="processes to run on (0: every core; the numbers do not change)")
    output.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="run on a Dask cluster: its scheduler's tcp://HOST:PORT (default "
                             f"${SCHEDULER_ENV}; needs pip install 'explore_sim[distributed]')")
    output.add_argument("--scheduler-timeout", type=seconds, default=DEFAULT_CONNECT_TIMEOUT,
                        metavar="SECONDS",
                        help="seconds to wait for the scheduler and its first worker "
                             f"(default {DEFAULT_CONNECT_TIMEOUT:g})")
    return sources, decks, plot, output


def option_flags(parser: argparse.ArgumentParser, command: str | None) -> dict[str, str]:
    """A command's options by the Python keyword they set: ``{"cast_order": "--cast-first",
    "max_lands": "--max-lands", ...}`` (the long flag of each option with one).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        :func:`build_parser`'s.
    command : str or None
        The command run (``"simulate"``).

    Returns
    -------
    dict of str to str
    """
    flags: dict[str, str] = {}
    for action in parser._actions:  # the subcommands' parsers, by name
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            for option in action.choices[command]._actions:
                long = [flag for flag in option.option_strings if flag.startswith("--")]
                for keyword in (option.dest, *(f[2:].replace("-", "_") for f in long)):
                    if long and keyword not in flags:  # ``card`` for --card (value_cards)
                        flags[keyword] = long[0]
    return flags
