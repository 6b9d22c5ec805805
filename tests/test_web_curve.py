"""The page's curve tab (Starlette's test client): the numbers of :func:`explore_sim.curve`
for the same deck, seed and trials, a one-sentence answer that says what the table says,
bad options refused beside their field, and a run's cost counted on the turns it plays."""

from __future__ import annotations

import re
from html import unescape

import pandas as pd
import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")
pytest.importorskip("multipart")

from conftest import DECKS  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from web_helpers import deck_text, job_of, run_permalink, wait_for  # noqa: E402

import explore_sim  # noqa: E402
from explore_sim.analysis.curve import curve_turns  # noqa: E402
from explore_sim.cards.decklist import load_deck  # noqa: E402
from explore_sim.web import Settings, create_app  # noqa: E402
from explore_sim.web.costs import run_cost  # noqa: E402
from explore_sim.web.curve_tab import curve_answer  # noqa: E402

GOLGARI = "golgari_explore"
CAPTION = "curve: each nonland card on its turn"
ANSWER = re.compile(r"(\d+) of (\d+) nonland cards? (?:is|are) castable on curve at least "
                    r"80% of the time \((\d+) of (\d+) given enough lands\); the least is "
                    r"(.+?) at (\d+\.\d)%; (.*)\.")


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(Settings()), raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="module")
def curve_run(client):
    """One curve run of a shipped deck: the job and its page."""
    response = client.post("/", data={"action": "run", "analysis": "curve",
                                      "deck": deck_text(f"{GOLGARI}.txt"), "trials": "3000",
                                      "seed": "5"}, follow_redirects=False)
    job = wait_for(job_of(client, response))
    assert job.state == "done", job.error
    return job, client.get(response.headers["location"]).text


def table_rows(html: str) -> dict[str, list[str]]:
    """The curve table's rows: card -> cells."""
    table = re.search(r"<caption>" + CAPTION + r".*?</caption>(.*?)</table>", html, flags=re.S)
    assert table, "no curve table"
    rows = {}
    for row in re.findall(r"<tr><th scope=\"row\">(.*?)</tr>", table.group(1), flags=re.S):
        name, rest = row.split("</th>", 1)
        rows[unescape(name)] = [unescape(c) for c in re.findall(r"<td>(.*?)</td>", rest)]
    return rows


def answer_of(html: str) -> str:
    match = re.search(r'<p class="answer">(.*?)</p>\s*<div class="table-wrap">\s*<table '
                      r'class="stats">\s*<caption>' + CAPTION, html, flags=re.S)
    assert match, "no answer above the curve table"
    return unescape(match.group(1))


@pytest.mark.slow
def test_the_curve_tab_gives_explore_sim_curves_numbers(client, curve_run):
    job, html = curve_run
    expected = explore_sim.curve(DECKS / f"{GOLGARI}.txt", trials=3000, seed=5)
    rows = expected.summary()
    shown = table_rows(html)
    assert list(shown) == list(rows["card"])
    for row in rows.itertuples():
        assert shown[row.card] == [
            str(row.copies), f"{row.cost} ({row.karsten_row})" if row.karsten_row else row.cost,
            str(row.turn),
            f"{row.probability:.3f} ({row.se:.3f})",
            f"{row.given_lands:.3f} ({row.given_lands_se:.3f})",
            ", ".join(f"{c} {have.split()[1]} ({want.split()[1]})" for c, have, want in
                      zip(row.colours, row.sources.split(", "), row.karsten.split(", ")))
            or "-", row.short]
    csv_text = expected.render("csv")
    assert client.get(f"/jobs/{job.id}/download.csv").text == csv_text
    assert '"command": "curve"' in client.get(f"/jobs/{job.id}/download.json").text
    assert "Karsten 2022, 60-card column" in html and 'id="figure"' not in html
    link = unescape(re.search(r'href="([^"]+)" id="permalink"', html).group(1))
    assert link.startswith("/?analysis=curve")
    again = run_permalink(client, link)
    assert client.get(f"/jobs/{again.id}/download.csv").text == csv_text


