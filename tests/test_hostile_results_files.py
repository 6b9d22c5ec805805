"""Hostile and damaged results files: a sweep reading its ``--out`` file back refuses every
file that is not whole in one line, in bounded time and memory, and never plays on with
numbers the file did not earn.

Each case starts from a whole file of a small sweep and damages one thing: a column emptied
or dropped, trials or sums that do not add up, settings nested 100,000 deep, millions of
rows or one enormous histogram behind a small footer, bytes flipped in the data pages.
Cases that used to eat memory run the command in a process whose address space is capped.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import DECKS, ROOT

from explore_sim.cli import main
from explore_sim.errors import OptionError

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

# Every test reads the results file of a sweep run in a subprocess.
pytestmark = [pytest.mark.timeout(60), pytest.mark.slow]

DECK = str(DECKS / "lci_merfolk_explore.txt")
#: On the NumPy engine: what is checked is reading a results file, and the compiled kernel's
#: code generator alone reserves more address space than the cap below leaves room for.
SWEEP = ["sweep", DECK, "--vary", "lands=23,24", "--vary", "policy=keep,forge", "--turns", "2",
         "--trials", "3000", "--quiet", "--format", "csv", "--engine", "numpy"]
SEED = ["--seed", "1"]
#: Address space of a command run with a memory cap (a normal run needs about 300 MB).
MEMORY_CAP = 700 << 20
NOT_WHOLE = "is not a whole explore_sim results file: "
ADVICE = "; remove it or choose another --out"


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> tuple[bytes, str]:
    """The bytes of a whole results file of ``SWEEP`` and what the sweep prints."""
    path = tmp_path_factory.mktemp("whole") / "r.parquet"
    printed = subprocess.run([sys.executable, "-m", "explore_sim", *SWEEP, *SEED, "--out",
                              str(path)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert printed.returncode == 0, printed.stderr
    return path.read_bytes(), printed.stdout


def cli(*args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    """``explore-sim`` in a fresh process with a time limit and an address-space cap."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))

    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "explore_sim", *args], cwd=ROOT, text=True,
                          capture_output=True, timeout=timeout, preexec_fn=limit, env=env)


def assert_refused(run: subprocess.CompletedProcess, *fragments: str) -> None:
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("explore-sim: error: --out: "), run.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def damaged(tmp_path: Path, whole: tuple[bytes, str], change) -> Path:
    """A copy of the whole file whose table went through ``change(table) -> table``."""
    source = tmp_path / "whole.parquet"
    source.write_bytes(whole[0])
    table = pq.read_table(source)
    path = tmp_path / "r.parquet"
    pq.write_table(change(table), path)
    return path


def replaced(table, name: str, values) -> object:
    index = table.schema.get_field_index(name)
    field = table.schema.field(index)
    return table.set_column(index, field, pa.array(values, type=field.type))


# ------------------------------------------------------------------------------------------
# Columns, trials and sums


@pytest.mark.parametrize("change, message", [
    (lambda t: replaced(t, "sum", [None] * t.num_rows), "column 'sum' has empty values"),
    (lambda t: t.drop_columns(["sum"]), "column 'sum' is missing"),
    (lambda t: replaced(t, "trials", [-5] * t.num_rows),
     "row 1 holds -5 trials; this run plays 3,000 a point"),
    (lambda t: replaced(t, "sum_squares", [-1] * t.num_rows),
     "the sum_squares of row 1 is not what its histogram adds up to"),
    (lambda t: replaced(t, "sum", [v + 1 for v in t.column("sum").to_pylist()]),
     "the sum of row 1 is not what its histogram adds up to"),
    (lambda t: replaced(t, "histogram", [[-1, 3001]] + t.column("histogram").to_pylist()[1:]),
     "a histogram holds a count outside 0 to 3,000"),
    (lambda t: replaced(t, "histogram", [[]] + t.column("histogram").to_pylist()[1:]),
     "the histogram of row 1 holds 0 values"),
    (lambda t: replaced(t, "mean", [v + 1e-9 for v in t.column("mean").to_pylist()]),
     "its 'mean' column is not what its points give"),
    (lambda t: t.set_column(t.schema.get_field_index("sum"), "sum",
                            t.column("sum").cast(pa.float64())),
     "column 'sum' holds double, not int64"),
    (lambda t: t.append_column("extra", pa.array(range(t.num_rows))),
     "it has a column 'extra' that results files do not have"),
])
@pytest.mark.slow
def test_a_damaged_column_is_refused_in_one_line(tmp_path, whole, change, message):
    path = damaged(tmp_path, whole, change)
    before = path.read_bytes()
    assert_refused(cli(*SWEEP, *SEED, "--out", str(path)), NOT_WHOLE + message, ADVICE)
    assert path.read_bytes() == before  # never overwritten


