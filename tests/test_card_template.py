"""From a pasted decklist to numbers: unknown cards named with the fix, a card file skeleton
that loads once it is filled in, sideboard cards that need not be known, card files that
correct built-in cards, and ``load_deck(..., cards=..., cards_dir=...)``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
import warnings

import pytest
from conftest import DECKS, ROOT, TESTS

import explore_sim
from explore_sim import CardError, DeckError, DeckWarning, load_deck, parse_deck
from explore_sim.cards import Catalog, card_template, unknown_cards
from explore_sim.cards.card_files import _FIELDS
from explore_sim.cards.card_index import import_cards

#: An Arena export of a Golgari explore deck: seven cards outside the built-in catalog in the
#: main deck (one of them twice), two in the sideboard, one companion.
ARENA_EXPORT = """\
About
Name Golgari Paste

Companion
1 Fixture Companion Beast (TST) 9

Deck
4 Llanowar Elves (DOM) 168
4 Jadelight Ranger (RIX) 136
4 Merfolk Branchwalker (RIX) 141
3 Tireless Tracker (SOI) 233
2 Mosswood Dreadknight (WOE) 231
2 Tarrian's Journal (LCI) 264
1 Ghalta, Primal Hunger (RIX) 130
4 Woodland Cemetery (DOM) 248
2 Llanowar Elves (M19) 314
12 Forest (ELD) 266
8 Swamp (ELD) 258
4 Wildgrowth Walker (RIX) 143
4 Cenote Scout (LCI) 178
6 Grizzly Bears (M10) 175

Sideboard
2 Duress (XLN) 105
1 Cast Down (DOM) 81
2 Get Lost (LCI) 14
"""
UNKNOWN_MAIN = ["Llanowar Elves", "Tireless Tracker", "Mosswood Dreadknight",
                "Tarrian's Journal", "Ghalta, Primal Hunger", "Woodland Cemetery"]

#: What a player would write into the skeleton, card by card.
FILLED = {
    "Llanowar Elves": ('Creature — Elf Druid', "{G}", 'produces = "G"\npower = 1\ntoughness = 1'),
    "Tireless Tracker": ("Creature — Human Scout", "{2}{G}", "power = 3\ntoughness = 2"),
    "Mosswood Dreadknight": ("Creature — Human Knight // Sorcery — Adventure", "{1}{B}{G}",
                             'layout = "adventure"\npower = 3\ntoughness = 2'),
    "Tarrian's Journal": ("Legendary Artifact // Legendary Land", "{1}{B}",
                          'layout = "transform"'),
    "Ghalta, Primal Hunger": ("Legendary Creature — Elder Dinosaur", "{10}{G}{G}",
                              "power = 12\ntoughness = 12"),
    "Woodland Cemetery": ("Land", "", 'produces = "BG"\nenters_tapped = "unless:swamp|forest"'),
}


def run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "explore_sim", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=120)


def fill_in(template: str) -> str:
    """The skeleton with every card's type line, cost and a few fields written in."""
    tables = template.split("[[card]]\n")
    out = [tables[0]]
    for table in tables[1:]:
        name = tomllib.loads(table)["name"]
        type_line, cost, extra = FILLED[name]
        table = table.replace('type_line = ""', f'type_line = "{type_line}"', 1)
        table = table.replace('mana_cost = ""', f'mana_cost = "{cost}"', 1)
        out.append(table + extra + "\n\n")
    return "[[card]]\n".join(out)


@pytest.fixture
def pasted(tmp_path):
    deck = tmp_path / "golgari_paste.txt"
    deck.write_text(ARENA_EXPORT, encoding="utf-8")
    return deck