@pytest.mark.slow
def test_the_answer_says_what_the_table_says(curve_run):
    _, html = curve_run
    match = ANSWER.fullmatch(answer_of(html))
    assert match, answer_of(html)
    rows = table_rows(html)
    level = [sum(float(cells[column].split()[0]) >= 0.8 for cells in rows.values()
                 if cells[column] != "-") for column in (3, 4)]
    assert [int(match.group(i)) for i in (1, 3)] == level
    assert int(match.group(2)) == int(match.group(4)) == len(rows)
    short = []
    for card, cells in rows.items():  # "B 16 (23)" of a colour short of it: "B 16 of 23"
        if cells[6]:
            parts = [re.sub(r" \((\d+)\)$", r" of \1", part) for part in cells[5].split(", ")
                     if part[0] in cells[6]]
            short.append(f"{card} ({', '.join(parts)})")
    assert short  # the Golgari deck is short of black sources for Agadeem's Awakening
    assert match.group(7) == f"short of Karsten's sources: {', '.join(short)}"
    castable = {card: float(cells[3].split()[0]) for card, cells in rows.items()
                if cells[3] != "-"}
    least = min(castable.values())  # the least castable card, as its table row says
    assert castable[match.group(5)] == least
    assert abs(float(match.group(6)) / 100 - least) <= 0.0005 + 1e-9


def test_the_answer_counts_cards_and_names_the_short_ones():
    rows = pd.DataFrame({
        "card": ["Bear", "Elf", "Angel"], "probability": [0.95, 0.79, 0.5],
        "given_lands": [0.97, 0.85, float("nan")], "sources": ["G 9", "G 9, U 4", "W 16"],
        "karsten": ["G 14", "G 12, U 12", "W 12"], "short": ["G", "GU", ""]})
    assert curve_answer(rows) == (
        "1 of 3 nonland cards is castable on curve at least 80% of the time (2 of 3 given "
        "enough lands); the least is Angel at 50.0%; short of Karsten's sources: Bear (G 9 "
        "of 14), Elf (G 9 of 12, "
        "U 4 of 12).")
    none_short = rows.assign(short="")
    assert curve_answer(none_short, level=0.5) == (
        "3 of 3 nonland cards are castable on curve at least 50% of the time (2 of 3 given "
        "enough lands); the least is Angel at 50.0%; none is short of Karsten's sources.")
    assert curve_answer(rows.iloc[:1]).startswith("1 of 1 nonland card is castable")


def field_error(html: str, name: str) -> str:
    inside = r'(?:(?!<div class="field ).)*?'  # within the field's own box
    match = re.search(r'<div class="field [^"]*invalid">' + inside + f'name="{name}"' + inside
                      + r'<p class="field-error"[^>]*>(.*?)</p>', html, flags=re.S)
    assert match, f"no error beside {name}"
    return unescape(match.group(1))


@pytest.mark.parametrize("fields, name, message", [
    ({"turns": "0"}, "turns", "turns: expected a value from 1 to 50, got 0"),
    ({"policy": "keep if"}, "policy", "policy: "),
    ({"scry_policy": "nonsense ("}, "scry_policy", "scry policy: "),
    ({"mulligan": "paris"}, "mulligan", "mulligan: choose one of"),
    ({"cast_first": "Forest"}, "cast_first", "cast first: 'Forest' is a land, not a spell"),
])
def test_a_bad_curve_option_is_refused_beside_its_field(client, fields, name, message):
    jobs = len(client.app.state.web.jobs._jobs)
    response = client.post("/", data={"action": "run", "analysis": "curve",
                                      "deck": "24 Forest\n36 Grizzly Bears", "trials": "100",
                                      **fields})
    assert response.status_code == 400
    error = field_error(response.text, name)
    assert error.startswith(message) and "\n" not in error and "Traceback" not in response.text
    assert len(client.app.state.web.jobs._jobs) == jobs  # nothing queued


def test_a_deck_without_a_nonland_card_is_refused_beside_the_deck(client):
    response = client.post("/", data={"action": "run", "analysis": "curve",
                                      "deck": "60 Forest", "trials": "100"})
    assert response.status_code == 400
    assert re.search(r'<p class="field-error" id="deck-problems">curve: the deck '
                     r"'pasted deck' has no nonland card</p>", unescape(response.text))


def test_a_curve_runs_cost_counts_the_turns_and_the_runs_it_plays():
    deck = load_deck(DECKS / f"{GOLGARI}.txt")  # Carnage Tyrant: mana value 6; 6 runs
    assert run_cost("curve", {"trials": 10, "turns": None}, [deck]).total == 6 * 60
    assert run_cost("curve", {"trials": 10, "turns": 2}, [deck]).total == 6 * 20
    assert curve_turns(deck) == 6 and curve_turns(deck, 3) == 3
