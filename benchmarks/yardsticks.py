"""The compiled game against its targets, in one table: ``python benchmarks/run.py --yardsticks``.

For each of the four games of :mod:`bare_kernel` (the cheapest game, merfolk, three-colour,
Commander): thread CPU time per 8-turn game on one core (policy forge, London mulligans),
counted by value in the kernel as ``simulate`` plays them, beside the two floors measured in
the same process (the NumPy shuffle floor and the compiled deal floor), the ratio to the
NumPy floor and its target. Then the cold compile's CPU time with an empty
``NUMBA_CACHE_DIR`` and the warm first game (:mod:`compile_time`), each against its target,
and the wall and CPU time of ``explore-sim value`` of four explore cards of the merfolk deck
at its default trials (the whole command, on both cores). Each figure is one measurement: on
a machine that drifts, run it again before trusting a verdict near its target.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bare_kernel
import compile_time

ROOT = Path(__file__).resolve().parent.parent

#: ``(label, decklist, most times the NumPy floor)`` of each game.
GAMES = (
    ("cheapest (24 Forest, 36 Grizzly Bears)", bare_kernel.SIMPLEST, 1.5),
    ("merfolk", "merfolk", 6.0),
    ("three-colour (sultai)", "sultai", 7.0),
    ("Commander (hakbal)", "hakbal", 8.0),
)
#: The cold compile's CPU seconds and the warm first game's seconds, at most.
COMPILE_TARGET, WARM_TARGET = 30.0, 0.5
#: ``explore-sim value`` of four explore cards of the merfolk deck, default trials.
VALUE_COMMAND = ("value", "merfolk", "--card", "Cenote Scout", "--card", "Jadelight Spelunker",
                 "--card", "River Herald Scout", "--card", "Spyglass Siren", "--seed", "7",
                 "--quiet")


def verdict(ok: bool) -> str:
    """``met`` or ``not met``."""
    return "met" if ok else "not met"


def game_rows(games: int, rounds: int) -> list[dict]:
    """Each game's ns a game counted, its floors (ns) and its target."""
    rows = []
    for label, source, target in GAMES:
        _, size, _, counted = bare_kernel.bare_rate(source, games, rounds)
        shuffles = max(bare_kernel.floor(size) for _ in range(2))
        deals = max(bare_kernel.deal_floor(size) for _ in range(2))
        rows.append({"game": label, "size": size, "ns": 1e9 / counted,
                     "floor": 1e9 / shuffles, "deal": 1e9 / deals, "target": target})
    return rows


def value_run() -> tuple[float, float]:
    """Wall and CPU seconds of :data:`VALUE_COMMAND` in a fresh process (its children's CPU)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "explore_sim", *VALUE_COMMAND], cwd=ROOT, check=True,
                   capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def report(games: int, rounds: int) -> None:
    """Print the table: the games, the compile, the value run."""
    rows = game_rows(games, rounds)
    print(f"yardsticks: one core, thread CPU time a game (8 turns, policy forge, London "
          f"mulligans, counted as simulate plays them), best of {rounds} rounds of "
          f"{games:,} games; both floors measured in this process")
    header = (f"{'game':<40}{'library':>8}{'ns/game':>9}{'NumPy floor':>13}{'x floor':>9}"
              f"{'target':>8}{'':>9}{'deal floor':>12}{'x deal':>8}")
    print(header)
    print("-" * len(header))
    for r in rows:
        ratio = r["ns"] / r["floor"]
        print(f"{r['game']:<40}{r['size']:>8}{r['ns']:>9,.0f}{r['floor']:>10,.0f} ns"
              f"{ratio:>9.1f}{r['target']:>7.1f}x{verdict(ratio <= r['target']):>9}"
              f"{r['deal']:>9,.0f} ns{r['ns'] / r['deal']:>8.0f}")
    with tempfile.TemporaryDirectory() as cache:
        base = compile_time.child(cache, play=False)
        cold = compile_time.child(cache, play=True)
        warm = compile_time.child(cache, play=True)
    compile_cpu = cold["cpu"] - base["cpu"]
    print(f"cold compile: {compile_cpu:.1f} s of CPU, empty NUMBA_CACHE_DIR (target "
          f"{COMPILE_TARGET:.0f} s: {verdict(compile_cpu <= COMPILE_TARGET)}); warm first game "
          f"{warm['first_game']:.2f} s (target {WARM_TARGET} s: "
          f"{verdict(warm['first_game'] < WARM_TARGET)})")
    wall, cpu = value_run()
    print(f"explore-sim {' '.join(VALUE_COMMAND[:2])} of four explore cards, default trials, "
          f"both cores: {wall:.1f} s ({cpu:.1f} s of CPU)")
    print(f"machine: {bare_kernel.machine()}; EXPLORE_SIM_THREADS="
          f"{os.environ.get('EXPLORE_SIM_THREADS', 'unset')} for the value run")
