"""``cards`` (the card catalog: list, show, import, update, check, template) and
``policies`` (the keep-or-mill presets and expression names)."""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import pandas as pd

from ..analysis.report import FORMATS, text_table
from ..cards import Card, Catalog
from ..cards.card_index import import_cards
from ..cards.decklist import Deck, deck_card_files
from ..cards.template import card_template
from ..cards.update import DEFAULT_DEADLINE, DEFAULT_DOWNLOAD_HOSTS, DEFAULT_MAX_BYTES
from ..engine.abilities import NO_EFFECT, held_reason
from ..engine.policies import OBSERVATION_NAMES, PRESETS
from ..errors import CardError, OptionError, clip
from . import shared
from .arguments import PROG, Parser, megabytes, seconds
from .output import Output, print_line

__all__ = ["CARD_COMMANDS", "add_parsers", "run_cards", "run_policies"]

#: The subcommands of ``cards``.
CARD_COMMANDS = ("list", "show", "import", "update", "check", "template")


def add_parsers(commands: argparse._SubParsersAction, sources: argparse.ArgumentParser,
                decks: argparse.ArgumentParser) -> None:
    """Add ``cards`` and ``policies`` to the command line.

    Parameters
    ----------
    commands : argparse subparsers
    sources, decks : argparse.ArgumentParser
        The parent parsers of the card-source and decklist-format options.
    """
    cards = commands.add_parser(
        "cards", help="the card catalog: list, show, import, update, check, template")
    card_commands = cards.add_subparsers(dest="card_command", metavar="CARD_COMMAND",
                                         parser_class=Parser)
    listing = card_commands.add_parser("list", parents=[sources], help="list the built-in catalog")
    listing.add_argument("--format", choices=FORMATS, default="table")
    show = card_commands.add_parser("show", parents=[sources], help="show one card")
    show.add_argument("name", nargs="+", metavar="WORD",
                      help="the card's name, quoted or not: the words are one name "
                           "(cards show jadelight ranger)")
    show.add_argument("--format", choices=FORMATS, default="table")
    importing = card_commands.add_parser(
        "import", help="import a Scryfall or MTGJSON bulk file into the local card index")
    importing.add_argument("file", help="oracle_cards / default_cards .json(.gz) or "
                                        "AtomicCards.json(.gz/.xz)")
    importing.add_argument("--cards-dir", default=None, metavar="DIR")
    updating = card_commands.add_parser(
        "update", help="download Scryfall's current oracle_cards file and import it")
    updating.add_argument("--cards-dir", default=None, metavar="DIR")
    updating.add_argument("--base-url", default=None,
                          help="API base URL (default $EXPLORE_SIM_SCRYFALL_URL or Scryfall's)")
    updating.add_argument("--timeout", type=seconds, default=60.0,
                          help="seconds to wait at each step (default 60)")
    updating.add_argument("--deadline", type=seconds, default=DEFAULT_DEADLINE,
                          help=f"seconds the whole download may take "
                               f"(default {DEFAULT_DEADLINE:g})")
    updating.add_argument("--max-download", type=megabytes, default=DEFAULT_MAX_BYTES,
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


def run_cards(args: argparse.Namespace) -> Output:
    """Run a ``cards`` subcommand.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    Output
    """
    return Output(_cards(args))


def run_policies(args: argparse.Namespace) -> Output:
    """List the policy presets and expression names.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    Output
    """
    return Output(_policies())


def _cards(args: argparse.Namespace) -> str:
    command = args.card_command
    if command == "import":
        return import_cards(args.file, args.cards_dir).summary()
    if command == "update":
        from ..cards.update import update_cards

        progress = None if args.quiet or sys.stderr is None or not sys.stderr.isatty() \
            else sys.stderr
        return update_cards(
            args.cards_dir, args.base_url, args.timeout, progress,
            max_bytes=args.max_download, deadline=args.deadline,
            download_hosts=args.download_host,
        ).summary()
    if command == "template":
        return _template(args)
    card_sources = shared.sources(args)
    if command == "show":
        name = " ".join(args.name)
        if card_sources.find(name) is None:  # a deck's own card file is not read here
            hint = (card_sources.suggestion_text(name)
                    or "; a card of a card file is shown with --cards FILE")
            raise CardError(f"unknown card {clip(name)!r}{hint}")
        return _show_card(card_sources.get(name), args.format)
    if command == "check":
        return _check_deck(shared.deck(args, args.deck), args.format)
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
    print_line(f"{PROG}: wrote {args.output}: {count} card{'s' if count != 1 else ''} "
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
                "draws": card.draws or "",
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
    idle = {card.name for section in (deck.main, deck.sideboard, deck.commander, deck.companion)
            for card, _ in section if held_reason(card) == NO_EFFECT}
    frame["abilities"] = [f"held: {NO_EFFECT}" if name in idle else text
                          for name, text in zip(frame["name"], frame["abilities"])]
    for name, text in zip(frame["name"], frame["unmodelled"]):
        if text:  # an imported card whose text no template matched: say so, never guess silently
            warnings.warn(f"{name}: not modelled: {text}", stacklevel=2)
    if fmt == "json":
        rows = frame.to_dict(orient="records")
        document = {"deck": deck.name, "format": deck.format, "cards": rows}
        return json.dumps(document, indent=2) + "\n"
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
