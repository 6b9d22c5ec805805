"""Games counted by value inside the compiled game (``simulate`` on the kernel): the same
exact sums as the games' metrics written out and counted after, whatever the threads, with
values beyond the bins written apart, and more of them than there is room for played again."""

from __future__ import annotations

import numpy as np
import pytest

import explore_sim
from explore_sim.analysis.games import TurnStats, count_games, play_games
from explore_sim.analysis.stats import Accumulator
from explore_sim.engine import kernel as kernel_module, threads as threads_module
from explore_sim.engine.config import GameConfig
from explore_sim.engine.mulligan import MulliganRule
from explore_sim.engine.policies import as_policy

TRIALS = 700


def assert_same_sums(counted: TurnStats, written: TurnStats) -> None:
    assert counted.by_turn.keys() == written.by_turn.keys()
    for turn, mine in counted.by_turn.items():
        theirs = written.by_turn[turn]
        assert mine.n == theirs.n and list(mine.binary) == list(theirs.binary)
        for name in mine.binary:
            assert mine.total[name] == theirs.total[name], (turn, name)
            assert mine.total_sq[name] == theirs.total_sq[name], (turn, name)
            np.testing.assert_array_equal(mine.histogram[name], theirs.histogram[name],
                                          err_msg=f"turn {turn}, {name}")


def both_ways(deck_name: str, config: GameConfig, policy: str = "forge", seed: int = 3):
    deck = explore_sim.load_deck(deck_name)
    rule = MulliganRule("london")
    written = play_games(deck, config, as_policy(policy), rule, TRIALS,
                         np.random.SeedSequence(seed), engine="kernel")
    counted = count_games(deck, config, as_policy(policy), rule, TRIALS,
                          np.random.SeedSequence(seed))
    return counted, TurnStats.of(written, config.turns, config.metric_names)


@pytest.mark.parametrize("deck_name, config", [
    ("merfolk", GameConfig(turns=8)),
    ("sultai", GameConfig(turns=6, on_play=False)),
    ("hakbal", GameConfig(turns=9, game="commander")),
    ("merfolk", GameConfig(turns=4, record=("on_curve", "compounded_mana"))),
])
def test_counted_games_give_the_sums_of_the_games_written_out(deck_name, config):
    assert_same_sums(*both_ways(deck_name, config))


def test_castable_cards_and_their_lands_are_counted_too():
    deck = explore_sim.load_deck("merfolk")
    card = next(card for card, _ in deck.main if card.name == "Jadelight Spelunker")
    assert_same_sums(*both_ways("merfolk", GameConfig(turns=5, castable=(card,),
                                                      castable_lands=True)))


@pytest.mark.parametrize("threads", [2, 3])
def test_each_thread_counts_its_part_and_the_parts_add_up(monkeypatch, threads):
    monkeypatch.setattr(threads_module, "MIN_GAMES_PER_THREAD", 100)
    monkeypatch.setattr(kernel_module, "kernel_threads", lambda: threads)
    assert len(threads_module.thread_parts(TRIALS, threads)) == threads
    assert_same_sums(*both_ways("merfolk", GameConfig(turns=8)))


def test_values_beyond_the_bins_are_written_apart_and_added(monkeypatch):
    """Two bins: every value of 2 or more (lands played, mana spent...) is spilled."""
    monkeypatch.setattr(kernel_module, "HISTOGRAM_BINS", 2)
    counted, written = both_ways("merfolk", GameConfig(turns=7))
    assert written.by_turn[7].histogram["compounded_mana"].size > 2
    assert_same_sums(counted, written)


def test_more_large_values_than_room_play_the_games_again(monkeypatch):
    calls = []
    play = kernel_module.play_games_kernel

    def replayed(*args, **kwargs):
        calls.append(1)
        return play(*args, **kwargs)

    monkeypatch.setattr(kernel_module, "HISTOGRAM_BINS", 2)
    monkeypatch.setattr(kernel_module, "SPILL_PER_GAME", 0)  # room for 1,024 values only
    monkeypatch.setattr(kernel_module, "play_games_kernel", replayed)
    counted, written = both_ways("merfolk", GameConfig(turns=6))
    assert len(calls) == 2  # the games written out, then the chunk played again
    assert_same_sums(counted, written)


def test_a_spilled_negative_value_is_refused_in_one_line():
    apart = kernel_module._values_apart(["damage"], np.array([[0, 0, -1]], np.int32))
    with pytest.raises(ValueError, match="metric 'damage' has negative values"):
        Accumulator({"damage": False}).add_counts({"damage": np.zeros(2, np.int64)}, 1,
                                                  apart[1])


def test_simulate_on_the_kernel_counts_its_games_by_value(monkeypatch):
    """``simulate``'s chunks on the kernel are counted inside it, and its summary is that of
    the same games written out and counted after."""
    import explore_sim.analysis.games as games_module

    deck = explore_sim.load_deck("merfolk")
    used = []

    def counted(*args):
        used.append(1)
        return count_games(*args)

    def written(deck, config, policy, rule, trials, chunk_seed, scry=None):
        return TurnStats.of(play_games(deck, config, policy, rule, trials, chunk_seed, scry,
                                       engine="kernel"), config.turns, config.metric_names)

    monkeypatch.setattr(games_module, "count_games", counted)
    by_value = explore_sim.simulate(deck, turns=5, trials=3000, seed=8, engine="kernel")
    assert used and by_value.meta["engine"] == "kernel"
    monkeypatch.setattr(games_module, "count_games", written)
    by_game = explore_sim.simulate(deck, turns=5, trials=3000, seed=8, engine="kernel")
    counted_rows, written_rows = by_value.summary(), by_game.summary()
    assert counted_rows.equals(written_rows)


def test_counts_by_value_add_like_the_values_themselves():
    rng = np.random.default_rng(2)
    values = {"lands": rng.integers(0, 9, 500), "land_drop": rng.integers(0, 2, 500)}
    by_values = Accumulator({"lands": False, "land_drop": True})
    by_values.add(values)
    by_counts = Accumulator({"lands": False, "land_drop": True})
    by_counts.add_counts({name: np.bincount(v, minlength=40) for name, v in values.items()},
                         500)
    assert by_counts.n == by_values.n == 500
    for name in values:
        assert by_counts.total[name] == by_values.total[name]
        assert by_counts.total_sq[name] == by_values.total_sq[name]
        np.testing.assert_array_equal(by_counts.histogram[name], by_values.histogram[name])


def test_counts_that_do_not_add_up_to_the_trials_are_refused():
    acc = Accumulator({"lands": False})
    with pytest.raises(ValueError, match="'lands': 3 counts for 4 trials"):
        acc.add_counts({"lands": np.array([1, 2])}, 4)
    with pytest.raises(ValueError, match="need an accumulator with histograms"):
        Accumulator({"lands": False}, histograms=False).add_counts({"lands": np.ones(1)}, 1)
