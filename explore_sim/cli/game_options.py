"""The game options on the command line: one argparse option per entry of the option schema
(:data:`explore_sim.engine.options.GAME_OPTIONS`) that has a ``flag``, and back again to the
keywords of the Python functions.

The schema is read when a parser is built, so an option added to it is on the command line
with nothing more written here.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any

from ..engine.options import GAME_OPTIONS, GameOption, options_named
from .arguments import number, whole

__all__ = ["add_game_options", "flagged_options", "game_options_of", "option_names_leaving_out"]


def flagged_options(names: Sequence[str] | None = None, *,
                    leaving_out: Sequence[str] = ()) -> list[GameOption]:
    """The options with a command-line flag: those called ``names`` (in that order), or every
    keyword option of the schema, less those called ``leaving_out``.

    Parameters
    ----------
    names : sequence of str, optional
    leaving_out : sequence of str
        Options a command sets itself (``curve``'s ``turns`` and ``castable``).

    Returns
    -------
    list of GameOption
    """
    entries = GAME_OPTIONS if names is None else options_named(names)
    return [entry for entry in entries
            if entry.flag and entry.keyword and entry.name not in leaving_out]


def option_names_leaving_out(own: Sequence[str]) -> list[str]:
    """The names of the options with a command-line flag but those a command sets itself.

    Parameters
    ----------
    own : sequence of str
        The options the command sets itself (``lands``' ``turns`` and ``on_play``).

    Returns
    -------
    list of str
        For :func:`add_game_options` and :func:`game_options_of`.
    """
    return [entry.name for entry in flagged_options(leaving_out=own)]


def add_game_options(parser: argparse.ArgumentParser, names: Sequence[str] | None = None,
                     help: Mapping[str, str] | None = None) -> None:
    """Add the game options' flags to ``parser`` (the value lands under the option's name).

    Parameters
    ----------
    parser : argparse.ArgumentParser
    names : sequence of str, optional
        Only these options, in this order (default: every option with a flag).
    help : mapping of str to str, optional
        Help texts that differ from the schema's for this command.
    """
    for entry in flagged_options(names):
        kwargs: dict[str, Any] = {"dest": entry.name,
                                  "help": (help or {}).get(entry.name, entry.help)}
        if entry.kind == "bool":
            kwargs.update(action="store_false" if entry.negated else "store_true",
                          default=entry.default)
        elif entry.kind in ("names", "cards"):
            kwargs.update(action="append", default=[], metavar=entry.metavar)
        else:
            kwargs["default"] = entry.default
            if entry.kind == "int":
                kwargs["type"] = whole
            elif entry.kind == "probability":
                kwargs["type"] = number
            elif entry.kind == "choice":
                kwargs["choices"] = list(entry.choices)
            if entry.metavar:
                kwargs["metavar"] = entry.metavar
        assert entry.flag is not None  # flagged_options gives only options with a flag
        parser.add_argument(entry.flag, **kwargs)


def game_options_of(args: argparse.Namespace,
                    names: Sequence[str] | None = None) -> dict[str, Any]:
    """The keyword options of parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
    names : sequence of str, optional
        As for :func:`add_game_options`.

    Returns
    -------
    dict of str to object
    """
    return {entry.name: getattr(args, entry.name) for entry in flagged_options(names)}
