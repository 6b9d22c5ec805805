"""The damage clock (docs/guide/damage.md): combat damage dealt to the goldfish opponent,
``opponent_dead`` against the starting life, the kill-turn distribution and ``--life``.

Scripted games check who attacks and with how many counters; a deck of Forests and Grizzly
Bears is checked against an independent one-game-at-a-time simulation written here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import DECKS, scripted_game

import explore_sim
from explore_sim.analysis.games import TurnStats
from explore_sim.analysis.kill_turn import kill_turn
from explore_sim.cli import main
from explore_sim.engine.goldfish import GameConfig

FORESTS = ["Forest"] * 12


def damage_by_turn(game, state, turns):
    """``(damage, opponent_dead)`` at the end of each of ``turns`` turns (trial 0)."""
    out = []
    for _ in range(turns):
        game.play_turn(state)
        m = game.turn_metrics(state)
        out.append((int(m["damage"][0]), int(m["opponent_dead"][0])))
    return out


def test_a_vanilla_bear_attacks_from_the_turn_after_it_is_cast():
    game, state, _ = scripted_game(FORESTS, hand=["Grizzly Bears"],
                                   battlefield=["Forest", "Forest"])
    assert [d for d, _ in damage_by_turn(game, state, 4)] == [0, 2, 4, 6]


def test_opponent_dead_once_the_damage_reaches_the_starting_life():
    game, state, _ = scripted_game(FORESTS, hand=["Grizzly Bears"],
                                   battlefield=["Forest", "Forest"], config=GameConfig(life=5))
    assert damage_by_turn(game, state, 4) == [(0, 0), (2, 0), (4, 0), (6, 1)]
    game, state, _ = scripted_game(FORESTS, hand=["Grizzly Bears"],
                                   battlefield=["Forest", "Forest"])
    assert [dead for _, dead in damage_by_turn(game, state, 4)] == [0, 0, 0, 0]  # 20 life


def test_an_explorer_attacks_with_its_counter_once_it_can_attack():
    # Branchwalker (2/1) explores a nonland: a counter, kept on the sick copy; it attacks
    # for 3 from the next turn, beside the Bears the kept card becomes.
    game, state, _ = scripted_game(["Grizzly Bears", *FORESTS], hand=["Merfolk Branchwalker"],
                                   battlefield=["Forest", "Forest"])
    assert [d for d, _ in damage_by_turn(game, state, 3)] == [0, 3, 3 + 3 + 2]


def test_counters_on_a_summoning_sick_copy_deal_nothing_that_turn():
    # An older Branchwalker attacks for 2 while the new one, with the explore's counter, is
    # summoning sick; the next turn both attack, 2 + 3.
    game, state, ids = scripted_game(["Grizzly Bears", *FORESTS], hand=["Merfolk Branchwalker"],
                                     battlefield=["Merfolk Branchwalker", "Forest", "Forest"])
    assert [d for d, _ in damage_by_turn(game, state, 2)] == [2, 2 + 2 + 3]
    assert state.counters[0, ids["Merfolk Branchwalker"]] == 1


def test_a_haste_explorer_attacks_with_its_counter_the_turn_it_enters():
    game, state, _ = scripted_game(["Grizzly Bears", *FORESTS], hand=["Brazen Buccaneers"],
                                   battlefield=["Mountain"] * 4)
    assert damage_by_turn(game, state, 1) == [(3, 0)]


def test_cave_diver_attacks_with_its_pump_for_each_explore_this_turn():
    # The Branchwalker's explore gives the Cave-Diver +1/+0 this turn only.
    game, state, _ = scripted_game(["Grizzly Bears", *FORESTS], hand=["Merfolk Branchwalker"],
                                   battlefield=["Merfolk Cave-Diver", "Forest", "Forest"])
    assert [d for d, _ in damage_by_turn(game, state, 2)] == [3, 3 + 2 + 3]


def test_a_removed_copy_takes_its_own_counters_not_an_older_copys():
    # The new Branchwalker is removed in response to its explore (--removal 1): the older
    # copy keeps its two counters and attacks for 4; removed in turn 2 by nothing, again 4.
    game, state, ids = scripted_game(["Grizzly Bears", *FORESTS], hand=["Merfolk Branchwalker"],
                                     battlefield=["Merfolk Branchwalker", "Forest", "Forest"],
                                     config=GameConfig(removal=1.0))
    state.counters[0, ids["Merfolk Branchwalker"]] = 2
    assert [d for d, _ in damage_by_turn(game, state, 1)] == [4]
    assert state.battlefield[0, ids["Merfolk Branchwalker"]] == 1
    assert state.counters[0, ids["Merfolk Branchwalker"]] == 2


def test_a_mana_creature_stays_back_and_deals_nothing():
    game, state, _ = scripted_game(FORESTS, battlefield=["Llanowar Elves"])
    assert [d for d, _ in damage_by_turn(game, state, 2)] == [0, 0]


# ------------------------------------------------- Forests and Grizzly Bears, independently


def bears_games(games: int, turns: int, seed: int) -> np.ndarray:
    """Damage by the end of each turn, shape (games, turns): 24 Forest and 36 Grizzly Bears,
    no mulligan, on the play; a land a turn, as many Bears as two mana each allows, every
    Bears not cast this turn attacks for 2, and the cleanup discards Bears before lands."""
    rng = np.random.default_rng(seed)
    out = np.zeros((games, turns), dtype=np.int64)
    for g in range(games):
        library = list(rng.permutation([0] * 24 + [1] * 36))  # 0 Forest, 1 Bears
        hand, library = library[:7], library[7:]
        lands = bears = damage = 0
        for turn in range(turns):
            if turn > 0 and library:
                hand.append(library.pop(0))
            if 0 in hand:
                hand.remove(0)
                lands += 1
            damage += 2 * bears  # the Bears already in play attack
            cast = min(hand.count(1), lands // 2)
            for _ in range(cast):
                hand.remove(1)
            bears += cast
            while len(hand) > 7:
                hand.remove(1 if 1 in hand else 0)
            out[g, turn] = damage
    return out


@pytest.mark.slow
def test_forests_and_bears_deal_the_independent_damage_and_kill_turns():
    turns, trials = 9, 4000
    result = explore_sim.simulate(explore_sim.parse_deck("24 Forest\n36 Grizzly Bears"),
                                  trials=trials, seed=3, turns=turns, policy="keep",
                                  mulligan="none", engine="numpy")
    rows = result.summary().set_index(["turn", "metric"])
    damage = bears_games(trials, turns, seed=11)
    dead = damage >= 20
    for turn in range(1, turns + 1):
        for name, values in (("damage", damage[:, turn - 1]), ("opponent_dead", dead[:, turn - 1])):
            mean, se = rows.loc[(turn, name), ["mean", "se"]]
            expected = values.mean()
            spread = math.hypot(se, values.std(ddof=1) / math.sqrt(trials))
            assert abs(mean - expected) <= 4 * spread + 1e-12, (turn, name, mean, expected)
    clock = result.kill_turn()
    censored = np.where(dead.any(axis=1), dead.argmax(axis=1) + 1, turns + 1)
    spread = math.hypot(clock.mean_se, censored.std(ddof=1) / math.sqrt(trials))
    assert abs(clock.mean - censored.mean()) <= 4 * spread
    assert 1 < clock.mean < turns + 1 and clock.median is not None


def test_the_kill_turn_is_read_exactly_from_the_games_dead_by_each_turn():
    # Four games: dead on turns 1, 2, 2 and never (of 3): min(K, 4) is 1, 2, 2, 4.
    dead = {1: [1, 0, 0, 0], 2: [1, 1, 1, 0], 3: [1, 1, 1, 0]}
    stats = TurnStats.of({t: {"opponent_dead": np.array(v)} for t, v in dead.items()}, 3,
                         {"opponent_dead": True})
    clock = kill_turn(stats)
    assert list(clock.by_turn["dead"]) == [1, 3, 3]
    assert list(clock.by_turn["probability"]) == [0.25, 0.75, 0.75]
    assert clock.median == 2
    assert clock.mean == pytest.approx(9 / 4)
    assert clock.mean_se == pytest.approx(np.std([1, 2, 2, 4], ddof=1) / 2)
    assert "median kill turn: turn 2" in clock.text()
    never = kill_turn(TurnStats.of({1: {"opponent_dead": np.zeros(4, int)}}, 1,
                                   {"opponent_dead": True}))
    assert never.median is None and never.mean == 2 and "later than turn 1" in never.text()


# ------------------------------------------------------------------ the --life option


@pytest.mark.parametrize("value", ["-3", "many", "1000000"])
def test_a_bad_life_is_a_one_line_error(value, capsys):
    assert main(["simulate", str(DECKS / "lci_merfolk_explore.txt"), "--trials", "10",
                 "--life", value]) == 2
    err = capsys.readouterr().err.strip()
    assert "life" in err and len(err.splitlines()) == 1 and "Traceback" not in err


@pytest.mark.slow
def test_compare_shows_damage_and_opponent_dead(capsys):
    assert main(["compare", str(DECKS / "lci_merfolk_explore.txt"),
                 str(DECKS / "lci_merfolk_vanilla.txt"), "--trials", "200", "--seed", "1",
                 "--engine", "numpy", "--life", "10", "--quiet",
                 "--metrics", "damage,opponent_dead"]) == 0
    out = capsys.readouterr().out
    assert out.count("\ndamage ") == 2 and out.count("\nopponent_dead ") == 2


def test_life_sets_the_starting_life_of_the_format():
    deck = explore_sim.parse_deck("24 Forest\n36 Grizzly Bears")
    result = explore_sim.simulate(deck, trials=20, seed=1, turns=2, life=3, engine="numpy")
    assert result.meta["formats"][0]["starting_life"] == 3
    default = explore_sim.simulate(deck, trials=20, seed=1, turns=2, engine="numpy")
    assert default.meta["formats"][0]["starting_life"] == 20
