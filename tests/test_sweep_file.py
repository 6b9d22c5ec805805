"""Sweep results in Parquet: tidy rows, written as points finish, resumed byte for byte."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

import pandas as pd
import pytest
from conftest import DECKS, ROOT, wait_until

import explore_sim
from explore_sim import OptionError
from explore_sim.analysis.results_files import SweepFile
from explore_sim.errors import clip

pq = pytest.importorskip("pyarrow.parquet")

DECK = DECKS / "lci_merfolk_explore.txt"
GRID = {"lands": [23, 24], "policy": ["keep", "forge"]}
RUN = dict(turns=2, trials=3000, seed=1)


def sweep(out, grid=GRID, **kwargs):
    return explore_sim.sweep(DECK, grid, out=out, **{**RUN, **kwargs})


def test_the_file_is_one_tidy_row_per_point_turn_and_metric(tmp_path):
    out = tmp_path / "r.parquet"
    result = sweep(out)
    frame = pd.read_parquet(out)
    assert list(frame.columns) == [
        "deck", "lands", "policy", "turn", "metric", "mean", "se", "ci_low", "ci_high",
        "trials", "seed", "chunk_trials", "deck_digest", "version", "sum", "sum_squares",
        "histogram"]
    summary = result.summary()
    assert len(frame) == len(summary) == len(frame.drop_duplicates(
        ["lands", "policy", "turn", "metric"]))
    # The same numbers as the result, in the same order.
    for column in ("turn", "metric", "mean", "se", "ci_low", "ci_high"):
        assert frame[column].tolist() == summary[column].tolist(), column
    assert frame["lands"].tolist() == summary["lands"].astype(int).tolist()
    assert set(frame["deck"]) == {"Lost Caverns Merfolk Explore"}
    assert set(frame["trials"]) == {3000} and set(frame["seed"]) == {"1"}
    assert set(frame["chunk_trials"]) == {explore_sim.analysis.runner.CHUNK_TRIALS}
    assert set(frame["version"]) == {explore_sim.__version__}
    digests = frame.groupby("lands")["deck_digest"].unique()
    assert digests[23][0] != digests[24][0] and all(len(d) == 1 for d in digests)
    row = frame[(frame["turn"] == 2) & (frame["metric"] == "lands_played")].iloc[0]
    assert row["sum"] / row["trials"] == pytest.approx(row["mean"])
    assert sum(row["histogram"]) == row["trials"]
    assert sum(i * c for i, c in enumerate(row["histogram"])) == row["sum"]
    assert not list(tmp_path.glob(".*"))  # no partial file left behind


def test_a_rerun_reads_every_point_back_and_plays_nothing(tmp_path):
    out = tmp_path / "r.parquet"
    first = sweep(out)
    before = out.read_bytes()
    calls = []
    again = sweep(out, progress=lambda done, total: calls.append(done))
    assert calls == [] and again.read_back == 4 and first.read_back == 0
    pd.testing.assert_frame_equal(first.summary(), again.summary(), check_exact=True)
    # Read back exactly: the full distributions too.
    for a, b in zip(first.results, again.results):
        pd.testing.assert_frame_equal(a.distribution("lands_played", 2),
                                      b.distribution("lands_played", 2), check_exact=True)
    assert out.read_bytes() == before


@pytest.mark.slow
def test_a_partial_file_is_completed_to_the_file_of_an_uninterrupted_run(tmp_path):
    whole = tmp_path / "whole.parquet"
    sweep(whole)
    part = tmp_path / "part.parquet"
    sweep(part, grid={"lands": [23, 24], "policy": ["keep", "forge"]})
    # Keep the first two points only, as a run stopped after them leaves the file.
    table = pq.read_table(part)
    first_two = table.filter(pd.Series(table.column("lands").to_pylist()).eq(23).to_numpy())
    pq.write_table(first_two, part)
    calls = []
    resumed = sweep(part, progress=lambda done, total: calls.append((done, total)))
    assert resumed.read_back == 2 and calls[-1] == (6000, 6000)
    assert part.read_bytes() == whole.read_bytes()


@pytest.mark.slow
def test_killed_midway_and_rerun_it_ends_with_the_uninterrupted_file(tmp_path):
    """The command of the documentation, killed with SIGKILL once some points are written."""
    args = [sys.executable, "-m", "explore_sim", "sweep", str(DECK), "--vary", "lands=22..25",
            "--vary", "policy=keep,forge", "--turns", "5", "--trials", "10000", "--seed", "1",
            "--quiet", "--format", "csv"]
    killed = tmp_path / "killed.parquet"
    process = subprocess.Popen([*args, "--out", str(killed)], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(killed.exists, "the sweep's first points", 120)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    written = pd.read_parquet(killed)
    points = len(written.groupby(["lands", "policy"]))
    assert 1 <= points < 8, points  # killed midway
    resumed = subprocess.run([*args, "--out", str(killed)], cwd=ROOT, capture_output=True,
                             text=True, timeout=120)
    whole = tmp_path / "whole.parquet"
    uninterrupted = subprocess.run([*args, "--out", str(whole)], cwd=ROOT,
                                   capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0 and uninterrupted.returncode == 0, resumed.stderr
    assert resumed.stdout == uninterrupted.stdout
    assert killed.read_bytes() == whole.read_bytes()
    metrics = len(explore_sim.engine.goldfish.TURN_METRICS)
    assert len(pd.read_parquet(killed)) == 8 * (3 + 5 * metrics)


def test_a_file_of_other_settings_is_refused_naming_what_differs(tmp_path):
    out = tmp_path / "r.parquet"
    sweep(out)
    before = out.read_bytes()
    with pytest.raises(OptionError, match=r"holds a run with other settings: seed 1 \(this run: "
                                          r"2\); trials 3000 \(this run: 4000\); refusing"):
        sweep(out, seed=2, trials=4000)
    with pytest.raises(OptionError, match=r"game.turns 2 \(this run: 3\)"):
        sweep(out, turns=3)
    with pytest.raises(OptionError, match=r"grid.lands\[1\] 24 \(this run: 25\); refusing"):
        sweep(out, grid={"lands": [23, 25], "policy": ["keep", "forge"]})
    with pytest.raises(OptionError, match=r'policies\[1\].name "forge" \(this run: "mill"\); '):
        sweep(out, grid={"lands": [23, 24], "policy": ["keep", "mill"]})
    with pytest.raises(OptionError, match=r'policies\[0\].name "keep" \(this run: "forge"\) \(the '
                                          r"same values in another order\); refusing"):
        sweep(out, grid={"lands": [23, 24], "policy": ["forge", "keep"]})
    with pytest.raises(OptionError, match=r'decks\[0\].name "Lost Caverns Merfolk Explore" '
                                          r'\(this run: "Lost Caverns Merfolk Vanilla Control"\)'):
        explore_sim.sweep(DECKS / "lci_merfolk_vanilla.txt", GRID, out=out, **RUN)
    assert out.read_bytes() == before


def test_files_that_are_not_sweep_files_are_never_overwritten(tmp_path):
    text = tmp_path / "notes.parquet"
    text.write_text("my notes\n")
    with pytest.raises(OptionError, match="exists and is not a Parquet file"):
        sweep(text)
    assert text.read_text() == "my notes\n"
    other = tmp_path / "other.parquet"
    pd.DataFrame({"a": [1, 2]}).to_parquet(other)
    with pytest.raises(OptionError, match="explore-sim sweep did not write"):
        sweep(other)
    with pytest.raises(OptionError, match="is a directory"):
        sweep(tmp_path)
    with pytest.raises(OptionError, match="no such directory"):
        sweep(tmp_path / "missing" / "r.parquet")


def test_a_point_that_is_not_whole_is_refused(tmp_path):
    out = tmp_path / "r.parquet"
    sweep(out)
    table = pq.read_table(out)
    pq.write_table(table.slice(0, table.num_rows - 1), out)
    with pytest.raises(OptionError, match="lands=24, policy=forge are not whole"):
        sweep(out)


def test_without_a_seed_a_rerun_carries_on_with_the_seed_of_the_file(tmp_path):
    out = tmp_path / "r.parquet"
    first = explore_sim.sweep(DECK, GRID, out=out, turns=1, trials=500)
    assert SweepFile.stored_settings(out)["seed"] == first.meta["seed"]
    again = explore_sim.sweep(DECK, GRID, out=out, turns=1, trials=500)
    assert again.read_back == 4 and again.meta["seed"] == first.meta["seed"]
    assert set(pd.read_parquet(out)["seed"]) == {str(first.meta["seed"])}


def test_several_decks_are_one_column_of_the_file(tmp_path):
    out = tmp_path / "r.parquet"
    decks = [DECK, DECKS / "lci_merfolk_vanilla.txt"]
    result = explore_sim.sweep(decks, {"lands": [23, 24]}, out=out, turns=1, trials=500, seed=3)
    frame = pd.read_parquet(out)
    assert list(frame["deck"].unique()) == result.decks == [
        "Lost Caverns Merfolk Explore", "Lost Caverns Merfolk Vanilla Control"]
    summary = result.summary()
    assert list(summary.columns[:3]) == ["deck", "lands", "policy"]
    assert frame["mean"].tolist() == summary["mean"].tolist()
    # Each deck's points are that deck's own sweep.
    alone = explore_sim.sweep(decks[1], {"lands": [23, 24]}, turns=1, trials=500, seed=3)
    mine = summary[summary["deck"] == result.decks[1]].drop(columns="deck")
    assert mine["mean"].tolist() == alone.summary()["mean"].tolist()


# ------------------------------------------------------------------------------------------
# One writer at a time


def _sweep_command(out, seed, trials="3000"):
    return [sys.executable, "-m", "explore_sim", "sweep", str(DECK), "--vary", "lands=23,24",
            "--vary", "policy=keep,forge", "--turns", "2", "--trials", trials, "--seed",
            str(seed), "--quiet", "--format", "csv", "--out", str(out)]


def _wait_for(condition, timeout=60.0):
    wait_until(condition, "the sweep", timeout)


def _seeds(out):
    return set(pd.read_parquet(out)["seed"])


@pytest.mark.timeout(180)
@pytest.mark.slow
def test_a_second_writer_is_refused_at_once_naming_the_first(tmp_path):
    out = tmp_path / "r.parquet"
    lock = tmp_path / ".r.parquet.lock"
    # Far more games than one point finishes before it is killed, however fast the engine:
    # the first run writes nothing, so the run after it starts the file afresh.
    first = subprocess.Popen(_sweep_command(out, 31, "100000000"), cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(lambda: lock.exists() and lock.read_text().strip() == str(first.pid))
        second = subprocess.run(_sweep_command(out, 41), cwd=ROOT, capture_output=True,
                                text=True, timeout=60)
        assert first.poll() is None  # refused while the first still runs
    finally:
        first.kill()
        first.wait()
    assert second.returncode == 2 and "Traceback" not in second.stderr
    assert second.stderr.strip().splitlines() == [
        f"explore-sim: error: --out: {clip(out)} is being written by another run "
        f"(pid {first.pid}); "
        "wait for it to finish or choose another --out file"]
    # Killed, the first run left its lock file, unlocked: the next run takes it.
    again = subprocess.run(_sweep_command(out, 31), cwd=ROOT, capture_output=True, text=True,
                           timeout=60)
    assert again.returncode == 0, again.stderr
    assert _seeds(out) == {"31"} and not list(tmp_path.glob(".*"))


@pytest.mark.timeout(240)
@pytest.mark.slow
def test_two_sweeps_started_together_never_both_write_the_file(tmp_path):
    for attempt in range(3):
        out = tmp_path / f"r{attempt}.parquet"
        runs = [subprocess.Popen(_sweep_command(out, seed), cwd=ROOT, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True) for seed in (31, 41)]
        errors = [run.communicate(timeout=120)[1] for run in runs]
        statuses = sorted(run.returncode for run in runs)
        assert statuses == [0, 2], errors
        winner = [seed for seed, run in zip(("31", "41"), runs) if run.returncode == 0]
        loser = errors[[run.returncode for run in runs].index(2)]
        assert len(loser.strip().splitlines()) == 1 and "Traceback" not in loser, loser
        assert "is being written by another run (pid " in loser or \
            "holds a run with other settings" in loser, loser
        assert _seeds(out) == set(winner)
        assert len(pd.read_parquet(out)) == len(pd.read_parquet(tmp_path / "r0.parquet"))
    assert not list(tmp_path.glob(".*"))


def test_a_second_sweep_of_the_same_process_is_refused(tmp_path):
    from explore_sim.analysis.locking import ResultsLock

    out = tmp_path / "r.parquet"
    with ResultsLock(out):
        with pytest.raises(OptionError, match=r"is being written by this process \(pid "
                                              f"{os.getpid()}\\)"):
            sweep(out)
    assert not out.exists()
    sweep(out)  # the lock is free again
    assert not list(tmp_path.glob(".*"))


def test_a_file_changed_by_a_writer_without_the_lock_is_never_replaced(tmp_path):
    out = tmp_path / "r.parquet"
    other = tmp_path / "other.parquet"
    sweep(other, seed=2)
    changed = other.read_bytes()

    def meanwhile(done, total):
        if done == 3000:  # another run, not taking the lock, writes the file
            out.write_bytes(changed)

    # The paths are echoed as every message echoes user text, clipped when long.
    kept_at = clip(tmp_path / f"r.{os.getpid()}.parquet")
    with pytest.raises(OptionError, match=re.escape(
            f"{clip(out)} was changed by another run meanwhile: seed 2 (this run: 1); this "
            f"run's points are kept in {kept_at}")):
        sweep(out, progress=meanwhile)
    assert out.read_bytes() == changed
    kept = pd.read_parquet(tmp_path / f"r.{os.getpid()}.parquet")
    # The first point, refused at its replace, is kept whole.
    assert set(kept["seed"]) == {"1"} and len(kept) == len(pd.read_parquet(other)) // 4


def test_each_process_writes_through_a_partial_file_of_its_own(tmp_path, monkeypatch):
    from explore_sim.analysis import results_files as store

    out = tmp_path / "r.parquet"
    stale = tmp_path / f".r.parquet.{2**22 + 12345}.partial"  # a pid that is not running
    stale.write_bytes(b"left by a killed run")
    written = []
    replace = os.replace
    monkeypatch.setattr(store.os, "replace",
                        lambda a, b: (written.append(os.path.basename(a)), replace(a, b)))
    sweep(out)
    assert set(written) == {f".r.parquet.{os.getpid()}.partial"}
    assert not stale.exists()  # removed by the run that took the lock


# ------------------------------------------------------------------------------------------
# Names beside --out that can be guessed are never followed


@pytest.fixture
def victim(tmp_path):
    path = tmp_path / "victim.txt"
    path.write_text("precious\n")
    return path


@pytest.mark.parametrize("planted", ["symlink", "fifo"])
def test_a_link_or_fifo_at_the_lock_name_is_refused_and_never_followed(tmp_path, victim,
                                                                       planted):
    out = tmp_path / "r.parquet"
    lock = tmp_path / ".r.parquet.lock"
    if planted == "symlink":
        lock.symlink_to(victim)
        message = r"cannot make \.r\.parquet\.lock: a symbolic link; remove it"
    else:
        os.mkfifo(lock)
        message = r"\.r\.parquet\.lock is not a regular file; remove it"
    with pytest.raises(OptionError, match=f"^--out: cannot lock {re.escape(clip(out))}: "
                                          + message):
        sweep(out)
    assert victim.read_text() == "precious\n"  # not overwritten with a pid
    assert not out.exists()


def test_a_link_at_the_partial_name_is_replaced_never_followed(tmp_path, victim):
    out = tmp_path / "r.parquet"
    planted = tmp_path / f".r.parquet.{os.getpid()}.partial"  # this process's name
    planted.symlink_to(victim)
    sweep(out)
    assert victim.read_text() == "precious\n"  # not truncated, not written
    assert len(pd.read_parquet(out)) > 0
    assert not planted.exists() and not planted.is_symlink()


def test_an_out_that_is_a_symlink_is_written_and_locked_at_its_target(tmp_path):
    from explore_sim.analysis.locking import ResultsLock

    target = tmp_path / "r2.parquet"
    link = tmp_path / "s.parquet"
    link.symlink_to(target.name)
    with ResultsLock(target):  # a run writing r2.parquet by its own name
        with pytest.raises(OptionError, match=f"{re.escape(clip(target))} is being written by "
                                              "this process"):
            sweep(link)
    assert not target.exists()
    sweep(link)
    assert link.is_symlink() and os.readlink(link) == "r2.parquet"  # the link is kept
    whole = target.read_bytes()
    sweep(target)  # the same file by its own name: read back, nothing played
    assert target.read_bytes() == whole
    assert not list(tmp_path.glob(".*"))
