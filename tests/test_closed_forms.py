"""Closed forms of one or two explores: exact over every library pattern, and reproduced by
seeded runs within 4 standard errors."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import numpy as np
import pytest

import explore_sim
from explore_sim.analysis.explore import explore_trials

TRIALS = 200_000
DECKS = {60: (24, "Grizzly Bears"), 40: (17, "Queen's Agent")}


def closed_forms(n: int, lands: int, explores: int, policy: str) -> dict[str, F]:
    """Exact expectations for a library of n cards with `lands` lands."""
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


def exhaustive(n: int, lands: int, explores: int, policy: str) -> dict[str, F]:
    """The engine's expectations, exactly: explore_trials on one library per land / nonland
    pattern of the top `explores` cards (all the explores can reach), each weighted by the
    probability of its pattern in a shuffled library."""
    features = explore_sim.deck_from_counts([("Forest", 1), ("Grizzly Bears", 1)]).features()
    forest, bears = (features.id_of(explore_sim.Catalog.builtin().get(name))
                     for name in ("Forest", "Grizzly Bears"))
    patterns = list(itertools.product([True, False], repeat=explores))
    libraries = np.zeros((len(patterns), n + 1), dtype=np.int16)
    weights = []
    for row, pattern in enumerate(patterns):
        weight, lands_left, left = F(1), lands, n
        for is_land in pattern:
            weight *= F(lands_left if is_land else left - lands_left, left)
            lands_left, left = lands_left - is_land, left - 1
        top = [forest if is_land else bears for is_land in pattern]
        rest = [forest] * lands_left + [bears] * (left - lands_left)
        libraries[row, :n] = top + rest
        weights.append(weight)
    assert sum(weights) == 1
    out = explore_trials(libraries, features, drawn=0, explores=explores,
                         policy=explore_sim.as_policy(policy), rng=np.random.default_rng(0))
    exact = {name: sum((w * int(v) for w, v in zip(weights, values)), F(0))
             for name, values in out.items()}
    exact[f"p_counters_{explores}"] = sum(
        (w for w, c in zip(weights, out["counters"]) if c == explores), F(0))
    return exact


@pytest.mark.parametrize("size", [60, 40])
@pytest.mark.parametrize("explores", [1, 2])
@pytest.mark.parametrize("policy", ["keep", "mill"])
def test_the_engine_gives_the_closed_forms_exactly(size, explores, policy):
    lands = DECKS[size][0]
    engine = exhaustive(size, lands, explores, policy)
    for metric, value in closed_forms(size, lands, explores, policy).items():
        assert engine[metric] == value, (metric, engine[metric], value)
    assert engine["explores"] == explores


def test_the_documented_numbers_come_from_the_engine():
    keep = exhaustive(60, 24, 2, "keep")
    assert float(keep["counters"]) == pytest.approx(1.44407, abs=5e-6)
    assert float(keep["lands_to_hand"]) == pytest.approx(0.55593, abs=5e-6)
    mill = exhaustive(60, 24, 2, "mill")
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
