"""Objectives: metric@turn expressions through the policy whitelist parser, and the paired
sums that give every difference its standard error."""

from __future__ import annotations

import numpy as np
import pytest

from explore_sim.analysis.objectives import (
    MAX_OBJECTIVES,
    PairedValues,
    parse_objective,
    parse_objectives,
)
from explore_sim.engine.policies import ExpressionPolicy
from explore_sim.errors import OptionError, PolicyError

GAMES = {
    4: {"on_curve": np.array([1, 0, 1]), "lands_played": np.array([4, 3, 5])},
    6: {"counters": np.array([3, 5, 0]), "hand_size": np.array([2, 3, 1])},
}


@pytest.mark.parametrize("text, expected", [
    ("on_curve@4", [1, 0, 1]),
    ("on_curve@4 + 0.1*counters@6", [1.3, 0.5, 1.0]),   # '@' binds to the name it follows
    ("0.1*counters@6 + on_curve@4", [1.3, 0.5, 1.0]),
    ("on_curve@4*counters@6", [3, 0, 0]),
    ("2*on_curve@4*3", [6, 0, 6]),
    ("-hand_size@6", [-2, -3, -1]),
    ("0.5*-hand_size@6", [-1, -1.5, -0.5]),
    ("lands_played@4 >= 4", [1, 0, 1]),                 # a condition counts 1 or 0
    ("lands_played@4 >= 4 and counters@6 > 0", [1, 0, 0]),
    ("(lands_played@4 - 3) // 1 % 2", [1, 0, 0]),
])
def test_objective_values(text, expected):
    objective = parse_objective(text)
    np.testing.assert_allclose(objective.values(GAMES), expected)


def test_screwed_by_and_flooded_by_look_at_every_turn_to_t():
    games = {t: {"screwed": np.array(s), "flooded": np.array(f)} for t, s, f in (
        (1, [0, 0, 0], [0, 0, 1]), (2, [1, 0, 0], [0, 0, 0]), (3, [0, 0, 1], [0, 1, 0]))}
    np.testing.assert_array_equal(parse_objective("screwed_by@2").values(games), [1, 0, 0])
    np.testing.assert_array_equal(parse_objective("screwed_by@3").values(games), [1, 0, 1])
    np.testing.assert_array_equal(parse_objective("flooded_by@2").values(games), [0, 0, 1])
    objective = parse_objective("-screwed_by@3 - flooded_by@3")
    np.testing.assert_array_equal(objective.values(games), [-1, -1, -2])
    assert (objective.first_turn, objective.last_turn) == (1, 3)
    assert not objective.lower_is_better


def test_objective_terms_and_turns():
    objective = parse_objective(" on_curve@4 + 0.1*counters@6 + on_curve@4 ")
    assert objective.text == "on_curve@4 + 0.1*counters@6 + on_curve@4"
    assert objective.terms == (("on_curve", 4), ("counters", 6))
    assert (objective.first_turn, objective.last_turn) == (4, 6)


def test_several_objectives_split_on_commas():
    found = parse_objectives("on_curve@5, mana_spent@6,,on_curve@5")
    assert [o.text for o in found] == ["on_curve@5", "mana_spent@6"]
    assert [o.text for o in parse_objectives(["on_curve@5", found[1]])] == \
        ["on_curve@5", "mana_spent@6"]


@pytest.mark.parametrize("text, message", [
    ("on_curv@4", "unknown name 'on_curv' (did you mean 'on_curve'?) at column 1"),
    ("mana_spent@5 + on_curv@4", "unknown name 'on_curv' (did you mean 'on_curve'?) at "
                                 "column 16"),
    ("on_curve", "'on_curve' needs a turn, as in on_curve@4"),
    ("on_curve@0", "a turn from 1 to 50 on its right, got '0' at column 10"),
    ("on_curve@51", "a turn from 1 to 50"),
    ("on_curve@4.5", "a turn from 1 to 50"),
    ("on_curve@turn", "a turn from 1 to 50"),
    ("3@4", "'@' needs a name on its left"),
    ("(on_curve + 1)@4", "'@' needs a name on its left"),
    ("__import__('os').system('x')@4", "'@' needs a name on its left"),
    ("__import__('os') + on_curve@4", "function calls are not allowed"),
    ("on_curve@4 ** 2", "a turn from 1 to 50"),
    ("(on_curve@4) ** 2", "'**' is not allowed"),
    ("mana_value@4", "unknown name 'mana_value'"),    # an observation name, not a metric
    ("1 + 2", "names no metric"),
    ("", "no objective given"),
    ("on_curve@4\nmana_spent@6", "one line"),
])
def test_bad_objectives_are_refused(text, message):
    with pytest.raises(OptionError, match="objective|no objective") as caught:
        parse_objectives(text)
    assert message in str(caught.value)


def test_at_most_so_many_objectives():
    with pytest.raises(OptionError, match=f"at most {MAX_OBJECTIVES}"):
        parse_objectives(",".join(f"on_curve@{t}" for t in range(1, MAX_OBJECTIVES + 2)))


def test_policy_expressions_still_refuse_at():
    with pytest.raises(PolicyError, match="'@' is not allowed"):
        ExpressionPolicy("mana_value@2 >= 1")


def test_paired_values_match_direct_statistics():
    rng = np.random.default_rng(5)
    a = rng.integers(0, 5, 1000).astype(float)
    b = a + rng.integers(-1, 3, 1000)
    sums = PairedValues(2)
    sums.add([a[:300], b[:300]])
    rest = PairedValues(2)
    rest.add([a[300:], b[300:]])
    sums.merge(rest)
    diff = b - a
    found = sums.difference(1, 0)
    assert found["mean"] == pytest.approx(diff.mean())
    assert found["se"] == pytest.approx(diff.std(ddof=1) / np.sqrt(len(diff)))
    assert found["ci_low"] == pytest.approx(diff.mean() - 1.959964 * found["se"], rel=1e-6)
    mean = sums.mean(0)
    assert mean["se"] == pytest.approx(a.std(ddof=1) / np.sqrt(len(a)))
    same = PairedValues(2)
    same.add([a, a.copy()])
    assert same.difference(1, 0) == {"mean": 0.0, "se": 0.0, "ci_low": 0.0, "ci_high": 0.0}


def test_paired_values_refuse_non_finite_values():
    sums = PairedValues(1)
    with pytest.raises(OptionError, match="not a finite number"):
        sums.add([np.array([1.0, np.inf])])
