"""The registries are the one source of what both engines play.

Every entry of the ability, game option, metric, observation field and policy operation
registries says whether the compiled kernel implements it (``kernel``). These tests walk every
entry: what an entry says the kernel implements, the kernel's numbering (:mod:`.layout`) has
under the entry's name, and the kernel has nothing the registries do not list; an option the
kernel is said to play changes what the kernel is given; and what the kernel does not play
makes ``engine="auto"`` fall back to the NumPy engine with the reason, and
``engine="kernel"`` refuse it in one line.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import explore_sim
from explore_sim.analysis.engines import EnginePlay, choose_engine
from explore_sim.cards.decklist import deck_from_counts
from explore_sim.engine import (
    abilities,
    kernel as kernel_module,
    metrics,
    observations,
    options,
    policy_expressions,
)
from explore_sim.engine.config import GameConfig
from explore_sim.engine.goldfish import deck_tables
from explore_sim.engine.kernel import kernel_problem
from explore_sim.engine.kernel.bytecode import policy_problem
from explore_sim.engine.kernel.layout import Event, Field, Group, Op, TurnMetric, columns
from explore_sim.engine.kernel.pack import pack
from explore_sim.engine.mulligan import MulliganRule
from explore_sim.engine.policies import as_policy
from explore_sim.engine.tables import BASIC_GROUPS
from explore_sim.errors import OptionError

MERFOLK = "merfolk"


def test_the_kernel_groups_are_the_abilities_it_plays():
    kernel_groups = {name for name in columns(Group) if not name.endswith("_ids")}
    played = {a.name for a in abilities.ABILITIES if a.kernel and a.counted}
    assert kernel_groups == {name for name, _ in BASIC_GROUPS} | played


def test_every_ability_the_kernel_is_said_to_play_is_a_step_or_a_group():
    for ability in abilities.ABILITIES:
        if ability.kernel and ability.counted:
            assert ability.name.upper() in Group.__members__, ability.name
        if not ability.counted:
            assert ability.step, f"{ability.name}: an ability with no members is a step"


def test_the_kernel_metrics_are_the_catalogue_entries_it_records():
    recorded = {m.name for m in metrics.catalogue("turn")
                if m.kernel and not m.name.startswith(metrics.CASTABLE_PREFIX)}
    assert set(columns(TurnMetric)) == recorded
    # The events the kernel counts as they happen are event metrics it records ("counters"
    # is the sum of two of them).
    events = {m.name for m in metrics.catalogue("turn") if m.kind == "event" and m.kernel}
    assert set(columns(Event)) == events - {"counters"}
    assert all(m.kernel for m in metrics.catalogue("opening"))
    assert not any(m.kernel for m in metrics.catalogue("explore"))  # NumPy only


def test_the_kernel_fields_are_the_observations_it_computes():
    computed = {field.name for field in observations.OBSERVATIONS if field.kernel}
    assert set(columns(Field)) == computed


def test_the_kernel_operations_are_the_operators_it_computes():
    for operation in policy_expressions.OPERATIONS:
        assert (operation.name in Op.__members__) == operation.kernel, operation.name


#: A value other than the default for each game option of GameConfig.
OTHER_VALUES = {
    "turns": 4, "on_play": False, "removal": 0.5, "replacement_order": "twists-first",
    "opponent_land_fraction": 0.9, "life": 7, "use_maps": False,
    "cast_order": ("Spyglass Siren",), "hand_limit": 3, "land_faces": "never",
    "castable": "Jadelight Ranger", "castable_lands": True, "game": "commander",
    "record": ("explores",),
}


def _ranger():
    return next(c for c in explore_sim.load_deck(MERFOLK).cards if not c.is_land)


def _config(name, value):
    if name == "castable":
        value = (_ranger(),)
    if name == "castable_lands":
        return GameConfig(castable=(_ranger(),), castable_lands=value)
    return GameConfig(**{name: value})


@pytest.mark.parametrize("name", [entry.name for entry in options.config_options()])
def test_an_option_the_kernel_plays_changes_what_it_is_given(name):
    """The kernel reads a game option it is said to play: another value packs other tables
    (every config option is listed here, so a new one fails until it says what it is)."""
    entry = options.option(name)
    assert name in OTHER_VALUES, f"give {name} another value here"
    deck = explore_sim.load_deck(MERFOLK)
    features = deck.features()
    default = GameConfig()
    if name == "castable_lands":
        default = dataclasses.replace(_config(name, True), castable_lands=False)
    other = _config(name, OTHER_VALUES[name])
    if not entry.kernel:
        pytest.skip(f"{name}: the kernel plays only its default")

    def packed(config):
        if name == "record":  # read where the kernel's rows of metrics are chosen
            return (kernel_module._recorded(config)[1],)
        return pack(deck_tables(features, config), config)

    before, after = packed(default), packed(other)
    assert any(not np.array_equal(a, b) for a, b in zip(before, after)), name


def _play(features, config, policy="forge"):
    rule = MulliganRule("london")
    return EnginePlay(features, as_policy(policy), rule, "deck")


def test_an_option_the_kernel_does_not_play_falls_back(monkeypatch):
    """An option whose entry says the kernel does not play it: its default plays on the
    kernel, another value on NumPy with the reason, and engine 'kernel' refuses it."""
    entry = options.option("hand_limit")
    patched = [dataclasses.replace(e, kernel=False) if e is entry else e
               for e in options.GAME_OPTIONS]
    monkeypatch.setattr(options, "GAME_OPTIONS", patched)
    features = explore_sim.load_deck(MERFOLK).features()
    assert choose_engine("auto", [_play(features, GameConfig())], GameConfig()).engine == "kernel"
    config = GameConfig(hand_limit=3)
    choice = choose_engine("auto", [_play(features, config)], config)
    assert choice.engine == "numpy"
    assert choice.fallback == "game options the compiled game does not play: hand_limit"
    with pytest.raises(OptionError, match="hand_limit; engine 'auto' or 'numpy'"):
        choose_engine("kernel", [_play(features, config)], config)


def test_a_metric_the_kernel_does_not_record_falls_back(monkeypatch):
    """A catalogue metric the kernel does not record makes every game that asks for it a
    NumPy engine's game, saying which."""
    toy = metrics.Metric("toy_metric", "turn", "state", "cards", "a toy", "toy")
    monkeypatch.setattr(GameConfig, "metric_names",
                        property(lambda self: {**metrics.TURN_METRICS, "toy_metric": False}))
    features = explore_sim.load_deck(MERFOLK).features()
    config = GameConfig()
    choice = choose_engine("auto", [_play(features, config)], config)
    assert (choice.engine, choice.fallback) == (
        "numpy", f"metrics the compiled game does not record: {toy.name}")


