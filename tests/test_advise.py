"""advise: keep or mill from a position, both branches on the same libraries."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from conftest import DECKS, ROOT, TESTS

import explore_sim
from explore_sim.analysis import advise as advise_module
from explore_sim.analysis.advise import ADVICE_COLUMNS, advise, play_branch, position
from explore_sim.cards import EMPTY
from explore_sim.engine.goldfish import GameConfig, GameState
from explore_sim.engine.policies import as_policy
from explore_sim.errors import DeckError, OptionError, OptionWarning

SEVENS = TESTS / "fixtures" / "decks" / "scouts_and_sevens.txt"
XLN = DECKS / "xln_sultai_explore.txt"
HAKBAL = DECKS / "hakbal_merfolk_commander.txt"
#: Turn 2 on the play: two Forests (one paid for Cenote Scout), no land in hand, and the
#: Scout's explore reveals a seven-drop.
SEVEN_DROP = dict(turn=2, battlefield="2 Forest, Cenote Scout", hand="Grizzly Bears",
                  revealed="Platinum Angel")


def test_a_revealed_seven_drop_without_lands_is_milled():
    result = advise(SEVENS, **SEVEN_DROP, objectives="on_curve@5", trials=1500, seed=1)
    row = result.summary().iloc[0]
    assert list(result.summary().columns) == list(ADVICE_COLUMNS)
    assert row["objective"] == "on_curve@5" and row["verdict"] == "mill"
    assert row["ci_low"] > 0 and row["difference"] == pytest.approx(row["mill"] - row["keep"])
    # Kept on top, the Angel is turn 3's draw: no land on turn 3, so never 5 lands on turn 5.
    assert row["keep"] == 0


def test_the_two_branches_share_the_library_order(monkeypatch):
    seen = []

    def recording(pos, config, policy, mill, library, *args):
        seen.append((mill, library))
        return play_branch(pos, config, policy, mill, library, *args)

    monkeypatch.setattr(advise_module, "play_branch", recording)
    advise(SEVENS, **SEVEN_DROP, objectives="on_curve@3", trials=300, seed=2)
    assert [mill for mill, _ in seen] == [False, True]
    (_, keep), (_, mill) = seen
    np.testing.assert_array_equal(keep, mill)
    deck = explore_sim.load_deck(SEVENS)
    angel = deck.cards.index(next(c for c in deck.cards if c.name == "Platinum Angel")) + 1
    assert (keep[:, 0] == angel).all() and (keep[:, -1] == EMPTY).all()
    expected = np.bincount(keep[0, :-1], minlength=len(deck.cards) + 1)
    assert all((np.bincount(row[:-1], minlength=len(expected)) == expected).all() for row in keep)
    by_name = {card.name: int(expected[i]) for i, card in enumerate(deck.cards, start=1)}
    assert expected[0] == 0 and by_name == {  # less the known cards
        "Forest": 24 - 2, "Cenote Scout": 8 - 1, "Platinum Angel": 8 - 0, "Grizzly Bears": 20 - 1}
    assert len({row.tobytes() for row in keep}) > 250  # shuffled per trial


def test_keep_leaves_the_card_on_top_and_mill_takes_it_off_the_same_library():
    deck = explore_sim.load_deck(SEVENS)
    pos = position(deck, **SEVEN_DROP)
    library = pos.libraries(200, np.random.default_rng(0))
    config, policy = GameConfig(turns=2), as_policy("forge")
    seed = np.random.SeedSequence(1)
    (out, keep), (_, mill) = (play_branch(pos, config, policy, m, library, seed, 2)
                              for m in (False, True))
    # The Scout took one Forest: Grizzly Bears cannot be cast this turn.
    assert (out[2]["creatures"] == 1).all() and (out[2]["mana_spent"] == 0).all()
    np.testing.assert_array_equal(keep.library, library)  # the library is never rewritten
    np.testing.assert_array_equal(mill.library, library)
    assert (keep.top == 0).all() and (mill.top == 1).all()
    assert (mill.graveyard == keep.graveyard + 1).all()
    assert (keep.totals["explore_counters"] == 1).all() and (mill.totals["milled"] == 1).all()


def test_the_land_drop_is_used_once_you_control_as_many_lands_as_the_turn():
    deck = explore_sim.load_deck(SEVENS)
    config, policy, seed = GameConfig(turns=3), as_policy("keep"), np.random.SeedSequence(3)
    for lands, expected in ((3, 3), (2, 3)):  # a Forest in hand is played only with 2
        pos = position(deck, turn=3, battlefield=f"{lands} Forest, Cenote Scout", hand="Forest",
                       revealed="Platinum Angel")
        out, _ = play_branch(pos, config, policy, False,
                             pos.libraries(50, np.random.default_rng(1)), seed, 3)
        assert (out[3]["lands_played"] == expected).all()


def test_no_difference_when_the_choice_cannot_matter():
    # The objective is taken at the end of this very turn: lands are the same either way.
    result = advise(SEVENS, **SEVEN_DROP, objectives="lands_played@2", trials=200, seed=1)
    row = result.summary().iloc[0]
    assert (row["difference"], row["se"]) == (0, 0)
    assert row["verdict"] == "no clear difference"


def test_advice_is_reproducible_by_seed():
    first = advise(SEVENS, **SEVEN_DROP, objectives="mana_spent@5", trials=300, seed=7)
    again = advise(SEVENS, **SEVEN_DROP, objectives="mana_spent@5", trials=300, seed=7)
    assert first.summary().equals(again.summary())
    assert first.meta["seed"] == 7 and first.meta["position"]["library"] == 60 - 4


@pytest.mark.slow
def test_a_position_with_a_commander_on_the_battlefield():
    result = advise(HAKBAL, turn=4, explorer="Cenote Scout", explorer_cast=False,
                    battlefield="2 Forest, Island, Command Tower, Hakbal of the Surging Soul, "
                                "Cenote Scout",
                    revealed="Jadelight Ranger", objectives="lands_played@5", trials=200, seed=1)
    assert result.meta["game"] == "commander"
    assert result.meta["position"]["library"] == 99 - 5


def test_position_state_counts_the_library():
    deck = explore_sim.load_deck(SEVENS)
    pos = position(deck, **SEVEN_DROP)
    library = pos.libraries(5, np.random.default_rng(0))
    state = GameState.from_position(library, pos.features, turn=2, hand=pos._vector(pos.hand),
                                    battlefield=pos._vector(pos.battlefield), land_drops=0)
    assert (state.library_lands == 22).all() and (state.end == library.shape[1] - 1).all()
    assert state.played_land.all() and state.turn == 2
    with pytest.raises(ValueError, match="EMPTY"):
        GameState.from_position(library[:, :-1], pos.features, turn=2,
                                hand=pos._vector(pos.hand), battlefield=pos._vector(pos.hand))


@pytest.mark.parametrize("deck, changes, error, message", [
    (SEVENS, {"revealed": "Forest"}, OptionError, "is a land"),
    (SEVENS, {"revealed": "Jadelight Ranger"}, DeckError, "not in the deck"),
    (SEVENS, {"hand": "Platinum Angle"}, DeckError, "did you mean 'Platinum Angel'"),
    (SEVENS, {"battlefield": "25 Forest, Cenote Scout"}, DeckError, "the deck has 24"),
    (SEVENS, {"hand": "8 Platinum Angel"}, DeckError, "the deck has 8"),  # 9 with the revealed
    (SEVENS, {"battlefield": "Cenote Scout"}, OptionError, "cannot have paid"),
    (SEVENS, {"turn": 0}, OptionError, "turn must be"),
    (SEVENS, {"explores_left": 0}, OptionError, "explores_left"),
    (SEVENS, {"objectives": "on_curve@1"}, OptionError, "before the position's turn 2"),
    (SEVENS, {"objectives": "on_curv@3"}, OptionError, "did you mean"),
    (SEVENS, {"battlefield": "2 Forest, Cenote Scout, Grizzly Bears"}, OptionError,
     "name the card that explores"),
    (SEVENS, {"phase": "combat"}, OptionError, "phase must be"),
    (HAKBAL, {"battlefield": "2 Forest, Cenote Scout", "hand": "Hakbal of the Surging Soul",
              "revealed": "Jadelight Ranger"}, DeckError, "is the commander"),
    (HAKBAL, {"battlefield": "3 Forest, Topography Tracker, Cenote Scout", "hand": "",
              "explorer": "Cenote Scout", "revealed": "Jadelight Ranger"}, OptionError,
     "Topography Tracker would replace"),
])
def test_impossible_positions_are_refused(deck, changes, error, message):
    if "Grizzly Bears" in changes.get("battlefield", ""):
        changes = {**changes, "battlefield": "2 Forest, Grizzly Bears"}
    with pytest.raises(error, match=message):
        advise(deck, **{**SEVEN_DROP, **changes}, trials=10)


@pytest.mark.slow
def test_advise_command_line(tmp_path):
    base = [sys.executable, "-m", "explore_sim", "advise", str(SEVENS), "--turn", "2",
            "--battlefield", "2 Forest, Cenote Scout", "--hand", "Grizzly Bears"]
    run = subprocess.run([*base, "--revealed", "Platinum Angel", "--objective",
                          "on_curve@5,mana_spent@6", "--trials", "400", "--seed", "1",
                          "--format", "csv"], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    header, *rows = run.stdout.splitlines()
    assert header.split(",") == list(ADVICE_COLUMNS)
    assert rows[0].startswith("on_curve@5,") and rows[0].endswith(",mill")
    table = subprocess.run([*base, "--revealed", "Platinum Angel", "--trials", "200", "--seed",
                            "1"], capture_output=True, text=True, cwd=ROOT)
    assert "on_curve@3" in table.stdout and "mana_spent@5" in table.stdout  # the defaults
    bad = subprocess.run([*base, "--revealed", "Forest"], capture_output=True, text=True,
                         cwd=ROOT)
    assert bad.returncode == 2 and "is a land" in bad.stderr and "Traceback" not in bad.stderr


MERFOLK = DECKS / "lci_merfolk_explore.txt"
SPELUNKER = dict(turn=3, battlefield="Forest, Island, Forest, Jadelight Spelunker",
                 hand="Cenote Scout", revealed="Deepfathom Echo")


def test_an_x_explorer_cast_this_turn_paid_x_for_the_explores_left():
    """Jadelight Spelunker exploring twice paid X = 2: all three lands, so the Cenote Scout in
    hand waits; exploring once (X = 1) left a land for it. X above the mana is refused."""
    spent = {left: advise(MERFOLK, **SPELUNKER, explores_left=left, objectives="mana_spent@3",
                          trials=200, seed=1).summary().iloc[0]["keep"]
             for left in (1, 2)}
    assert spent == {1: 1.0, 2: 0.0}
    with pytest.raises(OptionError, match=r"cannot have paid Jadelight Spelunker's \{X\}\{G\} "
                                          r"with X = 3 this turn"):
        advise(MERFOLK, **SPELUNKER, explores_left=3, trials=200, seed=1)


def test_more_explores_left_than_an_explorer_makes_is_refused():
    """Cenote Scout cast this turn explores once as it enters: two explores left cannot be;
    Jadelight Ranger's two can."""
    with pytest.raises(OptionError, match="Cenote Scout explores 1 time as it enters, so 2 "
                                          "explores cannot be left"):
        position(explore_sim.load_deck(MERFOLK), turn=2, battlefield="Forest, Island, Cenote Scout",
                 revealed="Deepfathom Echo", explores_left=2)
    pos = position(explore_sim.load_deck(XLN), turn=3, revealed="Lurking Chupacabra",
                   battlefield="Forest, Swamp, Woodland Cemetery, Jadelight Ranger",
                   explores_left=2)
    assert pos.explores_left == 2


