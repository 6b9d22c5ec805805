"""The game options on the web page: one form field per entry of the option schema
(:data:`explore_sim.engine.options.GAME_OPTIONS`) that has a ``web`` name, and back again to
the keywords of the Python functions.

The fields are built when a form is read, so an option added to the schema is on the page
with nothing more written here. One-per-line fields (card lists) come after the one-line
ones, as everywhere on the page.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from ..engine.options import GAME_OPTIONS, GameOption, options_named
from .forms import Field

__all__ = ["GameFields", "game_field", "web_game_options"]

_KIND = {"int": "int", "probability": "number", "bool": "flag", "choice": "choice",
         "mulligan": "choice", "policy": "text", "names": "lines", "cards": "lines"}


def game_field(entry: GameOption, help: str | None = None) -> Field:
    """The form field of one game option.

    Parameters
    ----------
    entry : GameOption
    help : str, optional
        The page's help, where this form says it otherwise.

    Returns
    -------
    Field
    """
    kind = _KIND[entry.kind]
    default: Any = entry.default
    low, high = entry.low, entry.high
    if kind == "flag":
        default = not default if entry.negated else default
    elif kind == "lines":
        default = list(default)
    elif kind == "number":
        low, high = 0, 1
    assert entry.web is not None
    return Field(entry.web, entry.web_label, kind, default, help or entry.web_help,
                 choices=entry.choices, low=low, high=high)


def _entries(names: Sequence[str] | None) -> list[GameOption]:
    entries = GAME_OPTIONS if names is None else options_named(names)
    chosen = [entry for entry in entries if entry.web and entry.keyword]
    if names is not None:
        return chosen
    return ([e for e in chosen if _KIND[e.kind] != "lines"]
            + [e for e in chosen if _KIND[e.kind] == "lines"])


@dataclasses.dataclass(frozen=True)
class GameFields:
    """Where an analysis's form holds game options: the options called ``names`` (default:
    every option with a web field), read from the schema when the form is built.

    Attributes
    ----------
    names : tuple of str, optional
    help : tuple of (str, str)
        ``(option, help)`` pairs where this form's help differs from the schema's.
    """

    names: tuple[str, ...] | None = None
    help: tuple[tuple[str, str], ...] = ()

    def fields(self) -> tuple[Field, ...]:
        """The form fields.

        Returns
        -------
        tuple of Field
        """
        texts = dict(self.help)
        return tuple(game_field(entry, texts.get(entry.name)) for entry in _entries(self.names))

    def options(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The keyword options of the form's values.

        Parameters
        ----------
        values : mapping of str to object
            The parsed form (by field name).

        Returns
        -------
        dict of str to object
        """
        return web_game_options(values, self.names)


def web_game_options(values: Mapping[str, Any],
                     names: Sequence[str] | None = None) -> dict[str, Any]:
    """The keyword options of a parsed form (a negated checkbox flips).

    Parameters
    ----------
    values : mapping of str to object
    names : sequence of str, optional
        Only these options (default: every option with a web field).

    Returns
    -------
    dict of str to object
    """
    out = {}
    for entry in _entries(names):
        assert entry.web is not None  # _entries gives only options with a web field
        value = values[entry.web]
        out[entry.name] = (not value) if entry.negated else value
    return out
