"""One cost model for every way in: a run's variants x trials x turns (in all, at once, and the
sums its paired variants keep) is checked against documented caps before anything is
played or allocated, in Python, on the command line and on a Dask cluster alike; a sweep's
grid is bounded before it is built; ``deck_from_counts`` is bounded like a decklist.

Work is bounded by counts: the games played (calls of the functions that play them), the
grid values read, the Python memory allocated while refusing.
"""

from __future__ import annotations

import itertools
import tracemalloc

import pytest
from conftest import DECKS

import explore_sim
from explore_sim.analysis import (
    compare as compare_module,
    lands as lands_module,
    stand_ins as stand_ins_module,
    sweep as sweep_module,
)
from explore_sim.analysis.run_costs import (
    MAX_AT_ONCE,
    MAX_GAME_TURNS,
    MAX_PAIRED_SUMS,
    Caps,
    Cost,
    check_cost,
    cost_problem,
)
from explore_sim.cards.decklist import MAX_CARD_LINES, MAX_DECK_SIZE
from explore_sim.cli import main
from explore_sim.errors import DeckError, OptionError

DECK = str(DECKS / "lci_merfolk_explore.txt")


@pytest.fixture
def nothing_played(monkeypatch):
    """Every way a run plays games, replaced by a record of the call."""
    played = []

    def record(name):
        return lambda *args, **kwargs: played.append(name) or pytest.fail(f"{name} ran")

    monkeypatch.setattr(compare_module, "play_paired", record("compare"))
    monkeypatch.setattr(stand_ins_module, "play_paired", record("value"))
    monkeypatch.setattr(lands_module, "play_paired", record("lands"))
    monkeypatch.setattr(sweep_module, "_variants", record("sweep grid"))
    return played


