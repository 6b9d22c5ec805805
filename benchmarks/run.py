"""Throughput and memory benchmarks: one command, one table.

    python benchmarks/run.py            # about two minutes on 2 cores
    python benchmarks/run.py --quick    # a smaller run for a first look
    python benchmarks/run.py --huge 1e8 # peak memory of 10^8 games (about 20 minutes)

Each row runs in a fresh process (so its peak resident memory is its own) and reports
games (or explore sequences) per second, the ratio to the NumPy shuffle floor measured in
the same process, and peak memory. The floor is the time NumPy alone takes to shuffle the
same number of 60-card decks with the cheapest full shuffle found (``Generator.permuted``,
an argsort of random keys, or explore_sim's own vectorised Fisher-Yates), so the ratios
hold on a noisy machine.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DECK = ROOT / "decks" / "lci_merfolk_explore.txt"

RUNNER = r"""
import json, resource, sys, time
import numpy as np
kind, n, workers, deck = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, sys.argv[5])

def floor(n):
    # The cheapest full shuffle of n decks of 60 cards, in this process.
    rng = np.random.default_rng(0)
    deck_ids = np.arange(60, dtype=np.int8)
    best = float("inf")
    from explore_sim.engine.state import shuffled_libraries
    candidates = {
        "permuted": lambda m: rng.permuted(np.broadcast_to(deck_ids, (m, 60)), axis=1),
        "argsort": lambda m: np.argsort(rng.random((m, 60), dtype=np.float32), axis=1),
        "fisher-yates": lambda m: shuffled_libraries(deck_ids, m, rng),
    }
    name_best = None
    for name, shuffle in candidates.items():
        for _ in range(2):
            start = time.perf_counter()
            done = 0
            while done < n:
                m = min(65536, n - done)
                shuffle(m)
                done += m
            elapsed = time.perf_counter() - start
            if elapsed < best:
                best, name_best = elapsed, name
    return n / best, name_best

import explore_sim
start = time.perf_counter()
if kind == "explore":
    explore_sim.explore(deck, explores=2, policy="forge", trials=n, seed=1, workers=workers)
elif kind == "simulate":
    explore_sim.simulate(deck, turns=8, mulligan="london", policy="forge", trials=n, seed=1,
                         workers=workers)
elif kind == "reference":
    import reference
    from explore_sim.engine.mulligan import MulliganRule, deal_opening_hands
    d = explore_sim.load_deck(deck)
    features = d.features()
    opening = deal_opening_hands(d.card_ids(), features, n, MulliganRule("london"),
                                 lambda a: np.random.default_rng([1, a]))
    width = opening.library.shape[1]
    start = time.perf_counter()
    for row in range(n):
        library = [int(opening.library[row, p % width]) for p in range(opening.top[row], opening.end[row])]
        hand = {i: int(c) for i, c in enumerate(opening.hand[row]) if i and c}
        game = reference.Game(features.cards, library, hand, decide=reference.forge())
        for _ in range(8):
            game.play_turn()
elapsed = time.perf_counter() - start
rate = n / elapsed
floor_rate, floor_name = floor(min(n, 2_000_000) if kind != "reference" else 200_000)
peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
           resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
print(json.dumps({"rate": rate, "seconds": elapsed, "floor": floor_rate, "floor_name": floor_name,
                  "peak_mb": peak}))
"""


def measure(kind: str, n: int, workers: int = 1) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", RUNNER, kind, str(n), str(workers), str(DECK), str(ROOT / "tests")],
        capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description="explore_sim throughput benchmarks")
    parser.add_argument("--quick", action="store_true", help="fewer games")
    parser.add_argument("--huge", type=float, default=0,
                        help="only measure peak memory and time of this many 8-turn games on "
                             "2 workers (e.g. 1e8)")
    args = parser.parse_args()
    if args.huge:
        result = measure("simulate", int(args.huge), 2)
        print(f"{int(args.huge):,} 8-turn games on 2 workers: {result['seconds']:,.0f} s, "
              f"{result['rate']:,.0f} games/s, peak memory {result['peak_mb']:,.0f} MB "
              "(the largest process: the parent or one worker)")
        return
    scale = 0.1 if args.quick else 1.0
    rows = [
        ("explore: 2 explores, forge", "explore", int(20_000_000 * scale), 1, "sequences"),
        ("simulate: 8 turns, London", "simulate", int(1_000_000 * scale), 1, "games"),
        ("simulate: 8 turns, 2 workers", "simulate", int(1_000_000 * scale), 2, "games"),
        ("reference loop: 8 turns", "reference", int(2_000 * scale), 1, "games"),
    ]
    print(f"deck: {DECK.name}; one row = one fresh process\n")
    header = f"{'benchmark':<34}{'count':>12}{'per second':>14}{'x floor':>9}{'peak MB':>9}"
    print(header)
    print("-" * len(header))
    results = {}
    for label, kind, n, workers, unit in rows:
        result = measure(kind, n, workers)
        results[label] = result
        ratio = result["floor"] / result["rate"]
        print(f"{label:<34}{n:>12,}{result['rate']:>14,.0f}{ratio:>9.1f}{result['peak_mb']:>9.0f}"
              f"  {unit}")
    floor = results["explore: 2 explores, forge"]
    print(f"{'shuffle floor (' + floor['floor_name'] + ')':<34}{'':>12}{floor['floor']:>14,.0f}"
          f"{1.0:>9.1f}{'':>9}  decks")
    simulate_rate = results["simulate: 8 turns, London"]["rate"]
    reference_rate = results["reference loop: 8 turns"]["rate"]
    two = results["simulate: 8 turns, 2 workers"]["rate"]
    print()
    print(f"8-turn goldfish vs the reference loop: {simulate_rate / reference_rate:,.0f}x")
    print(f"2 workers vs 1: {two / simulate_rate:.2f}x")
    print("'x floor': how many times slower than shuffling the same number of decks")


if __name__ == "__main__":
    main()
