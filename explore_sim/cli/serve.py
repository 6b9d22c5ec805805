"""``serve``: the web page, until interrupted."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from ..errors import OptionError
from .arguments import count, port
from .output import Output

__all__ = ["add_parser", "run"]


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add ``serve`` to the command line.

    Parameters
    ----------
    commands : argparse subparsers
    """
    serve = commands.add_parser(
        "serve", help="open the web page: paste a deck, see the answers in a browser",
        description="Serve a local web page where a decklist is pasted and explore, simulate, "
                    "compare, value, advise, lands and curve run with their options as form "
                    "fields.")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only; "
                            "0.0.0.0 listens on every interface, with a warning)")
    serve.add_argument("--port", type=port, default=8000, help="port (default 8000; 0: any free)")
    serve.add_argument("--open", action="store_true", help="open the page in the default browser")
    serve.add_argument("--max-trials", type=count, default=1_000_000,
                       help="trials one run may ask for (default 1000000)")
    serve.add_argument("--max-game-turns", type=count, default=100_000_000, metavar="N",
                       help="game turns (trials x deck variants x turns) one run may play "
                            "(default 100000000)")
    serve.add_argument("--max-runs", type=count, default=1,
                       help="runs at once (default 1); more wait in a queue")
    serve.add_argument("--max-queued", type=count, default=4,
                       help="runs waiting beyond those (default 4); past that the page says "
                            "the server is busy")
    serve.add_argument("--decks", default=None, metavar="DIR",
                       help="decks offered on the page (default: the decks shipped with the "
                            "package, as 'explore-sim decks' lists them)")
    serve.add_argument("--cards-dir", default=None, metavar="DIR",
                       help="directory of the imported card index")


def run(args: argparse.Namespace) -> Output:
    """Serve the web page until interrupted.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    Output
    """
    from ..analysis.runner import MAX_TRIALS

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
        from ..web import Settings, serve
    except ImportError as error:
        raise OptionError(f"serve needs the web extra: pip install 'explore_sim[web]' "
                          f"({error.name or error} is missing)") from None
    directories: dict[str, Any] = {"decks_dir": decks} if decks is not None else {}
    settings = Settings(max_trials=args.max_trials, max_runs=args.max_runs,
                        max_queued=args.max_queued, max_game_turns=args.max_game_turns,
                        cards_dir=Path(args.cards_dir) if args.cards_dir else None,
                        **directories)
    serve(args.host, args.port, args.open, settings)
    return Output("")
