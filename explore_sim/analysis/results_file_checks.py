"""Whether a results file read back is whole: what its footer says, then what its rows hold.

A sweep reads its ``--out`` file back to carry on where a run stopped, so a damaged or
hostile file must never crash it, fill the memory or slip wrong numbers into the results.
Before anything is loaded, the footer must be of bounded size (:func:`check_footer_size`)
and show the file's columns with their types, at most the rows of the run, histograms of
bounded length and text columns of bounded size (:func:`check_footer`): a file of millions
of rows, of one enormous histogram or of one enormous string costs a few kilobytes to
refuse, however well its data compresses. Once loaded, every row must be a record the run
could have written (:func:`check_rows`): no empty values, no text longer than its column
holds (:data:`TEXT_BYTES`), the run's trials, and sums that add up to the row's histogram;
all of it checked on the columns as they were read, before any value becomes a Python
object, so that no row costs work in proportion to another's size. The caller then checks
that the file is exactly what the run writes for the points it holds.

Every refusal is one :class:`~explore_sim.errors.OptionError`: ``--out: FILE is not a whole
explore_sim results file: WHY; remove it or choose another --out``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..errors import OptionError, clip

__all__ = ["not_whole", "check_footer_size", "check_footer", "read_rows", "check_rows",
           "histograms", "MAX_HISTOGRAM", "HISTOGRAM_VALUES_PER_ROW", "MAX_FOOTER_BYTES",
           "MAX_LABEL_BYTES", "TEXT_BYTES"]

#: The most values one histogram holds (one more than a metric's largest value in a game).
MAX_HISTOGRAM = 1_000_000
#: The histogram values a file holds per row on average, besides one of :data:`MAX_HISTOGRAM`
#: (a 50-turn Commander game gives about 600).
HISTOGRAM_VALUES_PER_ROW = 10_000
#: Bytes a row may take uncompressed besides its histogram, and bytes of any file besides.
_ROW_BYTES = 4096
_SLACK_BYTES = 64 << 20
#: The largest footer (the columns, the row groups and the run's settings) read.
MAX_FOOTER_BYTES = 8 << 20
#: The longest deck or policy name a results file holds, in bytes of UTF-8.
MAX_LABEL_BYTES = 8000
#: The longest text of one cell of each text column, in bytes: names, metric names, the
#: seed's digits (128 bits of entropy have 39), deck digests and version numbers.
TEXT_BYTES = {"deck": MAX_LABEL_BYTES, "policy": MAX_LABEL_BYTES, "metric": 200, "seed": 64,
              "deck_digest": 64, "version": 64}
#: Bytes of a text column besides its cells (page headers, the dictionary's lengths).
_TEXT_SLACK = 64 << 10
#: A sum of squares this large cannot be the int64 the file holds (checked in floats first,
#: so that the exact sums never overflow).
_LARGEST_SUM = 9e18


def not_whole(path: Path, reason: str) -> OptionError:
    """The one-line refusal of a results file that is not whole.

    Parameters
    ----------
    path : Path
    reason : str
        What is wrong, as a phrase.

    Returns
    -------
    OptionError
    """
    return OptionError(f"--out: {clip(path)} is not a whole explore_sim results file: "
                       f"{reason}; remove it or choose another --out")


def check_footer_size(path: Path) -> None:
    """Refuse a Parquet file whose footer is larger than :data:`MAX_FOOTER_BYTES`, from its
    last eight bytes (before the footer is parsed).

    Parameters
    ----------
    path : Path

    Raises
    ------
    OptionError
        A footer too large. A file that does not end as Parquet files do is left to the
        Parquet reader's own message.
    """
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, 2)
            if size < 12:
                return
            handle.seek(size - 8)
            tail = handle.read(8)
    except OSError as error:
        raise not_whole(path, f"it cannot be read ({error.strerror or error})") from None
    footer = int.from_bytes(tail[:4], "little")
    if tail[4:] == b"PAR1" and footer > MAX_FOOTER_BYTES:
        raise not_whole(path, f"its footer takes {footer:,} bytes, more than "
                              f"{MAX_FOOTER_BYTES:,}")


def check_footer(path: Path, expected: Any, max_rows: int) -> None:
    """Check a file's columns, rows and histogram sizes from its footer, loading nothing.

    Parameters
    ----------
    path : Path
    expected : pyarrow.Schema
        The columns and types the run writes.
    max_rows : int
        The rows of the whole run.

    Raises
    ------
    OptionError
        A footer that cannot be read, a column missing, added or of another type, more rows
        than the run has, or histograms, text or data too large for them.
    """
    import pyarrow.parquet as pq

    check_footer_size(path)
    try:
        footer = pq.ParquetFile(path)
        schema, metadata = footer.schema_arrow, footer.metadata
    except Exception as error:  # noqa: BLE001 - pyarrow raises several types for bad files
        raise not_whole(path, f"its footer cannot be read ({clip(error)})") from None
    found = {field.name: field.type for field in schema}
    for field in expected:
        if field.name not in found:
            raise not_whole(path, f"column {clip(field.name)!r} is missing")
        if found[field.name] != field.type:
            raise not_whole(path, f"column {clip(field.name)!r} holds "
                                  f"{clip(found[field.name], 40)}, not {field.type}")
    extra = [name for name in found if name not in expected.names]
    if extra:
        raise not_whole(path, f"it has a column {clip(extra[0])!r} that results files do not "
                              "have")
    if schema.names != expected.names:
        raise not_whole(path, "its columns are not in the order results files have")
    rows = metadata.num_rows
    if not 0 <= rows <= max_rows:
        raise not_whole(path, f"it holds {rows:,} rows; this run has {max_rows:,}")
    histogram_values, data_bytes = 0, 0
    text_bytes = dict.fromkeys(TEXT_BYTES, 0)
    for group in range(metadata.num_row_groups):
        chunks = metadata.row_group(group)
        for index in range(chunks.num_columns):
            chunk = chunks.column(index)
            data_bytes += max(0, chunk.total_uncompressed_size)
            if chunk.path_in_schema.startswith("histogram."):
                histogram_values += max(0, chunk.num_values)
            if chunk.path_in_schema in text_bytes:
                text_bytes[chunk.path_in_schema] += max(0, chunk.total_uncompressed_size)
    for name, size in text_bytes.items():
        most = rows * (TEXT_BYTES[name] + 4) + _TEXT_SLACK
        if size > most:
            raise not_whole(path, f"its {name!r} column holds {size:,} bytes of text, more "
                                  f"than {most:,} for {rows:,} rows")
    most = rows * HISTOGRAM_VALUES_PER_ROW + MAX_HISTOGRAM
    if histogram_values > most:
        raise not_whole(path, f"its histograms hold {histogram_values:,} values, more than "
                              f"{most:,} for {rows:,} rows")
    most = rows * (_ROW_BYTES + 8 * HISTOGRAM_VALUES_PER_ROW) + _SLACK_BYTES
    if data_bytes > most:
        raise not_whole(path, f"its data takes {data_bytes:,} bytes, more than {most:,} for "
                              f"{rows:,} rows")


def read_rows(path: Path) -> Any:
    """The file's table (after :func:`check_footer`); a one-line refusal if its data pages
    cannot be read.

    Parameters
    ----------
    path : Path

    Returns
    -------
    pyarrow.Table
    """
    import pyarrow.parquet as pq

    try:
        return pq.read_table(path)
    except Exception as error:  # noqa: BLE001 - damaged pages raise several types
        raise not_whole(path, f"its data cannot be read ({clip(error)})") from None


def check_rows(path: Path, table: Any, trials: int) -> None:
    """Check that every row is a record a run of ``trials`` trials a point writes.

    Parameters
    ----------
    path : Path
    table : pyarrow.Table
        The file's rows (its columns checked by :func:`check_footer`).
    trials : int
        The run's trials per point.

    Raises
    ------
    OptionError
        Empty values, text too long for its column, other trials, a histogram that is
        empty, too long or negative, or sums that are not those of the row's histogram.
    """
    import pyarrow.compute as pc

    for name in table.column_names:
        column = table.column(name)
        if column.null_count:
            raise not_whole(path, f"column {clip(name)!r} has empty values")
    for name, most in TEXT_BYTES.items():
        lengths = np.asarray(pc.binary_length(table.column(name)).to_numpy(
            zero_copy_only=False), dtype=np.int64)
        longer = np.flatnonzero(lengths > most)
        if longer.size:
            raise not_whole(path, f"the {name!r} of row {longer[0] + 1:,} holds "
                                  f"{lengths[longer[0]]:,} bytes (at most {most:,})")
    values = pc.list_flatten(table.column("histogram"))
    if values.null_count:
        raise not_whole(path, "a histogram has empty values")
    counts = np.asarray(table.column("trials").to_numpy(), dtype=np.int64)
    wrong = np.flatnonzero(counts != trials)
    if wrong.size:
        raise not_whole(path, f"row {wrong[0] + 1:,} holds {counts[wrong[0]]:,} trials; this "
                              f"run plays {trials:,} a point")
    lengths, flat = histograms(table)
    if lengths.size and (lengths.min() < 1 or lengths.max() > MAX_HISTOGRAM):
        row = int(np.flatnonzero((lengths < 1) | (lengths > MAX_HISTOGRAM))[0])
        raise not_whole(path, f"the histogram of row {row + 1:,} holds {lengths[row]:,} "
                              f"values (from 1 to {MAX_HISTOGRAM:,})")
    if flat.size and (flat.min() < 0 or flat.max() > trials):
        raise not_whole(path, f"a histogram holds a count outside 0 to {trials:,}")
    if not lengths.size:
        return
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    value = np.arange(flat.size, dtype=np.int64) - np.repeat(starts, lengths)
    games = np.add.reduceat(flat, starts)  # at most 1e6 counts of at most 1e10: no overflow
    total = np.add.reduceat(value * flat, starts)
    rough = np.add.reduceat((value * value).astype(np.float64) * flat, starts)
    squares = np.add.reduceat(value * value * flat, starts) if rough.max() < _LARGEST_SUM \
        else None
    checks = [("trials", games), ("sum", total), ("sum_squares", squares)]
    for name, expected in checks:
        stored = np.asarray(table.column(name).to_numpy(), dtype=np.int64)
        bad = np.flatnonzero(rough >= _LARGEST_SUM) if expected is None \
            else np.flatnonzero(stored != expected)
        if bad.size:
            raise not_whole(path, f"the {name} of row {bad[0] + 1:,} is not what its "
                                  "histogram adds up to")


def histograms(table: Any) -> tuple[np.ndarray, np.ndarray]:
    """Each row's histogram length and every histogram value, end to end, as int64 arrays
    (no Python objects: a long histogram costs 8 bytes a value).

    Parameters
    ----------
    table : pyarrow.Table

    Returns
    -------
    (ndarray, ndarray)
    """
    import pyarrow.compute as pc

    column = table.column("histogram")
    lengths = np.asarray(pc.list_value_length(column).to_numpy(zero_copy_only=False),
                         dtype=np.int64)
    flat = np.asarray(pc.list_flatten(column).to_numpy(zero_copy_only=False), dtype=np.int64)
    return lengths, flat