def test_an_ability_the_kernel_does_not_play_falls_back(monkeypatch):
    walker = next(a for a in abilities.ABILITIES if a.name == "walker")
    monkeypatch.setattr(abilities, "ABILITIES", tuple(
        dataclasses.replace(a, kernel=False) if a is walker else a for a in abilities.ABILITIES))
    deck = deck_from_counts({"Forest": 24, "Wildgrowth Walker": 4, "Jadelight Ranger": 32})
    config = GameConfig()
    tables = deck_tables(deck.features(), config)
    problem = kernel_problem(tables, as_policy("forge"), None, MulliganRule("london"), config)
    assert problem == "abilities the compiled game does not play: walker"


@pytest.mark.parametrize("text, reason", [
    ("mana_value >= 3", None),
    ("lands_in_hand == 0 and turn <= 2 or mana_value % 2 == 1", None),
])
def test_every_policy_field_and_operator_compiles(text, reason):
    assert policy_problem(as_policy(text)) == reason


def test_a_field_or_operator_the_kernel_lacks_is_named(monkeypatch):
    from explore_sim.engine.kernel import bytecode

    monkeypatch.setattr(bytecode, "_KERNEL_FIELDS", bytecode._KERNEL_FIELDS - {"turn"})
    assert policy_problem(as_policy("turn >= 3")) == (
        "reads turn, which the compiled game does not compute")
    mod = policy_expressions.operation_of(np.mod)
    monkeypatch.setitem(policy_expressions._BY_FUNCTION, np.mod,
                        dataclasses.replace(mod, kernel=False))
    assert policy_problem(as_policy("mana_value % 2 == 1")) == (
        "uses '%', which the compiled game does not compute")
    assert policy_problem(lambda obs, rng: obs.is_land) == "a Python callable"