@pytest.mark.slow
def test_unknown_cards_are_one_error_line_naming_them_all_and_the_fix(pasted):
    out = run("simulate", str(pasted), "--turns", "3", "--trials", "100")
    assert out.returncode == 2 and out.stdout == ""
    assert "Traceback" not in out.stderr
    (line,) = out.stderr.splitlines()
    assert line.startswith(f"explore-sim: error: {pasted}: unknown cards: line 8 'Llanowar Elves'")
    named = [a or b for a, b in re.findall(r"line \d+ (?:'([^']+)'|\"([^\"]+)\")", line)]
    assert named == UNKNOWN_MAIN  # each once, in decklist order; the sideboard is not named
    assert "'explore-sim cards update'" in line and "(online)" in line
    # offline: a card database downloaded in a browser, imported (docs/getting-started.md)
    assert ("'explore-sim cards import FILE' with Scryfall's 'Oracle Cards' or MTGJSON's "
            "AtomicCards file downloaded in a browser") in line
    companion = pasted.with_name("golgari_paste.cards.toml")
    assert f"'explore-sim cards template {pasted} -o {companion}'" in line
    assert "--cards FILE" in line


def test_the_fix_names_another_file_when_the_deck_has_its_card_file_already(tmp_path):
    deck = tmp_path / "deck.txt"
    deck.write_text("4 Tireless Tracker\n20 Forest\n")
    (tmp_path / "deck.cards.toml").write_text(
        '[[card]]\nname = "Tidecaller Scout"\nmana_cost = "{1}{U}"\n'
        'type_line = "Creature — Merfolk Scout"\n')
    with pytest.raises(DeckError, match=r"cards template .*deck\.txt -o FILE' writes one for "
                                        r"this card; .*--cards FILE.* or add its cards to "
                                        r"deck\.cards\.toml$"):
        load_deck(deck)
    with pytest.raises(DeckError, match=r"cards template DECK -o FILE.*--cards FILE"):
        parse_deck("4 Tireless Tracker\n20 Forest\n")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.slow
def test_a_fifo_named_as_the_decks_card_file_is_an_error_not_skipped(tmp_path):
    deck = tmp_path / "deck.txt"
    deck.write_text("24 Forest\n36 Grizzly Bears\n")
    os.mkfifo(tmp_path / "deck.cards.toml")  # nobody writes to it: reading it would hang
    with pytest.raises(CardError, match=r"deck\.cards\.toml: is a FIFO \(named pipe\), not a "
                                        r"card file \(only regular files are read\)$"):
        load_deck(deck)
    out = run("simulate", str(deck), "--turns", "2", "--trials", "100")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == (f"explore-sim: error: {tmp_path}/deck.cards.toml: is a FIFO (named "
                          "pipe), not a card file (only regular files are read)\n")
    (tmp_path / "deck.cards.toml").unlink()
    (tmp_path / "deck.cards.toml").symlink_to(tmp_path / "nowhere.toml")
    with pytest.raises(CardError, match=r"deck\.cards\.toml: no such card file"):
        load_deck(deck)


