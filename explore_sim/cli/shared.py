"""What the commands share: the deck and card sources of their options, the progress bar,
the ``--plot`` file, the ``--scheduler`` cluster and metric lists."""

from __future__ import annotations

import argparse
import contextlib
import os
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ..analysis.executors import SCHEDULER_ENV, DaskExecutor, Executor
from ..analysis.metric_checks import check_metrics
from ..cards import Card, CardSources
from ..cards.card_index import card_sources
from ..cards.decklist import Deck, deck_card_files, load_deck
from ..errors import OptionError, clip
from ..progress import ProgressBar
from .arguments import PROG
from .output import print_line

__all__ = ["sources", "deck", "sources_with_decks", "castable_cards", "progress",
           "check_plot_path", "plot_later", "scheduler", "metric_list"]


def sources(args: argparse.Namespace) -> CardSources:
    """The card sources of ``--cards`` and ``--cards-dir``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    CardSources
    """
    return card_sources(args.cards, args.cards_dir)


def deck(args: argparse.Namespace, path: str) -> Deck:
    """The decklist at ``path``; its own card file (``NAME.cards.toml``) joins ``--cards``.

    Parameters
    ----------
    args : argparse.Namespace
    path : str

    Returns
    -------
    Deck
    """
    return load_deck(path, format=args.deck_format, cards=args.cards, cards_dir=args.cards_dir)


def sources_with_decks(args: argparse.Namespace, paths: Sequence[str]) -> CardSources:
    """The card sources of ``--cards`` and ``--cards-dir``, and the card files of the
    decklists at ``paths`` (``NAME.cards.toml`` beside each), where card names given as
    options (``--castable``, ``--vary``) are found.

    Parameters
    ----------
    args : argparse.Namespace
    paths : sequence of str

    Returns
    -------
    CardSources
    """
    companions = [str(f) for path in paths for f in deck_card_files(path)]
    if companions:
        return card_sources([*args.cards, *companions], args.cards_dir)
    return sources(args)


def castable_cards(args: argparse.Namespace, found: CardSources) -> list[Card]:
    """The cards ``--castable`` names, found in ``found`` (:func:`sources_with_decks`).

    Parameters
    ----------
    args : argparse.Namespace
    found : CardSources

    Returns
    -------
    list of Card

    Raises
    ------
    OptionError
        A name no card source knows.
    """
    castable = []
    for name in args.castable:
        card = found.find(name)
        if card is None:
            raise OptionError(f"--castable: unknown card {clip(name)!r}"
                              f"{found.suggestion_text(name)}")
        castable.append(card)
    return castable


def progress(args: argparse.Namespace, label: str) -> ProgressBar:
    """A progress bar on standard error for runs over a second (not with --quiet or no tty)."""
    stream = None if args.quiet or sys.stderr is None or not sys.stderr.isatty() else sys.stderr
    return ProgressBar(stream, label, unit="trials")


def check_plot_path(args: argparse.Namespace) -> None:
    """Refuse a ``--plot`` file that could not be written, before anything is run."""
    if not args.plot:
        return
    path = Path(args.plot)
    if path.suffix.casefold() not in {".png", ".svg", ".pdf"}:
        raise OptionError(f"--plot: {clip(args.plot)!r} must end in .png, .svg or .pdf")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise OptionError(f"--plot: cannot write {args.plot}: {error.strerror or error}") from None
    if mode is not None and not stat.S_ISREG(mode):
        kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise OptionError(f"--plot: {args.plot} is {kind}")
    if mode is None and not path.parent.is_dir():
        raise OptionError(f"--plot: cannot write {args.plot}: no such directory {path.parent}")
    try:  # opened for appending, so an existing figure is not changed yet
        with open(path, "ab"):
            pass
    except OSError as error:
        raise OptionError(f"--plot: cannot write {args.plot}: {error.strerror or error}") from None
    finally:
        if mode is None:
            path.unlink(missing_ok=True)


def plot_later(path: str, result: Any, metrics: Sequence[str] | None = None,
                **options: Any) -> Callable[[], None]:
    """A function that draws the result's figure (:func:`~explore_sim.plotting.result_figure`,
    as the web page shows it), writes it to ``path`` and says so on standard error (run after
    the results are printed); a failure is one :class:`OptionError`."""

    def save() -> None:
        from ..plotting import result_figure  # matplotlib only for a command that plots

        figure = result_figure(result, metrics, **options)
        try:
            figure.savefig(path, dpi=150)
        except OSError as error:
            raise OptionError(f"--plot: cannot write {path}: {error.strerror or error}") from None
        print_line(f"{PROG}: wrote {path}")

    return save


@contextlib.contextmanager
def scheduler(args: argparse.Namespace) -> Iterator[Executor | None]:
    """The Dask cluster of ``--scheduler`` (else ``$DASK_SCHEDULER_ADDRESS``), connected when
    the first chunk is sent and closed on leaving; None runs locally."""
    address, source = args.scheduler, "--scheduler"
    if address is None:
        address, source = os.environ.get(SCHEDULER_ENV, ""), SCHEDULER_ENV
    elif not address.strip():
        raise OptionError("--scheduler is empty: give the scheduler's tcp://HOST:PORT, or "
                          "leave the option out to run here")
    if not address.strip():
        yield None
        return
    if args.workers != 1:
        raise OptionError(f"--workers runs local processes and {source} a Dask cluster: "
                          "choose one")
    with DaskExecutor(address, args.scheduler_timeout) as executor:
        yield executor


def metric_list(text: str | None, label: str, by_turn: str | None = None) -> list[str] | None:
    """The metric names of ``text`` (separated by commas), checked
    (:func:`~explore_sim.analysis.metric_checks.check_metrics`); None for no text."""
    if not text:
        return None
    return check_metrics([m.strip() for m in text.split(",") if m.strip()], label=label,
                         by_turn=by_turn)
