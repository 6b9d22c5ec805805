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
import atexit
import os
import sys
import threading
import warnings
from collections.abc import Callable, Sequence

from ..errors import ExploreSimError, OptionError
from . import answers, cards, curve, decks, explore, games, lands, metrics, replay, serve
from .arguments import PROG
from .output import (
    BROKEN_PIPE_STATUS,
    Output,
    notices_to_terminal,
    print_error,
    print_line,
    print_warnings,
    write_output,
)
from .parser import build_parser, option_flags

__all__ = ["main", "run", "BROKEN_PIPE_STATUS", "COMMANDS"]

#: What runs each command.
COMMANDS: dict[str, Callable[[argparse.Namespace], Output]] = {
    "cards": cards.run_cards,
    "policies": cards.run_policies,
    "explore": explore.run,
    "simulate": games.run,
    "compare": games.run,
    "sweep": games.run,
    "value": answers.run_value,
    "advise": answers.run_advise,
    "tune": answers.run_tune,
    "lands": lands.run,
    "curve": curve.run,
    "replay": replay.run,
    "metrics": metrics.run,
    "decks": decks.run,
    "serve": serve.run,
}


def _normalise_argv(argv: list[str]) -> list[str]:
    """``cards`` alone lists the catalog and ``cards NAME`` shows a card."""
    if argv[:1] == ["cards"]:
        rest = argv[1:]
        if rest[:1] in (["-h"], ["--help"]):
            return argv
        if not rest or rest[0].startswith("-"):
            return ["cards", "list", *rest]
        if rest[0] not in cards.CARD_COMMANDS:
            return ["cards", "show", *rest]
    return argv


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0, 2 for an input error, 130 when interrupted, 141 for a closed pipe.
    """
    argv = _normalise_argv(list(sys.argv[1:] if argv is None else argv))
    parser = build_parser()
    notices_to_terminal()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        command = None  # an error names the command's options by their flags
        try:
            args = parser.parse_args(argv)
            command = args.command
            if args.command is None:
                raise OptionError(
                    "choose a command: decks, cards, policies, metrics, explore, simulate, "
                    "compare, sweep, value, advise, tune, curve, replay or serve (see --help)"
                )
            output = COMMANDS[args.command](args)
        except ExploreSimError as error:
            flags = option_flags(parser, command)
            print_warnings(caught, flags)
            print_error(error, flags)
            return 2
        except KeyboardInterrupt:
            print_line(f"{PROG}: interrupted")
            return 130
    print_warnings(caught, option_flags(parser, command))
    status = write_output(output.text)
    if status == 0 and output.plot is not None:
        try:
            output.plot()
        except ExploreSimError as error:
            print_error(error)
            return 2
    return status


def run() -> None:
    """The ``explore-sim`` command and ``python -m explore_sim``: :func:`main`, then the exit.

    The process ends once the output is written and the exit handlers have run (worker
    pools, logs, temporary files; a thread that is not a daemon is waited for, as at any
    exit). It skips the interpreter's freeing of every module and object, numba's compiled
    game and pandas among them, which no one reads: about 0.3 s of a 3.6 s ``value`` run.
    Under a profiler or a tracer (``python -m cProfile``, a debugger, coverage), which may
    write its results once the program returns, it exits the usual way.
    """
    try:
        status = main()
    except SystemExit as stop:  # --help and --version end argparse so
        if stop.code is None or isinstance(stop.code, int):
            status = stop.code or 0
        else:  # a message: printed, status 1 (as the interpreter does)
            print(stop.code, file=sys.stderr)
            status = 1
    _exit_now(status)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:  # None: started with the stream closed
                stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: main has said so already
            pass


def _exit_now(status: int) -> None:
    """Exit with ``status`` as the interpreter would, without freeing its objects first:
    output flushed, other threads that are not daemons joined, the exit handlers run."""
    _flush()
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    run_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_handlers is None or sys.getprofile() is not None or sys.gettrace() is not None:
        sys.exit(status)  # the usual exit: no such hook, or a profiler or tracer writes after
    run_handlers()
    _flush()
    os._exit(status)
