"""The engine option: ``auto`` plays on the compiled kernel when it can and says why not when
it cannot, ``kernel`` refuses what it cannot play in one line, ``numpy`` is the vectorised
engine; every result says which engine played, and each engine's numbers depend only on the
seed (not on the worker count, nor on how long the last chunk is)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from html import unescape

import numba
import numpy as np
import pandas as pd
import pytest
from conftest import DECKS, ROOT, TESTS, game_compile_event
from numba.core import event

import explore_sim
from explore_sim.analysis.engines import POSITION_FALLBACK, choose_engine, kernel_compiling
from explore_sim.analysis.game_setup import engine_plays
from explore_sim.analysis.games import play_games
from explore_sim.analysis.runner import CHUNK_TRIALS
from explore_sim.cli import main
from explore_sim.engine.config import GameConfig
from explore_sim.engine.kernel import loaded
from explore_sim.engine.mulligan import as_mulligan_rule
from explore_sim.engine.policies import as_policy
from explore_sim.errors import OptionError

DECK = DECKS / "lci_merfolk_explore.txt"
MERFOLK = explore_sim.load_deck(DECK)
CALLABLE = {"mv3": lambda obs, rng: obs.mana_value >= 3}
#: A land that explores when it enters: the kernel never recurses into a land's trigger.
GROVE_CARDS = """[[card]]
name = "Explorer's Grove"
type_line = "Land"
produces = "G"
explores = 1
explores_when = "enter"
"""
GROVE_DECK = "20 Forest\n4 Explorer's Grove\n12 Cenote Scout\n24 Grizzly Bears\n"
GROVE_WHY = "a land with an enter trigger that explores or searches"
SEVENS = TESTS / "fixtures" / "decks" / "scouts_and_sevens.txt"
#: Turn 2 on the play: the Scout's explore reveals a seven-drop (tests/test_advise.py).
SEVEN_DROP = {"turn": 2, "battlefield": "2 Forest, Cenote Scout", "hand": "Grizzly Bears",
              "revealed": "Platinum Angel", "objectives": "on_curve@3"}


@pytest.fixture
def grove(tmp_path):
    """A deck file (with its card file beside it) that only the NumPy engine plays."""
    (tmp_path / "grove.cards.toml").write_text(GROVE_CARDS, encoding="utf-8")
    path = tmp_path / "grove.txt"
    path.write_text(GROVE_DECK, encoding="utf-8")
    return path


def cli_run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "explore_sim", *args], check=False,
                          capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={**os.environ, **(env or {})})


# ------------------------------------------------------------------------------ the choice

def test_auto_plays_on_the_kernel_and_numpy_on_request():
    games = {"turns": 2, "trials": 300, "seed": 1}
    auto = explore_sim.simulate(DECK, **games)
    assert auto.meta["engine"] == "kernel" and "engine_fallback" not in auto.meta
    kernel = explore_sim.simulate(DECK, engine="kernel", **games)
    pd.testing.assert_frame_equal(auto.summary(), kernel.summary(), check_exact=True)
    numpy = explore_sim.simulate(DECK, engine="numpy", **games)
    assert numpy.meta["engine"] == "numpy" and "engine_fallback" not in numpy.meta
    assert not auto.summary().equals(numpy.summary())  # other streams, other numbers
    assert "  engine: kernel\n" in auto.render() and "  engine: numpy\n" in numpy.render()


def test_a_callable_policy_falls_back_to_numpy_and_says_why():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = explore_sim.simulate(DECK, policy=CALLABLE, turns=2, trials=300, seed=1)
        numpy = explore_sim.simulate(DECK, policy=CALLABLE, turns=2, trials=300, seed=1,
                                     engine="numpy")
    assert result.meta["engine"] == "numpy"
    assert result.meta["engine_fallback"] == "the policy is a Python callable"
    assert "engine: numpy (auto: the policy is a Python callable)" in result.render()
    pd.testing.assert_frame_equal(result.summary(), numpy.summary(), check_exact=True)


def test_one_variant_the_kernel_cannot_play_puts_the_whole_comparison_on_numpy():
    result = explore_sim.compare(DECK, {"keep": "keep", **CALLABLE}, turns=2, trials=300,
                                 seed=1)
    assert result.meta["engine"] == "numpy"
    assert result.meta["engine_fallback"] == ("the policy is a Python callable "
                                              "(Lost Caverns Merfolk Explore / mv3)")


def test_a_deck_the_kernel_cannot_play_falls_back(grove):
    result = explore_sim.simulate(grove, turns=2, trials=200, seed=1)
    assert result.meta == {**result.meta, "engine": "numpy", "engine_fallback": GROVE_WHY}
    with pytest.raises(OptionError) as refused:
        explore_sim.simulate(grove, turns=2, trials=200, seed=1, engine="kernel")
    assert str(refused.value) == (f"engine 'kernel': the compiled kernel cannot play these "
                                  f"games: {GROVE_WHY}; engine 'auto' or 'numpy' plays them")


def test_explicit_kernel_refuses_what_it_cannot_play_in_one_line():
    cases = [
        lambda: explore_sim.simulate(DECK, policy=CALLABLE, trials=100, engine="kernel"),
        lambda: explore_sim.simulate(DECK, keep=lambda hand: True, trials=100, engine="kernel"),
        lambda: explore_sim.compare(DECK, {"keep": "keep", **CALLABLE}, trials=100,
                                    engine="kernel"),
        lambda: explore_sim.tune(DECK, budget=4000, candidates=["keep", CALLABLE["mv3"]],
                                 top=1, engine="kernel"),
    ]
    for case in cases:
        with warnings.catch_warnings(), pytest.raises(OptionError) as refused:
            warnings.simplefilter("ignore")
            case()
        text = str(refused.value)
        assert "\n" not in text and text.startswith("engine 'kernel': ")
        assert "is a Python callable" in text
    with pytest.raises(OptionError, match="engine must be one of auto, kernel, numpy"):
        explore_sim.simulate(DECK, trials=100, engine="numba")
    with pytest.raises(ValueError, match="^engine must be"):  # an OptionError is a ValueError
        play_games(MERFOLK, GameConfig(turns=1), as_policy("forge"), as_mulligan_rule("none"),
                   10, np.random.SeedSequence(1), engine="fast")


def test_play_games_and_play_paired_take_the_engine():
    config, rule, seed = GameConfig(turns=2), as_mulligan_rule("london"), np.random.SeedSequence(3)
    forge = as_policy("forge")
    kernel = play_games(MERFOLK, config, forge, rule, 200, seed, engine="kernel")
    auto = play_games(MERFOLK, config, forge, rule, 200, seed)
    numpy = play_games(MERFOLK, config, forge, rule, 200, seed, engine="numpy")
    assert set(kernel) == set(numpy) == {0, 1, 2}
    for turn in kernel:
        assert kernel[turn].keys() == numpy[turn].keys()
        for name in kernel[turn]:
            assert kernel[turn][name].shape == (200,)
            np.testing.assert_array_equal(kernel[turn][name], auto[turn][name])
    assert any(not np.array_equal(kernel[2][m], numpy[2][m]) for m in kernel[2])
    plays = engine_plays([(MERFOLK, forge)], config, rule)
    assert choose_engine("auto", plays, config).engine == "kernel"
    assert choose_engine("numpy", plays, config).engine == "numpy"


# ------------------------------------------------------------------------------ metadata

@pytest.mark.slow
def test_every_analysis_records_the_engine(tmp_path):
    games = {"turns": 2, "trials": 300, "seed": 2}
    results = {
        "simulate": explore_sim.simulate(DECK, **games),
        "compare": explore_sim.compare(DECK, ["keep", "forge"], **games),
        "sweep": explore_sim.sweep(DECK, {"lands": [23, 24]}, out=tmp_path / "s.parquet",
                                   **games),
        "value": explore_sim.value(DECK, ["Cenote Scout"], turns=2, turn=2, trials=300,
                                   seed=2, max_lands=1),
        "tune": explore_sim.tune(DECK, "on_curve@2", budget=2000,
                                 candidates=["keep", "mill", "forge"], top=1, seed=2),
    }
    for name, result in results.items():
        assert result.meta["engine"] == "kernel", name
        assert "engine: kernel" in result.render(), name
        assert json.loads(result.render("json"))["meta"]["engine"] == "kernel", name
    assert all(point.meta["engine"] == "kernel" for point in results["sweep"].results)
    assert all(c.meta["engine"] == "kernel" for c in results["value"].comparisons.values())
    advice = explore_sim.advise(SEVENS, **SEVEN_DROP, trials=200, seed=1)
    assert advice.meta["engine"] == "numpy"
    assert advice.meta["engine_fallback"] == POSITION_FALLBACK


def test_advise_refuses_the_kernel():
    with pytest.raises(OptionError, match="^engine 'kernel': the compiled kernel plays whole "
                                          "games from the deal, not on from a position"):
        explore_sim.advise(SEVENS, **SEVEN_DROP, trials=200, engine="kernel")
    numpy = explore_sim.advise(SEVENS, **SEVEN_DROP, trials=200, seed=1, engine="numpy")
    auto = explore_sim.advise(SEVENS, **SEVEN_DROP, trials=200, seed=1)
    assert numpy.meta["engine"] == "numpy" and "engine_fallback" not in numpy.meta
    pd.testing.assert_frame_equal(numpy.summary(), auto.summary(), check_exact=True)


def test_the_results_file_keeps_the_engine_and_refuses_another(tmp_path):
    out = tmp_path / "points.parquet"
    games = {"turns": 2, "trials": 300, "seed": 5, "out": out}
    first = explore_sim.sweep(DECK, {"lands": [23, 24]}, engine="numpy", **games)
    assert first.meta["engine"] == "numpy"
    from explore_sim.analysis.results_files import SweepFile

    assert SweepFile.stored_settings(out)["game"]["engine"] == "numpy"
    again = explore_sim.sweep(DECK, {"lands": [23, 24]}, engine="numpy", **games)
    assert again.read_back == 2
    with pytest.raises(OptionError, match=r'game\.engine "numpy" \(this run: "kernel"\)'):
        explore_sim.sweep(DECK, {"lands": [23, 24]}, **games)  # auto plays on the kernel


# ------------------------------------------------------------------------------ reproducibility

@pytest.mark.slow
def test_the_kernel_s_numbers_do_not_depend_on_the_worker_count():
    games = {"turns": 2, "trials": CHUNK_TRIALS + 17, "seed": 6, "engine": "kernel"}  # two chunks
    one = explore_sim.simulate(DECK, **games)
    two = explore_sim.simulate(DECK, workers=2, **games)
    pd.testing.assert_frame_equal(one.summary(), two.summary(), check_exact=True)
    pd.testing.assert_frame_equal(one.distribution("mana_spent", 2),
                                  two.distribution("mana_spent", 2), check_exact=True)
    pair = {"turns": 1, "trials": CHUNK_TRIALS + 5, "seed": 7}
    pd.testing.assert_frame_equal(
        explore_sim.compare(DECK, ["keep", "forge"], **pair).paired_differences(),
        explore_sim.compare(DECK, ["keep", "forge"], workers=2, **pair).paired_differences(),
        check_exact=True)


def test_a_kernel_game_does_not_depend_on_how_long_its_chunk_is():
    """Game i of a chunk is keyed by the chunk's seed and i alone: a shorter last chunk
    plays the first games of a longer one, exactly."""
    config, rule, seed = GameConfig(turns=3), as_mulligan_rule("london"), np.random.SeedSequence(8)
    short = play_games(MERFOLK, config, as_policy("forge"), rule, 100, seed, engine="kernel")
    long = play_games(MERFOLK, config, as_policy("forge"), rule, 1000, seed, engine="kernel")
    for turn, metrics in short.items():
        for name, values in metrics.items():
            np.testing.assert_array_equal(values, long[turn][name][:100])


# ------------------------------------------------------------------------------ numba missing

_NO_NUMBA = '''raise ImportError("No module named 'numba'")\n'''


@pytest.fixture
def no_numba(tmp_path):
    """The environment of a process where ``import numba`` fails."""
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "numba.py").write_text(_NO_NUMBA, encoding="utf-8")
    return {"PYTHONPATH": os.pathsep.join([str(shim), str(ROOT)])}


@pytest.mark.slow
def test_without_numba_auto_plays_numpy_with_one_notice(no_numba):
    script = (
        "import warnings, json, explore_sim\n"
        "warnings.simplefilter('always')\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        f"    a = explore_sim.simulate({str(DECK)!r}, turns=1, trials=100, seed=1)\n"
        f"    b = explore_sim.compare({str(DECK)!r}, ['keep', 'forge'], turns=1, trials=100)\n"
        "print(json.dumps([a.meta['engine'], a.meta['engine_fallback'], b.meta['engine'],\n"
        "                  [str(w.message) for w in caught]]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True,
                          text=True, cwd=ROOT, timeout=300, env={**os.environ, **no_numba})
    assert done.returncode == 0, done.stderr
    engine, why, compared, caught = json.loads(done.stdout)
    assert engine == compared == "numpy"
    assert why == ("numba cannot be imported (No module named 'numba'; pip install "
                   "'numba>=0.60' adds it)")
    assert caught == [("engine auto: numba cannot be imported (No module named 'numba'; pip "
                       "install 'numba>=0.60' adds it); the games are played by the "
                       "numpy engine (the same rules; a seed draws other games than on the "
                       "compiled one)")]  # once per process


@pytest.mark.slow
def test_without_numba_the_command_line_notes_it_once_and_refuses_the_kernel(no_numba):
    args = ["simulate", str(DECK), "--turns", "1", "--trials", "100", "--seed", "1",
            "--format", "json"]
    auto = cli_run(*args, env=no_numba)
    assert auto.returncode == 0, auto.stderr
    assert auto.stderr == ("explore-sim: warning: engine auto: numba cannot be imported (No "
                           "module named 'numba'; pip install 'numba>=0.60' adds it); "
                           "the games are played by the numpy engine (the same rules; a seed "
                           "draws other games than on the compiled one)\n")
    assert json.loads(auto.stdout)["meta"]["engine"] == "numpy"
    kernel = cli_run(*args, "--engine", "kernel", env=no_numba)
    assert kernel.returncode == 2 and kernel.stdout == ""
    assert kernel.stderr == ("explore-sim: error: engine 'kernel': numba cannot be imported "
                             "(No module named 'numba'; pip install 'numba>=0.60' adds "
                             "it); engine 'auto' or 'numpy' plays the games with NumPy\n")


# ------------------------------------------------------------------------------ command line

@pytest.mark.slow
def test_the_command_line_takes_engine(capsys, grove):
    common = ["--turns", "1", "--trials", "200", "--seed", "1", "--format", "json"]
    for command, extra in (("simulate", []), ("compare", ["--policy", "keep", "--policy", "mill"]),
                           ("sweep", ["--vary", "lands=23,24"])):
        for engine in ("numpy", "kernel"):
            assert main([command, str(DECK), *extra, *common, "--engine", engine]) == 0
            out = capsys.readouterr().out
            assert json.loads(out)["meta"]["engine"] == engine, (command, engine)
    assert main(["value", str(DECK), "--card", "Cenote Scout", "--turns", "2", "--turn", "2",
                 "--max-lands", "1", "--trials", "200", "--seed", "1", "--engine", "numpy",
                 "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["meta"]["engine"] == "numpy"
    assert main(["tune", str(DECK), "--objective", "on_curve@1", "--budget", "10000",
                 "--top", "1", "--seed", "1", "--engine", "kernel", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["meta"]["engine"] == "kernel"
    assert main(["simulate", str(grove), "--trials", "100", "--engine", "kernel"]) == 2
    assert capsys.readouterr().err == (f"explore-sim: error: engine 'kernel': the compiled "
                                       f"kernel cannot play these games: {GROVE_WHY}; engine "
                                       "'auto' or 'numpy' plays them\n")
    assert main(["advise", str(SEVENS), "--turn", "2", "--revealed", "Platinum Angel",
                 "--battlefield", "2 Forest, Cenote Scout", "--trials", "100",
                 "--engine", "kernel"]) == 2
    assert capsys.readouterr().err.startswith("explore-sim: error: engine 'kernel': ")


# ------------------------------------------------------------------------------ web page

@pytest.mark.slow
def test_the_web_page_has_an_engine_select_and_refuses_the_kernel_beside_it():
    pytest.importorskip("starlette")
    pytest.importorskip("jinja2")
    pytest.importorskip("multipart")
    from starlette.testclient import TestClient
    from web_helpers import job_of, wait_for

    from explore_sim.web import create_app

    deck = DECK.read_text(encoding="utf-8")
    options = ('<option value="auto" selected>auto</option><option value="kernel">kernel'
               '</option><option value="numpy">numpy</option>')
    field_error = re.compile(r'<div class="field choice invalid">\s*<label for="f-engine">'
                             r'.*?<p class="field-error"[^>]*>(.*?)</p>', re.DOTALL)
    with TestClient(create_app(), raise_server_exceptions=False) as client:
        for analysis in ("simulate", "compare", "value", "advise"):
            page = client.post("/", data={"action": f"switch:{analysis}"}).text
            assert '<select id="f-engine" name="engine">' in page and options in page, analysis
        refused = client.post("/", data={"action": "run", "analysis": "simulate",
                                         "deck": GROVE_DECK, "engine": "kernel",
                                         "trials": "100"},
                              files={"cards_file": ("grove.toml", GROVE_CARDS.encode(),
                                                    "application/toml")})
        assert refused.status_code == 400
        error = field_error.search(refused.text)
        assert error and unescape(error.group(1)) == (
            f"engine 'kernel': the compiled kernel cannot play these games: {GROVE_WHY}; "
            "engine 'auto' or 'numpy' plays them")
        advise = client.post("/", data={"action": "run", "analysis": "advise",
                                        "deck": SEVENS.read_text(encoding="utf-8"),
                                        "turn": "2", "revealed": "Platinum Angel",
                                        "battlefield": "2 Forest, Cenote Scout",
                                        "engine": "kernel", "trials": "100"},
                             files={"cards_file": ("sevens.toml", SEVENS.with_suffix(
                                 ".cards.toml").read_bytes(), "application/toml")})
        assert advise.status_code == 400
        error = field_error.search(advise.text)
        assert error and "plays whole games from the deal" in unescape(error.group(1))
        for engine, shown in (("auto", "kernel"), ("numpy", "numpy")):
            response = client.post("/", data={"action": "run", "analysis": "simulate",
                                              "deck": deck, "engine": engine, "turns": "1",
                                              "trials": "200", "seed": "1"},
                                   follow_redirects=False)
            assert wait_for(job_of(client, response)).state == "done"
            page = client.get(response.headers["location"]).text
            assert f"<dt>engine</dt><dd>{shown}</dd>" in page, engine


# ------------------------------------------------------------------------------ compiling

def test_kernel_compiling_follows_numba_s_compilations_of_the_game_only():
    assert not kernel_compiling()
    with game_compile_event():
        assert kernel_compiling()
        with game_compile_event():  # the game's functions compile inside play_chunk's
            assert kernel_compiling()
        assert kernel_compiling()
    assert not kernel_compiling()

    class Probe(event.Listener):
        def __init__(self):
            self.seen = []

        def on_start(self, event):
            self.seen.append(kernel_compiling())

        def on_end(self, event):
            pass

    probe = Probe()
    event.register("numba:compile", probe)
    try:  # a real compilation of a function that is not the game's
        assert numba.njit(lambda x: x + 1)(1) == 2
    finally:
        event.unregister("numba:compile", probe)
    assert probe.seen == [False]


def _needs_the_web_page() -> None:
    """Skip where the web page's dependencies (the ``web`` extra) are not installed."""
    for module in ("starlette", "jinja2", "multipart"):
        pytest.importorskip(module)


