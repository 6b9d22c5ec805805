"""Scripted goldfish games on hand-built libraries: each turn step and each card behaviour.

Libraries are listed top card first; permanents given on the battlefield are not summoning
sick. Test names cite the explore rule items (E1-E10, M1-M6, R1-R3) they check.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from conftest import both_engines, fixture_cards, scripted_game

from explore_sim.cards import Card
from explore_sim.engine.goldfish import GameConfig


def metrics(game, state):
    return {name: int(value[0]) for name, value in game.turn_metrics(state).items()}


def play(game, state, turns=1):
    for _ in range(turns):
        game.play_turn(state)
    return metrics(game, state)


# ---------------------------------------------------------------- turn steps


def test_no_draw_on_turn_one_on_the_play_but_on_the_draw():
    for on_play, hand in [(True, 1), (False, 2)]:
        game, state, _ = scripted_game(["Grizzly Bears"] * 3, hand=["Grizzly Bears"],
                                       config=GameConfig(on_play=on_play))
        game.untap_and_draw(state)
        assert state.hand.sum() == hand


def test_land_drop_gives_mana_and_on_curve():
    game, state, ids = scripted_game(["Forest"] * 5, hand=["Forest", "Forest"])
    m = play(game, state)
    assert (m["lands_played"], m["land_drop"], m["on_curve"]) == (1, 1, 1)
    m = play(game, state)
    assert (m["lands_played"], m["on_curve"]) == (2, 1)
    assert game.available_mana(state)[0] == 2  # each Forest taps for G, nothing to cast


def test_missed_land_drop():
    game, state, _ = scripted_game(["Grizzly Bears"] * 5, hand=["Forest"])
    play(game, state)
    m = play(game, state)
    assert (m["land_drop"], m["on_curve"], m["lands_played"]) == (0, 0, 1)


def test_cast_priority_explore_makers_first():
    game, state, ids = scripted_game(["Grizzly Bears"] * 4, hand=["Grizzly Bears", "Cenote Scout"],
                                     battlefield=["Forest"])
    m = play(game, state)  # 1 mana: Cenote Scout (explores) over nothing else castable
    assert m["cards_cast"] == 1 and state.battlefield[0, ids["Cenote Scout"]] == 1


def test_cast_priority_prefers_explorer_over_cheaper_spell():
    game, state, ids = scripted_game(["Grizzly Bears"] * 4,
                                     hand=["Grizzly Bears", "Merfolk Branchwalker", "Forest"],
                                     battlefield=["Forest"])
    play(game, state)  # 2 mana: Branchwalker (explores) rather than Grizzly Bears
    assert state.battlefield[0, ids["Merfolk Branchwalker"]] == 1
    assert state.hand[0, ids["Grizzly Bears"]] == 1


@pytest.mark.parametrize("hand", [["Grizzly Bears", "Simic Signet"],
                                  ["Simic Signet", "Grizzly Bears"]])
def test_cast_priority_ties_go_to_the_mana_source_whichever_comes_first(hand):
    # Both cost 2 and neither explores nor makes Maps; 2 mana casts one of them only.
    game, state, ids = scripted_game(["Merfolk Cave-Diver"] * 4, hand=hand,
                                     battlefield=["Forest", "Forest"])
    m = play(game, state)
    assert m["cards_cast"] == 1
    assert state.battlefield[0, ids["Simic Signet"]] == 1
    assert state.hand[0, ids["Grizzly Bears"]] == 1


#: A second vanilla {1}{G} creature, for ties with Grizzly Bears.
ALPHA_BEAR = Card(name="Alpha Bear", mana_cost="{1}{G}", type_line="Creature — Bear", power=2,
                  toughness=2)


@pytest.mark.parametrize("hand", [["Grizzly Bears", "Alpha Bear"],
                                  ["Alpha Bear", "Grizzly Bears"]])
def test_cast_priority_ties_go_to_the_lower_id(hand):
    # Both cost {1}{G}, neither explores, makes Maps or mana: the casting order's last rule
    # casts the one of lower id (a decklist's ids go by name; here, by first mention).
    game, state, ids = scripted_game(["Merfolk Cave-Diver"] * 4, hand=hand,
                                     battlefield=["Forest", "Forest"], cards=[ALPHA_BEAR])
    m = play(game, state)
    first, second = sorted(hand, key=ids.get)
    assert m["cards_cast"] == 1
    assert state.battlefield[0, ids[first]] == 1 and state.hand[0, ids[second]] == 1


def test_an_explore_payoff_is_cast_before_the_explorers_it_counts():
    """Wildgrowth Walker (a counter and 3 life whenever a creature you control explores) is
    cast before Enter the Unknown when the mana pays both, so the explore triggers it; cast
    after, as an explore maker first would have it, it missed the trigger. When the mana pays
    one only, the explorer comes first. Lurking Chupacabra's trigger needs an opponent's
    creature: it is no payoff here."""
    game, state, ids = scripted_game(["Grizzly Bears"] * 4,
                                     hand=["Enter the Unknown", "Wildgrowth Walker"],
                                     battlefield=["Forest", "Forest", "Forest", "Cenote Scout"])
    m = play(game, state)
    assert m["cards_cast"] == 2 and m["life_gained"] == 3
    # Two mana pay one of them only: the explorer, which may find a land, comes first.
    game, state, ids = scripted_game(["Grizzly Bears"] * 4,
                                     hand=["Merfolk Branchwalker", "Wildgrowth Walker"],
                                     battlefield=["Forest", "Forest"])
    m = play(game, state)
    assert m["cards_cast"] == 1 and state.hand[0, ids["Wildgrowth Walker"]] == 1
    # A payoff the order would cast first anyway stays first: Merfolk Cave-Diver ({2}{U})
    # before Grizzly Bears, the most expensive first.
    game, state, ids = scripted_game(["Grizzly Bears"] * 4,
                                     hand=["Grizzly Bears", "Merfolk Cave-Diver"],
                                     battlefield=["Forest", "Island", "Island"])
    play(game, state)
    assert state.battlefield[0, ids["Merfolk Cave-Diver"]] == 1
    game, state, ids = scripted_game(["Grizzly Bears"] * 4,
                                     hand=["Lurking Chupacabra", "Merfolk Branchwalker"],
                                     battlefield=["Swamp", "Forest", "Forest", "Forest"])
    play(game, state)  # 4 mana: the explorer first, then too little for the Chupacabra
    assert state.battlefield[0, ids["Merfolk Branchwalker"]] == 1
    assert state.hand[0, ids["Lurking Chupacabra"]] == 1


def test_cast_order_overrides_priority():
    game, state, ids = scripted_game(["Grizzly Bears"] * 4,
                                     hand=["Grizzly Bears", "Merfolk Branchwalker", "Forest"],
                                     battlefield=["Forest"],
                                     config=GameConfig(cast_order=("Grizzly Bears",)))
    play(game, state)
    assert state.battlefield[0, ids["Grizzly Bears"]] == 1


def test_jadelight_spelunker_takes_the_mana_left():
    game, state, ids = scripted_game(["Grizzly Bears"] * 6, hand=["Jadelight Spelunker", "Forest"],
                                     battlefield=["Forest"] * 3)
    m = play(game, state)  # 4 mana: X = 3
    assert m["explores"] == 3 and m["mana_spent"] == 4
    assert m["explore_counters"] == 3  # keep: the same Bears is revealed three times (E6)


def test_jadelight_spelunker_waits_for_x_of_at_least_one():
    game, state, ids = scripted_game(["Grizzly Bears"] * 4, hand=["Jadelight Spelunker"],
                                     battlefield=["Forest"])
    m = play(game, state)
    assert m["cards_cast"] == 0


def test_second_main_phase_plays_a_land_found_in_combat():
    # No land in hand; Deepfathom Echo explores at the beginning of combat and finds a
    # Forest, which is played in the second main phase.
    game, state, _ = scripted_game(["Forest", "Grizzly Bears"], hand=[],
                                   battlefield=["Deepfathom Echo"] + ["Forest"] * 2)
    m = play(game, state)
    assert (m["explore_lands"], m["land_drop"], m["lands_played"]) == (1, 1, 3)
    # If it finds a nonland instead, there is no land drop.
    game, state, _ = scripted_game(["Grizzly Bears", "Forest"], hand=[],
                                   battlefield=["Deepfathom Echo"] + ["Forest"] * 2)
    m = play(game, state)
    assert (m["explores"], m["explore_counters"], m["land_drop"]) == (1, 1, 0)


def test_cleanup_discards_down_to_seven():
    game, state, _ = scripted_game(["Forest"] * 3, hand=["Queen's Agent"] * 9)
    m = play(game, state)
    assert m["hand_size"] == 7


def test_cleanup_discards_a_spell_never_cast_then_surplus_lands_then_the_dearest_spell():
    """Ten cards, three to go. Get Lost (never cast) first; with three lands in play and six
    in hand, nine lands against Harmonize's 4: two Forests are surplus and go, the spells
    stay. With one land in play and three in hand, four lands just reach Harmonize: no land
    is surplus, and Harmonize (the dearest spell) goes."""
    hand = ["Get Lost", "Harmonize", "Jadelight Ranger", "Grizzly Bears"] + ["Forest"] * 6
    game, state, ids = scripted_game([], hand=hand, battlefield=["Forest"] * 3)
    game.cleanup(state)
    held = {name: int(state.hand[0, i]) for name, i in ids.items() if state.hand[0, i]}
    assert held == {"Harmonize": 1, "Jadelight Ranger": 1, "Grizzly Bears": 1, "Forest": 4}
    hand = ["Harmonize", "Jadelight Ranger"] + ["Grizzly Bears"] * 3 + ["Forest"] * 3
    game, state, ids = scripted_game([], hand=hand, battlefield=["Forest"])
    game.cleanup(state)
    held = {name: int(state.hand[0, i]) for name, i in ids.items() if state.hand[0, i]}
    assert held == {"Jadelight Ranger": 1, "Grizzly Bears": 3, "Forest": 3}


def test_cleanup_discards_lands_of_the_kind_held_most():
    """Nine cards in hand on the play: a Swamp goes down for Seekers' Squire ({1}{B}); of
    the eight left one must go, and it is a surplus land: a Swamp (four held), not the only
    Forest, which the first by name would be. The Forest then casts the Grizzly Bears drawn
    ({1}{G}): one more spell by turn 4 and never colour-screwed, in both engines, game by
    game. Then, in the NumPy engine's cleanup alone: two lands to go from Forest, four
    Islands and three Swamps: two Islands (four held, then three held, tied with the Swamps:
    the lower id)."""
    names = ("hand_size", "cards_cast", "colour_screwed")
    games = both_engines(["Grizzly Bears"] * 8, ["Forest"] + ["Swamp"] * 5
                         + ["Seekers' Squire"] * 3, names, turns=4)
    assert games["kernel"] == games["numpy"]
    numpy = games["numpy"]
    assert numpy[1]["hand_size"] == 7
    assert [numpy[t]["colour_screwed"] for t in (2, 3, 4)] == [0, 0, 0]
    assert numpy[4]["cards_cast"] == 4
    hand = ["Forest"] + ["Island"] * 4 + ["Swamp"] * 3 + ["Seekers' Squire"]
    game, state, ids = scripted_game([], hand=hand, battlefield=["Swamp"] * 3)
    game.cleanup(state)
    held = {name: int(state.hand[0, i]) for name, i in ids.items() if state.hand[0, i]}
    assert held == {"Forest": 1, "Island": 2, "Swamp": 3, "Seekers' Squire": 1}


def test_the_kernels_cleanup_discards_lands_of_the_kind_held_most():
    """The compiled game's log on turn 1: a Swamp played for Seekers' Squire; of Forest, four
    Islands and three Swamps, two Islands go (four held, then three tied with the Swamps:
    the lower id), noted as one discard; from a hand of thirteen, five: Island, Island,
    Swamp, Island, Swamp."""
    import golden_games as golden

    from explore_sim.cards.decklist import Deck
    from explore_sim.engine.policies import as_policy

    catalog = fixture_cards()
    for hand, expected in (
            (["Forest"] + ["Island"] * 4 + ["Swamp"] * 4 + ["Seekers' Squire"],
             ["discard Island (2 copies to the hand limit)"]),
            (["Forest"] + ["Island"] * 5 + ["Swamp"] * 5 + ["Seekers' Squire"] * 2,
             ["discard Island (2 copies to the hand limit)",
              "discard Swamp (1 copy to the hand limit)",
              "discard Island (1 copy to the hand limit)",
              "discard Swamp (1 copy to the hand limit)"])):
        library = [*hand[:7], *hand[7:], *["Grizzly Bears"] * 5]  # the first seven: the hand
        names = [*dict.fromkeys(library)]
        deck = Deck("lands", tuple((catalog.get(n), library.count(n)) for n in names))
        opening = golden.opening_of(deck, [golden.library_ids(deck, library)])
        opening.hand[0] = 0
        for name in hand:
            opening.hand[0, deck.features().id_of(catalog.get(name))] += 1
        opening.top[0] = len(hand)
        setup = golden.Setup(GameConfig(turns=1), as_policy("keep"))
        _, log = golden.play_kernel(deck, setup, opening)
        lines = [line.strip() for line in log.splitlines() if "discard" in line]
        assert lines == expected, log


def test_drawing_from_an_empty_library_is_recorded():
    game, state, _ = scripted_game(["Forest"], hand=[], config=GameConfig(on_play=False))
    m = play(game, state)
    assert m["decked"] == 0
    m = play(game, state)
    assert m["decked"] == 1


def test_E7_kept_card_is_drawn_next_turn():
    game, state, ids = scripted_game(["Queen's Agent", "Forest"], hand=["Cenote Scout"],
                                     battlefield=["Forest"])
    play(game, state)  # Scout explores: Queen's Agent kept on top
    assert state.hand[0, ids["Queen's Agent"]] == 0
    play(game, state)
    assert state.hand[0, ids["Queen's Agent"]] == 1


def test_E4_explore_of_empty_library_in_game():
    game, state, _ = scripted_game([], hand=["Cenote Scout"], battlefield=["Forest"],
                                   extra=["Wildgrowth Walker"])
    m = play(game, state)
    assert (m["explores"], m["explore_counters"]) == (1, 1)


# ---------------------------------------------------------------- explore triggers (E8)


def test_E8_jadelight_with_wildgrowth_walker_two_explores_then_two_triggers():
    game, state, _ = scripted_game(["Forest", "Grizzly Bears", "Forest"], hand=["Jadelight Ranger"],
                                   battlefield=["Forest"] * 3 + ["Wildgrowth Walker"])
    m = play(game, state)
    assert m["explores"] == 2
    assert m["trigger_counters"] == 2 and m["life_gained"] == 6
    assert m["counters"] == m["explore_counters"] + 2


def test_E8_nicanzil_land_trigger_after_the_whole_explore():
    """Jadelight explores Forest then Bears; the policy sees no extra land on the
    battlefield during the explores; Nicanzil puts the land in afterwards, tapped."""
    seen = []

    def recording(obs, rng):
        seen.append(int(obs.lands_in_play[0]))
        return np.zeros(obs.trials, dtype=bool)

    game, state, ids = scripted_game(["Forest", "Grizzly Bears"],
                                     hand=["Jadelight Ranger", "Forest"],
                                     battlefield=["Forest"] * 2 + ["Nicanzil, Current Conductor"],
                                     policy=recording)
    game.untap_and_draw(state)  # on the play: no draw
    game.main_phase(state, second=False)  # the Forest in hand is the turn's land drop
    assert seen == [3, 3]
    m = metrics(game, state)
    assert m["nicanzil_lands"] == 1 and m["lands_played"] == 4
    assert m["trigger_counters"] == 1  # the nonland half: +1/+1 counter on Nicanzil
    assert game.available_mana(state)[0] == 0  # the land came in tapped


@pytest.mark.slow
def test_nicanzil_declines_a_land_the_turns_land_drop_can_play_untapped():
    """Turn 3: no land in hand; Cenote Scout explores a Forest into it. Nicanzil's "you may"
    is declined: the Forest is the turn's land drop, untapped. Both engines."""
    from conftest import both_engines

    names = ("lands_played", "land_drop", "nicanzil_lands", "lands_put", "mana_available")
    agent = "Queen's Agent"
    games = both_engines([agent, "Cenote Scout", "Forest", agent, agent],
                         ["Forest", "Island", "Nicanzil, Current Conductor", agent, agent, agent,
                          agent], names, turns=3)
    assert games["kernel"] == games["numpy"]
    turn3 = games["numpy"][3]
    assert (turn3["lands_played"], turn3["land_drop"], turn3["nicanzil_lands"],
            turn3["lands_put"]) == (3, 1, 0, 0)