#: Turn 3, second main phase: a Map made Jadelight Spelunker (in play) explore; two lands.
MAPPED = dict(turn=3, battlefield="Forest, Island, Jadelight Spelunker", hand="Cenote Scout",
              revealed="Deepfathom Echo", explorer_cast=False, phase="main2")


def test_mana_used_this_turn_stays_tapped():
    """The Map's {1} (mana_used=1) is paid with the Island, so the Forest still casts the
    Cenote Scout in hand; with both lands used it waits; more than the lands make is refused."""
    spent = {used: advise(MERFOLK, **MAPPED, mana_used=used, objectives="mana_spent@3",
                          trials=100, seed=1).summary().iloc[0]["keep"]
             for used in (0, 1, 2)}
    assert spent == {0: 1.0, 1: 1.0, 2: 0.0}
    result = advise(MERFOLK, **MAPPED, mana_used=1, objectives="mana_spent@3", trials=50, seed=1)
    assert result.meta["position"]["mana_used"] == 1
    assert "1 mana used before the explore" in result.render()
    with pytest.raises(OptionError, match="mana_used: your sources make 2 mana, less than the 3 "
                                          "used this turn"):
        advise(MERFOLK, **MAPPED, mana_used=3, trials=50, seed=1)
    with pytest.raises(OptionError, match="mana_used must be a whole number from 0"):
        advise(MERFOLK, **MAPPED, mana_used=-1, trials=50, seed=1)


