"""The compiled game alone: games a second of the bare kernel on one core, beside the shuffle
floor of the same process.

    python benchmarks/bare_kernel.py                        # the four decks below
    python benchmarks/bare_kernel.py decks/sultai_explore.txt --games 131072 --rounds 5

Plays ``--games`` 8-turn games (policy forge, London mulligans) a round with
``explore_sim.engine.kernel.play_games_kernel`` on one thread, with no histograms or
statistics after it (``benchmarks/run.py --engines`` times whole runs through
``explore_sim.simulate``), and keeps each deck's best of ``--rounds`` rounds after a warm-up.
The floor is what ``benchmarks/run.py --engines`` uses: random uint32 keys with the card ids
in their low bits, sorted along axis 1, for 1,000,000 decks of the library's size.

The default decks are the merfolk, three-colour and Commander decks, and ``24 Forest, 36
Grizzly Bears``: the cheapest game the kernel plays (a land and a 2-mana creature, an attack,
the turn's metrics), which measures what every game costs before any explore, Map, policy
decision or colour is played.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: The cheapest game: every turn a land, a creature cast when there is mana, an attack.
SIMPLEST = "24 Forest\n36 Grizzly Bears\n"
DECKS = ("decks/lci_merfolk_explore.txt", "decks/sultai_explore.txt",
         "decks/hakbal_merfolk_commander.txt", SIMPLEST)


def floor(size: int, decks: int = 1_000_000, chunk: int = 65_536) -> float:
    """Decks a second that NumPy shuffles: random keys with the card ids in the low bits,
    sorted along axis 1 (``run.py --engines`` measures its floor with this too)."""
    rng = np.random.default_rng(0)
    ids = np.arange(size, dtype=np.uint32) % 256
    start = time.perf_counter()
    for done in range(0, decks, chunk):
        m = min(chunk, decks - done)
        keys = (rng.integers(0, 1 << 24, (m, size), dtype=np.uint32) << 8) | ids
        keys.sort(axis=1)
        (keys & 0xFF).astype(np.int16)
    return decks / (time.perf_counter() - start)


def bare_rate(source: str, games: int, rounds: int) -> tuple[str, int, float]:
    """``(name, library size, best games a second)`` of the bare kernel on ``source`` (a
    decklist's path, or a decklist's text)."""
    import explore_sim
    from explore_sim.analysis.game_setup import game_mulligan
    from explore_sim.engine.config import GameConfig
    from explore_sim.engine.goldfish import deck_tables
    from explore_sim.engine.kernel import play_games_kernel
    from explore_sim.engine.mulligan import as_mulligan_rule
    from explore_sim.engine.policies import as_policy

    if "\n" in source:
        deck, name = explore_sim.parse_deck(source), source.strip().replace("\n", ", ")
    else:
        deck, name = explore_sim.load_deck(ROOT / source), Path(source).name
    config = GameConfig(turns=8)
    features = deck.features()
    tables = deck_tables(features, config)
    mulligan = game_mulligan(as_mulligan_rule("london"), config, features)
    policy = as_policy("forge")

    def play(n: int, seed: int) -> float:
        start = time.perf_counter()
        play_games_kernel(tables, config, policy, mulligan, n, np.random.SeedSequence(seed),
                          deck.card_ids(), threads=1)
        return n / (time.perf_counter() - start)

    play(256, 0)  # compiled, or loaded from numba's cache, and warmed
    return name, deck.size, max(play(games, seed) for seed in range(1, rounds + 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("decks", nargs="*", default=DECKS, help="decklists (default: four)")
    parser.add_argument("--games", type=int, default=65_536, help="games a round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per deck (best kept)")
    args = parser.parse_args()
    print(f"{'deck':40s} {'library':>7s} {'games/s':>10s} {'us/game':>8s} "
          f"{'floor decks/s':>14s} {'x floor':>8s}")
    for source in args.decks:
        name, size, rate = bare_rate(source, args.games, args.rounds)
        shuffles = max(floor(size) for _ in range(2))
        print(f"{name[:40]:40s} {size:7d} {rate:10,.0f} {1e6 / rate:8.2f} {shuffles:14,.0f} "
              f"{shuffles / rate:8.1f}", flush=True)
    print("one core: the kernel's games alone (8 turns, policy forge, London mulligans), no "
          "histograms; floor: random uint32 keys with the card ids in the low bits, sorted "
          "along axis 1, 1,000,000 decks of the library's size")


if __name__ == "__main__":
    main()
