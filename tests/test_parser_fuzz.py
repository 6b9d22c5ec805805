"""Random bytes, long random lines and random records fed to every parser.

Whatever the input, a parser either succeeds or raises one of the package's own errors, with
a one-line message. No example is timed (hypothesis' ``deadline`` is off): each test is bounded
by its timeout, which a parser stuck on an input (a pathological pattern) runs into.
"""

from __future__ import annotations

import json
import os
import warnings

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from explore_sim.cards.card_files import load_card_file
from explore_sim.cards.card_index import import_cards
from explore_sim.cards.decklist import DECK_FORMATS, load_deck, parse_deck
from explore_sim.cards.oracle import abilities_from_text
from explore_sim.errors import DeckWarning, ExploreSimError

pytestmark = pytest.mark.slow  # fuzzing every parser

FUZZ = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "150")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])

#: Characters the line patterns treat specially, to make long hostile lines likely.
SPECIAL = " \t\u3000#*^[](){}:/,xX0123456789SBFE-—'\"\\<>&;"
long_line = st.text(alphabet=st.sampled_from(SPECIAL + "abcDeck"), min_size=200, max_size=3000)
plausible = st.sampled_from([
    "4 Forest", "24 Forest (LCI) 401", "SB: 2 Get Lost", "Sideboard", "Deck (60)", "About",
    "Name My Deck", "1x Cenote Scout (LCI) 178 [Creature]", "2 Island *F* #tag", "// c", "",
    "4x Jadelight Ranger ^Have^", "Commander", "Creatures (24)",
])
deck_text = st.lists(st.one_of(st.text(max_size=60), long_line, plausible),
                     max_size=15).map("\n".join)


def only_our_errors(function, *args, **kwargs):
    """Run ``function``; an ExploreSimError must be one line, anything else fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeckWarning)
        try:
            return function(*args, **kwargs)
        except ExploreSimError as error:
            assert "\n" not in str(error)
            return None


@pytest.mark.timeout(120)
@FUZZ
@given(text=deck_text, fmt=st.sampled_from(DECK_FORMATS))
def test_decklist_text_in_every_format(text, fmt):
    only_our_errors(parse_deck, text, format=fmt)


@pytest.mark.timeout(120)
@FUZZ
@given(data=st.one_of(st.binary(max_size=3000), deck_text.map(str.encode)),
       suffix=st.sampled_from([".txt", ".dek"]))
def test_decklist_files(tmp_path_factory, data, suffix):
    path = tmp_path_factory.mktemp("deck") / f"deck{suffix}"
    path.write_bytes(data)
    only_our_errors(load_deck, path)


toml_text = st.lists(st.one_of(
    st.text(max_size=60), long_line,
    st.sampled_from(["[[card]]", 'name = "X"', 'type_line = "Creature"', "power = 1e999",
                     "keywords = [1]", 'explores = "X"', "maps = -1", "a = [[[[", '"""'])),
    max_size=12).map("\n".join)
csv_text = st.lists(st.one_of(
    st.text(max_size=60), long_line,
    st.sampled_from(["name,mana_cost,type_line,power", "X,{G},Creature,1", '"open', "a,b,c,d,e",
                     "Y,{99999},Land,", "Z,,Creature,-5"])),
    max_size=12).map("\n".join)


@pytest.mark.timeout(120)
@FUZZ
@given(data=st.one_of(st.binary(max_size=3000), toml_text.map(str.encode),
                      csv_text.map(str.encode)),
       suffix=st.sampled_from([".toml", ".csv"]))
def test_card_files(tmp_path_factory, data, suffix):
    path = tmp_path_factory.mktemp("cards") / f"mine{suffix}"
    path.write_bytes(data)
    only_our_errors(load_card_file, path)


json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: (st.lists(inner, max_size=4)
                   | st.dictionaries(st.text(max_size=10), inner, max_size=4)),
    max_leaves=12,
)
CARD_FIELDS = ["layout", "card_faces", "type_line", "mana_cost", "oracle_text", "keywords",
               "power", "toughness", "cmc", "set", "collector_number", "set_type"]
scryfall_card = st.fixed_dictionaries(
    {"object": st.just("card"), "name": st.one_of(st.text(max_size=30), json_value)},
    optional={field: json_value for field in CARD_FIELDS},
)
FACE_FIELDS = ["name", "layout", "type", "types", "manaCost", "text", "keywords", "power",
               "toughness", "manaValue", "faceManaValue", "side"]
mtgjson_faces = st.one_of(json_value, st.lists(
    st.fixed_dictionaries({}, optional={field: json_value for field in FACE_FIELDS}), max_size=3))


def _write(tmp_path_factory, data: bytes):
    folder = tmp_path_factory.mktemp("import")
    path = folder / "cards.json"
    path.write_bytes(data)
    return path, folder / "index"


@pytest.mark.timeout(120)
@FUZZ
@given(data=st.one_of(st.binary(max_size=3000), long_line.map(str.encode)))
def test_card_database_bytes(tmp_path_factory, data):
    path, folder = _write(tmp_path_factory, data)
    only_our_errors(import_cards, path, folder)


@pytest.mark.timeout(120)
@FUZZ
@given(cards=st.lists(scryfall_card, min_size=1, max_size=4), tail=st.sampled_from(["", " ", "x"]))
def test_scryfall_records(tmp_path_factory, cards, tail):
    path, folder = _write(tmp_path_factory, (json.dumps(cards) + tail).encode())
    only_our_errors(import_cards, path, folder)


@pytest.mark.timeout(120)
@FUZZ
@given(entries=st.dictionaries(st.text(max_size=30), mtgjson_faces, min_size=1, max_size=4))
def test_mtgjson_records(tmp_path_factory, entries):
    path, folder = _write(tmp_path_factory, json.dumps({"data": entries}).encode())
    only_our_errors(import_cards, path, folder)


@pytest.mark.timeout(120)
@FUZZ
@given(name=st.text(max_size=40), text=st.one_of(st.text(max_size=200), long_line))
def test_oracle_text(name, text):
    fields, unmatched = only_our_errors(abilities_from_text, name, text) or ({}, [])
    assert isinstance(fields, dict) and isinstance(unmatched, list)
