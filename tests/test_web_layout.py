"""The web page in a real browser at a laptop's 1,366 px and at a phone's 390 px: after a run
on every tab, no element is wider than its container and no table scrolls sideways; each tab
keeps its own settings across tab switches; a Commander deck with its card file pasted gets a
permalink that reopens the same run. Debian's chromium, driven by Playwright (skipped, with
the reason, without one)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from conftest import DECKS
from web_helpers import DEADLINE, chromium_path, deck_text, live_server

pytestmark = pytest.mark.slow  # a real browser

#: Every element of the page (the off-screen default submit button aside) that reaches past
#: its container's right edge, and every box that scrolls sideways (form inputs aside).
OVERFLOWS = """() => {
  const bad = [];
  for (const el of document.querySelectorAll('main *')) {
    if (el.closest('.default-submit')) continue;
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden') continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
      + (typeof el.className === 'string' && el.className ? '.' + el.className : '');
    if (box.right > el.parentElement.getBoundingClientRect().right + 1)
      bad.push(name + ' is wider than its container');
    if (!['TEXTAREA', 'SELECT', 'INPUT'].includes(el.tagName)
        && el.scrollWidth > el.clientWidth + 1 && style.overflowX !== 'visible')
      bad.push(name + ' scrolls sideways');
  }
  if (document.documentElement.scrollWidth > document.documentElement.clientWidth)
    bad.push('the page scrolls sideways');
  return bad;
}"""
ADVISE = dict(turn=3, battlefield="Forest, Swamp, Woodland Cemetery, Jadelight Ranger",
              hand="Wildgrowth Walker, Lurking Chupacabra, Path of Discovery",
              revealed="Tishana's Wayfinder", explores_left=2,
              objective="on_curve@4,mana_spent@6,counters@6")
#: A run of every tab, with options that make its widest tables.
RUNS = {"explore": dict(trials=2000), "simulate": dict(trials=2000),
        "compare": dict(trials=2000, policies="keep\nmill\nforge"),
        "value": dict(trials=1000, card="Jadelight Ranger"),
        "advise": dict(trials=500, **ADVISE), "curve": dict(trials=1000),
        "lands": dict(trials=1000)}


@pytest.fixture(scope="module")
def browser():
    if chromium_path() is None:
        pytest.skip("no chromium installed (apt-get install chromium); the browser test needs one")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(),
                                             args=["--no-sandbox", "--disable-gpu"])
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def server():
    from explore_sim.web import Settings

    with live_server(Settings(max_trials=100_000)) as (url, _):
        yield url


@pytest.mark.parametrize("width", [1366, 390], ids=["laptop", "phone"])
def test_no_element_is_wider_than_its_container_on_any_tab(browser, server, width):
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.set_default_timeout(DEADLINE * 1000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    found = {}
    for name, options in RUNS.items():
        shipped = "golgari_explore" if name == "curve" else "xln_sultai_explore"
        query = {"analysis": name, "deck": deck_text(f"{shipped}.txt"), "base": shipped,
                 "seed": 1, **options, "run": 1}
        page.goto(server + "/?" + urlencode(query))  # typed in: the page runs it
        page.wait_for_selector("#result[data-state=done]")
        page.wait_for_function("() => [...document.images].every(i => i.complete)")
        assert page.locator("table.stats").count() >= 1, name
        found[name] = page.evaluate(OVERFLOWS)
    assert found == {name: [] for name in RUNS}, found
    assert not errors, errors
    page.close()


def test_each_tab_keeps_its_trials_across_a_switch(browser, server):
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.set_default_timeout(DEADLINE * 1000)

    def open_tab(title: str) -> str:
        page.get_by_role("button", name=title).click()
        page.wait_for_selector(f".tab.current:text('{title}')")
        return page.input_value("input[name=trials]")

    page.goto(server + "/")
    open_tab("Castable on curve")
    page.fill("input[name=trials]", "20000")
    assert open_tab("Keep or mill, now") != "20000"  # the advise tab's own
    page.fill("input[name=trials]", "5000")
    assert open_tab("Goldfish by turn") not in ("20000", "5000")
    assert open_tab("Castable on curve") == "20000"
    assert open_tab("Keep or mill, now") == "5000"
    page.close()


def test_a_commander_deck_permalink_reopens_the_same_run(browser, server):
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.set_default_timeout(DEADLINE * 1000)
    page.goto(server + "/")
    page.get_by_role("button", name="Goldfish by turn").click()
    page.wait_for_selector("input[name=turns]")
    page.fill("textarea[name=deck]", deck_text("hakbal_merfolk_commander.txt"))
    page.click("#cards-file summary")
    page.fill("textarea[name=cards_text]",
              (DECKS / "hakbal_merfolk_commander.cards.toml").read_text(encoding="utf-8"))
    page.fill("input[name=trials]", "2000")
    page.fill("input[name=seed]", "4")
    page.fill("input[name=turns]", "3")
    page.click("#run")
    page.wait_for_selector("#result[data-state=done]")
    first = page.inner_text("table.stats")
    assert "Hakbal Merfolk Explore" in page.inner_text(".facts")
    page.click("#permalink")  # the user follows it: the page runs it again
    page.wait_for_selector("#result[data-state=done]")
    assert page.inner_text("table.stats") == first
    assert page.input_value("textarea[name=cards_text]").startswith(
        (DECKS / "hakbal_merfolk_commander.cards.toml").read_text(encoding="utf-8")[:200])
    page.close()
