"""Throughput and memory benchmarks: one command, one table.

    python benchmarks/run.py                  # about three minutes on 2 cores
    python benchmarks/run.py --quick          # a smaller run for a first look
    python benchmarks/run.py --baseline REV   # also the 8-turn goldfish of git revision REV
    python benchmarks/run.py --baseline REV --pairs 5   # and 5 alternating pairs for the ratio
    python benchmarks/run.py --huge 1e8       # peak memory of 10^8 games (about 20 minutes)
    python benchmarks/run.py --engines        # the two engines and the shuffle floor, one process
    python benchmarks/run.py --yardsticks     # the compiled game against its targets

Each row runs in a fresh process (so its peak resident memory is its own), the goldfish rows
on the vectorised NumPy engine (``engine="numpy"``; ``--engines`` compares it with the compiled
kernel), and reports
games (or explore sequences) per second, the ratio to the NumPy shuffle floor measured in
the same process, and peak memory. The floor is the time NumPy alone takes to shuffle the
same number of 60-card decks with the cheapest full shuffle found (``Generator.permuted``,
an argsort of random keys, or explore_sim's own vectorised Fisher-Yates), so the ratios
hold on a noisy machine.

Decks: ``merfolk`` (two colours, a pain land), ``sultai``
(three colours: duals, check, shock and tapped lands, a Pathway, a spell // land card, mana
creatures) and ``benchmarks/lci_merfolk_basic_lands.txt`` (the merfolk list with basic lands
only, which every version of the engine reads: ``--baseline`` runs it with an older revision,
checked out into a temporary git worktree, beside the current one in the same table). The
ratio of the two is then measured again over ``--pairs`` alternating pairs of fresh processes
(this version, then REV), and the median pair is reported, so that a drift of the machine's
speed during the table does not decide it.

``--engines`` times the two engines that play goldfish games (``engine="numpy"`` and
``engine="kernel"``: :func:`explore_sim.simulate`, 8 turns, policy forge, London mulligans, one
worker, one core: the kernel's threads held to one) on the merfolk, three-colour and
basic-land decks and on the Commander deck ``hakbal``,
in one fresh process, alternating the engines over ``--rounds`` rounds and keeping each one's
best round, beside the shuffle floor of the same process: random uint32 keys with the card
ids in their low bits, sorted along axis 1, for 1,000,000 decks of the library's size (in
chunks of 65,536); then the kernel as a run in one process plays by default, its threads on
every core. A value and a tune run are timed the same three ways. It then times the
kernel's cold compile in another fresh process with an empty ``NUMBA_CACHE_DIR`` (the first
game of a clean checkout) and its load from that cache in a third.

``--yardsticks`` prints the compiled game against its targets (:mod:`yardsticks`): thread
CPU time a game on one core for the cheapest game, merfolk, three-colour and Commander, beside
the NumPy shuffle floor and the compiled deal floor of the same process, each ratio with its
target; the cold compile's CPU time and the warm first game; and an ``explore-sim value`` run.

The table's rows run on one core (``EXPLORE_SIM_THREADS=1``), but ``kernel: 8 turns, every
core``: the compiled kernel's threads on every core of one process.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DECK = ROOT / "explore_sim" / "decks" / "lci_merfolk_explore.txt"
THREE_COLOURS = ROOT / "explore_sim" / "decks" / "sultai_explore.txt"
BASIC_LANDS = ROOT / "benchmarks" / "lci_merfolk_basic_lands.txt"
COMMANDER = ROOT / "explore_sim" / "decks" / "hakbal_merfolk_commander.txt"

RUNNER = r"""
import json, resource, sys, time
import numpy as np
kind, n, workers, deck = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, sys.argv[5])  # the tests folder
sys.path.insert(0, sys.argv[6])  # the tree whose explore_sim is measured

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
    import inspect
    # The table's rows are the NumPy engine's (a revision without the option has no other).
    engine = {"engine": "numpy"} if "engine" in inspect.signature(explore_sim.simulate).parameters \
        else {}
    explore_sim.simulate(deck, turns=8, mulligan="london", policy="forge", trials=n, seed=1,
                         workers=workers, **engine)
elif kind == "kernel":  # the compiled kernel, its compilation loaded or paid before timing
    explore_sim.simulate(deck, turns=8, mulligan="london", policy="forge", trials=1_000, seed=2,
                         engine="kernel")
    start = time.perf_counter()
    explore_sim.simulate(deck, turns=8, mulligan="london", policy="forge", trials=n, seed=1,
                         workers=workers, engine="kernel")