def test_E4_nicanzil_does_not_trigger_on_an_empty_library():
    game, state, _ = scripted_game([], hand=["Cenote Scout", "Forest"],
                                   battlefield=["Forest", "Nicanzil, Current Conductor"])
    m = play(game, state)
    assert m["explores"] == 1 and m["trigger_counters"] == 0 and m["nicanzil_lands"] == 0


@pytest.mark.parametrize("card, metric, per_explore", [
    ("Shadowed Caravel", "trigger_counters", 1),
    ("Merfolk Cave-Diver", "cave_diver_pumps", 1),
    ("Lurking Chupacabra", "chupacabra_triggers", 1),
])
def test_explore_triggers_count_each_explore(card, metric, per_explore):
    game, state, _ = scripted_game(["Grizzly Bears"] * 3, hand=["Jadelight Ranger"],
                                   battlefield=["Forest"] * 3 + [card])
    m = play(game, state)
    assert m[metric] == 2 * per_explore


# ---------------------------------------------------------------- removal (E3, E9)


def test_E3_removed_explorer_still_explores_without_counters():
    game, state, ids = scripted_game(["Grizzly Bears", "Forest", "Grizzly Bears"],
                                     hand=["Jadelight Ranger"],
                                     battlefield=["Forest"] * 3 + ["Wildgrowth Walker"],
                                     config=GameConfig(removal=1.0), policy="mill")
    m = play(game, state)
    assert m["explores"] == 2 and m["explore_counters"] == 0
    assert m["explore_lands"] == 1 and m["milled"] == 1  # may still mill (E3)
    assert m["trigger_counters"] == 2  # Walker still triggers
    assert m["explorers_removed"] == 1
    assert state.battlefield[0, ids["Jadelight Ranger"]] == 0


