"""Card data without typing: a Scryfall ``oracle_cards`` download and an MTGJSON
``AtomicCards`` download of 242 real cards (``tests/fixtures/downloads/``, made by its
``make_downloads.py`` from the cards' oracle text) import, and a deck of them plays with
Nature's Lore, Three Visits, Farseek and Lotus Petal doing what their text says, on both
engines (given libraries: a vanilla reading of any of them plays another game)."""

from __future__ import annotations

import gzip
import json

import golden_games as golden
import pytest
from conftest import TESTS

from explore_sim.cards import load_deck
from explore_sim.cards.card_index import CardIndex, import_cards, index_path
from explore_sim.engine.config import GameConfig
from explore_sim.engine.policies import as_policy

DOWNLOADS = TESTS / "fixtures" / "downloads"
SCRYFALL = DOWNLOADS / "scryfall_oracle_cards.json"
MTGJSON = DOWNLOADS / "mtgjson_atomic_cards.json.gz"
#: What the import reads from each card's oracle text.
EXPECTED = {
    "Nature's Lore": ("land_untapped:forest", "cast", ()),
    "Three Visits": ("land_untapped:forest", "cast", ()),
    "Farseek": ("land_tapped:plains|island|swamp|mountain", "cast", ()),
    "Lotus Petal": ("", "", ("sacrifice_for_mana",)),
    "Rampant Growth": ("basic_tapped", "cast", ()),
    "Cultivate": ("basic_tapped_and_hand", "cast", ()),
}
DECK = """8 Forest
4 Island
4 Breeding Pool
4 Nature's Lore
4 Three Visits
4 Farseek
4 Lotus Petal
28 Grizzly Bears
"""


@pytest.fixture(scope="module", params=["scryfall", "mtgjson"])
def index(request, tmp_path_factory):
    directory = tmp_path_factory.mktemp(request.param)
    report = import_cards(SCRYFALL if request.param == "scryfall" else MTGJSON, directory)
    assert report.cards == 242 and report.format == request.param
    return directory


def test_the_downloads_are_the_sites_shapes():
    scryfall = json.loads(SCRYFALL.read_text(encoding="utf-8"))
    assert isinstance(scryfall, list) and len(scryfall) == 242
    assert {card["object"] for card in scryfall} == {"card"}
    petal = next(card for card in scryfall if card["name"] == "Lotus Petal")
    assert petal["oracle_text"] == "{T}, Sacrifice this artifact: Add one mana of any color."
    with gzip.open(MTGJSON, "rt", encoding="utf-8") as file:
        atomic = json.load(file)
    assert set(atomic) == {"meta", "data"} and len(atomic["data"]) == 242
    (lore,) = atomic["data"]["Nature's Lore"]
    assert lore["text"] == ("Search your library for a Forest card, put that card onto the "
                            "battlefield, then shuffle.")


def test_the_cards_are_read_from_their_oracle_text(index):
    cards = CardIndex(index_path(index))
    for name, (fetch, when, keywords) in EXPECTED.items():
        card = cards.find(name)
        assert (card.fetch, card.fetch_when) == (fetch, when), name
        assert set(keywords) <= set(card.keywords), name
    petal = cards.find("Lotus Petal")
    assert petal.produces == "any" and not petal.is_land
    pool = cards.find("Breeding Pool")
    assert pool.enters_tapped == "shock" and pool.subtypes == {"forest", "island"}


#: A given library (top first; the first seven are the opening hand), played for 4 turns.
LIBRARY = ["Forest", "Lotus Petal", "Grizzly Bears", "Nature's Lore", "Island", "Farseek",
           "Three Visits", "Island", "Grizzly Bears", "Grizzly Bears", "Grizzly Bears",
           "Breeding Pool", "Forest", "Forest", "Island"]


