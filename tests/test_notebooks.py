"""Every notebook re-executes without error (with few trials); the committed ones hold
the outputs of a real run, pictures included."""

from __future__ import annotations

import difflib
import json
import re

import nbformat
import pytest
from conftest import ROOT
from nbclient import NotebookClient

pytestmark = pytest.mark.slow  # the notebooks are re-executed

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_the_four_notebooks_exist():
    assert [p.name for p in NOTEBOOKS] == [
        "01_quickstart.ipynb", "02_keep_or_mill.ipynb", "03_deck_tuning.ipynb",
        "04_explore_value.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_notebook_has_outputs_and_pictures(path):
    book = json.loads(path.read_text())
    code = [cell for cell in book["cells"] if cell["cell_type"] == "code"]
    assert code and all(cell.get("execution_count") for cell in code), "run it before committing"
    images = [out for cell in code for out in cell.get("outputs", [])
              if "image/png" in out.get("data", {})]
    assert images, "no image output"
    errors = [out for cell in code for out in cell.get("outputs", [])
              if out["output_type"] == "error"]
    assert not errors


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executes(path, monkeypatch):
    monkeypatch.setenv("EXPLORE_SIM_NOTEBOOK_TRIALS", "1000")
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's inline figures
    book = nbformat.read(path, as_version=4)
    client = NotebookClient(book, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError on any error
    assert any(out.get("output_type") == "display_data"
               for cell in book.cells if cell.cell_type == "code" for out in cell.outputs)


def test_a_run_in_a_notebook_shows_its_progress(tmp_path):
    """A run of over a second shows tqdm's display in the cell's output, with its time
    elapsed and an estimate of the time left (text that updates in place, without
    ipywidgets), and the result is the same as without it."""
    book = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import explore_sim"),
        nbformat.v4.new_code_cell(
            "games = explore_sim.simulate('merfolk', turns=4, trials=150_000, seed=1, "
            "engine='numpy')\ngames.meta['trials']"),
        nbformat.v4.new_code_cell(
            "quiet = explore_sim.simulate('merfolk', turns=4, trials=150_000, seed=1, "
            "engine='numpy', progress=False)\n"
            "bool(quiet.summary().equals(games.summary()))"),
    ])
    client = NotebookClient(book, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    shown = "".join(out.get("text", "") for out in book.cells[1].outputs
                    if out.get("output_type") == "stream" and out.get("name") == "stderr")
    assert "simulate: 100%" in shown, book.cells[1].outputs
    assert re.search(r"150k/150k \[\d\d:\d\d<\d\d:\d\d, [\d.]+k? trials/s\]", shown), shown
    results = [out["data"]["text/plain"] for cell in book.cells[1:] for out in cell.outputs
               if out.get("output_type") == "execute_result"]
    assert results == ["150000", "True"]
    quiet = [out for out in book.cells[2].outputs if out.get("output_type") == "stream"]
    assert quiet == []  # progress=False: no display


def _printed(book):
    """Each code cell's printed text and results (the progress shown on stderr left out)."""
    return [[out.get("text") or out.get("data", {}).get("text/plain", "")
             for out in cell.outputs
             if out.get("output_type") in ("stream", "execute_result")
             and out.get("name") != "stderr"]
            for cell in book.cells if cell.cell_type == "code"]


@pytest.mark.parametrize("name", ["01_quickstart", "02_keep_or_mill"])
def test_the_committed_outputs_are_what_this_code_prints(name, monkeypatch):
    """The quick notebooks, run again at their full trials on their seeds, print what the
    committed ones hold: the outputs of a real run of this code, not of an older one."""
    monkeypatch.delenv("EXPLORE_SIM_NOTEBOOK_TRIALS", raising=False)
    path = ROOT / "notebooks" / f"{name}.ipynb"
    committed = nbformat.read(path, as_version=4)
    book = nbformat.read(path, as_version=4)
    NotebookClient(book, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    printed, held = _printed(book), _printed(committed)
    for index, (now, then) in enumerate(zip(printed, held)):  # the first line that differs
        lines = list(difflib.unified_diff("".join(then).splitlines(), "".join(now).splitlines(),
                                          "committed", "printed", n=0, lineterm=""))
        assert not lines, f"code cell {index}: " + " | ".join(lines[:8])
    assert printed == held