elapsed = time.perf_counter() - start
rate = n / elapsed
floor_rate, floor_name = floor(min(n, 2_000_000))
peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
           resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
print(json.dumps({"rate": rate, "seconds": elapsed, "floor": floor_rate, "floor_name": floor_name,
                  "peak_mb": peak, "package": explore_sim.__file__}))
"""


ENGINES_RUNNER = r"""
import contextlib, json, sys, time
import numpy as np
n, rounds, decks = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
VALUE_TRIALS = 25_000
import explore_sim

sys.path.insert(0, "benchmarks")  # run in the checkout's root
from bare_kernel import floor  # random uint32 keys with the card ids in the low bits, sorted

from explore_sim.engine.threads import available_cores, one_thread

rows = []
for path in decks:
    deck = explore_sim.load_deck(path)
    explore_sim.simulate(deck, turns=8, trials=1000, seed=2, engine="kernel")  # loaded
    best = {"numpy": 0.0, "kernel": 0.0}
    floors = []
    for _ in range(rounds):
        for engine in ("numpy", "kernel"):
            start = time.perf_counter()
            with one_thread():  # one core
                result = explore_sim.simulate(deck, turns=8, mulligan="london", policy="forge",
                                              trials=n, seed=1, engine=engine)
            best[engine] = max(best[engine], n / (time.perf_counter() - start))
            assert result.meta["engine"] == engine
        floors.append(floor(deck.size))
    every = 0.0
    for _ in range(rounds):  # the kernel on every core, as a run in this process plays
        start = time.perf_counter()
        explore_sim.simulate(deck, turns=8, mulligan="london", policy="forge", trials=n, seed=1,
                             engine="kernel")
        every = max(every, n / (time.perf_counter() - start))
    rows.append({"deck": path, "size": deck.size, "game": result.meta["formats"][0]["game"],
                 **best, "floor": max(floors), "every_core": every})
# An analysis of each kind, once per engine: value (every explore card of the first deck,
# VALUE_TRIALS trials a variant) and tune (its default budget).
runs = []
for name, run in (
        (f"value: every explore card, {VALUE_TRIALS:,} trials",
         lambda engine: explore_sim.value(decks[0], trials=VALUE_TRIALS, seed=3, engine=engine)),
        ("tune: on_curve@4, its default budget",
         lambda engine: explore_sim.tune(decks[0], seed=3, engine=engine))):
    seconds = {}
    for engine in ("numpy", "kernel", "every_core"):
        start = time.perf_counter()
        with one_thread() if engine != "every_core" else contextlib.nullcontext():
            result = run("kernel" if engine == "every_core" else engine)
        seconds[engine] = time.perf_counter() - start
    runs.append({"run": name, **seconds})
print(json.dumps({"decks": rows, "runs": runs, "cores": available_cores()}))
"""

COMPILE_RUNNER = r"""
import json, time
start = time.perf_counter()
import numpy as np
import explore_sim
from explore_sim.engine.goldfish import deck_tables
from explore_sim.engine.config import GameConfig
from explore_sim.engine.mulligan import as_mulligan_rule
from explore_sim.engine.policies import as_policy
from explore_sim.engine.kernel import play_games_kernel
deck = explore_sim.load_deck(%r)
config = GameConfig(turns=8)
imported = time.perf_counter()
play_games_kernel(deck_tables(deck.features(), config), config, as_policy("forge"),
                  as_mulligan_rule("london"), 1, np.random.SeedSequence(1), deck.card_ids())
