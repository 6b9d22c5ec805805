"""Rendering results: a people-readable table, tidy CSV rows and JSON with metadata."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

__all__ = [
    "FORMATS",
    "RULES_VERSION",
    "INTERVAL",
    "render",
    "to_table",
    "to_csv",
    "to_json",
    "text_table",
    "deck_meta",
    "versions",
]

#: Output formats of the command line.
FORMATS = ("table", "csv", "json")
#: The rules the engine follows: the Comprehensive Rules edition (shared RULES.md).
RULES_VERSION = "CR 2026-04-17"
#: How intervals are computed, for result metadata.
INTERVAL = "95%: mean +/- 1.96 se; Wilson score interval for probabilities"


def deck_meta(deck: Any) -> dict[str, Any]:
    """What result metadata records about a deck."""
    return {"name": deck.name, "source": deck.source, "format": deck.format, "size": deck.size,
            "lands": deck.land_count, "land_like": deck.land_like_count, "digest": deck.digest()}


def versions() -> dict[str, str]:
    """Package, NumPy and rules versions, for result metadata."""
    import numpy as np

    from .._version import __version__

    return {"explore_sim": __version__, "numpy": np.__version__, "rules": RULES_VERSION}


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def to_json(meta: Mapping[str, Any], rows: pd.DataFrame) -> str:
    """``{"meta": {...}, "rows": [{column: value, ...}, ...]}``, stable key order."""
    records = [
        {column: _finite(_plain(value)) for column, value in zip(rows.columns, row)}
        for row in rows.itertuples(index=False)
    ]
    return json.dumps({"meta": dict(meta), "rows": records}, indent=2, allow_nan=False) + "\n"


def _plain(value: Any) -> Any:
    """NumPy scalars to Python numbers, for json."""
    return value.item() if hasattr(value, "item") else value


def to_csv(rows: pd.DataFrame) -> str:
    """The tidy rows as CSV, full precision (``repr`` of each float)."""
    buffer = io.StringIO()
    rows.to_csv(buffer, index=False, lineterminator="\n", float_format="%.17g")
    return buffer.getvalue()


def to_table(meta: Mapping[str, Any], rows: pd.DataFrame, title: str) -> str:
    """A compact table for people, with the run's key facts above it."""
    lines = [title]
    for key in ("deck", "policy", "trials", "seed"):
        if key in meta:
            value = meta[key]
            if isinstance(value, Mapping):
                value = f"{value.get('name')} ({value.get('size')} cards, {value.get('lands')} lands)"
            lines.append(f"  {key}: {value}")
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
    """A plain-text table: text columns left-aligned, numbers right-aligned."""
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
    """Render in one of :data:`FORMATS`."""
    if fmt == "json":
        return to_json(meta, rows)
    if fmt == "csv":
        return to_csv(rows)
    if fmt == "table":
        return to_table(meta, rows, title)
    raise ValueError(f"unknown format {fmt!r}")
