"""Rendering results: a people-readable table, tidy CSV rows and JSON with metadata."""

from __future__ import annotations

import copy
import html
import io
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..engine.abilities import NO_EFFECT, OPPONENTS_TARGET, held_reason

__all__ = [
    "FORMATS",
    "explores_text",
    "start_text",
    "RULES_VERSION",
    "INTERVAL",
    "render",
    "cell_table",
    "to_table",
    "to_csv",
    "to_json",
    "text_table",
    "deck_meta",
    "never_cast",
    "never_cast_lines",
    "versions",
    "meta_text",
    "engine_text",
    "with_meta",
    "ordered_categorical",
    "unique_labels",
    "short_repr",
    "html_repr",
    "META_KEY",
]

#: Output formats of the command line.
FORMATS = ("table", "csv", "json")
#: The rules the engine follows: the Comprehensive Rules edition (docs/rules.md).
RULES_VERSION = "CR 2026-04-17"
#: How intervals are computed, for result metadata.
INTERVAL = "95%: mean +/- 1.96 se; Wilson score interval for probabilities"


#: The key of ``DataFrame.attrs`` under which result frames carry their metadata.
META_KEY = "explore_sim"


def deck_meta(deck: Any) -> dict[str, Any]:
    """What result metadata records about a deck.

    Parameters
    ----------
    deck : Deck

    Returns
    -------
    dict
        ``name, source, format, size, lands, land_like, filler, digest`` (plain JSON values).
    """
    return {"name": deck.name, "source": deck.source, "format": deck.format, "size": deck.size,
            "lands": deck.land_count, "land_like": deck.land_like_count, "filler": deck.filler,
            "digest": deck.digest()}


def never_cast(deck: Any) -> list[dict[str, Any]]:
    """The main deck's spells a goldfish game never casts, and why, for result metadata.

    Parameters
    ----------
    deck : Deck

    Returns
    -------
    list of dict
        ``{"card": name, "copies": n, "why": ...}``, ``why`` being
        :func:`~explore_sim.engine.abilities.held_reason`'s.
    """
    return [{"card": card.name, "copies": count, "why": why}
            for card, count in deck.main if (why := held_reason(card))]


def never_cast_lines(meta: Mapping[str, Any]) -> list[str]:
    """The header lines saying which cards of each deck are never cast and why (none when
    none are): ``never cast: 2 Find // Finality (no effect a goldfish game plays); 3 Vraska's
    Contempt (its target is an opponent's)``.

    Parameters
    ----------
    meta : dict
        With ``deck`` and ``never_cast`` (one list per deck, :func:`never_cast`).

    Returns
    -------
    list of str
    """
    decks, held = meta.get("deck", []), meta.get("never_cast", [])
    lines = []
    for deck, cards in zip(decks, held):
        which = f" ({deck['name']})" if len(decks) > 1 else ""
        groups = [", ".join(f"{c['copies']} {c['card']}" for c in cards if c["why"] == why)
                  + f" ({why})" for why in (NO_EFFECT, OPPONENTS_TARGET)
                  if any(c["why"] == why for c in cards)]
        if groups:
            lines.append(f"  never cast{which}: {'; '.join(groups)}")
    return lines


def versions() -> dict[str, str]:
    """Package, NumPy and rules versions, for result metadata.

    Returns
    -------
    dict of str to str
        ``explore_sim``, ``numpy`` and ``rules`` versions.
    """
    import numpy as np

    from .._version import __version__

    return {"explore_sim": __version__, "numpy": np.__version__, "rules": RULES_VERSION}


def explores_text(explores: int) -> str:
    """``"1 explore"``, ``"2 explores"``: a count of explores in words.

    Parameters
    ----------
    explores : int

    Returns
    -------
    str
    """
    return f"{explores} explore{'' if explores == 1 else 's'}"


def meta_text(value: Any) -> str:
    """One line of a table header for a metadata value.

    A deck record reads ``name (size cards, lands lands)``; lists are joined with ``"; "``.

    Parameters
    ----------
    value : object
        A metadata value: a deck record, a list of them, a list of names, or a plain value.

    Returns
    -------
    str
    """
    if isinstance(value, Mapping):
        return f"{value.get('name')} ({value.get('size')} cards, {value.get('lands')} lands)"
    if isinstance(value, list):
        return "; ".join(meta_text(item) for item in value)
    return str(value)


