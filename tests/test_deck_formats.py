"""Every decklist format, detected and forced, from fixture files of each format's shape."""

from __future__ import annotations

import warnings

import pytest
from conftest import TESTS

from explore_sim import DeckError, DeckWarning, load_deck
from explore_sim.cards.decklist import detect_format

FIXTURES = TESTS / "fixtures" / "decks"
MAIN = {"Cenote Scout": 4, "Jadelight Ranger": 4, "Twists and Turns // Mycoid Maze": 2,
        "Forest": 12}


def counts(section):
    return {card.name: n for card, n in section}


@pytest.mark.parametrize("name, fmt", [("merfolk.dek", "dek"), ("moxfield.txt", "moxfield"),
                                       ("archidekt.txt", "archidekt"), ("grouped.txt", "arena")])
def test_fixture_decks_read_the_same(name, fmt):
    with warnings.catch_warnings():  # the Archidekt list's commander: a short Commander deck
        warnings.filterwarnings("ignore", ".*a Commander deck has 100 cards", DeckWarning)
        deck = load_deck(FIXTURES / name)
    assert deck.format == fmt
    assert counts(deck.main) == MAIN
    assert counts(deck.sideboard) == {"Get Lost": 2}


def test_archidekt_categories_decide_sections():
    with pytest.warns(DeckWarning, match="this one has 23 \\(22 \\+ 1 commander\\)"):
        deck = load_deck(FIXTURES / "archidekt.txt")
    assert counts(deck.commander) == {"Hakbal of the Surging Soul": 1}
    assert "Over the Edge" not in counts(deck.main)  # the maybeboard is not in the deck


@pytest.mark.parametrize("text, fmt", [
    ("4 Cenote Scout (LCI) 178\n20 Forest (LCI) 401\n", "arena"),
    ("Deck\n4 Cenote Scout\n", "arena"),
    ("4x Cenote Scout\nSB: 1 Get Lost\n", "mtgo"),
    ("4 Cenote Scout *F*\n", "moxfield"),
    ("1x Cenote Scout (lci) 178 [Creature]\n", "archidekt"),
    ("<?xml version='1.0'?><Deck></Deck>", "dek"),
    ("4 Cenote Scout\n20 Forest\n", "text"),
])
def test_detection(text, fmt):
    assert detect_format(text) == fmt


def test_forced_formats_change_blank_line_handling():
    text = "4 Cenote Scout\n\n16 Forest\n\n20 Island\n\n2 Get Lost\n"
    auto = load_deck(text)  # four blocks: all main
    assert auto.size == 42 and not auto.sideboard
    arena = load_deck(text, format="arena")  # the last block is the sideboard
    assert arena.size == 40 and counts(arena.sideboard) == {"Get Lost": 2}
    plain = load_deck("4 Cenote Scout\n20 Forest\n\n2 Get Lost\n", format="text")
    assert plain.size == 26 and not plain.sideboard


def test_forcing_dek_on_text_fails_clearly():
    with pytest.raises(DeckError, match="malformed XML"):
        load_deck("4 Cenote Scout\n20 Forest\n", format="dek")


@pytest.mark.parametrize("xml, message", [
    ('<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]>\n'
     '<Deck><Cards Quantity="4" Sideboard="false" Name="&lol2;"/></Deck>', "refused"),
    ('<?xml version="1.0"?>\n<!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
     '<Deck><Cards Quantity="1" Name="&x;"/></Deck>', "refused"),
    ('<?xml version="1.0"?>\n<Deck><Cards Quantity="4" Name="Forest">\n</Deck>', "malformed XML"),
    ('<?xml version="1.0"?>\n<Library><Cards Quantity="4" Name="Forest"/></Library>',
     "not an MTGO .dek"),
    ('<?xml version="1.0"?>\n<Deck>\n<Cards Quantity="0" Name="Forest"/></Deck>',
     ":3: Quantity '0'"),
    ('<?xml version="1.0"?>\n<Deck>\n<Cards Quantity="4" Name="Forset"/></Deck>',
     "did you mean 'Forest'"),
    ('<?xml version="1.0"?>\n<Deck>\n<Cards Quantity="4" Name="Forest" Sideboard="maybe"/></Deck>',
     "Sideboard must be true or false"),
])
def test_bad_dek_files(tmp_path, xml, message):
    path = tmp_path / "bad.dek"
    path.write_text(xml)
    with pytest.raises(DeckError, match=message) as error:
        load_deck(path)
    assert "\n" not in str(error.value)


def test_unknown_format_name():
    with pytest.raises(DeckError, match="unknown deck format"):
        load_deck("4 Forest\n", format="cockatrice")
