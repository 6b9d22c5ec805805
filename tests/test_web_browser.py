"""The web page in a real headless browser: Debian's chromium driven by Playwright.

Pastes a shipped deck, runs a goldfish analysis, waits for the table and the figure, checks
the numbers against the command line's for the same seed, loads shipped decks into the value
and curve tabs (the curve's sentence and table against :func:`explore_sim.curve`), follows a
permalink (and another site's form and link, which start nothing), and saves a screenshot
(also to ``$EXPLORE_SIM_SCREENSHOT`` when set: that is how the documentation's picture is
made). No browser is downloaded: the test is skipped, with the reason, when no chromium is
installed (``.ci/run`` installs it with apt-get).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from pathlib import Path

import pytest
from conftest import DECKS, game_compile_event
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


def open_page(browser, viewport: dict[str, int] | None = None):
    """A new page of ``browser`` (at ``viewport``, else Playwright's default) with the
    suite's deadline, and the list its script errors are collected in."""
    page = browser.new_page(viewport=viewport) if viewport else browser.new_page()
    page.set_default_timeout(DEADLINE * 1000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


#: Whether the deck box holds the text ``arg``: false, not an error, while the page Load
#: submits to is still being parsed and has no deck box yet.
DECK_SHOWS = ("(text) => { const box = document.querySelector('textarea[name=deck]');"
              " return box !== null && box.value.includes(text); }")


def test_goldfish_in_a_real_browser(browser, tmp_path, capsys):
    from explore_sim.web import Settings

    with live_server(Settings(max_trials=100_000)) as (url, app):
        page, errors = open_page(browser, viewport={"width": 1366, "height": 1000})  # a laptop
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
            if found and not line.strip().startswith("mulligans per game"):
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


def test_a_refused_run_takes_the_reader_to_its_problems_in_a_real_browser(browser):
    from explore_sim.web import Settings

    with live_server(Settings(max_trials=100_000)) as (url, app):
        page, errors = open_page(browser, viewport={"width": 390, "height": 844})  # a phone
        page.goto(url + "/")
        fits = ("() => document.documentElement.scrollWidth <= window.innerWidth && "
                "document.querySelector('select[name=shipped]').getBoundingClientRect().right"
                " <= document.querySelector('textarea[name=deck]').getBoundingClientRect().right"
                " + 0.5")
        assert page.evaluate(fits), "the deck's header is wider than the phone's screen"
        page.click("details.card-file summary")  # the card file's inputs, opened
        assert page.evaluate(fits), "the card file's inputs are wider than the phone's screen"
        page.fill("textarea[name=deck]", "20 Forest\n40 Grizzly Bears\n")
        page.fill("input[name=trials]", "-5")
        page.click("#run")
        summary = page.wait_for_selector("#error-summary")
        # The page opens on the form's top, the field far below: the summary has the focus,
        # in sight, and its link takes the reader to the field.
        assert page.evaluate("document.activeElement.id") == "error-summary"
        assert summary.is_visible() and page.evaluate(
            "document.getElementById('error-summary').getBoundingClientRect().bottom"
            " <= window.innerHeight")
        field = page.locator("#f-trials")
        assert field.get_attribute("aria-invalid") == "true"
        assert page.evaluate("document.getElementById('f-trials').getBoundingClientRect().top"
                             " > window.innerHeight")  # out of sight until the link is followed
        page.get_by_role("link", name=re.compile("^trials: expected")).click()
        page.wait_for_function("() => { const r = document.getElementById('f-trials')"
                               ".getBoundingClientRect(); return r.top >= 0 && "
                               "r.bottom <= window.innerHeight; }")
        page.fill("input[name=trials]", "200")  # corrected: the run's page opens on its result
        page.click("#run")
        page.wait_for_selector("#result[data-state=done]")
        top = page.evaluate("document.getElementById('results').getBoundingClientRect().top"
                            " / window.innerHeight")  # scrolled to as far as the page goes
        assert 0 <= top < 0.75, f"the result is out of sight ({top:.2f} screens down)"
        assert not errors, errors
        page.close()


def test_value_of_a_shipped_deck_in_a_real_browser(browser, capsys):
    from explore_sim.web import Settings

    with live_server(Settings(max_trials=100_000)) as (url, app):
        page, errors = open_page(browser, viewport={"width": 1366, "height": 900})  # a laptop

        page.goto(url + "/")
        page.get_by_role("button", name="Value of explore cards").click()
        page.wait_for_selector("textarea[name=card]")
        page.select_option("select[name=shipped]", SHIPPED)
        page.get_by_role("button", name="Load").first.click()
        page.wait_for_function(DECK_SHOWS, arg="Jadelight Ranger")
        page.fill("textarea[name=card]", "Jadelight Ranger")
        page.fill("input[name=trials]", "2000")
        page.fill("input[name=seed]", "1")
        page.click("#run")

        table = page.wait_for_selector("table.stats")
        page.wait_for_function("() => { const img = document.querySelector('img.figure');"
                               " return img && img.complete && img.naturalWidth > 0; }")
        assert page.locator("#result").get_attribute("data-state") == "done"
        assert table.query_selector("caption").inner_text().startswith(
            "value: land-equivalents of on_curve")
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
        page, errors = open_page(browser, viewport={"width": 1366, "height": 900})

        page.goto(url + "/")
        page.get_by_role("button", name="Castable on curve").click()
        page.wait_for_selector("input[name=turns][placeholder=optional]")
        page.select_option("select[name=shipped]", "golgari_explore")
        page.get_by_role("button", name="Load").first.click()
        page.wait_for_function(DECK_SHOWS, arg="Carnage Tyrant")
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
            "2", "{4}{G}{G} (G 2CC)", "6", f"{tyrant['probability']:.3f} ({tyrant['se']:.3f})"]
        assert page.locator("#permalink").get_attribute("href").startswith("/?analysis=curve")
        # Every column in view on a 1,366 px laptop: the card names wrap, nothing scrolls.
        widths = page.evaluate("() => { const t = document.querySelector('table.stats');"
                               " return [t.scrollWidth, t.parentElement.clientWidth]; }")
        assert widths[0] <= widths[1], widths
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
        page, errors = open_page(browser, viewport={"width": 1440, "height": 1150})
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

        form = (f'<form id="f" method="post" action="{url}/"><input name="action" value="run">'
                '<input name="analysis" value="explore"><input name="deck" value="24 Forest">'
                '<input name="trials" value="2000"></form>'
                '<script>document.getElementById("f").submit()</script>')
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


#: Every table of the result and the sentences above them, as the browser shows them.
_RESULT_JS = """() => ({
  answers: [...document.querySelectorAll('#result p.answer')].map(p => p.innerText),
  tables: [...document.querySelectorAll('#result table.stats')].map(t => ({
    caption: t.querySelector('caption').innerText,
    columns: [...t.querySelectorAll('thead th')].map(th => th.innerText),
    rows: [...t.querySelectorAll('tbody tr')].map(tr =>
      [...tr.querySelectorAll('th, td')].map(c => c.innerText))}))})"""
NUMBER = r"([+-]?\d+\.\d+)"


def shown_result(page) -> tuple[list[str], dict[str, dict[str, dict[str, str]]]]:
    """The result's sentences, and each table (by the start of its caption) as row -> column
    -> cell."""
    found = page.evaluate(_RESULT_JS)
    tables = {}
    for t in found["tables"]:
        tables[t["caption"]] = {row[0]: dict(zip(t["columns"][1:], row[1:])) for row in t["rows"]}
    return found["answers"], tables


def table_of(tables, caption: str) -> dict[str, dict[str, str]]:
    return next(rows for title, rows in tables.items() if title.startswith(caption))


def no_sideways_scroll(page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth"
                         " <= document.documentElement.clientWidth")


def close(a: str, b: str, within: float) -> bool:
    return abs(float(a) - float(b)) <= within + 1e-9


def run_tab(page, title: str, fields: dict[str, str]) -> tuple[list[str], dict]:
    """Switch to the tab ``title`` (the deck stays; each tab has its own options: 600 trials
    and seed 1 unless ``fields`` say otherwise), fill ``fields``, run, wait for the result;
    its sentences and tables."""
    page.get_by_role("button", name=title).click()
    page.wait_for_selector(f"button.tab.current:text-is(\"{title}\")")
    for name, value in {"trials": "600", "seed": "1", **fields}.items():
        if page.locator(f"select[name={name}]").count():
            page.select_option(f"select[name={name}]", value)
        else:
            page.fill(f"[name={name}]", value)
    page.click("#run")
    page.wait_for_selector('#result[data-state="done"] table.stats')
    assert no_sideways_scroll(page), title  # a 1,366 px laptop: no sideways scroll
    return shown_result(page)


def check_simulate(page, answers, tables):
    # The answer opens the result: above the figure, on the first screen.
    assert page.evaluate("() => !!(document.querySelector('#result p.answer')"
                         ".compareDocumentPosition(document.getElementById('figure'))"
                         " & Node.DOCUMENT_POSITION_FOLLOWING)")
    sentence = answers[0]
    means = table_of(tables, "simulate: 4 turns")
    found = re.search(rf"On turn 4, the last played, this deck has {NUMBER} lands in play "
                      rf"\(se {NUMBER}, {NUMBER} to {NUMBER}\), is on curve in {NUMBER}% of "
                      rf"games \(se {NUMBER}%", sentence)
    assert found, sentence
    assert f"{found[1]} ({found[2]})" == means["lands_played"]["turn 4"]
    intervals = table_of(tables, "95% intervals")
    assert f"{found[3]} to {found[4]}" == intervals["lands_played"]["turn 4"]
    mean, se = re.findall(NUMBER, means["on_curve"]["turn 4"])
    assert close(found[5], 100 * float(mean), 0.05) and close(found[6], 100 * float(se), 0.05)
    spread = table_of(tables, "distribution of counters on turn 4")
    top = re.search(rf"counters is most often (\d+) \({NUMBER}% of games", answers[1])
    best = max(spread, key=lambda value: float(spread[value]["probability (se)"].split()[0]))
    assert top[1] == best
    assert close(top[2], 100 * float(spread[best]["probability (se)"].split()[0]), 0.05)

    page.click("#sample-game summary")  # the sample game: trial 0's log
    log = page.locator("#sample-game pre.replay-log")
    assert log.is_visible()
    assert log.inner_text().startswith("replay: trial 0 (seed 1, 4 turns")
    assert "opening hand" in log.inner_text()
    assert no_sideways_scroll(page)
    result_url = page.url
    link = page.locator("a.game-link").first  # the first value taken: show me a game
    value = re.search(r"value=(\d+)", link.get_attribute("href"))[1]
    link.click()
    page.wait_for_selector("#replay-log")
    assert page.inner_text("#seen") == value  # the game took that value on turn 4
    assert no_sideways_scroll(page)
    page.goto(result_url)
    page.click("#sample-game summary")
    page.fill("#trial-form input[name=trial]", "2")
    page.click("#trial-form button")
    page.wait_for_selector("#replay-log")
    assert page.inner_text("#replay h2") == "Trial 2 of this run"
    page.goto(result_url)


def check_compare(answers, tables):
    found = re.search(rf"^forge: {NUMBER} on_curve on turn 4 against keep \(se {NUMBER}, "
                      rf"{NUMBER} to {NUMBER}\)\. Highest on_curve on turn 4: (\w+), {NUMBER}\.$",
                      answers[0])
    assert found, answers[0]
    cell = table_of(tables, "paired differences to keep, turn 4")["on_curve"]["forge"]
    assert cell.startswith(f"{found[1]} ({found[2]})")
    assert table_of(tables, "95% intervals of the differences")["on_curve"]["forge"] == \
        f"{found[3]} to {found[4]}"
    means = {v: float(c.split()[0]) for v, c in
             table_of(tables, "compare: 2 variants")["on_curve"].items()}
    assert found[5] == max(means, key=means.get) and close(found[6], means[found[5]], 0.0005)


def test_every_tab_in_a_real_browser(browser, tmp_path):
    """Every tab on one pasted deck, small runs: each sentence against its tables, the sample
    game and a distribution value's game, and no sideways scroll at 1,366 px."""
    from explore_sim.web import Settings

    with live_server(Settings(max_trials=100_000)) as (url, app):
        page, errors = open_page(browser, viewport={"width": 1366, "height": 900})
        page.goto(url + "/")
        page.fill("textarea[name=deck]", deck_text(f"{SHIPPED}.txt"))
        page.fill("input[name=trials]", "600")
        page.fill("input[name=seed]", "1")

        answers, tables = run_tab(page, "Explore sequence", {})
        summary = table_of(tables, "explore: 1 explore after 8 cards drawn")
        found = re.search(rf"After 8 cards drawn, 1 explore puts {NUMBER} \+1/\+1 counters on "
                          rf"the explorer \(se {NUMBER}, {NUMBER} to {NUMBER}\)", answers[0])
        assert found, answers[0]
        assert list(found.groups()) == [summary["counters"][k]
                                        for k in ("mean", "se", "ci_low", "ci_high")]

        answers, tables = run_tab(page, "Goldfish by turn", {"turns": "4",
                                                             "distribution": "counters"})
        check_simulate(page, answers, tables)
        shot = os.environ.get("EXPLORE_SIM_RESULT_SCREENSHOT")
        if shot:  # the documentation's picture: a distribution's sentence, its values' games
            page.click("#sample-game summary")  # and the sample game
            page.evaluate("() => window.scrollTo(0, 0)")
            top = page.locator("#result p.answer").nth(1).bounding_box()
            box = page.locator("#sample-game").bounding_box()
            page.screenshot(path=shot, full_page=True, clip={
                "x": box["x"] - 8, "y": top["y"] - 8, "width": box["width"] + 16,
                "height": box["y"] + box["height"] - top["y"] + 16})
            page.click("#sample-game summary")

        answers, tables = run_tab(page, "Compare policies or decks", {"turns": "4"})
        check_compare(answers, tables)
        assert page.locator("#sample-game h3").all_text_contents() == ["keep", "forge"]

        answers, tables = run_tab(page, "Value of explore cards", {"card": "Jadelight Ranger"})
        found = re.search(rf"^4 Jadelight Ranger are worth {NUMBER} lands \({NUMBER} to "
                          rf"{NUMBER}\), for on_curve at turn 4\.$", answers[0])
        assert found, answers[0]
        row = table_of(tables, "value: land-equivalents")["Jadelight Ranger"]
        for number, column in zip(found.groups(), ("mean", "ci_low", "ci_high")):
            assert close(number, row[column], 0.005)

        answers, tables = run_tab(page, "Castable on curve", {"turns": ""})
        rows = table_of(tables, "curve: each nonland card")
        castable = {card: float(cells["castable"].split()[0]) for card, cells in rows.items()
                    if cells["castable"] != "-"}
        found = re.search(rf"^(\d+) of (\d+) nonland cards are castable on curve at least 80% "
                          rf"of the time \(\d+ of \d+ given enough lands\); the least is (.+?) "
                          rf"at {NUMBER}%", answers[0])
        assert found, answers[0]
        assert int(found[1]) == sum(p >= 0.8 for p in castable.values())
        assert int(found[2]) == len(rows)
        assert castable[found[3]] == min(castable.values())
        assert close(found[4], 100 * castable[found[3]], 0.05)

        answers, tables = run_tab(page, "Keep or mill, now", {
            "turn": "3", "revealed": "Tishana's Wayfinder", "explores_left": "2",
            "battlefield": "Forest, Swamp, Woodland Cemetery, Jadelight Ranger",
            "hand": "Wildgrowth Walker, Lurking Chupacabra, Path of Discovery",
            "objective": "on_curve@4,mana_spent@6"})
        rows = table_of(tables, "advise: keep or mill Tishana's Wayfinder")
        said = re.findall(rf"(\w+@\d+) {NUMBER} \(se {NUMBER}\)", answers[0])
        assert len(said) == 2, answers[0]
        for objective, difference, se in said:
            assert rows[objective]["mill - keep"] == f"{difference} ({se})"
        assert not errors, errors
        page.close()


def test_the_lands_tab_says_what_its_table_shows_in_a_real_browser(browser):
    """The lands tab on a shipped deck: its sentence's best count, objective and interval,
    tied counts, the deck's own count, screwed and flooded shares are those of its table; the
    figure is drawn."""
    from explore_sim.web import Settings

    with live_server(Settings(max_trials=100_000)) as (url, app):
        page, errors = open_page(browser, viewport={"width": 1366, "height": 900})
        page.goto(url + "/")
        page.get_by_role("button", name="How many lands").click()
        page.wait_for_selector("input[name=counts]")
        page.select_option("select[name=shipped]", "golgari_explore")
        page.get_by_role("button", name="Load").first.click()
        page.wait_for_function(DECK_SHOWS, arg="Ravenous Chupacabra")
        answers, tables = run_tab(page, "How many lands", {
            "counts": "20..26", "trials": "3000", "seed": "2", "max_lands": "4"})
        page.wait_for_function("() => { const img = document.querySelector('img.figure');"
                               " return img && img.complete && img.naturalWidth > 0; }")
        rows = table_of(tables, "lands: compounded_mana@7 by land count")
        assert list(rows) == [str(n) for n in range(20, 27)]
        found = re.search(rf"^(\d+) lands is best by Karsten's compounded mana spent over "
                          rf"turns 1-7 \(compounded_mana@7: {NUMBER}, 95% interval {NUMBER} "
                          rf"to {NUMBER}\)", answers[0])
        assert found, answers[0]
        best = found[1]
        assert rows[best]["tied"] == "best"
        assert [n for n, row in rows.items() if row["tied"] == "best"] == [best]
        objective = {n: float(row["objective"].split()[0]) for n, row in rows.items()}
        assert max(objective, key=objective.get) == best
        assert close(found[2], rows[best]["objective"].split()[0], 0.005)
        low, high = rows[best]["95% interval"].split(" to ")
        assert close(found[3], low, 0.005) and close(found[4], high, 0.005)
        tied = [n for n, row in rows.items() if row["tied"] == "yes"]
        if tied:
            listed = re.search(r"tied with it: ([\d, and]+) lands", answers[0])[1]
            assert re.findall(r"\d+", listed) == tied
        else:
            assert "no other count is tied with it" in answers[0]
        assert "The deck plays 23: " in answers[0]
        shares = re.search(rf"At {best} lands (\d+)% \[\d+, \d+\] of games are screwed and "
                           rf"(\d+)% \[\d+, \d+\] flooded", answers[0])
        assert shares, answers[0]
        for said, column in zip(shares.groups(), ("screwed", "flooded")):
            assert close(said, rows[best][column].split("%")[0], 0.5)
        assert "Karsten's 2022 regression gives 24.1 lands" in answers[0]
        assert re.search(rf"its 21 explore, Map and explore-trigger cards are worth "
                         rf"(more than 4 lands|{NUMBER} lands)",
                         answers[0]), answers[0]
        assert not errors, errors
        page.close()


def test_a_run_waiting_for_the_kernel_to_compile_says_so_in_a_real_browser(browser):
    """The progress line of a run the page follows says the game kernel is compiling while
    numba's event of it is open, then "Running…" again, as the run's events arrive."""
    from explore_sim.web import Settings
    from explore_sim.web.app import COMPILING_NOTE

    with live_server(Settings(max_trials=10**9, max_game_turns=10**12)) as (url, app):
        page, errors = open_page(browser)
        page.goto(url + "/")
        page.fill("textarea[name=deck]", "24 Forest\n36 Grizzly Bears")
        page.fill("input[name=trials]", "1000000000")
        page.click("#run")
        page.wait_for_function("() => { const bar = document.getElementById('progress');"
                               " return bar && bar.value > 0; }")  # the page follows the run
        shows = ("(note) => document.getElementById('progress-text').textContent === note")
        with game_compile_event():
            page.wait_for_function(shows, arg=COMPILING_NOTE)
        page.wait_for_function(shows, arg="Running…")
        page.click("#cancel")
        page.wait_for_selector("#cancelled")
        assert not errors, errors
        page.close()


def _start_a_long_run(page, url):
    """Run the merfolk deck for 10**9 trials from the page, until its first chunk is done."""
    page.goto(url + "/")
    page.fill("textarea[name=deck]", deck_text("lci_merfolk_explore.txt"))
    page.fill("input[name=trials]", "1000000000")
    page.fill("input[name=seed]", "1")
    page.click("#run")
    page.wait_for_function("() => { const bar = document.getElementById('progress');"
                           " return bar && bar.value > 0; }")


def test_a_cancelled_run_shows_its_finished_trials_in_a_real_browser(browser):
    """Cancel a long run from the page: the tables of the chunks it finished appear, under
    the notice of how many trials they are, with their standard errors."""
    from explore_sim.web import Settings

    with live_server(Settings(max_trials=10**9, max_game_turns=10**12)) as (url, app):
        page, errors = open_page(browser)
        _start_a_long_run(page, url)
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


@pytest.mark.slow
def test_a_reload_during_a_run_picks_it_up_again_in_a_real_browser(browser):
    """Reload the run's page while it runs: the page follows the same run (its progress goes
    on from where it was), and its cancel button still stops it."""
    from explore_sim.web import Settings

    with live_server(Settings(max_trials=10**9, max_game_turns=10**12,
                              reopen_seconds=1.0)) as (url, app):
        page, errors = open_page(browser)
        _start_a_long_run(page, url)
        address = page.url
        before = int(page.locator("#progress").get_attribute("value") or 0)
        page.reload()
        assert page.url == address
        page.wait_for_function("(before) => { const bar = document.getElementById('progress');"
                               " return bar && bar.value > 4 * before; }", arg=before)
        job = app.state.web.jobs._jobs[address.rstrip("/").rsplit("/", 1)[-1]]
        assert job.state == "running" and not job.cancel_reason
        page.click("#cancel")
        notice = page.wait_for_selector("#cancelled").inner_text()
        assert "Run cancelled after" in notice and job.error == "cancelled"
        assert not errors, errors
        page.close()
