"""Instructions a compiled game executes, counted exactly: the yardstick a noisy machine keeps.

    python benchmarks/instructions.py                         # the four decks of bare_kernel
    python benchmarks/instructions.py merfolk --functions     # and where they go, by function
    python benchmarks/instructions.py sultai --games 8192

Time on a shared machine drifts by a third from one run to the next; the number of machine
instructions a game executes does not. This counts them with Valgrind's ``callgrind``
(Debian: ``apt-get install valgrind``): a child process plays a warm-up of 64 games and then
``--games`` 8-turn games (policy forge, London mulligans, counted by value as ``simulate``
plays them: ``count_games_kernel``, one thread), another the warm-up and the first of those
games alone; the instructions executed in the kernel's machine code (by address: each child
writes the map of its functions, as ``profile_kernel.py`` does), the second's subtracted from
the first's and divided by ``--games - 1``, are the instructions of one game. Only the
kernel's are counted: the interpreter's, which move by a few percent from run to run (its
hashing is seeded anew each time), are not. Both children play the
same games, so two trees (``--tree``) give comparable counts: a change that executes fewer
instructions for the same games is faster on every machine to within its memory traffic, which
counting does not see (``bare_kernel.py`` measures time).

Valgrind runs a processor of its own, without the host's newest extensions, and numba keys its
cache by processor: the kernel is compiled here for a fixed one (``haswell``, AVX2) into a
cache of its own, natively (in about half a minute), so that the children under Valgrind load
it rather than compile it again (which would take minutes).

``--functions`` prints each kernel function's share, its calls a game and its instructions a
call; a function the compiler inlined is counted in its caller's, as ``profile_kernel.py``
counts time samples.
"""

from __future__ import annotations

import argparse
import bisect
import collections
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NoReturn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

#: The processor the kernel is compiled for, one Valgrind runs (it lacks AVX-512).
CPU = {"NUMBA_CPU_NAME": "haswell",
       "NUMBA_CPU_FEATURES": "+avx,+avx2,+fma,+bmi,+bmi2,+popcnt,+sse4.2,+lzcnt,+cx16,+movbe"}
WARM_UP = 64


def fail(message: str) -> NoReturn:
    """Say what went wrong in one line and exit with status 2."""
    print(f"instructions: {message}", file=sys.stderr)
    sys.exit(2)


def child_env(tree: Path) -> dict[str, str]:
    """The environment of a child playing ``tree``'s kernel, compiled for :data:`CPU`."""
    folder = hashlib.sha1(str(tree).encode()).hexdigest()[:12]
    cache = Path(tempfile.gettempdir()) / "explore-sim-instructions" / folder
    return {**os.environ, **CPU, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(tree),
            "PYTHONDONTWRITEBYTECODE": "1"}


def play(source: str, games: int, perf_map: str) -> None:
    """The child: the warm-up, then ``games`` games; writes the kernel's function map."""
    import numpy as np

    import explore_sim
    from explore_sim.analysis.game_setup import game_mulligan
    from explore_sim.engine.config import GameConfig
    from explore_sim.engine.goldfish import deck_tables
    from explore_sim.engine.kernel import count_games_kernel
    from explore_sim.engine.mulligan import as_mulligan_rule
    from explore_sim.engine.policies import as_policy

    deck = explore_sim.parse_deck(source) if "\n" in source else explore_sim.load_deck(source)
    config = GameConfig(turns=8)
    features = deck.features()
    tables = deck_tables(features, config)
    mulligan = game_mulligan(as_mulligan_rule("london"), config, features)
    policy = as_policy("forge")
    for n, seed in ((WARM_UP, 0), (games, 1)):
        if n:
            count_games_kernel(tables, config, policy, mulligan, n, np.random.SeedSequence(seed),
                               deck.card_ids(), threads=1)
    if perf_map:
        import profile_kernel

        profile_kernel.write_perf_map()
        shutil.move(f"/tmp/perf-{os.getpid()}.map", perf_map)


