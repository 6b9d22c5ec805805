"""Decklist formats, clear errors, shipped decks and parser fuzzing."""

from __future__ import annotations

import warnings

import pytest
from conftest import DECKS
from hypothesis import HealthCheck, given, settings, strategies as st

import explore_sim
from explore_sim import DeckError, DeckWarning, load_deck, parse_deck


def counts(deck_section):
    return {card.name: n for card, n in deck_section}


def test_arena_export_with_sections_and_set_codes():
    with pytest.warns(DeckWarning, match="this one has 25 \\(24 \\+ 1 commander\\)"):
        deck = parse_deck(
            "About\nName Merfolk Test\n\n"
            "Commander\n1 Hakbal of the Surging Soul (LCC) 3\n\n"
            "Companion\n1 Cenote Scout (LCI) 178\n\n"
            "Deck\n4 Cenote Scout (LCI) 178\n20 Forest (LCI) 401\n\n"
            "Sideboard\n2 Get Lost (LCI) 14\n"
        )
    assert deck.name == "Merfolk Test"
    assert counts(deck.main) == {"Cenote Scout": 4, "Forest": 20}
    assert counts(deck.commander) == {"Hakbal of the Surging Soul": 1}  # not in the library
    assert counts(deck.companion) == {"Cenote Scout": 1}
    assert counts(deck.sideboard) == {"Get Lost": 2}
    assert deck.size == 24 and deck.land_count == 20


@pytest.mark.parametrize("header", ["Deck (24)", "Deck: 24", "deck", "Main Deck", "Deck 24"])
def test_headers_may_carry_counts(header):
    deck = parse_deck(f"{header}\n4 Cenote Scout\n20 Forest\nSideboard (1)\n1 Get Lost\n")
    assert deck.size == 24 and counts(deck.sideboard) == {"Get Lost": 1}


def test_mtgo_text_with_x_counts_and_sb_lines():
    deck = parse_deck("4x Cenote Scout\n20 Forest\nSB: 2 Get Lost\n# a comment\n// another\n")
    assert counts(deck.main) == {"Cenote Scout": 4, "Forest": 20}
    assert counts(deck.sideboard) == {"Get Lost": 2}


def test_mtgo_sideboard_line():
    deck = parse_deck("4 Cenote Scout\n20 Forest\nSideboard\n3 Get Lost\n")
    assert counts(deck.sideboard) == {"Get Lost": 3}


def test_headerless_blank_line_starts_the_sideboard_with_a_warning():
    with pytest.warns(DeckWarning, match="read as the sideboard"):
        deck = parse_deck("4 Cenote Scout\n20 Forest\n\n2 Get Lost\n")
    assert deck.size == 24 and counts(deck.sideboard) == {"Get Lost": 2}


def test_headerless_groups_separated_by_blank_lines_stay_in_the_main_deck():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        deck = parse_deck("4 Cenote Scout\n\n16 Grizzly Bears\n\n20 Forest\n\n20 Island\n")
    assert deck.size == 60 and not deck.sideboard


def test_repeated_lines_add_up_and_double_faced_front_names_resolve():
    deck = parse_deck("2 Forest\n3 Forest\n1 Twists and Turns\n")
    assert counts(deck.main) == {"Forest": 5, "Twists and Turns // Mycoid Maze": 1}


def test_what_if_decks_are_valid():
    deck = parse_deck("24 Forest\n36 Grizzly Bears\n")
    assert deck.size == 60 and deck.land_count == 24


def test_unknown_cards_are_all_listed_with_suggestions():
    with pytest.raises(DeckError) as error:
        parse_deck("4 Cenote Scot\n20 Forest\n2 Jadelight Rangr\n1 Xyzzy Plugh\n", source="my.txt")
    message = str(error.value)
    assert "\n" not in message
    assert "my.txt: unknown cards" in message
    assert "line 1 'Cenote Scot' (did you mean 'Cenote Scout'" in message
    assert "line 3 'Jadelight Rangr'" in message and "'Jadelight Ranger'" in message
    assert "line 4 'Xyzzy Plugh'" in message


@pytest.mark.parametrize(
    "text, message",
    [
        ("4 Forest\nCenote Scout\n", r"<text>:2: malformed line 'Cenote Scout'"),
        ("0 Forest\n", r"<text>:1: count 0 is out of range"),
        ("-3 Forest\n", r"<text>:1: count -3 is out of range"),
        ("9999 Forest\n", r"<text>:1: count 9999 is out of range"),
        ("", r"the main deck is empty"),
        ("# only a comment\n\n", r"the main deck is empty"),
        ("Sideboard\n2 Get Lost\n", r"the main deck is empty"),
        ("About\nhello\nDeck\n4 Forest\n", r"<text>:2: expected 'Name"),
        ("4 Forest{x}\n", r"malformed card name"),
        ("250 Forest\n250 Island\n250 Swamp\n250 Mountain\n250 Plains\n", "at most 1000"),
    ],
)
def test_bad_input_names_the_line(text, message):
    with pytest.raises(DeckError, match=message):
        parse_deck(text)


