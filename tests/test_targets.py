"""Spells and auras that need a target a goldfish game does not have are held, not cast
(docs/guide/simulate.md, "Targets"): the ``target`` card field, read from real oracle text on
import, given by the catalog and card files, and played by the engine (the casting pass, the
land choice's "mana will be used", the cleanup's discards); the replay says why a card is
held. So are instants and sorceries none of whose effects a goldfish game plays."""

from __future__ import annotations

import json

import pytest
from conftest import DECKS, TESTS, scripted_game

from explore_sim.cards import Catalog
from explore_sim.cards.card import Card
from explore_sim.cards.card_files import load_card_file
from explore_sim.cards.card_index import CardIndex, import_cards
from explore_sim.cards.commanders import can_be_commander
from explore_sim.cli import main
from explore_sim.engine.goldfish import GameConfig
from explore_sim.errors import CardError, OptionError

FIXTURES = TESTS / "fixtures" / "cards"

#: The target each card of the fixtures' real oracle text needs: removal, bounce and
#: counterspells of the shipped decks and the catalog, Dead Weight and Expel from Orazca,
#: and cards that are not held.
EXPECTED_TARGETS = {
    "Dead Weight": "opponent",  # Enchant creature; enchanted creature gets -2/-2
    "Expel from Orazca": "opponent",  # return target nonland permanent to its owner's hand
    "Vraska's Contempt": "opponent",
    "Beast Within": "opponent",  # it could destroy a permanent of yours: a player never does
    "Counterspell": "opponent",
    "Arcane Denial": "opponent",
    "Cyclonic Rift": "opponent",
    "Rapid Hybridization": "opponent",
    "Pongify": "opponent",
    "Nature's Claim": "opponent",
    "Brackish Blunder": "opponent",
    "Get Lost": "opponent",
    "Pacifism": "opponent",
    "Giant Growth": "creature",  # it helps the creature it targets: a creature you control
    "Rancor": "creature",
    "Over the Edge": "",  # modal: its explore mode targets a creature you control
    "Heroic Intervention": "",  # no target
    "Lightning Strike": "",  # any target: the opponent's face
    "Teferi, Temporal Archmage": "",
    "Find // Finality": "",  # up to two targets, and a half without any
}


@pytest.mark.parametrize("fixture", ["scryfall_targets.json", "mtgjson_targets.json"])
def test_the_import_reads_the_target_from_real_oracle_text(tmp_path, fixture):
    report = import_cards(FIXTURES / fixture, tmp_path)
    index = CardIndex.open_default(tmp_path)
    assert {name: index.find(name).target for name in EXPECTED_TARGETS} == EXPECTED_TARGETS
    # A held card is never cast: its Map text is no "modelled as a vanilla card" warning.
    assert not any("Get Lost" in w or "Brackish Blunder" in w for w in report.warnings)
    assert not index.find("Get Lost").unmodelled
    teferi = index.find("Teferi, Temporal Archmage")
    assert teferi.has_keyword("can_be_commander") and can_be_commander(teferi)


def test_the_catalog_and_the_shipped_card_files_hold_their_removal():
    catalog = Catalog.builtin()
    assert catalog.get("Get Lost").target == catalog.get("Brackish Blunder").target == "opponent"
    assert catalog.get("Over the Edge").target == ""
    shipped = {**{card.name: card for card in load_card_file(DECKS / "golgari_explore.cards.toml")},
               **{card.name: card
                  for card in load_card_file(DECKS / "hakbal_merfolk_commander.cards.toml")}}
    held = {name for name, card in shipped.items() if card.target == "opponent"}
    assert held == {"Vraska's Contempt", "Counterspell", "Beast Within", "Cyclonic Rift",
                    "Rapid Hybridization", "Pongify", "Nature's Claim", "Arcane Denial"}
    for name in held:
        assert EXPECTED_TARGETS[name] == "opponent"  # as the import reads its oracle text


def test_a_card_file_gives_the_target_and_refuses_other_values(tmp_path):
    path = tmp_path / "cards.toml"
    path.write_text('[[card]]\nname = "Homebrew Bolt"\nmana_cost = "{R}"\ntype_line = "Instant"\n'
                    'target = "opponent"\n', encoding="utf-8")
    assert load_card_file(path).get("Homebrew Bolt").target == "opponent"
    with pytest.raises(CardError, match="target 'enemy' is not one of opponent, creature"):
        Card(name="X", mana_cost="{R}", type_line="Instant", target="enemy")


