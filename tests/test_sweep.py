"""Sweeps over deck variants and policies."""

from __future__ import annotations

from math import comb

import pandas as pd
import pytest

import explore_sim
from explore_sim import DeckError


def test_sweep_grid_is_tidy_and_keeps_deck_size():
    deck = explore_sim.deck_from_counts([("Forest", 24), ("Grizzly Bears", 36)])
    frame = explore_sim.sweep(deck, {"lands": [20, 24], "Cenote Scout": [0, 4]}, ["keep", "mill"],
                              turns=3, trials=2000, seed=1)
    assert list(frame.columns[:3]) == ["lands", "Cenote Scout", "policy"]
    assert len(frame.groupby(["lands", "Cenote Scout", "policy"])) == 8
    # Each grid point is the simulation of that deck, built here by hand, on the same seed.
    for (lands, scouts, policy), rows in frame.groupby(["lands", "Cenote Scout", "policy"]):
        counts = [("Forest", lands), ("Grizzly Bears", 60 - lands - scouts)]
        counts += [("Cenote Scout", scouts)] if scouts else []
        alone = explore_sim.simulate(explore_sim.deck_from_counts(counts), turns=3,
                                     policy=policy, trials=2000, seed=1).summary()
        got = rows.drop(columns=["lands", "Cenote Scout", "policy"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(got, alone, check_exact=True)
    explorers = frame[(frame["metric"] == "explores") & (frame["turn"] == 3)]
    assert explorers[explorers["Cenote Scout"] == 0]["mean"].max() == 0


def test_sweep_points_without_explorers_are_hypergeometric():
    """With no explorer and no mulligan, on curve on turn T is P(at least T lands in the first
    6 + T cards), for every land count of the grid."""
    deck = explore_sim.deck_from_counts([("Forest", 24), ("Grizzly Bears", 36)])
    frame = explore_sim.sweep(deck, {"lands": [17, 22, 26]}, "keep", turns=4, mulligan="none",
                              trials=50_000, seed=3, metrics=["on_curve"])
    assert len(frame) == 3 * 4
    for row in frame.itertuples():
        exact = sum(comb(row.lands, k) * comb(60 - row.lands, 6 + row.turn - k)
                    for k in range(row.turn, 6 + row.turn + 1)) / comb(60, 6 + row.turn)
        assert abs(row.mean - exact) < 4 * row.se, (row.lands, row.turn, row.mean, exact)


def test_deck_variants():
    deck = explore_sim.load_deck("20 Forest\n4 Island\n36 Grizzly Bears\n")
    variant = deck.with_counts({"lands": 22, "Cenote Scout": 4})
    assert variant.size == 60 and variant.land_count == 22
    assert variant.count("Forest") == 18 and variant.count("Cenote Scout") == 4
    assert variant.count("Grizzly Bears") == 34
    with pytest.raises(DeckError, match="would have"):
        deck.with_counts({"lands": 70})
    with pytest.raises(DeckError, match="unknown card"):
        deck.with_counts({"Cenote Scot": 4})
