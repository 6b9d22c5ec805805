"""The ``explore-sim`` command line.

Every input error is printed as one line, ``explore-sim: error: ...``, with exit status 2;
warnings go to standard error as ``explore-sim: warning: ...``. Nothing printed carries
terminal control characters. Results are printed before a figure is drawn, so a figure that
cannot be written (exit status 2) never costs the results. Output into a closed pipe ends
quietly with status 141 (128 + SIGPIPE); a full disk or a closed standard output is an
error. Only ``explore-sim cards update`` and ``--scheduler`` (a Dask cluster) use the network.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import os
import re
import stat
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ._version import __version__
from .analysis.advise import advise
from .analysis.executors import (
    DEFAULT_CONNECT_TIMEOUT,
    SCHEDULER_ENV,
    DaskExecutor,
    Executor,
)
from .analysis.explore import EXPLORE_METRICS, explore
from .analysis.report import FORMATS, render, text_table
from .analysis.compare import compare
from .analysis.metric_checks import check_distribution, check_metrics
from .analysis.simulate import simulate
from .analysis.sweep import sweep
from .analysis.tune import tune
from .analysis.value import value
from .cards import Card, CardSources, Catalog
from .cards.decklist import DECK_FORMATS, Deck, deck_card_files, load_deck
from .cards.index import card_sources, import_cards
from .cards.name_lists import joined_card_lists
from .cards.template import card_template
from .cards.update import DEFAULT_DEADLINE, DEFAULT_DOWNLOAD_HOSTS, DEFAULT_MAX_BYTES
from .engine.goldfish import GAMES
from .engine.policies import OBSERVATION_NAMES, PRESETS
from .errors import MAX_ECHO, ExploreSimError, OptionError, clip, parse_count, printable
from .plotting import result_figure, sweep_dimensions
from .progress import ProgressBar

__all__ = ["main"]

PROG = "explore-sim"
_CARD_COMMANDS = ("list", "show", "import", "update", "check", "template")
#: Exit status of a command whose output went into a closed pipe (128 + SIGPIPE).
BROKEN_PIPE_STATUS = 141
_QUOTED = re.compile(r"'([^'\n]{%d})[^'\n]+'" % (MAX_ECHO - 3))


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit with status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        if message.startswith("unrecognized arguments: "):
            message = clip(message, 2 * MAX_ECHO)
        raise OptionError(_QUOTED.sub(r"'\1...'", message))


def _count(text: str) -> int:
    """A whole number, allowing ``200_000``, ``200,000`` and ``2e5``."""
    value = parse_count(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {clip(text)!r}")
    return value


def _number(text: str) -> float:
    """A finite decimal number."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a number, got {clip(text)!r}")
    return value


def _seconds(text: str) -> float:
    """A number of seconds > 0."""
    value = _number(text) if text.strip() else 0.0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {clip(text)!r}")
    return value