DEAD_WEIGHT = Card(name="Dead Weight", mana_cost="{B}", type_line="Enchantment — Aura",
                   target="opponent")
GROWTH = Card(name="Giant Growth", mana_cost="{G}", type_line="Instant", target="creature")


def play(game, state):
    game.play_turn(state)
    return {name: int(value[0]) for name, value in game.turn_metrics(state).items()}


def test_a_spell_whose_target_only_an_opponent_has_is_never_cast():
    """Dead Weight with a Swamp open and Grizzly Bears in hand: the Bears are cast, Dead
    Weight stays in hand whatever the mana."""
    game, state, ids = scripted_game(
        ["Forest"] * 3, hand=["Dead Weight", "Grizzly Bears"],
        battlefield=["Swamp", "Swamp", "Forest"], cards=[DEAD_WEIGHT],
        config=GameConfig(game="normal"))
    m = play(game, state)
    assert m["cards_cast"] == 1 and state.battlefield[0, ids["Grizzly Bears"]] == 1
    assert state.hand[0, ids["Dead Weight"]] == 1 and m["mana_spent"] == 2


def test_a_spell_that_needs_a_creature_you_control_waits_for_one():
    """Enter the Unknown (target creature you control explores) waits for a creature; Giant
    Growth's pump is no effect a goldfish game plays, so it is not cast even then."""
    for spell, cards in (("Enter the Unknown", []), ("Giant Growth", [GROWTH])):
        game, state, ids = scripted_game(["Forest"] * 3, hand=[spell], battlefield=["Forest"],
                                         cards=cards)
        assert play(game, state)["cards_cast"] == 0
        game, state, ids = scripted_game(["Forest"] * 3, hand=[spell],
                                         battlefield=["Forest", "Grizzly Bears"], cards=cards)
        assert play(game, state)["cards_cast"] == (spell == "Enter the Unknown")


def test_a_held_spell_is_no_reason_to_play_an_untapped_land():
    """Turn 1 with Dead Weight ({B}) the only spell: no mana will be used, so the tapped
    Golgari Guildgate comes first (step 2), as with no spell at all."""
    game, state, ids = scripted_game(["Forest"] * 3,
                                     hand=["Dead Weight", "Swamp", "Golgari Guildgate"],
                                     cards=[DEAD_WEIGHT], config=GameConfig(on_play=True))
    assert play(game, state)["tapped_lands_played"] == 1
    assert state.battlefield[0, ids["Golgari Guildgate"]] == 1


def test_cleanup_discards_a_held_spell_first():
    hand = ["Dead Weight", *["Grizzly Bears"] * 5, "Forest", "Forest", "Forest"]
    game, state, ids = scripted_game(["Forest"] * 3, hand=hand, cards=[DEAD_WEIGHT])
    play(game, state)  # on the play, no draw; a Forest played: 8 cards, then 7
    assert state.hand[0, ids["Dead Weight"]] == 0 and state.hand[0].sum() == 7


def test_naming_a_held_spell_to_cast_first_is_refused():
    with pytest.raises(OptionError, match="needs a target only an opponent has"):
        scripted_game(["Forest"], hand=["Dead Weight"], cards=[DEAD_WEIGHT],
                      config=GameConfig(cast_order=("Dead Weight",)))


@pytest.mark.slow
def test_the_replay_holds_dead_weight_and_expel_from_orazca_and_says_why():
    """A deck of real cards as a player imports them: the replay (the compiled kernel's game)
    casts creatures but never Dead Weight nor Expel from Orazca, and its log says why they
    stay in hand."""
    import os

    import explore_sim

    import_cards(FIXTURES / "scryfall_targets.json", os.environ["EXPLORE_SIM_CARDS_DIR"])
    deck = ("10 Swamp\n10 Island\n4 Forest\n6 Dead Weight\n6 Expel from Orazca\n"
            "12 Grizzly Bears\n12 Jadelight Ranger\n")
    both = {"Dead Weight", "Expel from Orazca"}
    games = (explore_sim.replay(deck, trial=trial, turns=6, seed=3) for trial in range(20))
    game = next(game for game in games  # the first game that holds both
                if both <= set(game.events.card[game.events.event == "held"]))
    events = game.events
    held = events[events.event == "held"]
    assert set(held.card) == both
    assert (held.detail.str.endswith("no target: its target would be an opponent's, and a "
                                     "goldfish opponent has none")).all()
    cast = set(events[events.event == "cast"].card)
    assert cast and not cast & {"Dead Weight", "Expel from Orazca"}
    text = game.text()
    assert "held Dead Weight (" in text and "held Expel from Orazca (" in text


