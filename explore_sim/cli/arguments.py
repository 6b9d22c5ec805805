"""The command line's argument parser class and the types of its option values."""

from __future__ import annotations

import argparse
import math
import re
from typing import NoReturn

from ..analysis.report import FORMATS
from ..cards.shipped import shipped_deck_files
from ..errors import MAX_ECHO, OptionError, clip, count_wanted, parse_count

__all__ = ["PROG", "Parser", "add_policy", "count", "number", "seconds", "megabytes", "port",
           "add_seed_and_format", "deck_help"]

PROG = "explore-sim"
_QUOTED = re.compile(rf"'([^'\n]{{{MAX_ECHO - 3}}})[^'\n]+'")


def deck_help(several: bool = False) -> str:
    """The help of a deck argument (``several``: of one or more decks): a decklist file's
    formats, or the name of a deck the package ships."""
    names = "shipped decks' names" if several else "a shipped deck's name"
    return (f"decklist file{'s' if several else ''} (Arena, MTGO, Moxfield, Archidekt, .dek, "
            f"text), or {names}: {', '.join(shipped_deck_files())}")


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit with status 2."""

    def error(self, message: str) -> NoReturn:
        """Raise the parser's error as one :class:`OptionError` line.

        Parameters
        ----------
        message : str
        """
        if message.startswith("unrecognized arguments: "):
            message = clip(message, 2 * MAX_ECHO)
        raise OptionError(_QUOTED.sub(r"'\1...'", message))


def count(text: str) -> int:
    """A whole number >= 0, allowing ``200_000``, ``200,000`` and ``2e5``.

    Parameters
    ----------
    text : str

    Returns
    -------
    int
    """
    value = parse_count(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected {count_wanted(text)}, got {clip(text)!r}")
    return value


def whole(text: str) -> int:
    """A whole number, a negative one too (``-1``), for the options whose function checks
    the range and names it (``turns must be between 1 and 50, got -1``), so a value out of
    range gets that one message whichever side it falls.

    Parameters
    ----------
    text : str

    Returns
    -------
    int
    """
    stripped = text.strip()
    negative = stripped.startswith("-")
    value = parse_count(stripped[1:] if negative else stripped)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {clip(text)!r}")
    return -value if negative else value


def number(text: str) -> float:
    """A finite decimal number.

    Parameters
    ----------
    text : str

    Returns
    -------
    float
    """
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a number, got {clip(text)!r}")
    return value


def seconds(text: str) -> float:
    """A number of seconds > 0.

    Parameters
    ----------
    text : str

    Returns
    -------
    float
    """
    value = number(text) if text.strip() else 0.0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {clip(text)!r}")
    return value


def megabytes(text: str) -> int:
    """A whole number of megabytes >= 1, as bytes.

    Parameters
    ----------
    text : str

    Returns
    -------
    int
    """
    value = count(text)
    if not 1 <= value <= 10**7:
        raise argparse.ArgumentTypeError(f"expected megabytes from 1 to 10000000, got "
                                         f"{clip(text)!r}")
    return value * 1_000_000


def port(text: str) -> int:
    """A TCP port, 0 to 65535.

    Parameters
    ----------
    text : str

    Returns
    -------
    int
    """
    value = count(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"expected a port from 0 to 65535, got {clip(text)!r}")
    return value


def add_policy(run: argparse.ArgumentParser) -> None:
    """The ``--policy`` option of a command that plays one deck's games.

    Parameters
    ----------
    run : argparse.ArgumentParser
    """
    run.add_argument("--policy", default="forge",
                     help="keep-or-mill policy: a preset or an expression (default forge)")


def add_seed_and_format(run: argparse.ArgumentParser) -> None:
    """The ``--seed`` and ``--format`` options every command that plays games ends with.

    Parameters
    ----------
    run : argparse.ArgumentParser
    """
    run.add_argument("--seed", type=count, default=None, help="random seed (default: fresh)")
    run.add_argument("--format", choices=FORMATS, default="table")