def _megabytes(text: str) -> int:
    """A whole number of megabytes >= 1, as bytes."""
    value = _count(text)
    if not 1 <= value <= 10**7:
        raise argparse.ArgumentTypeError(f"expected megabytes from 1 to 10000000, got {clip(text)!r}")
    return value * 1_000_000


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Monte Carlo analysis of the explore mechanic for Magic: The Gathering decks.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    sources = _Parser(add_help=False)
    sources.add_argument("--cards", action="append", default=[], metavar="FILE",
                         help="a card file (.toml or .csv) with homebrew cards or fixes; repeatable")
    sources.add_argument("--cards-dir", default=None, metavar="DIR",
                         help="directory of the imported card index "
                              "(default $EXPLORE_SIM_CARDS_DIR or ~/.local/share/explore_sim)")
    decks = _Parser(add_help=False)
    decks.add_argument("--deck-format", choices=DECK_FORMATS, default="auto",
                       help="decklist format (default: detected)")
    output = _Parser(add_help=False)
    output.add_argument("--plot", default=None, metavar="FILE",
                        help="also draw a figure into FILE (.png, .svg or .pdf)")
    output.add_argument("--quiet", action="store_true", help="no progress bar")
    output.add_argument("--workers", type=_count, default=1,
                        help="processes to run on (0: every core; the numbers do not change)")
    output.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="run on a Dask cluster: its scheduler's tcp://HOST:PORT (default "
                             f"${SCHEDULER_ENV}; needs pip install 'explore_sim[distributed]')")
    output.add_argument("--scheduler-timeout", type=_seconds, default=DEFAULT_CONNECT_TIMEOUT,
                        metavar="SECONDS",
                        help="seconds to wait for the scheduler and its first worker "
                             f"(default {DEFAULT_CONNECT_TIMEOUT:g})")

    cards = commands.add_parser(
        "cards", help="the card catalog: list, show, import, update, check, template")
    card_commands = cards.add_subparsers(dest="card_command", metavar="CARD_COMMAND",
                                         parser_class=_Parser)
    listing = card_commands.add_parser("list", parents=[sources], help="list the built-in catalog")
    listing.add_argument("--format", choices=FORMATS, default="table")
    show = card_commands.add_parser("show", parents=[sources], help="show one card")
    show.add_argument("name", nargs="+")
    show.add_argument("--format", choices=FORMATS, default="table")
    importing = card_commands.add_parser(
        "import", help="import a Scryfall or MTGJSON bulk file into the local card index")
    importing.add_argument("file", help="oracle_cards / default_cards .json(.gz) or AtomicCards.json(.gz/.xz)")
    importing.add_argument("--cards-dir", default=None, metavar="DIR")
    updating = card_commands.add_parser(
        "update", help="download Scryfall's current oracle_cards file and import it")
    updating.add_argument("--cards-dir", default=None, metavar="DIR")
    updating.add_argument("--base-url", default=None,
                          help="API base URL (default $EXPLORE_SIM_SCRYFALL_URL or Scryfall's)")
    updating.add_argument("--timeout", type=_seconds, default=60.0,
                          help="seconds to wait at each step (default 60)")
    updating.add_argument("--deadline", type=_seconds, default=DEFAULT_DEADLINE,
                          help=f"seconds the whole download may take (default {DEFAULT_DEADLINE:g})")
    updating.add_argument("--max-download", type=_megabytes, default=DEFAULT_MAX_BYTES,
                          metavar="MB", help="the largest download accepted, in megabytes "
                          f"(default {DEFAULT_MAX_BYTES // 1_000_000})")
    updating.add_argument("--download-host", action="append", default=[], metavar="HOST",
                          help="a host the download may come from besides the base URL's "
                          f"and {', '.join(DEFAULT_DOWNLOAD_HOSTS)}; repeatable")
    updating.add_argument("--quiet", action="store_true", help="no progress bar")
    check = card_commands.add_parser("check", parents=[sources, decks],
                                     help="show how every card of a deck is classified")
    check.add_argument("deck")
    check.add_argument("--format", choices=FORMATS, default="table")
    template = card_commands.add_parser(
        "template", parents=[sources, decks],
        help="write a card file skeleton for the cards of a deck that no source knows")
    template.add_argument("deck")
    template.add_argument("-o", "--output", default=None, metavar="FILE",
                          help="write it to FILE (a new file; default: standard output)")

    commands.add_parser("policies", help="list policy presets and expression names")

    run = commands.add_parser(
        "explore", parents=[sources, decks, output],
        help="simulate an explore sequence over many shuffles of a deck",
        description="Simulate K explores in a row after D cards are drawn, over many shuffles.",
    )
    run.add_argument("deck", help="decklist file (Arena, MTGO, Moxfield, Archidekt, .dek, text)")
    run.add_argument("--explores", type=_count, default=None,
                     help="explores in a row (default: the explorer's own count, else 1)")
    run.add_argument("--drawn", type=_count, default=8,
                     help="cards drawn before exploring (default 8)")
    run.add_argument("--policy", default="forge",
                     help="keep-or-mill policy: a preset or an expression (default forge)")
    run.add_argument("--explorer", default=None,
                     help="the exploring card, in the deck: one copy leaves the library")
    run.add_argument("--explorer-outside", action="store_true",
                     help="the explorer comes from outside the deck (a token, the sideboard): "
                          "no copy leaves the library")
    run.add_argument("--explorer-gone", action="store_true",
                     help="the explorer left the battlefield before exploring (E3)")
    run.add_argument("--targeted", action="store_true",
                     help="the explore targets the explorer (Map, spell): gone means nothing (E9)")
    run.add_argument("--known", action="append", default=[], metavar="CARDS",
                     help='cards known to be out of the library, e.g. "Forest, Cenote Scout" '
                          "(repeatable; a name with commas is read whole)")
    run.add_argument("--turn", type=_count, default=None,
                     help="turn number the policy sees (default: drawn - 6, at least 1)")
    run.add_argument("--trials", type=_count, default=100_000, help="shuffles (default 100000)")
    _add_seed_and_format(run)
    run.add_argument("--distribution", choices=list(EXPLORE_METRICS), default=None,
                     metavar="METRIC",
                     help="print the full distribution of one metric instead of the summary")
    for name, help_text in (
        ("simulate", "play goldfish games with one deck and report metrics by turn"),
        ("compare", "compare decks and/or policies on the same shuffles, with paired differences"),
    ):
        game = commands.add_parser(name, parents=[sources, decks, output], help=help_text,
                                   description=help_text)
        if name == "simulate":
            game.add_argument("deck", help="decklist file")
            game.add_argument("--policy", default="forge",
                              help="keep-or-mill policy: a preset or an expression (default forge)")
        else:
            game.add_argument("decks", nargs="+", metavar="DECK", help="decklist files")
            game.add_argument("--policy", action="append", dest="policies", default=None,
                              metavar="POLICY",
                              help="a policy to compare (repeat for several; default forge)")
        _add_game_options(game)
        if name == "simulate":
            game.add_argument("--distribution", default=None, metavar="METRIC",
                              help="print the full distribution of one metric at one turn "
                                   "instead of the summary")
            game.add_argument("--turn", type=_count, default=None,
                              help="the turn of --distribution (0: the opening hand; "
                                   "default: the last turn)")
    sweeping = commands.add_parser(
        "sweep", parents=[sources, decks, output],
        help="simulate a grid of land counts, card counts, policies and decks",
        description="Simulate every combination of the --vary values (and every --deck), "
                    "each on the same seed; --out keeps the points in a Parquet file that a "
                    "rerun of the same command completes.")
    sweeping.add_argument("deck", help="decklist file")
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
    _add_value_parser(commands, [sources, decks, output])
    _add_advise_parser(commands, [sources, decks, output])
    _add_tune_parser(commands, [sources, decks, output])

    serve = commands.add_parser(
        "serve", help="open the web page: paste a deck, see the answers in a browser",
        description="Serve a local web page where a decklist is pasted and explore, simulate, "
                    "compare, value and advise run with their options as form fields.")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only; "
                            "0.0.0.0 listens on every interface, with a warning)")
    serve.add_argument("--port", type=_port, default=8000, help="port (default 8000; 0: any free)")
    serve.add_argument("--open", action="store_true", help="open the page in the default browser")
    serve.add_argument("--max-trials", type=_count, default=1_000_000,
                       help="trials one run may ask for (default 1000000)")
    serve.add_argument("--max-game-turns", type=_count, default=100_000_000, metavar="N",
                       help="game turns (trials x deck variants x turns) one run may play "
                            "(default 100000000)")
    serve.add_argument("--max-runs", type=_count, default=1,
                       help="runs at once (default 1); more wait in a queue")
    serve.add_argument("--max-queued", type=_count, default=4,
                       help="runs waiting beyond those (default 4); past that the page says "
                            "the server is busy")
    serve.add_argument("--decks", default=None, metavar="DIR",
                       help="shipped decks offered on the page (default: the repository's decks/)")
    serve.add_argument("--cards-dir", default=None, metavar="DIR",
                       help="directory of the imported card index")
    return parser


