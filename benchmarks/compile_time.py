"""What the compiled game costs before its first game: the cold compile and the warm load.

    python benchmarks/compile_time.py            # both, in fresh processes
    python benchmarks/compile_time.py --warm 3   # and three warm loads

The cold compile is measured in a fresh process with an empty ``NUMBA_CACHE_DIR`` (numba then
compiles every function of the game): the process's CPU time (user and system, which a
loaded machine does not inflate as it does wall time) and its peak memory, beside the same
process importing the package and playing nothing. A warm load is a fresh process with that
cache filled: the time from the kernel's import (numba's, which any numba program pays, is
shown apart) to the first game's end, which is what every run after an install waits.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The child: import the package, then (unless told not to) play one merfolk game on one
#: thread; print its own CPU seconds, peak memory and wall seconds of the first game.
CHILD = r"""
import json, resource, sys, time
import numpy as np
import explore_sim
from explore_sim.analysis.game_setup import game_mulligan
from explore_sim.engine.config import GameConfig
from explore_sim.engine.goldfish import deck_tables
from explore_sim.engine.mulligan import as_mulligan_rule
from explore_sim.engine.policies import as_policy
deck = explore_sim.load_deck(sys.argv[1])
config = GameConfig(turns=8)
features = deck.features()
tables = deck_tables(features, config)
rule = game_mulligan(as_mulligan_rule("london"), config, features)
start, cpu = time.perf_counter(), time.process_time()
from explore_sim.engine.kernel import play_games_kernel  # numba and the kernel's modules
imported, imported_cpu = time.perf_counter() - start, time.process_time() - cpu
start, cpu = time.perf_counter(), time.process_time()
if sys.argv[2] == "play":
    play_games_kernel(tables, config, as_policy("forge"), rule, 1, np.random.SeedSequence(0),
                      deck.card_ids(), threads=1)
first, first_cpu = time.perf_counter() - start, time.process_time() - cpu
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024,
                  "first_game": first, "first_cpu": first_cpu, "kernel_import": imported,
                  "import_cpu": imported_cpu}))
"""


def child(cache: str, play: bool) -> dict:
    """One fresh process with numba's cache in ``cache``: its figures."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, EXPLORE_SIM_THREADS="1")
    deck = str(ROOT / "explore_sim" / "decks" / "lci_merfolk_explore.txt")
    out = subprocess.run([sys.executable, "-c", CHILD, deck, "play" if play else "import"],
                         capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warm", type=int, default=1, help="warm loads to time (default 1)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        base = child(cache, play=False)
        start = time.perf_counter()
        cold = child(cache, play=True)
        wall = time.perf_counter() - start
        warm = [child(cache, play=True) for _ in range(args.warm)]
    compile_cpu = cold["cpu"] - base["cpu"]
    print(f"cold compile: {compile_cpu:.1f} s of CPU ({wall:.0f} s of wall time), peak "
          f"{cold['rss_mb']:.0f} MB (the import alone: {base['cpu']:.1f} s, "
          f"{base['rss_mb']:.0f} MB)")
    for w in warm:
        print(f"warm load: first game {w['first_game']:.2f} s ({w['first_cpu']:.2f} s of CPU) "
              f"after the kernel's import ({w['kernel_import']:.2f} s, {w['import_cpu']:.2f} s "
              f"of CPU, numba's included)")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"machine: {os.cpu_count()} cores; children's CPU in all "
          f"{usage.ru_utime + usage.ru_stime:.0f} s")


if __name__ == "__main__":
    main()
