""""Did you mean ...?" only for a near miss: a name a few edits (for its length) from a known
card's, never another real card's name (explore_sim.cards.spelling)."""

from __future__ import annotations

import pytest
from conftest import DECKS

from explore_sim import CardError, DeckError, explore, parse_deck
from explore_sim.cards import Catalog, card_template
from explore_sim.cards.catalog import NameSuggester
from explore_sim.cards.spelling import edit_distance, near_miss_limit

#: Well-formed names of real cards the built-in catalog does not hold, each far from every
#: name it does hold (Lurking Chupacabra, Golgari Guildgate of a deck's card file).
OTHER_CARDS = ("Ravenous Chupacabra", "Golgari Findbroker", "Sheoldred, the Apocalypse",
               "Tireless Tracker")


@pytest.mark.parametrize("name", OTHER_CARDS)
def test_another_real_card_is_not_called_a_typo(name):
    catalog = Catalog.builtin()
    assert catalog.suggest(name) == [] and catalog.suggestion_text(name) == ""
    with pytest.raises(CardError) as error:
        catalog.get(name)
    assert str(error.value) == f"unknown card {name!r}"
    names = NameSuggester([*catalog.names(), "Golgari Guildgate", "Llanowar Elves"])
    assert names.suggest(name) == []


@pytest.mark.parametrize("typed, meant", [
    ("Cenote Scot", "Cenote Scout"),                 # one letter left out
    ("Forset", "Forest"),                            # two letters swapped: one edit
    ("jadelight  rangr", "Jadelight Ranger"),        # case and spaces are not edits
    ("Tishanas Wayfindr", "Tishana's Wayfinder"),    # two edits in 17 characters
    ("Twists and Turn", "Twists and Turns // Mycoid Maze"),  # the front face's name
])
def test_a_near_miss_gets_its_card(typed, meant):
    assert Catalog.builtin().suggest(typed) == [meant]


def test_the_limit_is_one_edit_per_eight_characters_both_ways():
    known = NameSuggester(["Merfolk Cave-Diver"])  # 18 characters: two edits
    assert near_miss_limit("merfolk cave-diver") == 2
    assert known.suggest("Merfolk Cave-Dixer") == ["Merfolk Cave-Diver"]   # one edit
    assert known.suggest("Merfolk Cavx-Dixer") == ["Merfolk Cave-Diver"]   # two edits
    assert known.suggest("Merfolk Cxvx-Dixer") == []                       # three
    short = NameSuggester(["Opt"])  # a short name still allows one edit, and only one
    assert short.suggest("Op") == ["Opt"] and short.suggest("Ox") == []
    assert NameSuggester(["Fire Elemental"]).suggest("Air Elemental") == []  # 2 of 13


def test_a_known_name_is_never_suggested_to_itself():
    assert Catalog.builtin().suggest("Nicanzil, Current Conductor") == []
    assert Catalog.builtin().suggest("twists and turns") == []  # the front face's name
    deck = parse_deck("4 Cenote Scout\n20 Forest\n36 Grizzly Bears\n")
    with pytest.raises(DeckError) as error:  # in the catalog, not in the deck
        explore(deck, known="Nicanzil, Current Conductor", trials=100, seed=1)
    assert str(error.value) == ("known: 'Nicanzil, Current Conductor' is not in the deck "
                                "'deck'")


def test_suggestions_come_fewest_edits_first():
    known = NameSuggester(["Cenote Scouts", "Cenote Scout"])
    assert known.suggest("Cenote Scot") == ["Cenote Scout"]  # "Cenote Scouts" is two away
    assert known.suggest("Cenote Scoutz") == ["Cenote Scout", "Cenote Scouts"]


def test_edit_distance_counts_a_swap_as_one_and_stops_at_its_limit():
    assert edit_distance("forest", "forset", 1) == 1
    assert edit_distance("abc", "abc", 0) == 0
    assert edit_distance("ravenous chupacabra", "lurking chupacabra", 20) == 8
    assert edit_distance("ravenous chupacabra", "lurking chupacabra", 3) == 4  # limit + 1
    assert edit_distance("a" * 30, "b", 2) == 3


def test_the_decklist_error_suggests_only_near_misses():
    with pytest.raises(DeckError) as error:
        parse_deck("4 Ravenous Chupacabra\n4 Golgari Findbroker\n4 Cenote Scot\n20 Swamp\n",
                   catalog=Catalog.builtin())
    message = str(error.value)
    assert "line 1 'Ravenous Chupacabra'; line 2 'Golgari Findbroker'; line 3 'Cenote Scot' " \
        "(did you mean 'Cenote Scout'?)" in message
    assert "Lurking" not in message and "Guildgate" not in message


def test_the_card_template_describes_an_unknown_card_without_calling_it_a_typo(tmp_path):
    deck = tmp_path / "deck.txt"
    deck.write_text("4 Ravenous Chupacabra\n4 Cenote Scot\n20 Swamp\n", encoding="utf-8")
    template = card_template(deck, cards_dir=tmp_path / "no-index")
    chupacabra, scot = template.split("[[card]]")[1:]
    assert "typo" not in template and "did you mean" not in chupacabra
    assert "Lurking" not in template and 'type_line = ""' in chupacabra
    assert ("# did you mean 'Cenote Scout'? If so, correct the decklist and delete this table; "
            "if not, describe the card below") in scot


def test_an_unknown_explorer_far_from_every_name_is_told_the_decks_explorers():
    sultai = DECKS / "sultai_explore.txt"
    with pytest.raises(DeckError) as error:  # three edits: no near miss, the deck's list
        explore(sultai, explorer="Jadelite Ranger", trials=100, seed=1)
    assert str(error.value) == (
        "unknown explorer 'Jadelite Ranger'; the cards of 'Sultai Explore' that explore: "
        "Deepfathom Echo, Jadelight Ranger, Merfolk Branchwalker, Seekers' Squire, Siren "
        "Lookout")  # the permanents only: Enter the Unknown, a sorcery, cannot be the explorer
    with pytest.raises(DeckError) as error:  # a near miss: its card alone
        explore(sultai, explorer="Jadelight Rangr", trials=100, seed=1)
    assert str(error.value) == ("unknown explorer 'Jadelight Rangr' (did you mean 'Jadelight "
                                "Ranger'?)")
    bears = parse_deck("24 Forest\n36 Grizzly Bears\n")  # no card explores: nothing to list
    with pytest.raises(DeckError) as error:
        explore(bears, explorer="Jadelite Ranger", trials=100, seed=1)
    assert str(error.value) == "unknown explorer 'Jadelite Ranger'"