_STARTS_WARM = """
import json, time
from starlette.testclient import TestClient
from explore_sim.analysis.engines import kernel_compiling, kernel_unavailable
from explore_sim.web import Settings, create_app
import sys
kernel = sys.modules.get("explore_sim.engine.kernel")
before = kernel is not None and kernel.loaded()
with TestClient(create_app(Settings())) as client:
    assert client.get("/").status_code == 200
    end = time.monotonic() + 300
    loaded = False
    while time.monotonic() < end and kernel_unavailable() is None:
        from explore_sim.engine import kernel
        if kernel.loaded():
            loaded = True
            break
        time.sleep(0.05)
    print(json.dumps([before, loaded, kernel_compiling(), kernel_unavailable()]))
"""


@pytest.mark.slow
def test_a_page_loads_the_game_kernel_as_it_starts(tmp_path):
    """A server compiles the kernel (or loads it from numba's cache) in the background as it
    starts, so that the first run does not wait for it."""
    _needs_the_web_page()
    from explore_sim.web.app import warm_kernel

    warm_kernel()  # machine code in numba's cache for the process below
    assert loaded()
    env = {**os.environ, "EXPLORE_SIM_CARDS_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", _STARTS_WARM], capture_output=True, text=True,
                          cwd=ROOT, timeout=900, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout) == [False, True, False, None]


@pytest.mark.slow
def test_without_numba_a_page_starts_and_compiles_nothing(no_numba, tmp_path):
    _needs_the_web_page()
    env = {**os.environ, **no_numba, "EXPLORE_SIM_CARDS_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", _STARTS_WARM], capture_output=True, text=True,
                          cwd=ROOT, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout) == [False, False, False,
                                       "numba cannot be imported (No module named "
                                       "'numba'; pip install 'numba>=0.60' adds it)"]
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_a_page_starting_with_bad_settings_says_so_in_one_line(tmp_path):
    """Bad settings stop the start-up compilation with one line in the server's log, no
    traceback (every run then refuses them in one line)."""
    _needs_the_web_page()
    script = ("import logging\n"
              "logging.basicConfig(format='%(levelname)s %(name)s: %(message)s')\n"
              "from explore_sim.web.app import warm_kernel\n"
              "warm_kernel()\n")
    env = {**os.environ, "EXPLORE_SIM_THREADS": "two", "EXPLORE_SIM_CARDS_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "WARNING explore_sim.web: the game kernel was not compiled at start-up: "
        "EXPLORE_SIM_THREADS"), done.stderr
