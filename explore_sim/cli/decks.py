"""``decks``: the decks shipped with the package, by the short names any command takes in
place of a decklist path."""

from __future__ import annotations

import argparse

import pandas as pd

from ..analysis.report import text_table
from ..cards.decklist import load_deck
from ..cards.shipped import DECKS_DIR, shipped_deck_files
from .output import Output

__all__ = ["DECKS_FORMATS", "add_parser", "decks_frame", "run"]

#: The output formats of ``explore-sim decks``.
DECKS_FORMATS = ("table", "csv", "json")


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add ``decks`` to the command line.

    Parameters
    ----------
    commands : argparse subparsers
    """
    listing = commands.add_parser(
        "decks", help="list the shipped decks, by the short names any command takes in place "
                      "of a decklist path (explore-sim simulate merfolk)",
        description="The decks shipped with explore_sim. Any command that reads a decklist "
                    "takes a shipped deck's short name (or its file's name) in place of a "
                    "path, as long as no file of that name is in the working folder; so does "
                    "Python (explore_sim.simulate('merfolk')).")
    listing.add_argument("--format", choices=DECKS_FORMATS, default="table",
                         help="table (default), csv or json")


def decks_frame() -> pd.DataFrame:
    """The shipped decks: short name, the deck's own name, its size, lands and format, and
    its file (with ``+ cards`` when a card file travels with it).

    Returns
    -------
    pandas.DataFrame
        Columns ``name``, ``deck``, ``cards``, ``lands``, ``format``, ``file``.
    """
    rows = []
    for name, shipped in shipped_deck_files().items():
        deck = load_deck(shipped.path)
        card_file = " + cards" if shipped.card_file is not None else ""
        rows.append((name, deck.name, deck.size, deck.land_count, deck.format,
                     shipped.path.name + card_file))
    return pd.DataFrame(rows, columns=["name", "deck", "cards", "lands", "format", "file"])


def run(args: argparse.Namespace) -> Output:
    """Run ``decks``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    Output
    """
    rows = decks_frame()
    if args.format == "csv":
        return Output(rows.to_csv(index=False, lineterminator="\n"))
    if args.format == "json":
        return Output(rows.to_json(orient="records", indent=2, force_ascii=False) + "\n")
    table = "\n".join(line.rstrip() for line in text_table(rows).splitlines())
    return Output(f"{table}\n\nin {DECKS_DIR}; name one in place of a decklist path, e.g. "
                  "explore-sim simulate merfolk\n")