def test_E9_map_whose_target_is_removed_does_nothing_and_is_used_up():
    game, state, ids = scripted_game(["Forest"] * 3, hand=[],
                                     battlefield=["Forest", "Grizzly Bears"],
                                     extra=["Spyglass Siren"], config=GameConfig(removal=1.0))
    state.maps[0] = 1
    m = play(game, state)
    assert m["maps_used"] == 1 and m["explores"] == 0 and m["explore_lands"] == 0
    assert state.maps[0] == 0  # M2: sacrificed anyway


# ---------------------------------------------------------------- Map tokens (M1-M6)


def test_M1_M2_M5_map_made_and_used_the_same_turn_for_one_mana():
    game, state, ids = scripted_game(["Forest", "Grizzly Bears"], hand=["Spyglass Siren"],
                                     battlefield=["Island"] * 2)
    m = play(game, state)  # Siren (U) makes a Map; the Map ({1}) is used at once (M5)
    assert (m["maps_created"], m["maps_used"], m["mana_spent"]) == (1, 1, 2)
    assert m["explore_lands"] == 1  # the Siren explored the Forest (M1)
    assert state.maps[0] == 0


def test_M3_maps_wait_for_the_second_main_phase():
    game, state, _ = scripted_game(["Forest"] * 3, hand=["Spyglass Siren", "Grizzly Bears"],
                                   battlefield=["Island", "Forest"])
    play(game, state)  # 2 mana: Siren, then 1 left: Bears cannot be cast, Map used after
    assert state.totals["maps_used"][0] == 1 and state.totals["cards_cast"][0] == 1


