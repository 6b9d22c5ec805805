"""Importing Scryfall and MTGJSON files: classification by E10, abilities from text, errors."""

from __future__ import annotations

import gzip
import json
import lzma
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT, TESTS

import explore_sim
from explore_sim.cards.card_index import CardIndex, card_sources, import_cards, index_path
from explore_sim.cli import main
from explore_sim.errors import CardError

FIXTURES = TESTS / "fixtures" / "cards"
SCRYFALL = FIXTURES / "scryfall_oracle.json"
MTGJSON = FIXTURES / "mtgjson_atomic.json"

# name -> (is_land, is_land_like, is_creature, mana value), by explore rule E10
LAYOUTS = {
    "normal": ("Llanowar Elves", False, False, True, 1),
    "normal land creature": ("Dryad Arbor", True, False, True, 0),
    "modal_dfc land // land": ("Brightclimb Pathway // Grimclimb Pathway", True, False, False, 0),
    "modal_dfc spell // land": ("Emeria's Call // Emeria, Shattered Skyclave", False, True, False,
                                7),
    "transform": ("Delver of Secrets // Insectile Aberration", False, False, True, 1),
    "split": ("Fire // Ice", False, False, False, 4),
    "adventure": ("Bonecrusher Giant // Stomp", False, False, True, 3),
}


def imported(tmp_path, source, compress=None):
    path = tmp_path / source.name
    if compress == "gz":
        path = path.with_suffix(".json.gz")
        path.write_bytes(gzip.compress(source.read_bytes()))
    elif compress == "xz":
        path = path.with_suffix(".json.xz")
        path.write_bytes(lzma.compress(source.read_bytes()))
    else:
        shutil.copy(source, path)
    report = import_cards(path, tmp_path / "cards")
    return report, CardIndex(index_path(tmp_path / "cards"))


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("source", [SCRYFALL, MTGJSON], ids=["scryfall", "mtgjson"])
def test_layouts_classify_by_E10(tmp_path, source, layout):
    name, is_land, is_land_like, is_creature, mana_value = LAYOUTS[layout]
    _, index = imported(tmp_path, source)
    card = index.find(name)
    assert card is not None, name
    assert (card.is_land, card.is_land_like, card.is_creature, card.mana_value) == (
        is_land, is_land_like, is_creature, mana_value)


@pytest.mark.parametrize("compress", [None, "gz", "xz"])
def test_compressed_files_import(tmp_path, compress):
    report, index = imported(tmp_path, MTGJSON if compress == "xz" else SCRYFALL, compress)
    assert report.cards == len(index) > 0


def test_non_deck_objects_are_skipped(tmp_path):
    report, index = imported(tmp_path, SCRYFALL)
    assert report.skipped == 3  # token, emblem, art series
    assert index.find("Angel") is None and index.find("Jadelight Emblem") is None


def test_front_face_names_resolve(tmp_path):
    _, index = imported(tmp_path, SCRYFALL)
    assert index.find("Emeria's Call").name == "Emeria's Call // Emeria, Shattered Skyclave"
    assert index.find("delver of secrets").name == "Delver of Secrets // Insectile Aberration"
    assert index.find("Bonecrusher Giant").is_creature


def test_abilities_from_oracle_text(tmp_path):
    report, index = imported(tmp_path, SCRYFALL)
    wayfinder = index.find("Fixture Wayfinder")
    assert (wayfinder.explores, wayfinder.explores_when) == (1, "enter")
    assert index.find("Fixture Twice-Scout").explores == 2
    assert index.find("Fixture Spelunker").explores_x
    cartographer = index.find("Fixture Cartographer")
    assert (cartographer.maps, cartographer.maps_when, cartographer.explores) == (1, "enter", 0)
    assert index.find("Fixture Outrider").explores_when == "attack"
    assert index.find("Fixture Grove Keeper").explore_trigger == "caravel"
    assert index.find("Fixture Tapland").enters_tapped == "yes"
    assert index.find("Fixture Odd Explorer").explore_trigger == ""
    assert any("Fixture Odd Explorer: modelled as a vanilla card" in w for w in report.warnings)


