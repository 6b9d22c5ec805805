"""Benchmark: import a generated Scryfall-style oracle file of 35,000 cards.

Prints the import time, the import's peak memory (resident set size of the importing
process) and the time to resolve a 60-card deck through the imported index.

    python benchmarks/import_cards.py [--cards 35000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

LAYOUTS = ["normal"] * 86 + ["transform"] * 4 + ["modal_dfc"] * 3 + ["split"] * 2 + [
    "adventure"] * 2 + ["saga", "token", "art_series"]
TYPES = ["Creature — Merfolk Scout", "Instant", "Sorcery", "Artifact", "Enchantment",
         "Land", "Legendary Creature — Human Wizard", "Artifact Creature — Golem"]
WORDS = ("explore reveal library land hand counter creature target graveyard battlefield "
         "enters attacks draw discard sacrifice token flying trample haste vigilance").split()


def fake_card(number: int, rng: random.Random) -> dict:
    """One card object shaped like Scryfall's oracle_cards entries (about 4 KB)."""
    layout = rng.choice(LAYOUTS)
    name = f"Generated Card {number}"
    type_line = rng.choice(TYPES)
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(10, 60))).capitalize() + "."
    if number % 50 == 0:
        text = "When this creature enters, it explores. " + text
    card = {
        "object": "card", "id": f"{number:08x}-0000-0000-0000-000000000000",
        "oracle_id": f"{number:08x}-1111-1111-1111-111111111111", "multiverse_ids": [number],
        "mtgo_id": number, "arena_id": number, "tcgplayer_id": number, "cardmarket_id": number,
        "name": name, "lang": "en", "released_at": "2023-11-17",
        "uri": f"https://example.invalid/cards/{number}",
        "scryfall_uri": f"https://example.invalid/card/lci/{number}/generated-card",
        "layout": layout, "highres_image": True, "image_status": "highres_scan",
        "image_uris": {size: f"https://example.invalid/{size}/{number}.jpg"
                       for size in ("small", "normal", "large", "png", "art_crop", "border_crop")},
        "mana_cost": "{2}{G}", "cmc": 3.0, "type_line": type_line, "oracle_text": text,
        "power": "2", "toughness": "2", "colors": ["G"], "color_identity": ["G"],
        "keywords": ["Explore"] if number % 50 == 0 else [],
        "legalities": {fmt: rng.choice(["legal", "not_legal"]) for fmt in (
            "standard", "future", "historic", "timeless", "gladiator", "pioneer", "explorer",
            "modern", "legacy", "pauper", "vintage", "penny", "commander", "oathbreaker",
            "standardbrawl", "brawl", "alchemy", "paupercommander", "duel", "oldschool",
            "premodern", "predh")},
        "games": ["paper", "arena", "mtgo"], "reserved": False, "foil": True, "nonfoil": True,
        "finishes": ["nonfoil", "foil"], "oversized": False, "promo": False, "reprint": False,
        "variation": False, "set_id": "70169a6e-89d2-4d6b-9a5d-8aa8c6b8f5c4", "set": "lci",
        "set_name": "The Lost Caverns of Ixalan",
        "set_type": "token" if layout == "token" else "expansion",
        "set_uri": "https://example.invalid/sets/lci", "rulings_uri": "https://example.invalid/r",
        "prints_search_uri": "https://example.invalid/p", "collector_number": str(number),
        "digital": False, "rarity": "common",
        "flavor_text": " ".join(rng.choice(WORDS) for _ in range(20)),
        "card_back_id": "0aeebaf5-8c7d-4636-9e82-8c27447861f7", "artist": "Someone",
        "artist_ids": ["a"], "illustration_id": "b", "border_color": "black", "frame": "2015",
        "full_art": False, "textless": False, "booster": True, "story_spotlight": False,
        "edhrec_rank": number, "penny_rank": number,
        "prices": {"usd": "0.10", "usd_foil": "0.25", "usd_etched": None, "eur": "0.05",
                   "eur_foil": "0.20", "tix": "0.03"},
        "related_uris": {k: f"https://example.invalid/{k}/{number}" for k in (
            "gatherer", "tcgplayer_infinite_articles", "tcgplayer_infinite_decks", "edhrec")},
        "purchase_uris": {k: f"https://example.invalid/{k}/{number}" for k in (
            "tcgplayer", "cardmarket", "cardhoarder")},
    }
    if layout in {"transform", "modal_dfc", "split", "adventure"}:
        back = ("Land" if layout == "modal_dfc" else
                "Instant — Adventure" if layout == "adventure" else type_line)
        card["name"] = f"{name} // Back {number}"
        card["type_line"] = f"{type_line} // {back}"
        card["card_faces"] = [
            {"object": "card_face", "name": name, "mana_cost": "{2}{G}", "type_line": type_line,
             "oracle_text": text},
            {"object": "card_face", "name": f"Back {number}", "mana_cost": "", "type_line": back,
             "oracle_text": "{T}: Add {G}."},
        ]
        if layout not in {"split", "adventure"}:
            del card["mana_cost"], card["oracle_text"]
    return card


def generate(path: Path, cards: int) -> None:
    rng = random.Random(1)
    with path.open("w", encoding="utf-8") as out:
        out.write("[\n")
        for number in range(cards):
            out.write(json.dumps(fake_card(number, rng), ensure_ascii=False))
            out.write(",\n" if number < cards - 1 else "\n")
        out.write("]\n")


IMPORT = """
import sys, time
from explore_sim.cards.card_index import import_cards
started = time.perf_counter()
report = import_cards(sys.argv[1], sys.argv[2])
print(report.cards, time.perf_counter() - started)
"""
LOOKUP = """
import sys, time
started = time.perf_counter()
from explore_sim.cards.card_index import card_sources
from explore_sim.cards.decklist import load_deck
sources = card_sources((), sys.argv[1])
deck = load_deck(sys.argv[2], catalog=sources)
print(deck.size, time.perf_counter() - started)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=35_000)
    parser.add_argument("--keep", default=None, help="keep the generated files in this directory")
    args = parser.parse_args()
    work = Path(args.keep or tempfile.mkdtemp(prefix="explore-sim-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    source = work / "oracle-cards.json"
    generate(source, args.cards)
    size_mb = source.stat().st_size / 1e6
    out = subprocess.run([sys.executable, "-c", IMPORT, str(source), str(work / "cards")],
                         capture_output=True, text=True, check=True)
    cards, seconds = out.stdout.split()
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    deck = work / "deck.txt"
    names = [f"Generated Card {n}" for n in range(100, 15 * 97, 97)]
    deck.write_text("".join(f"4 {name}\n" for name in names) + "4 Forest\n")
    out = subprocess.run([sys.executable, "-c", LOOKUP, str(work / "cards"), str(deck)],
                         capture_output=True, text=True, check=True)
    deck_cards, lookup = out.stdout.split()
    print(f"{'file':<34}{size_mb:10.1f} MB, {args.cards} card objects")
    print(f"{'import: cards indexed':<34}{int(cards):10d}")
    print(f"{'import: time':<34}{float(seconds):10.2f} s   (target < 20 s)")
    print(f"{'import: peak memory (max RSS)':<34}{peak_mb:10.1f} MB  (target < 500 MB)")
    print(f"{'deck lookup incl. imports':<34}{float(lookup):10.3f} s   "
          f"({deck_cards} cards; target < 1 s)")


if __name__ == "__main__":
    main()