def test_M3_a_map_uses_mana_left_in_the_pool_before_the_first_main_phase_ends():
    """Turn 4: Golgari Rot Farm taps a Forest for {G} and returns it; nothing can be cast,
    and that {G} would empty at the end of the phase. It pays a Map there (no other source
    is tapped), so the Sentinel attacks with the explore's +1/+1 counter: 4 damage, not 3.
    The Sentinel's attack Map uses a Forest in the second main phase. Both engines, game by
    game."""
    names = ("maps_used", "mana_spent", "damage", "explore_counters")
    library = ["Get Lost", "Forest", "Golgari Rot Farm"] + ["Get Lost"] * 8
    hand = ["Forest", "Forest", "Sentinel of the Nameless City", "Get Lost", "Get Lost"]
    games = both_engines(library, hand, names, turns=4)
    assert games["kernel"] == games["numpy"]
    turn_3, turn_4 = games["numpy"][3], games["numpy"][4]
    assert (turn_4["maps_used"], turn_4["explore_counters"]) == (2, 2)
    assert turn_4["mana_spent"] - turn_3["mana_spent"] == 2  # the pool's {G} and a Forest
    assert turn_4["damage"] - turn_3["damage"] == 4  # 3 power and the counter


def test_M3_only_the_pool_pays_maps_in_the_first_main_phase():
    """Turn 5: two Maps held, and the second Golgari Rot Farm's returned Forest left {G} in
    the pool: one Map is paid with it before combat; the other waits for the second main
    phase, though the first Rot Farm could pay it (its mana is not in the pool). Both
    engines, game by game (3 + 2 damage on turn 5: one counter before combat), and the
    kernel's log."""
    import golden_games as golden

    from explore_sim.cards.decklist import Deck
    from explore_sim.engine.policies import as_policy

    hand = ["Forest"] * 3 + ["Cartographer's Companion"] * 2 + ["Get Lost"] * 2
    library = ["Get Lost", "Get Lost", "Golgari Rot Farm", "Golgari Rot Farm"] + ["Get Lost"] * 6
    names = ("maps_used", "damage")
    games = both_engines(library, hand, names, turns=5)
    assert games["kernel"] == games["numpy"]
    turn_4, turn_5 = games["numpy"][4], games["numpy"][5]
    assert (turn_5["maps_used"], turn_5["damage"] - turn_4["damage"]) == (2, 5)
    catalog = fixture_cards()
    cards = [*hand, *library]
    deck = Deck("pool", tuple((catalog.get(n), cards.count(n)) for n in dict.fromkeys(cards)))
    opening = golden.opening_of(deck, [golden.library_ids(deck, cards)])
    _, log = golden.play_kernel(deck, golden.Setup(GameConfig(turns=5), as_policy("keep")),
                                opening)
    turn_5_log = log.split("turn 5")[1]
    before_combat = turn_5_log.split("combat")[0]
    assert before_combat.count("map used") == 1
    assert "paid with mana left in the pool" in before_combat
    assert turn_5_log.count("map used") == 2


