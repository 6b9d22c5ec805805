"""``metrics``: the metrics catalogue, as a table, CSV, Markdown or JSON; and the help texts
that list metric names."""

from __future__ import annotations

import argparse

import pandas as pd

from ..analysis.report import text_table
from ..engine.metrics import CASTABLE_PREFIX, SCOPES, catalogue
from .output import Output

__all__ = ["METRICS_FORMATS", "add_parser", "metrics_text", "names_help", "run"]

#: The output formats of ``explore-sim metrics``.
METRICS_FORMATS = ("table", "csv", "markdown", "json")
_COLUMNS = ("metric", "scope", "kind", "unit", "meaning")


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add ``metrics`` to the command line.

    Parameters
    ----------
    commands : argparse subparsers
    """
    listing = commands.add_parser(
        "metrics", help="list every metric: its name, scope, kind, unit and meaning",
        description="The metrics explore_sim reports. scope: explore (the explore command), "
                    "opening (the opening hand, turn 0 of a goldfish game) or turn (each turn "
                    "of a goldfish game); kind: state (the game at one moment) or event (a "
                    "count of what happened, cumulative from the start).")
    listing.add_argument("--scope", choices=SCOPES, default=None,
                         help="only the metrics of one scope (default: all)")
    listing.add_argument("--format", choices=METRICS_FORMATS, default="table",
                         help="table (default), csv, markdown or json")


def run(args: argparse.Namespace) -> Output:
    """Run ``metrics``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    Output
    """
    return Output(metrics_text(args.format, args.scope))


def metrics_text(fmt: str = "table", scope: str | None = None) -> str:
    """The metrics catalogue in one of :data:`METRICS_FORMATS`.

    Parameters
    ----------
    fmt : {"table", "csv", "markdown", "json"}
    scope : {"explore", "opening", "turn"}, optional
        Only that scope's metrics (default: all).

    Returns
    -------
    str
        The text, ending with a newline.
    """
    rows = pd.DataFrame([(m.name, m.scope, m.kind, m.unit, m.meaning)
                         for m in catalogue(scope)], columns=list(_COLUMNS))
    if fmt == "csv":
        return rows.to_csv(index=False, lineterminator="\n")
    if fmt == "json":
        return rows.to_json(orient="records", indent=2, force_ascii=False) + "\n"
    if fmt == "markdown":
        lines = ["| " + " | ".join(_COLUMNS) + " |", "|" + " --- |" * len(_COLUMNS)]
        lines += [f"| `{row.metric}` | {row.scope} | {row.kind} | {row.unit} | {row.meaning} |"
                  for row in rows.itertuples()]
        return "\n".join(lines) + "\n"
    return "\n".join(line.rstrip() for line in text_table(rows).splitlines()) + "\n"


def names_help(scope: str, castable: bool = True) -> str:
    """The names of a scope's metrics for a help text, with where their meanings are.

    Parameters
    ----------
    scope : {"explore", "opening", "turn"}
    castable : bool
        With ``castable:CARD`` (a command that takes no ``--castable`` goes without).

    Returns
    -------
    str
    """
    names = ", ".join(m.name for m in catalogue(scope)
                      if castable or not m.name.startswith(CASTABLE_PREFIX))
    return f"{names} (explore-sim metrics --scope {scope} says what each means)"
