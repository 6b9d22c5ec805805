"""``replay``: trial K of a simulate run played again, with its log.

The replay is the run's game: its metrics are the per-trial values the compiled kernel
gives for that game of that chunk (in the first chunk and in the second), and the means of
every trial's replay are simulate's; the log agrees with the metrics (land events with
``lands_played``, explore events with ``explores``, ...); writing the log changes no
number of a normal run; a trial out of range, a numpy engine and a bad deck are one-line
errors.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest
from conftest import DECKS, ROOT

import explore_sim
from explore_sim import GameConfig, MulliganRule, OptionError, as_policy, load_deck
from explore_sim.analysis.game_setup import game_mulligan
from explore_sim.analysis.runner import CHUNK_TRIALS, child_seed, chunk_seeds, seed_sequence
from explore_sim.cli import main
from explore_sim.engine.goldfish import deck_tables
from explore_sim.engine.kernel import play_games_kernel

GOLGARI = DECKS / "golgari_explore.txt"
MERFOLK = DECKS / "lci_merfolk_explore.txt"


def chunk_values(path, seed, chunk, trials, turns, on_play=True):
    """Per-trial metrics of ``trials`` games of chunk ``chunk`` of a run seeded ``seed``,
    straight from the kernel's entry point."""
    deck = load_deck(path)
    config = GameConfig(turns=turns, on_play=on_play)
    features = deck.features()
    rule = game_mulligan(MulliganRule("london"), config, features)
    return play_games_kernel(deck_tables(features, config), config, as_policy("forge"), rule,
                             trials, child_seed(seed_sequence(seed), chunk), deck.card_ids())


def assert_same_game(game, values, index):
    for name, value in game.opening.items():
        assert value == values[0][name][index], name
    for turn, row in game.metrics.iterrows():
        for name, value in row.items():
            assert value == values[turn][name][index], (turn, name)


@pytest.mark.slow
@pytest.mark.parametrize("path, on_play", [(GOLGARI, True), (MERFOLK, False)])
def test_a_replay_is_that_game_of_the_first_chunk(path, on_play):
    values = chunk_values(path, 11, 0, 40, 5, on_play)
    for trial in (0, 7, 39):
        game = explore_sim.replay(path, trial=trial, seed=11, turns=5, on_play=on_play)
        assert game.meta["chunk"] == 0 and game.meta["chunk_game"] == trial
        assert_same_game(game, values, trial)


@pytest.mark.slow
def test_a_replay_in_the_second_chunk_is_game_k_less_the_chunk_size_there():
    trials = CHUNK_TRIALS + 10
    assert [n for n, _ in chunk_seeds(trials, seed_sequence(3))] == [CHUNK_TRIALS, 10]
    values = chunk_values(GOLGARI, 3, 1, 10, 4)
    game = explore_sim.replay(GOLGARI, trial=CHUNK_TRIALS + 6, seed=3, turns=4, trials=trials)
    assert (game.meta["chunk"], game.meta["chunk_game"]) == (1, 6)
    assert_same_game(game, values, 6)


@pytest.mark.slow
def test_the_replays_of_every_trial_average_to_simulates_numbers():
    result = explore_sim.simulate(GOLGARI, turns=4, trials=12, seed=5)
    rows = result.summary().set_index(["turn", "metric"])["mean"]
    games = [explore_sim.replay(GOLGARI, trial=k, seed=5, turns=4, trials=12)
             for k in range(12)]
    for name in ("lands_played", "explores", "damage", "hand_size", "cards_cast"):
        for turn in range(1, 5):
            mean = np.mean([game.metrics.loc[turn, name] for game in games])
            assert mean == pytest.approx(rows[(turn, name)], abs=1e-12), (turn, name)


def counted(events, turn, *names):
    return int(events[(events["turn"] <= turn) & events["event"].isin(names)].shape[0])


