"""Scripted scenarios for the explore rules E1-E10 on hand-built library orders."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import card_id, library_of, state_of

import explore_sim
from explore_sim.analysis.explore import explore_trials
from explore_sim.cards import EMPTY, Catalog, classify_types, mana_value_of
from explore_sim.engine import rules
from explore_sim.engine.policies import KeepPolicy, MillPolicy

KEEP = np.array([False])
MILL = np.array([True])


def test_E1_land_revealed_goes_to_hand_without_counter(features):
    state = state_of(features, ["Forest", "Grizzly Bears"])
    state, events = rules.explore(state, features, MILL)
    assert events.land_to_hand.tolist() == [True]
    assert events.revealed.tolist() == [card_id("Forest")]
    assert state.counters.tolist() == [0]
    assert state.lands_in_hand.tolist() == [1]
    assert state.cards_in_hand.tolist() == [1]
    assert state.top.tolist() == [1]  # the land left the library
    assert state.graveyard.tolist() == [0]  # the mill choice does not apply to lands


@pytest.mark.parametrize("mill, top, graveyard", [(False, 0, 0), (True, 1, 1)])
def test_E2_nonland_gives_counter_then_keep_or_mill(features, mill, top, graveyard):
    state = state_of(features, ["Grizzly Bears", "Forest"])
    state, events = rules.explore(state, features, np.array([mill]))
    assert state.counters.tolist() == [1]  # the counter is not optional
    assert events.nonland.tolist() == [True]
    assert state.top.tolist() == [top]  # the choice is
    assert state.graveyard.tolist() == [graveyard]
    assert state.cards_in_hand.tolist() == [0]


def test_E3_explorer_gone_land_still_to_hand_nonland_no_counter(features):
    state = state_of(features, ["Forest", "Grizzly Bears"], ["Grizzly Bears", "Forest"],
                     explorer_present=False)
    state, events = rules.explore(state, features, np.array([True, True]))
    assert events.land_to_hand.tolist() == [True, False]
    assert state.lands_in_hand.tolist() == [1, 0]
    assert state.counters.tolist() == [0, 0]  # no counter on anything
    assert events.milled.tolist() == [False, True]  # the card may still be milled
    assert events.explored.tolist() == [True, True]  # triggers still fire


def test_E3_removal_before_explore_in_a_sequence(features):
    state = state_of(features, ["Grizzly Bears", "Queen's Agent", "Forest"])
    state, _ = rules.explore(state, features, MILL)
    state = rules.remove_explorer(state, np.array([True]))
    state, events = rules.explore(state, features, MILL)
    assert state.counters.tolist() == [1]  # the first explore's counter only
    assert events.explored.tolist() == [True]


def test_E4_empty_library_still_gets_counter_and_explores(features):
    state = state_of(features, ["Forest"], top=1)
    assert rules.reveal(state).tolist() == [EMPTY]
    state, events = rules.explore(state, features, MILL)
    assert state.counters.tolist() == [1]
    assert events.explored.tolist() == [True]
    assert events.empty.tolist() == [True]
    # Nothing was revealed: neither a land nor a nonland was explored (Nicanzil).
    assert events.land_to_hand.tolist() == [False]
    assert events.nonland.tolist() == [False]
    assert state.top.tolist() == [1]  # never past the padding


def test_E4_empty_library_through_the_api():
    deck = explore_sim.deck_from_counts([("Forest", 3), ("Grizzly Bears", 2)])
    result = explore_sim.explore(deck, explores=3, drawn=5, trials=100, seed=0)
    summary = result.summary().set_index("metric")["mean"]
    assert summary["counters"] == 3
    assert summary["explores"] == 3
    assert summary["empty_reveals"] == 3
    assert summary["lands_to_hand"] == 0


def test_E4_explorer_gone_and_empty_library_gives_nothing_but_the_explore(features):
    state = state_of(features, ["Forest"], top=1, explorer_present=False)
    state, events = rules.explore(state, features, KEEP)
    assert state.counters.tolist() == [0]
    assert events.explored.tolist() == [True]


def test_E5_noncreature_explorer_gets_the_counter():
    deck = explore_sim.deck_from_counts(
        [("Forest", 24), ("Grizzly Bears", 35), ("Shadowed Caravel", 1)]
    )
    caravel = Catalog.builtin().get("Shadowed Caravel")
    assert not caravel.is_creature and caravel.is_permanent
    result = explore_sim.explore(deck, explores=1, drawn=0, explorer="Shadowed Caravel",
                                 trials=20_000, seed=5)
    assert result.meta["library_size"] == 59  # the explorer left the library
    counters = result.summary().set_index("metric").loc["counters"]
    assert abs(counters["mean"] - 35 / 59) < 4 * counters["se"]


def test_E5_instants_and_sorceries_do_not_explore():
    deck = explore_sim.deck_from_counts([("Forest", 20), ("Enter the Unknown", 20)])
    with pytest.raises(explore_sim.OptionError, match="not a permanent"):
        explore_sim.explore(deck, explorer="Enter the Unknown", trials=10, seed=0)


def test_E6_kept_card_is_revealed_again(features):
    state = state_of(features, ["Queen's Agent", "Forest", "Forest"])
    for _ in range(3):
        state, events = rules.explore(state, features, KEEP)
        assert events.revealed.tolist() == [card_id("Queen's Agent")]
    assert state.counters.tolist() == [3]
    assert state.lands_in_hand.tolist() == [0]


def test_E6_explores_are_complete_one_after_another(features):
    libraries = library_of(["Forest", "Grizzly Bears", "Forest", "Cenote Scout"],
                           ["Grizzly Bears", "Forest", "Forest", "Forest"])
    for policy, counters, lands in [(KeepPolicy(), [1, 2], [1, 0]),
                                    (MillPolicy(), [1, 1], [1, 1])]:
        out = explore_trials(libraries, features, drawn=0, explores=2,
                             policy=policy, rng=np.random.default_rng(0))
        assert out["counters"].tolist() == counters
        assert out["lands_to_hand"].tolist() == lands
        assert out["explores"].tolist() == [2, 2]


def test_E7_kept_card_is_the_next_draw(features):
    state = state_of(features, ["Cenote Scout", "Forest"], ["Cenote Scout", "Forest"])
    state, _ = rules.explore(state, features, np.array([False, True]))
    state, drawn = rules.draw(state, features)
    assert drawn.tolist() == [card_id("Cenote Scout"), card_id("Forest")]
    assert state.lands_in_hand.tolist() == [0, 1]


def test_E8_explore_events_are_reported_after_the_whole_sequence(features):
    """Triggers wait (E8): the sequence only counts its explores; nothing it reports to the
    policy between explores (lands on the battlefield, turn) changes mid-sequence, so a
    trigger such as Nicanzil's land drop can only act after both explores."""
    libraries = library_of(["Forest", "Grizzly Bears", "Forest"])
    seen = []

    def recording_policy(obs, rng):
        seen.append((obs.lands_in_play.tolist(), obs.lands_in_hand.tolist(), obs.card.tolist()))
        return np.zeros(obs.trials, dtype=bool)

    out = explore_trials(libraries, features, drawn=0, explores=2, policy=recording_policy,
                         rng=np.random.default_rng(0), turn=3)
    assert out["explores"].tolist() == [2]  # two triggers to put on the stack afterwards
    assert [s[0] for s in seen] == [[0], [0]]  # no land put onto the battlefield mid-way
    assert [s[1] for s in seen] == [[0], [1]]  # the explored land is in hand (E1)
    assert [s[2] for s in seen] == [[card_id("Forest")], [card_id("Grizzly Bears")]]