def test_mtgjson_abilities(tmp_path):
    _, index = imported(tmp_path, MTGJSON)
    assert index.find("Fixture Wayfinder").explores == 1
    assert index.find("Fixture Cartographer").maps == 1
    twists = index.find("Twists and Turns")
    assert not twists.is_land and not twists.is_land_like  # transform: front face only


def test_lookup_order_built_in_then_card_files_then_index(tmp_path):
    imported(tmp_path, SCRYFALL)
    overrides = tmp_path / "mine.toml"
    overrides.write_text('[[card]]\nname = "Llanowar Elves"\nmana_cost = "{G}"\n'
                         'type_line = "Creature — Elf Druid"\nexplores = 1\n'
                         'explores_when = "enter"\n')
    sources = card_sources([overrides], tmp_path / "cards")
    assert sources.find("Jadelight Ranger").source == "built-in"  # not the index's copy
    assert sources.find("Llanowar Elves").source == "card file mine.toml"
    assert sources.find("Llanowar Elves").explores == 1
    assert sources.find("Fixture Wayfinder").source == "scryfall"


def test_decks_resolve_imported_cards(tmp_path, monkeypatch):
    imported(tmp_path, SCRYFALL)
    monkeypatch.setenv("EXPLORE_SIM_CARDS_DIR", str(tmp_path / "cards"))
    deck = explore_sim.load_deck("4 Fixture Wayfinder\n4 Emeria's Call\n4 Fire // Ice\n20 Forest\n")
    assert deck.size == 32 and deck.land_count == 20 and deck.land_like_count == 4
    result = explore_sim.explore(deck, explorer="Fixture Wayfinder", trials=2000, seed=1)
    assert result.meta["library_size"] == 31


def test_failed_import_keeps_the_old_index(tmp_path):
    imported(tmp_path, SCRYFALL)
    before = index_path(tmp_path / "cards").read_bytes()
    broken = tmp_path / "broken.json"
    broken.write_text(SCRYFALL.read_text()[:-200])
    with pytest.raises(CardError, match="malformed JSON"):
        import_cards(broken, tmp_path / "cards")
    assert index_path(tmp_path / "cards").read_bytes() == before
    assert not list((tmp_path / "cards").glob(".cards-*"))  # no temporary file left


def test_an_import_says_it_replaces_the_index(tmp_path):
    """A second import replaces the first one's cards (it does not add to them), and its
    report says so, naming what it replaced."""
    first = import_cards(SCRYFALL, tmp_path / "cards")
    assert first.replaced == "" and "replacing" not in first.summary()
    second = import_cards(MTGJSON, tmp_path / "cards")
    assert second.summary().splitlines()[1] == (
        f"  replacing its {first.cards} cards imported from {SCRYFALL} (an import replaces "
        "the index)")
    assert len(CardIndex(index_path(tmp_path / "cards"))) == second.cards


def cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "explore_sim", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120, env=env)


def bomb(path):
    """A gzip file that expands 1000 times: 32 MB of spaces inside a JSON array."""
    with gzip.open(path, "wb", compresslevel=9) as out:
        out.write(b"[")
        block = b" " * (1 << 20)
        for _ in range(32):
            out.write(block)
        out.write(b"]")


@pytest.mark.parametrize("content, message", [
    (b'[{"object": "card", "name": "X", "layout": "normal"', "malformed JSON"),
    (b'[{"object": "card", "name": "Jadelight Ran', "Unterminated string at the end of the file "
                                                   "(is it cut short?)"),
    (b'[{"object": "card" "name": "X"}]', "Expecting ',' delimiter\n"),
    (b'{"object": "list", "data": [1, 2]}', "'data' must be an object"),
    (b'[{"object": "set", "name": "Lost Caverns"}]', "not a Scryfall card object ('set')"),
    (b'[{"name": "Jadelight Ranger"}]', 'element 0 is not a Scryfall card object (no "object" '
                                        'field)'),
    (b'[{"object": "card", "name": "Forest"}, 4]', "element 1 is not a Scryfall card object "
                                                   "(int)"),
    (b'\x89PNG\r\n\x1a\n0000', "a png file"),
    (b'4 Cenote Scout\n20 Forest\n', "not a Scryfall bulk file"),
    (b'\xff\xfe\xfa', "not a UTF-8 JSON file"),
    (b'{"meta": {}}', "without a 'data' member"),
    (gzip.compress(b"[{]", mtime=0), "malformed JSON"),
    (b"\x1f\x8b\x08\x00garbage", "corrupt compressed data"),
])
@pytest.mark.slow
def test_bad_card_files_give_one_line_errors(tmp_path, content, message):
    path = tmp_path / "cards.json"
    path.write_bytes(content)
    out = cli("cards", "import", str(path), "--cards-dir", str(tmp_path / "cards"))
    assert out.returncode == 2, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
    assert message in out.stderr


