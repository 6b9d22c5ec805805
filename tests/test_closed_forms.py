"""REFERENCE.md's closed forms, reproduced by seeded runs within 4 standard errors."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

import explore_sim

TRIALS = 200_000
DECKS = {60: (24, "Grizzly Bears"), 40: (17, "Queen's Agent")}


def closed_forms(n: int, lands: int, explores: int, policy: str) -> dict[str, F]:
    """Exact expectations for a library of n cards with `lands` lands (REFERENCE.md)."""
    N, L = F(n), F(lands)
    if explores == 1:
        return {"counters": (N - L) / N, "lands_to_hand": L / N, "land_hit": L / N,
                "p_counters_1": (N - L) / N}
    if policy == "keep":
        return {
            "counters": 2 * (N - L) / N + (L / N) * (N - L) / (N - 1),
            "lands_to_hand": (L / N) * (1 + (L - 1) / (N - 1)),
            "land_hit": L / N,  # a kept nonland blocks the second reveal
            "p_counters_2": (N - L) / N,
        }
    return {
        "counters": 2 * (N - L) / N,
        "lands_to_hand": 2 * L / N,
        "land_hit": 1 - ((N - L) / N) * ((N - L - 1) / (N - 1)),
        "p_counters_2": ((N - L) / N) * ((N - L - 1) / (N - 1)),
    }


def test_reference_examples_are_the_documented_numbers():
    keep = closed_forms(60, 24, 2, "keep")
    assert float(keep["counters"]) == pytest.approx(1.44407, abs=5e-6)
    assert float(keep["lands_to_hand"]) == pytest.approx(0.55593, abs=5e-6)
    mill = closed_forms(60, 24, 2, "mill")
    assert (mill["counters"], mill["lands_to_hand"]) == (F(6, 5), F(4, 5))


@pytest.mark.parametrize("size", [60, 40])
@pytest.mark.parametrize("explores", [1, 2])
@pytest.mark.parametrize("policy", ["keep", "mill"])
@pytest.mark.parametrize("drawn", [0, 8])
def test_closed_forms_hold(size, explores, policy, drawn):
    lands, spell = DECKS[size]
    deck = explore_sim.deck_from_counts([("Forest", lands), (spell, size - lands)])
    seed = size * 1000 + explores * 100 + drawn + (policy == "mill")
    result = explore_sim.explore(deck, explores=explores, drawn=drawn, policy=policy,
                                 trials=TRIALS, seed=seed)
    summary = result.summary().set_index("metric")
    counters = result.distribution("counters").set_index("value")
    for metric, exact in closed_forms(size, lands, explores, policy).items():
        if metric.startswith("p_counters_"):
            row = counters.loc[int(metric[-1])]
            got, se = row["probability"], row["se"]
        else:
            got, se = summary.loc[metric, "mean"], summary.loc[metric, "se"]
        assert abs(got - float(exact)) < 4 * se, (metric, got, float(exact), se)
    assert summary.loc["explores", "mean"] == explores


@pytest.mark.parametrize("policy", ["keep", "mill"])
def test_explorer_gone_gives_no_counters_and_the_same_lands(policy):
    deck = explore_sim.deck_from_counts([("Forest", 24), ("Grizzly Bears", 36)])
    result = explore_sim.explore(deck, explores=2, drawn=8, policy=policy, explorer_gone=True,
                                 trials=TRIALS, seed=77)
    summary = result.summary().set_index("metric")
    assert summary.loc["counters", "mean"] == 0
    exact = closed_forms(60, 24, 2, policy)["lands_to_hand"]
    got, se = summary.loc["lands_to_hand", ["mean", "se"]]
    assert abs(got - float(exact)) < 4 * se


def test_known_cards_change_the_library():
    """Known cards leave the library: 4 known Forests leave 20 lands in 56 cards."""
    deck = explore_sim.deck_from_counts([("Forest", 24), ("Grizzly Bears", 36)])
    result = explore_sim.explore(deck, explores=1, drawn=0, known=["Forest"] * 4,
                                 trials=TRIALS, seed=8)
    got, se = result.summary().set_index("metric").loc["lands_to_hand", ["mean", "se"]]
    assert abs(got - 20 / 56) < 4 * se
    assert result.meta["library_size"] == 56