def _add_game_options(game: argparse.ArgumentParser) -> None:
    """The game options of simulate, compare and sweep."""
    game.add_argument("--turns", type=_count, default=6, help="turns to play (default 6)")
    game.add_argument("--on-draw", action="store_true", help="play on the draw")
    game.add_argument("--mulligan", default="london",
                      help="none, london or london-free (default london)")
    game.add_argument("--removal", type=_number, default=0.0,
                      help="probability an explorer is removed in response to its explore")
    game.add_argument("--scry-policy", default=None,
                      help="Twists and Turns scry: bottom where true (default: the policy)")
    game.add_argument("--no-maps", action="store_true", help="never use Map tokens")
    game.add_argument("--replacement-order", choices=["tracker-first", "twists-first"],
                      default="tracker-first", help="R3: Topography Tracker / Twists and Turns")
    game.add_argument("--opponent-land-fraction", type=_number, default=0.4,
                      help="land share of the opponent's library for parley (default 0.4)")
    game.add_argument("--cast-first", action="append", default=[], metavar="CARD",
                      help="cast this card before others (repeat for an order)")
    game.add_argument("--castable", action="append", default=[], metavar="CARD",
                      help="add the metric castable:CARD: could the sources in play after "
                           "the land drop pay CARD's cost (repeatable; any known card)")
    game.add_argument("--game", choices=GAMES, default="auto",
                      help="commander: Commander games (the commander cast from the command "
                           "zone, 40 life, the first mulligan free, no skipped first draw); "
                           "auto (default): when the deck has a Commander section")
    game.add_argument("--land-faces", choices=["when-needed", "always", "never"],
                      default="when-needed",
                      help="play a spell // land card as its land face: when no land card "
                           "can be played (default), always like a land, or never")
    game.add_argument("--metrics", default=None,
                      help="comma-separated metrics to show (default: a selection)")
    game.add_argument("--trials", type=_count, default=100_000, help="games (default 100000)")
    _add_seed_and_format(game)


def _port(text: str) -> int:
    """A TCP port, 0 to 65535."""
    port = _count(text)
    if port > 65535:
        raise argparse.ArgumentTypeError(f"expected a port from 0 to 65535, got {clip(text)!r}")
    return port


def _add_tune_parser(commands: argparse._SubParsersAction, parents: list) -> None:
    """``tune``: search keep-or-mill rules for the best one for a deck."""
    text = ("search keep-or-mill rules (Forge's grid, thresholds and their conjunctions) for "
            "the one that maximises an objective, by racing on the same shuffles")
    run = commands.add_parser("tune", parents=parents, help=text, description=text)
    run.add_argument("deck", help="decklist file")
    run.add_argument("--objective", default="on_curve@4",
                     help='what to maximise, such as mana_spent@6 or '
                          '"on_curve@4 + 0.1*counters@6" (default on_curve@4)')
    run.add_argument("--budget", type=_count, default=400_000,
                     help="games to play in all (default 400000)")
    run.add_argument("--top", type=_count, default=5, help="finalists reported (default 5)")
    run.add_argument("--on-draw", action="store_true", help="play on the draw")
    run.add_argument("--mulligan", default="london",
                     help="none, london or london-free (default london)")
    _add_game_kind(run)
    _add_seed_and_format(run)


def _add_game_kind(run: argparse.ArgumentParser) -> None:
    """The ``--game`` option of the commands that play from a position or value cards."""
    run.add_argument("--game", choices=GAMES, default="auto",
                     help="Commander games when the deck has a commander (auto, default)")