@pytest.mark.slow
@pytest.mark.parametrize("path", [GOLGARI, MERFOLK])
def test_the_log_agrees_with_the_metrics(path):
    triggered = 0
    for trial in range(6):
        game = explore_sim.replay(path, trial=trial, seed=2, turns=6)
        events, metrics = game.events, game.metrics
        dealt = events[(events["turn"] == 0) & (events["event"] == "deal")]
        mulligans = int((events["event"] == "mulligan").sum())
        assert mulligans == game.opening["mulligans"]
        bottomed = int((events["event"] == "bottom").sum())
        assert len(dealt) - 7 * mulligans - bottomed == game.opening["hand_size"]
        for turn in range(1, 7):
            lands = counted(events, turn, "land", "land_put") - counted(events, turn,
                                                                         "land_leaves")
            assert lands == metrics.loc[turn, "lands_played"], (trial, turn)
            assert counted(events, turn, "explore") == metrics.loc[turn, "explores"]
            assert counted(events, turn, "cast") == metrics.loc[turn, "cards_cast"]
            drew = counted(events, turn, "draw") - counted(events, turn - 1, "draw")
            assert drew == (0 if turn == 1 else 1)  # on the play; no card here draws more
            end = events[(events["turn"] == turn) & (events["event"] == "end_turn")]
            assert end["detail"].iloc[0].startswith(f"{metrics.loc[turn, 'lands_played']} land")
            assert counted(events, turn, "scry") == metrics.loc[turn, "scries"]
            damage = events[(events["turn"] <= turn) & (events["event"] == "damage")]
            if len(damage):
                assert damage["detail"].iloc[-1].endswith(
                    f"({metrics.loc[turn, 'damage']} in all)")
            attacks = events[(events["turn"] == turn) & (events["event"] == "attack")]
            dealt = sum(int(re.search(r"(\d+) damage$", d).group(1)) for d in attacks["detail"])
            combat = events[(events["turn"] == turn) & (events["event"] == "damage")]
            assert dealt == (int(combat["detail"].iloc[0].split()[0]) if len(combat) else 0)
            given = events[(events["turn"] <= turn) & (events["event"] == "counters")]
            placed = sum(int(detail.split()[0]) for detail in given["detail"])
            assert placed == metrics.loc[turn, "counters"], (trial, turn)
            # explore triggers: "6 life gained (3 from each of 2)", "+2/+0 ... on each of 3"
            rows = events[(events["turn"] <= turn) & (events["event"] == "life_gained")]
            life = sum(int(detail.split()[0]) for detail in rows["detail"])
            assert life == metrics.loc[turn, "life_gained"], (trial, turn)
            rows = events[(events["turn"] <= turn) & (events["event"] == "pumped")]
            pumps = sum(int(re.match(r"\+(\d+)/", detail).group(1))
                        * int(re.search(r"each of (\d+)$", detail)[1] if "each" in detail
                              else 1) for detail in rows["detail"])
            assert pumps == metrics.loc[turn, "cave_diver_pumps"], (trial, turn)
            triggered += life + pumps
    assert triggered > 0


def life_in_log(events, turn):
    """The life the log says was paid by the end of ``turn``: lands' and mana's."""
    rows = events[events["turn"] <= turn]
    paid = 0
    for event, detail in zip(rows["event"], rows["detail"]):
        if event in ("land", "land_put"):
            found = re.search(r"(\d+) life paid$", detail)
        elif event == "life_paid":
            found = re.match(r"(\d+) for mana$", detail)
        else:
            found = re.search(r", (\d+) life paid for its mana$", detail)
        paid += int(found.group(1)) if found else 0
    return paid


@pytest.mark.slow
def test_the_log_says_the_life_paid_and_the_lands_searched_into_the_hand():
    """Every point of ``life_paid`` is in the log (a shock land's, a pain land's mana on the
    cast it paid for), and Kodama's Reach and Cultivate put one basic onto the battlefield
    and say the one they put into the hand."""
    hakbal = DECKS / "hakbal_merfolk_commander.txt"
    searches = pain = 0
    for path in (GOLGARI, hakbal):
        for trial in range(12):
            game = explore_sim.replay(path, trial=trial, seed=1, turns=6)
            events, metrics = game.events, game.metrics
            for turn in range(1, 7):
                assert life_in_log(events, turn) == metrics.loc[turn, "life_paid"], (trial, turn)
            said = events["detail"].str.contains(r"life paid for its mana|^\d+ for mana$")
            pain += int(said.sum())
            rows = list(zip(events["event"], events["card"]))
            for i, (event, card) in enumerate(rows):
                if event == "cast" and card in ("Kodama's Reach", "Cultivate"):
                    assert rows[i + 1][0] == "land_put" and rows[i + 2][0] == "searched"
                    searches += 1
    assert searches > 0 and pain > 0