print(json.dumps({"import": imported - start, "first_game": time.perf_counter() - imported}))
"""


def engines(games: int, rounds: int) -> None:
    """``--engines``: both engines and the shuffle floor in one process, then the kernel's
    cold compile and its cached load."""
    decks = [DECK, THREE_COLOURS, BASIC_LANDS, COMMANDER]
    out = subprocess.run([sys.executable, "-c", ENGINES_RUNNER, str(games), str(rounds),
                          *map(str, decks)], capture_output=True, text=True, check=True,
                         cwd=ROOT)
    measured = json.loads(out.stdout)
    rows = measured["decks"]
    print(f"engines: {games:,} games of 8 turns a round (policy forge, London mulligans, one "
          f"worker), best of {rounds} alternating rounds, one process")
    cores = measured["cores"]
    header = (f"{'deck':<42}{'library':>8}{'numpy/s':>10}{'kernel/s':>10}{'kernel/numpy':>14}"
              f"{'floor decks/s':>15}{'numpy x floor':>15}{'kernel x floor':>16}"
              f"{'kernel/s, ' + str(cores) + ' cores':>20}")
    print(header)
    print("-" * len(header))
    for row in rows:
        name = f"{Path(row['deck']).name} ({row['game']})"
        print(f"{name:<42}{row['size']:>8}{row['numpy']:>10,.0f}{row['kernel']:>10,.0f}"
              f"{row['kernel'] / row['numpy']:>13.2f}x{row['floor']:>15,.0f}"
              f"{row['floor'] / row['numpy']:>15.1f}{row['floor'] / row['kernel']:>16.1f}"
              f"{row['every_core']:>20,.0f}")
    print("one core (EXPLORE_SIM_THREADS=1) but the last column: the kernel's threads on every "
          "core, as a run in one process plays by default")
    print("floor: random uint32 keys with the card ids in the low bits, sorted along axis 1, "
          "1,000,000 decks of the library's size")
    print(f"\n{'analysis (merfolk, seed 3)':<42}{'numpy s':>10}{'kernel s':>10}"
          f"{'numpy/kernel':>14}{'kernel s, ' + str(cores) + ' cores':>20}{'numpy/that':>12}")
    for run in measured["runs"]:
        print(f"{run['run']:<42}{run['numpy']:>10.1f}{run['kernel']:>10.1f}"
              f"{run['numpy'] / run['kernel']:>13.2f}x{run['every_core']:>20.1f}"
              f"{run['numpy'] / run['every_core']:>11.2f}x")
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        times = []
        for _ in ("cold", "cached"):
            done = subprocess.run([sys.executable, "-c", COMPILE_RUNNER % str(DECK)],
                                  capture_output=True, text=True, check=True, cwd=ROOT, env=env)
            times.append(json.loads(done.stdout))
    cold, cached = times
    print(f"kernel's first game, empty NUMBA_CACHE_DIR (cold compile): {cold['first_game']:.1f} s; "
          f"from that cache in a new process: {cached['first_game']:.2f} s (imports "
          f"{cached['import']:.2f} s)")


def measure(kind: str, n: int, workers: int = 1, deck: Path = DECK, tree: Path = ROOT,
            threads: int = 1) -> dict:
    """Run one row in a fresh process, importing explore_sim from ``tree``, the compiled
    kernel playing each chunk on ``threads`` threads (0: every core)."""
    out = subprocess.run(
        [sys.executable, "-c", RUNNER, kind, str(n), str(workers), str(deck),
         str(ROOT / "tests"), str(tree)],
        capture_output=True, text=True, check=True, cwd=tree,
        env={**os.environ, "EXPLORE_SIM_THREADS": str(threads)})
    result = json.loads(out.stdout)
    if not Path(result["package"]).resolve().is_relative_to(tree.resolve()):
        raise RuntimeError(f"measured {result['package']}, not the package in {tree}")
    return result


@contextlib.contextmanager
def checkout(revision: str):
    """A temporary git worktree of ``revision`` (removed afterwards)."""
    with tempfile.TemporaryDirectory() as parent:
        tree = Path(parent) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(tree), revision],
                       cwd=ROOT, check=True)
        try:
            yield tree
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT,
                           check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description="explore_sim throughput benchmarks")
    parser.add_argument("--quick", action="store_true", help="fewer games")
    parser.add_argument("--baseline", default=None, metavar="REV",
                        help="also time the 8-turn goldfish of this git revision on the "
                             "basic-land list (same table)")
    parser.add_argument("--pairs", type=int, default=3,
                        help="with --baseline: alternating pairs of runs for the ratio "
                             "(default 3)")
    parser.add_argument("--huge", type=float, default=0,
                        help="only measure peak memory and time of this many 8-turn games on "
                             "2 workers (e.g. 1e8)")
    parser.add_argument("--engines", action="store_true",
                        help="only time the numpy engine, the compiled kernel and the shuffle "
                             "floor in one process, and the kernel's cold compile")
    parser.add_argument("--yardsticks", action="store_true",
                        help="only the compiled game against its targets: thread CPU a game "
                             "beside both floors, the cold compile, a value run")
    parser.add_argument("--games", type=int, default=None,
                        help="with --engines: games a round (default 131072; --yardsticks: "
                             "65536)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="with --engines: alternating rounds (default 3)")
    args = parser.parse_args()
    if args.yardsticks:
        import yardsticks

        yardsticks.report(args.games or 65_536, args.rounds)
        return
    if args.engines:
        engines(args.games or 131_072, args.rounds)
        return
    if args.huge:
        result = measure("simulate", int(args.huge), 2)
        print(f"{int(args.huge):,} 8-turn games on 2 workers: {result['seconds']:,.0f} s, "
              f"{result['rate']:,.0f} games/s, peak memory {result['peak_mb']:,.0f} MB "
              "(the largest process: the parent or one worker)")
        return
    scale = 0.1 if args.quick else 1.0
    games = int(1_000_000 * scale)
    rows = [
        ("explore: 2 explores, forge", "explore", int(20_000_000 * scale), 1, "sequences", DECK),
        ("simulate: 8 turns, London", "simulate", games, 1, "games", DECK),
        ("simulate: 8 turns, 3 colours", "simulate", games // 2, 1, "games", THREE_COLOURS),
        ("simulate: 8 turns, basic lands", "simulate", games, 1, "games", BASIC_LANDS),
        ("simulate: 8 turns, 2 workers", "simulate", games, 2, "games", DECK),
        ("kernel: 8 turns, London", "kernel", games, 1, "games", DECK),
        ("kernel: 8 turns, every core", "kernel", games, 0, "games", DECK),
    ]
    print("one row = one fresh process; decks: merfolk = merfolk, "
          "sultai = sultai,\nbasic = benchmarks/lci_merfolk_basic_lands.txt\n")
    header = (f"{'benchmark':<34}{'deck':<8}{'count':>12}{'per second':>14}{'x floor':>9}"
              f"{'peak MB':>9}")
    print(header)
    print("-" * len(header))
    short = {DECK: "merfolk", THREE_COLOURS: "sultai", BASIC_LANDS: "basic"}

    def show(label: str, n: int, unit: str, deck: Path, result: dict) -> None:
        ratio = result["floor"] / result["rate"]
        print(f"{label:<34}{short[deck]:<8}{n:>12,}{result['rate']:>14,.0f}{ratio:>9.1f}"
              f"{result['peak_mb']:>9.0f}  {unit}", flush=True)

    results = {}
    for label, kind, n, workers, unit, deck in rows:
        # workers 0 here: one process, the kernel's threads on every core
        result = measure(kind, n, max(workers, 1), deck, threads=1 if workers else 0)
        results[label] = result
        show(label, n, unit, deck, result)
    ratios = []
    if args.baseline:
        with checkout(args.baseline) as tree:
            label = f"simulate: 8 turns, {args.baseline[:10]}"
            result = measure("simulate", games, 1, BASIC_LANDS, tree)
            results["baseline"] = result
            show(label, games, "games", BASIC_LANDS, result)
            for _ in range(args.pairs):
                now = measure("simulate", games, 1, BASIC_LANDS)["rate"]
                then = measure("simulate", games, 1, BASIC_LANDS, tree)["rate"]
                ratios.append((now / then, now, then))
    floor = results["explore: 2 explores, forge"]
    print(f"{'shuffle floor (' + floor['floor_name'] + ')':<34}{'':>12}{floor['floor']:>14,.0f}"
          f"{1.0:>9.1f}{'':>9}  decks")
    simulate_rate = results["simulate: 8 turns, London"]["rate"]
    kernel_rate = results["kernel: 8 turns, London"]["rate"]
    two = results["simulate: 8 turns, 2 workers"]["rate"]
    print()
    print(f"8-turn goldfish, compiled kernel vs NumPy engine: {kernel_rate / simulate_rate:.2f}x")
    print(f"2 workers vs 1: {two / simulate_rate:.2f}x")
    print(f"compiled kernel, every core ({len(os.sched_getaffinity(0))}) vs one: "
          f"{results['kernel: 8 turns, every core']['rate'] / kernel_rate:.2f}x")
    if args.baseline:
        now = results["simulate: 8 turns, basic lands"]["rate"]
        print(f"basic-land list, this version vs {args.baseline}: "
              f"{now / results['baseline']['rate']:.2f}x in the table", end="")
        if ratios:
            ratios.sort()
            ratio, now, then = ratios[len(ratios) // 2]
            pairs = ", ".join(f"{r:.2f}" for r, _, _ in ratios)
            print(f"; {ratio:.2f}x the median of {len(ratios)} alternating pairs ({pairs}; "
                  f"median pair {now:,.0f} vs {then:,.0f} games/s)")
        else:
            print()
    print("'x floor': how many times slower than shuffling the same number of decks")


if __name__ == "__main__":
    main()
