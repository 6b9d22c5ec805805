"""The package as a player gets it: the wheel built from this checkout, installed (with the
``web`` extra, without ``fast``: no numba) in a clean virtual environment, run from an empty
folder. ``.ci/run`` builds the wheel, makes that environment and runs this file with
``$EXPLORE_SIM_INSTALLED`` set to it; without that variable (a checkout's own test run) the
tests are skipped, naming the step that runs them.

From the empty folder: ``explore-sim decks`` lists the shipped decks (read from the installed
package, not the checkout), ``explore-sim simulate merfolk --trials 20000`` runs (played by the
NumPy engine, which says so once: the install without numba), and ``explore-sim serve`` lists
the shipped decks on its page in a real browser.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
from web_helpers import DEADLINE, chromium_path

pytestmark = pytest.mark.slow  # processes of another environment, a browser

INSTALLED = os.environ.get("EXPLORE_SIM_INSTALLED")
NAMES = ["merfolk", "merfolk-vanilla", "limited", "xln-sultai", "sultai", "golgari", "hakbal"]
#: How the page lists the shipped decks: the short name, then the file's stem.
LABELS = ["golgari (golgari_explore)", "hakbal (hakbal_merfolk_commander)",
          "limited (lci_limited_gu)", "merfolk (lci_merfolk_explore)",
          "merfolk-vanilla (lci_merfolk_vanilla)", "sultai (sultai_explore)",
          "xln-sultai (xln_sultai_explore)"]


@pytest.fixture(scope="module")
def venv() -> Path:
    if not INSTALLED:
        pytest.skip("run by .ci/run on the built wheel ($EXPLORE_SIM_INSTALLED unset)")
    return Path(INSTALLED)


def run(venv: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(venv / "bin" / "explore-sim"), *args], capture_output=True,
                          text=True, cwd=cwd, timeout=600, env=env)


def test_the_environment_is_the_wheel_without_numba(venv, tmp_path):
    done = subprocess.run([str(venv / "bin" / "python"), "-c",
                           "import explore_sim, importlib.util; print(explore_sim.__file__); "
                           "print(importlib.util.find_spec('numba'))"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    where, numba = done.stdout.split()
    assert "site-packages" in where and numba == "None"


def test_decks_lists_the_shipped_decks_from_an_empty_folder(venv, tmp_path):
    done = run(venv, tmp_path, "decks")
    assert done.returncode == 0, done.stderr
    assert [line.split()[0] for line in done.stdout.splitlines()[1:8]] == NAMES
    assert re.search(r"in \S*site-packages/explore_sim/decks;", done.stdout)


def test_simulate_merfolk_runs_from_an_empty_folder(venv, tmp_path):
    done = run(venv, tmp_path, "simulate", "merfolk", "--trials", "20000", "--seed", "1")
    assert done.returncode == 0, done.stderr
    assert "deck: Lost Caverns Merfolk Explore (60 cards, 24 lands)" in done.stdout
    assert "trials: 20000" in done.stdout
    assert done.stderr == ("explore-sim: warning: engine auto: numba cannot be imported (No "
                           "module named 'numba'; pip install 'numba>=0.60' adds it); "
                           "the games are played by the numpy engine (the same rules; a seed "
                           "draws other games than on the compiled one)\n")
    assert list(tmp_path.iterdir()) == []  # nothing written where it ran


def test_serve_lists_the_shipped_decks_in_a_real_browser(venv, tmp_path):
    if chromium_path() is None:
        pytest.skip("no chromium installed (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    server = subprocess.Popen([str(venv / "bin" / "explore-sim"), "serve", "--port", str(port)],
                              cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}/"
        end = time.monotonic() + DEADLINE
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, server.stderr.read()
                assert time.monotonic() < end, "the server did not start"
                time.sleep(0.1)
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium_path(),
                                                 args=["--no-sandbox", "--disable-gpu"])
            try:
                page = browser.new_page()
                page.set_default_timeout(DEADLINE * 1000)
                page.goto(url)
                options = page.locator("select[name=shipped] option").all_inner_texts()
                assert options[1:] == LABELS, options
                page.select_option("select[name=shipped]", "lci_merfolk_explore")
                page.get_by_role("button", name=re.compile("^Load")).first.click()
                page.wait_for_function("() => document.querySelector('textarea[name=deck]')"
                                       ".value.includes('Jadelight Spelunker')")
            finally:
                browser.close()
    finally:
        os.killpg(server.pid, signal.SIGINT)
        server.wait(30)