def _add_seed_and_format(run: argparse.ArgumentParser) -> None:
    """The ``--seed`` and ``--format`` options every command that plays games ends with."""
    run.add_argument("--seed", type=_count, default=None, help="random seed (default: fresh)")
    run.add_argument("--format", choices=FORMATS, default="table")


def _add_advise_parser(commands: argparse._SubParsersAction, parents: list) -> None:
    """``advise``: keep or mill the card an explore just revealed, from a position."""
    text = ("keep or mill the card an explore just revealed: both choices played on from "
            "your position, on the same libraries, with paired differences")
    run = commands.add_parser("advise", parents=parents, help=text, description=text)
    run.add_argument("deck", help="decklist file")
    run.add_argument("--turn", type=_count, required=True, help="the turn being played")
    run.add_argument("--on-draw", action="store_true", help="you are on the draw")
    run.add_argument("--hand", action="append", default=[], metavar="CARDS",
                     help='cards in hand, e.g. "Forest, 2 Swamp" (repeatable; a name with '
                          "commas is read whole)")
    run.add_argument("--battlefield", action="append", default=[], metavar="CARDS",
                     help="permanents you control (lands included; repeatable)")
    run.add_argument("--graveyard", action="append", default=[], metavar="CARDS",
                     help="cards in your graveyard (repeatable)")
    run.add_argument("--explorer", default=None,
                     help="the exploring permanent (default: the only explore card on the "
                          "battlefield; added to it if not listed)")
    run.add_argument("--explorer-in-play", action="store_true",
                     help="the explorer was not cast this turn (a Map, an attack, a spell "
                          "made it explore): nothing is paid for it, it is not summoning sick")
    run.add_argument("--revealed", required=True, help="the nonland card revealed")
    run.add_argument("--explores-left", type=_count, default=1,
                     help="explores left in this sequence, this one included (default 1)")
    run.add_argument("--phase", choices=["main1", "main2"], default="main1",
                     help="where in the turn the explore happens (default main1)")
    run.add_argument("--objective", default=None,
                     help="comma-separated objectives such as on_curve@5,mana_spent@6 "
                          "(default: on_curve next turn, mana_spent three turns on)")
    run.add_argument("--policy", default="forge",
                     help="later keep-or-mill decisions (default forge)")
    _add_game_kind(run)
    run.add_argument("--trials", type=_count, default=100_000,
                     help="libraries played by both choices (default 100000)")
    _add_seed_and_format(run)


def _add_value_parser(commands: argparse._SubParsersAction, parents: list) -> None:
    """``value``: what each explore card adds, and its land-equivalent."""
    text = ("what each explore or Map card adds against a vanilla stand-in, and how many "
            "lands it is worth (land-equivalent), on the same shuffles")
    run = commands.add_parser("value", parents=parents, help=text, description=text)
    run.add_argument("deck", help="decklist file")
    run.add_argument("--card", action="append", dest="value_cards", default=None, metavar="NAME",
                     help="a card of the main deck to value (repeatable, or names separated "
                          "by commas; default: every explore or Map card)")
    run.add_argument("--metric", default="on_curve",
                     help="the per-turn metric the land-equivalent matches (default on_curve)")
    run.add_argument("--turn", type=_count, default=4,
                     help="the turn it is matched at (default 4)")
    run.add_argument("--turns", type=_count, default=6, help="turns to play (default 6)")
    run.add_argument("--metrics", default=None,
                     help="comma-separated metrics of the differences by turn (default: a "
                          "selection)")
    run.add_argument("--max-lands", type=_count, default=8,
                     help="the most stand-ins replaced by lands (default 8)")
    run.add_argument("--policy", default="forge",
                     help="keep-or-mill policy of every deck (default forge)")
    run.add_argument("--on-draw", action="store_true", help="play on the draw")
    run.add_argument("--mulligan", default="london",
                     help="none, london or london-free (default london)")
    _add_game_kind(run)
    run.add_argument("--trials", type=_count, default=100_000,
                     help="games per deck variant (default 100000)")
    _add_seed_and_format(run)


def _normalise_argv(argv: list[str]) -> list[str]:
    """``cards`` alone lists the catalog and ``cards NAME`` shows a card."""
    if argv[:1] == ["cards"]:
        rest = argv[1:]
        if rest[:1] in (["-h"], ["--help"]):
            return argv
        if not rest or rest[0].startswith("-"):
            return ["cards", "list", *rest]
        if rest[0] not in _CARD_COMMANDS:
            return ["cards", "show", *rest]
    return argv


@dataclasses.dataclass
class _Output:
    """What a command prints, and the figure it draws once that is printed."""

    text: str
    plot: Callable[[], None] | None = None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    argv = _normalise_argv(list(sys.argv[1:] if argv is None else argv))
    parser = _build_parser()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            args = parser.parse_args(argv)
            if args.command is None:
                raise OptionError(
                    "choose a command: cards, policies, explore, simulate, compare, sweep, "
                    "value, advise, tune or serve (see --help)"
                )
            output = _dispatch(args)
        except ExploreSimError as error:
            _print_warnings(caught)
            _print_error(error)
            return 2
        except KeyboardInterrupt:
            _print_line(f"{PROG}: interrupted")
            return 130
    _print_warnings(caught)
    status = _write_output(output.text)
    if status == 0 and output.plot is not None:
        try:
            output.plot()
        except ExploreSimError as error:
            _print_error(error)
            return 2
    return status


