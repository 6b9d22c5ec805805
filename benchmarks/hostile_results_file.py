"""Benchmark: what a hostile results file costs a sweep that reads it back with ``--out``.

A small sweep writes a whole results file; copies of it then have one string cell (row 1's
``deck_digest``) replaced by millions of ``a`` (zstd-compressed: a few kilobytes on disk).
Each copy is given to the same sweep again, in a fresh process: it must be refused in one
line, and this prints how long that took and the process's peak memory (its largest
resident set), beside the whole file read back for comparison.

    python benchmarks/hostile_results_file.py [--lengths 60e6,600e6] [--keep DIR]

Targets: every hostile file refused in under 1 s and under 300 MB peak.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DECK = ROOT / "decks" / "lci_merfolk_explore.txt"
SWEEP = ["sweep", str(DECK), "--vary", "lands=23,24", "--vary", "policy=keep,forge", "--turns",
         "2", "--trials", "3000", "--quiet", "--format", "csv", "--engine", "numpy", "--seed",
         "1"]


def run(args: list[str]) -> tuple[int, float, float, str]:
    """``explore-sim ARGS`` in a fresh process: exit status, seconds, peak MB, stderr."""
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "explore_sim", *args], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    err = process.stderr.read()
    process.stderr.close()
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, seconds, usage.ru_maxrss / 1024, err.strip()


def hostile(whole: Path, path: Path, length: int) -> Path:
    """A copy of ``whole`` whose first row's deck digest is ``length`` times ``a``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(whole)
    index = table.schema.get_field_index("deck_digest")
    digests = table.column("deck_digest").to_pylist()
    column = pa.array(["a" * length, *digests[1:]], type=pa.string())
    pq.write_table(table.set_column(index, table.schema.field(index), column), path,
                   compression="zstd")
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
        print(f"{label:<34}{path.stat().st_size / 1e3:>9.1f} KB{status:>8}{seconds:>7.2f} s"
              f"{peak:>7.0f} MB")
        if status != 0:
            print(f"    {err[:160]}")
    print("targets: a hostile file refused (status 2) in under 1 s and under 300 MB")


if __name__ == "__main__":
    main()
