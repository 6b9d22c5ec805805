"""Only what is asked is recorded: a game configured to record a few metrics reports exactly
those, with the same values as a game recording every metric, on both engines."""

from __future__ import annotations

import numpy as np
import pytest

import explore_sim
from explore_sim.analysis.games import play_games
from explore_sim.engine.config import GameConfig
from explore_sim.engine.mulligan import MulliganRule
from explore_sim.engine.policies import as_policy
from explore_sim.errors import OptionError

DECK = "merfolk"


def test_an_unknown_metric_is_refused_in_one_line():
    with pytest.raises(OptionError, match="record: unknown metric.*bogus"):
        GameConfig(record=("explores", "bogus"))


@pytest.mark.parametrize("engine", ["numpy", "kernel"])
def test_the_recorded_metrics_are_those_of_the_full_game(engine):
    deck = explore_sim.load_deck(DECK)
    full = GameConfig(turns=4)
    some = GameConfig(turns=4, record=("on_curve", "explores", "damage"))
    assert list(some.metric_names) == ["on_curve", "explores", "damage"]

    def played(config):
        return play_games(deck, config, as_policy("forge"), MulliganRule("london"), 300,
                          np.random.SeedSequence(5), engine=engine)

    everything, recorded = played(full), played(some)
    for turn in range(1, 5):
        assert set(recorded[turn]) == set(some.metric_names)
        for name in some.metric_names:
            np.testing.assert_array_equal(recorded[turn][name], everything[turn][name])
    for name in everything[0]:
        np.testing.assert_array_equal(recorded[0][name], everything[0][name])
