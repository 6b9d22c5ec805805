"""``explore-sim sweep``: the grid language, its outputs and its one-line errors."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import DECKS

import explore_sim
from explore_sim.cards import card_sources
from explore_sim.cli import main
from explore_sim.cli.vary import parse_vary as _parse_vary

DECK = str(DECKS / "lci_merfolk_explore.txt")
SMALL = ["--turns", "2", "--trials", "600", "--seed", "1"]


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def one_line_error(status: int, err: str, *fragments: str) -> None:
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("explore-sim: error: "), err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def test_the_grid_language():
    sources = card_sources()
    grid = _parse_vary(["lands=20..22,25", "cenote scout=0,4,8",
                        "policy=keep,forge:need_lands=3,max_mv_diff=1,lands_in_hand == 0"],
                       sources)
    assert grid == {"lands": [20, 21, 22, 25], "Cenote Scout": [0, 4, 8],
                    "policy": ["keep", "forge:need_lands=3,max_mv_diff=1", "lands_in_hand == 0"]}


@pytest.mark.slow
def test_the_command_prints_the_points_of_the_python_sweep(capsys):
    status, out, err = run(capsys, "sweep", DECK, "--vary", "lands=23,24", "--vary",
                           "Cenote Scout=4,6", "--vary", "policy=keep,mill", *SMALL,
                           "--format", "csv")
    assert status == 0 and err == ""
    result = explore_sim.sweep(DECK, {"lands": [23, 24], "Cenote Scout": [4, 6],
                                      "policy": ["keep", "mill"]}, turns=2, trials=600, seed=1)
    assert out == result.render("csv")
    status, out, _ = run(capsys, "sweep", DECK, "--vary", "lands=23,24", *SMALL)
    assert status == 0
    assert out.startswith("sweep: 2 points, turn 2, on the play\n")
    assert "filler: Merfolk Cave-Diver" in out and "on_curve" in out
    status, out, _ = run(capsys, "sweep", DECK, "--vary", "lands=23,24", *SMALL,
                         "--metrics", "on_curve", "--format", "json")
    rows = json.loads(out)["rows"]
    assert {row["metric"] for row in rows} == {"on_curve"} and len(rows) == 2 * 2  # turns 1 and 2


def test_several_decks_and_a_results_file(capsys, tmp_path):
    out_file = tmp_path / "r.parquet"
    args = ["sweep", DECK, "--deck", str(DECKS / "lci_merfolk_vanilla.txt"), "--vary",
            "lands=23,24", *SMALL, "--out", str(out_file)]
    status, first, err = run(capsys, *args)
    assert status == 0, err
    frame = pd.read_parquet(out_file)
    assert frame["deck"].nunique() == 2 and len(frame.groupby(["deck", "lands"])) == 4
    status, again, _ = run(capsys, *args)
    assert "read back from the results file: 4 of 4 points" in again
    assert again.replace("  read back from the results file: 4 of 4 points\n", "") == first


@pytest.mark.parametrize("args, fragments", [
    (["--vary", "lands"], ["--vary: expected KEY=VALUES such as lands=20..26, got 'lands'"]),
    (["--vary", "lands="], ["expected KEY=VALUES"]),
    (["--vary", "lands=a,b"], ["--vary lands: expected whole numbers and A..B ranges", "'a'"]),
    (["--vary", "lands=26..20"], ["the range 26..20 is empty (write 20..26)"]),
    (["--vary", "lands=20..2000"], ["more than 1000 values"]),
    (["--vary", "lands=20,20"], ["20 given twice"]),
    (["--vary", "lands=20", "--vary", "lands=21"], ["lands is varied twice"]),
    (["--vary", "Cenote Scot=0,4"], ["unknown card 'Cenote Scot'", "Cenote Scout"]),
    (["--vary", "policy=keep,,mill"], ["an empty policy"]),
    (["--vary", "policy=keep,nope nope"], ["nope nope"]),
    (["--vary", "lands=70"], ["sweep point lands=70"]),
    ([], ["sweep needs at least one --vary"]),
    (["--vary", "lands=23", "--metrics", "oncurve"], ["unknown oncurve"]),
    (["--vary", "lands=23", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"],
     ["--workers runs local processes and --scheduler a Dask cluster: choose one"]),
    (["--vary", "lands=23..24", "--vary", "Cenote Scout=4,5", "--vary", "policy=keep,mill",
      "--deck", DECK, "--plot", "x.png"], ["--plot: the sweep varies 4 parameters"]),
])
def test_bad_sweeps_are_one_line_errors(capsys, tmp_path, args, fragments):
    status, out, err = run(capsys, "sweep", DECK, *SMALL, *args)
    one_line_error(status, err, *fragments)
    assert out == ""
    assert not (tmp_path / "x.png").exists()


def test_unwritable_and_foreign_results_files_are_refused(capsys, tmp_path):
    base = ["sweep", DECK, "--vary", "lands=23", *SMALL]
    status, _, err = run(capsys, *base, "--out", str(tmp_path))
    one_line_error(status, err, "is a directory")
    status, _, err = run(capsys, *base, "--out", str(tmp_path / "no" / "r.parquet"))
    one_line_error(status, err, "no such directory")
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me\n")
    status, _, err = run(capsys, *base, "--out", str(notes))
    one_line_error(status, err, "is not a Parquet file", "refusing to overwrite it")
    assert notes.read_text() == "keep me\n"
    out_file = tmp_path / "r.parquet"
    assert run(capsys, *base, "--out", str(out_file))[0] == 0
    status, _, err = run(capsys, "sweep", DECK, "--vary", "lands=23", "--turns", "2",
                         "--trials", "600", "--seed", "2", "--out", str(out_file))
    one_line_error(status, err, "holds a run with other settings: seed 1 (this run: 2)")


def test_an_unreachable_scheduler_is_one_line(capsys):
    status, out, err = run(capsys, "sweep", DECK, "--vary", "lands=23", *SMALL,
                           "--scheduler", "tcp://127.0.0.1:1")
    one_line_error(status, err, "cannot reach the Dask scheduler at tcp://127.0.0.1:1")
    status, out, err = run(capsys, "simulate", DECK, *SMALL, "--scheduler", "localhost")
    one_line_error(status, err, "must look like tcp://HOST:PORT")


@pytest.mark.slow
def test_plots_of_a_sweep(capsys, tmp_path):
    heat = tmp_path / "heat.png"
    status, _, err = run(capsys, "sweep", DECK, "--vary", "lands=23,24", "--vary",
                         "Cenote Scout=4,5", *SMALL, "--plot", str(heat))
    assert status == 0 and err == f"explore-sim: wrote {heat}\n" and heat.stat().st_size > 0
    lines = tmp_path / "lines.svg"
    status, _, err = run(capsys, "sweep", DECK, "--vary", "lands=23,24", "--vary",
                         "policy=keep,mill", *SMALL, "--plot", str(lines), "--metrics",
                         "lands_played")
    assert status == 0 and err == f"explore-sim: wrote {lines}\n"
    text = lines.read_text()
    assert "lands on the battlefield, turn 2" in text and "Lost Caverns Merfolk Explore" in text