@pytest.mark.slow
def test_settings_nested_100000_deep_are_refused_in_one_line(tmp_path, whole):
    deep = ("[" * 100_000 + "]" * 100_000).encode()

    def nested(table):
        return table.replace_schema_metadata({b"explore_sim": b'{"settings": ' + deep + b"}"})

    path = damaged(tmp_path, whole, nested)
    for seed in (SEED, []):  # without --seed the file's seed is read first
        assert_refused(cli(*SWEEP, *seed, "--out", str(path)),
                       NOT_WHOLE + "its settings are nested too deeply", ADVICE)


# ------------------------------------------------------------------------------------------
# Small footers of large data: refused from the footer, before anything is loaded


@pytest.mark.slow
def test_six_million_rows_are_refused_from_the_footer(tmp_path, whole):
    def six_million(table):
        return pa.concat_tables([table] * (6_000_000 // table.num_rows + 1)).slice(0, 6_000_000)

    path = damaged(tmp_path, whole, six_million)
    assert path.stat().st_size < 8_000_000
    rows = pq.read_metadata(pa.BufferReader(whole[0])).num_rows  # the whole file's, this run's
    assert_refused(cli(*SWEEP, *SEED, "--out", str(path)),
                   NOT_WHOLE + f"it holds 6,000,000 rows; this run has {rows}", ADVICE)


@pytest.mark.parametrize("length, message", [
    (20_000_000, "its histograms hold 20,000,"),
    (1_500_000, "the histogram of row 1 holds 1,500,000 values (from 1 to 1,000,000)"),
])
@pytest.mark.slow
def test_one_enormous_histogram_is_refused(tmp_path, whole, length, message):
    """A histogram padded with zeros: its trials and sums still add up."""

    def padded(table):
        lists = table.column("histogram").combine_chunks()
        first = np.zeros(length, dtype=np.int64)
        first[: len(lists[0])] = lists[0].as_py()
        rest = lists.flatten()[len(lists[0]):].to_numpy()
        offsets = np.concatenate(([0], length + np.asarray(lists.offsets)[1:]
                                  - len(lists[0])))
        histogram = pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)),
                                             pa.array(np.concatenate((first, rest))))
        return table.set_column(table.schema.get_field_index("histogram"),
                                table.schema.field("histogram"), histogram)

    path = damaged(tmp_path, whole, padded)
    assert path.stat().st_size < 1_000_000
    assert_refused(cli(*SWEEP, *SEED, "--out", str(path)), NOT_WHOLE + message, ADVICE)


def _long_digest(length: int):
    """The first row's deck digest made ``length`` times ``a`` (zstd: a few KB on disk)."""

    def change(table):
        digests = table.column("deck_digest").to_pylist()
        return replaced(table, "deck_digest", ["a" * length, *digests[1:]])

    return change


def _compressed(tmp_path: Path, whole: tuple[bytes, str], change) -> Path:
    source = tmp_path / "whole.parquet"
    source.write_bytes(whole[0])
    path = tmp_path / "r.parquet"
    pq.write_table(change(pq.read_table(source)), path, compression="zstd")
    return path


@pytest.mark.slow
def test_a_string_of_60_million_characters_is_refused_from_the_footer(tmp_path, whole):
    """A 21 KB file whose first deck digest is 60,000,000 characters: refused before its
    data is read (the run used to copy that digest into every row of its point, 8 GB)."""
    path = _compressed(tmp_path, whole, _long_digest(60_000_000))
    assert path.stat().st_size < 100_000
    rows = pq.read_metadata(path).num_rows
    before = path.read_bytes()
    assert_refused(cli(*SWEEP, *SEED, "--out", str(path)),
                   NOT_WHOLE + "its 'deck_digest' column holds 60,0", f"for {rows} rows", ADVICE)
    assert path.read_bytes() == before