def test_M4_no_creature_no_map_activation():
    game, state, _ = scripted_game(["Forest"] * 3, hand=[], battlefield=["Forest"] * 2,
                                   extra=["Spyglass Siren"])
    state.maps[0] = 2
    m = play(game, state)
    assert m["maps_used"] == 0 and state.maps[0] == 2


def test_maps_can_be_turned_off():
    game, state, _ = scripted_game(["Forest"] * 3, hand=["Spyglass Siren"],
                                   battlefield=["Island"] * 2, config=GameConfig(use_maps=False))
    m = play(game, state)
    assert m["maps_created"] == 1 and m["maps_used"] == 0


@pytest.mark.parametrize("target", ["opponent", ""])
def test_M6_worldwalker_helm_adds_a_map_and_get_lost_gives_none(target):
    """Get Lost's target is an opponent's: held in a goldfish game. Without its target (a card
    file that omits it), none of its effects is played either (its Maps are the opponent's):
    held all the same, no Map for you."""
    get_lost = dataclasses.replace(fixture_cards().get("Get Lost"), target=target)
    game, state, _ = scripted_game(["Forest"] * 4, hand=["Spyglass Siren", "Get Lost"],
                                   battlefield=["Worldwalker Helm", "Island", "Plains", "Plains"],
                                   config=GameConfig(use_maps=False), cards=[get_lost])
    game.untap_and_draw(state)
    game.main_phase(state, second=False)
    assert state.totals["maps_created"][0] == 2  # Siren's Map plus the Helm's
    assert state.totals["cards_cast"][0] == 1  # the Siren


