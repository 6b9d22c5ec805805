"""Where the compiled game spends its time: a `perf` profile named by kernel function.

    python benchmarks/profile_kernel.py                          # the merfolk deck, 262,144 games
    python benchmarks/profile_kernel.py sultai --games 131072 --top 40

Plays ``--games`` 8-turn games (policy forge, London mulligans, one chunk at a time) on the
compiled kernel under ``perf record`` (Linux ``perf``; the machine's cycle counter is not
needed, it samples the CPU clock) and prints each kernel function's share of the samples
that fell in the kernel. The machine code numba caches has no symbols ``perf`` can read, so
the played process writes ``perf``'s map of just-in-time code (``/tmp/perf-PID.map``)
itself: the addresses of the functions in the compiled ``play_chunk``'s object code, read
from the object file numba cached for it (``nm``). A function that the compiler inlined into
its caller is counted as its caller's. The shares are for reading the hot path;
``benchmarks/run.py --engines`` measures throughput.
"""

from __future__ import annotations

import argparse
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNEL_MODULES = ("actions", "bits", "colours", "decisions", "explore", "game", "lands", "mana",
                  "search", "spells", "state", "turn", "zones")


def short_name(symbol: str) -> str:
    """``module.function`` of a numba symbol (``_ZN11explore_sim6engine6kernel4mana...``)."""
    parts, rest = [], symbol[3:] if symbol.startswith("_ZN") else ""
    while rest and rest[0].isdigit():
        length = re.match(r"\d+", rest).group(0)
        rest = rest[len(length):]
        parts.append(rest[: int(length)])
        rest = rest[int(length):]
    if len(parts) >= 5 and parts[:3] == ["explore_sim", "engine", "kernel"]:
        return f"{parts[3]}.{parts[4]}"
    return symbol[:60]


def write_perf_map() -> int:
    """Write ``/tmp/perf-PID.map`` for the loaded ``play_chunk``: returns how many functions."""
    from explore_sim.engine.kernel.game import play_chunk

    engine = next(iter(play_chunk.overloads.values())).library._codegen._engine._ee
    entries = []
    folder = getattr(play_chunk._cache, "cache_path", None)  # None: compiled in memory
    for cached in (Path(folder).glob("game.play_chunk-*.nbc") if folder else ()):
        code = pickle.loads(cached.read_bytes())[0][2][0]  # the library's object code
        with tempfile.NamedTemporaryFile(suffix=".o") as obj:
            obj.write(code)
            obj.flush()
            listing = subprocess.run(["nm", "-S", "--defined-only", obj.name],
                                     capture_output=True, text=True, check=True).stdout
        symbols = []
        for line in listing.splitlines():
            fields = line.split()
            if len(fields) == 4 and fields[2] in "tTWw":
                symbols.append((int(fields[0], 16), int(fields[1], 16), fields[3]))
        base = None
        for offset, _, symbol in symbols:  # one exported symbol places the whole object
            if "play_chunk" in symbol and (address := engine.get_function_address(symbol)):
                base = address - offset
                break
        if base is not None:
            entries += [(base + offset, size, short_name(symbol))
                        for offset, size, symbol in symbols]
    with open(f"/tmp/perf-{os.getpid()}.map", "w", encoding="ascii") as out:
        for address, size, name in sorted(entries):
            out.write(f"{address:x} {size:x} {name}\n")
    return len(entries)


def play(deck_path: str, games: int) -> None:
    """The played process: load the kernel, write the map, play the games."""
    import numpy as np

    import explore_sim
    from explore_sim.analysis.game_setup import game_mulligan
    from explore_sim.engine.config import GameConfig
    from explore_sim.engine.goldfish import deck_tables
    from explore_sim.engine.kernel import play_games_kernel
    from explore_sim.engine.mulligan import as_mulligan_rule
    from explore_sim.engine.policies import as_policy

    deck = explore_sim.load_deck(deck_path)
    config = GameConfig(turns=8)
    features = deck.features()
    tables = deck_tables(features, config)
    rule = game_mulligan(as_mulligan_rule("london"), config, features)
    policy = as_policy("forge")
    play_games_kernel(tables, config, policy, rule, 16, np.random.SeedSequence(0),
                      deck.card_ids())  # compiled or loaded from the cache
    write_perf_map()
    chunk = 65_536
    for start in range(0, games, chunk):
        play_games_kernel(tables, config, policy, rule, min(chunk, games - start),
                          np.random.SeedSequence(start), deck.card_ids())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("deck", nargs="?",
                        default=str(ROOT / "explore_sim" / "decks" / "lci_merfolk_explore.txt"))
    parser.add_argument("--games", type=int, default=262_144)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--play", action="store_true", help=argparse.SUPPRESS)  # the child
    args = parser.parse_args()
    if args.play:
        play(args.deck, args.games)
        return
    for tool in ("perf", "nm"):
        if shutil.which(tool) is None:
            sys.exit(f"profile_kernel: {tool} is not installed (Debian: linux-perf, binutils)")
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "perf.data"
        subprocess.run(["perf", "record", "-q", "-F", "4000", "-o", str(data), sys.executable,
                        __file__, args.deck, "--games", str(args.games), "--play"], check=True)
        report = subprocess.run(["perf", "report", "-i", str(data), "--no-children",
                                 "--sort", "sym", "--stdio"],
                                capture_output=True, text=True, check=True).stdout
    shares: dict[str, float] = {}
    for line in report.splitlines():
        match = re.match(r"\s*([\d.]+)%\s+\[\.\]\s+(\S+)", line)
        if match and match.group(2).split(".")[0] in KERNEL_MODULES:
            shares[match.group(2)] = shares.get(match.group(2), 0.0) + float(match.group(1))
    total = sum(shares.values())
    if not total:
        sys.exit("profile_kernel: no samples fell in the kernel's functions")
    print(f"{Path(args.deck).name}: {args.games:,} games; the kernel held {total:.1f}% of the "
          "process's samples, shared out as:")
    for name, share in sorted(shares.items(), key=lambda item: -item[1])[: args.top]:
        print(f"  {100 * share / total:5.1f}%  {name}")


if __name__ == "__main__":
    main()