@pytest.mark.slow
def test_the_log_marks_combat_and_names_who_gets_each_counter():
    """Hakbal's explores every combat and Wildgrowth Walker's counters on each explore: a
    "combat" line opens every turn's combat that does anything, and every +1/+1 counter is
    on a line naming its permanent."""
    commander = DECKS / "hakbal_merfolk_commander.txt"
    for path in (commander, GOLGARI):
        for trial in range(4):
            game = explore_sim.replay(path, trial=trial, seed=3, turns=6)
            text = game.text()
            for block in text.split("\nturn ")[1:]:
                lines = block.splitlines()
                attacks = [i for i, line in enumerate(lines) if line.startswith("  attack ")]
                if attacks:
                    assert "  combat" in lines[:attacks[0]], block
                if path == GOLGARI:  # no combat trigger: a combat line exactly where attacks are
                    assert ("  combat" in lines) == bool(attacks), block
            counters = [line for line in text.splitlines() if line.startswith("  +1/+1 counters: ")]
            deck = load_deck(path)
            names = {card.name for card in deck.cards} | {card.name for card, _ in deck.commander}
            for line in counters:
                named = line.split(" on ", 1)[1].split(" (")[0]
                assert named in names, line
    # Two Walkers in play, each given a counter by one explore: one line for both.
    walker = explore_sim.replay(GOLGARI, trial=0, seed=3, turns=6).text()
    assert "  +1/+1 counters: 2 on Wildgrowth Walker (1 on each of 2)\n" in walker


def announced(detail):
    """The explores an explore_effect line announces."""
    times = re.search(r" (\d+) times$", detail)
    return int(times.group(1)) if times else 1


@pytest.mark.slow
@pytest.mark.parametrize("path", [GOLGARI, MERFOLK, DECKS / "hakbal_merfolk_commander.txt",
                                  DECKS / "sultai_explore.txt"])
def test_every_explore_follows_the_effect_that_made_its_creature_explore(path):
    """Each explore is announced by its trigger, ability or spell (naming the card it is
    of, then the explorer), or by a Map's use; the explores announced are the explores
    made."""
    for trial in range(4):
        events = explore_sim.replay(path, trial=trial, seed=5, turns=6).events
        for turn, rows in events.groupby("turn"):
            source = None
            due = 0
            for row in rows.itertuples():
                if row.event == "explore_effect":
                    assert due == 0, (trial, turn, row.detail)  # the earlier one is done
                    source, due = row, announced(row.detail)
                    explorer = row.detail.split(" makes ", 1)[-1].rsplit(" explore", 1)[0]
                    assert row.card, row
                elif row.event == "map_used":
                    assert due == 0, (trial, turn)
                    source, due, explorer = row, 1, row.card
                elif row.event == "explore":
                    assert source is not None and due > 0, (trial, turn, row.detail)
                    assert row.detail.startswith(f"{explorer} reveals "), (row.detail, explorer)
                    due -= 1
            assert due == 0, (trial, turn)


@pytest.mark.slow
def test_a_spell_held_turn_after_turn_is_said_once():
    """Golgari's trial 63: Vraska's Contempt (its target is an opponent's) is in hand from the
    deal to the end. The events hold it every turn; the text says it on turn 1 only."""
    game = explore_sim.replay(GOLGARI, trial=63, seed=1, turns=5)
    held = game.events[(game.events["event"] == "held")
                       & (game.events["card"] == "Vraska's Contempt")]
    assert held["turn"].tolist() == [1, 2, 3, 4, 5]
    text = game.text()
    assert text.count("held Vraska's Contempt") == 1
    assert text.index("held Vraska's Contempt") < text.index("turn 2")


