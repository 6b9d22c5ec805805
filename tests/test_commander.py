"""Commander games: the command zone, commander tax, Command Tower, the free first mulligan,
the draw on turn 1, a 99-card library, and Hakbal of the Surging Soul; plus two rules every
game follows that removal exposed (a fizzled Enter the Unknown, summoning sickness of the
copy that stays)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DECKS, TESTS, scripted_game

import explore_sim
from explore_sim.analysis.game_setup import game_mulligan
from explore_sim.engine.goldfish import GameConfig
from explore_sim.engine.mulligan import MulliganRule, deal_opening_hands
from explore_sim.engine.state import shuffled_libraries
from explore_sim.errors import DeckError

HAKBAL = "Hakbal of the Surging Soul"  # {2}{G}{U}, colour identity GU
HAKBAL_DECK = DECKS / "hakbal_merfolk_commander.txt"


def play(game, state):
    game.play_turn(state)
    return {name: int(value[0]) for name, value in game.turn_metrics(state).items()}


def test_commander_starts_in_the_command_zone_and_is_cast_from_there():
    """CR 903.6: the commander starts in the command zone; it is cast from there."""
    game, state, ids = scripted_game(["Grizzly Bears"] * 5,
                                     battlefield=["Forest", "Forest", "Island", "Island"],
                                     commanders=[HAKBAL])
    m = play(game, state)
    assert m["commander_cast"] == 1 and m["commander_tax_paid"] == 0 and m["mana_spent"] == 4
    assert state.command[0, ids[HAKBAL]] == 0 and state.battlefield[0, ids[HAKBAL]] == 1


def test_a_normal_game_has_no_command_zone():
    game, state, ids = scripted_game(["Grizzly Bears"] * 5,
                                     battlefield=["Forest", "Forest", "Island", "Island"],
                                     commanders=[HAKBAL], config=GameConfig(game="normal"))
    m = play(game, state)
    assert m["commander_cast"] == 0 and state.command[0].sum() == 0
    assert state.hand[0].sum() == 0  # nor the turn-1 draw: the player on the play skips it


def test_nobody_skips_the_first_draw_in_commander():
    """CR 103.8: the player on the play skips the first draw, except in multiplayer games."""
    game, state, ids = scripted_game(["Grizzly Bears"] * 5, commanders=[HAKBAL])
    play(game, state)
    assert state.hand[0, ids["Grizzly Bears"]] == 1


def test_the_commander_is_cast_first():
    """With three mana, Nicanzil (a commander for {G}{U}) is cast from the command zone
    before Jadelight Ranger ({1}{G}{G}), the explorer it would have waited for."""
    game, state, ids = scripted_game(["Grizzly Bears"] * 5, hand=["Jadelight Ranger"],
                                     battlefield=["Forest", "Forest", "Island"],
                                     commanders=["Nicanzil, Current Conductor"])
    m = play(game, state)
    assert m["commander_cast"] == 1 and state.hand[0, ids["Jadelight Ranger"]] == 1


def removal_game(lands):
    """Hakbal explores at the beginning of combat; removal in response sends it home."""
    return scripted_game(["Grizzly Bears"] * 8, battlefield=lands, commanders=[HAKBAL],
                         config=GameConfig(removal=1.0, turns=3), policy="keep")


def test_a_removed_commander_returns_to_the_command_zone_and_costs_two_more():
    """CR 903.9 (back to the command zone), CR 903.8 (commander tax {2} per earlier cast)."""
    game, state, ids = removal_game(["Forest", "Forest", "Island", "Island"])
    m = play(game, state)
    assert m["commander_cast"] == 1 and m["explorers_removed"] == 1
    assert state.command[0, ids[HAKBAL]] == 1 and state.battlefield[0, ids[HAKBAL]] == 0
    assert state.graveyard[0] == 0  # not in the graveyard
    m = play(game, state)  # four lands cannot pay {2}{G}{U} + {2}
    assert m["commander_cast"] == 1 and m["commander_tax_paid"] == 0

    game, state, ids = removal_game(["Forest", "Forest", "Forest", "Island", "Island", "Island"])
    play(game, state)
    m = play(game, state)
    assert m["commander_cast"] == 2 and m["commander_tax_paid"] == 2
    assert m["mana_spent"] == (4 + 2) + 6  # turn 1: Hakbal and the Bears drawn; turn 2: 4 + 2 tax
    assert state.command_casts[0, ids[HAKBAL]] == 2


def test_command_tower_and_arcane_signet_make_the_commanders_colours():
    """Command Tower: one mana of any colour in your commander's colour identity; without a
    commander it makes nothing (CR 106.7 in spirit: it cannot make a colour it has none of)."""
    lands = ["Command Tower", "Command Tower", "Forest", "Forest"]
    game, state, ids = scripted_game(["Grizzly Bears"] * 5, battlefield=lands,
                                     commanders=[HAKBAL])
    assert play(game, state)["commander_cast"] == 1
    game, state, ids = scripted_game(["Grizzly Bears"] * 5, hand=[HAKBAL], battlefield=lands)
    assert play(game, state)["cards_cast"] == 0  # no commander: the Towers make nothing
    game, state, ids = scripted_game(["Grizzly Bears"] * 5, commanders=[HAKBAL],
                                     battlefield=["Arcane Signet", "Forest", "Forest", "Forest"])
    assert play(game, state)["commander_cast"] == 1  # Signet: U for Hakbal


def test_hakbal_attacking_puts_a_land_from_hand_onto_the_battlefield():
    game, state, ids = scripted_game(["Grizzly Bears"] * 5, hand=["Forest", "Forest", "Island"],
                                     battlefield=[HAKBAL], config=GameConfig(game="normal"))
    m = play(game, state)
    assert m["lands_played"] == 2 and m["land_drop"] == 1  # the land drop and one land put
    assert state.hand[0, ids["Forest"]] + state.hand[0, ids["Island"]] == 1
    assert m["explores"] == 1  # Hakbal, a Merfolk, explored at the beginning of combat


def test_hakbal_attacking_without_a_land_in_hand_draws_a_card():
    game, state, ids = scripted_game(["Grizzly Bears"] * 5, hand=["Forest"],
                                     battlefield=[HAKBAL], config=GameConfig(game="normal"))
    play(game, state)
    # The Forest was the land drop; Hakbal explored (a Bear: left on top), then the draw.
    assert state.hand[0, ids["Grizzly Bears"]] == 1 and state.hand[0].sum() == 1


def test_the_deck_has_99_cards_in_the_library_and_its_commander_outside():
    deck = explore_sim.load_deck(HAKBAL_DECK)
    assert deck.size == 99 and [card.name for card, _ in deck.commander] == [HAKBAL]
    features = deck.features()
    (hakbal,) = features.commander_ids.tolist()
    assert features.cards[hakbal - 1].name == HAKBAL
    libraries = shuffled_libraries(deck.card_ids(), 50, np.random.default_rng(0))
    assert libraries.shape[1] >= 99 and not (libraries == hakbal).any()
    assert ((libraries > 0).sum(axis=1) == 99).all()


def test_the_first_mulligan_is_free_in_commander():
    """CR 103.5c: in a multiplayer game the first mulligan does not cost a card."""
    deck = explore_sim.load_deck(HAKBAL_DECK)
    features = deck.features()
    london = MulliganRule("london")
    rule = game_mulligan(london, GameConfig(), features)
    assert rule.free_first
    assert not game_mulligan(london, GameConfig(game="normal"), features).free_first
    opening = deal_opening_hands(deck.card_ids(), features, 2000, rule,
                                 lambda a: np.random.default_rng([1, a]))
    sizes = opening.hand.sum(axis=1)
    once = opening.mulligans == 1
    assert once.any() and (sizes[once] == 7).all()
    assert (sizes[opening.mulligans == 2] == 6).all()


def test_results_say_what_game_was_played():
    result = explore_sim.simulate(explore_sim.load_deck(HAKBAL_DECK), trials=200, turns=4,
                                  seed=1)
    (fmt,) = result.meta["formats"]
    assert fmt == {"game": "commander", "commander": [HAKBAL], "library": 99,
                   "starting_life": 40, "mulligan": "london+free-first",
                   "first_draw_skipped_on_the_play": False}
    assert result.meta["mulligan"] == "london+free-first"
    frame = result.summary()
    cast = frame[(frame.metric == "commander_cast") & (frame.turn == 4)]
    assert 0.3 < float(cast["mean"].iloc[0]) <= 1.5


def test_enter_the_unknown_whose_target_is_gone_gives_no_extra_land_drop():
    """E9 and CR 608.2b: with its only target removed in response, the spell does nothing,
    not even the additional land drop."""
    kwargs = dict(hand=["Enter the Unknown", "Forest", "Forest"],
                  battlefield=["Forest", "Grizzly Bears"])
    game, state, ids = scripted_game(["Grizzly Bears"] * 5,
                                     config=GameConfig(removal=1.0), **kwargs)
    m = play(game, state)
    assert m["cards_cast"] == 1 and m["explorers_removed"] == 1
    assert m["extra_land_drops"] == 0 and m["lands_played"] == 2  # one land drop
    game, state, ids = scripted_game(["Grizzly Bears"] * 5, **kwargs)
    m = play(game, state)
    assert m["extra_land_drops"] == 1 and m["lands_played"] == 3


def test_removing_the_explorer_that_just_entered_leaves_the_older_copy_ready():
    """CR 302.6: removal answers the new copy's enter trigger; the copy that was already
    there has been under control since the turn began and can still attack."""
    game, state, ids = scripted_game(["Grizzly Bears"] * 5, hand=["Jadelight Ranger"],
                                     battlefield=["Jadelight Ranger", "Forest", "Forest",
                                                  "Island"],
                                     config=GameConfig(removal=1.0, game="normal"))
    play(game, state)
    ranger = ids["Jadelight Ranger"]
    assert state.battlefield[0, ranger] == 1
    assert state.sick[0, ranger] == 0


def test_the_land_choice_plays_toward_the_commander_in_the_command_zone():
    """Step 3 of the land choice: the commander's pips count like a spell in hand's."""
    game, state, ids = scripted_game(["Grizzly Bears"] * 5, hand=["Forest", "Island"],
                                     battlefield=["Forest", "Forest"], commanders=[HAKBAL])
    play(game, state)
    assert state.battlefield[0, ids["Island"]] == 1  # Hakbal needs U; the Forests make G


@pytest.mark.slow
def test_a_commander_games_table_shows_when_the_commander_was_cast():
    games = explore_sim.simulate(HAKBAL_DECK, turns=4, trials=2000, seed=1)
    lines = games.render("table").splitlines()
    (row,) = [line for line in lines if line.startswith("commander_cast ")]
    by_turn = games.summary().query("metric == 'commander_cast' and turn > 0")["mean"]
    assert row.split()[1::2] == [f"{mean:.3f}" for mean in by_turn]
    assert float(row.split()[7]) > 0  # cast by turn 4
    normal = explore_sim.simulate(DECKS / "lci_merfolk_explore.txt", turns=2, trials=200, seed=1)
    assert "commander_cast" not in normal.render("table")


def test_explore_on_a_commander_deck_explores_the_99():
    """The commander is in the command zone (CR 903.6), never in the library: the library is
    the 99, so drawing 99 empties it (E4), and one explore finds a land with probability
    L / 99 by symmetry (the cards drawn are unseen)."""
    deck = explore_sim.load_deck(HAKBAL_DECK)
    lands = deck.land_count
    result = explore_sim.explore(deck, drawn=10, trials=40_000, seed=3)
    assert result.meta["library_size"] == 99
    row = result.summary().set_index("metric").loc["lands_to_hand"]
    assert abs(row["mean"] - lands / 99) < 4 * row["se"]
    empty = explore_sim.explore(deck, drawn=99, trials=2_000, seed=3).summary()
    assert empty.set_index("metric").loc["empty_reveals", "mean"] == 1


def test_the_commander_can_be_the_explorer_from_the_command_zone():
    deck = explore_sim.load_deck(HAKBAL_DECK)
    result = explore_sim.explore(deck, explorer=HAKBAL, drawn=10, trials=40_000, seed=3)
    assert result.meta["library_size"] == 99 and result.meta["explorer"] == HAKBAL
    row = result.summary().set_index("metric").loc["counters"]
    assert abs(row["mean"] - (99 - deck.land_count) / 99) < 4 * row["se"]
    jadelight = explore_sim.explore(deck, explorer="Jadelight Ranger", drawn=98, trials=1_000,
                                    seed=3)  # one copy on the battlefield: 98 left
    assert jadelight.summary().set_index("metric").loc["empty_reveals", "mean"] == 2


def test_naming_the_commander_as_a_known_card_says_where_it_is():
    deck = explore_sim.load_deck(HAKBAL_DECK)
    with pytest.raises(DeckError, match="is the commander: it starts in the command zone"):
        explore_sim.explore(deck, known=[HAKBAL], trials=100, seed=3)


@pytest.mark.parametrize("path", sorted(DECKS.glob("*.txt")), ids=lambda p: p.stem)
def test_explore_runs_on_every_shipped_deck(path):
    deck = explore_sim.load_deck(path)
    row = explore_sim.explore(deck, trials=20_000, seed=5).summary().set_index("metric")
    lands_to_hand = row.loc["lands_to_hand"]
    assert abs(lands_to_hand["mean"] - deck.land_count / deck.size) < 4 * lands_to_hand["se"]


def test_hakbal_puts_the_land_whose_mana_the_second_main_phase_uses():
    """Hakbal's attack trigger puts a land from hand onto the battlefield as its own text says;
    it is chosen like a land drop: the untapped Forest that lets Grizzly Bears be cast after
    combat, not the Simic Guildgate (which would enter tapped)."""
    game, state, ids = scripted_game(
        ["Grizzly Bears"] * 4,
        hand=["Simic Guildgate", "Forest", "Forest", "Merfolk Cave-Diver", "Grizzly Bears"],
        battlefield=[HAKBAL, "Forest", "Island", "Island"], config=GameConfig(game="normal"))
    m = play(game, state)
    assert m["lands_put"] == 1 and state.hand[0, ids["Simic Guildgate"]] == 1
    assert m["cards_cast"] == 2 and state.battlefield[0, ids["Grizzly Bears"]] == 1


#: An independent one-game-at-a-time simulation of ``fixtures/decks/hakbal_99_vanilla.txt``
#: (about 200,000 games, 5 turns, policy mill, London mulligan with the free first one, on the
#: play), written from the documented rules: turn 5's means and their standard errors. It
#: plays the land choice's step 2 colours aside, as the rules then said; step 2 now counts
#: colours, which moves ``mana_spent`` (+0.038 in explore_sim's games, docs/guide/commander.md)
#: beyond the test's reach, so that metric is no longer compared. Its casting order has no
#: place of its own for ramp (Sol Ring and Arcane Signet come after the explorers, among the
#: other spells by cost): the test names that order with ``cast_order``.
INDEPENDENT_HAKBAL_TURN_5 = {"cards_cast": (5.265, 0.0031), "colour_screwed": (0.0559, 0.0005)}
#: The independent simulation's casting order: the commander, the explorers, then the other
#: spells, each group most expensive first, a mana source first at equal cost, then by name.
INDEPENDENT_CAST_ORDER = [
    "Hakbal of the Surging Soul", "Jadelight Ranger", "Tishana's Wayfinder",
    "Merfolk Branchwalker", "River Herald Scout", "Cenote Scout", "Craw Wurm", "Air Elemental",
    "Centaur Courser", "Wind Drake", "Arcane Signet", "Grizzly Bears", "Silvergill Adept",
    "Elvish Mystic", "Llanowar Elves", "Sol Ring"]


@pytest.mark.slow
def test_hakbal_with_explorers_agrees_with_an_independent_simulation():
    """With its Merfolk exploring at every combat, the Hakbal deck casts as many spells and is
    colour-screwed as often on turn 5 as an independent simulation of the documented play
    (Hakbal's land chosen like a land drop; its casting order, named), within 4 standard
    errors of the difference."""
    deck = TESTS / "fixtures" / "decks" / "hakbal_99_vanilla.txt"
    result = explore_sim.simulate(deck, turns=5, trials=60_000, seed=3, policy="mill",
                                  cast_order=INDEPENDENT_CAST_ORDER)
    summary = result.summary().query("turn == 5").set_index("metric")
    for metric, (expected, expected_se) in INDEPENDENT_HAKBAL_TURN_5.items():
        mean, se = summary.loc[metric, "mean"], summary.loc[metric, "se"]
        z = (mean - expected) / np.hypot(se, expected_se)
        assert abs(z) < 4, f"{metric}: {mean:.4f} (se {se:.4f}) against {expected}: z {z:.1f}"


def test_on_the_draw_says_a_commander_game_is_the_same_games():
    """Every player of a multiplayer Commander game draws on turn 1: on the play and on the
    draw are the same games, and a table that says "on the draw" says so too."""
    on_draw = explore_sim.simulate(HAKBAL_DECK, turns=3, trials=300, seed=1, on_play=False)
    on_play = explore_sim.simulate(HAKBAL_DECK, turns=3, trials=300, seed=1)
    assert on_draw.summary()[["mean", "se"]].equals(on_play.summary()[["mean", "se"]])
    assert on_draw.render().splitlines()[0] == (
        "simulate: 3 turns, on the draw, either way the same games: a Commander game draws on "
        "turn 1")
    sixty = explore_sim.simulate(DECKS / "lci_merfolk_explore.txt", turns=3, trials=300,
                                 seed=1, on_play=False)
    assert sixty.render().splitlines()[0] == "simulate: 3 turns, on the draw"
    assert on_play.render().splitlines()[0] == "simulate: 3 turns, on the play"
