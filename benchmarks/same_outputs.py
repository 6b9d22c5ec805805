"""Do two versions of the engine give the same numbers? Every shipped deck, several settings.

    python benchmarks/same_outputs.py --baseline REV     # this tree against git revision REV
    python benchmarks/same_outputs.py --baseline REV --trials 20000
    python benchmarks/same_outputs.py --baseline REV --engine kernel   # the compiled kernel's
    python benchmarks/same_outputs.py --engine kernel --save before.json   # this tree's digests
    python benchmarks/same_outputs.py --engine kernel --against before.json  # ... compared

A speed change must not change a single number: for every shipped deck
(``explore_sim/decks/``) and every
setting below, the per-trial metrics of every turn (before any averaging) from this tree and
from REV (checked out into a temporary git worktree) are compared exactly, and the script
exits with status 1 when any differs, naming the first deck, setting, turn and metric.
The games are the NumPy engine's (``--engine numpy``, the default: a revision from before the
engine option has no other) or the compiled kernel's (``--engine kernel``, both trees having
it); the two engines draw their randomness differently, so they are never compared with each
other here. ``--save`` writes this tree's digests to a file and ``--against`` compares with
such a file instead of a checkout (no second tree, no second compilation of the kernel: the
quick check between two edits of the same tree).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path

from run import checkout

ROOT = Path(__file__).resolve().parent.parent

#: Settings played for every shipped deck: (label, GameConfig keyword arguments, policy).
SETTINGS = [
    ("default", {}, "forge"),
    ("on the draw, removal 0.3", {"on_play": False, "removal": 0.3}, "forge"),
    ("keep, no Maps", {"use_maps": False}, "keep"),
    ("mill, twists first, parley 1", {"replacement_order": "twists-first",
                                      "opponent_land_fraction": 1.0}, "mill"),
]

RUNNER = r"""
import hashlib, json, sys
from pathlib import Path
import numpy as np
sys.path.insert(0, sys.argv[1])
import explore_sim
from explore_sim.analysis.simulate import play_games
from explore_sim.engine.goldfish import GameConfig
from explore_sim.engine.mulligan import MulliganRule
from explore_sim.engine.policies import as_policy
settings, trials, engine = json.loads(sys.argv[2]), int(sys.argv[3]), sys.argv[5]
import inspect
if "engine" in inspect.signature(play_games).parameters:
    chosen = {"engine": engine}
elif engine == "numpy":
    chosen = {}
else:
    sys.exit(f"this version has no engine option: it cannot play --engine {engine}")
out, unplayable = {}, {}
for path in sorted(Path(sys.argv[4]).glob("*.txt")):
    try:
        deck = explore_sim.load_deck(path)
    except Exception as error:  # a deck this version cannot read (cards it does not know)
        unplayable[path.stem] = str(error).splitlines()[0][:160]
        continue
    for label, kwargs, policy in settings:
        try:
            config = GameConfig(turns=8, **kwargs)
            games = play_games(deck, config, as_policy(policy), MulliganRule("london"), trials,
                               np.random.SeedSequence(20261130), **chosen)
        except Exception as error:  # a setting this version does not have
            unplayable[f"{path.stem} | {label}"] = str(error).splitlines()[0][:160]
            continue
        for turn, metrics in games.items():
            for name, values in sorted(metrics.items()):
                digest = hashlib.sha256(np.ascontiguousarray(values, dtype=np.int64).tobytes())
                out[f"{path.stem} | {label} | turn {turn} | {name}"] = digest.hexdigest()
print(json.dumps({"digests": out, "unplayable": unplayable}))
"""


def digests(tree: Path, trials: int, engine: str) -> tuple[dict[str, str], dict[str, str]]:
    """Per (deck, setting, turn, metric): a hash of the per-trial values, from ``tree``; and
    the decks (or deck and setting) that version cannot play, with its error."""
    out = subprocess.run([sys.executable, "-c", RUNNER, str(tree), json.dumps(SETTINGS),
                          str(trials), str(ROOT / "explore_sim" / "decks"), engine],
                         capture_output=True, text=True, cwd=tree)
    if out.returncode:
        last = (out.stderr.strip().splitlines() or ["no error output"])[-1]
        sys.exit(f"same_outputs: the engine in {tree} failed: {last}")
    result = json.loads(out.stdout)
    return result["digests"], result["unplayable"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--baseline", metavar="REV", help="compare with git revision REV")
    source.add_argument("--against", metavar="FILE", type=Path,
                        help="compare with the digests --save wrote")
    source.add_argument("--save", metavar="FILE", type=Path,
                        help="write this tree's digests to FILE, compare nothing")
    parser.add_argument("--trials", type=int, default=5000)
    parser.add_argument("--engine", choices=["numpy", "kernel"], default="numpy",
                        help="the engine both trees play (default numpy)")
    args = parser.parse_args()
    mine, mine_unplayable = digests(ROOT, args.trials, args.engine)
    if args.save:
        args.save.write_text(json.dumps({"trials": args.trials, "engine": args.engine,
                                         "digests": mine, "unplayable": mine_unplayable}))
        print(f"{len(mine)} series of {args.trials} games written to {args.save}")
        return
    if args.against:
        saved = json.loads(args.against.read_text())
        if (saved["trials"], saved["engine"]) != (args.trials, args.engine):
            sys.exit(f"same_outputs: {args.against} holds {saved['trials']} games of the "
                     f"{saved['engine']} engine; ask for the same")
        theirs, theirs_unplayable = saved["digests"], saved["unplayable"]
        other = str(args.against)
    else:
        with checkout(args.baseline) as tree:
            theirs, theirs_unplayable = digests(tree, args.trials, args.engine)
        other = args.baseline
    for who, unplayable in (("this tree", mine_unplayable), (other, theirs_unplayable)):
        for what, error in unplayable.items():
            print(f"  {who} cannot play {what}: {error}")
    shared = sorted(set(mine) & set(theirs))
    differ = [key for key in shared if mine[key] != theirs[key]]
    only = sorted(set(mine) ^ set(theirs))
    print(f"{len(shared)} (deck, setting, turn, metric) series compared, {args.trials} games each: "
          f"{len(differ)} differ")
    by_deck: dict[str, int] = {}
    for key in differ:
        deck = key.split(" | ")[0]
        by_deck[deck] = by_deck.get(deck, 0) + 1
    if by_deck:
        print("  by deck: " + ", ".join(f"{deck} {n}" for deck, n in sorted(by_deck.items())))
    for key in differ[:20]:
        print(f"  differs: {key}")
    if only:
        print(f"  {len(only)} series in only one version (new or removed metrics or decks), "
              f"e.g. {only[0]}")
    fingerprint = hashlib.sha256(json.dumps([mine[k] for k in shared]).encode()).hexdigest()[:16]
    print(f"fingerprint of this tree's outputs: {fingerprint}")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