def test_text_is_refused_before_it_is_read_or_copied(tmp_path, whole, monkeypatch):
    """The footer refuses a long digest without reading the rows; a digest short enough for
    the footer's budget but longer than a digest is refused by its length, on the column as
    read, before it is copied into the other rows of its point."""
    import explore_sim
    from explore_sim.analysis import results_files

    reads = []
    real_read = results_files.read_rows
    monkeypatch.setattr(results_files, "read_rows", lambda path: reads.append(path) or
                        real_read(path))
    options = dict(turns=2, trials=3000, seed=1, engine="numpy")
    grid = {"lands": [23, 24], "policy": ["keep", "forge"]}
    path = _compressed(tmp_path, whole, _long_digest(2_000_000))
    with pytest.raises(OptionError, match="its 'deck_digest' column holds 2,0"):
        explore_sim.sweep(DECK, grid, out=path, **options)
    assert reads == []  # refused from the footer
    path = _compressed(tmp_path, whole, _long_digest(5_000))
    with pytest.raises(OptionError, match=r"the 'deck_digest' of row 1 holds 5,000 bytes "
                                          r"\(at most 64\)"):
        explore_sim.sweep(DECK, grid, out=path, **options)
    assert reads == [path]  # read, and refused by the digest's length


def test_a_footer_larger_than_eight_megabytes_is_refused_before_it_is_parsed(tmp_path, whole,
                                                                           monkeypatch):
    import explore_sim

    source = tmp_path / "whole.parquet"
    source.write_bytes(whole[0])
    table = pq.read_table(source)
    meta = dict(table.schema.metadata)
    meta[b"padding"] = b"x" * (9 << 20)
    path = tmp_path / "r.parquet"
    pq.write_table(table.replace_schema_metadata(meta), path)
    parsed = []
    monkeypatch.setattr(pq, "read_schema", lambda *a, **k: parsed.append(a))
    with pytest.raises(OptionError, match="its footer takes [0-9,]{10} bytes, more than "
                                          "8,388,608"):
        explore_sim.sweep(DECK, {"lands": [23, 24], "policy": ["keep", "forge"]}, turns=2,
                          trials=3000, seed=1, out=path, engine="numpy")
    assert parsed == []


def test_a_name_longer_than_a_results_file_holds_is_refused_before_the_run(tmp_path):
    import explore_sim

    with pytest.raises(OptionError, match="--out: the policy name 'x{30}.*' takes 9,000 "
                                          "bytes; a results file holds names of at most 8,000"):
        explore_sim.sweep(DECK, {"lands": [23, 24]}, policies={"x" * 9000: "keep"}, turns=2,
                          trials=3000, seed=1, out=tmp_path / "r.parquet", engine="numpy")
    assert not (tmp_path / "r.parquet").exists()


# ------------------------------------------------------------------------------------------
# Flipped bytes behind a valid footer


def test_flipped_bytes_in_the_data_pages_never_give_other_numbers(tmp_path, whole, capsys):
    """Eight bytes flipped in the middle and at the end of each column's pages: the file is
    refused in one line, or (bytes no value depends on) read back to the same numbers."""
    source = tmp_path / "whole.parquet"
    source.write_bytes(whole[0])
    metadata = pq.ParquetFile(source).metadata
    chunks = [metadata.row_group(0).column(i) for i in range(metadata.num_columns)]
    refused = 0
    path = tmp_path / "r.parquet"
    for chunk in chunks:
        start = chunk.dictionary_page_offset or chunk.data_page_offset
        for offset in (start + chunk.total_compressed_size // 2,
                       start + chunk.total_compressed_size - 8):
            data = bytearray(whole[0])
            data[offset:offset + 8] = bytes(b ^ 0xFF for b in data[offset:offset + 8])
            path.write_bytes(bytes(data))
            status = main([*SWEEP, *SEED, "--out", str(path)])
            out, err = capsys.readouterr()
            if status == 0:
                assert out == whole[1], chunk.path_in_schema
                continue
            refused += 1
            assert status == 2 and len(err.strip().splitlines()) == 1, err
            assert err.startswith("explore-sim: error: --out: ") and "Traceback" not in err
            assert path.read_bytes() == bytes(data)  # never overwritten
    assert refused >= len(chunks)  # most damage is seen


@pytest.mark.slow
def test_a_whole_file_is_still_read_back(tmp_path, whole):
    path = tmp_path / "r.parquet"
    path.write_bytes(whole[0])
    run = cli(*SWEEP, *SEED, "--out", str(path))
    assert run.returncode == 0 and run.stdout == whole[1], run.stderr
    assert path.read_bytes() == whole[0]


def test_the_python_api_refuses_the_same_files(tmp_path, whole):
    import explore_sim

    path = damaged(tmp_path, whole, lambda t: replaced(t, "trials", [-5] * t.num_rows))
    with pytest.raises(OptionError, match="row 1 holds -5 trials"):
        explore_sim.sweep(DECK, {"lands": [23, 24], "policy": ["keep", "forge"]}, turns=2,
                          trials=3000, seed=1, out=path, engine="numpy")
    meta = json.loads(pq.read_schema(path).metadata[b"explore_sim"])
    assert meta["settings"]["trials"] == 3000
