"""Sweep results in a Parquet file, written as points finish and read back to resume a run.

The file is one tidy table: one row per grid point, turn and metric, with the point's
parameters (``deck``, one column per grid key, ``policy``), ``turn, metric, mean, se,
ci_low, ci_high`` (95% intervals), ``trials``, ``seed`` (as text: fresh entropy has 128
bits), ``chunk_trials``, ``deck_digest`` (the point's deck list), ``version`` (explore_sim's)
and the exact sums behind the statistics: ``sum``, ``sum_squares`` and ``histogram`` (the
count of every value from 0). pandas, polars and DuckDB read it as it is. The file's schema
metadata holds, under ``explore_sim``, the run's settings (what decides its numbers) and
its metadata, as JSON.

Rewriting a Parquet file is the only way to add rows to it, so the whole file is written
again, to a hidden neighbour of the writing process (``.r.parquet.PID.partial``) that then
replaces it, after each finished point (at most as often as keeps writing under 5% of the
run's time): whenever the run stops, the file holds every point written so far and is a
valid Parquet file. A run with the same settings reads those points back (their exact sums)
and plays only the others; the file it ends with is the one an uninterrupted run writes,
byte for byte. A file of other settings is never mixed with: the run is refused, naming what
differs, and the settings are checked again before each replace. A file read back must be
whole (:mod:`.results_file_checks`); one run at a time writes a file (:mod:`.locking`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import stat
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import OptionError, clip
from .locking import create_partial, partial_path
from .results_file_checks import (
    MAX_LABEL_BYTES,
    check_footer,
    check_footer_size,
    check_rows,
    histograms,
    not_whole,
    read_rows,
)
from .stats import Accumulator, summary_rows

__all__ = ["SweepFile", "FORMAT_VERSION", "deck_fingerprint", "RESERVED_COLUMNS"]

#: Version of the file's layout, in its settings.
FORMAT_VERSION = 1
#: Columns of the file besides the grid keys.
RESERVED_COLUMNS = ("deck", "policy", "turn", "metric", "mean", "se", "ci_low", "ci_high",
                    "trials", "seed", "chunk_trials", "deck_digest", "version", "sum",
                    "sum_squares", "histogram")
_META_KEY = b"explore_sim"
#: The share of a run's time that rewriting the file may take.
_WRITE_SHARE = 0.05


def deck_fingerprint(cards: Sequence[tuple[Any, int]]) -> str:
    """A hash of cards, counts and every card's data, in order (what a deck plays like).

    Unlike :meth:`Deck.digest` (names and counts), a changed card file changes it. Where a
    card's data came from (``source``) does not.

    Parameters
    ----------
    cards : sequence of (Card, int)
        Cards and copies, in deck order.

    Returns
    -------
    str
        16 hexadecimal digits.
    """
    records = []
    for card, count in cards:
        data = dataclasses.asdict(card)
        data.pop("source", None)
        records.append([count, data])
    text = json.dumps(records, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _pyarrow() -> Any:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # a dependency, but say what to do if it was removed
        raise OptionError("--out needs pyarrow: pip install pyarrow") from None
    return pa, pq


class SweepFile:
    """A sweep's Parquet file: the points it holds, and new points as they finish.

    Parameters
    ----------
    path : str or PathLike
        The file (created when the first point finishes).
    settings : dict
        What decides the run's numbers (JSON-safe): decks, grid, policies, game options,
        trials, seed, chunk size, versions. A file of other settings is refused.
    keys : list of str
        The grid keys, in order (one column each).
    meta : dict
        The run's metadata, stored with the settings.

    Raises
    ------
    OptionError
        A path that cannot be written, a file that is not a sweep file, or a sweep file of
        other settings (naming what differs).
    """

    def __init__(self, path: str | os.PathLike[str], settings: dict[str, Any],
                 keys: list[str], meta: dict[str, Any]) -> None:
        self.path = Path(path)
        self.settings = json.loads(json.dumps(settings, sort_keys=True))
        _check_names(self.settings)
        self.keys = list(keys)
        self.meta = meta
        self.points: dict[tuple, dict[str, Any]] = {}  # point key -> record, finished ones
        self.order: dict[tuple, int] = {}
        self._dirty = False
        self._last_write_end = 0.0
        self._last_write_cost = 0.0
        self._check_writable()

    @staticmethod
    def stored_settings(path: str | os.PathLike[str]) -> dict[str, Any] | None:
        """The settings recorded in an existing sweep file.

        Parameters
        ----------
        path : str or PathLike

        Returns
        -------
        dict or None
            None if there is no file.

        Raises
        ------
        OptionError
            A file that is not a sweep file of explore_sim.
        """
        path = Path(path)
        if not path.exists():
            return None
        return _read_meta(path)["settings"]

    @staticmethod
    def check_path(path: str | os.PathLike[str]) -> Path:
        """The results file's resolved path (a symbolic link's target: the file its lock and
        partial file are beside); refuse one that could not be written, in one line.

        Parameters
        ----------
        path : str or PathLike

        Returns
        -------
        Path
            ``path`` as given, or, where a symbolic link is on the way, the file it leads to.

        Raises
        ------
        OptionError
            A directory, a special file, a name too long, a missing directory, a loop of
            symbolic links.
        """
        try:
            resolved = os.path.realpath(path, strict=False)
            path = Path(path) if resolved == os.path.abspath(path) else Path(resolved)
        except (OSError, ValueError) as error:
            raise OptionError(f"--out: cannot write {clip(path)}: "
                              f"{getattr(error, 'strerror', None) or error}") from None
        try:
            mode: int | None = os.stat(path).st_mode
        except FileNotFoundError:
            mode = None
        except OSError as error:
            raise OptionError(f"--out: cannot write {clip(path)}: "
                              f"{error.strerror or error}") from None
        if mode is not None and stat.S_ISDIR(mode):
            raise OptionError(f"--out: {clip(path)} is a directory")
        if mode is not None and not stat.S_ISREG(mode):
            raise OptionError(f"--out: {clip(path)} is not a regular file")
        if not os.path.isdir(path.parent):
            raise OptionError(f"--out: cannot write {clip(path)}: no such directory "
                              f"{clip(path.parent)}")
        return path

    def _check_writable(self) -> None:
        path = self.check_path(self.path)
        probe = self._partial()
        try:
            os.close(create_partial(probe))
            probe.unlink()
        except OSError as error:
            raise OptionError(f"--out: cannot write in {clip(path.parent)}: "
                              f"{error.strerror or error}") from None
        if path.exists() and not os.access(path, os.W_OK):
            raise OptionError(f"--out: cannot write {clip(path)}: permission denied")

    def _partial(self) -> Path:
        return partial_path(self.path)

    def read(self, order: Sequence[tuple], metrics: Sequence[Mapping[str, bool]]
             ) -> dict[tuple, list[Accumulator]]:
        """Read back the finished points of a file with the same settings.

        Parameters
        ----------
        order : sequence of tuple
            Every point's key ``(deck, *grid values, policy)``, in the run's order.
        metrics : sequence of mapping of str to bool
            For each turn from 0, the metrics recorded and whether each is a 0/1 indicator.

        Returns
        -------
        dict of tuple to list of Accumulator
            For each point found in the file, its exact sums by turn.

        Raises
        ------
        OptionError
            A file that is not a sweep file, was written with other settings, or holds
            points that are not whole.
        """
        self.order = {key: index for index, key in enumerate(order)}
        if not self.path.exists():
            return {}
        stored = _read_meta(self.path)["settings"]
        differences = _differences(stored, self.settings)
        if differences:
            raise OptionError(
                f"--out: {self.path} holds a run with other settings: "
                f"{'; '.join(differences)}; refusing to mix them: choose another --out file "
                "or remove this one")
        rows_per_point = sum(len(names) for names in metrics)
        check_footer(self.path, self._schema(), len(self.order) * rows_per_point)
        table = read_rows(self.path)
        check_rows(self.path, table, self.settings["trials"])
        columns = {name: table.column(name).to_pylist()
                   for name in ("deck", *self.keys, "policy", "turn", "metric",
                                "deck_digest", "sum", "sum_squares")}
        lengths, flat = histograms(table)
        ends = np.cumsum(lengths)
        columns["histogram"] = [flat[end - length:end]
                                for end, length in zip(ends.tolist(), lengths.tolist())]
        rows: dict[tuple, list[int]] = {}
        for row, key in enumerate(zip(columns["deck"], *(columns[k] for k in self.keys),
                                      columns["policy"])):
            rows.setdefault(key, []).append(row)
        found = {}
        for key, indices in rows.items():
            if key not in self.order:
                raise OptionError(f"--out: {self.path} holds a point this run does not have: "
                                  f"{_point_text(self.keys, key)}; remove the file")
            found[key] = self._accumulators(key, indices, columns, metrics)
            self.points[key] = {"stats": found[key],
                                "digest": columns["deck_digest"][indices[0]]}
        self._check_same(table)
        return found

    def _check_same(self, table: Any) -> None:
        """Refuse a file that is not the one this run writes for the points it holds."""
        mine = self._table()
        if mine.num_rows == table.num_rows and mine.equals(table):
            return
        for name in mine.column_names:
            if mine.num_rows != table.num_rows or not mine.column(name).equals(
                    table.column(name)):
                raise not_whole(self.path, f"its {clip(name)!r} column is not what its "
                                           "points give (points out of order, or values "
                                           "changed)")
        raise not_whole(self.path, "its rows are not what its points give")

    def _accumulators(self, key: tuple, indices: list[int], columns: dict[str, list],
                      metrics: Sequence[Mapping[str, bool]]) -> list[Accumulator]:
        expected = [(turn, name) for turn, names in enumerate(metrics) for name in names]
        got = [(columns["turn"][i], columns["metric"][i]) for i in indices]
        if got != expected:
            raise OptionError(f"--out: {self.path}: the rows of point "
                              f"{_point_text(self.keys, key)} are not whole; remove the file")
        stats = []
        position = iter(indices)
        for names in metrics:
            acc = Accumulator(names)
            for name in names:
                i = next(position)
                acc.n = self.settings["trials"]
                acc.total[name] = int(columns["sum"][i])
                acc.total_sq[name] = int(columns["sum_squares"][i])
                acc.histogram[name] = np.array(columns["histogram"][i], dtype=np.int64)
            stats.append(acc)
        return stats

    def add(self, key: tuple, stats: Sequence[Accumulator], digest: str) -> None:
        """Record a finished point and write the file if it is time to.

        Parameters
        ----------
        key : tuple
            ``(deck, *grid values, policy)``.
        stats : sequence of Accumulator
            The point's exact sums by turn (turn 0: the opening hand).
        digest : str
            The point's deck digest.
        """
        self.points[key] = {"stats": list(stats), "digest": digest}
        self._dirty = True
        if time.monotonic() - self._last_write_end >= self._last_write_cost / _WRITE_SHARE:
            self.write()

    def write(self) -> None:
        """Write every finished point, in the run's order, if any is new."""
        if not self._dirty:
            return
        started = time.monotonic()
        _, pq = _pyarrow()
        table = self._table()
        partial = self._partial()
        try:
            with os.fdopen(create_partial(partial), "wb") as handle:
                pq.write_table(table, handle)
            self._check_unchanged(partial)
            os.replace(partial, self.path)
        except OSError as error:
            raise OptionError(f"--out: cannot write {clip(self.path)}: "
                              f"{error.strerror or error}") from None
        self._dirty = False
        self._last_write_end = time.monotonic()
        self._last_write_cost = self._last_write_end - started

    def _check_unchanged(self, partial: Path) -> None:
        """Refuse to replace a file that now holds a run of other settings (written by a
        run that did not take the lock), keeping this run's points in ``partial``."""
        if not self.path.exists():
            return
        try:
            stored = _read_meta(self.path)["settings"]
        except OptionError:
            stored = None
        differences = ["it is no longer a results file"] if stored is None else \
            _differences(stored, self.settings)
        if not differences:
            return
        self._dirty = False  # not again on the way out
        kept = self.path.with_name(f"{self.path.stem}.{os.getpid()}{self.path.suffix}")
        try:
            os.replace(partial, kept)
        except OSError:
            kept = partial
        raise OptionError(f"--out: {clip(self.path)} was changed by another run meanwhile: "
                          f"{'; '.join(differences)}; this run's points are kept in "
                          f"{clip(kept)}")

    def _rows(self, key: tuple, record: dict[str, Any]) -> dict[str, list]:
        """A point's rows, column by column (made once per point)."""
        if "rows" in record:
            return record["rows"]
        columns: dict[str, list] = {name: [] for name in self._names()}
        seed = str(self.settings["seed"])
        chunk = self.settings["chunk_trials"]
        version = self.settings["versions"]["explore_sim"]
        for turn, acc in enumerate(record["stats"]):
            sums = {name: (acc.total[name], acc.total_sq[name]) for name in acc.binary}
            rows = summary_rows(acc.n, sums, acc.binary)
            count = len(acc.binary)
            columns["deck"] += [key[0]] * count
            for k, value in zip(self.keys, key[1:-1]):
                columns[k] += [value] * count
            columns["policy"] += [key[-1]] * count
            columns["turn"] += [turn] * count
            columns["metric"] += list(acc.binary)
            for position, statistic in enumerate(("mean", "se", "ci_low", "ci_high"), start=1):
                columns[statistic] += [float(row[position]) for row in rows]
            columns["trials"] += [acc.n] * count
            columns["seed"] += [seed] * count
            columns["chunk_trials"] += [chunk] * count
            columns["deck_digest"] += [record["digest"]] * count
            columns["version"] += [version] * count
            columns["sum"] += [acc.total[name] for name in acc.binary]
            columns["sum_squares"] += [acc.total_sq[name] for name in acc.binary]
            columns["histogram"] += [acc.histogram[name].tolist() for name in acc.binary]
        record["rows"] = columns
        return columns

    def _names(self) -> list[str]:
        return ["deck", *self.keys, "policy", "turn", "metric", "mean", "se", "ci_low",
                "ci_high", "trials", "seed", "chunk_trials", "deck_digest", "version", "sum",
                "sum_squares", "histogram"]

    def _table(self) -> Any:
        pa, _ = _pyarrow()
        columns: dict[str, list] = {name: [] for name in self._names()}
        for key in sorted(self.points, key=self.order.__getitem__):
            for name, values in self._rows(key, self.points[key]).items():
                columns[name] += values
        return pa.table(columns, schema=self._schema())

    def _schema(self) -> Any:
        """The file's columns and types, with the settings and metadata."""
        pa, _ = _pyarrow()
        names = self._names()
        types = {"deck": pa.string(), "policy": pa.string(), "turn": pa.int64(),
                 "metric": pa.string(), "mean": pa.float64(), "se": pa.float64(),
                 "ci_low": pa.float64(), "ci_high": pa.float64(), "trials": pa.int64(),
                 "seed": pa.string(), "chunk_trials": pa.int64(), "deck_digest": pa.string(),
                 "version": pa.string(), "sum": pa.int64(), "sum_squares": pa.int64(),
                 "histogram": pa.list_(pa.int64())}
        schema = pa.schema([pa.field(name, types.get(name, pa.int64())) for name in names],
                           metadata={_META_KEY: json.dumps(
                               {"settings": self.settings, "meta": self.meta},
                               sort_keys=True).encode()})
        return schema


