"""The web page in a real headless browser: Debian's chromium driven by Playwright.

Pastes a shipped deck, runs a goldfish analysis, waits for the table and the figure, checks
the numbers against the command line's for the same seed, loads shipped decks into the value
and curve tabs (the curve's sentence and table against :func:`explore_sim.curve`), follows a
permalink (and another
site's form and link, which start nothing), and saves a screenshot (also to
``$EXPLORE_SIM_SCREENSHOT`` when set: that is how the documentation's picture is made). No browser is
downloaded: the test is skipped, with the reason, when no chromium is installed (``.ci/run``
installs it with apt-get).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from pathlib import Path

import pytest
from conftest import DECKS
from web_helpers import DEADLINE, chromium_path, deck_text, live_server

from explore_sim.cli import main

pytestmark = pytest.mark.slow  # a real browser

CHROMIUM = chromium_path()
SHIPPED = "xln_sultai_explore"


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("no chromium installed (apt-get install chromium); the browser test needs one")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                             args=["--no-sandbox", "--disable-gpu"])
        try:
            yield browser
        finally:
            browser.close()


def test_goldfish_in_a_real_browser(browser, tmp_path, capsys):
    from explore_sim.web import Settings

    with live_server(Settings(max_trials=100_000)) as (url, app):
        page = browser.new_page(viewport={"width": 1440, "height": 1150})
        page.set_default_timeout(DEADLINE * 1000)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda message: errors.append(message.text)
                if message.type == "error" else None)

        page.goto(url + "/")
        page.get_by_role("button", name="Goldfish by turn").click()
        page.wait_for_selector("input[name=turns]")
        page.fill("textarea[name=deck]", deck_text(f"{SHIPPED}.txt"))
        page.fill("input[name=trials]", "4000")
        page.fill("input[name=seed]", "1")
        page.fill("input[name=metrics]", "lands_played,on_curve,counters,explores,"
                                         "explore_lands,mana_spent")
        page.click("#run")

        table = page.wait_for_selector("table.stats")
        page.wait_for_function("() => { const img = document.querySelector('img.figure');"
                               " return img && img.complete && img.naturalWidth > 0; }")
        assert page.locator("#result").get_attribute("data-state") == "done"
        assert "shipped deck xln_sultai_explore" in page.inner_text("main")

        shown = {}
        for row in table.query_selector_all("tbody tr"):
            shown[row.query_selector("th").inner_text()] = [
                cell.inner_text() for cell in row.query_selector_all("td")]
        assert main(["simulate", str(DECKS / f"{SHIPPED}.txt"), "--trials", "4000", "--seed", "1",
                     "--metrics", "lands_played,on_curve,counters,explores,explore_lands,"
                                  "mana_spent"]) == 0
        expected = {}
        for line in capsys.readouterr().out.splitlines():
            found = re.findall(r"\d+\.\d+ \(\d+\.\d+\)", line)
            if found:
                expected[line.split()[0]] = found
        assert shown == expected

        assert page.get_by_role("link", name="download CSV").count() == 1
        assert page.locator("#permalink").get_attribute("href").startswith("/?analysis=simulate")
        shot = tmp_path / "web_page.png"
        page.screenshot(path=str(shot), full_page=False)
        assert shot.stat().st_size > 10_000
        wanted = os.environ.get("EXPLORE_SIM_SCREENSHOT")
        if wanted:
            shutil.copyfile(shot, Path(wanted))
        assert not errors, errors
        page.close()


def test_value_of_a_shipped_deck_in_a_real_browser(browser, capsys):
    from explore_sim.web import Settings

    with live_server(Settings(max_trials=100_000)) as (url, app):
        page = browser.new_page(viewport={"width": 1366, "height": 900})  # a laptop
        page.set_default_timeout(DEADLINE * 1000)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))

        page.goto(url + "/")
        page.get_by_role("button", name="Value of explore cards").click()
        page.wait_for_selector("textarea[name=card]")
        page.select_option("select[name=shipped]", SHIPPED)
        page.get_by_role("button", name="Load").first.click()
        page.wait_for_function("() => document.querySelector('textarea[name=deck]').value"
                               ".includes('Jadelight Ranger')")
        page.fill("textarea[name=card]", "Jadelight Ranger")
        page.fill("input[name=trials]", "2000")
        page.fill("input[name=seed]", "1")
        page.click("#run")

        table = page.wait_for_selector("table.stats")
        page.wait_for_function("() => { const img = document.querySelector('img.figure');"
                               " return img && img.complete && img.naturalWidth > 0; }")
        assert page.locator("#result").get_attribute("data-state") == "done"
        assert table.query_selector("caption").inner_text().startswith(
            "value: land-equivalents of on_curve at turn 4")
        shown = [cell.inner_text() for cell in table.query_selector_all("tbody tr > *")]
        assert main(["value", str(DECKS / f"{SHIPPED}.txt"), "--card", "Jadelight Ranger",
                     "--trials", "2000", "--seed", "1", "--format", "csv"]) == 0
        found = next(line.split(",") for line in capsys.readouterr().out.splitlines()
                     if ",land_equivalent," in line)
        assert shown[:3] == ["Jadelight Ranger", "4", "on_curve@4"]
        assert shown[3:7] == [f"{float(x):.4f}" for x in found[5:9]]  # mean, se, interval
        assert page.locator("#permalink").get_attribute("href").startswith("/?analysis=value")
        # The page does not scroll sideways at 1,366 px: a wide table scrolls in its box,
        # its first column (the card) fixed.
        assert page.evaluate("() => document.documentElement.scrollWidth"
                             " <= document.documentElement.clientWidth")
        assert page.evaluate("() => getComputedStyle(document.querySelector("
                             "'table.stats tbody tr > *')).position") == "sticky"
        assert not errors, errors
        page.close()


def test_curve_of_a_shipped_deck_in_a_real_browser(browser):
    from explore_sim import curve
    from explore_sim.web import Settings

    with live_server(Settings(max_trials=100_000)) as (url, app):
        page = browser.new_page(viewport={"width": 1440, "height": 1150})
        page.set_default_timeout(DEADLINE * 1000)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))

        page.goto(url + "/")
        page.get_by_role("button", name="Castable on curve").click()
        page.wait_for_selector("input[name=turns][placeholder=optional]")
        page.select_option("select[name=shipped]", "golgari_explore")
        page.get_by_role("button", name="Load").first.click()
        page.wait_for_function("() => document.querySelector('textarea[name=deck]').value"
                               ".includes('Carnage Tyrant')")
        page.fill("input[name=trials]", "2000")
        page.fill("input[name=seed]", "2")
        page.click("#run")

        table = page.wait_for_selector("table.stats")
        assert page.locator("#result").get_attribute("data-state") == "done"
        assert table.query_selector("caption").inner_text().startswith(
            "curve: each nonland card on its turn")
        answer = page.inner_text("p.answer")
        rows = curve(DECKS / "golgari_explore.txt", trials=2000, seed=2).summary()
        castable = int((rows["probability"] >= 0.8).sum())
        assert answer.startswith(f"{castable} of {len(rows)} nonland cards are castable on "
                                 "curve at least 80% of the time")
        assert "short of Karsten's sources: Agadeem's Awakening" in answer
        shown = {row.query_selector("th").inner_text(): [
            cell.inner_text() for cell in row.query_selector_all("td")]
            for row in table.query_selector_all("tbody tr")}
        tyrant = rows.set_index("card").loc["Carnage Tyrant"]
        assert shown["Carnage Tyrant"][:4] == [
            "2", "{4}{G}{G}", "6", f"{tyrant['probability']:.3f} ({tyrant['se']:.3f})"]
        assert page.locator("#permalink").get_attribute("href").startswith("/?analysis=curve")
        assert not errors, errors
        page.close()


@contextlib.contextmanager
def other_site(pages: dict[str, str]):
    """Another web site on this machine (another port of 127.0.0.1: another origin), serving
    ``pages`` (name -> HTML)."""
    import functools
    import http.server
    import tempfile
    import threading

    with tempfile.TemporaryDirectory() as directory:
        for name, html in pages.items():
            (Path(directory) / name).write_text(html, encoding="utf-8")

        class Quiet(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

        server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Quiet, directory=directory))
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}"
        finally:
            server.shutdown()
            server.server_close()


def test_permalinks_and_other_sites_in_a_real_browser(browser):
    """A permalink followed from the page (or opened by the user) runs again, with the same
    numbers; another site's form is refused and another site's link only fills the form."""
    from explore_sim.web import Settings

    settings = Settings(max_trials=100_000, allowed_hosts=("127.0.0.1",))
    with live_server(settings) as (url, app):
        jobs = app.state.web.jobs._jobs
        page = browser.new_page(viewport={"width": 1440, "height": 1150})
        page.set_default_timeout(DEADLINE * 1000)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url + "/")
        page.fill("textarea[name=deck]", deck_text(f"{SHIPPED}.txt"))
        page.fill("input[name=trials]", "3000")
        page.click("#run")
        first = page.wait_for_selector("table.stats").inner_text()
        assert len(jobs) == 1
        link = page.locator("#permalink").get_attribute("href")
        assert "run=1" in link

        page.click("#permalink")  # same origin: the page's script submits the filled form
        page.wait_for_url(re.compile(r"/jobs/"))
        assert page.wait_for_selector("table.stats").inner_text() == first  # same seed
        assert len(jobs) == 2
        page.go_back()  # the permalink's address without run=1: the form, not a third run
        page.wait_for_selector("#run-form:not([data-autorun])")
        assert "run=1" not in page.url and len(jobs) == 2

        page.goto(url + link)  # typed or pasted by the user: runs
        page.wait_for_url(re.compile(r"/jobs/"))
        page.wait_for_selector("table.stats")
        assert len(jobs) == 3

        form = ('<form id="f" method="post" action="{url}/"><input name="action" value="run">'
                '<input name="analysis" value="explore"><input name="deck" value="24 Forest">'
                '<input name="trials" value="2000"></form>'
                '<script>document.getElementById("f").submit()</script>').format(url=url)
        with other_site({"form.html": form,
                         "link.html": f'<a id="go" href="{url}{link}">results</a>'}) as evil:
            page.goto(evil + "/form.html")
            page.wait_for_selector("text=came from another site")
            assert len(jobs) == 3
            page.goto(evil + "/link.html")
            page.click("#go")
            page.wait_for_selector("text=press Run to start it")
            assert page.locator("#run-form").get_attribute("data-autorun") is None
            assert page.input_value("input[name=trials]") == "3000"  # filled, not run
            assert len(jobs) == 3
        assert not errors, errors
        page.close()


def test_a_cancelled_run_shows_its_finished_trials_in_a_real_browser(browser):
    """Cancel a long run from the page: the tables of the chunks it finished appear, under
    the notice of how many trials they are, with their standard errors."""
    from explore_sim.web import Settings

    with live_server(Settings(max_trials=10**9, max_game_turns=10**12)) as (url, app):
        page = browser.new_page()
        page.set_default_timeout(DEADLINE * 1000)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url + "/")
        page.fill("textarea[name=deck]", deck_text("lci_merfolk_explore.txt"))
        page.fill("input[name=trials]", "1000000000")
        page.fill("input[name=seed]", "1")
        page.click("#run")
        page.wait_for_function("() => { const bar = document.getElementById('progress');"
                               " return bar && bar.value > 0; }")
        page.click("#cancel")
        notice = page.wait_for_selector("#cancelled").inner_text()
        found = re.search(r"Run cancelled after ([\d,]+) of 1,000,000,000 trials; the figures "
                          r"below are from those ([\d,]+) trials, with their standard errors",
                          notice)
        assert found and found.group(1) == found.group(2), notice
        done = int(found.group(1).replace(",", ""))
        assert done > 0 and done % 65536 == 0
        assert page.locator("#result").get_attribute("data-state") == "cancelled"
        assert page.locator("table.stats").count() >= 1
        assert "se" in page.locator("table.stats").first.inner_text()
        assert not errors, errors
        page.close()
