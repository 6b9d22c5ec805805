"""Commander decks told from the list itself (explore_sim.cards.commanders): a list without
sections of 99 to 101 singleton cards with a legendary creature is a Commander deck; an
unmarked commander among several is refused in one line; a Commander deck of another size
than 100 is told once; a commander also in the deck is refused naming both lines. In
Python, on the command line and on the page."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from html import unescape

import pytest
from conftest import DECKS

import explore_sim
from explore_sim.cards import Catalog
from explore_sim.cards.commanders import can_be_commander, deck_identity, is_basic_land
from explore_sim.cards.costs import mask_of
from explore_sim.cards.decklist import Deck, parse_deck
from explore_sim.cli import main
from explore_sim.errors import DeckError, DeckWarning

HAKBAL = "Hakbal of the Surging Soul"
NICANZIL = "Nicanzil, Current Conductor"
JANEWAY = "Captain Kathryn Janeway"


def spells(count: int, leaving_out: tuple[str, ...] = ()) -> list[str]:
    """Names of ``count`` built-in nonland cards that cannot be a commander, all within
    Hakbal's colour identity (blue and green)."""
    names = sorted(card.name for card in Catalog.builtin()
                   if not card.is_land and not can_be_commander(card)
                   and not deck_identity(card) & ~mask_of("UG")
                   and card.name not in leaving_out)
    assert len(names) >= count
    return names[:count]


def commander_list(first: str = HAKBAL, legends: tuple[str, ...] = (), size: int = 100,
                   header: str = "") -> str:
    """A singleton list of ``size`` cards: ``first`` on the first line, then ``legends``,
    thirty other spells and Forests and Islands; ``header`` lines on top."""
    names = [first, *legends, *spells(30, (first, *legends))]
    basics = size - len(names)
    lines = [f"1 {name}" for name in names]
    lines += [f"{basics // 2} Forest", f"{basics - basics // 2} Island"]
    return header + "\n".join(lines) + "\n"