@pytest.mark.slow
def test_cards_template_writes_a_file_that_loads_once_filled_in(pasted, tmp_path):
    companion = pasted.with_name("golgari_paste.cards.toml")
    out = run("cards", "template", str(pasted), "-o", str(companion))
    assert out.returncode == 0, out.stderr
    assert out.stdout == ""
    assert out.stderr == (f"explore-sim: wrote {companion}: 6 cards to fill in (type_line, "
                          "mana_cost); it is read with the deck\n")
    template = companion.read_text(encoding="utf-8")
    tables = tomllib.loads(template)["card"]  # valid TOML as written
    assert [t["name"] for t in tables] == UNKNOWN_MAIN
    assert all(t["type_line"] == "" and t["mana_cost"] == "" for t in tables)
    assert "Duress" not in template and "Fixture Companion Beast" not in template
    for field in _FIELDS.keys() - {"name", "type_line", "mana_cost"}:  # every optional field
        assert re.search(rf"^# {field} = ", template, flags=re.M), field

    # Not filled in: one line naming the file, the line of the first card and the field.
    first = template.splitlines().index("[[card]]") + 1
    out = run("simulate", str(pasted), "--turns", "3", "--trials", "100")
    assert out.returncode == 2
    assert out.stderr == (f"explore-sim: error: {companion}:{first}: card 'Llanowar Elves': "
                          "type_line is empty; write the card's type line, e.g. \"Creature — "
                          "Merfolk Scout\", \"Instant\" or \"Land — Forest Island\"\n")

    # A type line but no cost: refused too, never a free spell.
    companion.write_text(template.replace('type_line = ""', 'type_line = "Creature — Elf"', 1))
    with pytest.raises(CardError, match=rf"golgari_paste\.cards\.toml:{first}: card 'Llanowar "
                                        r"Elves': mana_cost is empty for a nonland card"):
        load_deck(pasted)

    companion.write_text(fill_in(template), encoding="utf-8")
    out = run("simulate", str(pasted), "--turns", "3", "--trials", "2000", "--seed", "1",
              "--format", "json")
    assert out.returncode == 0, out.stderr
    assert "Duress" in out.stderr and "Cast Down" in out.stderr  # left out, with a warning
    with pytest.warns(DeckWarning):
        deck = load_deck(pasted)
    assert deck.size == 60 and deck.land_count == 24
    assert deck.count("Llanowar Elves") == 6
    sources = dict(zip(deck.table()["name"], deck.table()["source"]))
    assert sources["Tireless Tracker"] == "card file golgari_paste.cards.toml"
    assert sources["Jadelight Ranger"] == "built-in"


@pytest.mark.slow
def test_cards_template_to_standard_output_and_its_errors(pasted, tmp_path):
    out = run("cards", "template", str(pasted))
    assert out.returncode == 0 and out.stdout.count("[[card]]") == 6
    assert out.stdout == card_template(pasted)
    out = run("cards", "template", str(DECKS / "golgari_explore.txt"), "-o",
              str(tmp_path / "none.toml"))
    assert out.returncode == 0
    assert out.stdout.endswith("golgari_explore.txt: every main-deck card is known; no card "
                               "file is needed\n")
    assert not (tmp_path / "none.toml").exists()
    existing = tmp_path / "mine.toml"
    existing.write_text("# mine\n")
    for target, message in ((existing, "already exists"), (tmp_path / "x.txt", "must end in .toml"),
                            (tmp_path / "no" / "x.toml", "cannot write")):
        out = run("cards", "template", str(pasted), "-o", str(target))
        assert out.returncode == 2 and len(out.stderr.splitlines()) == 1, out.stderr
        assert message in out.stderr
    assert existing.read_text() == "# mine\n"


def test_template_knows_card_files_typos_and_decklist_text(tmp_path):
    mine = tmp_path / "mine.toml"
    mine.write_text('[[card]]\nname = "Tireless Tracker"\nmana_cost = "{2}{G}"\n'
                    'type_line = "Creature — Human Scout"\n')
    text = "Deck\n4 Tireless Tracker\n2 Jadelight Rangr\n20 Forest\nSideboard\n1 Duress\n"
    assert unknown_cards(text, cards=[mine]) == [(3, "Jadelight Rangr")]
    template = card_template(text, cards=mine)
    assert ("# did you mean 'Jadelight Ranger'? If so, correct the decklist and delete this "
            "table; if not, describe the card below") in template
    header = " ".join(line[2:] for line in template.splitlines() if line.startswith("# "))
    assert ("then pass this file with --cards FILE (load_deck(DECK, cards=[FILE]) in Python)."
            in header)
    assert [t["name"] for t in tomllib.loads(template)["card"]] == ["Jadelight Rangr"]


def test_unknown_sideboard_and_companion_cards_only_warn():
    text = ("Companion\n1 Fixture Companion Beast\n\nDeck\n4 Cenote Scout\n36 Forest\n\n"
            "Sideboard\n2 Duress\n1 Get Lost\n")
    with pytest.warns(DeckWarning) as caught:
        deck = parse_deck(text, source="paste.txt")
    (warning,) = caught
    assert str(warning.message) == (
        "paste.txt: unknown cards left out of the deck (sideboard and companion cards are "
        "never shuffled): companion line 2 'Fixture Companion Beast'; sideboard line 9 'Duress'")
    assert deck.size == 40 and deck.companion == ()
    assert [(card.name, n) for card, n in deck.sideboard] == [("Get Lost", 1)]