#: Instants and sorceries none of whose effects a goldfish game plays.
INTERVENTION = Card(name="Heroic Intervention", mana_cost="{1}{G}", type_line="Instant")
AWAKENING = Card(name="Agadeem's Awakening // Agadeem, the Undercrypt",
                 mana_cost="{X}{B}{B}{B} // ", type_line="Sorcery // Land", layout="modal_dfc",
                 back_produces="B", back_enters_tapped="life:3")


def test_a_spell_without_an_effect_the_game_plays_is_never_cast():
    """Heroic Intervention with four Forests open: the Bears are cast, the Intervention stays
    in hand (cast, it would spend two mana and a card for nothing), and is discarded first."""
    game, state, ids = scripted_game(
        ["Forest"] * 3, hand=["Heroic Intervention", "Grizzly Bears"],
        battlefield=["Forest"] * 4, cards=[INTERVENTION], config=GameConfig(game="normal"))
    m = play(game, state)
    assert m["cards_cast"] == 1 and m["mana_spent"] == 2
    assert state.hand[0, ids["Heroic Intervention"]] == 1
    hand = ["Heroic Intervention", *["Grizzly Bears"] * 5, "Forest", "Forest", "Forest"]
    game, state, ids = scripted_game(["Forest"] * 3, hand=hand, cards=[INTERVENTION])
    play(game, state)
    assert state.hand[0, ids["Heroic Intervention"]] == 0 and state.hand[0].sum() == 7


def test_a_spell_land_card_without_a_played_spell_face_is_kept_as_a_land():
    """Agadeem's Awakening with five lands open (X = 1 at least) and a Grizzly Bears in hand:
    the Bears are cast, the Awakening is not (its return of creature cards is no effect a
    goldfish game plays; it counted X as 0); with no other land in hand it is played as
    Agadeem, the Undercrypt."""
    game, state, ids = scripted_game(
        ["Forest"] * 3, hand=[AWAKENING.name, "Grizzly Bears", "Swamp"],
        battlefield=["Swamp"] * 3 + ["Forest"], cards=[AWAKENING],
        config=GameConfig(game="normal"))
    m = play(game, state)
    assert m["cards_cast"] == 1 and state.hand[0, ids[AWAKENING.name]] == 1
    assert m["spell_mana"] == 2
    m = play(game, state)  # the Forest drawn is played; the Awakening still waits
    assert m["cards_cast"] == 1 and state.hand[0, ids[AWAKENING.name]] == 1
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=[AWAKENING.name],
                                     battlefield=["Swamp"] * 3, cards=[AWAKENING])
    m = play(game, state)
    assert m["lands_played"] == 4 and m["cards_cast"] == 0
    assert state.hand[0, ids[AWAKENING.name]] == 0


def test_naming_a_spell_without_effect_to_cast_first_is_refused():
    with pytest.raises(OptionError, match="'Heroic Intervention' has no effect a goldfish game "
                                          "plays: it is never cast"):
        scripted_game(["Forest"], hand=["Heroic Intervention"], cards=[INTERVENTION],
                      config=GameConfig(cast_order=("Heroic Intervention",)))


def test_cards_check_says_which_spells_are_held_for_want_of_an_effect(capsys):
    assert main(["cards", "check", "golgari", "--format", "json"]) == 0
    rows = {row["name"]: row["abilities"] for row in json.loads(capsys.readouterr().out)["cards"]}
    assert rows["Find // Finality"] == rows["Agadeem's Awakening // Agadeem, the Undercrypt"] \
        == "held: no effect a goldfish game plays"
    assert rows["Vraska's Contempt"] == "held: its target is an opponent's"
    assert rows["Jadelight Ranger"] == "explores 2 (enter)"