def test_map_tokens_in_play_are_used_as_the_game_uses_its_own():
    """A second Map (maps=1) is used for {1} in the same second main phase when a land is
    left, else on the next turn; a Map named as a card is refused with a pointer to maps."""
    position = dict(MAPPED, hand=())

    def used(maps, mana_used, turn):
        return advise(MERFOLK, **position, maps=maps, mana_used=mana_used,
                      objectives=f"maps_used@{turn}", trials=50,
                      seed=1).summary().iloc[0]["keep"]

    assert (used(0, 1, 3), used(1, 1, 3), used(1, 2, 3), used(1, 2, 4)) == (0.0, 1.0, 0.0, 1.0)
    result = advise(MERFOLK, **position, maps=2, trials=50, seed=1)
    assert result.meta["position"]["maps"] == 2 and "2 Map tokens in play" in result.render()
    with pytest.raises(OptionError, match="battlefield: a Map is a token, not a card of the "
                                          r"deck: give the Map tokens you control as maps=N"):
        advise(MERFOLK, **dict(MAPPED, battlefield="Forest, Island, Map, Jadelight Spelunker"),
               trials=50, seed=1)
    with pytest.raises(OptionError, match="maps must be a whole number from 0 to 20"):
        advise(MERFOLK, **position, maps=21, trials=50, seed=1)