def _print_line(line: str) -> None:
    """One line on standard error (nothing if it is closed)."""
    if sys.stderr is None:
        return
    try:
        sys.stderr.write(printable(line) + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _print_error(error: ExploreSimError) -> None:
    _print_line(f"{PROG}: error: {error}")


def _print_warnings(caught: list[warnings.WarningMessage]) -> None:
    for item in caught:
        _print_line(f"{PROG}: warning: {' '.join(str(item.message).split())}")


def _write_output(text: str) -> int:
    """Print the results; the exit status (a closed pipe, a full disk or no output)."""
    if sys.stdout is None:
        _print_error(OptionError("cannot write the results: standard output is closed"))
        return 2
    try:
        sys.stdout.write(printable(text))
        sys.stdout.flush()
    except BrokenPipeError:
        _discard_stdout()
        return BROKEN_PIPE_STATUS
    except (OSError, ValueError) as error:
        _discard_stdout()
        reason = getattr(error, "strerror", None) or error
        _print_error(OptionError(f"cannot write the results to standard output: {reason}"))
        return 2
    return 0


def _discard_stdout() -> None:
    """Point standard output at the null device, so nothing fails again at exit."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (a test's capture): nothing is flushed at exit


def _dispatch(args: argparse.Namespace) -> _Output:
    if args.command == "cards":
        return _Output(_cards(args))
    if args.command == "policies":
        return _Output(_policies())
    if args.command == "explore":
        return _explore(args)
    if args.command in {"simulate", "compare", "sweep"}:
        return _games(args)
    if args.command == "value":
        return _value(args)
    if args.command == "advise":
        return _advise(args)
    if args.command == "tune":
        return _tune(args)
    if args.command == "serve":
        return _serve(args)
    raise OptionError(f"unknown command {args.command!r}")  # argparse rejects it first


def _sources(args: argparse.Namespace) -> CardSources:
    return card_sources(args.cards, args.cards_dir)


def _deck(args: argparse.Namespace, path: str) -> Deck:
    """The decklist at ``path``; its own card file (``NAME.cards.toml``) joins ``--cards``."""
    return load_deck(path, format=args.deck_format, cards=args.cards, cards_dir=args.cards_dir)


def _cards(args: argparse.Namespace) -> str:
    command = args.card_command
    if command == "import":
        return import_cards(args.file, args.cards_dir).summary()
    if command == "update":
        from .cards.update import update_cards

        progress = None if args.quiet or sys.stderr is None or not sys.stderr.isatty() \
            else sys.stderr
        return update_cards(
            args.cards_dir, args.base_url, args.timeout, progress,
            max_bytes=args.max_download, deadline=args.deadline,
            download_hosts=args.download_host,
        ).summary()
    if command == "template":
        return _template(args)
    sources = _sources(args)
    if command == "show":
        return _show_card(sources.get(" ".join(args.name)), args.format)
    if command == "check":
        return _check_deck(_deck(args, args.deck), args.format)
    return _list_cards(Catalog.builtin(), args.format)


def _template(args: argparse.Namespace) -> str:
    """A card file skeleton for the unknown cards of a deck: printed, or written to a new
    file (``-o``) with one line on standard error saying so."""
    text = card_template(args.deck, cards=args.cards, cards_dir=args.cards_dir,
                         format=args.deck_format)
    if args.output is None or not text.startswith("# Card file"):
        return text
    path = Path(args.output)
    if path.suffix.casefold() != ".toml":
        raise OptionError(f"--output: {clip(args.output)!r} must end in .toml (a card file)")
    try:
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        raise OptionError(f"--output: {clip(args.output)} already exists; choose a new file "
                          "(its cards can then be added to the old one)") from None
    except OSError as error:
        raise OptionError(f"--output: cannot write {clip(args.output)}: "
                          f"{error.strerror or error}") from None
    count = text.count("\n[[card]]\n")
    companion = deck_card_files(args.deck)
    use = ("it is read with the deck" if companion and companion[0].resolve() == path.resolve()
           else f"then pass --cards {args.output}")
    _print_line(f"{PROG}: wrote {args.output}: {count} card{'s' if count != 1 else ''} "
                f"to fill in (type_line, mana_cost); {use}")
    return ""


def _show_card(card: Card, fmt: str) -> str:
    facts = card.describe()
    if fmt == "json":
        return json.dumps(facts, indent=2) + "\n"
    if fmt == "csv":
        return pd.DataFrame([facts]).to_csv(index=False, lineterminator="\n")
    width = max(len(key) for key in facts)
    return "".join(f"{key:<{width}}  {value}\n" for key, value in facts.items())


def _list_cards(catalog: Catalog, fmt: str) -> str:
    rows = pd.DataFrame(
        [
            {
                "name": card.name,
                "cost": card.mana_cost or "-",
                "mv": card.mana_value,
                "type_line": card.type_line,
                "explores": ("X" if card.explores_x else card.explores) or "",
                "explores_when": card.explores_when,
                "maps": card.maps or "",
                "trigger": card.explore_trigger,
                "replacement": card.explore_replacement,
            }
            for card in catalog
        ]
    )
    if fmt == "json":
        return rows.to_json(orient="records", indent=2) + "\n"
    if fmt == "csv":
        return rows.to_csv(index=False, lineterminator="\n")
    return f"{len(catalog)} cards in the built-in catalog\n\n" + text_table(rows) + "\n"


def _check_deck(deck: Deck, fmt: str) -> str:
    """How every card of a deck was classified, and where its data came from."""
    frame = deck.table()
    for name, text in zip(frame["name"], frame["unmodelled"]):
        if text:  # an imported card whose text no template matched: say so, never guess silently
            warnings.warn(f"{name}: not modelled: {text}", stacklevel=2)
    if fmt == "json":
        rows = frame.to_dict(orient="records")
        return json.dumps({"deck": deck.name, "format": deck.format, "cards": rows}, indent=2) + "\n"
    if fmt == "csv":
        return frame.to_csv(index=False, lineterminator="\n")
    head = (f"{deck.name} ({deck.format} format): {deck.size} cards in the main deck: "
            f"{deck.land_count} lands, {deck.land_like_count} land-like, "
            f"{deck.size - deck.land_count - deck.land_like_count} nonland")
    return head + "\n\n" + text_table(frame.drop(columns="unmodelled")) + "\n"


def _policies() -> str:
    lines = ["Presets:"]
    lines += [f"  {name}" for name in PRESETS]
    lines.append("  forge:need_lands=N,max_mv_diff=M")
    lines.append("")
    lines.append("Expression names (mill where the expression is true):")
    width = max(len(name) for name in OBSERVATION_NAMES)
    lines += [f"  {name:<{width}}  {text}" for name, text in OBSERVATION_NAMES.items()]
    lines.append("")
    lines.append("Operators: and or not, == != < <= > >=, + - * / // %, parentheses")
    return "\n".join(lines) + "\n"


def _progress(args: argparse.Namespace, label: str) -> ProgressBar:
    """A progress bar on standard error for runs over a second (not with --quiet or no tty)."""
    stream = None if args.quiet or sys.stderr is None or not sys.stderr.isatty() else sys.stderr
    return ProgressBar(stream, label, unit="trials")


def _check_plot_path(args: argparse.Namespace) -> None:
    """Refuse a ``--plot`` file that could not be written, before anything is run."""
    if not args.plot:
        return
    path = Path(args.plot)
    if path.suffix.casefold() not in {".png", ".svg", ".pdf"}:
        raise OptionError(f"--plot: {clip(args.plot)!r} must end in .png, .svg or .pdf")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise OptionError(f"--plot: cannot write {args.plot}: {error.strerror or error}") from None
    if mode is not None and not stat.S_ISREG(mode):
        kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise OptionError(f"--plot: {args.plot} is {kind}")
    if mode is None and not path.parent.is_dir():
        raise OptionError(f"--plot: cannot write {args.plot}: no such directory {path.parent}")
    try:  # opened for appending, so an existing figure is not changed yet
        with open(path, "ab"):
            pass
    except OSError as error:
        raise OptionError(f"--plot: cannot write {args.plot}: {error.strerror or error}") from None
    finally:
        if mode is None:
            path.unlink(missing_ok=True)


def _plot_later(path: str, result: Any, metrics: Sequence[str] | None = None,
                **options: Any) -> Callable[[], None]:
    """A function that draws the result's figure (:func:`~explore_sim.plotting.result_figure`,
    as the web page shows it), writes it to ``path`` and says so on standard error (run after
    the results are printed); a failure is one :class:`OptionError`."""

    def save() -> None:
        figure = result_figure(result, metrics, **options)
        try:
            figure.savefig(path, dpi=150)
        except OSError as error:
            raise OptionError(f"--plot: cannot write {path}: {error.strerror or error}") from None
        _print_line(f"{PROG}: wrote {path}")

    return save


def _explore(args: argparse.Namespace) -> _Output:
    _check_plot_path(args)
    deck = _deck(args, args.deck)
    explorer = args.explorer
    if explorer:  # the deck's card if it has one, else any card of --cards or --cards-dir
        explorer = _sources(args).find(explorer) or explorer
    bar = _progress(args, "explore")
    with _scheduler(args) as scheduler:
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
    plot = _plot_later(args.plot, result, distribution=args.distribution) if args.plot \
        else None
    if args.distribution:
        rows = result.distribution(args.distribution)
        title = f"distribution of {args.distribution}"
        return _Output(render(args.format, result.meta, rows, title), plot)
    return _Output(result.render(args.format), plot)


@contextlib.contextmanager
def _scheduler(args: argparse.Namespace) -> Iterator[Executor | None]:
    """The Dask cluster of ``--scheduler`` (else ``$DASK_SCHEDULER_ADDRESS``), connected when
    the first chunk is sent and closed on leaving; None runs locally."""
    address, source = args.scheduler, "--scheduler"
    if address is None:
        address, source = os.environ.get(SCHEDULER_ENV, ""), SCHEDULER_ENV
    elif not address.strip():
        raise OptionError("--scheduler is empty: give the scheduler's tcp://HOST:PORT, or "
                          "leave the option out to run here")
    if not address.strip():
        yield None
        return
    if args.workers != 1:
        raise OptionError(f"--workers runs local processes and {source} a Dask cluster: "
                          "choose one")
    with DaskExecutor(address, args.scheduler_timeout) as executor:
        yield executor


#: The most values one --vary key takes.
MAX_VARY_VALUES = 1000
_VARY_ITEM = re.compile(r"\s*(\d{1,6})\s*(?:\.\.\s*(\d{1,6})\s*)?")
_FORGE_ARGUMENT = re.compile(r"\s*[a-z_]+\s*=(?!=)")


def _parse_vary(texts: list[str], sources: Any) -> dict[str, list]:
    """``--vary KEY=VALUES`` options as a sweep grid, checked: keys ``lands``, ``policy`` or
    a known card; values whole numbers and inclusive ``A..B`` ranges (policies: names or
    expressions, separated by commas)."""
    if not texts:
        raise OptionError('sweep needs at least one --vary KEY=VALUES, such as --vary '
                          'lands=22..25 or --vary "Cenote Scout=0,4,8"')
    grid: dict[str, list] = {}
    for text in texts:
        key, sep, values = text.partition("=")
        key = " ".join(key.split())
        if not sep or not key or not values.strip():
            raise OptionError(f"--vary: expected KEY=VALUES such as lands=20..26, got "
                              f"{clip(text)!r}")
        if key.casefold() == "policy":
            name, parsed = "policy", _vary_policies(values)
        else:
            name = "lands" if key.casefold() == "lands" else _vary_card(key, sources)
            parsed = _vary_counts(name, values)
        if name in grid:
            raise OptionError(f"--vary: {clip(name)} is varied twice; give its values once")
        grid[name] = parsed
    return grid


def _vary_card(key: str, sources: Any) -> str:
    card = sources.find(key)
    if card is None:
        raise OptionError(f"--vary: unknown card {clip(key)!r}{sources.suggestion_text(key)}; "
                          "keys are lands, policy or card names")
    return card.name


def _vary_counts(name: str, text: str) -> list[int]:
    values: list[int] = []
    for item in text.split(","):
        match = _VARY_ITEM.fullmatch(item)
        if match is None:
            raise OptionError(f"--vary {clip(name)}: expected whole numbers and A..B ranges "
                              f"such as 20..26 or 0,4,8, got {clip(item.strip())!r}")
        low = int(match.group(1))
        high = int(match.group(2)) if match.group(2) is not None else low
        if high < low:
            raise OptionError(f"--vary {clip(name)}: the range {low}..{high} is empty "
                              f"(write {high}..{low})")
        if len(values) + high - low + 1 > MAX_VARY_VALUES:
            raise OptionError(f"--vary {clip(name)}: more than {MAX_VARY_VALUES} values")
        values.extend(range(low, high + 1))
    repeated = sorted({v for v in values if values.count(v) > 1})
    if repeated:
        raise OptionError(f"--vary {clip(name)}: {', '.join(map(str, repeated[:5]))} given "
                          "twice")
    return values


def _vary_policies(text: str) -> list[str]:
    """Policies separated by commas; ``forge:need_lands=3,max_mv_diff=1`` keeps its commas."""
    policies: list[str] = []
    for item in text.split(","):
        if policies and policies[-1].startswith("forge:") and _FORGE_ARGUMENT.match(item):
            policies[-1] += "," + item.strip()
        elif item.strip():
            policies.append(item.strip())
        else:
            raise OptionError(f"--vary policy: an empty policy in {clip(text)!r}")
    if len(policies) > MAX_VARY_VALUES:
        raise OptionError(f"--vary policy: more than {MAX_VARY_VALUES} policies")
    if len(set(policies)) != len(policies):
        raise OptionError("--vary policy: a policy is given twice")
    return policies


def _games(args: argparse.Namespace) -> _Output:
    sources = _sources(args)
    paths = [args.deck, *args.more_decks] if args.command == "sweep" else \
        [args.deck] if args.command == "simulate" else args.decks
    if args.command == "sweep":  # card names of --vary come from every deck's card file too
        companions = [str(f) for path in paths for f in deck_card_files(path)]
        if companions:
            sources = card_sources([*args.cards, *companions], args.cards_dir)
    castable = []
    for name in args.castable:
        card = sources.find(name)
        if card is None:
            raise OptionError(f"--castable: unknown card {clip(name)!r}"
                              f"{sources.suggestion_text(name)}")
        castable.append(card)
    metrics = None
    if args.metrics:  # checked before the games are played
        metrics = check_metrics([m.strip() for m in args.metrics.split(",") if m.strip()],
                                label="--metrics",
                                extra=[f"castable:{card.name}" for card in castable])
    grid = _parse_vary(args.vary, sources) if args.command == "sweep" else None
    options = dict(
        turns=args.turns,
        on_play=not args.on_draw,
        mulligan=args.mulligan,
        trials=args.trials,
        seed=args.seed,
        removal=args.removal,
        scry_policy=args.scry_policy,
        use_maps=not args.no_maps,
        replacement_order=args.replacement_order,
        opponent_land_fraction=args.opponent_land_fraction,
        cast_order=args.cast_first,
        castable=castable,
        land_faces=args.land_faces,
        game=args.game,
    )
    distribution = _distribution_option(args, castable)
    _check_plot_path(args)
    if args.plot and grid is not None:
        sweep_dimensions(grid, len(paths), label="--plot")
    decks = [_deck(args, path) for path in paths]
    bar = _progress(args, args.command)
    with _scheduler(args) as scheduler:
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
    if distribution is not None:
        metric, turn = distribution
        rows = result.distribution(metric, turn)
        where = " in the opening hand" if turn == 0 else f" at the end of turn {turn}"
        plot = _plot_later(args.plot, result, distribution=metric, turn=turn) if args.plot \
            else None
        return _Output(render(args.format, result.meta, rows,
                              f"simulate: distribution of {metric}{where}"), plot)
    plot = _plot_later(args.plot, result, metrics) if args.plot else None
    return _Output(result.render(args.format, metrics=metrics), plot)


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


def _serve(args: argparse.Namespace) -> _Output:
    """Serve the web page until interrupted."""
    from .analysis.runner import MAX_TRIALS

    if not 2 <= args.max_trials <= MAX_TRIALS:
        raise OptionError(f"--max-trials must be between 2 and {MAX_TRIALS:.0e}, got "
                          f"{args.max_trials}")
    if not 1 <= args.max_runs <= 64:
        raise OptionError(f"--max-runs must be between 1 and 64, got {args.max_runs}")
    if args.max_queued > 1000:
        raise OptionError(f"--max-queued must be at most 1000, got {args.max_queued}")
    decks = Path(args.decks) if args.decks else None
    if decks is not None and not decks.is_dir():
        raise OptionError(f"--decks: {args.decks} is not a directory")
    if args.cards_dir and os.path.lexists(args.cards_dir) and not os.path.isdir(args.cards_dir):
        raise OptionError(f"--cards-dir: {args.cards_dir} is not a directory")
    try:
        from .web import Settings, serve
    except ImportError as error:
        raise OptionError(f"serve needs the web extra: pip install 'explore_sim[web]' "
                          f"({error.name or error} is missing)") from None
    settings = Settings(max_trials=args.max_trials, max_runs=args.max_runs,
                        max_queued=args.max_queued, max_game_turns=args.max_game_turns,
                        cards_dir=Path(args.cards_dir) if args.cards_dir else None,
                        **({"decks_dir": decks} if decks is not None else {}))
    serve(args.host, args.port, args.open, settings)
    return _Output("")


def _metric_list(text: str | None, label: str) -> list[str] | None:
    if not text:
        return None
    return check_metrics([m.strip() for m in text.split(",") if m.strip()], label=label)


def _value(args: argparse.Namespace) -> _Output:
    metrics = _metric_list(args.metrics, "--metrics")
    (metric,) = check_metrics([args.metric], label="--metric")
    _check_plot_path(args)
    deck = _deck(args, args.deck)
    bar = _progress(args, "value")
    with _scheduler(args) as scheduler:
        cards = None if args.value_cards is None else joined_card_lists(args.value_cards)
        result = value(deck, cards, metric=metric, turn=args.turn, turns=args.turns,
                       metrics=metrics, policy=args.policy, on_play=not args.on_draw,
                       mulligan=args.mulligan, trials=args.trials, seed=args.seed,
                       game=args.game, max_lands=args.max_lands, progress=bar,
                       workers=1 if scheduler else args.workers, scheduler=scheduler)
    bar.close()
    plot = _plot_later(args.plot, result) if args.plot else None
    return _Output(result.render(args.format), plot)


def _advise(args: argparse.Namespace) -> _Output:
    if args.plot:
        raise OptionError("advise draws no figure; --plot is for value, explore, simulate and "
                          "compare")
    deck = _deck(args, args.deck)
    bar = _progress(args, "advise")
    with _scheduler(args) as scheduler:
        result = advise(deck, turn=args.turn, revealed=args.revealed,
                        hand=joined_card_lists(args.hand),
                        battlefield=joined_card_lists(args.battlefield),
                        graveyard=joined_card_lists(args.graveyard),
                        explorer=args.explorer, explores_left=args.explores_left,
                        objectives=args.objective, policy=args.policy,
                        on_play=not args.on_draw, explorer_cast=not args.explorer_in_play,
                        phase=args.phase, trials=args.trials, seed=args.seed, game=args.game,
                        progress=bar, workers=1 if scheduler else args.workers,
                        scheduler=scheduler)
    bar.close()
    return _Output(result.render(args.format))


def _tune(args: argparse.Namespace) -> _Output:
    if args.plot:
        raise OptionError("tune draws no figure; --plot is for value, explore, simulate and "
                          "compare")
    deck = _deck(args, args.deck)
    bar = _progress(args, "tune")
    with _scheduler(args) as scheduler:
        result = tune(deck, args.objective, budget=args.budget, top=args.top,
                      on_play=not args.on_draw, mulligan=args.mulligan, seed=args.seed,
                      game=args.game, progress=bar, workers=1 if scheduler else args.workers,
                      scheduler=scheduler)
    bar.close()
    return _Output(result.render(args.format))
