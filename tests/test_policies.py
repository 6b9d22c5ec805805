"""Keep-or-mill policies: presets, Forge's rule, safe expressions, the conformance check."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from explore_sim import PolicyError, PolicyWarning, as_policy, check_policy
from explore_sim.cards import Catalog, FeatureTable
from explore_sim.engine.policies import (
    OBSERVATION_NAMES,
    ExpressionPolicy,
    ForgePolicy,
    Observation,
    as_policies,
    decide,
    policy_name,
)
from explore_sim.policy_conformance import random_observation

RNG = np.random.default_rng(0)


def observation(card="Queen's Agent", **counts):
    features = FeatureTable.from_cards([Catalog.builtin().get(card)])
    defaults = dict(cards_in_hand=3, lands_in_hand=1, lands_in_play=2, turn=2, explores_left=1,
                    counters=0, explorer_present=True, library_size=50, lands_in_library=20)
    defaults.update(counts)
    return Observation.build(features, np.array([1]), **defaults)


@pytest.mark.parametrize("name, expected", [("keep", False), ("mill", True), ("xmage", True)])
def test_simple_presets(name, expected):
    assert as_policy(name)(observation(), RNG).tolist() == [expected]


@pytest.mark.parametrize(
    "lands_in_hand, lands_in_play, card, expected",
    [
        (0, 2, "Grizzly Bears", True),  # no land in hand, <= 2 in play: dig for lands
        (0, 3, "Grizzly Bears", False),  # 3 in play: no need to dig; mv 2 < 3 + 2
        (1, 1, "Grizzly Bears", False),  # a land in hand; mv 2 < 2 + 2
        (1, 1, "Merfolk Cave-Diver", False),  # mv 3 < 2 + 2
        (1, 2, "Dire Fleet Interloper", False),  # mv 4 < 3 + 2
        (1, 1, "Dire Fleet Interloper", True),  # mv 4 >= 2 + 2: will not be cast soon
        (2, 4, "Queen's Agent", False),  # mv 6 < 6 + 2
        (1, 3, "Queen's Agent", True),  # mv 6 >= 4 + 2
    ],
)
def test_forge_default(lands_in_hand, lands_in_play, card, expected):
    obs = observation(card, lands_in_hand=lands_in_hand, lands_in_play=lands_in_play)
    assert as_policy("forge")(obs, RNG).tolist() == [expected]


def test_forge_profiles():
    obs = observation("Dire Fleet Interloper", lands_in_hand=1, lands_in_play=2)  # mv 4 vs 3
    assert as_policy("forge")(obs, RNG).tolist() == [False]
    assert as_policy("forge-reckless")(obs, RNG).tolist() == [True]  # max_mv_diff 1
    dig = observation("Grizzly Bears", lands_in_hand=0, lands_in_play=3)
    assert as_policy("forge")(dig, RNG).tolist() == [False]
    assert as_policy("forge-experimental")(dig, RNG).tolist() == [True]  # need_lands 3
    custom = as_policy("forge:need_lands=3, max_mv_diff=1")
    assert (custom.need_lands, custom.max_mv_diff) == (3, 1)
    assert ForgePolicy(need_lands=0).need_lands == 0


def test_expression_from_the_documentation():
    policy = as_policy("lands_in_hand == 0 and lands_in_play <= 2 "
                       "or mana_value >= mana_sources + 2")
    assert isinstance(policy, ExpressionPolicy)
    assert policy(observation(lands_in_hand=0, lands_in_play=2), RNG).tolist() == [True]
    bears = observation("Grizzly Bears", lands_in_hand=1, lands_in_play=2)
    agent = observation("Queen's Agent", lands_in_hand=1, lands_in_play=4)
    assert policy(bears, RNG).tolist() == [False]
    assert policy(agent, RNG).tolist() == [True]


def test_expression_agrees_with_forge_on_many_observations():
    obs = random_observation(2000, seed=3)
    text = ("lands_in_hand == 0 and lands_in_play <= 2 "
            "or mana_value >= lands_in_play + lands_in_hand + 2")
    assert np.array_equal(as_policy(text)(obs, RNG), ForgePolicy()(obs, RNG))


@pytest.mark.parametrize("text, expected", [
    ("not is_creature", [False]),
    ("1 < mana_value <= 6", [True]),
    ("mana_value // 4 == 1 and mana_value % 4 == 2", [True]),
    ("-mana_value < -5.5", [True]),
    ("mana_value / (turn - turn) > 1", [True]),  # a zero the game gives: inf, no error
    ("True", [True]),
    ("is_nonland == True", [True]),
])
def test_expression_operators(text, expected):
    assert as_policy(text)(observation(), RNG).tolist() == expected


@pytest.mark.parametrize("text, message", [
    ("", "empty"),
    ("mana_valu >= 3", "unknown name 'mana_valu' .*did you mean 'mana_value'"),
    ("__import__('os').system('echo hi')", "function calls are not allowed"),
    ("obs.card == 1", "attribute access"),
    ("mana_value ** 2 > 3", r"operator '\*\*' is not allowed"),
    ("mana_value / 0 > 1", "division by zero at column 14"),
    ("forg", r"unknown policy 'forg' \(did you mean 'forge'\?\); presets: keep, mill"),
    ("mana_value // -0.0 > 1", "division by zero"),
    ("mana_value % 0 == 1", "division by zero"),
    ("mana_value", "is a number, not a condition"),
    ("mana_value and is_land", "needs conditions"),
    ("is_land + 1 > 0", "arithmetic needs numbers"),
    ("mana_value >= 1e400", "out of range"),
    ("mana_value in (1, 2)", r"comparison 'in' is not allowed"),
    ("'a' == 'a'", "str values are not allowed"),
    ("mana_value >=", "not valid"),
    ("x if y else z", "not allowed"),
    ("not " * 200 + "True", "nested too deeply"),
    ("(" * 500 + "True" + ")" * 500, "nested too deeply|not valid|cannot be parsed"),
    ("is_land == 1 > is_land", "two numbers or two conditions"),
    ("lambda: 1", "Lambda is not allowed"),
])
def test_bad_expressions_get_one_line_errors(text, message):
    with pytest.raises(PolicyError, match=message) as error:
        as_policy(text)
    assert "\n" not in str(error.value)


def test_non_policy_objects_are_refused():
    with pytest.raises(PolicyError):
        as_policy(42)  # type: ignore[arg-type]
    with pytest.raises(PolicyError, match="whole number"):
        as_policy("forge:need_lands=two")


@pytest.mark.parametrize("preset", ["keep", "mill", "xmage", "forge", "forge-reckless",
                                    "forge-experimental", "mana_value >= 4 and not is_creature"])
def test_presets_and_expressions_pass_the_conformance_check(preset):
    check_policy(preset)


def test_check_policy_catches_bad_policies():
    with pytest.raises(PolicyError, match="shape"):
        check_policy(lambda obs, rng: np.zeros(3, dtype=bool))
    with pytest.raises(PolicyError, match="dtype"):
        check_policy(lambda obs, rng: np.zeros(obs.trials))
    with pytest.raises(PolicyError, match="not deterministic"):
        state = iter(range(10**6))
        check_policy(lambda obs, rng: np.full(obs.trials, next(state) % 2 == 0))

    def mutating(obs, rng):
        obs.lands_in_hand[:] = 0
        return np.zeros(obs.trials, dtype=bool)

    with pytest.raises(PolicyError, match="modify"):
        check_policy(mutating)
    with pytest.raises(PolicyError, match="observation array itself"):
        check_policy(lambda obs, rng: obs.is_land)
    # A policy that randomises with the given rng is deterministic for that rng.
    check_policy(lambda obs, rng: rng.random(obs.trials) < 0.5)


NAMES = list(OBSERVATION_NAMES)
token = st.one_of(
    st.sampled_from(NAMES),
    st.sampled_from(["and", "or", "not", "(", ")", "==", "<=", ">", "+", "-", "*", "/", "//",
                     "%", "True", "1", "2.5", "0", "**", ",", "[", "]", "lambda", ":", "'x'"]),
    st.integers(-10, 10).map(str),
)


@settings(max_examples=500, deadline=None)
@given(st.lists(token, max_size=12).map(" ".join))
@pytest.mark.slow
def test_fuzz_expressions_only_raise_policy_errors(text):
    obs = random_observation(16)
    try:
        policy = as_policy(text)
    except PolicyError as error:
        assert "\n" not in str(error)
        return
    result = policy(obs, RNG)
    assert result.shape == (16,) and result.dtype == bool


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
@pytest.mark.slow
def test_fuzz_arbitrary_text_only_raises_policy_errors(text):
    try:
        policy = as_policy(text)
    except PolicyError:
        return
    assert policy(random_observation(8), RNG).dtype == bool


@pytest.mark.parametrize("answer", [
    lambda obs: list(np.zeros(obs.trials, dtype=bool)),
    lambda obs: __import__("pandas").Series(np.zeros(obs.trials, dtype=bool)),
    lambda obs: tuple(np.zeros(obs.trials, dtype=bool)),
    lambda obs: False,
], ids=["list", "Series", "tuple", "scalar"])
def test_answers_that_are_not_numpy_arrays_are_refused(answer):
    def policy(obs, rng):
        return answer(obs)

    with pytest.raises(PolicyError, match=r"returned a \w+, expected a numpy bool array of shape"):
        check_policy(policy)
    with pytest.raises(PolicyError, match="expected a numpy bool array"):
        decide(policy, random_observation(), RNG)


def test_observation_typos_get_a_suggestion():
    obs = random_observation(4)
    with pytest.raises(AttributeError, match=r"no field 'mana_vale'; did you mean 'mana_value'\?"):
        obs.mana_vale  # noqa: B018
    with pytest.raises(AttributeError, match="see explore_sim.OBSERVATION_NAMES"):
        obs.xyzzy  # noqa: B018
    assert not hasattr(obs, "lands_in_hnd")


def greedy(obs, rng):
    return obs.mana_value >= 3


def test_policies_are_named_by_name_attribute_dict_key_or_name_argument():
    assert policy_name(greedy) == "greedy"
    assert policy_name(as_policy(greedy, name="costly")) == "costly"
    assert policy_name(as_policy("keep", name="hold")) == "hold"
    named = as_policies({"greedy": greedy, "careful": "lands_in_hand == 0"})
    assert [policy_name(p) for p in named] == ["greedy", "careful"]
    assert np.array_equal(named[0](random_observation(), RNG), greedy(random_observation(), RNG))
    labelled = lambda obs, rng: obs.is_land  # noqa: E731
    labelled.name = "lands"
    assert policy_name(labelled) == "lands"
    with pytest.raises(PolicyError, match="dict keys"):
        as_policies({1: "keep"})
    with pytest.raises(PolicyError, match="non-empty text"):
        as_policy("keep", name=" ")


def test_unnamed_lambdas_warn_and_say_how_to_name_them():
    with pytest.warns(PolicyWarning, match=r"name it with a dict \{'name': policy\}"):
        as_policies(["keep", lambda obs, rng: obs.is_land])


def test_compare_and_simulate_read_a_dict_as_named_policies():
    from conftest import DECKS

    import explore_sim

    deck = DECKS / "lci_limited_gu.txt"
    result = explore_sim.compare(deck, {"keep": "keep", "greedy": greedy}, turns=1,
                                 trials=200, seed=1)
    assert result.policies == ["keep", "greedy"] and result.meta["policy"] == ["keep", "greedy"]
    games = explore_sim.simulate(deck, policy={"greedy": greedy}, turns=1, trials=200, seed=1)
    assert games.meta["policy"] == ["greedy"]
    with pytest.raises(PolicyError, match="simulate plays one policy, got 2"):
        explore_sim.simulate(deck, policy={"a": "keep", "b": "mill"}, turns=1, trials=200)
    with pytest.raises(PolicyError, match="explore plays one policy"):
        explore_sim.explore(deck, policy=["keep", "mill"], trials=200)


def test_forge_predicts_mana_from_every_mana_source_and_the_lands_in_hand():
    """The predicted mana of the forge rule (docs/rules.md, docs/guide/policies.md) counts
    every permanent with a mana ability (a mana creature and a mana rock too) and the land
    cards in hand: with two Forests, Llanowar Elves and Sol Ring in play and a Forest in hand
    it is 5, so Queen's Agent (mana value 6 < 5 + 2), revealed by Cenote Scout, is kept on
    top; counting only lands (2 + 1) it would be milled."""
    from conftest import scripted_game

    game, state, ids = scripted_game(["Queen's Agent"] * 3,
                                     hand=["Cenote Scout", "Forest", "Forest"],
                                     battlefield=["Forest", "Llanowar Elves", "Sol Ring"],
                                     policy="forge")
    game.play_turn(state)
    metrics = {name: int(value[0]) for name, value in game.turn_metrics(state).items()}
    assert metrics["explores"] == 1 and metrics["milled"] == 0
    assert state.library[0, state.top[0]] == ids["Queen's Agent"]
