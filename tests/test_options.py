"""The game options live in one schema (explore_sim.engine.options): an option added there is
in the command line's --help, the web form and a result's metadata with nothing more written,
and every face agrees with the schema on names and defaults."""

from __future__ import annotations

import dataclasses
import inspect
import json

import numpy as np
import pytest
from conftest import DECKS

import explore_sim
from explore_sim.cli import main
from explore_sim.engine.config import GameConfig
from explore_sim.engine.options import GAME_OPTIONS, GameOption, config_options, keyword_options
from explore_sim.errors import OptionError

DECK = str(DECKS / "lci_merfolk_explore.txt")
DUMMY = GameOption("dummy_level", "int", 3, "a dummy level for the test", doc="int", low=0,
                   high=9, config=False, flag="--dummy-level", web="dummy_level")


@pytest.fixture
def dummy():
    """The schema with one more option, for the length of a test."""
    GAME_OPTIONS.append(DUMMY)
    try:
        yield DUMMY
    finally:
        GAME_OPTIONS.remove(DUMMY)


def test_an_added_option_is_in_the_help(dummy, capsys):
    for command in ("simulate", "compare", "sweep"):
        with pytest.raises(SystemExit) as stop:
            main([command, "--help"])
        assert stop.value.code == 0
        text = capsys.readouterr().out
        assert "--dummy-level" in text and "a dummy level for the test" in text, command


def test_an_added_option_is_in_the_metadata(dummy, capsys):
    result = explore_sim.simulate(DECK, turns=1, trials=50, seed=1, dummy_level=5)
    assert result.meta["dummy_level"] == 5
    default = explore_sim.compare(DECK, ["keep", "mill"], turns=1, trials=50, seed=1)
    assert default.meta["dummy_level"] == 3
    assert main(["simulate", DECK, "--turns", "1", "--trials", "50", "--seed", "1",
                 "--dummy-level", "7", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["meta"]["dummy_level"] == 7
    with pytest.raises(OptionError, match="dummy_level must be between 0 and 9, got 12"):
        explore_sim.simulate(DECK, turns=1, trials=50, dummy_level=12)


def test_an_added_option_is_in_the_web_form(dummy):
    pytest.importorskip("starlette")
    pytest.importorskip("jinja2")
    pytest.importorskip("multipart")
    from starlette.testclient import TestClient

    from explore_sim.web import create_app
    from explore_sim.web.analyses import ANALYSES
    from explore_sim.web.forms import parse_fields

    with TestClient(create_app()) as client:
        page = client.post("/", data={"action": "switch:simulate"}).text
    assert 'name="dummy_level"' in page and "a dummy level for the test" in page
    simulate = ANALYSES["simulate"]
    values, errors = parse_fields(simulate.fields, {"dummy_level": "6", "turns": "1",
                                                     "trials": "50", "seed": "1"})
    assert not errors
    assert values["dummy_level"] == 6
    decks = [explore_sim.load_deck(DECK)]
    assert simulate.check(values, decks, explore_sim.Catalog.builtin()) == {}
    result = simulate.run(decks, values, lambda done, total: None)
    assert result.meta["dummy_level"] == 6


def test_game_config_is_the_schema_s_config_options():
    fields = {f.name: f.default for f in dataclasses.fields(GameConfig)}
    assert fields == {entry.name: entry.default for entry in config_options()}


@pytest.mark.parametrize("function", [explore_sim.simulate, explore_sim.compare,
                                      explore_sim.sweep, explore_sim.curve, explore_sim.replay,
                                      explore_sim.find_trial])
def test_the_functions_take_every_keyword_option_with_its_default(function):
    parameters = inspect.signature(function).parameters
    for entry in keyword_options():
        assert entry.name in parameters, (function.__name__, entry.name)
        if parameters[entry.name].kind is inspect.Parameter.KEYWORD_ONLY:  # the schema's
            assert parameters[entry.name].default == entry.default, (function.__name__,
                                                                     entry.name)
    assert "{game_options}" not in function.__doc__  # the options' entries are written in


def test_an_unknown_option_is_a_type_error_naming_the_closest():
    with pytest.raises(TypeError, match="unexpected option 'turnz' \\(did you mean 'turns'\\?\\)"):
        explore_sim.simulate(DECK, trials=10, turnz=3)


FLAGS = [entry.name for entry in keyword_options() if entry.kind == "bool"]


@pytest.mark.parametrize("name", FLAGS)
@pytest.mark.parametrize("value", ["no", "False", None, 0, 1])
def test_an_on_off_option_takes_only_true_or_false(name, value):
    """"no" is truthy: read as True it would play other games than asked, silently."""
    with pytest.raises(OptionError, match=f"{name} must be True or False, got"):
        explore_sim.simulate(DECK, turns=2, trials=10, **{name: value})


@pytest.mark.parametrize("name", ["explorer_gone", "targeted", "explorer_outside"])
def test_the_explore_sequence_s_flags_take_only_true_or_false(name):
    with pytest.raises(OptionError, match=f"{name} must be True or False, got 'no'"):
        explore_sim.explore(DECK, explorer="Cenote Scout", trials=10, **{name: "no"})


@pytest.mark.parametrize("name", ["on_play", "explorer_cast"])
def test_advise_s_flags_take_only_true_or_false(name):
    with pytest.raises(OptionError, match=f"{name} must be True or False, got 'no'"):
        explore_sim.advise(DECK, turn=3, revealed="Cenote Scout", trials=10,
                           battlefield="2 Forest, Cenote Scout", **{name: "no"})


def _numpy_values(value, path="meta"):
    """The paths of the NumPy scalars in ``value`` (nested dicts and lists)."""
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in _numpy_values(item, f"{path}.{key}")]
    if isinstance(value, (list, tuple)):
        return [p for i, item in enumerate(value) for p in _numpy_values(item, f"{path}[{i}]")]
    return [path] if isinstance(value, np.generic) else []


@pytest.mark.parametrize("run", [
    lambda: explore_sim.simulate(DECK, turns=np.int64(2), on_play=np.bool_(False), trials=256,
                                 seed=np.int64(1)),
    lambda: explore_sim.compare(DECK, ["forge", "keep"], turns=np.int64(2), trials=256, seed=1),
    lambda: explore_sim.value(DECK, ["Cenote Scout"], turn=np.int64(3), turns=np.int64(3),
                              trials=256, seed=1, progress=False),
    lambda: explore_sim.explore(DECK, explores=np.int64(2), drawn=np.int64(8), turn=np.int64(2),
                                trials=256, seed=1),
], ids=["simulate", "compare", "value", "explore"])
def test_numpy_numbers_given_are_plain_numbers_in_the_metadata(run):
    """A notebook's ``np.int64`` turn is kept as a plain number: the metadata is written as
    JSON (results files, ``render("json")``)."""
    result = run()
    assert _numpy_values(result.meta) == []
    json.loads(result.render("json"))