def _read_meta(path: Path) -> dict[str, Any]:
    """The ``explore_sim`` metadata of a sweep file; one-line errors for anything else."""
    _, pq = _pyarrow()
    check_footer_size(path)
    try:
        schema = pq.read_schema(path)
    except Exception as error:  # noqa: BLE001 - pyarrow raises several types for bad files
        raise OptionError(f"--out: {path} exists and is not a Parquet file "
                          f"({clip(error)}); refusing to overwrite it") from None
    raw = (schema.metadata or {}).get(_META_KEY)
    try:
        meta = json.loads(raw) if raw else None
    except RecursionError:
        raise not_whole(path, "its settings are nested too deeply to be settings") from None
    except ValueError:
        raise not_whole(path, "its settings are not JSON") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("settings"), dict):
        raise OptionError(f"--out: {path} is a Parquet file that explore-sim sweep did not "
                          "write; refusing to overwrite it")
    command = meta["settings"].get("command")
    if command != "sweep":
        raise OptionError(f"--out: {path} holds the results of {clip(command)!r}, not of a "
                          "sweep; refusing to mix them")
    return meta


def _check_names(settings: Mapping[str, Any]) -> None:
    """Refuse a deck or policy name longer than a results file holds (one cell each row)."""
    for kind, what in (("decks", "deck"), ("policies", "policy")):
        for entry in settings.get(kind, ()):
            size = len(str(entry.get("name", "")).encode("utf-8", "surrogateescape"))
            if size > MAX_LABEL_BYTES:
                raise OptionError(f"--out: the {what} name {clip(entry['name'], 40)!r} "
                                  f"takes {size:,} bytes; a results file holds names of at "
                                  f"most {MAX_LABEL_BYTES:,}: give it a shorter one")


