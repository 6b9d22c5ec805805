"""Benchmark: what a hostile results file costs a sweep that reads it back with ``--out``.

A small sweep writes a whole results file; copies of it then have one string cell (row 1's
``deck_digest``) replaced by millions of ``a`` (zstd-compressed: a few kilobytes on disk).
Each copy is given to the same sweep again, in a fresh process: it must be refused in one
line, and this prints how long the command took once the package was imported and the
process's peak memory (its largest resident set, imports included), beside the whole file
read back and played on for comparison. The files are made in processes of their own, so
that the commands measured start small (a child's peak counts what it was forked from).

    python benchmarks/hostile_results_file.py [--lengths 60e6,600e6] [--keep DIR]

Targets: every hostile file refused in under 1 s and under 300 MB peak.

The time is the command's once the package is imported (starting Python and importing
NumPy, pandas and pyarrow take about a second more on a 2-core machine, whatever the file).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DECK = ROOT / "explore_sim" / "decks" / "lci_merfolk_explore.txt"
SWEEP = ["sweep", str(DECK), "--vary", "lands=23,24", "--vary", "policy=keep,forge", "--turns",
         "2", "--trials", "3000", "--quiet", "--format", "csv", "--engine", "numpy", "--seed",
         "1"]


#: The command, timed from after the package's imports; its status, seconds and peak RSS.
COMMAND = """
import resource, sys, time
import pandas, pyarrow.parquet
from explore_sim.cli import main
started = time.perf_counter()
status = main(sys.argv[1:])
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print("MEASURED", status, seconds, peak, file=sys.stderr)
"""
#: A copy of a whole file whose first row's deck digest is LENGTH times ``a``.
HOSTILE = """
import sys
import pyarrow as pa, pyarrow.parquet as pq
whole, path, length = sys.argv[1], sys.argv[2], int(sys.argv[3])
table = pq.read_table(whole)
index = table.schema.get_field_index("deck_digest")
digests = table.column("deck_digest").to_pylist()
column = pa.array(["a" * length, *digests[1:]], type=pa.string())
pq.write_table(table.set_column(index, table.schema.field(index), column), path,
               compression="zstd")
"""


def run(args: list[str]) -> tuple[int, float, float, str]:
    """``explore-sim ARGS`` in a fresh process: exit status, seconds after the imports, peak
    MB and the first line of its standard error."""
    done = subprocess.run([sys.executable, "-c", COMMAND, *args], cwd=ROOT, text=True,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    lines = done.stderr.strip().splitlines()
    measured = [line.split() for line in lines if line.startswith("MEASURED ")]
    if not measured:
        sys.exit(f"the command failed: {done.stderr[-2000:]}")
    _, status, seconds, peak = measured[-1]
    others = [line for line in lines if not line.startswith("MEASURED ")]
    return int(status), float(seconds), int(peak) / 1024, (others or [""])[0]


def hostile(whole: Path, path: Path, length: int) -> Path:
    """A copy of ``whole`` whose first row's deck digest is ``length`` times ``a``."""
    subprocess.run([sys.executable, "-c", HOSTILE, str(whole), str(path), str(length)],
                   check=True)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="60e6,600e6",
                        help="characters of the hostile string, comma-separated")
    parser.add_argument("--keep", default=None, help="keep the files in this directory")
    args = parser.parse_args()
    work = Path(args.keep or tempfile.mkdtemp(prefix="explore-sim-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    whole = work / "whole.parquet"
    whole.unlink(missing_ok=True)
    status, seconds, peak, err = run([*SWEEP, "--out", str(whole)])
    if status != 0:
        sys.exit(f"the sweep failed: {err}")
    print(f"{'file':<34}{'size':>12}{'status':>8}{'time':>9}{'peak':>10}")
    rows = [("whole (read back)", whole)]
    for text in args.lengths.split(","):
        length = int(float(text))
        rows.append((f"digest of {length:,} chars",
                     hostile(whole, work / f"hostile-{length}.parquet", length)))
    for label, path in rows:
        status, seconds, peak, err = run([*SWEEP, "--out", str(path)])
        print(f"{label:<34}{path.stat().st_size / 1e3:>9.1f} KB{status:>8}{seconds:>7.3f} s"
              f"{peak:>7.0f} MB")
        if status != 0:
            print(f"    {err[:160]}")
    print("targets: a hostile file refused (status 2) in under 1 s and under 300 MB")


if __name__ == "__main__":
    main()