def _played(index, engine: str):
    deck = load_deck(DECK, cards_dir=index)
    rest = [card.name for card, count in deck.main for _ in range(count)]
    for name in LIBRARY:
        rest.remove(name)
    opening = golden.opening_of(deck, [golden.library_ids(deck, LIBRARY + rest)])
    setup = golden.Setup(GameConfig(turns=4), as_policy("forge"))
    if engine == "numpy":
        return golden.nonzero(golden.play_numpy(deck, setup, opening)), None
    metrics, log = golden.play_kernel(deck, setup, opening)
    return golden.nonzero(metrics), log


@pytest.mark.parametrize("engine", ["numpy", "kernel"])
def test_the_deck_plays_as_the_cards_say(index, engine):
    metrics, log = _played(index, engine)
    # Turn 1: Forest, then Lotus Petal sacrificed for the second mana of Farseek, which puts
    # Breeding Pool (an Island) onto the battlefield tapped: a vanilla Petal makes no mana
    # (one card cast, none put), a vanilla Farseek puts no land.
    assert metrics[1]["cards_cast"] == 2 and metrics[1]["mana_spent"] == 2
    assert metrics[1]["lands_put"] == 1 and metrics[1]["lands_played"] == 2
    # Turn 2: Nature's Lore (ramp, cast before Grizzly Bears of the same cost) puts Breeding
    # Pool (a Forest) onto the battlefield untapped (its 2 life paid: its mana casts Three
    # Visits at once), Three Visits puts one tapped (no mana is wanted after it: the Bears
    # cannot be paid).
    assert metrics[2]["lands_put"] == 3 and metrics[2]["life_paid"] == 2
    assert metrics[2]["cards_cast"] == 4
    assert metrics[4]["lands_put"] == 6 and metrics[4]["lands_played"] == 8
    if log is not None:
        assert "cast Lotus Petal (0 mana)\n  sacrificed Lotus Petal (for its mana)" in log
        assert "cast Farseek (2 mana)\n  land put Breeding Pool (tapped)" in log
        assert ("cast Nature's Lore (2 mana)\n  land put Breeding Pool (untapped, 2 life paid)"
                in log)
        assert "cast Three Visits (2 mana)\n  land put Forest (untapped)" in log


def test_both_engines_play_the_same_game(index):
    assert _played(index, "numpy")[0] == _played(index, "kernel")[0]


@pytest.mark.parametrize("fetch, when, message", [
    ("land_untapped", "cast", "land_untapped names the land types it finds"),
    ("land_untapped:forest|swamps", "cast", "land_untapped names the land types it finds"),
    ("land_tapped:forest", "sacrifice", "fetch land_tapped is a spell's search"),
    ("basic_tapped:forest", "cast", "only land_untapped, land_tapped, land_hand name land types"),
    ("land_sideways:forest", "cast", "fetch 'land_sideways' is not one of"),
])
def test_a_typed_search_is_checked_in_one_line(fetch, when, message):
    from explore_sim.cards import Card
    from explore_sim.errors import CardError

    with pytest.raises(CardError, match=message):
        Card("Lore", "{1}{G}", "Sorcery", fetch=fetch, fetch_when=when)
    card = Card("Lore", "{1}{G}", "Sorcery", fetch="land_hand:basic|forest", fetch_when="cast")
    assert (card.fetch_kind, card.fetch_types) == ("land_hand", ("basic", "forest"))


def test_the_import_summary_tells_explore_text_and_mana_text_apart(tmp_path):
    """Of the download's unread text, the lines of mana text (Sakura-Tribe Elder's) are
    counted as such, and only Restless Anchorage's Map text as explore or Map text."""
    summary = import_cards(SCRYFALL, tmp_path).summary()
    (explore_line,) = [line for line in summary.splitlines() if "mention explore or Map" in line]
    (mana_line,) = [line for line in summary.splitlines() if "lines of mana text" in line]
    assert explore_line.split()[0] == "1" and int(mana_line.split()[0]) > 1
    assert "Sakura-Tribe Elder: mana text not modelled" in summary
