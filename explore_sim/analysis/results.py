"""What every analysis result shares: its metadata, a tidy summary, text for the command
line, and the short reprs of a console and a notebook.

A result class (:class:`~explore_sim.ExploreResult`, :class:`~explore_sim.SimulationResult`,
...) is a frozen dataclass whose first field is ``meta`` and that derives from
:class:`Result`. It writes only what is its own:

- ``_rows(level)``: the tidy rows of :meth:`Result.summary` (without the metadata);
- ``_table(rows)``: the people-readable text of :meth:`Result.render` (``csv`` and ``json``
  are the rows with the metadata, the same for every result);
- ``_facts()``: what ran, for the one-line repr (``str(result)``, what ``print`` shows, is
  the table of :meth:`Result.render`);
- ``_html()``: the facts and the table of the notebook repr.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .report import html_repr, render, short_repr, with_meta

__all__ = ["Result"]


class Result:
    """The shared part of an analysis result.

    Attributes
    ----------
    meta : dict
        What was run and assumed (JSON-safe): ``command``, ``deck``, ``policy``, the
        options, ``trials``, ``seed``, ``assumptions`` and ``versions``; every frame the
        result returns carries it in ``attrs["explore_sim"]``.
    """

    meta: dict[str, Any]

    def summary(self, level: float = 0.95) -> pd.DataFrame:
        """Tidy statistics, with :attr:`meta` in ``attrs["explore_sim"]``.

        Parameters
        ----------
        level : float
            Confidence level of the intervals.

        Returns
        -------
        DataFrame
            One row per statistic; the columns are those of each result's summary.
        """
        return self._with_meta(self._rows(level))

    def render(self, fmt: str = "table") -> str:
        """The result as text, as the command line prints it.

        Parameters
        ----------
        fmt : {"table", "csv", "json"}
            ``table``: the people-readable text; ``csv`` and ``json``: the rows of
            :meth:`summary` (``json`` with the metadata).

        Returns
        -------
        str
        """
        rows = self.summary()
        if fmt != "table":
            return render(fmt, self.meta, rows, "")
        return self._table(rows)

    def _with_meta(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` with :attr:`meta` in ``attrs["explore_sim"]``."""
        return with_meta(frame, self.meta)

    def _rows(self, level: float) -> pd.DataFrame:
        raise NotImplementedError

    def _table(self, rows: pd.DataFrame) -> str:
        raise NotImplementedError

    def _facts(self) -> dict[str, Any]:
        raise NotImplementedError

    def _facts_line(self) -> str:
        """:meth:`_facts` as ``key: value, ...`` (the notebook repr's first line)."""
        return ", ".join(f"{key}: {value}" for key, value in self._facts().items())

    def _html(self) -> tuple[list[str], pd.DataFrame, bool]:
        """The notebook repr's fact lines, its table, and whether the table's index shows."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return short_repr(type(self).__name__, self._facts())

    def __str__(self) -> str:
        """The people-readable table of :meth:`render`: what ``print(result)`` shows, as the
        command line prints it (the repr stays one line)."""
        return self.render()

    def _repr_html_(self) -> str:
        facts, table, index = self._html()
        return html_repr(type(self).__name__, facts, table, index=index)