@pytest.mark.slow
def test_a_replay_changes_no_number_of_a_normal_run():
    before = explore_sim.simulate(MERFOLK, turns=4, trials=300, seed=9).summary()
    values = chunk_values(MERFOLK, 9, 0, 300, 4)
    explore_sim.replay(MERFOLK, trial=17, seed=9, turns=4)
    after = explore_sim.simulate(MERFOLK, turns=4, trials=300, seed=9).summary()
    again = chunk_values(MERFOLK, 9, 0, 300, 4)
    assert before.equals(after)
    for turn in values:
        for name in values[turn]:
            assert np.array_equal(values[turn][name], again[turn][name])


@pytest.mark.slow
def test_the_command_prints_the_game_turn_by_turn(capsys):
    assert main(["replay", str(GOLGARI), "--seed", "1", "--trial", "3", "--turns", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("replay: trial 3 (seed 1, 3 turns, on the play)")
    assert "opening hand\n  dealt 7: " in out and "\nturn 3\n" in out
    game = explore_sim.replay(GOLGARI, trial=3, seed=1, turns=3)
    assert out == game.text()
    assert main(["replay", str(GOLGARI), "--seed", "1", "--trial", "3", "--turns", "3",
                 "--format", "csv"]) == 0
    assert capsys.readouterr().out.startswith("turn,step,event,card,detail\n0,1,deal,")


@pytest.mark.slow
def test_the_command_replays_a_run_with_castable_cards(capsys):
    """A card named by simulate's --castable steers the land choice, so replay takes it too:
    the command plays the game explore_sim.replay plays with it, which differs from the game
    without it in some trial; an unknown name is a one-line error."""
    contempt = next(card for card in explore_sim.load_deck(GOLGARI).cards
                    if card.name == "Vraska's Contempt")
    differs = next(trial for trial in range(40)
                   if explore_sim.replay(GOLGARI, trial=trial, seed=1, turns=4,
                                         castable=[contempt]).text()
                   != explore_sim.replay(GOLGARI, trial=trial, seed=1, turns=4).text())
    assert main(["replay", str(GOLGARI), "--seed", "1", "--trial", str(differs), "--turns", "4",
                 "--castable", "Vraska's Contempt"]) == 0
    assert capsys.readouterr().out == explore_sim.replay(
        GOLGARI, trial=differs, seed=1, turns=4, castable=[contempt]).text()
    assert main(["replay", str(GOLGARI), "--seed", "1", "--castable", "Vraskas Contemp"]) == 2
    err = capsys.readouterr().err
    assert "--castable: unknown card 'Vraskas Contemp'" in err and err.count("\n") == 1


@pytest.mark.parametrize("argv, message", [
    (["--trial", "100000"], "trial must be from 0 to 99999 (the run's trials less one), got "
                            "100000"),
    (["--trial", "5", "--trials", "5"], "trial must be from 0 to 4 (the run's trials less one), "
                                        "got 5"),
    (["--trial", "-1"], "trial must be from 0 to 99999 (the run's trials less one), got -1"),
    (["--trials", "-1"], "trials must be between 2 and 10,000,000,000, got -1"),
])
def test_a_trial_out_of_range_is_a_one_line_error(capsys, argv, message):
    assert main(["replay", str(GOLGARI), "--seed", "1", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_the_function_refuses_a_trial_out_of_range_and_the_numpy_engine():
    with pytest.raises(OptionError, match=r"trial must be from 0 to 9 .* got 10"):
        explore_sim.replay(GOLGARI, trial=10, trials=10, seed=1)
    with pytest.raises(OptionError, match="trial must be a whole number"):
        explore_sim.replay(GOLGARI, trial=1.5, seed=1)
    with pytest.raises(OptionError, match="compiled kernel"):
        explore_sim.replay(GOLGARI, trial=0, seed=1, engine="numpy")


def test_a_bad_deck_is_a_one_line_error(capsys, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("4 Nonsense Card\n", encoding="utf-8")
    for path in (bad, tmp_path / "missing.txt"):
        assert main(["replay", str(path), "--seed", "1"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("explore-sim: error: ") and err.count("\n") == 1


@pytest.mark.slow
def test_without_numba_a_replay_is_a_one_line_error(tmp_path):
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "numba.py").write_text("raise ImportError(\"No module named 'numba'\")\n",
                                   encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(shim), str(ROOT)])}
    done = subprocess.run([sys.executable, "-m", "explore_sim", "replay", str(GOLGARI),
                           "--seed", "1"], capture_output=True, text=True, env=env, timeout=120,
                          check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("explore-sim: error: a replay plays the compiled kernel's game, and "
                           "numba cannot be imported (No module named 'numba'; pip install "
                           "'numba>=0.60' adds it)\n")


@pytest.mark.parametrize("metric, turn", [("counters", 4), ("lands_played", 3)])
def test_find_trial_finds_a_game_in_every_bucket_of_the_distribution(metric, turn):
    trials = 600
    result = explore_sim.simulate(MERFOLK, turns=4, trials=trials, seed=5)
    buckets = result.distribution(metric, turn)
    values = chunk_values(MERFOLK, 5, 0, trials, 4)[turn][metric]
    for value, count in zip(buckets["value"], buckets["count"]):
        trial = explore_sim.find_trial(MERFOLK, metric, turn, int(value), turns=4,
                                       trials=trials, seed=5)
        if count == 0:  # a value the run never took: no trial has it
            assert trial is None
            continue
        assert trial == int(np.flatnonzero(values == value)[0])  # the first such trial
        game = explore_sim.replay(MERFOLK, trial=trial, turns=4, trials=trials, seed=5)
        assert game.metrics.loc[turn, metric] == value  # the replayed game is in the bucket


def test_find_trial_says_none_when_no_trial_looked_at_is_in_the_bucket():
    assert explore_sim.find_trial(MERFOLK, "lands_played", 1, 7, turns=2, trials=50,
                                  seed=1) is None


def test_find_trial_finds_an_opening_hand_at_turn_0():
    """Turn 0 is the opening hand, as simulate's distribution has it: the trial found took
    two mulligans."""
    trial = explore_sim.find_trial(MERFOLK, "mulligans", 0, 2, turns=2, seed=1)
    assert trial is not None
    game = explore_sim.replay(MERFOLK, trial=trial, seed=1, turns=2)
    assert game.opening["mulligans"] == 2


def test_find_trial_refuses_a_turn_out_of_range_and_an_unknown_metric():
    with pytest.raises(OptionError, match=r"^turn must be from 0 \(the opening hand\) to 4 "
                                          r"\(the turns played\), got 5$"):
        explore_sim.find_trial(MERFOLK, "counters", 5, 0, turns=4, seed=1)
    with pytest.raises(OptionError, match=r"^turn 0 is the opening hand: its metrics are "
                                          r"mulligans, hand_size, opening_lands, not 'counters'"):
        explore_sim.find_trial(MERFOLK, "counters", 0, 0, turns=4, seed=1)
    with pytest.raises(OptionError, match="metric 'nope' is not recorded by this run"):
        explore_sim.find_trial(MERFOLK, "nope", 1, 0, turns=4, seed=1)
    with pytest.raises(OptionError, match="compiled kernel"):
        explore_sim.find_trial(MERFOLK, "counters", 1, 0, turns=4, seed=1, engine="numpy")


@pytest.mark.slow
def test_the_log_says_decked_once(tmp_path):
    """Ten cards: the library is empty from turn 5; every later draw would be from an empty
    library, and the log says so once, not at every draw."""
    deck = tmp_path / "ten.txt"
    deck.write_text("6 Forest\n4 Grizzly Bears\n")
    game = explore_sim.replay(deck, trial=0, seed=1, turns=8, mulligan="none")
    assert int((game.events["event"] == "decked").sum()) == 1
    assert game.metrics.loc[8, "decked"] == 1