def test_missing_file_binary_file_and_directory(tmp_path):
    with pytest.raises(DeckError, match="no such decklist file"):
        load_deck(tmp_path / "nope.txt")
    binary = tmp_path / "deck.bin"
    binary.write_bytes(b"\xff\xfe\x00\x01garbage")
    with pytest.raises(DeckError, match="not a text decklist"):
        load_deck(binary)
    with pytest.raises(DeckError, match="is a directory"):
        load_deck(tmp_path)


def test_text_with_a_newline_is_parsed_directly():
    assert load_deck("4 Forest\n4 Cenote Scout\n").size == 8


def test_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes("\ufeff4 Forest\n2 Cenote Scout\n".encode())
    assert load_deck(path).size == 6


def test_a_byte_order_mark_at_the_start_of_decklist_text_is_dropped_as_a_file_s_is():
    text = "4 Forest\n2 Cenote Scout\n"
    assert parse_deck("\ufeff" + text) == parse_deck(text)
    assert load_deck("\ufeff" + text).size == 6


@pytest.mark.parametrize(
    "name, size, lands", [("lci_merfolk_explore.txt", 60, 24),
                          ("xln_sultai_explore.txt", 60, 24),
                          ("lci_limited_gu.txt", 40, 17)])
def test_shipped_decks(name, size, lands):
    deck = load_deck(DECKS / name)
    assert (deck.size, deck.land_count) == (size, lands)


def test_shipped_ixalan_deck_has_the_named_cards():
    deck = load_deck(DECKS / "xln_sultai_explore.txt")
    assert deck.count("Jadelight Ranger") == 4 and deck.count("Wildgrowth Walker") == 4


CARD_NAMES = ["Forest", "Island", "Cenote Scout", "Get Lost", "Twists and Turns"]
line = st.one_of(
    st.text(max_size=40),
    st.builds(lambda n, c, x: f"{n}{x} {c}", st.integers(-5, 300), st.sampled_from(CARD_NAMES),
              st.sampled_from(["", "x", "X"])),
    st.sampled_from(["Deck", "Sideboard", "About", "Name Foo", "Commander", "", "SB: 1 Forest",
                     "// c", "# c", "Companion", "Deck (3)", "4 Forest (LCI) 401"]),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(line, max_size=12))
@pytest.mark.slow
def test_fuzz_parser_only_raises_deck_errors(lines):
    text = "\n".join(lines)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeckWarning)
        try:
            deck = parse_deck(text)
        except explore_sim.ExploreSimError as error:
            assert "\n" not in str(error)
            return
    assert deck.size > 0
    assert all(count > 0 for _, count in deck.main)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
@pytest.mark.slow
def test_fuzz_files_only_raise_deck_errors(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "deck.txt"
    path.write_bytes(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeckWarning)
        try:
            load_deck(path)
        except explore_sim.ExploreSimError:
            pass


def test_deck_from_counts_takes_pairs_or_a_dict():
    pairs = explore_sim.deck_from_counts([("Forest", 24), ("Grizzly Bears", 36)])
    mapping = explore_sim.deck_from_counts({"Forest": 24, "Grizzly Bears": 36})
    assert pairs == mapping and mapping.size == 60 and mapping.land_count == 24
    assert explore_sim.deck_from_counts({"Forest": 24}, filler="Island").filler == "Island"


@pytest.mark.parametrize("counts, message", [
    ("Forest", "expects \\(card name, copies\\) pairs or a \\{card name: copies\\} dict, got str"),
    (24, "got int"),
    (["Forest", "Island"], "got 'Forest'"),
    ([("Forest", 24, "x")], "got \\('Forest', 24, 'x'\\)"),
    ([(24, "Forest")], "card names must be text"),
    ({"Forest": "24"}, "Forest: count must be a whole number >= 1, got '24'"),
    ({"Forest": 0}, "count must be a whole number >= 1, got 0"),
    ({"Forest": True}, "got True"),
    ({"Forest": 2.5}, "got 2.5"),
    ({"Forrest": 24}, "did you mean 'Forest'"),
    ({}, "the main deck is empty"),
])
def test_deck_from_counts_refuses_other_shapes_in_one_line(counts, message):
    with pytest.raises(DeckError, match=message) as error:
        explore_sim.deck_from_counts(counts)
    assert "\n" not in str(error.value)


def test_a_shipped_name_beside_a_file_of_that_name_warns(tmp_path, monkeypatch):
    """``golgari`` is the shipped deck; a ``golgari.txt`` in the working folder is not read,
    and a warning says so."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "golgari.txt").write_text("24 Forest\n36 Grizzly Bears\n", encoding="utf-8")
    with pytest.warns(DeckWarning, match=r"golgari: the shipped deck golgari_explore.txt, not "
                                         r"golgari.txt here \(give golgari.txt to play that "
                                         r"file\)"):
        deck = explore_sim.load_deck("golgari")
    assert deck.name == "Golgari Explore"
    assert explore_sim.load_deck("golgari.txt").size == 60
