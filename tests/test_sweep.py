"""Sweeps over deck variants and policies."""

from __future__ import annotations

import pytest

import explore_sim
from explore_sim import DeckError


def test_sweep_grid_is_tidy_and_keeps_deck_size():
    deck = explore_sim.deck_from_counts([("Forest", 24), ("Grizzly Bears", 36)])
    frame = explore_sim.sweep(deck, {"lands": [20, 24], "Cenote Scout": [0, 4]}, ["keep", "mill"],
                              turns=3, trials=2000, seed=1).summary()
    assert list(frame.columns[:3]) == ["lands", "Cenote Scout", "policy"]
    assert len(frame.groupby(["lands", "Cenote Scout", "policy"])) == 8
    assert set(frame["metric"]) >= {"on_curve", "counters", "mulligans"}
    more_lands = frame[(frame["metric"] == "lands_played") & (frame["turn"] == 3)]
    by_lands = more_lands.groupby("lands")["mean"].mean()
    assert by_lands[24] > by_lands[20]
    explorers = frame[(frame["metric"] == "explores") & (frame["turn"] == 3)]
    assert explorers[explorers["Cenote Scout"] == 0]["mean"].max() == 0
    assert explorers[explorers["Cenote Scout"] == 4]["mean"].min() > 0


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
