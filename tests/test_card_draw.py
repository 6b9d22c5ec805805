"""Card draw: a spell's "Draw three cards." and a permanent's "When it enters, draw a card."

Read from card files (``draws``), from imported oracle text, and played by both engines: the
cards come off the top of the library in order, and a spell whose only effect is card draw
is cast (before, a goldfish game held it as having no effect).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import both_engines, fixture_cards, scripted_game

from explore_sim.cards.card import Card
from explore_sim.cards.card_index import CardIndex, card_sources, import_cards, index_path
from explore_sim.cards.oracle import abilities_from_text
from explore_sim.engine.abilities import NO_EFFECT, held_reason
from explore_sim.errors import CardError


@pytest.mark.parametrize("text, type_line, draws", [
    ("Draw three cards.", "Sorcery", 3),  # Harmonize
    ("Scry 1.\nDraw a card.", "Instant", 1),  # Opt
    ("Draw a card. You may put a land card from your hand onto the battlefield.", "Instant",
     1),  # Growth Spiral: the land is not read
    ("When this creature enters, draw two cards.\nEvoke {2}{U}", "Creature — Elemental", 2),
    ("When ~ enters, draw a card.", "Creature — Elf Shaman", 1),
    ("Scry 2, then draw a card.", "Sorcery", 1),  # Preordain: the scry is not played
    ("You draw two cards and you lose 2 life.", "Sorcery", 2),  # Night's Whisper
    ("Target player draws two cards and loses 2 life.", "Instant", 2),  # Sign in Blood: you
    ("Target player draws three cards.", "Sorcery", 3),  # Inspiration
    ("Draw seven cards.", "Sorcery", 7),
    # a cost or a loss of cards elsewhere in the text: not read
    ("As an additional cost to cast this spell, discard a card.\nDraw two cards.", "Sorcery", 0),
    ("Draw two cards. Then discard a card unless you attacked this turn.", "Sorcery", 0),
    ("Draw two cards. Then put a card from your hand on top of your library.", "Instant", 0),
    # not read: a loot, a draw with another cost in the same sentence, someone else's draw
    ("Draw two cards, then discard two cards.", "Sorcery", 0),
    ("Draw a card for each creature you control.", "Sorcery", 0),  # a count the game varies
    ("Draw two cards, then discard a card unless you sacrifice a Food.", "Instant", 0),
    # a permanent's paragraph that begins "Draw" is no enter trigger; a spell's enter text
    # is no spell's draw
    ("Draw a card.", "Artifact", 0),
    ("When ~ enters, draw a card.", "Sorcery", 0),
])
def test_oracle_text_gives_the_cards_drawn(text, type_line, draws):
    fields, unmatched = abilities_from_text("Fixture Card", text, type_line)
    assert fields.get("draws", 0) == draws and unmatched == []


def test_imported_draw_spells_are_cast_and_enter_triggers_draw(tmp_path):
    """A Scryfall-shaped file: the sorcery draws three (and is no longer held as having no
    effect), the creature draws one as it enters, the loot is read as nothing."""
    def card(name, cost, type_line, text, **more):
        return {"object": "card", "name": name, "layout": "normal", "cmc": 2.0,
                "keywords": [], "set": "tst", "collector_number": "1", "mana_cost": cost,
                "type_line": type_line, "oracle_text": text, **more}

    path = tmp_path / "cards.json"
    path.write_text(json.dumps([
        card("Fixture Insight", "{1}{U}", "Sorcery", "Draw three cards."),
        card("Fixture Visionary", "{1}{G}", "Creature — Elf", "When Fixture Visionary enters, "
             "draw a card.", power="1", toughness="1"),
        card("Fixture Looting", "{R}", "Sorcery", "Draw two cards, then discard two cards."),
    ]))
    import_cards(path, tmp_path / "cards")
    index = CardIndex(index_path(tmp_path / "cards"))
    insight, visionary = index.find("Fixture Insight"), index.find("Fixture Visionary")
    assert (insight.draws, held_reason(insight)) == (3, "")
    assert (visionary.draws, held_reason(visionary)) == (1, "")
    looting = index.find("Fixture Looting")
    assert (looting.draws, held_reason(looting)) == (0, NO_EFFECT)


def test_card_files_take_draws_and_the_keyword_is_one_card(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('[[card]]\nname = "Big Think"\nmana_cost = "{3}{U}"\ntype_line = "Sorcery"\n'
                    'draws = 4\n\n[[card]]\nname = "Small Think"\nmana_cost = "{U}"\n'
                    'type_line = "Instant"\nkeywords = ["draw"]\n')
    cards = card_sources([path], use_index=False)
    assert cards.get("Big Think").draws == 4 and cards.get("Small Think").draws == 1
    csv = tmp_path / "mine.csv"
    csv.write_text("name,mana_cost,type_line,draws\nCsv Think,{2}{U},Sorcery,2\n")
    assert card_sources([csv], use_index=False).get("Csv Think").draws == 2


@pytest.mark.parametrize("value, message", [
    ("11", "draws must be a whole number from 0 to 10, got 11"),
    ("-1", "draws must be a whole number from 0 to 10, got -1"),
    ('"two"', "draws must be a whole number, got 'two'"),
    ("true", "draws must be a whole number, got true"),
])
def test_bad_draws_in_a_card_file_name_the_file_and_line(tmp_path, value, message):
    path = tmp_path / "mine.toml"
    path.write_text(f'[[card]]\nname = "X"\nmana_cost = "{{U}}"\ntype_line = "Sorcery"\n'
                    f'draws = {value}\n')
    with pytest.raises(CardError, match=r"mine\.toml:1: .*" + message):
        card_sources([path], use_index=False)


def test_a_land_with_draws_is_refused(tmp_path):
    """A land has no card draw the game would play: refused rather than shown and ignored."""
    path = tmp_path / "mine.toml"
    path.write_text('[[card]]\nname = "Drawing Land"\ntype_line = "Land — Island"\ndraws = 2\n')
    with pytest.raises(CardError, match=r"mine\.toml:1: card 'Drawing Land': draws: a land "
                                        "draws no cards"):
        card_sources([path], use_index=False)


def test_a_draw_spell_is_cast_and_draws_the_top_cards_in_order():
    """NumPy engine, scripted: Harmonize with four lands draws the library's top three."""
    game, state, ids = scripted_game(["Grizzly Bears", "Island", "Grizzly Bears", "Forest"],
                                     hand=["Harmonize"], battlefield=["Forest"] * 4)
    game.play_turn(state)  # turn 1 on the play: no draw; Harmonize draws the top three
    hand = {name: int(state.hand[0, i]) for name, i in ids.items() if state.hand[0, i]}
    assert hand == {"Grizzly Bears": 2}  # the Island drawn was the turn's land
    assert state.battlefield[0, ids["Island"]] == 1 and state.battlefield[0, ids["Forest"]] == 4
    assert int(state.top[0]) == 3 and int(state.totals["cards_cast"][0]) == 1


