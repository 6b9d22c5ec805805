"""Shared helpers: hand-built libraries for scripted rule tests."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from explore_sim.cards import EMPTY, Catalog, FeatureTable
from explore_sim.state import ExploreState

TESTS = Path(__file__).parent
ROOT = TESTS.parent
DECKS = ROOT / "decks"
sys.path.insert(0, str(TESTS))

#: Cards of the scripted scenarios, in id order (id = index + 1).
SCRIPT_CARDS = (
    "Forest",
    "Grizzly Bears",
    "Cenote Scout",
    "Dryad Arbor",
    "Twists and Turns",
    "Jadelight Spelunker",
    "Queen's Agent",
)


@pytest.fixture(scope="session")
def features() -> FeatureTable:
    catalog = Catalog.builtin()
    return FeatureTable.from_cards(catalog.get(name) for name in SCRIPT_CARDS)


def card_id(name: str) -> int:
    return SCRIPT_CARDS.index(name) + 1


def library_of(*rows: list[str]) -> np.ndarray:
    """Libraries from card names, top card first, padded with EMPTY to equal width + 1."""
    width = max(len(row) for row in rows) + 1
    library = np.full((len(rows), width), EMPTY, dtype=np.int16)
    for i, row in enumerate(rows):
        library[i, : len(row)] = [card_id(name) for name in row]
    return library


def state_of(features: FeatureTable, *rows: list[str], **counts) -> ExploreState:
    """An ExploreState over hand-built libraries (all rows must have the same length)."""
    if len({len(row) for row in rows}) != 1:
        raise ValueError("scripted libraries must have equal length")
    return ExploreState.start(library_of(*rows), features.is_land, **counts)
