"""The built-in catalog: every card of the built-in catalog, correct facts, forgiving lookup."""

from __future__ import annotations

import io

import pytest

from explore_sim.cards import Card, Catalog, normalize_name
from explore_sim.cards.catalog import read_card_rows
from explore_sim.errors import CardError

CARDS_MD = [
    "Merfolk Branchwalker", "Seekers' Squire", "Ixalli's Diviner", "Tishana's Wayfinder",
    "Siren Lookout", "Emissary of Sunrise", "Dire Fleet Interloper", "Brazen Buccaneers",
    "Emperor's Vanguard", "Sunrise Seeker", "Queen's Agent", "Deadeye Tracker",
    "Jadelight Ranger", "Enter the Unknown", "Path of Discovery", "Tomb Robber",
    "Legion Vanguard", "Cenote Scout", "River Herald Scout", "River Herald Guide",
    "Kinjalli's Dawnrunner", "Seeker of Sunlight", "Miner's Guidewing", "Jadelight Spelunker",
    "Deepfathom Echo", "Glowcap Lantern", "Subterranean Schooner", "Amalia Benavides Aguirre",
    "Defossilize", "Over the Edge", "Twists and Turns // Mycoid Maze",
    "Hakbal of the Surging Soul", "Captain Kathryn Janeway", "Spyglass Siren",
    "Waterwind Scout", "Sentinel of the Nameless City", "Cartographer's Companion",
    "Topography Tracker", "Storm Fleet Negotiator", "Brackish Blunder", "Get Lost",
    "Fanatical Offering", "Restless Anchorage", "Worldwalker Helm", "Wildgrowth Walker",
    "Lurking Chupacabra", "Shadowed Caravel", "Merfolk Cave-Diver",
    "Nicanzil, Current Conductor", "Grizzly Bears", "Dryad Arbor", "Wastes",
] + [f"{snow}{basic}" for basic in ("Plains", "Island", "Swamp", "Mountain", "Forest")
     for snow in ("", "Snow-Covered ")]


@pytest.mark.parametrize("name", CARDS_MD)
def test_every_card_of_the_card_facts_is_in_the_catalog(name):
    card = Catalog.builtin().get(name)
    assert card.name == name


@pytest.mark.parametrize(
    "name, mv, land, creature, explores, when",
    [
        ("Cenote Scout", 1, False, True, 1, "enter"),
        ("Jadelight Ranger", 3, False, True, 2, "enter"),
        ("Jadelight Spelunker", 1, False, True, 0, "enter"),  # X
        ("Over the Edge", 2, False, False, 2, "cast"),
        ("Emperor's Vanguard", 4, False, True, 1, "combat_damage"),
        ("Deepfathom Echo", 4, False, True, 1, "beginning_of_combat"),
        ("Queen's Agent", 6, False, True, 1, "enter"),
        ("Restless Anchorage", 0, True, False, 0, ""),
        ("Dryad Arbor", 0, True, True, 0, ""),
        ("Cartographer's Companion", 3, False, True, 0, ""),
    ],
)
def test_card_facts(name, mv, land, creature, explores, when):
    card = Catalog.builtin().get(name)
    assert (card.mana_value, card.is_land, card.is_creature) == (mv, land, creature)
    assert (card.explores, card.explores_when) == (explores, when)


def test_structured_abilities():
    catalog = Catalog.builtin()
    assert catalog.get("Jadelight Spelunker").explores_x
    assert catalog.get("Sentinel of the Nameless City").maps_when == "enter_or_attack"
    assert catalog.get("Topography Tracker").explore_replacement == "tracker"
    assert catalog.get("Twists and Turns").explore_replacement == "twists"
    assert catalog.get("Twists and Turns").explore_targets
    assert catalog.get("Wildgrowth Walker").explore_trigger == "walker"
    assert catalog.get("Nicanzil, Current Conductor").explore_trigger == "nicanzil"
    assert catalog.get("Enter the Unknown").extra_land == "this_turn"
    assert catalog.get("Get Lost").maps == 2
    explore_sorcery = catalog.get("Explore")  # does not explore, despite the name
    assert explore_sorcery.explores == 0 and not explore_sorcery.explores_when


@pytest.mark.parametrize(
    "query, name",
    [
        ("cenote scout", "Cenote Scout"),
        ("SEEKERS’ SQUIRE", "Seekers' Squire"),  # typographic apostrophe
        ("Twists and Turns", "Twists and Turns // Mycoid Maze"),  # front face only
        ("twists and turns/mycoid maze", "Twists and Turns // Mycoid Maze"),
        ("  Jadelight   Ranger ", "Jadelight Ranger"),
        ("Nicanzil,  Current Conductor", "Nicanzil, Current Conductor"),
    ],
)
def test_lookup_is_forgiving(query, name):
    assert Catalog.builtin().get(query).name == name


def test_unknown_card_suggests_close_names():
    with pytest.raises(CardError, match="did you mean 'Cenote Scout'"):
        Catalog.builtin().get("Cenote Scot")


def test_normalize_name_strips_accents_and_quotes():
    assert normalize_name("Lim-Dûl’s Vault") == "lim-dul's vault"


@pytest.mark.parametrize(
    "row, message",
    [
        ("Foo,{1}{Q},Creature,normal,1,1", "unknown symbol"),
        ("Foo,{1},Creature,weird,1,1", "unknown card layout"),
        ("Foo,{1},Creature,normal,x,1", "power must be a whole number"),
        ("Foo,{1},Creature,normal,1,1,2,", "explores and explores_when"),
        ("Foo,{1},Creature,normal,1,1,1,sometimes", "explores_when 'sometimes'"),
    ],
)
def test_bad_card_rows_name_file_and_line(row, message):
    header = "name,mana_cost,type_line,layout,power,toughness,explores,explores_when\n"
    with pytest.raises(CardError, match=rf"mine.csv:2: .*{message}"):
        read_card_rows(io.StringIO(header + row + "\n"), "mine.csv")


def test_card_is_frozen():
    card = Catalog.builtin().get("Forest")
    with pytest.raises(AttributeError):
        card.name = "Island"  # type: ignore[misc]
    assert isinstance(card, Card)
