"""The contributor's guide's worked example, "add a card ability", played as written.

docs/contributing.md adds a made-up card, Lorekeeper of the Depths ("Whenever a creature you
control explores, you gain 2 life"), in three places of the package: a card-data value
(``EXPLORE_TRIGGERS`` in explore_sim/cards/card.py), a handler (in
explore_sim/engine/abilities/explore_triggers.py) and a registry entry (``ABILITIES`` in
explore_sim/engine/abilities/__init__.py). This test makes the same three changes (the
card-data value and the entry patched in, the handler defined here) and plays a scripted
game in which the trigger fires once per explore.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import scripted_game

from explore_sim.cards import Card, card as card_data
from explore_sim.engine import abilities
from explore_sim.engine.abilities import Ability
from explore_sim.engine.context import Play
from explore_sim.engine.state import GameState
from explore_sim.engine.zones import count

GUIDE_TEXT = "docs/contributing.md"


# --- what the guide adds to explore_sim/engine/abilities/explore_triggers.py -----------------

def lorekeeper(play: Play, state: GameState, rows: np.ndarray, explored: np.ndarray,
               lands: np.ndarray, nonlands: np.ndarray) -> None:
    """Lorekeeper of the Depths: 2 life per explore, for each Lorekeeper you control."""
    keepers = count(play, state, "lorekeeper", rows)
    state.totals["life_gained"][rows] += 2 * keepers * explored


# --- what the guide adds to ABILITIES and EXPLORE_TRIGGERS ------------------------------------

LOREKEEPER_ENTRY = Ability(
    "lorekeeper", lambda c: c.explore_trigger == "lorekeeper",
    "Lorekeeper of the Depths: 2 life per explore", "explore_trigger", lorekeeper)


@pytest.fixture
def with_lorekeeper(monkeypatch):
    """The package with the guide's three changes; the made-up card."""
    monkeypatch.setattr(card_data, "EXPLORE_TRIGGERS", (*card_data.EXPLORE_TRIGGERS,
                                                        "lorekeeper"))
    monkeypatch.setattr(abilities, "ABILITIES", (*abilities.ABILITIES, LOREKEEPER_ENTRY))
    return Card(name="Lorekeeper of the Depths", mana_cost="{1}{G}",
                type_line="Creature — Merfolk Wizard", power=1, toughness=2,
                explore_trigger="lorekeeper")


def one_turn(card: Card) -> dict[str, int]:
    """Jadelight Ranger explores twice (a land, then a nonland kept on top) with the
    Lorekeeper on the battlefield."""
    game, state, _ = scripted_game(["Forest", "Grizzly Bears", "Forest"],
                                   hand=["Jadelight Ranger"],
                                   battlefield=["Forest"] * 3 + [card.name], cards=[card])
    game.play_turn(state)
    return {name: int(value[0]) for name, value in game.turn_metrics(state).items()}


def test_the_new_trigger_fires_once_per_explore(with_lorekeeper):
    metrics = one_turn(with_lorekeeper)
    assert metrics["explores"] == 2
    assert metrics["life_gained"] == 4  # 2 life for each of the two explores


def test_without_its_registry_entry_the_card_does_nothing(with_lorekeeper, monkeypatch):
    monkeypatch.setattr(abilities, "ABILITIES", tuple(
        entry for entry in abilities.ABILITIES if entry is not LOREKEEPER_ENTRY))
    metrics = one_turn(with_lorekeeper)
    assert metrics["explores"] == 2 and metrics["life_gained"] == 0


def test_the_guide_shows_this_example():
    from conftest import ROOT

    guide = (ROOT / GUIDE_TEXT).read_text(encoding="utf-8")
    for text in ('"lorekeeper"', "def lorekeeper(play", 'count(play, state, "lorekeeper", rows)',
                 "tests/test_contributing.py"):
        assert text in guide, text


# --- the compiled kernel: what it is not told of, it refuses, and "auto" falls back ---------

def _engine_for(deck, config, engine="auto"):
    from explore_sim.analysis.engines import EnginePlay, choose_engine
    from explore_sim.engine.mulligan import MulliganRule
    from explore_sim.engine.policies import as_policy

    play = EnginePlay(deck.features(), as_policy("forge"), MulliganRule("london"), "deck")
    return choose_engine(engine, [play], config)


def test_a_new_ability_is_played_by_numpy_until_the_kernel_plays_it(with_lorekeeper):
    """The guide's three files give the ability to the NumPy engine; its entry says
    ``kernel=False`` (the default), so a deck with the card falls back, saying why, and the
    kernel refuses it in one line."""
    from explore_sim.cards import CardSources, Catalog
    from explore_sim.cards.decklist import deck_from_counts
    from explore_sim.engine.config import GameConfig
    from explore_sim.errors import OptionError

    assert LOREKEEPER_ENTRY.kernel is False
    sources = CardSources([Catalog([with_lorekeeper]), Catalog.builtin()])
    deck = deck_from_counts({"Forest": 24, "Lorekeeper of the Depths": 4,
                             "Jadelight Ranger": 32}, catalog=sources)
    choice = _engine_for(deck, GameConfig())
    assert (choice.engine, choice.fallback) == (
        "numpy", "abilities the compiled game does not play: lorekeeper")
    with pytest.raises(OptionError, match="cannot play these games: abilities the compiled "
                                          "game does not play: lorekeeper"):
        _engine_for(deck, GameConfig(), "kernel")


def test_a_new_metric_is_played_by_numpy_until_the_kernel_records_it(monkeypatch):
    """A metric added to the catalogue as the guide says (``kernel`` left False) makes the
    games that report it NumPy games, saying which metric."""
    import explore_sim
    from explore_sim.engine import config as config_module, metrics

    toy = metrics.Metric("lorekeeper_life", "turn", "event", "life", "a made-up metric",
                         "life")
    assert toy.kernel is False
    monkeypatch.setattr(config_module, "TURN_METRICS",
                        {**metrics.TURN_METRICS, toy.name: False})
    deck = explore_sim.load_deck("merfolk")
    choice = _engine_for(deck, config_module.GameConfig())
    assert (choice.engine, choice.fallback) == (
        "numpy", "metrics the compiled game does not record: lorekeeper_life")


def test_a_new_option_is_played_by_numpy_until_the_kernel_plays_it(monkeypatch):
    """A game option added as the guide says (an entry, ``kernel`` left False, and a field
    of GameConfig): its default plays on the kernel, any other value on NumPy."""
    import dataclasses

    import explore_sim
    from explore_sim.engine import options
    from explore_sim.engine.config import GameConfig

    entry = options.GameOption("lorekeepers", "int", 0, "made-up", low=0, high=4)
    assert entry.kernel is False
    monkeypatch.setattr(options, "GAME_OPTIONS", [*options.GAME_OPTIONS, entry])
    ToyConfig = dataclasses.make_dataclass(  # GameConfig with the option's field
        "ToyConfig", [("lorekeepers", int, dataclasses.field(default=0))], bases=(GameConfig,),
        frozen=True)
    deck = explore_sim.load_deck("merfolk")
    assert _engine_for(deck, ToyConfig()).engine == "kernel"
    choice = _engine_for(deck, ToyConfig(lorekeepers=2))
    assert (choice.engine, choice.fallback) == (
        "numpy", "game options the compiled game does not play: lorekeepers")