def test_mana_used_beside_an_explorer_cast_this_turn():
    """Three lands paid Jadelight Spelunker's X = 2: none is left for one more mana."""
    with pytest.raises(OptionError, match=r"cannot have paid Jadelight Spelunker's \{X\}\{G\} "
                                          r"with X = 2 and 1 mana more this turn"):
        advise(MERFOLK, **SPELUNKER, explores_left=2, mana_used=1, trials=50, seed=1)
    spent = advise(MERFOLK, **SPELUNKER, explores_left=1, mana_used=1,
                   objectives="mana_spent@3", trials=50, seed=1).summary().iloc[0]["keep"]
    assert spent == 0.0  # X = 1 and one more: no land left for the Cenote Scout


def test_advise_mana_used_on_the_command_line():
    base = [sys.executable, "-m", "explore_sim", "advise", str(MERFOLK), "--turn", "3",
            "--battlefield", "Forest, Island, Jadelight Spelunker", "--explorer-in-play",
            "--revealed", "Deepfathom Echo", "--phase", "main2", "--trials", "50", "--quiet"]
    maps = subprocess.run([*base, "--maps", "1", "--mana-used", "1"], capture_output=True,
                          text=True, cwd=ROOT)
    assert maps.returncode == 0 and "1 Map token in play" in maps.stdout
    bad = subprocess.run([*base, "--mana-used", "5"], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().endswith("--mana-used: your sources make 2 mana, less than the 5 "
                                       "used this turn")


def test_more_lands_than_land_drops_is_told_and_taken_as_given():
    """Three lands on turn 1 (a typo, or ramp) is said in a warning; the position stands."""
    with pytest.warns(OptionWarning, match="battlefield: 3 lands on turn 1, more than one "
                                           "land drop a turn gives"):
        pos = position(explore_sim.load_deck(SEVENS), **{**SEVEN_DROP, "turn": 1,
                                                         "battlefield": "3 Forest, Cenote Scout"})
    assert pos.turn == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        position(explore_sim.load_deck(SEVENS), **SEVEN_DROP)  # two lands on turn 2: quiet
