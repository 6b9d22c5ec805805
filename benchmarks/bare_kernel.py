"""The compiled game alone, against two yardsticks: thread CPU time per game on one core.

    python benchmarks/bare_kernel.py                        # the four decks below
    python benchmarks/bare_kernel.py sultai --games 131072 --rounds 5

Plays ``--games`` 8-turn games (policy forge, London mulligans) a round with
``explore_sim.engine.kernel.play_games_kernel`` on one thread, every game's metrics written
out with no statistics after it, and the same games with ``count_games_kernel``, counted by
value inside the kernel as ``simulate`` plays them (``benchmarks/run.py --engines`` times
whole runs through ``explore_sim.simulate``); it keeps each deck's best of ``--rounds``
alternating rounds after a warm-up. Every time is the CPU time of the
playing thread (``time.thread_time``), which another process loading the machine changes far
less than wall time; rounds of the games and of the yardsticks alternate in one process.

The yardsticks, measured the same way for a library of the deck's size:

- the NumPy shuffle floor (kept for continuity with earlier measurements): random uint32 keys
  with the card ids in their low bits, sorted along axis 1, for 1,000,000 decks;
- the compiled deal floor, the physical one: a compiled partial Fisher-Yates shuffle that deals
  only the cards a game reaches (:data:`DEALT` cards: the opening hand and eight draws and a
  few more), one game after another, with the kernel's own random stream. No game can cost
  less than dealing its cards.

The default decks are the merfolk, three-colour and Commander decks, and ``24 Forest, 36
Grizzly Bears``: the cheapest game the kernel plays (a land and a 2-mana creature, an attack,
the turn's metrics), which measures what every game costs before any explore, Map, policy
decision or colour is played.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: The cheapest game: every turn a land, a creature cast when there is mana, an attack.
SIMPLEST = "24 Forest\n36 Grizzly Bears\n"
DECKS = ("merfolk", "sultai",
         "hakbal", SIMPLEST)
#: Cards a game of 8 turns reaches: seven in hand, eight draws and a few explored or
#: searched (the deal floor deals this many).
DEALT = 20


def floor(size: int, decks: int = 1_000_000, chunk: int = 65_536) -> float:
    """Decks a second that NumPy shuffles: random keys with the card ids in the low bits,
    sorted along axis 1 (``run.py --engines`` measures its floor with this too), in thread
    CPU time."""
    rng = np.random.default_rng(0)
    ids = np.arange(size, dtype=np.uint32) % 256
    start = time.thread_time()
    for done in range(0, decks, chunk):
        m = min(chunk, decks - done)
        keys = (rng.integers(0, 1 << 24, (m, size), dtype=np.uint32) << 8) | ids
        keys.sort(axis=1)
        (keys & 0xFF).astype(np.int16)
    return decks / (time.thread_time() - start)


def _deal_floor_function():
    """The compiled deal floor (built on first use: it compiles in a second)."""
    from numba import njit

    @njit(cache=False, _nrt=False)
    def deal(deck, games, dealt, library):
        size = len(deck)
        state = np.uint64(0x9E3779B97F4A7C15)
        checksum = 0
        for _game in range(games):
            for p in range(size):
                library[p] = deck[p]
            for d in range(min(dealt, size)):
                state ^= state << np.uint64(13)
                state ^= state >> np.uint64(7)
                state ^= state << np.uint64(17)
                j = d + np.int64((state >> np.uint64(11)) % np.uint64(size - d))
                library[d], library[j] = library[j], library[d]
                checksum += library[d]
        return checksum

    return deal


def deal_floor(size: int, games: int = 1_000_000) -> float:
    """Games a second whose cards a compiled partial Fisher-Yates deals (:data:`DEALT` of a
    library of ``size``), in thread CPU time."""
    deal = _deal_floor_function()
    deck = np.arange(size, dtype=np.int32)
    library = np.empty(size, dtype=np.int32)
    deal(deck, 16, DEALT, library)  # compiled
    start = time.thread_time()
    deal(deck, games, DEALT, library)
    return games / (time.thread_time() - start)


def bare_rate(source: str, games: int, rounds: int) -> tuple[str, int, float, float]:
    """``(name, library size, best games a second, best games a second counted)`` of the bare
    kernel on ``source`` (a decklist's path, or a decklist's text), in thread CPU time: the
    games written out, and the same games counted by value in the kernel (as ``simulate``
    plays them: ``count_games_kernel``, with the summing of its parts' histograms)."""
    import explore_sim
    from explore_sim.analysis.game_setup import game_mulligan
    from explore_sim.engine.config import GameConfig
    from explore_sim.engine.goldfish import deck_tables
    from explore_sim.engine.kernel import count_games_kernel, play_games_kernel
    from explore_sim.engine.mulligan import as_mulligan_rule
    from explore_sim.engine.policies import as_policy

    if "\n" in source:
        deck, name = explore_sim.parse_deck(source), source.strip().replace("\n", ", ")
    else:
        deck, name = explore_sim.load_deck(source), Path(source).name
    config = GameConfig(turns=8)
    features = deck.features()
    tables = deck_tables(features, config)
    mulligan = game_mulligan(as_mulligan_rule("london"), config, features)
    policy = as_policy("forge")

    def play(n: int, seed: int, counted: bool = False) -> float:
        start = time.thread_time()
        games = count_games_kernel if counted else play_games_kernel
        games(tables, config, policy, mulligan, n, np.random.SeedSequence(seed),
              deck.card_ids(), threads=1)
        return n / (time.thread_time() - start)

    play(256, 0)  # compiled, or loaded from numba's cache, and warmed
    written = counted = 0.0
    for seed in range(1, rounds + 1):  # alternating
        written = max(written, play(games, seed))
        counted = max(counted, play(games, seed, counted=True))
    return name, deck.size, written, counted


def machine() -> str:
    """What the figures were measured on."""
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as info:
            model = next((line.split(":", 1)[1].strip() for line in info
                          if line.startswith("model name")), "")
    except OSError:
        pass
    return f"{model or platform.processor() or platform.machine()}, {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("decks", nargs="*", default=DECKS, help="decklists (default: four)")
    parser.add_argument("--games", type=int, default=65_536, help="games a round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per deck (best kept)")
    args = parser.parse_args()
    print(f"{'deck':32s} {'library':>7s} {'ns/game':>8s} {'counted':>8s} {'NumPy floor':>12s} "
          f"{'x':>6s} {'x counted':>9s} {'deal floor':>11s} {'x':>6s}")
    for source in args.decks:
        name, size, rate, counted = bare_rate(source, args.games, args.rounds)
        shuffles = max(floor(size) for _ in range(2))
        deals = max(deal_floor(size) for _ in range(2))
        print(f"{name[:32]:32s} {size:7d} {1e9 / rate:8.0f} {1e9 / counted:8.0f} "
              f"{1e9 / shuffles:9.0f} ns {shuffles / rate:6.1f} {shuffles / counted:9.1f} "
              f"{1e9 / deals:8.0f} ns {deals / rate:6.1f}", flush=True)
    print(f"one core ({machine()}), thread CPU time: the kernel's games alone (8 turns, "
          f"policy forge, London mulligans): ns/game with every game's metrics written out, "
          f"counted: counted by value in the kernel as simulate plays them; NumPy floor: "
          f"random uint32 keys sorted along axis 1 (1,000,000 decks of the library's size); "
          f"deal floor: a compiled partial Fisher-Yates of the {DEALT} cards a game reaches")


if __name__ == "__main__":
    main()