def test_sentinel_makes_a_map_on_enter_and_when_it_attacks():
    game, state, ids = scripted_game(["Grizzly Bears"] * 4, hand=["Sentinel of the Nameless City"],
                                     battlefield=["Forest"] * 3, config=GameConfig(use_maps=False))
    m = play(game, state)
    assert m["maps_created"] == 1  # summoning sick: no attack this turn
    m = play(game, state)
    assert m["maps_created"] == 2  # it attacks


# ---------------------------------------------------------------- replacements (R1-R3)


def test_R1_topography_tracker_doubles_each_explore():
    game, state, _ = scripted_game(["Grizzly Bears"] * 8, hand=["Jadelight Ranger"],
                                   battlefield=["Forest"] * 3 + ["Topography Tracker"])
    assert play(game, state)["explores"] == 4


def test_R1_two_trackers_double_again():
    game, state, _ = scripted_game(["Grizzly Bears"] * 8, hand=["Jadelight Ranger"],
                                   battlefield=["Forest"] * 3 + ["Topography Tracker"] * 2)
    assert play(game, state)["explores"] == 8


def test_R2_twists_and_turns_scries_before_the_explore():
    # Top: Bears, Forest. The scry policy bottoms the Bears, so the explore finds the Forest.
    game, state, ids = scripted_game(["Grizzly Bears", "Forest", "Forest"], hand=["Cenote Scout"],
                                     battlefield=["Forest", "Twists and Turns"], policy="mill")
    m = play(game, state)
    assert (m["scries"], m["explores"], m["explore_lands"], m["milled"]) == (1, 1, 1, 0)
    assert state.end[0] - state.top[0] == 2  # the Bears went to the bottom, not away


def test_R2_two_twists_scry_twice_then_explore_once():
    game, state, _ = scripted_game(["Grizzly Bears"] * 5, hand=["Cenote Scout"],
                                   battlefield=["Forest", "Twists and Turns", "Twists and Turns"])
    m = play(game, state)
    assert (m["scries"], m["explores"]) == (2, 1)


@pytest.mark.parametrize("order, scries, explores", [("tracker-first", 2, 2),
                                                     ("twists-first", 1, 2)])
def test_R3_replacement_order(order, scries, explores):
    game, state, _ = scripted_game(["Grizzly Bears"] * 6, hand=["Cenote Scout"],
                                   battlefield=["Forest", "Twists and Turns", "Topography Tracker"],
                                   config=GameConfig(replacement_order=order))
    m = play(game, state)
    assert (m["scries"], m["explores"]) == (scries, explores)


def test_twists_and_turns_enter_trigger_targets_a_creature():
    game, state, _ = scripted_game(["Grizzly Bears"] * 4, hand=["Twists and Turns"],
                                   battlefield=["Forest", "Grizzly Bears"])
    m = play(game, state)
    assert (m["scries"], m["explores"]) == (1, 1)  # its own replacement applies (R2)
    game, state, _ = scripted_game(["Grizzly Bears"] * 4, hand=["Twists and Turns"],
                                   battlefield=["Forest"])
    assert play(game, state)["explores"] == 0  # no creature to target


# ---------------------------------------------------------------- cards


def test_path_of_discovery_makes_entering_creatures_explore():
    game, state, _ = scripted_game(["Grizzly Bears"] * 4, hand=["Grizzly Bears"],
                                   battlefield=["Forest"] * 2 + ["Path of Discovery"])
    assert play(game, state)["explores"] == 1


def test_janeway_explores_itself_and_gives_an_extra_land_drop():
    game, state, ids = scripted_game(["Grizzly Bears"] * 4,
                                     hand=["Captain Kathryn Janeway", "Forest", "Forest"],
                                     battlefield=["Forest"] * 3)
    m = play(game, state)
    assert m["explores"] == 1  # itself entering
    assert m["lands_played"] == 5  # the extra land drop applies the turn it enters
    game.untap_and_draw(state)
    assert state.land_drops[0] == 2


