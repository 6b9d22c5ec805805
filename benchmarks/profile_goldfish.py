"""Where a goldfish game spends its time: cProfile of one seeded simulate run.

    python benchmarks/profile_goldfish.py                         # the benchmark deck, 8 turns
    python benchmarks/profile_goldfish.py sultai --trials 50000 --top 40
    python benchmarks/profile_goldfish.py --sort tottime          # time inside each function itself

Runs ``explore_sim.simulate`` on the NumPy engine (``engine="numpy"``: the compiled kernel's
time is one call that cProfile cannot see into) once in this process on one core
(``workers=1``), after a
small warm-up run, and prints the functions with the most cumulative (or own) time. The
numbers are for reading the hot path, not for speed claims: ``benchmarks/run.py`` measures
throughput.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from pathlib import Path

import explore_sim

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("deck", nargs="?",
                        default=str(ROOT / "explore_sim" / "decks" / "lci_merfolk_explore.txt"))
    parser.add_argument("--trials", type=int, default=100_000)
    parser.add_argument("--turns", type=int, default=8)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--sort", choices=("cumulative", "tottime"), default="cumulative")
    args = parser.parse_args()
    deck = explore_sim.load_deck(args.deck)
    explore_sim.simulate(deck, turns=args.turns, trials=2_000, seed=0, workers=1,
                         engine="numpy")  # warm-up
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    explore_sim.simulate(deck, turns=args.turns, trials=args.trials, seed=1, workers=1,
                         engine="numpy")
    profiler.disable()
    seconds = time.perf_counter() - start
    print(f"{deck.name}: {args.trials:,} games of {args.turns} turns in {seconds:.2f} s "
          f"under the profiler ({args.trials / seconds:,.0f} games/s)\n")
    pstats.Stats(profiler).strip_dirs().sort_stats(args.sort).print_stats(args.top)


if __name__ == "__main__":
    main()