def run_children(tree: Path, source: str, games: int
                 ) -> tuple[float, list[tuple[str, tuple[float, float]]]]:
    """Instructions a game of ``source`` executes in ``tree``'s kernel, and each kernel
    function's instructions and calls a game, most instructions first."""
    env = child_env(tree)
    me = [sys.executable, str(Path(__file__).resolve()), "--play", source]
    compiled = subprocess.run([*me, "0"], env=env, cwd=tree, capture_output=True, text=True)
    if compiled.returncode:  # a deck that does not load, a tree that does not import
        lines = compiled.stderr.strip().splitlines() or ["no message"]
        fail(f"{source[:40]!r} on {tree}: {lines[-1]}")
    with tempfile.TemporaryDirectory() as folder:
        runs, found = [], []
        for n in (1, games):
            out, perf_map = Path(folder) / f"{n}.out", Path(folder) / f"{n}.map"
            runs.append(subprocess.Popen(
                ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                 "--dump-instr=yes", "--compress-pos=no", "--compress-strings=no",
                 *me, str(n), "--map", str(perf_map)],
                env=env, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            found.append((out, perf_map))
        for run in runs:
            if run.wait():
                fail(f"callgrind failed on {source[:40]!r} on {tree}")
        alone, played = (by_function(out, perf_map) for out, perf_map in found)
    per_game = {name: tuple((a - b) / (games - 1) for a, b in zip(n, alone.get(name, (0, 0))))
                for name, n in played.items()}
    shares = sorted(per_game.items(), key=lambda item: -item[1][0])
    return sum(n for n, _ in per_game.values()), shares


def by_function(out: Path, perf_map: Path) -> dict[str, tuple[int, int]]:
    """``(instructions, calls)`` callgrind counted in and to each kernel function of
    ``perf_map``: the instructions by address (``--dump-instr``), the calls from the ``calls=``
    lines (the line after one is the call's inclusive cost, not counted again). Only the
    kernel's are counted, so the interpreter's own work, which varies from run to run, is
    not; a function the compiler inlined is its caller's, and the entry point is not called
    from the kernel."""
    entries = sorted((int(a, 16), int(s, 16), name.strip()) for a, s, name in
                     (line.split(maxsplit=2) for line in perf_map.read_text().splitlines()))
    starts = [start for start, _, _ in entries]

    def function(address: int) -> str | None:
        i = bisect.bisect_right(starts, address) - 1
        return entries[i][2] if i >= 0 and address < entries[i][0] + entries[i][1] else None

    cost: collections.Counter[str] = collections.Counter()
    calls: collections.Counter[str] = collections.Counter()
    skip = False
    with open(out, errors="replace") as lines:
        for line in lines:
            if skip:
                skip = False
            elif line.startswith("calls="):
                skip = True
                fields = line.split()
                if len(fields) > 1 and (name := function(int(fields[1], 16))):
                    calls[name] += int(fields[0][len("calls="):])
            elif line.startswith("0x"):
                fields = line.split()
                if len(fields) > 2 and (name := function(int(fields[0], 16))):
                    cost[name] += int(fields[2])
    return {name: (n, calls[name]) for name, n in cost.items() if re.match(r"\w+\.\w+$", name)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("decks", nargs="*", help="decklists (default: bare_kernel's four)")
    parser.add_argument("--games", type=int, default=8192, help="games counted (at least 2)")
    parser.add_argument("--tree", action="append", type=Path,
                        help="a checkout to count (again for several; default: this one)")
    parser.add_argument("--functions", action="store_true", help="by kernel function too")
    parser.add_argument("--play", help=argparse.SUPPRESS)  # the child
    parser.add_argument("--map", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.play is not None:  # the child: nothing imported from this checkout's tree
        play(args.play, int(args.decks[0]), args.map)
        return
    import bare_kernel  # puts this checkout first on the path, so only here

    if args.games < 2:
        fail("--games must be at least 2")
    if shutil.which("valgrind") is None:
        fail("valgrind is not installed (Debian: apt-get install valgrind)")
    trees = [t.resolve() for t in args.tree] if args.tree else [ROOT]
    for tree in trees:
        if not (tree / "explore_sim" / "__init__.py").is_file():
            fail(f"--tree {tree}: not a checkout of explore_sim")
    for source in args.decks or bare_kernel.DECKS:
        name = source.strip().replace("\n", ", ") if "\n" in source else Path(source).name
        for tree in trees:
            per_game, shares = run_children(tree, source, args.games)
            where = f"  ({tree})" if len(trees) > 1 else ""
            print(f"{name[:40]:40s} {per_game:10,.0f} instructions a game{where}", flush=True)
            if args.functions:
                print(f"    {'share':>6}  {'instr.':>8}  {'calls':>6}  {'a call':>7}  function"
                      "  (a game)")
            for function, (n, calls) in (shares[:25] if args.functions else ()):
                each = f"{n / calls:7,.0f}" if calls >= 0.5 else f"{'':7}"
                print(f"    {100 * n / per_game:5.1f}%  {n:8,.0f}  {calls:6.1f}  {each}  "
                      f"{function}")
    print(f"callgrind, {args.games:,} games of 8 turns (policy forge, London mulligans) on one "
          f"thread, counted by value; the kernel compiled for {CPU['NUMBA_CPU_NAME']}")


if __name__ == "__main__":
    main()