def test_enter_the_unknown_explores_and_gives_an_extra_land():
    game, state, _ = scripted_game(["Forest"] * 4, hand=["Enter the Unknown", "Forest"],
                                   battlefield=["Forest", "Grizzly Bears"])
    m = play(game, state)
    assert m["explore_lands"] == 1 and m["lands_played"] == 3  # two land drops


def test_a_target_is_a_creature_that_attacks_before_a_mana_creature():
    """Enter the Unknown makes Grizzly Bears explore, not Birds of Paradise (of lower id, but
    a mana creature stays back: its counter would deal no damage); the counter attacks."""
    game, state, ids = scripted_game(["Birds of Paradise"] * 4, hand=["Enter the Unknown"],
                                     battlefield=["Forest", "Birds of Paradise", "Grizzly Bears"])
    assert ids["Birds of Paradise"] < ids["Grizzly Bears"]
    m = play(game, state)
    assert state.counters[0, ids["Grizzly Bears"]] == 1
    assert state.counters[0, ids["Birds of Paradise"]] == 0 and m["damage"] == 3
    # With only a mana creature, it is the target.
    game, state, ids = scripted_game(["Birds of Paradise"] * 4, hand=["Enter the Unknown"],
                                     battlefield=["Forest", "Birds of Paradise"])
    play(game, state)
    assert state.counters[0, ids["Birds of Paradise"]] == 1


def test_targeted_spells_need_a_creature():
    game, state, _ = scripted_game(["Forest"] * 4, hand=["Over the Edge"],
                                   battlefield=["Forest"] * 2)
    assert play(game, state)["cards_cast"] == 0
    game, state, _ = scripted_game(["Grizzly Bears"] * 4, hand=["Over the Edge"],
                                   battlefield=["Forest"] * 2 + ["Grizzly Bears"])
    m = play(game, state)
    assert (m["cards_cast"], m["explores"]) == (1, 2)


def test_the_legend_rule_one_legendary_permanent_of_a_name_at_a_time():
    """CR 704.5j: a second Nicanzil, Current Conductor would put one of the two into the
    graveyard, so the goldfish never casts it while one is on the battlefield; the mana goes to
    the next spell, and another legendary permanent is cast."""
    game, state, ids = scripted_game(["Forest"] * 4, hand=["Nicanzil, Current Conductor"] * 2,
                                     battlefield=["Forest", "Forest", "Island", "Island"])
    m = play(game, state)
    assert m["cards_cast"] == 1 and state.battlefield[0, ids["Nicanzil, Current Conductor"]] == 1
    game, state, ids = scripted_game(
        ["Forest"] * 4, hand=["Nicanzil, Current Conductor", "Grizzly Bears"],
        battlefield=["Forest", "Forest", "Island", "Island", "Nicanzil, Current Conductor"])
    m = play(game, state)
    assert m["cards_cast"] == 1 and state.battlefield[0, ids["Grizzly Bears"]] == 1
    assert state.hand[0, ids["Nicanzil, Current Conductor"]] == 1


def test_explore_the_sorcery_draws_and_gives_a_land_drop_but_does_not_explore():
    game, state, _ = scripted_game(["Forest"] * 4, hand=["Explore"], battlefield=["Forest"] * 2)
    m = play(game, state)
    assert m["explores"] == 0 and m["lands_played"] == 3  # drew a Forest and played it


def test_hakbal_makes_each_merfolk_explore_at_combat():
    game, state, _ = scripted_game(["Grizzly Bears"] * 6, hand=[],
                                   battlefield=["Forest", "Hakbal of the Surging Soul",
                                                "Cenote Scout", "Grizzly Bears"])
    assert play(game, state)["explores"] == 2  # Hakbal and the Scout; not the Bears


def test_E8_hakbal_triggers_wait_for_every_merfolk():
    seen = []

    def recording(obs, rng):
        seen.append(int(obs.lands_in_play[0]))
        return np.zeros(obs.trials, dtype=bool)

    game, state, _ = scripted_game(["Forest", "Forest", "Grizzly Bears"], hand=[],
                                   battlefield=["Forest", "Hakbal of the Surging Soul",
                                                "Nicanzil, Current Conductor"],
                                   policy=recording)
    m = play(game, state)
    assert m["explores"] == 2 and m["explore_lands"] == 2
    assert seen == [1, 1]  # Nicanzil's land triggers waited for both explores
    # Nicanzil puts one land in tapped and declines the other, which the land drop could
    # still play; Hakbal's own trigger then puts it onto the battlefield, untapped.
    assert m["nicanzil_lands"] == 1 and m["lands_put"] == 2 and m["lands_played"] == 3