def test_a_sorcery_with_no_draws_and_no_other_effect_is_still_held():
    nothing = Card("Fixture Nothing", "{2}{U}", "Sorcery")
    assert held_reason(nothing) == NO_EFFECT
    assert held_reason(fixture_cards().get("Harmonize")) == ""


@pytest.mark.slow
def test_both_engines_draw_a_spells_cards_and_an_enter_triggers():
    """Turn 4 casts Harmonize, whose three cards hold the lands of turns 5 and 6; Elvish
    Visionary on turn 2 draws the Forest of turn 3. Both engines, game by game; each counts
    the cards drawn (the draw steps and the cards' own draws, not the opening hand)."""
    names = ("lands_played", "hand_size", "cards_cast", "cards_drawn")
    bears = "Grizzly Bears"
    games = both_engines([bears, bears, bears, "Forest", "Forest", "Island", bears, bears],
                         ["Forest"] * 4 + ["Harmonize"], names, turns=6)
    assert games["kernel"] == games["numpy"]
    numpy = games["numpy"]
    assert numpy[4]["hand_size"] == 4  # a Bears and the three cards drawn
    assert [numpy[t]["lands_played"] for t in (4, 5, 6)] == [4, 5, 6]
    # on the play: no draw on turn 1, one a turn after, and Harmonize's three on turn 4
    assert [numpy[t]["cards_drawn"] for t in range(1, 7)] == [0, 1, 2, 6, 7, 8]
    games = both_engines([bears, "Forest", bears, bears], ["Forest", "Forest", "Elvish Visionary"],
                         names, turns=3)
    assert games["kernel"] == games["numpy"]
    assert games["numpy"][3]["lands_played"] == 3  # the Forest the Visionary drew
    assert games["numpy"][2]["cards_cast"] == 1
    assert [games["numpy"][t]["cards_drawn"] for t in (1, 2, 3)] == [0, 2, 3]


def test_every_imported_permanent_field_survives_the_index(tmp_path):
    """``draws`` goes into the card index and comes back (its schema holds the field)."""
    path = tmp_path / "cards.json"
    path.write_text(json.dumps([{
        "object": "card", "name": "Fixture Wall", "layout": "normal", "cmc": 3.0,
        "keywords": [], "set": "tst", "collector_number": "2", "mana_cost": "{2}{W}",
        "type_line": "Creature — Wall", "power": "0", "toughness": "4",
        "oracle_text": "Defender\nWhen this creature enters, draw a card."}]))
    import_cards(path, tmp_path / "cards")
    wall = CardIndex(index_path(tmp_path / "cards")).find("Fixture Wall")
    assert wall.draws == 1 and np.isclose(wall.mana_value, 3)


@pytest.mark.slow
def test_a_draw_spell_is_not_cast_past_the_librarys_last_card():
    """Turn 4 holds Harmonize and four lands: with two cards left it is not cast (drawing
    from an empty library loses the game), with three it is and empties the library. Both
    engines."""
    names = ("cards_cast", "decked", "hand_size")
    hand = ["Forest"] * 4 + ["Harmonize"]
    for library, harmonize_cast in ((5, False), (6, True)):
        games = both_engines(["Grizzly Bears"] * library, hand, names, turns=4)
        assert games["kernel"] == games["numpy"]
        turn4 = games["numpy"][4]
        assert turn4["decked"] == 0
        # Bears on turns 2 and 3; on turn 4 Harmonize (a Bears and three cards), else the
        # third Bears (Harmonize left)
        assert turn4["hand_size"] == (4 if harmonize_cast else 1), library


@pytest.mark.slow
def test_with_no_land_in_hand_the_cheapest_draw_digs_for_the_land_drop():
    """Turn 2: one Island, no land in hand, Opt and Spyglass Siren (first in the casting
    order: it makes a Map). Opt goes first and draws the Island, which is played, and the
    Siren is cast with its mana; the Siren first would leave no mana for Opt and miss the
    land drop. Both engines."""
    names = ("lands_played", "cards_cast", "land_drop")
    games = both_engines(["Grizzly Bears", "Island", "Grizzly Bears", "Grizzly Bears"],
                         ["Island", "Opt", "Spyglass Siren", "Spyglass Siren"], names, turns=2)
    assert games["kernel"] == games["numpy"]
    assert games["numpy"][2] == {"lands_played": 2, "cards_cast": 3, "land_drop": 1}
