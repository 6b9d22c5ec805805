"""Do two versions of the compiled kernel play the same game in distribution? Every shipped deck.

    python benchmarks/same_distribution.py --baseline REV            # this tree against REV
    python benchmarks/same_distribution.py --baseline REV --trials 1000000 --z 5
    python benchmarks/same_distribution.py --baseline REV --seeds 3 4   # another pair of samples

Where ``same_outputs.py`` asks for the very same games, this asks for the same distribution:
both trees play ``explore_sim.simulate`` on the compiled kernel (``engine="kernel"``, 8 turns,
policy forge, London mulligans, on the play) with every shipped deck, each tree its own copy
(``explore_sim/decks/``, or ``decks/`` in a revision from before the decks were package
data), and from different seeds (``--seeds``, this tree's first) so the two samples are
independent. For every deck, every metric both versions record and every turn (0: the opening
hand), the means of the two samples are compared by
``z = (mean_new - mean_old) / sqrt(se_new**2 + se_old**2)``; a line per deck gives the largest
``|z|`` and where (and says when the two trees' deck files differ), then every ``|z|`` over
``--z`` is listed with both means and standard errors, and the script exits with status 1 if
there is any. With ``2 * 10**5`` games a deck and about 300 series a deck, a ``|z|`` over 4 is
not expected by chance (p about 6e-5 a series): a rule that changed on purpose shows here too.

REV is checked out into a temporary git worktree and plays with ``NUMBA_CACHE_DIR`` set to
``$TMPDIR/samedist_cache_old``, so its kernel (compiled in a few minutes on its first run)
leaves this tree's cache alone. Both trees need ``simulate(..., engine="kernel")``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from run import checkout

ROOT = Path(__file__).resolve().parent.parent

RUNNER = r"""
import hashlib, json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import explore_sim
tree, trials, seed, extra = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
folder = tree / "explore_sim" / "decks"
if not folder.is_dir():
    folder = tree / "decks"
out = {}
for path in sorted(folder.glob("*.txt")):
    options = {"turns": 8, "on_play": True, "mulligan": "london", "policy": "forge",
               **json.loads(extra)}
    result = explore_sim.simulate(path, trials=trials, seed=seed, engine="kernel", **options)
    if result.meta.get("engine") != "kernel":
        sys.exit(f"{path.stem} was not played by the kernel: {result.meta.get('engine')}")
    files = [path, path.with_name(path.stem + ".cards.toml")]
    digest = hashlib.sha256(b"".join(f.read_bytes() for f in files if f.exists())).hexdigest()
    metrics = {}
    for row in result.summary().itertuples():
        metrics.setdefault(row.metric, {})[str(row.turn)] = [float(row.mean), float(row.se)]
    out[path.stem] = {"files": digest, "metrics": metrics}
print(json.dumps(out))
"""


def play(tree: Path, trials: int, seed: int, extra: str, env: dict[str, str]) -> dict:
    """{deck: {"files": digest, "metrics": {metric: {turn: [mean, se]}}}} from ``tree``."""
    out = subprocess.run([sys.executable, "-c", RUNNER, str(tree), str(trials), str(seed), extra],
                         capture_output=True, text=True, cwd=tree, env=env)
    if out.returncode:
        last = (out.stderr.strip().splitlines() or ["no error output"])[-1]
        sys.exit(f"same_distribution: the engine in {tree} failed: {last}")
    return json.loads(out.stdout)


def z_score(new: list[float], old: list[float]) -> float:
    """The difference of the means over its standard error (0 or inf when both are exact)."""
    spread = math.hypot(new[1], old[1])
    if spread == 0:
        return 0.0 if new[0] == old[0] else math.inf
    return (new[0] - old[0]) / spread


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", metavar="REV", required=True,
                        help="compare with git revision REV")
    parser.add_argument("--trials", type=int, default=200_000, help="games a deck (200000)")
    parser.add_argument("--z", type=float, default=4.0, help="largest |z| allowed (4)")
    parser.add_argument("--seeds", type=int, nargs=2, default=[1, 2], metavar=("NEW", "OLD"),
                        help="this tree's seed and REV's (1 2)")
    # A check of the check: simulate keywords for REV's side only, e.g. '{"turns": 7}'.
    parser.add_argument("--baseline-options", default="{}", help=argparse.SUPPRESS)
    args = parser.parse_args()
    start = time.monotonic()
    mine = play(ROOT, args.trials, args.seeds[0], "{}", dict(os.environ))
    mine_time = time.monotonic() - start
    env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(tempfile.gettempdir(),
                                                            "samedist_cache_old"))}
    with checkout(args.baseline) as tree:
        theirs = play(tree, args.trials, args.seeds[1], args.baseline_options, env)
    print(f"{args.trials} games a deck, seeds {args.seeds[0]} (this tree, {mine_time:.0f} s) "
          f"and {args.seeds[1]} ({args.baseline}, {time.monotonic() - start - mine_time:.0f} s)")
    over = []
    for deck in sorted(set(mine) | set(theirs)):
        if deck not in mine or deck not in theirs:
            print(f"  {deck:26} only in {'this tree' if deck in mine else args.baseline}")
            continue
        new, old = mine[deck]["metrics"], theirs[deck]["metrics"]
        scores = [(abs(z_score(new[m][t], old[m][t])), m, t)
                  for m in sorted(set(new) & set(old)) for t in new[m] if t in old[m]]
        top, metric, turn = max(scores)
        differ = "  (deck files differ)" if mine[deck]["files"] != theirs[deck]["files"] else ""
        print(f"  {deck:26} {len(scores):4} series  max |z| {top:6.2f}  "
              f"at {metric}, turn {turn}{differ}")
        over += [(deck, m, t) for z, m, t in scores if z > args.z]
    print(f"{len(over)} series with |z| > {args.z:g}")
    for deck, metric, turn in over:
        new, old = mine[deck]["metrics"][metric][turn], theirs[deck]["metrics"][metric][turn]
        print(f"  {deck} | {metric} | turn {turn}: z {z_score(new, old):+.1f}  "
              f"new {new[0]:.5f} (se {new[1]:.5f})  old {old[0]:.5f} (se {old[1]:.5f})")
    sys.exit(1 if over else 0)


if __name__ == "__main__":
    main()
