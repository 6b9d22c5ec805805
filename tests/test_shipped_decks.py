"""Shipped decks are package data, listed by ``explore-sim decks`` and named by their short
names anywhere a decklist path is accepted, from any folder; the sdist carries what the
tests read."""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile

import pytest
from conftest import DECKS, ROOT

import explore_sim
from explore_sim.cards.shipped import (
    DECKS_DIR,
    SHORT_NAMES,
    find_shipped_deck,
    resolve_deck_path,
    shipped_deck_files,
)
from explore_sim.cli import main
from explore_sim.errors import DeckError


def test_the_decks_are_package_data_and_every_one_is_listed():
    assert DECKS_DIR == DECKS.resolve()
    files = sorted(p.stem for p in DECKS.glob("*.txt"))
    listed = shipped_deck_files()
    assert sorted(d.stem for d in listed.values()) == files
    assert set(SHORT_NAMES) == set(files)  # every shipped deck has a short name
    assert listed["merfolk"].card_file == DECKS / "lci_merfolk_explore.cards.toml"
    assert listed["limited"].card_file is None


def test_explore_sim_decks_lists_the_names(capsys):
    assert main(["decks", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["name"] for row in rows] == list(shipped_deck_files())
    merfolk = rows[0]
    assert merfolk == {"name": "merfolk", "deck": "Lost Caverns Merfolk Explore", "cards": 60,
                       "lands": 24, "format": "arena",
                       "file": "lci_merfolk_explore.txt + cards"}
    assert main(["decks"]) == 0
    out = capsys.readouterr().out
    assert "hakbal " in out and "explore-sim simulate merfolk" in out


def test_a_name_stands_for_its_deck_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no decks here
    by_name = explore_sim.load_deck("merfolk")
    by_path = explore_sim.load_deck(DECKS / "lci_merfolk_explore.txt")
    assert by_name.digest() == by_path.digest()  # its card file came along (Yavimaya Coast)
    assert by_name.source == "explore_sim/decks/lci_merfolk_explore.txt"
    assert explore_sim.load_deck("LCI_Merfolk_Explore").digest() == by_path.digest()
    assert resolve_deck_path("hak") == DECKS / "hakbal_merfolk_commander.txt"  # one deck starts so
    a = explore_sim.simulate("merfolk", turns=2, trials=500, seed=3, engine="numpy")
    b = explore_sim.simulate(DECKS / "lci_merfolk_explore.txt", turns=2, trials=500, seed=3,
                             engine="numpy")
    assert a.summary().equals(b.summary())


def test_a_file_of_that_name_wins_and_paths_stay_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "merfolk").write_text("20 Forest\n40 Grizzly Bears\n", encoding="utf-8")
    assert explore_sim.load_deck("merfolk").size == 60
    assert explore_sim.load_deck("merfolk").land_count == 20
    with pytest.raises(DeckError, match=r"^elsewhere/merfolk: no such decklist file$"):
        explore_sim.load_deck("elsewhere/merfolk")  # a path is never looked up by name
    with pytest.raises(DeckError, match=r"^sultai\.txt: no such decklist file$"):
        explore_sim.load_deck("sultai.txt")


def test_ambiguous_and_unknown_names_are_one_line_listing_the_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    names = ", ".join(shipped_deck_files())
    with pytest.raises(DeckError) as ambiguous:
        find_shipped_deck("lci")
    assert str(ambiguous.value) == (f"deck 'lci' is ambiguous: it could be merfolk, "
                                    f"merfolk-vanilla, limited (shipped decks: {names})")
    with pytest.raises(DeckError) as unknown:
        find_shipped_deck("elves")
    assert str(unknown.value) == (f"elves: no such decklist file, and no shipped deck of that "
                                  f"name (shipped decks: {names}; 'explore-sim decks' lists them)")


@pytest.mark.slow
def test_the_command_line_takes_a_name_and_refuses_a_wrong_one(tmp_path):
    def run(*args):
        return subprocess.run(["explore-sim", *args], capture_output=True, text=True,
                              cwd=tmp_path, timeout=300)

    done = run("simulate", "merfolk", "--turns", "2", "--trials", "2000", "--engine", "numpy")
    assert done.returncode == 0, done.stderr
    assert "deck: Lost Caverns Merfolk Explore (60 cards, 24 lands)" in done.stdout
    for name, words in (("lci", "is ambiguous: it could be"), ("nothing", "no shipped deck")):
        refused = run("simulate", name)
        assert refused.returncode == 2 and refused.stdout == ""
        (line,) = refused.stderr.splitlines()
        assert words in line and "shipped decks: merfolk, merfolk-vanilla" in line


@pytest.mark.slow
def test_the_sdist_carries_what_the_tests_read(tmp_path):
    """Every file of the repository the tests, docs pages and notebooks read is in the sdist:
    the package with its decks, the tests and their fixtures and golden games, the pages,
    the notebooks, the benchmarks (built as a release is, fetching the build backend from the
    index pip is set up with: its build backend)."""
    pytest.importorskip("build")
    if not (ROOT / ".git").exists():
        pytest.skip("not a checkout (no git): the list of the repository's files is unknown")
    tracked = subprocess.run(["git", "ls-files"], capture_output=True, text=True, cwd=ROOT,
                             check=True).stdout.split()
    # Built from a copy of the repository's files alone: a checkout's *.egg-info (left by an
    # editable install) would add the files it lists, whatever MANIFEST.in says.
    tree = tmp_path / "tree"
    for name in tracked:
        if (ROOT / name).is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, tree / name)
    done = subprocess.run(["python", "-m", "build", "--sdist", "--outdir", str(tmp_path),
                           str(tree)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    (sdist,) = tmp_path.glob("*.tar.gz")
    with tarfile.open(sdist) as tar:
        inside = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    wanted = [f for f in tracked
              if f.startswith(("explore_sim/", "tests/", "docs/", "notebooks/", "benchmarks/"))
              or f in ("LICENSE", "README.md", "pyproject.toml")]
    missing = [f for f in wanted if f not in inside]
    assert not missing, f"the sdist lacks {len(missing)} files: {missing[:10]}"
    assert "explore_sim/decks/lci_merfolk_explore.cards.toml" in inside
