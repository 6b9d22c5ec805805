"""Sweeps over deck variants and policies."""

from __future__ import annotations

from math import comb

import pandas as pd
import pytest
from conftest import DECKS

import explore_sim
from explore_sim import DeckError


@pytest.mark.slow
def test_sweep_grid_is_tidy_and_keeps_deck_size():
    deck = explore_sim.deck_from_counts([("Forest", 24), ("Grizzly Bears", 36)])
    frame = explore_sim.sweep(deck, {"lands": [20, 24], "Cenote Scout": [0, 4]}, ["keep", "mill"],
                              turns=3, trials=2000, seed=1).summary()
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


@pytest.mark.slow
def test_sweep_points_without_explorers_are_hypergeometric():
    """With no explorer and no mulligan, on curve on turn T is P(at least T lands in the first
    6 + T cards), for every land count of the grid."""
    deck = explore_sim.deck_from_counts([("Forest", 24), ("Grizzly Bears", 36)])
    frame = explore_sim.sweep(deck, {"lands": [17, 22, 26]}, "keep", turns=4, mulligan="none",
                              trials=50_000, seed=3, metrics=["on_curve"]).summary()
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


SHIPPED = sorted(DECKS.glob("*.txt"))


def test_sweep_returns_a_result_with_meta():
    deck = explore_sim.deck_from_counts({"Forest": 24, "Grizzly Bears": 36}, name="shell")
    result = explore_sim.sweep(deck, {"Cenote Scout": [0, 4]}, {"cautious": "keep"}, turns=2,
                               trials=500, seed=4, metrics=["on_curve"])
    assert isinstance(result, explore_sim.SweepResult)
    assert result.meta["command"] == "sweep" and result.meta["seed"] == 4
    assert result.meta["grid"] == {"Cenote Scout": [0, 4]}
    assert result.meta["filler"] == "Grizzly Bears" and result.meta["policy"] == ["cautious"]
    assert [d["name"] for d in result.meta["deck"]] == ["shell"]
    frame = result.summary()
    assert set(frame["metric"]) == {"on_curve"} and set(frame["policy"]) == {"cautious"}
    assert len(result.results) == 2


@pytest.mark.parametrize("grid, message", [
    ({"lands": 24}, r"grid\['lands'\] must be a list of values, got 24 \(write \[24\]\)"),
    ({"lands": "24"}, r"grid\['lands'\] must be a list of values"),
    ({"lands": []}, "has no values"),
    ({"lands": [22, 2.5]}, "whole numbers >= 0, got 2.5"),
    ({"lands": [22, 22]}, "repeats a value"),
    ({}, "sweep needs a grid"),
    ([("lands", [22])], "sweep needs a grid"),
])
def test_bad_grids_are_one_line_option_errors(grid, message):
    with pytest.raises(explore_sim.OptionError, match=message) as error:
        explore_sim.sweep(DECKS / "lci_merfolk_vanilla.txt", grid, trials=100, seed=1)
    assert "\n" not in str(error.value)


def test_unknown_sweep_metrics_are_refused_with_a_suggestion():
    with pytest.raises(explore_sim.OptionError,
                       match=r"metrics: unknown oncurve \(did you mean 'on_curve'\?\)"):
        explore_sim.sweep(DECKS / "lci_merfolk_vanilla.txt", {"lands": [24]},
                          metrics=["oncurve"], trials=100, seed=1)


def test_a_grid_point_that_cannot_be_built_names_the_point_and_the_card():
    deck = DECKS / "lci_merfolk_explore.txt"  # declares Merfolk Cave-Diver (3 copies) as filler
    with pytest.raises(DeckError, match=r"sweep point lands=24, Cenote Scout=8: .*"
                                        r"Merfolk Cave-Diver would have -1 copies with "
                                        r"Cenote Scout = 8 \(the filler: choose one"):
        explore_sim.sweep(deck, {"lands": [24], "Cenote Scout": [4, 8]}, trials=100, seed=1)
    # Another filler with enough copies builds the same grid.
    result = explore_sim.sweep(deck, {"lands": [24], "Cenote Scout": [4, 8]}, trials=100,
                               seed=1, turns=1, filler="Nicanzil, Current Conductor")
    assert result.meta["filler"] == "Nicanzil, Current Conductor"
    with pytest.raises(DeckError, match="is the filler card too"):
        explore_sim.sweep(deck, {"Forest": [12, 10]}, filler="Forest", trials=100, seed=1)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
@pytest.mark.slow
def test_shipped_decks_declare_a_filler_and_are_sweepable(path):
    deck = explore_sim.load_deck(path)
    assert deck.filler and deck.count(deck.filler) >= 1
    result = explore_sim.sweep(deck, {"lands": [deck.land_count - 1, deck.land_count + 1],
                                      "Cenote Scout": [deck.count("Cenote Scout"),
                                                       deck.count("Cenote Scout") + 1]},
                               turns=1, trials=100, seed=1)
    assert result.meta["filler"] == deck.filler
    assert all(r.meta["deck"][0]["size"] == deck.size for r in result.results)


def test_filler_line_in_a_decklist():
    deck = explore_sim.parse_deck("// filler: grizzly bears\n24 Forest\n36 Grizzly Bears\n")
    assert deck.filler == "Grizzly Bears"
    variant = deck.with_counts({"Cenote Scout": 4})
    assert variant.count("Grizzly Bears") == 32 and variant.filler == "Grizzly Bears"
    assert explore_sim.parse_deck("24 Forest\n36 Grizzly Bears\n").filler is None
    with pytest.raises(DeckError, match=r"<text>:1: unknown filler card 'Grizly Bears' "
                                        r"\(did you mean 'Grizzly Bears'"):
        explore_sim.parse_deck("# filler: Grizly Bears\n24 Forest\n")
    with pytest.raises(DeckError, match="needs a card name"):
        explore_sim.parse_deck("// filler:\n24 Forest\n")