def _differences(stored: Any, current: Any, path: str = "") -> list[str]:
    """``"key stored (this run: current)"`` for every setting that differs: a dict's keys and
    a list's first differing item followed down to what differs (of two named things, only
    the name)."""
    if isinstance(stored, dict) and isinstance(current, dict):
        if path and "name" in stored and "name" in current and stored["name"] != current["name"]:
            return _differences(stored["name"], current["name"], f"{path}.name")
        return [line for key in sorted(set(stored) | set(current))
                if stored.get(key) != current.get(key)
                for line in _differences(stored.get(key), current.get(key),
                                         f"{path}.{key}" if path else key)]
    if isinstance(stored, list) and isinstance(current, list):
        if len(stored) != len(current):
            return [f"{path}: {len(stored)} values (this run: {len(current)})"]
        i = next(i for i, (a, b) in enumerate(zip(stored, current)) if a != b)
        shuffled = sorted(map(_short, stored)) == sorted(map(_short, current))
        lines = _differences(stored[i], current[i], f"{path}[{i}]")
        return [lines[0] + (" (the same values in another order)" if shuffled else ""),
                *lines[1:]]
    return [f"{path} {_short(stored)} (this run: {_short(current)})"]


def _short(value: Any) -> str:
    return clip(json.dumps(value, sort_keys=True, default=str), 60)


def _point_text(keys: list[str], key: tuple) -> str:
    parts = [f"deck={key[0]}", *(f"{k}={v}" for k, v in zip(keys, key[1:-1])),
             f"policy={key[-1]}"]
    return clip(", ".join(parts))