def test_an_unknown_maybeboard_card_is_no_error():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        deck = parse_deck("1x Cenote Scout (lci) 178 [Creature]\n39x Forest (lci) 401 [Land]\n"
                          "1x Some Maybe Card (abc) 1 [Maybeboard]\n", format="archidekt")
    assert deck.size == 40


def test_a_card_file_entry_overrides_a_built_in_card(tmp_path):
    scouts = tmp_path / "scouts.toml"
    scouts.write_text('[[card]]\nname = "Cenote Scout"\nmana_cost = "{G}"\n'
                      'type_line = "Creature — Merfolk Scout"\npower = 1\ntoughness = 1\n'
                      'explores = 2\nexplores_when = "enter"\n')
    path = tmp_path / "scouts.txt"
    path.write_text("24 Forest\n36 Cenote Scout\n")
    built_in, fixed = load_deck(path), load_deck(path, cards=[scouts])
    scout = fixed.features().id_of(Catalog(fixed.cards).get("Cenote Scout"))
    assert fixed.features().explores[scout] == 2 and built_in.features().explores[scout] == 1
    assert fixed.table().set_index("name")["source"].to_dict() == {
        "Forest": "built-in", "Cenote Scout": "card file scouts.toml"}
    assert explore_sim.explore(fixed, explorer="Cenote Scout", trials=100,
                               seed=1).meta["explores"] == 2
    turn_one = {}
    for label, deck in (("built-in", built_in), ("fixed", fixed)):
        summary = explore_sim.simulate(deck, turns=1, trials=4000, seed=3).summary()
        (turn_one[label],) = summary.query("turn == 1 and metric == 'explores'")["mean"]
    # The same shuffles cast the same Scout on turn 1: it explores twice instead of once.
    assert turn_one["built-in"] > 0.5 and turn_one["fixed"] == 2 * turn_one["built-in"]


def test_load_deck_takes_card_files_and_a_card_directory(tmp_path):
    cards_dir = tmp_path / "index"
    import_cards(TESTS / "fixtures" / "cards" / "scryfall_oracle.json", cards_dir)
    mine = tmp_path / "mine.toml"
    mine.write_text('[[card]]\nname = "Tidecaller Scout"\nmana_cost = "{1}{U}"\n'
                    'type_line = "Creature — Merfolk Scout"\nexplores = 1\n'
                    'explores_when = "enter"\n')
    path = tmp_path / "deck.txt"
    path.write_text("4 Fixture Wayfinder\n4 Tidecaller Scout\n20 Island\n")
    with pytest.raises(DeckError, match="unknown card: line 1 'Fixture Wayfinder'"):
        load_deck(path, cards=[mine])  # the default card directory has no index
    deck = load_deck(path, cards=[mine], cards_dir=cards_dir)
    assert deck.table().set_index("name")["source"].to_dict() == {
        "Fixture Wayfinder": "scryfall", "Tidecaller Scout": "card file mine.toml",
        "Island": "built-in"}
    assert load_deck(str(path), cards=str(mine), cards_dir=str(cards_dir)).size == 28
    with pytest.raises(explore_sim.OptionError, match="not both"):
        load_deck(path, catalog=explore_sim.Catalog.builtin(), cards=[mine])


def test_the_unknown_card_error_keeps_the_fix_whole_however_long_the_names():
    lines = [f"1 {'Q' * 150} {i}" for i in range(40)] + ["20 Forest"]
    with pytest.raises(DeckError) as error:
        parse_deck("\n".join(lines), source="long.txt")
    message = str(error.value)
    assert len(message) <= 4000 and "\n" not in message
    assert re.search(r"; and \d+ more; to fix: run 'explore-sim cards update'", message)
    assert message.endswith("(load_deck(DECK, cards=[FILE]) in Python)")