@pytest.mark.slow
def test_decompression_bomb_is_refused(tmp_path):
    path = tmp_path / "bomb.json.gz"
    bomb(path)
    out = cli("cards", "import", str(path), "--cards-dir", str(tmp_path / "cards"))
    assert out.returncode == 2
    assert "decompression bomb" in out.stderr and len(out.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_cards_check_prints_the_classification(tmp_path):
    imported(tmp_path, SCRYFALL)
    deck = tmp_path / "deck.txt"
    deck.write_text("4 Fixture Wayfinder\n4 Emeria's Call\n2 Dryad Arbor\n20 Forest\n")
    out = cli("cards", "check", str(deck), "--cards-dir", str(tmp_path / "cards"))
    assert out.returncode == 0, out.stderr
    assert "land-like" in out.stdout and "scryfall" in out.stdout and "built-in" in out.stdout
    assert "30 cards in the main deck: 22 lands, 4 land-like, 4 nonland" in out.stdout
    shipped = cli("cards", "check", "xln-sultai", "--format", "json")
    rows = json.loads(shipped.stdout)["cards"]
    assert {row["name"] for row in rows} >= {"Jadelight Ranger", "Wildgrowth Walker", "Forest"}
    assert all({"class", "mv", "abilities", "source"} <= set(row) for row in rows)


@pytest.mark.slow
def test_cards_show_finds_imported_cards(tmp_path):
    imported(tmp_path, SCRYFALL)
    out = cli("cards", "Fire // Ice", "--cards-dir", str(tmp_path / "cards"))
    assert out.returncode == 0 and "split" in out.stdout and "scryfall" in out.stdout


@pytest.mark.parametrize("content, message", [
    ('[[card]]\nname = "X"\n', "a card needs a type_line"),
    ('[[card]]\nname = "X"\ntype_line = "Creature"\nexplores = "two"\n', 'number or "X"'),
    ('[[card]]\nname = "A"\ntype_line = "Land"\nproduces = "G"\n[[card]]\nname = "B"\n'
     'type_line = "Creature"\nexplores_when = "sometimes"\nexplores = 1\n',
     r"mine\.toml:5: .*explores_when 'sometimes'"),
    ('[[card]]\nname = "X"\ntype_line = "Creature"\ncolour = "G"\n', "unknown field"),
    ('[[card]\nname = "X"\n', "invalid TOML"),
    ('name = "X"\n', "expected one or more"),
    ('[[card]]\nname = "X"\ntype_line = "Creature"\npower = "big"\n',
     "power must be a whole number"),
    ('[[card]]\nname = "X"\ntype_line = "Creatur — Merfolk"\npower = 2\n',
     r"mine\.toml:1: card 'X': type_line 'Creatur — Merfolk' has 'creatur', not a card type "
     "or supertype"),
    ('[[card]]\nname = "X"\nmana_cost = "{U}"\ntype_line = "Instnat"\n',
     "'instnat', not a card type"),
    ('[[card]]\nname = "X"\nmana_cost = "{G}"\ntype_line = "Legendary"\n',
     r"'\(no card type\)'"),
])
def test_bad_card_files_name_file_and_line(tmp_path, content, message):
    path = tmp_path / "mine.toml"
    path.write_text(content)
    with pytest.raises(CardError, match=message):
        card_sources([path])


@pytest.mark.slow
def test_card_file_csv_and_homebrew_in_a_deck(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text("name,mana_cost,type_line,power,toughness,explores,explores_when\n"
                    "Tidecaller Scout,{1}{U},Creature — Merfolk Scout,1,2,1,enter\n")
    deck = tmp_path / "deck.txt"
    deck.write_text("4 Tidecaller Scout\n20 Island\n")
    out = cli("explore", str(deck), "--cards", str(path), "--explorer", "Tidecaller Scout",
              "--trials", "1000", "--seed", "1", "--format", "json", "--drawn", "0")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["meta"]["library_size"] == 23


def test_mana_read_from_scryfall_oracle_text(tmp_path):
    import_cards(FIXTURES / "scryfall_oracle.json", tmp_path)
    index = CardIndex.open_default(tmp_path)
    expected = {
        "Overgrown Tomb": ("", "shock", "BG"),
        "Woodland Cemetery": ("BG", "unless:swamp|forest", "BG"),
        "Golgari Guildgate": ("BG", "yes", "BG"),
        "Llanowar Wastes": ("BGC", "", "BGC (1 life per coloured mana)"),
        "Simic Signet": ("G+U", "", "{1}: G+U"),
        "Sol Ring": ("CC", "", "C+C"),
        "Birds of Paradise": ("any", "", "any"),
        "Llanowar Elves": ("G", "", "G"),
        "Temple of Malady": ("BG", "yes", "BG; enters tapped: yes; on entering: scry"),
    }
    for name, (produces, tapped, shown) in expected.items():
        card = index.find(name)
        assert (card.produces, card.enters_tapped) == (produces, tapped), name
        assert card.mana().startswith(shown), (name, card.mana())
        assert not card.unmodelled, name
    wilds = index.find("Evolving Wilds")
    assert (wilds.fetch, wilds.fetch_when) == ("basic_tapped", "sacrifice")
    agadeem = index.find("Agadeem's Awakening")
    assert (agadeem.back_produces, agadeem.back_enters_tapped) == ("B", "life:3")
    assert agadeem.land_face.mana_units() == (4,)
    odd = index.find("Fixture Oddland")
    assert odd.enters_tapped == "yes" and odd.produces == "G"
    assert "legendary creature" in odd.unmodelled and "spend this mana" in odd.unmodelled


def test_mana_read_from_mtgjson_text(tmp_path):
    import_cards(FIXTURES / "mtgjson_atomic.json", tmp_path)
    index = CardIndex.open_default(tmp_path)
    tomb = index.find("Overgrown Tomb")
    assert tomb.enters_tapped == "shock" and tomb.mana_units() == (4 | 16,)
    agadeem = index.find("Agadeem's Awakening")
    assert (agadeem.back_produces, agadeem.back_enters_tapped) == ("B", "life:3")


def test_cards_check_warns_about_unmodelled_mana_text(tmp_path, capsys):
    import_cards(FIXTURES / "scryfall_oracle.json", tmp_path)
    deck = tmp_path / "deck.txt"
    deck.write_text("20 Fixture Oddland\n20 Overgrown Tomb\n20 Llanowar Elves\n")
    assert main(["cards", "check", str(deck), "--cards-dir", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert "shock" in out and "unless" not in out.split("Fixture Oddland")[0][-10:]
    assert "warning: Fixture Oddland: not modelled:" in err and "legendary creature" in err


@pytest.mark.parametrize("text, type_line, produces", [
    ("{T}: Add {C}.", "Basic Land", "C"),  # Wastes
    ("{T}: Add {C}.\n{T}, Pay 1 life: Add {B}.", "Land", "C"),  # the rest is unmodelled
    ("{T}: Untap target attacking creature.", "Land", "none"),  # its text makes no mana
    ("({T}: Add {G}.)", "Basic Land — Forest", ""),  # the Forest type makes the mana
])
def test_imported_lands_make_what_their_text_says(text, type_line, produces):
    from explore_sim.cards.card_index import card_from_scryfall

    card, _ = card_from_scryfall({"object": "card", "name": "Some Land", "layout": "normal",
                                  "type_line": type_line, "mana_cost": "", "oracle_text": text})
    assert card.produces == produces
    assert card.mana_units() or produces == "none" or card.unmodelled