def test_emperors_vanguard_explores_on_combat_damage_once_it_can_attack():
    game, state, _ = scripted_game(["Grizzly Bears"] * 6, hand=["Emperor's Vanguard"],
                                   battlefield=["Forest"] * 4)
    assert play(game, state)["explores"] == 0  # summoning sick
    assert play(game, state)["explores"] == 1


@pytest.mark.parametrize("card, land, explores", [("Brazen Buccaneers", "Mountain", 2),
                                                   ("Dire Fleet Interloper", "Swamp", 1)])
def test_haste_attacks_the_turn_it_enters(card, land, explores):
    # An equipped Glowcap Lantern makes an attacker explore: only the hasty one attacks.
    game, state, ids = scripted_game(["Grizzly Bears"] * 6, hand=[card],
                                     battlefield=[land] * 4 + ["Glowcap Lantern"])
    state.equipped[0] = 1
    assert play(game, state)["explores"] == explores


def test_storm_fleet_negotiator_parley():
    config = GameConfig(opponent_land_fraction=1.0, use_maps=False)
    game, state, ids = scripted_game(["Grizzly Bears", "Forest"] * 3, hand=[],
                                     battlefield=["Storm Fleet Negotiator"], config=config)
    game.untap_and_draw(state)
    game.combat(state)
    assert state.totals["maps_created"][0] == 1  # our Bears; the opponent's card is a land
    assert state.hand[0, ids["Grizzly Bears"]] == 1  # then each player draws
    config = GameConfig(opponent_land_fraction=0.0, use_maps=False)
    game, state, _ = scripted_game(["Grizzly Bears"] * 3, battlefield=["Storm Fleet Negotiator"],
                                   config=config)
    game.untap_and_draw(state)
    game.combat(state)
    assert state.totals["maps_created"][0] == 2


def test_glowcap_lantern_is_equipped_then_explores_on_attack():
    game, state, _ = scripted_game(["Grizzly Bears"] * 5, hand=["Glowcap Lantern"],
                                   battlefield=["Forest"] * 3 + ["Grizzly Bears"])
    m = play(game, state)  # cast (1) + equip (2); the Bears attacks: explore
    assert m["mana_spent"] == 3 and m["explores"] == 1


def test_subterranean_schooner_crewed_creature_explores():
    game, state, _ = scripted_game(["Grizzly Bears"] * 5, hand=[],
                                   battlefield=["Subterranean Schooner", "Grizzly Bears"])
    assert play(game, state)["explores"] == 1


def test_restless_anchorage_enters_tapped_and_attacks_for_a_map():
    game, state, ids = scripted_game(["Grizzly Bears"] * 5, hand=["Restless Anchorage"],
                                     battlefield=["Forest"] * 2, config=GameConfig(use_maps=False))
    game.untap_and_draw(state)
    game.main_phase(state, second=False)
    assert game.available_mana(state)[0] == 2  # entered tapped
    game, state, _ = scripted_game(["Grizzly Bears"] * 5, hand=[],
                                   battlefield=["Plains", "Island", "Forest", "Restless Anchorage"],
                                   config=GameConfig(use_maps=False))
    m = play(game, state)  # {1}{W}{U} from the other lands: it cannot pay for itself
    assert m["maps_created"] == 1 and m["mana_spent"] == 3
    game, state, _ = scripted_game(["Grizzly Bears"] * 5, hand=[],
                                   battlefield=["Forest"] * 3 + ["Restless Anchorage"],
                                   config=GameConfig(use_maps=False))
    assert play(game, state)["maps_created"] == 0  # no W or U but its own


def test_seeker_of_sunlight_explores_with_spare_mana():
    game, state, _ = scripted_game(["Grizzly Bears"] * 5, hand=[],
                                   battlefield=["Forest"] * 3 + ["Seeker of Sunlight"])
    m = play(game, state)
    assert m["explores"] == 1 and m["mana_spent"] == 3


def test_dryad_arbor_is_a_land_drop_and_a_creature():
    game, state, ids = scripted_game(["Grizzly Bears"] * 4, hand=["Dryad Arbor"],
                                     battlefield=["Path of Discovery"])
    m = play(game, state)
    assert m["lands_played"] == 1 and m["creatures"] == 1
    assert m["explores"] == 1  # a creature entered: Path of Discovery
    assert game.available_mana(state)[0] == 0  # summoning sick: no mana this turn


def test_a_mana_creature_stays_back_and_makes_mana_after_combat():
    """Attacking taps a creature (CR 508.1f): Llanowar Elves does not attack, so its mana
    still pays for a spell in the second main phase; Grizzly Bears attacks."""
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=["Cenote Scout"],
                                     battlefield=["Llanowar Elves", "Grizzly Bears"])
    attackers = game.attackers(state)
    assert attackers[0, ids["Llanowar Elves"]] == 0 and attackers[0, ids["Grizzly Bears"]] == 1