def refused(call, *fragments: str) -> str:
    """``call()`` refused with one OptionError line naming every fragment, allocating less
    than 20 MB of Python memory on the way."""
    tracemalloc.start()
    try:
        with pytest.raises(OptionError) as error:
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(error.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert peak < 20 << 20, peak
    return message


# ------------------------------------------------------------------------------------------
# The model


def test_the_caps_and_what_fits():
    assert (MAX_GAME_TURNS, MAX_AT_ONCE, MAX_PAIRED_SUMS) == (10**12, 32_000_000, 4_000_000)
    assert cost_problem(Cost(10**10, 1, 1, 50)) is None  # the largest simulate fits
    assert cost_problem(Cost(65_536, 1, 1, 50)) is None
    total = cost_problem(Cost(10**9, 2_000, 1, 6))
    assert total == ("this run plays 1,000,000,000 trials x 2,000 deck variants x 6 turns = "
                     "12,000,000,000,000 game turns; at most 1,000,000,000,000 per run: at "
                     "most 83,333,333 trials, or fewer variants or turns")
    at_once = cost_problem(Cost(10**6, 400, 400, 6))
    assert at_once.startswith("this run plays 65,536 games of 400 deck variant(s) x 6 turns "
                              "at once (a chunk of trials) = 157,286,400 game turns, about "
                              "19.7 GB; at most 32,000,000 at once: at most 13,333 trials, or "
                              "fewer variants or turns (or at most 81 variants played "
                              "together)")
    paired = cost_problem(Cost(100, 300, 300, 6, pair_sums=7 * 32))
    assert paired == ("this run plays 300 deck variants on the same shuffles and keeps "
                      "10,046,400 sums of their pairs' products; at most 4,000,000: at most "
                      "189 variants on the same shuffles at these trials and turns")
    assert cost_problem(Cost(100, 189, 189, 6, pair_sums=7 * 32)) is None
    assert cost_problem(Cost(100, 190, 190, 6, pair_sums=7 * 32)) is not None
    assert cost_problem(Cost(10, 10, 10, 5), Caps(game_turns=499)).endswith(
        "at most 499 per run: at most 9 trials, or fewer variants or turns")
    with pytest.raises(OptionError, match="^this run plays 65,536 games of 400"):
        check_cost(Cost(10**6, 400, 400, 6))


# ------------------------------------------------------------------------------------------
# Python


def test_a_compare_of_10000_variants_is_refused_before_anything_is_played(nothing_played):
    refused(lambda: explore_sim.compare(DECK, policies=["keep"] * 10_000, turns=3,
                                        trials=10**6),
            "this run plays 10,000 deck variants on the same shuffles and keeps 7,399,260,000 "
            "sums of their pairs' products; at most 4,000,000: at most 162 variants on the "
            "same shuffles at these trials and turns")
    refused(lambda: explore_sim.compare(DECK, policies=["keep"] * 100, trials=10**5),
            "this run plays 65,536 games of 100 deck variant(s) x 6 turns at once (a chunk of "
            "trials) = 39,321,600 game turns, about 4.9 GB; at most 32,000,000 at once: at "
            "most 53,333 trials, or fewer variants or turns (or at most 81 variants played "
            "together)")
    deck = explore_sim.load_deck(DECK)
    refused(lambda: explore_sim.compare([deck] * 1000, policies="keep", trials=100),
            "this run plays 1,000 deck variants on the same shuffles and keeps 129,370,500 "
            "sums", "at most 176 variants on the same shuffles")
    assert nothing_played == []


def test_a_sweep_of_a_billion_values_is_refused_before_its_grid_is_built(nothing_played):
    refused(lambda: explore_sim.sweep(DECK, {"lands": range(10**9)}, trials=1000),
            "grid['lands'] has 1,000,000,000 values; a key takes at most 1,000")
    read = []

    def endless():
        for value in itertools.count():
            read.append(value)
            yield value

    refused(lambda: explore_sim.sweep(DECK, {"Cenote Scout": endless()}, trials=1000),
            "grid['Cenote Scout'] has more values; a key takes at most 1,000")
    assert len(read) == 1001  # read no further
    refused(lambda: explore_sim.sweep(DECK, {"lands": range(20, 420), "Forest": range(250)},
                                      trials=10**8),
            "this run plays 100,000,000 trials x 100,000 deck variants x 6 turns = "
            "60,000,000,000,000 game turns; at most 1,000,000,000,000 per run")
    assert nothing_played == []


def test_a_value_run_of_many_lands_is_held_to_the_caps(nothing_played):
    refused(lambda: explore_sim.value(DECK, "Cenote Scout", max_lands=4, turns=50,
                                      trials=10**10),
            "this run plays 10,000,000,000 trials x 6 deck variants x 50 turns")
    assert nothing_played == []


def test_a_lands_run_is_held_to_the_caps(nothing_played):
    refused(lambda: explore_sim.lands(DECK, objective="compounded_mana@50", trials=10**10),
            "game turns", "at most")
    assert nothing_played == []


def test_a_tune_of_thousands_of_rules_is_refused_before_a_game(monkeypatch):
    from explore_sim.analysis import tune as tune_module

    monkeypatch.setattr(tune_module, "_racing", lambda *a, **k: pytest.fail("raced"))
    refused(lambda: explore_sim.tune(DECK, candidates=["keep"] * 3000, budget=10**6),
            "this run plays 3,000 deck variants on the same shuffles and keeps 8,997,000 sums",
            "at most 2,000 variants on the same shuffles")
    explore_sim.analysis.run_costs.check_cost(  # the default rules at a large budget fit
        explore_sim.analysis.run_costs.Cost(10**8 // 409, 409, 1, 4, pair_sums=2, paired=409))


def test_deck_from_counts_is_bounded_like_a_decklist():
    tracemalloc.start()
    try:
        with pytest.raises(DeckError, match=r"^deck: the main deck has 10,000,000 cards or "
                                            r"more \(at most 1,000, as for a decklist\)$"):
            explore_sim.deck_from_counts({"Forest": 10**7, "Grizzly Bears": 60})
        assert tracemalloc.get_traced_memory()[1] < 20 << 20
    finally:
        tracemalloc.stop()
    read = []

    def pairs():
        for index in itertools.count():
            read.append(index)
            yield ("Forest", 1)

    with pytest.raises(DeckError, match=f"more than {MAX_CARD_LINES:,} \\(card, copies\\) "
                                        "pairs"):
        explore_sim.deck_from_counts(pairs())
    assert len(read) == MAX_CARD_LINES + 1
    deck = explore_sim.deck_from_counts({"Forest": MAX_DECK_SIZE - 60, "Grizzly Bears": 60})
    assert deck.size == MAX_DECK_SIZE


# ------------------------------------------------------------------------------------------
# The command line and a Dask scheduler


def test_the_command_line_refuses_400_policies_in_one_line(capsys, nothing_played):
    args = ["compare", DECK, "--trials", "100000"]
    for _ in range(400):
        args += ["--policy", "keep"]
    assert main(args) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err, captured.err
    assert lines[0] == ("explore-sim: error: this run plays 400 deck variants on the same "
                        "shuffles and keeps 20,668,200 sums of their pairs' products; at most "
                        "4,000,000: at most 81 variants on the same shuffles at these trials "
                        "and turns")
    assert captured.out == "" and nothing_played == []


def test_a_dask_run_is_refused_before_the_scheduler_is_reached(nothing_played):
    """Nothing listens at the address: the cost is refused first, without trying it."""
    refused(lambda: explore_sim.compare(DECK, policies=["keep"] * 400, trials=10**5,
                                        scheduler="tcp://127.0.0.1:9"),
            "this run plays 400 deck variants on the same shuffles")