def test_E9_targeted_explore_of_a_gone_target_does_nothing(features):
    libraries = library_of(["Forest", "Grizzly Bears"], ["Forest", "Grizzly Bears"])
    gone = np.array([True, False])
    out = explore_trials(libraries, features, drawn=0, explores=2, policy=KeepPolicy(),
                         rng=np.random.default_rng(0), explorer_gone=gone, targeted=True)
    assert out["explores"].tolist() == [0, 2]  # no explore, so no triggers
    assert out["lands_to_hand"].tolist() == [0, 1]
    assert out["counters"].tolist() == [0, 1]
    untargeted = explore_trials(libraries, features, drawn=0, explores=2,
                                policy=KeepPolicy(), rng=np.random.default_rng(0),
                                explorer_gone=gone, targeted=False)
    assert untargeted["explores"].tolist() == [2, 2]  # E3, not E9
    assert untargeted["lands_to_hand"].tolist() == [1, 1]


def test_E10_land_creature_is_a_land_card_when_explored(features):
    state = state_of(features, ["Dryad Arbor"])
    state, events = rules.explore(state, features, KEEP)
    assert events.land_to_hand.tolist() == [True]
    assert state.counters.tolist() == [0]


def test_E10_spell_land_transforming_card_is_nonland_when_explored(features):
    state = state_of(features, ["Twists and Turns"])
    state, events = rules.explore(state, features, KEEP)
    assert events.nonland.tolist() == [True]
    assert state.counters.tolist() == [1]
    twists = Catalog.builtin().get("Twists and Turns // Mycoid Maze")
    assert (twists.is_land, twists.is_land_like) == (False, False)


def test_E10_x_counts_as_zero_in_the_library():
    assert Catalog.builtin().get("Jadelight Spelunker").mana_value == 1
    assert mana_value_of("{X}{X}{R}") == 1


@pytest.mark.parametrize(
    "type_line, layout, expected",
    [
        ("Land Creature — Forest Dryad", "normal", (True, True, False)),
        ("Artifact Land", "normal", (True, False, False)),
        ("Sorcery // Land", "modal_dfc", (False, False, True)),  # spell // land MDFC
        ("Land // Land", "modal_dfc", (True, False, False)),  # Pathways
        ("Enchantment // Land — Cave", "transform", (False, False, False)),
        ("Creature — Human // Land", "transform", (False, True, False)),
        ("Creature — Giant // Sorcery — Adventure", "adventure", (False, True, False)),
        ("Instant // Sorcery", "split", (False, False, False)),
    ],
)
def test_E10_classification_by_layout(type_line, layout, expected):
    assert classify_types(type_line, layout) == expected


def test_E10_split_cards_add_both_halves():
    assert mana_value_of("{1}{R} // {2}{U}", layout="split") == 5
    assert mana_value_of("{1}{R} // {2}{U}", layout="modal_dfc") == 2