def start_text(meta: Mapping[str, Any]) -> str:
    """``on the play`` or ``on the draw``, for a header; where no game of the run skips the
    first draw (a multiplayer Commander game: every player draws on turn 1), the two are the
    same games, and ``on the draw`` says so.

    Parameters
    ----------
    meta : mapping
        Result metadata (``on_play``, ``formats``).

    Returns
    -------
    str
    """
    start = "on the play" if meta["on_play"] else "on the draw"
    formats = meta.get("formats") or []
    if not meta["on_play"] and formats and not any(
            f.get("first_draw_skipped_on_the_play", True) for f in formats):
        start += ", either way the same games: a Commander game draws on turn 1"
    return start


def engine_text(meta: Mapping[str, Any]) -> str:
    """The engine that played a run, for a table header: ``kernel``, ``numpy``, or
    ``numpy (auto: why not the kernel)``.

    Parameters
    ----------
    meta : mapping
        Result metadata (``engine``, ``engine_fallback``).

    Returns
    -------
    str
    """
    fallback = meta.get("engine_fallback")
    return f"{meta.get('engine')} (auto: {fallback})" if fallback else str(meta.get("engine"))


def with_meta(frame: pd.DataFrame, meta: Mapping[str, Any]) -> pd.DataFrame:
    """``frame`` with a copy of ``meta`` in ``frame.attrs["explore_sim"]``.

    pandas keeps ``attrs`` through filtering and copies, and ``to_parquet`` / ``read_parquet``
    store and restore them, so a saved result still says what produced it.

    Parameters
    ----------
    frame : DataFrame
    meta : mapping
        JSON-safe metadata (plain dicts, lists, str, int, float, bool, None).

    Returns
    -------
    DataFrame
        The same frame object.
    """
    frame.attrs[META_KEY] = copy.deepcopy(dict(meta))
    return frame


def ordered_categorical(values: Sequence[Any], order: Sequence[Any]) -> pd.Categorical:
    """An ordered categorical of ``values``; its categories are those present, in ``order``.

    Parameters
    ----------
    values : sequence
    order : sequence
        Every value, in the order wanted (the baseline first).

    Returns
    -------
    pandas.Categorical
    """
    present = set(values)
    return pd.Categorical(values, categories=[x for x in order if x in present], ordered=True)


