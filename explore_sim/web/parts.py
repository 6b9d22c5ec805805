"""What every analysis of the web page is made of: the :class:`Analysis` record, the
:class:`Table` the page shows, helpers that turn a result's tidy frame into one, and the
fields and checks most analyses share (``trials`` and ``seed``, a policy built with the
whitelist parser, an API error as the page says it).

The analyses themselves are in :mod:`explore_sim.web.analyses` (and, one per module, where
an analysis has its own, such as :mod:`explore_sim.web.curve_tab`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from ..cards import CardSources
from ..cards.decklist import Deck
from ..engine.policies import as_policy
from ..errors import ExploreSimError
from .forms import Field
from .game_fields import GameFields

__all__ = ["Analysis", "Table", "GameVariant", "Progress", "frame_table", "wide_table",
           "render_download", "trials_and_seed", "page_message", "policy_error"]

#: ``progress(done, total)``: called by the API after every chunk of trials.
Progress = Callable[[int, int], None]

_COMMAND_LINE_HINT = re.compile(r"\s*\(--[a-z-]+ NAME\)")


@dataclasses.dataclass(frozen=True)
class Table:
    """A result table as the page shows it: formatted cells, first column a row header.

    Attributes
    ----------
    title : str
    columns : list of str
    rows : list of list of str
    note : str
        One line under the table (what the cells mean).
    lead : str
        One sentence above the table: its answer in words (blank: none).
    links : tuple of str
        Per row, the query string of ``/replay`` (the run's job added) that shows a game of
        that row, such as ``metric=counters&turn=4&value=0`` (blank: none for the table).
    """

    title: str
    columns: list[str]
    rows: list[list[str]]
    note: str = ""
    lead: str = ""
    links: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class GameVariant:
    """One deck and policy of a goldfish run, as :func:`explore_sim.replay` plays its games
    again.

    Attributes
    ----------
    label : str
        The variant's name on the page (blank when the run has one).
    deck : Deck
    options : dict
        :func:`explore_sim.replay`'s keyword arguments but ``trial``: the policy, the game
        options, ``trials`` and ``seed``, as the run had them.
    """

    label: str
    deck: Deck
    options: dict[str, Any]


def frame_table(frame: pd.DataFrame, title: str, note: str = "",
                digits: int = 4) -> Table:
    """A tidy frame as a :class:`Table`, statistics with ``digits`` decimals.

    Parameters
    ----------
    frame : DataFrame
    title : str
    note : str
    digits : int

    Returns
    -------
    Table
    """
    def cell(value: Any) -> str:
        if isinstance(value, float):
            return f"{value:.{digits}f}"
        return str(value)

    rows = [[cell(v) for v in row] for row in frame.itertuples(index=False, name=None)]
    return Table(title, [str(c) for c in frame.columns], rows, note)


def wide_table(rows: pd.DataFrame, index: str, columns: str, order: Sequence[Any],
               metrics: Sequence[str], cell: Callable[[pd.Series], str], title: str,
               note: str = "", header: Callable[[Any], str] = str) -> Table:
    """Metrics down, ``columns`` across, each cell made by ``cell(row)``.

    Parameters
    ----------
    rows : DataFrame
        Tidy rows with ``metric`` and the ``columns`` column.
    index : str
        The column down the side (``metric``).
    columns : str
        The column across (``turn``, ``variant``).
    order : sequence
        The values of ``columns`` in order.
    metrics : sequence of str
        The rows wanted, in order.
    cell : callable
        Formats one tidy row.
    title, note : str
    header : callable
        Column header of a value of ``columns``.

    Returns
    -------
    Table
    """
    cells: dict[tuple[Any, Any], str] = {}
    for _, row in rows.iterrows():
        cells[(row[index], row[columns])] = cell(row)
    present = [c for c in order if any(key[1] == c for key in cells)]
    body = [[metric, *(cells.get((metric, c), "") for c in present)]
            for metric in metrics if any(key[0] == metric for key in cells)]
    return Table(title, [index, *(header(c) for c in present)], body, note)


@dataclasses.dataclass(frozen=True)
class Analysis:
    """One question the page answers.

    Attributes
    ----------
    name : str
        The ``analysis`` value of the form and permalink (the command line's command).
    title : str
        The tab's label.
    description : str
        One paragraph above the options.
    form : tuple of Field or GameFields
        The options (``trials`` and ``seed`` last); a :class:`GameFields` stands for game
        options of the schema, read when :attr:`fields` is.
    check : callable
        ``check(options, decks, sources) -> {field: message}``: what can be refused before
        the run, shown beside its field (a message under a key that is no field, such as
        ``position``, is about several fields and is shown above the form); may put
        normalised values into ``options``.
    run : callable
        ``run(decks, options, progress) -> result``: the public API call.
    tables : callable
        ``tables(result, options) -> list of Table``.
    figure : callable or None
        ``figure(result, options) -> matplotlib Figure``; None: the analysis draws no figure
        (its command has no ``--plot``).
    download : callable
        ``download(result, options, fmt) -> str`` for ``fmt`` in ``csv``, ``json``.
    second_deck : bool
        The form offers a second deck (compare).
    replays : callable or None
        ``replays(decks, options, result) -> list of GameVariant``: the run's games can be
        watched (a sample game under the result, ``/replay``); None: they cannot.
    """

    name: str
    title: str
    description: str
    form: tuple[Field | GameFields, ...]
    check: Callable[[dict[str, Any], list[Deck], CardSources], dict[str, str]]
    run: Callable[[list[Deck], Mapping[str, Any], Progress], Any]
    tables: Callable[[Any, Mapping[str, Any]], list[Table]]
    figure: Callable[[Any, Mapping[str, Any]], Figure] | None
    download: Callable[[Any, Mapping[str, Any], str], str]
    second_deck: bool = False
    replays: Callable[[list[Deck], Mapping[str, Any], Any], list[GameVariant]] | None = None

    @property
    def fields(self) -> tuple[Field, ...]:
        """The form's fields, game options included.

        Returns
        -------
        tuple of Field
        """
        out: list[Field] = []
        for item in self.form:
            out.extend(item.fields() if isinstance(item, GameFields) else [item])
        return tuple(out)

    def field(self, name: str) -> Field:
        """The field called ``name``.

        Parameters
        ----------
        name : str

        Returns
        -------
        Field
        """
        return next(f for f in self.fields if f.name == name)


def render_download(result: Any, options: Mapping[str, Any], fmt: str) -> str:
    """The download of a result: the command line's ``--format csv`` or ``json`` output.

    Parameters
    ----------
    result : Result
    options : mapping
        The run's options (unused: the result knows what to write).
    fmt : {"csv", "json"}

    Returns
    -------
    str
    """
    return result.render(fmt)


# --------------------------------------------------------------------------- common fields

def trials_and_seed(noun: str) -> tuple[Field, Field]:
    """The ``trials`` and ``seed`` fields that end every form.

    Parameters
    ----------
    noun : str
        What a trial is (``games``, ``shuffles``), for the help.

    Returns
    -------
    (Field, Field)
    """
    return (
        Field("trials", "trials", "int", 100_000, f"{noun} to play; more gives smaller "
              "standard errors", low=2),
        Field("seed", "seed", "int", None, "the same seed gives the same numbers (blank: a "
              "fresh one, shown with the result)", low=0),
    )


def page_message(error: Exception) -> str:
    """An error of the API as the page says it: without the command line's "(--card NAME)"
    (the form's field of that name is where the error is shown).

    Parameters
    ----------
    error : Exception

    Returns
    -------
    str
    """
    return _COMMAND_LINE_HINT.sub("", str(error))


def policy_error(options: dict[str, Any], name: str) -> dict[str, str]:
    """Build the policy of field ``name`` with the whitelist parser; its error if any.

    Parameters
    ----------
    options : dict
        The parsed form.
    name : str
        The policy's field (``policy``, ``scry_policy``).

    Returns
    -------
    dict of str to str
        ``{name: message}`` or empty.
    """
    text = options.get(name)
    if text is None:
        return {}
    try:
        as_policy(text)
    except ExploreSimError as error:
        return {name: f"{name.replace('_', ' ')}: {error}"}
    return {}
