"""The package's exception and warning types, the helpers that keep messages safe, and
whole numbers read the way people type them (:func:`parse_count`).

Every error caused by user input (a decklist, a card file, a policy, an option) is an
:class:`ExploreSimError`. Its message is a single line that names what is wrong and where,
so the command line can print it as it is and exit with status 2. Messages never carry
terminal control characters and never grow past :data:`MAX_MESSAGE` characters; user text
echoed inside them is clipped with :func:`clip`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

__all__ = [
    "ExploreSimError",
    "CardError",
    "DeckError",
    "PolicyError",
    "OptionError",
    "ExecutorError",
    "DeckWarning",
    "PolicyWarning",
    "close_matches",
    "OptionWarning",
    "CompileNotice",
    "MAX_ECHO",
    "MAX_MESSAGE",
    "clip",
    "printable",
    "parse_count",
    "count_wanted",
    "MAX_COUNT_DIGITS",
]

#: User text (a name, a value, a line) is echoed in a message up to this many characters.
MAX_ECHO = 80
#: The longest error message.
MAX_MESSAGE = 4000
#: The most digits of a whole number typed as an option (a seed of 128 bits has 39).
MAX_COUNT_DIGITS = 40

# C0 controls but tab and newline, DEL, and C1 controls: what could drive a terminal.
_CONTROLS = dict.fromkeys([*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)])


def printable(text: str) -> str:
    """``text`` without terminal control characters (tabs and line breaks are kept).

    Parameters
    ----------
    text : str
        Anything about to be printed.

    Returns
    -------
    str
        The text without C0 controls (but tab and newline), DEL and C1 controls.
    """
    return str(text).translate(_CONTROLS)


def clip(text: object, width: int = MAX_ECHO) -> str:
    """``text`` cut to ``width`` characters, the cut marked with ``...``.

    Parameters
    ----------
    text : object
        User text to echo in a message (converted with ``str``).
    width : int
        The most characters kept, ``...`` included.

    Returns
    -------
    str

    Examples
    --------
    >>> clip("Cenote Scout")
    'Cenote Scout'
    >>> clip("x" * 100, 10)
    'xxxxxxx...'
    """
    text = str(text)
    return text if len(text) <= width else text[: width - 3] + "..."


class ExploreSimError(ValueError):
    """Base class of every input error raised by explore_sim."""

    def __init__(self, message: str) -> None:
        # One line, no control characters, bounded length, whatever the caller passed in.
        super().__init__(clip(" ".join(printable(message).split()), MAX_MESSAGE))


class CardError(ExploreSimError):
    """An unknown card name or a malformed card record."""


class DeckError(ExploreSimError):
    """A decklist that cannot be read: missing file, malformed line, unknown cards."""


class PolicyError(ExploreSimError):
    """A keep-or-mill policy that cannot be built or that returned a bad decision."""


class OptionError(ExploreSimError):
    """An option value out of range, such as a negative trial count."""


class ExecutorError(ExploreSimError):
    """Work that could not be run where it was sent: a Dask scheduler that cannot be reached
    or has no workers, workers with another version, work that cannot be sent to worker
    processes, or a cluster that lost it."""


class DeckWarning(UserWarning):
    """Something in a decklist that is allowed but probably not what the user meant."""


class PolicyWarning(UserWarning):
    """A policy that works but will be hard to recognise in results, such as an unnamed lambda."""


def close_matches(name: str, candidates: Iterable[str], n: int = 2) -> str:
    """The candidates closest to a mistyped ``name``, quoted: ``"'a' or 'b'"`` ("" if none).

    Parameters
    ----------
    name : str
        What the user typed.
    candidates : iterable of str
        The valid names.
    n : int
        At most this many suggestions.

    Returns
    -------
    str
    """
    unique = list(dict.fromkeys(str(c) for c in candidates))  # each name suggested once
    close = difflib.get_close_matches(name, unique, n=n, cutoff=0.6)
    return " or ".join(repr(c) for c in close)


class OptionWarning(UserWarning):
    """An option that was adjusted, such as more workers than there are cores."""


class CompileNotice(UserWarning):
    """The compiled game is being compiled (once per installation): the first run waits for
    it. Shown once per process in Python and Jupyter; the command line shows the time
    instead (``warnings.simplefilter("ignore", CompileNotice)`` silences it)."""


def parse_count(text: str) -> int | None:
    """A whole number as people type it: ``200000``, ``200_000``, ``200,000`` or ``2e5``.

    Parameters
    ----------
    text : str

    Returns
    -------
    int or None
        None when the text is not a whole number.
    """
    cleaned = text.strip().replace("_", "").replace(",", "")
    if re.fullmatch(rf"\d{{1,{MAX_COUNT_DIGITS}}}", cleaned):
        return int(cleaned)
    if re.fullmatch(r"\d{1,20}(\.\d{1,20})?[eE]\d{1,2}", cleaned):
        value = float(cleaned)
        if value.is_integer():
            return int(value)
    return None


def count_wanted(text: str) -> str:
    """What :func:`parse_count` wanted of text it read as no whole number, for a message:
    ``a whole number >= 0``, or, for digits past :data:`MAX_COUNT_DIGITS`, the most digits.

    Parameters
    ----------
    text : str

    Returns
    -------
    str
    """
    cleaned = text.strip().replace("_", "").replace(",", "")
    if cleaned.isascii() and cleaned.isdigit():
        return f"a whole number of at most {MAX_COUNT_DIGITS} digits"
    return "a whole number >= 0"
