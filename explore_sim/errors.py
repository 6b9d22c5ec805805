"""The package's exception and warning types.

Every error caused by user input (a decklist, a card file, a policy, an option) is an
:class:`ExploreSimError`. Its message is a single line that names what is wrong and where,
so the command line can print it as it is and exit with status 2.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = [
    "ExploreSimError",
    "CardError",
    "DeckError",
    "PolicyError",
    "OptionError",
    "DeckWarning",
    "PolicyWarning",
    "close_matches",
]


class ExploreSimError(ValueError):
    """Base class of every input error raised by explore_sim."""

    def __init__(self, message: str) -> None:
        # Keep messages on one line whatever the caller passed in.
        super().__init__(" ".join(str(message).split()))


class CardError(ExploreSimError):
    """An unknown card name or a malformed card record."""


class DeckError(ExploreSimError):
    """A decklist that cannot be read: missing file, malformed line, unknown cards."""


class PolicyError(ExploreSimError):
    """A keep-or-mill policy that cannot be built or that returned a bad decision."""


class OptionError(ExploreSimError):
    """An option value out of range, such as a negative trial count."""


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
    close = difflib.get_close_matches(name, [str(c) for c in candidates], n=n, cutoff=0.6)
    return " or ".join(repr(c) for c in close)
