"""Card lists typed as text (``--hand``, ``--battlefield``, ``--graveyard``, ``--known``,
``--card``, their Python arguments and the web page's fields) read a name with commas, such
as ``Nicanzil, Current Conductor``, as one card: the longest known name wins, options repeat,
and the page takes one name a line (explore_sim.cards.name_lists)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ROOT

from explore_sim import DeckError, explore, parse_deck
from explore_sim.analysis.advise import position
from explore_sim.analysis.value import chosen_cards
from explore_sim.cards import Card, Catalog
from explore_sim.cards.name_lists import joined_card_lists, split_card_names
from explore_sim.cli import main

NICANZIL = "Nicanzil, Current Conductor"
#: A deck holding a card with a comma in its name.
DECK_TEXT = (f"4 {NICANZIL}\n4 Cenote Scout\n4 Jadelight Ranger\n12 Forest\n12 Island\n"
             "24 Grizzly Bears\n")


@pytest.fixture
def deck_file(tmp_path):
    path = tmp_path / "nicanzil.txt"
    path.write_text(DECK_TEXT, encoding="utf-8")
    return path


def test_the_longest_known_name_is_taken_whole():
    catalog = Catalog.builtin()
    assert split_card_names(f"Forest, {NICANZIL}, Island", catalog) == \
        ["Forest", NICANZIL, "Island"]
    assert split_card_names("forest,nicanzil,current conductor", catalog) == \
        ["forest", "nicanzil, current conductor"]  # the pieces of a name joined by ", "
    assert split_card_names(f"2 Forest, 2x {NICANZIL},, 3 Island\n", catalog, counted=True) \
        == ["2 Forest", f"2x {NICANZIL}", "3 Island"]
    assert split_card_names("Forest, Unknown Thing, Island", catalog) == \
        ["Forest", "Unknown Thing", "Island"]  # what no source knows stays as typed
    assert split_card_names(" , \n", catalog) == []


def test_line_breaks_always_separate_and_commas_still_work_on_each_line():
    catalog = Catalog.builtin()
    assert split_card_names(f"{NICANZIL}\nForest, Island\nCenote Scout", catalog) == \
        [NICANZIL, "Forest", "Island", "Cenote Scout"]
    assert split_card_names("Nicanzil\nCurrent Conductor", catalog) == \
        ["Nicanzil", "Current Conductor"]
    assert joined_card_lists(["Forest, Island", NICANZIL]) == f"Forest, Island\n{NICANZIL}"
    assert joined_card_lists(None) == ""


def test_the_deck_decides_before_the_other_sources_which_are_opened_only_when_needed():
    deck = Catalog([Card("Nicanzil", "{G}", "Creature"),
                    Card("Current Conductor", "{U}", "Creature")])
    opened = []

    def everywhere():
        opened.append(True)
        return Catalog.builtin()

    # two cards of the deck, not merged into a name only a later source knows
    assert split_card_names(NICANZIL, deck, everywhere) == ["Nicanzil", "Current Conductor"]
    assert opened == []
    # a name the deck lacks but a later source knows is read whole (and named in the error)
    assert split_card_names(f"Forest, {NICANZIL}", Catalog([]), everywhere) == \
        ["Forest", NICANZIL]
    assert opened == [True]


def test_python_functions_read_names_with_commas():
    deck = parse_deck(DECK_TEXT)
    result = explore(deck, known=f"{NICANZIL}, Forest", drawn=8, trials=200, seed=1)
    assert result.meta["known"] == [NICANZIL, "Forest"]
    where = position(deck, turn=3, hand=f"{NICANZIL}, 2 Forest",
                     battlefield="Cenote Scout\n3 Island", graveyard=NICANZIL,
                     revealed="Grizzly Bears")
    assert {card.name: n for card, n in where.hand.items()} == {NICANZIL: 1, "Forest": 2}
    assert {card.name: n for card, n in where.graveyard.items()} == {NICANZIL: 1}
    assert [c.name for c in chosen_cards(deck, f"Cenote Scout, {NICANZIL}")] == \
        ["Cenote Scout", NICANZIL]
    assert [c.name for c in chosen_cards(deck, NICANZIL)] == [NICANZIL]


def test_a_name_with_commas_not_in_the_deck_is_one_error_naming_it_whole():
    deck = parse_deck("4 Cenote Scout\n20 Forest\n36 Grizzly Bears\n")
    with pytest.raises(DeckError, match=rf"^known: '{NICANZIL}' is not in the deck"):
        explore(deck, known=f"Forest, {NICANZIL}", trials=100, seed=1)
    with pytest.raises(DeckError, match=rf"^hand: '{NICANZIL}' is not in the deck"):
        position(deck, turn=3, hand=NICANZIL, battlefield="Cenote Scout, 2 Forest",
                 revealed="Grizzly Bears")
    with pytest.raises(DeckError, match=rf"^card: '{NICANZIL}' is not in the main deck"):
        chosen_cards(deck, f"Cenote Scout, {NICANZIL}")


def test_explore_known_repeats_and_keeps_the_comma_form(deck_file, capsys):
    assert main(["explore", str(deck_file), "--known", f"{NICANZIL}, Forest", "--known",
                 "Island", "--trials", "200", "--seed", "1", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["meta"]["known"] == [NICANZIL, "Forest",
                                                                      "Island"]


def test_advise_zones_read_names_with_commas(deck_file, capsys):
    assert main(["advise", str(deck_file), "--turn", "3", "--hand", f"{NICANZIL}, Forest",
                 "--hand", "Island", "--battlefield", "Cenote Scout, 2 Forest",
                 "--battlefield", "Island", "--graveyard", NICANZIL, "--revealed",
                 "Grizzly Bears", "--trials", "200", "--seed", "1", "--format", "json"]) == 0
    where = json.loads(capsys.readouterr().out)["meta"]["position"]
    assert where["hand"] == [NICANZIL, "Forest", "Island"]
    assert where["battlefield"] == ["Cenote Scout", "2 Forest", "Island"]
    assert where["graveyard"] == [NICANZIL]


@pytest.mark.slow
def test_value_card_takes_a_name_with_commas_and_the_comma_form(deck_file, capsys):
    assert main(["value", str(deck_file), "--card", f"Cenote Scout, {NICANZIL}",
                 "--max-lands", "1", "--turns", "4", "--trials", "200", "--seed", "1",
                 "--format", "json"]) == 0
    assert list(json.loads(capsys.readouterr().out)["meta"]["cards"]) == ["Cenote Scout",
                                                                          NICANZIL]


@pytest.mark.slow
def test_a_name_not_in_the_deck_is_one_line_and_status_2(tmp_path):
    deck = tmp_path / "plain.txt"
    deck.write_text("4 Cenote Scout\n20 Forest\n36 Grizzly Bears\n", encoding="utf-8")
    for args, message in [
        (["explore", str(deck), "--known", NICANZIL],
         f"--known: '{NICANZIL}' is not in the deck"),
        (["advise", str(deck), "--turn", "3", "--hand", NICANZIL, "--battlefield",
          "Cenote Scout, 2 Forest", "--revealed", "Grizzly Bears"],
         f"--hand: '{NICANZIL}' is not in the deck"),
        (["value", str(deck), "--card", NICANZIL],
         f"--card: '{NICANZIL}' is not in the main deck"),
    ]:
        out = subprocess.run([sys.executable, "-m", "explore_sim", *args, "--trials", "100"],
                             capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert out.returncode == 2 and out.stdout == "", out.stderr
        (line,) = out.stderr.splitlines()
        assert line.startswith(f"explore-sim: error: {message}"), line