def unique_labels(names: list[str]) -> list[str]:
    """``names``, numbered ``1: name, 2: name, ...`` if any repeats.

    Parameters
    ----------
    names : list of str

    Returns
    -------
    list of str
    """
    if len(set(names)) == len(names):
        return names
    return [f"{i + 1}: {name}" for i, name in enumerate(names)]


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _short(value: Any) -> str:
    if isinstance(value, str):
        return repr(_clip(value))
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_short(k)}: {_short(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        items = [_short(v) for v in value[:6]]
        if len(value) > 6:
            items.append(f"... {len(value) - 6} more")
        return "[" + ", ".join(items) + "]"
    return repr(value)


def short_repr(kind: str, fields: Mapping[str, Any]) -> str:
    """``Kind(key=value, ...)`` on one line, names clipped and long lists shortened.

    Parameters
    ----------
    kind : str
        The class name.
    fields : mapping
        What ran, in order (names, counts, seed).

    Returns
    -------
    str
    """
    return f"{kind}(" + ", ".join(f"{key}={_short(value)}" for key, value in fields.items()) + ")"


def html_repr(heading: str, lines: Iterable[str], table: pd.DataFrame, index: bool = False) -> str:
    """A small HTML block for Jupyter: a heading, facts, then a table.

    Parameters
    ----------
    heading : str
    lines : iterable of str
        Facts shown under the heading (escaped).
    table : DataFrame
    index : bool
        Show the frame's index.

    Returns
    -------
    str
    """
    facts = "<br>".join(html.escape(line) for line in lines)
    return (f"<div><strong>{html.escape(heading)}</strong><br><small>{facts}</small>"
            f"{table.to_html(index=index, border=0)}</div>")


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def to_json(meta: Mapping[str, Any], rows: pd.DataFrame) -> str:
    """JSON text of metadata and tidy rows.

    Parameters
    ----------
    meta : mapping
        JSON-safe metadata.
    rows : DataFrame
        Tidy rows; non-finite numbers become null.

    Returns
    -------
    str
        ``{"meta": {...}, "rows": [{column: value, ...}, ...]}``, stable key order.
    """
    records = [
        {column: _finite(_plain(value)) for column, value in zip(rows.columns, row)}
        for row in rows.itertuples(index=False)
    ]
    return json.dumps({"meta": dict(meta), "rows": records}, indent=2, allow_nan=False) + "\n"


def _plain(value: Any) -> Any:
    """NumPy scalars to Python numbers, for json."""
    return value.item() if hasattr(value, "item") else value


def to_csv(rows: pd.DataFrame) -> str:
    """The tidy rows as CSV, each number in the shortest form that reads back exactly.

    Float columns are float64 and each value is written as Python's ``repr`` of it
    (``0.64124``, ``1.0``, ``1e-05``), the shortest text that parses back to the same
    float64; a missing value is an empty field. Whole-number columns stay whole numbers.

    Parameters
    ----------
    rows : DataFrame

    Returns
    -------
    str
    """
    floats = rows.select_dtypes(include=[np.floating]).columns
    if len(floats):
        rows = rows.astype({column: "float64" for column in floats})
    buffer = io.StringIO()
    rows.to_csv(buffer, index=False, lineterminator="\n",
                float_format=_shortest)  # type: ignore[arg-type]  # pandas passes floats only
    return buffer.getvalue()


def _shortest(value: float) -> str:
    """The shortest text that reads back as exactly this float64 (Python's ``repr``)."""
    return repr(float(value))


def to_table(meta: Mapping[str, Any], rows: pd.DataFrame, title: str) -> str:
    """A compact table for people, with the run's key facts above it.

    Parameters
    ----------
    meta : mapping
        Result metadata (deck, policy, trials, seed and interval are shown).
    rows : DataFrame
        Tidy rows; statistics are shown with 4 decimals.
    title : str
        The first line.

    Returns
    -------
    str
    """
    lines = [title]
    for key in ("deck", "policy", "mulligan", "removal", "trials", "seed"):
        if key in meta:
            lines.append(f"  {key}: {meta_text(meta[key])}")
    if "engine" in meta:
        lines.append(f"  engine: {engine_text(meta)}")
    shown = rows.copy()
    for column in ("mean", "se", "ci_low", "ci_high", "probability"):
        if column in shown:
            shown[column] = shown[column].map(lambda x: f"{x:.4f}")
    lines.append("")
    lines.append(text_table(shown))
    lines.append("")
    lines.append(f"  ci: {meta.get('interval', '95% interval')}")
    return "\n".join(lines) + "\n"


def text_table(frame: pd.DataFrame) -> str:
    """A plain-text table: text columns left-aligned, numbers right-aligned.

    Parameters
    ----------
    frame : DataFrame

    Returns
    -------
    str
    """
    shown = frame.copy()
    for column in shown.columns:
        values = shown[column]
        if not pd.api.types.is_numeric_dtype(values) and not values.map(_looks_numeric).all():
            width = max([len(str(column)), *values.map(lambda v: len(str(v)))])
            shown[column] = [str(v).ljust(width) for v in values]
            shown = shown.rename(columns={column: str(column).ljust(width)})
    return shown.to_string(index=False)


def _looks_numeric(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def render(fmt: str, meta: Mapping[str, Any], rows: pd.DataFrame, title: str) -> str:
    """Render tidy rows in one of :data:`FORMATS`.

    Parameters
    ----------
    fmt : {"table", "csv", "json"}
    meta : mapping
        Result metadata.
    rows : DataFrame
        Tidy rows.
    title : str
        The table's first line.

    Returns
    -------
    str
    """
    if fmt == "json":
        return to_json(meta, rows)
    if fmt == "csv":
        return to_csv(rows)
    if fmt == "table":
        return to_table(meta, rows, title)
    raise ValueError(f"unknown format {fmt!r}")


def cell_table(rows: pd.DataFrame, index: str, columns: str, order: Sequence[Any],
                metrics: Sequence[str], cell: str = "{:.3f} ({:.3f})") -> pd.DataFrame:
    """Metrics down, ``columns`` across: ``mean (se)`` cells, in ``metrics`` and ``order``.

    Parameters
    ----------
    rows : DataFrame
        Tidy rows with ``metric``, ``mean`` and ``se``.
    index : str
        The column down the side.
    columns : str
        The column across.
    order : sequence
        The values of ``columns``, in order.
    metrics : sequence of str
        The rows wanted, in order.
    cell : str
        The format of a cell, given the mean and the standard error.

    Returns
    -------
    DataFrame
    """
    shown = rows[rows["metric"].isin(metrics)]
    shown = shown.assign(cell=[cell.format(m, s) for m, s in zip(shown["mean"], shown["se"])])
    table = shown.pivot(index=index, columns=columns, values="cell")
    table = table.reindex(index=[m for m in metrics if m in table.index],
                          columns=[c for c in order if c in table.columns])
    return table.rename_axis(None).rename_axis(None, axis=1)