def parsed(text: str) -> tuple[Deck, list[str]]:
    """The deck of ``text`` and the messages of the warnings its reading gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        deck = parse_deck(text)
    return deck, [str(w.message) for w in caught if issubclass(w.category, DeckWarning)]


# ------------------------------------------------------------------------------ Python


def test_a_commander_size_list_with_a_duplicate_is_played_without_a_commander_and_told():
    """One spell listed twice (an accidental duplicate) keeps the list from being read as a
    Commander deck: it is played as it is, and a warning says why."""
    names = spells(31, (HAKBAL,))
    lines = [f"1 {HAKBAL}", f"2 {names[0]}", *(f"1 {name}" for name in names[2:31]),
             "34 Forest", "34 Island"]
    deck, told = parsed("\n".join(lines) + "\n")
    assert deck.size == 100 and not deck.commander
    assert len(told) == 1
    assert told[0].startswith(f"<text>: a list of 100 cards without sections, its first line "
                              f"'{HAKBAL}', reads like a Commander deck, but it is not "
                              f"singleton (2 {names[0]}): it is played as a deck without a "
                              "commander")
    deck, told = parsed(commander_list())  # singleton: read as a Commander deck, as before
    assert deck.commander and not any("not singleton" in message for message in told)
    sixty = [f"4 {name}" for name in spells(9)] + ["12 Forest", "12 Island"]
    assert parsed("\n".join(sixty) + "\n")[1] == []  # a 60-card deck: nothing to tell


def test_a_header_less_100_card_singleton_list_is_a_commander_deck_led_by_its_first_line():
    deck, told = parsed(commander_list())
    assert [card.name for card, _ in deck.commander] == [HAKBAL]
    assert deck.size == 99 and HAKBAL not in [card.name for card in deck.cards]
    assert len(told) == 1
    assert f"'{HAKBAL}' (line 1, the first line) is the commander" in told[0]
    assert "write a 'Deck' line above the cards" in told[0]


def test_the_first_line_wins_over_other_legendary_creatures():
    deck, told = parsed(commander_list(legends=(NICANZIL, JANEWAY)))
    assert [card.name for card, _ in deck.commander] == [HAKBAL]
    assert deck.count(NICANZIL) == 1 and len(told) == 1


def test_the_only_legendary_creature_is_the_commander_wherever_it_is():
    deck, told = parsed(commander_list(first="Cenote Scout", legends=(HAKBAL,)))
    assert [card.name for card, _ in deck.commander] == [HAKBAL]
    assert len(told) == 1 and "(line 2, the only card that can be a commander)" in told[0]


#: Several legendary creatures, none on the first line: the commander is not marked.
UNMARKED = commander_list(first="Cenote Scout", legends=(HAKBAL, NICANZIL))


def test_several_legendary_creatures_and_none_first_is_one_line_saying_how_to_mark_it():
    with pytest.raises(DeckError) as raised:
        parse_deck(UNMARKED)
    message = str(raised.value)
    assert "\n" not in message
    assert f"'{HAKBAL}'" in message and f"'{NICANZIL}'" in message
    assert "put the commander on the first line, or under a 'Commander' line" in message


@pytest.mark.parametrize("size", [99, 101])
def test_one_card_off_is_still_a_commander_deck_and_its_size_is_told(size):
    deck, told = parsed(commander_list(size=size))
    assert [card.name for card, _ in deck.commander] == [HAKBAL]
    assert len(told) == 2 and "read as a Commander deck" in told[0]
    assert f"a Commander deck has 100 cards with its commander; this one has {size} " \
           f"({size - 1} + 1 commander)" in told[1]


@pytest.mark.parametrize("text", [
    commander_list(header="Deck\n"),  # marked: a deck without a commander
    commander_list(size=98),
    commander_list(size=102),
    commander_list(first="Cenote Scout"),  # no legendary creature
    commander_list() + "\nSideboard\n1 Grizzly Bears\n",
])
def test_other_lists_stay_decks_without_a_commander(text):
    deck, told = parsed(text)
    assert deck.commander == () and told == []


def test_a_101_card_list_with_headers_is_played_as_it_is_and_told_once():
    body = commander_list(size=101).split("\n", 1)[1]
    deck, told = parsed(f"Commander\n1 {HAKBAL}\n\nDeck\n{body}")
    assert deck.size == 100 and [card.name for card, _ in deck.commander] == [HAKBAL]
    assert told == ["<text>: a Commander deck has 100 cards with its commander; this one has "
                    "101 (100 + 1 commander); it is played as it is"]
    _, exact = parsed(f"Commander\n1 {HAKBAL}\n\nDeck\n{commander_list().split(chr(10), 1)[1]}")
    assert exact == []


def test_cards_outside_the_commanders_colour_identity_are_told_once_with_their_lines():
    """Vraska's Contempt ({B} in its cost), Woodland Cemetery ({B} in its mana ability) and
    a Swamp (a basic land type making B, CR 903.5d) are outside Hakbal's blue and green;
    Command Tower ("your commander's colours") and Arcane Signet are not."""
    body = commander_list().split("\n", 1)[1].replace(
        "34 Forest", "30 Forest\n1 Woodland Cemetery\n1 Swamp\n1 Vraska's Contempt\n"
        "1 Arcane Signet")
    text = f"Commander\n1 {HAKBAL}\n\nDeck\n{body}"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        deck = explore_sim.load_deck(text, cards=[DECKS / "golgari_explore.cards.toml",
                                                  DECKS / "hakbal_merfolk_commander.cards.toml"])
    told = [str(w.message) for w in caught if issubclass(w.category, DeckWarning)]
    assert deck.size == 99 and told == [
        "<text>: 3 cards outside the commander's colour identity (UG): line 36 'Woodland "
        "Cemetery' (B), line 37 'Swamp' (B), line 38 \"Vraska's Contempt\" (B); a Commander "
        "deck may not hold them (CR 903.4, 903.5d); they are played as listed"]
    assert deck_identity(Catalog.builtin().get("Forest")) == mask_of("G")


def test_a_commander_also_in_the_deck_is_refused_naming_both_lines():
    body = commander_list().split("\n", 1)[1]
    text = f"Commander\n1 {HAKBAL}\n\nDeck\n1 {HAKBAL}\n{body}"
    with pytest.raises(DeckError) as raised:
        parse_deck(text)
    assert str(raised.value) == (
        f"<text>:5: '{HAKBAL}' is the commander (line 2) and also in the deck (line 5); a "
        "commander starts in the command zone, not in the library: list it once, under "
        "'Commander'")
    hakbal = Catalog.builtin().get(HAKBAL)
    with pytest.raises(DeckError, match="is both the commander and in the main deck"):
        Deck(name="built", main=((hakbal, 1),), commander=((hakbal, 1),))


def test_a_detected_commander_plays_a_commander_game():
    with pytest.warns(DeckWarning, match="read as a Commander deck"):
        result = explore_sim.simulate(commander_list(), turns=5, trials=2000, seed=1,
                                      engine="numpy")
    formats = result.meta["formats"][0]
    assert formats["game"] == "commander" and formats["commander"] == [HAKBAL]
    assert formats["library"] == 99 and formats["starting_life"] == 40
    cast = result.summary().query("metric == 'commander_cast' and turn == 5")["mean"]
    assert float(cast.iloc[0]) > 0.3


def test_what_can_be_a_commander():
    catalog = Catalog.builtin()
    assert can_be_commander(catalog.get(HAKBAL)) and can_be_commander(catalog.get(NICANZIL))
    assert not can_be_commander(catalog.get("Cenote Scout"))
    assert is_basic_land(catalog.get("Forest")) and is_basic_land(catalog.get("Wastes"))
    assert not is_basic_land(catalog.get("Restless Anchorage"))


# ------------------------------------------------------------------------------ command line


def run_cli(capsys, tmp_path, text, *args):
    deck = tmp_path / "list.txt"
    deck.write_text(text, encoding="utf-8")
    status = main(["explore", str(deck), "--trials", "500", "--seed", "1", "--format", "csv",
                   *args])
    return status, capsys.readouterr()


def test_the_command_line_says_which_card_is_the_commander_once(capsys, tmp_path):
    status, out = run_cli(capsys, tmp_path, commander_list())
    assert status == 0
    told = out.err.strip().splitlines()
    assert len(told) == 1 and told[0].startswith("explore-sim: warning: ")
    assert f"'{HAKBAL}' (line 1, the first line) is the commander" in told[0]


def test_the_command_line_tells_a_commander_deck_of_101_cards_once(capsys, tmp_path):
    body = commander_list(size=101).split("\n", 1)[1]
    status, out = run_cli(capsys, tmp_path, f"Commander\n1 {HAKBAL}\n\nDeck\n{body}")
    assert status == 0
    told = out.err.strip().splitlines()
    assert len(told) == 1 and "this one has 101 (100 + 1 commander)" in told[0]


@pytest.mark.parametrize("text, message", [
    (UNMARKED, "put the commander on the first line"),
    (f"Commander\n1 {HAKBAL}\n\nDeck\n1 {HAKBAL}\n" + commander_list().split("\n", 1)[1],
     "is the commander (line 2) and also in the deck (line 5)"),
])
def test_the_command_line_refuses_in_one_line_with_status_2(capsys, tmp_path, text, message):
    status, out = run_cli(capsys, tmp_path, text)
    assert status == 2 and out.out == ""
    assert len(out.err.strip().splitlines()) == 1 and "Traceback" not in out.err
    assert out.err.startswith("explore-sim: error: ") and message in out.err


@pytest.mark.slow
def test_the_installed_command_exits_2_on_an_unmarked_commander(tmp_path):
    deck = tmp_path / "list.txt"
    deck.write_text(UNMARKED, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "explore_sim", "explore", str(deck),
                          "--trials", "100"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert "put the commander on the first line" in out.stderr


# ------------------------------------------------------------------------------ the page


@pytest.fixture
def client():
    from starlette.testclient import TestClient

    from explore_sim.web import create_app

    with TestClient(create_app(), raise_server_exceptions=False) as c:
        yield c


@pytest.mark.slow
def test_the_page_notes_the_commander_it_found(client):
    from web_helpers import job_of, wait_for

    response = client.post("/", data={"action": "run", "analysis": "explore",
                                      "deck": commander_list(), "trials": "1000",
                                      "seed": "1"}, follow_redirects=False)
    wait_for(job_of(client, response))
    page = unescape(client.get(response.headers["location"]).text)
    notes = re.findall(r'<p class="banner note">(.*?)</p>', page, flags=re.S)
    assert len(notes) == 1 and "read as a Commander deck" in notes[0]
    assert f"'{HAKBAL}' (line 1, the first line) is the commander" in notes[0]


@pytest.mark.parametrize("text, message", [
    (UNMARKED, "put the commander on the first line"),
    (f"Commander\n1 {HAKBAL}\n\nDeck\n1 {HAKBAL}\n" + commander_list().split("\n", 1)[1],
     "is the commander (line 2) and also in the deck (line 5)"),
])
def test_the_page_shows_the_commander_problems_by_the_deck(client, text, message):
    response = client.post("/", data={"action": "run", "analysis": "explore", "deck": text})
    assert response.status_code == 400
    box = re.search(r'<div class="problems" id="deck-problems">(.*?)</div>',
                    unescape(response.text), flags=re.S)
    assert box and message in box.group(1)


@pytest.mark.parametrize("size, told", [(1, True), (30, True), (39, True), (40, False),
                                        (60, False)])
def test_a_deck_smaller_than_any_format_is_told_once(size, told):
    """A main deck of fewer than 40 cards (a list pasted in part?) is played as it is, with
    one warning saying so; a Limited or a constructed deck is not told."""
    deck, warned = parsed(f"{size - 14} Cenote Scout\n14 Forest\n" if size > 14 else
                          "1 Cenote Scout\n")
    assert deck.size == size
    cards = f"{size} card{'s' if size > 1 else ''}"
    assert warned == ([f"<text>: {cards}, fewer than any format's deck holds (40 in "
                       "Limited, 60 constructed); it is played as it is, so every answer is "
                       "of this deck (a list pasted in part?)"] if told else [])
