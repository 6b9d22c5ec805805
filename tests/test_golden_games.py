"""Golden games: both engines play every recorded game exactly as recorded, turn by turn, and
the records exercise every registry entry the compiled kernel plays (``tests/golden_games.py``
says how they are made and regenerated)."""

from __future__ import annotations

import golden_games as golden
import pytest

from explore_sim.engine import abilities, metrics, options
from explore_sim.engine.goldfish import deck_tables
from explore_sim.engine.kernel import kernel_problem
from explore_sim.engine.mulligan import MulliganRule

#: Options no golden game covers, and why.
NOT_IN_GOLDEN_GAMES = {
    "engine": "it chooses the engine itself",
    "keep": "a Python callable, which only the NumPy engine calls",
    "mulligan": "a golden game starts from its opening hand (the deal and its mulligans are "
                "tested in tests/test_mulligan.py and tests/test_kernel.py)",
    "free_mulligan": "as mulligan",
    "record": "it chooses the metrics recorded, not the game (tests/test_record.py)",
}


def _played(game: golden.GoldenGame):
    record = golden.load_record(game)
    deck = game.load()
    setup = game.setup(deck)
    opening = golden.opening_of(deck, [golden.library_ids(deck, record.library)])
    return record, deck, setup, opening


@pytest.mark.parametrize("name", [game.name for game in golden.GAMES])
def test_the_numpy_engine_plays_the_record(name):
    record, deck, setup, opening = _played(golden.by_name(name))
    assert golden.nonzero(golden.play_numpy(deck, setup, opening)) == record.metrics


@pytest.mark.parametrize("name", [game.name for game in golden.GAMES])
def test_the_kernel_plays_the_record(name):
    """The kernel plays the record exactly, or, for a game using what the kernel does not
    play, refuses it (engine "auto" then plays it on the NumPy engine)."""
    record, deck, setup, opening = _played(golden.by_name(name))
    problem = kernel_problem(deck_tables(deck.features(), setup.config), setup.policy,
                             setup.scry, MulliganRule("none"), setup.config)
    if problem is not None:
        pytest.skip(f"the kernel does not play this game: {problem}")
    metrics_by_turn, log = golden.play_kernel(deck, setup, opening)
    assert golden.nonzero(metrics_by_turn) == record.metrics
    assert log == record.log


@pytest.mark.parametrize("name", [game.name for game in golden.GAMES])
def test_the_record_exercises_what_it_covers(name):
    """Every metric covered is not 0 on some turn, every option changes the game, every
    ability's card is cast or played (so that a rule change shows in the record)."""
    game = golden.by_name(name)
    record, deck, setup, opening = _played(game)
    played = golden.play_numpy(deck, setup, opening)
    defaults = {}
    for entry in game.covers:
        kind, option = entry.split(":")
        if kind == "option" and option != "turns" and option not in golden.OPTION_METRICS:
            defaults[option] = golden.play_numpy(
                deck, game.setup(deck, **{option: options.option(option).default}), opening)
    assert golden.exercised(game, deck, played, defaults, [record.log], 0) == []


def test_every_registry_entry_has_a_golden_game():
    covered = {entry for game in golden.GAMES for entry in game.covers}
    wanted = {f"metric:{m.name}" for m in metrics.catalogue("turn")
              if not m.name.startswith(metrics.CASTABLE_PREFIX)}
    wanted |= {f"ability:{a.name}" for a in abilities.ABILITIES}
    wanted |= {f"option:{o.name}" for o in options.GAME_OPTIONS
               if o.name not in NOT_IN_GOLDEN_GAMES}
    assert sorted(wanted - covered) == []
    assert sorted(covered - wanted) == [], "a golden game covers an entry that does not exist"
