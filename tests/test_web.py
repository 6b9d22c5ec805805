"""The web page over HTTP (Starlette's test client): every analysis gives the command line's
numbers for the same seed, every error path answers clearly, the limits hold, and the server
keeps serving after each of them."""

from __future__ import annotations

import dataclasses
import io
import json
import re
from html import unescape
from urllib.parse import parse_qsl, urlsplit

import pandas as pd
import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")
pytest.importorskip("multipart")

import numba  # noqa: E402,F401  (imported before any page starts its compilation thread)
from conftest import DECKS, ROOT, game_compile_event  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from web_helpers import (  # noqa: E402
    deck_text,
    job_of,
    live_server,
    run_permalink,
    wait_for,
    wait_until,
)

from explore_sim.cli import main  # noqa: E402
from explore_sim.web import Settings, create_app  # noqa: E402
from explore_sim.web.analyses import ANALYSES  # noqa: E402
from explore_sim.web.forms import Field, FieldError, parse_count, query_pairs  # noqa: E402
from explore_sim.web.server import is_loopback, page_url, serve  # noqa: E402

SULTAI = "xln_sultai_explore"
MERFOLK = "lci_merfolk_explore"
BIG = 10**9  # trials of a run that is stopped long before it could end
#: A server that takes runs of BIG trials.
ROOMY = Settings(max_trials=BIG, max_game_turns=10**12)


@pytest.fixture
def client():
    with TestClient(create_app(ROOMY), raise_server_exceptions=False) as c:
        yield c


def run(client, **fields):
    """POST the form; the finished job and the run's page."""
    files = fields.pop("files", None)
    data = {"action": "run", **{k: str(v) for k, v in fields.items()}}
    response = client.post("/", data=data, files=files, follow_redirects=False)
    job = wait_for(job_of(client, response))
    page = client.get(response.headers["location"])
    assert page.status_code == 200
    return job, page


def cli(capsys, *argv) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def cells(html: str, caption: str) -> dict[str, list[str]]:
    """Rows of the page's table whose caption starts with ``caption``: metric -> cells."""
    table = re.search(r"<caption>" + re.escape(caption) + r".*?</caption>(.*?)</table>", html,
                      flags=re.S)
    assert table, f"no table {caption!r}"
    rows = {}
    for row in re.findall(r"<tr><th scope=\"row\">(.*?)</tr>", table.group(1), flags=re.S):
        name, rest = row.split("</th>", 1)
        rows[unescape(name)] = [unescape(c) for c in re.findall(r"<td>(.*?)</td>", rest)]
    return rows


def cli_cells(text: str) -> dict[str, list[str]]:
    """The CLI's ``mean (se)`` table: metric -> cells."""
    rows = {}
    for line in text.splitlines():
        found = re.findall(r"[-+]?\d+\.\d+ \(\d+\.\d+\)", line)
        if found:
            rows[line.split()[0]] = found
    return rows


def permalink(page) -> str:
    match = re.search(r'href="([^"]+)" id="permalink"', page.text)
    assert match, "no permalink"
    return unescape(match.group(1))


def still_serving(client):
    assert client.get("/").status_code == 200


# ------------------------------------------------------------------------------ the page

def test_the_page_offers_every_analysis_with_defaults_and_help(client):
    page = client.get("/")
    assert page.status_code == 200
    for analysis in ANALYSES.values():
        assert f'value="switch:{analysis.name}"' in page.text
    for name in ANALYSES:
        text = client.post("/", data={"action": f"switch:{name}"}).text
        for field in ANALYSES[name].fields:
            assert f'name="{field.name}"' in text, (name, field.name)
            assert unescape(field.help) in unescape(text)
    assert 'name="trials" value="100000"' in page.text
    assert page.headers["content-security-policy"].startswith("default-src 'none'")
    assert "<script>" not in page.text  # scripts only from /static


def test_a_shipped_deck_is_loaded_into_the_text_area(client):
    page = client.get(f"/?shipped={SULTAI}&analysis=simulate")
    assert "4x Jadelight Ranger" in page.text
    assert f'<option value="{SULTAI}" selected>' in page.text
    posted = client.post("/", data={"action": "load:deck", "analysis": "compare",
                                    "shipped": MERFOLK})
    assert "Lost Caverns Merfolk Explore" in posted.text
    assert 'value="switch:compare"' in posted.text and 'class="tab current"' in posted.text
    missing = client.get("/?shipped=../../etc/passwd")
    assert missing.status_code == 400 and "no shipped deck called" in missing.text


@pytest.mark.slow
def test_a_pasted_deck_is_named_by_its_own_text_not_by_the_shipped_deck_chosen(client):
    def deck_name(**fields):
        job, _ = run(client, analysis="explore", trials=200, seed=1, **fields)
        assert job.state == "done"
        return json.loads(client.get(f"/jobs/{job.id}/download.json").text)["meta"]["deck"]

    other = "4 Cenote Scout\n20 Forest\n36 Grizzly Bears\n"
    assert deck_name(deck=other, base="golgari_explore")[0]["name"] == "pasted deck"
    assert deck_name(deck=f"About\nName My Merfolk\n\nDeck\n{other}",
                     base="golgari_explore")[0]["name"] == "My Merfolk"
    shipped = deck_text("lci_limited_gu.txt")  # a shipped deck without a Name, as loaded
    assert deck_name(deck=shipped, base="lci_limited_gu")[0]["name"] == "lci_limited_gu"
    assert deck_name(deck=shipped + "\n")[0]["name"] == "lci_limited_gu"
    assert deck_name(deck=shipped.replace("2 Cenote Scout", "3 Cenote Scout"),
                     base="lci_limited_gu")[0]["name"] == "pasted deck"
    job, _ = run(client, analysis="compare", deck=other, base="golgari_explore",
                 deck2=other.replace("36 Grizzly", "35 Grizzly").replace("4 Cenote", "5 Cenote"),
                 base2="golgari_explore", trials=200, seed=1)
    meta = json.loads(client.get(f"/jobs/{job.id}/download.json").text)["meta"]
    assert [d["name"] for d in meta["deck"]] == ["pasted deck", "pasted deck 2"]


def test_switching_analysis_keeps_the_deck(client):
    page = client.post("/", data={"action": "switch:compare",
                                  "deck": "24 Forest\n36 Grizzly Bears"})
    assert "36 Grizzly Bears" in page.text
    assert 'name="policies"' in page.text and 'name="deck2"' in page.text


def test_each_tab_keeps_its_own_settings(client):
    """A tab's options stay with it: switching away saves them in the form, switching back
    restores them; a tab never opened starts from its defaults, whatever another tab has."""
    from web_helpers import form_fields

    from explore_sim.web.form_state import SAVED_PREFIX

    def switch(to: str, page=None, **typed) -> tuple[dict, str]:
        fields = dict(form_fields(page.text)) if page is not None else {"analysis": "explore"}
        fields.update({k: str(v) for k, v in typed.items()}, action=f"switch:{to}")
        answer = client.post("/", data=fields)
        assert answer.status_code == 200
        return dict(form_fields(answer.text)), answer

    value, page = switch("value", policy="keep", trials="5000", turn="", deck="24 Forest")
    assert value["turn"] == "" and value["policy"] == "forge"  # value's own defaults
    assert value["trials"] != "5000" and value["deck"] == "24 Forest"
    assert f'name="{SAVED_PREFIX}explore"' in page.text
    advise, page = switch("advise", page, trials="777", turns="5")
    assert advise["turn"] == "" and advise["trials"] != "777"  # advise's turn: yours to enter
    explore, page = switch("explore", page)
    assert (explore["policy"], explore["trials"], explore["turn"]) == ("keep", "5000", "")
    value, page = switch("value", page)
    assert (value["trials"], value["turns"]) == ("777", "5")  # as left on the value tab


# ------------------------------------------------------------------------------ same numbers

@pytest.mark.slow
def test_lands_gives_the_command_lines_numbers_and_figure(client, capsys):
    options = dict(counts="21..25", trade="Ravenous Chupacabra\nVraska's Contempt",
                   start="play", max_lands=2, trials=1500, seed=4)
    job, page = run(client, analysis="lands", deck=deck_text("golgari_explore.txt"), **options)
    assert job.state == "done"
    argv = ["lands", str(DECKS / "golgari_explore.txt"), "--counts", "21..25", "--trade",
            "Ravenous Chupacabra, Vraska's Contempt", "--on-play", "--max-lands", "2",
            "--trials", "1500", "--seed", "4"]
    csv_text = cli(capsys, *argv, "--format", "csv")
    assert client.get(f"/jobs/{job.id}/download.csv").text == csv_text
    rows = csv_rows(csv_text)
    shown = cells(page.text, "lands: compounded_mana@7 by land count")
    assert list(shown) == ["21", "22", "23", "24", "25"]
    for row in rows:
        cell = shown[row["lands"]]
        assert cell[1] == f"{float(row['mean']):.3f} ({float(row['se']):.3f})"
        assert cell[0] == ("best" if row["best"] == "True" else
                           "yes" if row["tied"] == "True" else "no")
    answer = unescape(re.search(r'<p class="answer">(.*?)</p>', page.text).group(1))
    best = next(row["lands"] for row in rows if row["best"] == "True")
    assert answer.startswith(f"{best} lands is best by Karsten's compounded mana spent")
    assert client.get(f"/jobs/{job.id}/figure.svg").status_code == 200


def test_bad_lands_options_are_refused_next_to_their_fields(client):
    deck = deck_text("golgari_explore.txt")
    for name, bad, message in [
        ("counts", "23..40", "counts: 40 lands would trade 17 copies of Ravenous Chupacabra"),
        ("counts", "twenty", "counts: expected whole numbers and A..B ranges"),
        ("trade", "Forest", "trade: Forest is a land"),
        ("objective", "compounded@7", "objective"),
    ]:
        page = client.post("/", data={"analysis": "lands", "deck": deck, name: bad})
        assert page.status_code == 400, name
        assert field_error(page.text, name).startswith(message), field_error(page.text, name)
    # A deck without lands is the decklist's fault, not the counts' (left blank).
    page = client.post("/", data={"analysis": "lands", "deck": "60 Grizzly Bears"})
    assert page.status_code == 400
    assert ('<p class="field-error" id="deck-problems">lands: the deck \'pasted deck\' has no '
            "land to add or remove</p>") in unescape(page.text)


@pytest.mark.slow
def test_explore_gives_the_command_lines_numbers(client, capsys):
    options = dict(explores=2, drawn=8, policy="forge", trials=5000, seed=3)
    job, page = run(client, analysis="explore", deck=deck_text(f"{MERFOLK}.txt"), **options)
    assert job.state == "done"
    argv = ["explore", str(DECKS / f"{MERFOLK}.txt"), "--explores", "2", "--drawn", "8", "--policy",
            "forge", "--trials", "5000", "--seed", "3"]
    assert client.get(f"/jobs/{job.id}/download.csv").text == cli(capsys, *argv, "--format",
                                                                     "csv")
    table = cli(capsys, *argv)
    counters = cells(page.text, "explore: 2 explores")["counters"]
    assert re.search(r"counters\s+" + r"\s+".join(counters), table)
    assert "distribution of counters" in page.text
    assert json.loads(client.get(f"/jobs/{job.id}/download.json").text)["meta"]["seed"] == 3


@pytest.mark.slow
def test_an_explorer_that_does_not_explore_by_itself_is_said_to_be_assumed(client):
    deck = "20 Forest\n4 Wildgrowth Walker\n36 Grizzly Bears\n"
    job, page = run(client, analysis="explore", deck=deck, explorer="Wildgrowth Walker",
                    trials=200, seed=1)
    assert job.state == "done"
    assert ("<dt>explores</dt><dd>1 (the card does not explore by itself: one explore "
            "assumed, as from a Map token)</dd>") in page.text
    job, page = run(client, analysis="explore", deck=deck, explorer="Wildgrowth Walker",
                    explores=1, trials=200, seed=1)
    assert "<dt>explores</dt><dd>1</dd>" in page.text and "assumed" not in page.text


@pytest.mark.slow
def test_a_run_without_a_seed_gets_a_fresh_one_and_the_form_stays_blank(client):
    deck = "20 Forest\n40 Grizzly Bears\n"
    seeds = []
    for _ in range(2):
        job, page = run(client, analysis="explore", deck=deck, trials=200, seed="")
        seed = job.context["options"]["seed"]
        seeds.append(seed)
        assert f"<dt>seed</dt><dd>{seed}</dd>" in page.text  # shown with the result
        assert f"seed={seed}" in unescape(page.text)  # and written into the permalink
        field = re.search(r'<input id="f-seed" name="seed" value="([^"]*)"', page.text)
        assert field and field.group(1) == "", "the form keeps its blank seed"
    assert seeds[0] != seeds[1]  # Run again: another sample, as the help says


@pytest.mark.slow
def test_simulate_gives_the_command_lines_numbers(client, capsys):
    job, page = run(client, analysis="simulate", deck=deck_text(f"{SULTAI}.txt"), trials=3000,
                    seed=1)
    assert "the shipped deck xln_sultai_explore" in page.text  # its card file is read
    argv = ["simulate", str(DECKS / f"{SULTAI}.txt"), "--trials", "3000", "--seed", "1"]
    table = cli_cells(cli(capsys, *argv))
    shown = cells(page.text, "simulate: 6 turns")
    assert shown and shown == {m: table[m] for m in shown}
    assert client.get(f"/jobs/{job.id}/download.csv").text == cli(capsys, *argv, "--format",
                                                                     "csv")
    intervals = cells(page.text, "95% intervals")
    assert re.fullmatch(r"\d\.\d{3} to \d\.\d{3}", intervals["on_curve"][-1])


@pytest.mark.slow
def test_simulate_options_reach_the_run(client, capsys):
    options = dict(turns=4, on_draw="1", mulligan="none", removal=0.25, policy="keep",
                   metrics="on_curve,counters,castable:Jadelight Ranger",
                   castable="jadelight ranger", trials=2000, seed=5)
    job, page = run(client, analysis="simulate", deck=deck_text(f"{SULTAI}.txt"), **options)
    argv = ["simulate", str(DECKS / f"{SULTAI}.txt"), "--turns", "4", "--on-draw", "--mulligan",
            "none", "--removal", "0.25", "--policy", "keep", "--castable", "Jadelight Ranger",
            "--metrics", "on_curve,counters,castable:Jadelight Ranger", "--trials", "2000",
            "--seed", "5"]
    assert client.get(f"/jobs/{job.id}/download.csv").text == cli(capsys, *argv, "--format",
                                                                     "csv")
    assert list(cells(page.text, "simulate: 4 turns, on the draw")) == [
        "on_curve", "counters", "castable:Jadelight Ranger"]


@pytest.mark.slow
def test_the_opponents_life_reaches_the_run_as_life_does(client, capsys):
    """The life field is --life: opponent_dead against 7 life, the same numbers as the
    command line's, the run's facts say it, and its errors name the field."""
    options = dict(turns=4, metrics="opponent_dead,damage", trials=1500, seed=3)
    job, page = run(client, analysis="simulate", deck=deck_text(f"{MERFOLK}.txt"), life=7,
                    **options)
    argv = ["simulate", str(DECKS / f"{MERFOLK}.txt"), "--turns", "4", "--metrics",
            "opponent_dead,damage", "--trials", "1500", "--seed", "3"]
    csv = client.get(f"/jobs/{job.id}/download.csv").text
    assert csv == cli(capsys, *argv, "--life", "7", "--format", "csv")
    assert csv != cli(capsys, *argv, "--format", "csv")  # 7 life is not the default 20
    assert "<dt>opponent&#39;s life</dt><dd>7</dd>" in page.text
    _, default = run(client, analysis="simulate", deck=deck_text(f"{MERFOLK}.txt"), **options)
    assert "<dt>opponent&#39;s life</dt><dd>20 (the format&#39;s)</dd>" in default.text
    assert 'name="life" value="0"' in client.post("/", data={"action": "switch:compare"}).text
    for life, message in (("100001", "opponent's life: expected a value from 0 to 100,000, "
                                     "got 100001"),
                          ("many", "opponent's life: expected a whole number (a value from 0 to "
                                   "100,000), got 'many'")):
        refused = client.post("/", data={"analysis": "simulate", "deck": "24 Forest",
                                         "life": life})
        assert refused.status_code == 400 and message in unescape(refused.text), life


@pytest.fixture
def drawn_figures(monkeypatch):
    """The figures the page and ``--plot`` save, kept for inspection."""
    from matplotlib.figure import Figure

    figures = []
    save = Figure.savefig

    def keep(figure, *args, **kwargs):
        figures.append(figure)
        return save(figure, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", keep)
    return figures


def drawing(figure):
    """What a figure shows: its title, its visible panels' titles and their lines' data."""
    panels = [ax for ax in figure.axes if ax.get_visible()]
    title = figure._suptitle.get_text() if figure._suptitle is not None else ""
    return (title, [ax.get_title() for ax in panels],
            [[(list(map(float, line.get_xdata())), list(map(float, line.get_ydata())))
              for line in ax.lines] for ax in panels])


@pytest.mark.parametrize("analysis, fields, argv", [
    ("simulate", {"metrics": "counters, mana_spent", "turns": 3},
     ["simulate", str(DECKS / f"{SULTAI}.txt"), "--metrics", "counters,mana_spent", "--turns",
      "3"]),
    ("compare", {"policies": "keep\nmill", "turns": 3},
     ["compare", str(DECKS / f"{SULTAI}.txt"), "--policy", "keep", "--policy", "mill",
      "--turns", "3"]),
])
@pytest.mark.slow
def test_the_figure_is_the_one_plot_writes(client, capsys, tmp_path, drawn_figures, analysis,
                                           fields, argv):
    job, page = run(client, analysis=analysis, deck=deck_text(f"{SULTAI}.txt"), trials=1000,
                    seed=6, **fields)
    assert client.get(f"/jobs/{job.id}/figure.svg").status_code == 200
    cli(capsys, *argv, "--trials", "1000", "--seed", "6", "--plot", str(tmp_path / "f.svg"))
    on_page, written = (drawing(figure) for figure in drawn_figures)
    assert on_page == written
    if analysis == "simulate":  # the metrics asked for, one panel each
        assert on_page[1] == ["counters", "mana_spent"]
    else:  # blank metrics: the table's, each with its paired differences
        assert len(on_page[1]) == 2 * len(cells(page.text, "compare: 2 variants"))


@pytest.mark.slow
def test_compare_gives_the_command_lines_numbers(client, capsys):
    job, page = run(client, analysis="compare", deck=deck_text(f"{MERFOLK}.txt"),
                    policies="keep\nmill\nforge", turns=4, trials=2000, seed=2)
    argv = ["compare", str(DECKS / f"{MERFOLK}.txt"), "--policy", "keep", "--policy", "mill",
            "--policy", "forge", "--turns", "4", "--trials", "2000", "--seed", "2"]
    assert client.get(f"/jobs/{job.id}/download.csv").text == cli(capsys, *argv, "--format",
                                                                     "csv")
    text = cli(capsys, *argv)
    assert cells(page.text, "compare: 3 variants")["on_curve"] == \
        cli_cells(text.split("paired differences")[0])["on_curve"]
    differences = cells(page.text, "paired differences to keep")["counters"]
    assert all(cell in text for cell in differences)


@pytest.mark.slow
def test_compare_two_decks(client, capsys):
    job, page = run(client, analysis="compare", deck=deck_text(f"{MERFOLK}.txt"),
                    deck2=deck_text("lci_merfolk_vanilla.txt"), policies="forge", trials=2000,
                    seed=4)
    argv = ["compare", str(DECKS / f"{MERFOLK}.txt"), str(DECKS / "lci_merfolk_vanilla.txt"),
            "--trials", "2000", "--seed", "4"]
    assert client.get(f"/jobs/{job.id}/download.csv").text == cli(capsys, *argv, "--format",
                                                                     "csv")
    svg = client.get(f"/jobs/{job.id}/figure.svg")
    assert svg.headers["content-type"].startswith("image/svg+xml")
    assert "#0072b2" in svg.text.lower() and "#d55e00" in svg.text.lower()  # the CLI's palette
    assert svg.headers["content-security-policy"].startswith("default-src 'none'")


@pytest.mark.slow
def test_the_permalink_reproduces_the_run(client):
    job, page = run(client, analysis="simulate", deck=deck_text(f"{SULTAI}.txt"), trials=2000,
                    turns=3)
    link = permalink(page)
    query = dict(parse_qsl(urlsplit(link).query))
    assert query["seed"] == str(job.context["options"]["seed"])  # a fresh seed is recorded
    assert query["run"] == "1" and query["turns"] == "3" and query["base"] == SULTAI
    second = run_permalink(client, link)
    assert second.id != job.id
    first_csv = client.get(f"/jobs/{job.id}/download.csv").text
    assert client.get(f"/jobs/{second.id}/download.csv").text == first_csv
    form = client.get(link.replace("run=1", "x=1"))  # without run: the form, filled in
    assert 'name="turns" value="3"' in form.text


def csv_rows(text: str) -> list[dict[str, str]]:
    import csv

    return list(csv.DictReader(io.StringIO(text)))


def without_deck_source(text: str) -> dict:
    """A JSON download with its decks' ``source`` left out (a path on the command line,
    ``deck`` on the page): everything else must be the same."""
    found = json.loads(text)
    for deck in found["meta"]["deck"]:
        deck.pop("source")
    return found


def field_error(html: str, name: str) -> str:
    """The error shown under the form field ``name`` ("" when there is none)."""
    found = re.search(r'<div class="field [a-z]+( wide)? invalid">\s*<label for="f-' + name +
                      r'">.*?<p class="field-error"[^>]*>(.*?)</p>', html, re.S)
    return unescape(found.group(2)) if found else ""


def test_the_value_answer_says_a_card_that_changes_nothing_changes_nothing():
    from explore_sim.web.analyses import value_answer

    same = ("no difference: on_curve at turn 4 is the same as with the vanilla stand-in in "
            "every game")
    found = pd.DataFrame({
        "card": ["Jadelight Ranger", "Wildgrowth Walker", "Cenote Scout"],
        "copies": [4, 4, 1], "basis": ["on_curve@4"] * 3, "mean": [0.26, 0.0, ""],
        "ci_low": [0.24, 0.0, ""], "ci_high": [0.28, 0.0, ""],
        "note": ["interpolated between 0 and 1 more lands", same, "worth more than all 1 copies"]})
    assert value_answer(found) == (
        "4 Jadelight Ranger are worth 0.26 lands (0.24 to 0.28); 4 Wildgrowth Walker: " + same
        + "; 1 Cenote Scout: worth more than all 1 copies, for on_curve at turn 4.")
    # Cards matched at their own turns (the default basis) each say theirs.
    found["basis"] = ["lands_played@4", "lands_played@4", "lands_played@3"]
    assert value_answer(found.iloc[[0, 2]]) == (
        "4 Jadelight Ranger are worth 0.26 lands (0.24 to 0.28), for lands_played at turn 4; "
        "1 Cenote Scout: worth more than all 1 copies, for lands_played at turn 3.")


@pytest.mark.slow
def test_value_gives_the_command_lines_numbers_and_figure(client, capsys, tmp_path,
                                                          drawn_figures):
    job, page = run(client, analysis="value", deck=deck_text(f"{SULTAI}.txt"),
                    card="Jadelight Ranger", trials=2000, seed=3)
    assert job.state == "done"
    argv = ["value", str(DECKS / f"{SULTAI}.txt"), "--card", "Jadelight Ranger", "--trials",
            "2000", "--seed", "3"]
    csv_text = cli(capsys, *argv, "--format", "csv")
    assert client.get(f"/jobs/{job.id}/download.csv").text == csv_text
    assert json.loads(client.get(f"/jobs/{job.id}/download.json").text)["meta"]["command"] == \
        "value"
    rows = csv_rows(csv_text)
    found = next(r for r in rows if r["metric"] == "land_equivalent")
    shown = cells(page.text, "value: land-equivalents of on_curve")["Jadelight Ranger"]
    assert shown[:6] == ["4", "on_curve@4", *(f"{float(found[k]):.4f}" for k in
                                               ("mean", "se", "ci_low", "ci_high"))]
    # The answer in words, above the table, from the same numbers.
    answer = unescape(re.search(r'<p class="answer">(.*?)</p>', page.text).group(1))
    assert answer == (f"4 Jadelight Ranger are worth {float(found['mean']):.2f} lands "
                      f"({float(found['ci_low']):.2f} to {float(found['ci_high']):.2f}), "
                      "for on_curve at turn 4.")
    differences = cells(page.text, "Jadelight Ranger: explorer deck - vanilla deck")
    intervals = cells(page.text, "Jadelight Ranger: 95% intervals")
    for row in rows:
        if row["metric"] != "land_equivalent":
            turn = int(row["turn"]) - 1
            assert differences[row["metric"]][turn] == \
                f"{float(row['mean']):+.4f} ({float(row['se']):.4f})"
            assert intervals[row["metric"]][turn] == \
                f"{float(row['ci_low']):+.4f} to {float(row['ci_high']):+.4f}"
    assert "on_curve" in cells(page.text, "Jadelight Ranger (4 copies): on_curve at turn 4")
    assert client.get(f"/jobs/{job.id}/figure.svg").status_code == 200
    cli(capsys, *argv, "--plot", str(tmp_path / "value.svg"))
    on_page, written = (drawing(figure) for figure in drawn_figures)
    assert on_page == written and on_page[1][0].startswith("land-equivalent")
    again = run_permalink(client, permalink(page))
    assert client.get(f"/jobs/{again.id}/download.csv").text == csv_text


@pytest.mark.slow
def test_value_options_reach_the_run(client, capsys):
    options = dict(card="Jadelight Ranger\nmerfolk branchwalker", metric="mana_spent", turn=3,
                   turns=4, metrics="counters, on_curve", max_lands=2, policy="keep",
                   on_draw="1", mulligan="none", trials=1500, seed=8)
    job, page = run(client, analysis="value", deck=deck_text(f"{SULTAI}.txt"), **options)
    argv = ["value", str(DECKS / f"{SULTAI}.txt"), "--card", "Jadelight Ranger", "--card",
            "merfolk branchwalker", "--metric", "mana_spent", "--turn", "3", "--turns", "4",
            "--metrics", "counters,on_curve", "--max-lands", "2", "--policy", "keep",
            "--on-draw", "--mulligan", "none", "--trials", "1500", "--seed", "8"]
    assert client.get(f"/jobs/{job.id}/download.csv").text == cli(capsys, *argv, "--format",
                                                                     "csv")
    shown = without_deck_source(client.get(f"/jobs/{job.id}/download.json").text)
    assert shown == without_deck_source(cli(capsys, *argv, "--format", "json"))
    assert shown["meta"]["land_equivalent"]["max_lands"] == 2
    assert list(cells(page.text, "Merfolk Branchwalker: explorer deck - vanilla deck")) == [
        "mana_spent", "counters", "on_curve"]
    query = dict(parse_qsl(urlsplit(permalink(page)).query))
    assert query["card"] == "Jadelight Ranger\nmerfolk branchwalker" and query["max_lands"] == "2"


ADVISE_POSITION = dict(turn=3, battlefield="Forest, Swamp, Woodland Cemetery, Jadelight Ranger",
                       hand="Wildgrowth Walker, Lurking Chupacabra, Path of Discovery",
                       revealed="Tishana's Wayfinder", explores_left=2,
                       objective="on_curve@4,mana_spent@6,counters@6")


@pytest.mark.slow
def test_advise_gives_the_command_lines_numbers(client, capsys):
    job, page = run(client, analysis="advise", deck=deck_text(f"{SULTAI}.txt"), trials=2000,
                    seed=1, **ADVISE_POSITION)
    assert job.state == "done"
    argv = ["advise", str(DECKS / f"{SULTAI}.txt"), "--turn", "3", "--battlefield",
            ADVISE_POSITION["battlefield"], "--hand", ADVISE_POSITION["hand"], "--revealed",
            "Tishana's Wayfinder", "--explores-left", "2", "--objective",
            ADVISE_POSITION["objective"], "--trials", "2000", "--seed", "1"]
    csv_text = cli(capsys, *argv, "--format", "csv")
    assert client.get(f"/jobs/{job.id}/download.csv").text == csv_text
    shown = cells(page.text, "advise: keep or mill Tishana&#39;s Wayfinder")
    for row in csv_rows(csv_text):
        number = {k: float(row[k]) for k in row if k not in ("objective", "verdict")}
        assert shown[row["objective"]] == [
            f"{number['keep']:.4f} ({number['keep_se']:.4f})",
            f"{number['mill']:.4f} ({number['mill_se']:.4f})",
            f"{number['difference']:+.4f} ({number['se']:.4f})",
            f"{number['ci_low']:+.4f} to {number['ci_high']:+.4f}", row["verdict"]]
    rows = csv_rows(csv_text)
    verdicts = {row["verdict"] for row in rows}
    head = ("Mill Tishana's Wayfinder" if verdicts == {"mill"} else "Keep Tishana's Wayfinder"
            if verdicts == {"keep"} else "No single choice for Tishana's Wayfinder")
    differences = ", ".join(f"{r['objective']} {float(r['difference']):+.4f} "
                            f"(se {float(r['se']):.4f})" for r in rows)
    answer = unescape(re.search(r'<p class="answer">(.*?)</p>', page.text).group(1))
    assert answer == f"{head}: mill - keep {differences}."
    assert without_deck_source(client.get(f"/jobs/{job.id}/download.json").text) == \
        without_deck_source(cli(capsys, *argv, "--format", "json"))
    assert "turn 3 on the play, first main phase" in page.text
    assert 'id="figure"' not in page.text and "No figure" not in page.text  # none, as the CLI
    assert client.get(f"/jobs/{job.id}/figure.svg").status_code == 404
    again = run_permalink(client, permalink(page))
    assert client.get(f"/jobs/{again.id}/download.csv").text == csv_text


def test_bad_card_names_of_value_and_advise_are_refused_next_to_their_fields(client):
    deck = deck_text(f"{SULTAI}.txt")
    value = client.post("/", data={"analysis": "value", "deck": deck,
                                   "card": "Jadelight Ranger\nJadelight Rangr"})
    assert value.status_code == 400
    assert field_error(value.text, "card") == ("card: 'Jadelight Rangr' is not in the main deck "
                                               "of xln_sultai_explore (did you mean 'Jadelight "
                                               "Ranger'?)")
    land = client.post("/", data={"analysis": "value", "deck": deck, "card": "Forest"})
    assert field_error(land.text, "card").startswith("card: Forest is a land")
    none = client.post("/", data={"analysis": "value", "deck": "24 Forest\n36 Grizzly Bears"})
    assert field_error(none.text, "card") == ("card: pasted deck has no explore or Map card; "
                                              "name the cards to value")
    for name, bad, message in [
        ("revealed", "Tishanas Wayfindr", "revealed: 'Tishanas Wayfindr' is not in the deck "
                                          "xln_sultai_explore (did you mean \"Tishana's "
                                          "Wayfinder\"?)"),
        ("hand", "Forrest, Swamp", "hand: 'Forrest' is not in the deck xln_sultai_explore "
                                   "(did you mean 'Forest'?)"),
        ("revealed", "Forest", "revealed: Forest is a land: explore puts it into your hand, "
                               "there is nothing to choose"),
        ("revealed", "", "revealed: enter the nonland card the explore revealed"),
    ]:
        response = client.post("/", data={"analysis": "advise", "deck": deck,
                                          **ADVISE_POSITION, name: bad})
        assert response.status_code == 400, name
        assert field_error(response.text, name) == message, name
    too_many = client.post("/", data={"analysis": "advise", "deck": deck,
                                      **ADVISE_POSITION, "hand": "4 Jadelight Ranger"})
    assert too_many.status_code == 400
    assert re.search(r'<p class="banner error" role="alert" id="message">Jadelight Ranger: 5 '
                     r"copies in hand, on the battlefield, in the graveyard and revealed, but "
                     r"the deck has 4</p>", too_many.text)
    early = client.post("/", data={"analysis": "advise", "deck": deck, **ADVISE_POSITION,
                                   "objective": "on_curve@2"})
    assert field_error(early.text, "objective") == ("objectives: 'on_curve@2' looks at turn 2, "
                                                    "before the position's turn 3")
    still_serving(client)


NICANZIL = "Nicanzil, Current Conductor"


@pytest.mark.slow
def test_card_fields_take_names_with_commas_one_a_line_or_comma_separated(client):
    deck = (f"4 {NICANZIL}\n4 Cenote Scout\n4 Jadelight Ranger\n12 Forest\n12 Island\n"
            "24 Grizzly Bears\n")
    job, _ = run(client, analysis="advise", deck=deck, turn=3, revealed="Grizzly Bears",
                 hand=f"{NICANZIL}, Forest\n2 Island", battlefield="Cenote Scout\n2 Forest",
                 graveyard=NICANZIL, trials=200, seed=1)
    where = json.loads(client.get(f"/jobs/{job.id}/download.json").text)["meta"]["position"]
    assert (where["hand"], where["battlefield"], where["graveyard"]) == \
        ([NICANZIL, "Forest", "2 Island"], ["Cenote Scout", "2 Forest"], [NICANZIL])
    job, _ = run(client, analysis="explore", deck=deck, known=f"{NICANZIL}\nForest, Island",
                 trials=200, seed=1)
    meta = json.loads(client.get(f"/jobs/{job.id}/download.json").text)["meta"]
    assert meta["known"] == [NICANZIL, "Forest", "Island"]
    plain = "4 Cenote Scout\n20 Forest\n36 Grizzly Bears\n"
    refused = client.post("/", data={"analysis": "advise", "deck": plain, "turn": "3",
                                     "revealed": "Grizzly Bears", "hand": NICANZIL,
                                     "battlefield": "Cenote Scout, 2 Forest"})
    assert refused.status_code == 400
    assert field_error(refused.text, "hand") == \
        f"hand: '{NICANZIL}' is not in the deck pasted deck"
    value = client.post("/", data={"analysis": "value", "deck": plain,
                                   "card": f"Cenote Scout, {NICANZIL}"})
    assert value.status_code == 400
    assert field_error(value.text, "card") == \
        f"card: '{NICANZIL}' is not in the main deck of pasted deck"


@pytest.mark.slow
def test_cancelling_a_value_run(client):
    response = client.post("/", data={"analysis": "value", "deck": "24 Forest\n35 Grizzly Bears\n"
                                      "1 Jadelight Ranger", "turns": "2", "turn": "2",
                                      "trials": str(BIG), "seed": "1"}, follow_redirects=False)
    job = job_of(client, response)
    wait_until(lambda: job.done > 0)  # a chunk of every variant, so the progress is real
    assert client.get(f"/jobs/{job.id}/status").json()["state"] == "running"
    client.post(f"/jobs/{job.id}/cancel", headers={"accept": "application/json"})
    wait_for(job)
    assert job.state == "cancelled" and 0 < job.done < job.total == BIG
    assert job.outcome is None  # several runs (one per card), none complete: nothing kept
    page = client.get(f"/jobs/{job.id}").text
    assert f"Run cancelled after {job.done:,} of {BIG:,} trials: value is made of several runs" \
        in page and "nothing complete to show" in page and "<table" not in page
    assert client.get(f"/jobs/{job.id}/download.json").status_code == 404
    still_serving(client)


@pytest.mark.slow
def test_a_run_page_without_javascript_reloads_until_done(client):
    response = client.post("/", data={"analysis": "explore", "deck": "24 Forest\n36 Grizzly Bears",
                                      "trials": str(BIG)}, follow_redirects=False)
    job = job_of(client, response)
    page = client.get(response.headers["location"])
    assert '<meta http-equiv="refresh" content="2">' in page.text
    assert 'id="progress"' in page.text and 'id="cancel"' in page.text
    client.post(f"/jobs/{job.id}/cancel", follow_redirects=False)
    wait_for(job)


# ------------------------------------------------------------------------------ deck errors

def test_unknown_cards_are_listed_by_line_with_suggestions(client):
    deck = "4 Jadelight Rangr\n20 Forest\n4 Cenote Scoot\n32 Grizzly Bears\n"
    response = client.post("/", data={"analysis": "explore", "deck": deck})
    assert response.status_code == 400
    text = unescape(response.text)
    assert 'data-line="1"' in response.text and 'data-line="3"' in response.text
    assert "line 1</a>" in text and "4 Jadelight Rangr" in text
    assert 'data-from="Jadelight Rangr" data-to="Jadelight Ranger"' in text
    assert 'data-to="Cenote Scout"' in text
    assert "add it to a card file" in text
    assert "cards update" not in text  # the command line's fix names files; the page has its own
    assert deck.strip() in text  # the text area keeps what was typed
    still_serving(client)


def test_another_real_card_gets_no_suggestion_button(client):
    deck = "4 Ravenous Chupacabra\n20 Swamp\n36 Grizzly Bears\n"
    response = client.post("/", data={"analysis": "explore", "deck": deck})
    assert response.status_code == 400
    text = unescape(response.text)
    assert "line 1</a>" in text and "4 Ravenous Chupacabra" in text
    assert "data-to=" not in text and "Lurking Chupacabra" not in text
    assert "add it to a card file" in text


def test_a_malformed_line_is_named(client):
    response = client.post("/", data={"analysis": "simulate",
                                      "deck": "24 Forest\nfour Grizzly Bears\n36 Grizzly Bears"})
    assert response.status_code == 400
    assert 'data-line="2"' in response.text
    assert "malformed line" in response.text


@pytest.mark.slow
def test_script_in_a_card_name_is_shown_as_text(client):
    deck = "24 Forest\n1 <script>alert(1)</script>\n35 Grizzly Bears"
    response = client.post("/", data={"analysis": "explore", "deck": deck})
    assert response.status_code == 400
    assert "<script>alert" not in response.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in response.text
    cards = ('[[card]]\nname = "<script>alert(2)</script>"\ntype_line = "Creature"\n'
             'mana_cost = "{G}"\n')
    named = "About\nName <script>alert(3)</script>\n\nDeck\n24 Forest\n36 Grizzly Bears\n"
    job, page = run(client, analysis="simulate", deck=named, cards_text=cards, trials=200,
                    turns=2, seed=1)
    assert job.state == "done"
    assert "<script>alert" not in page.text
    assert "&lt;script&gt;alert(3)&lt;/script&gt;" in page.text
    fragment = client.get(f"/jobs/{job.id}/result").text
    assert "<script>alert" not in fragment and "&lt;script&gt;" in fragment


def test_an_empty_deck_and_an_oversized_deck_are_refused(client):
    empty = client.post("/", data={"analysis": "explore", "deck": "  "})
    assert empty.status_code == 400 and "paste a decklist" in empty.text
    huge = "// " + "x" * 900 + "\n"
    response = client.post("/", data={"analysis": "explore", "deck": huge * 1200})
    assert response.status_code == 400
    assert "too large for a decklist" in response.text
    still_serving(client)


# ------------------------------------------------------------------------------ card files

@pytest.mark.slow
def test_an_uploaded_card_file_is_read(client):
    deck = deck_text(f"{SULTAI}.txt").replace("4x Jadelight Ranger", "4x Jadelight Ranger\n")
    cards = (DECKS / f"{SULTAI}.cards.toml").read_bytes()
    job, page = run(client, analysis="simulate", deck=deck, trials=500, seed=1,
                    files={"cards_file": (f"{SULTAI}.cards.toml", cards, "application/toml")})
    assert job.state == "done"
    assert "Woodland Cemetery" in page.text  # the card file is kept in the form


def test_a_bad_card_file_names_its_line_not_a_directory(client):
    bad = '[[card]]\nname = "Homebrew"\ntype_line = "Creature"\nexplores = "two"\n'
    response = client.post("/", data={"analysis": "explore", "deck": "24 Forest\n36 Homebrew"},
                           files={"cards_file": ("brew.toml", bad.encode(), "text/plain")})
    assert response.status_code == 400
    text = unescape(response.text)
    assert "brew.toml:1:" in text and "explores must be a number" in text
    assert "/tmp" not in text and "explore-sim-cards-" not in text
    wrong = client.post("/", data={"analysis": "explore", "deck": "24 Forest"},
                        files={"cards_file": ("brew.py", b"import os", "text/x-python")})
    assert wrong.status_code == 400 and "ends in .toml or .csv" in wrong.text
    binary = client.post("/", data={"analysis": "explore", "deck": "24 Forest"},
                         files={"cards_file": ("brew.toml", b"\xff\xfe\x00", "text/plain")})
    assert binary.status_code == 400 and "not UTF-8" in binary.text
    still_serving(client)


#: Two card files that both define "Homebrew Thing": a land in the first, a creature in the
#: second.
THING_LAND = b'[[card]]\nname = "Homebrew Thing"\ntype_line = "Land"\nproduces = "G"\n'
THING_BEAR = (b'[[card]]\nname = "Homebrew Thing"\ntype_line = "Creature - Bear"\n'
              b'mana_cost = "{1}{G}"\n[[card]]\nname = "Homebrew Bear"\n'
              b'type_line = "Creature - Bear"\nmana_cost = "{1}{G}"\n')
THING_DECK = "20 Forest\n4 Homebrew Thing\n36 Homebrew Bear\n"


@pytest.mark.slow
def test_several_card_files_are_one_source_the_first_definition_wins(client, tmp_path,
                                                                      capsys):
    """Two uploads are read in order, as two --cards options are: the first file's card is
    played, and the page says which card both define."""
    files = [("cards_file", ("land.toml", THING_LAND, "text/plain")),
             ("cards_file", ("bear.toml", THING_BEAR, "text/plain"))]
    job, page = run(client, analysis="explore", deck=THING_DECK, trials=200, seed=1,
                    files=files)
    assert job.state == "done"
    meta = client.get(f"/jobs/{job.id}/download.json").json()["meta"]
    (tmp_path / "land.toml").write_bytes(THING_LAND)
    (tmp_path / "bear.toml").write_bytes(THING_BEAR)
    (tmp_path / "deck.txt").write_text(THING_DECK)
    cli_meta = json.loads(cli(capsys, "explore", str(tmp_path / "deck.txt"), "--cards",
                              str(tmp_path / "land.toml"), "--cards", str(tmp_path / "bear.toml"),
                              "--trials", "200", "--seed", "1", "--format", "json"))["meta"]
    assert meta["deck"][0]["lands"] == cli_meta["deck"][0]["lands"] == 24
    text = unescape(page.text)
    assert "card 'Homebrew Thing' is defined in card files 'land.toml' and 'bear.toml': the " \
        "first one's is used" in text
    assert "also read, after the one above: bear.toml" in text  # kept in the form
    again = run_permalink(client, permalink(page))
    assert again.state == "done"  # the permalink carries both files
    assert client.get(f"/jobs/{again.id}/download.json").json()["meta"]["deck"] == meta["deck"]
    swapped, _ = run(client, analysis="explore", deck=THING_DECK, trials=200, seed=1,
                     files=files[::-1])
    assert client.get(f"/jobs/{swapped.id}/download.json").json()["meta"]["deck"][0][
        "lands"] == 20


def test_several_card_files_are_each_checked_and_capped(client):
    good = ("cards_file", ("land.toml", THING_LAND, "text/plain"))
    for bad, message in ((("bear.py", b"x = 1", "text/plain"),
                          "card file 'bear.py': a card file ends in .toml or .csv"),
                         (("bear.csv", b"\xff\xfe", "text/plain"),
                          "card file 'bear.csv': not UTF-8 text (byte 0)"),
                         (("bear.toml", b"[[card]]\nname = 3\n", "text/plain"), "bear.toml:")):
        refused = client.post("/", data={"analysis": "explore", "deck": THING_DECK},
                              files=[good, ("cards_file", bad)])
        assert refused.status_code == 400 and message in unescape(refused.text), bad[0]
    many = [("cards_file", (f"c{i}.toml", THING_LAND, "text/plain")) for i in range(9)]
    refused = client.post("/", data={"analysis": "explore", "deck": THING_DECK}, files=many)
    assert refused.status_code == 400
    assert "card files: at most 8 at once on this page, got 9" in refused.text
    assert 'name="cards_file" accept=".toml,.csv" multiple' in client.get("/").text
    still_serving(client)


# ------------------------------------------------------------------------------ option errors

def test_a_bad_policy_expression_is_refused_next_to_its_field(client):
    for policy in ("nonland and and", "__import__('os').system('true')", "open('x')"):
        response = client.post("/", data={"analysis": "simulate",
                                          "deck": deck_text(f"{SULTAI}.txt"), "policy": policy})
        assert response.status_code == 400, policy
        error = re.search(r'<div class="field text invalid">.*?name="policy".*?'
                          r'<p class="field-error"[^>]*>(.*?)</p>', response.text, re.S)
        assert error and error.group(1).startswith("policy: "), policy
    compare = client.post("/", data={"analysis": "compare", "deck": deck_text(f"{SULTAI}.txt"),
                                     "policies": "keep\nmill and"})
    assert compare.status_code == 400 and "policies: &#39;mill and&#39;" in compare.text
    still_serving(client)


def test_a_refused_form_lists_its_problems_at_its_top_with_links_to_them(client):
    refused = client.post("/", data={"analysis": "explore", "trials": "-5", "seed": "x",
                                     "deck": "4 Jadelite Ranger\nabc Forest\n20 Forest\n"})
    assert refused.status_code == 400
    page = unescape(refused.text)
    summary = re.search(r'<div class="error-summary" id="error-summary" role="alert" '
                        r'tabindex="-1">(.*?)</div>', page, re.S)
    assert summary, "no summary of the problems"
    assert page.index('id="error-summary"') < page.index('name="deck"')  # above the fields
    links = re.findall(r'<li><a href="(#[\w-]+)">(.*?)</a></li>', summary.group(1))
    assert "3 problems to fix before a run:" in summary.group(1)
    assert links == [
        ("#deck-problems", "Decklist: 1 problem reading it"),
        ("#f-trials", "trials: expected a whole number (at least 2), got '-5'"),
        ("#f-seed", "seed: expected a whole number (at least 0), got 'x'")], links
    for name in ("trials", "seed"):  # each link leads to its field, which says it is wrong
        field = re.search(rf'<input id="f-{name}" name="{name}"[^>]*>', page, re.S).group(0)
        assert 'aria-invalid="true"' in field and f'aria-describedby="e-{name}"' in field
        assert f'<p class="field-error" id="e-{name}">{name}: expected' in page
    assert 'id="deck-problems"' in page
    assert 'No run started: <a href="#error-summary">the form has 3 problems</a>' in page
    clean = client.post("/", data={"analysis": "explore", "action": "switch:simulate"})
    assert "error-summary" not in clean.text and "aria-invalid" not in clean.text


@pytest.mark.parametrize("deck, hint", [
    ("4 Jadelight Rangr\n20 Forest\n", "Fix: correct the line (a suggestion button does it "
     "for you), or, for a card the built-in catalog does not know, add it to a card file (TOML "
     "or CSV) below."),
    ("4 Jadelite Ranger\n20 Forest\n", "Fix: correct the line, or, for a card the built-in "
     "catalog does not know, add it to a card file (TOML or CSV) below."),
    ("abc Forest\n20 Forest\n", "Fix: correct the line."),
    ("", None),  # nothing to correct on a line: no hint
])
def test_the_deck_problems_hint_offers_only_the_fixes_that_apply(client, deck, hint):
    refused = client.post("/", data={"analysis": "explore", "deck": deck, "action": "run"})
    assert refused.status_code == 400
    box = re.search(r'<div class="problems" id="deck-problems">(.*?)</div>',
                    refused.text, re.S)
    found = re.search(r'<p class="hint">(.*?)</p>', box.group(1), re.S) if box else None
    if hint is None:
        assert found is None
    else:
        assert found and " ".join(found.group(1).split()) == hint


def test_option_errors_are_named(client):
    deck = deck_text(f"{SULTAI}.txt")
    cases = [
        ({"analysis": "simulate", "turns": "0"}, "turns: expected a value from 1 to 50"),
        ({"analysis": "simulate", "turns": "six"}, "turns: expected a whole number"),
        ({"analysis": "simulate", "removal": "2"}, "removal: expected a value from 0 to 1"),
        ({"analysis": "simulate", "mulligan": "paris"}, "mulligan: choose one of"),
        ({"analysis": "simulate", "metrics": "on_curv"}, "did you mean"),
        ({"analysis": "simulate", "castable": "Jadelite Ranger"}, "castable: unknown card"),
        ({"analysis": "compare", "policies": "forge"}, "compare needs two variants"),
        ({"analysis": "compare", "policies": "\n".join(["keep", "mill", "forge"] * 3)},
         "at most 8"),
        ({"analysis": "explore", "seed": "-1"}, "seed: expected a whole number"),
        ({"analysis": "nonsense"}, "unknown analysis"),
    ]
    for fields, message in cases:
        response = client.post("/", data={"deck": deck, **fields})
        assert response.status_code == 400, fields
        assert message in unescape(response.text), (fields, message)
    still_serving(client)


@pytest.mark.slow
def test_trials_over_the_cap_are_refused():
    with TestClient(create_app(Settings(max_trials=10_000))) as small:
        response = small.post("/", data={"analysis": "explore",
                                         "deck": "24 Forest\n36 Grizzly Bears", "trials": "10001"})
        assert response.status_code == 400
        assert "trials: at most 10,000 per run on this server, got 10,001" in response.text
        assert "at most 10,000 here" in small.get("/").text
        ok = small.post("/", data={"analysis": "explore", "deck": "24 Forest\n36 Grizzly Bears",
                                   "trials": "10000"}, follow_redirects=False)
        wait_for(job_of(small, ok))


@pytest.mark.slow
def test_a_run_that_fails_says_why(client, monkeypatch):
    from explore_sim.errors import OptionError

    def refused(decks, options, progress):
        raise OptionError(f"drawn: {DECKS}/x.cards.toml says no")

    monkeypatch.setitem(ANALYSES, "explore", dataclasses.replace(ANALYSES["explore"],
                                                                 run=refused))
    job, page = run(client, analysis="explore", deck="24 Forest\n36 Grizzly Bears", trials=100)
    assert job.state == "failed"
    assert "The run stopped: drawn: decks/x.cards.toml says no" in page.text  # path shortened


@pytest.mark.slow
def test_an_unexpected_error_never_shows_a_traceback(client, monkeypatch):
    def broken(decks, options, progress):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setitem(ANALYSES, "explore", dataclasses.replace(ANALYSES["explore"], run=broken))
    job, page = run(client, analysis="explore", deck="24 Forest\n36 Grizzly Bears", trials=100)
    assert job.state == "failed"
    assert "the run failed unexpectedly; the server&#39;s log has the details" in page.text
    assert "Traceback" not in page.text and "ZeroDivisionError" not in page.text
    assert "ZeroDivisionError" not in client.get(f"/jobs/{job.id}/status").text

    import explore_sim.web.app as web_app

    def explode(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(web_app, "parse_fields", explode)
    response = client.post("/", data={"analysis": "simulate", "deck": "24 Forest"})
    assert response.status_code == 500
    assert "Something went wrong" in response.text and "Traceback" not in response.text
    assert "RuntimeError" not in response.text  # not even the exception's name
    monkeypatch.undo()
    still_serving(client)


@pytest.mark.slow
def test_unknown_runs_and_downloads_are_404(client):
    for path in ("/jobs/nope", "/jobs/nope/status", "/jobs/nope/figure.svg", "/nowhere"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert "Traceback" not in response.text
    job, _ = run(client, analysis="explore", deck="24 Forest\n36 Grizzly Bears", trials=100)
    assert client.get(f"/jobs/{job.id}/download.exe").status_code == 404


# ------------------------------------------------------------------------------ limits

@pytest.mark.slow
def test_a_two_megabyte_body_is_refused_and_the_server_keeps_serving(client):
    body = b"x" * (2 * 1024 * 1024)
    response = client.post("/", content=body,
                           headers={"content-type": "application/x-www-form-urlencoded"})
    assert response.status_code == 413
    assert "The request is too large (2,097,152 bytes)" in response.text
    assert "decklist of at most 1,048,576 characters" in response.text

    def chunks():  # no Content-Length: the body is counted as it arrives
        for _ in range(32):
            yield b"y" * 65536

    streamed = client.post("/", content=chunks(),
                           headers={"content-type": "application/x-www-form-urlencoded"})
    assert streamed.status_code == 413
    assert "The request is too large; this page accepts at most 1,605,632 bytes" in streamed.text
    still_serving(client)


@pytest.mark.slow
def test_cancelling_a_run(client):
    response = client.post("/", data={"analysis": "explore", "deck": deck_text(f"{MERFOLK}.txt"),
                                      "trials": str(BIG), "seed": "1"}, follow_redirects=False)
    job = job_of(client, response)
    wait_until(lambda: job.done > 0)  # at least one chunk, so the progress is real
    status = client.get(f"/jobs/{job.id}/status").json()
    assert status["state"] == "running" and status["total"] == BIG
    answer = client.post(f"/jobs/{job.id}/cancel", headers={"accept": "application/json"})
    assert answer.status_code == 200
    wait_for(job)
    assert job.state == "cancelled" and job.error == "cancelled" and 0 < job.done < BIG
    page = client.get(f"/jobs/{job.id}")
    assert "Run cancelled after" in page.text and 'id="cancelled"' in page.text
    still_serving(client)


@pytest.mark.slow
def test_a_run_says_when_it_waits_for_the_kernel_to_compile(client):
    """While numba compiles the game kernel (the first run after an install), a running job's
    status, its events and its page say so in place of "Running…"; then they say nothing."""
    from explore_sim.web.app import COMPILING_NOTE

    response = client.post("/", data={"analysis": "explore", "deck": "24 Forest\n36 Grizzly Bears",
                                      "trials": str(BIG), "seed": "1"}, follow_redirects=False)
    job = job_of(client, response)
    wait_for(job, ("running",))
    assert client.get(f"/jobs/{job.id}/status").json()["note"] == ""
    with game_compile_event():
        status = client.get(f"/jobs/{job.id}/status").json()
        assert status["state"] == "running" and status["note"] == COMPILING_NOTE
        page = client.get(f"/jobs/{job.id}").text
        assert f'<p id="progress-text">{COMPILING_NOTE}</p>' in page
    assert client.get(f"/jobs/{job.id}/status").json()["note"] == ""
    assert '<p id="progress-text">Running…</p>' in client.get(f"/jobs/{job.id}").text
    client.post(f"/jobs/{job.id}/cancel", headers={"accept": "application/json"})
    wait_for(job)
    assert job.state == "cancelled" and client.get(f"/jobs/{job.id}/status").json()["note"] == ""


@pytest.mark.slow
def test_a_cancelled_run_shows_the_trials_it_finished(client):
    """The chunks finished before the cancel are the result shown, with its standard errors,
    and they are exactly a run of that many trials with the same seed."""
    deck = deck_text(f"{MERFOLK}.txt")
    response = client.post("/", data={"analysis": "explore", "deck": deck, "trials": str(BIG),
                                      "seed": "7"}, follow_redirects=False)
    job = job_of(client, response)
    wait_until(lambda: job.done > 0)
    client.post(f"/jobs/{job.id}/cancel", headers={"accept": "application/json"})
    wait_for(job)
    done = job.done
    assert job.state == "cancelled" and 0 < done < BIG and done % 65536 == 0
    page = client.get(f"/jobs/{job.id}").text
    assert (f"Run cancelled after {done:,} of {BIG:,} trials; the figures below are from "
            f"those {done:,} trials, with their standard errors") in page
    assert f"{done:,} of {BIG:,} asked (cancelled)" in page  # the run's facts
    partial = cells(page, "explore:")
    assert partial and client.get(f"/jobs/{job.id}/figure.svg").status_code == 200
    cancelled = client.get(f"/jobs/{job.id}/download.json").json()
    assert cancelled["meta"]["trials"] == done and cancelled["meta"]["trials_asked"] == BIG

    full, full_page = run(client, analysis="explore", deck=deck, trials=done, seed=7)
    assert full.state == "done" and "id=\"cancelled\"" not in full_page.text
    assert cells(full_page.text, "explore:") == partial
    same = client.get(f"/jobs/{full.id}/download.json").json()
    assert "trials_asked" not in same["meta"]
    assert same["rows"] == cancelled["rows"]


@pytest.mark.slow
def test_a_full_server_says_it_is_busy():
    settings = dataclasses.replace(ROOMY, max_runs=1, max_queued=1)
    with TestClient(create_app(settings)) as busy:
        data = {"analysis": "explore", "deck": "24 Forest\n36 Grizzly Bears", "trials": str(BIG)}
        first = job_of(busy, busy.post("/", data=data, follow_redirects=False))
        second = job_of(busy, busy.post("/", data=data, follow_redirects=False))
        wait_for(first, ("running",))
        assert second.state == "queued"
        assert busy.get(f"/jobs/{second.id}/status").json()["position"] == 0
        refused = busy.post("/", data=data, follow_redirects=False)
        assert refused.status_code == 503 and refused.headers["retry-after"] == "30"
        assert "the server is busy: 1 run(s) in progress and 1 waiting" in refused.text
        assert "24 Forest" in refused.text  # the form is kept
        busy.post(f"/jobs/{second.id}/cancel")
        assert second.state == "cancelled" and second.done == 0
        assert "before its first chunk of trials finished: nothing finished" in \
            busy.get(f"/jobs/{second.id}").text
        busy.post(f"/jobs/{first.id}/cancel")
        wait_for(first)
        assert first.state == "cancelled"


@pytest.mark.slow
def test_a_run_no_page_watches_is_cancelled():
    with TestClient(create_app(dataclasses.replace(ROOMY, orphan_seconds=0.3))) as quiet:
        response = quiet.post("/", data={"analysis": "explore",
                                         "deck": "24 Forest\n36 Grizzly Bears", "trials": str(BIG)},
                              follow_redirects=False)
        job = wait_for(job_of(quiet, response))  # nobody asks about it
        assert job.state == "cancelled" and "no page was watching" in job.error


@pytest.mark.slow
def test_progress_events_end_with_the_result(client):
    response = client.post("/", data={"analysis": "explore", "deck": "24 Forest\n36 Grizzly Bears",
                                      "trials": "200000", "seed": "1"}, follow_redirects=False)
    job = job_of(client, response)
    with client.stream("GET", f"/jobs/{job.id}/events") as stream:
        events = [line for line in stream.iter_lines() if line.startswith("event:")]
    assert events[-1] == "event: end" and job.state == "done"
    assert job.watchers == 0


def _first_progress(http, job) -> int:
    """Open the run's progress stream, read until a chunk is done, close it (a page that is
    closed or reloaded); returns the trials done then."""
    with http.stream("GET", f"/jobs/{job.id}/events") as stream:
        for line in stream.iter_lines():
            if line.startswith("data:") and json.loads(line[5:])["done"] > 0:
                return json.loads(line[5:])["done"]
    raise AssertionError("the stream ended before a chunk was done")


@pytest.mark.slow
def test_a_reloaded_page_picks_its_run_up_again():
    """The stream closes and opens again (a reload): the run goes on past the reopening
    time, then the cancel button stops it."""
    import httpx

    with live_server(dataclasses.replace(ROOMY, reopen_seconds=0.5)) as (url, app):
        with httpx.Client(base_url=url, timeout=30) as http:
            response = http.post("/", data={"analysis": "explore",
                                            "deck": deck_text(f"{MERFOLK}.txt"),
                                            "trials": str(BIG)})
            job = app.state.web.jobs._jobs[response.headers["location"].rsplit("/", 1)[-1]]
            before = _first_progress(http, job)  # the page reloads here ...
            assert http.get(f"/jobs/{job.id}").status_code == 200
            with http.stream("GET", f"/jobs/{job.id}/events") as stream:  # ... and watches again
                for line in stream.iter_lines():
                    if line.startswith("data:") and json.loads(line[5:])["done"] > 4 * before:
                        break  # chunks went on well past the half second
            assert job.state == "running" and not job.cancel_reason
            assert http.post(f"/jobs/{job.id}/cancel").status_code in (200, 303)
            wait_for(job)
            assert job.state == "cancelled" and job.error == "cancelled"


@pytest.mark.slow
def test_closing_the_page_cancels_its_run():
    import httpx

    with live_server(dataclasses.replace(ROOMY, reopen_seconds=0.5)) as (url, app):
        with httpx.Client(base_url=url, timeout=30) as http:
            response = http.post("/", data={"analysis": "explore",
                                            "deck": deck_text(f"{MERFOLK}.txt"),
                                            "trials": str(BIG)})
            assert response.status_code == 303
            job = app.state.web.jobs._jobs[response.headers["location"].rsplit("/", 1)[-1]]
            _first_progress(http, job)  # the tab closes here
            wait_for(job)
            assert job.state == "cancelled" and job.error == "cancelled: the page was closed"
            assert http.get("/").status_code == 200


def test_a_real_server_refuses_a_streamed_two_megabyte_body_readably():
    """A client that streams its body after ``100 Continue`` (as curl does) reads the 413
    page instead of a reset connection: the server reads the rest before refusing."""
    import socket

    import httpx

    with live_server(Settings()) as (url, app):
        host, port = url.removeprefix("http://").split(":")
        for _ in range(3):
            with socket.create_connection((host, int(port)), timeout=30) as sock:
                sock.sendall(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked"
                             b"\r\nExpect: 100-continue\r\n"
                             b"Content-Type: application/x-www-form-urlencoded\r\n\r\n")
                assert sock.recv(1000).startswith(b"HTTP/1.1 100 Continue")
                chunk = b"y" * 65536
                for _ in range(32):
                    sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sock.sendall(b"0\r\n\r\n")
                answer = b""
                while b"</html>" not in answer:
                    data = sock.recv(65536)
                    if not data:
                        break
                    answer += data
            assert answer.startswith(b"HTTP/1.1 413")
            assert b"The request is too large; this page accepts at most" in answer
        assert httpx.get(url + "/", timeout=30).status_code == 200


def test_a_loopback_server_refuses_other_host_names():
    settings = Settings(allowed_hosts=("127.0.0.1", "localhost"))
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as local:
        assert local.get("/").status_code == 200
        assert local.get("/", headers={"host": "attacker.example"}).status_code == 400


# ------------------------------------------------------------------------------ serving

def test_serve_binds_loopback_and_warns_for_other_addresses(monkeypatch):
    import uvicorn

    runs = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: runs.append(
        (self.config.app, sockets[0].getsockname())))
    out = io.StringIO()
    serve("127.0.0.1", 0, stream=out)
    app, (host, port) = runs[-1]
    assert host == "127.0.0.1" and port > 0
    assert "warning" not in out.getvalue() and f"http://127.0.0.1:{port}/" in out.getvalue()
    assert app.state.web.settings.allowed_hosts == ("127.0.0.1", "localhost", "[::1]")
    out = io.StringIO()
    serve("0.0.0.0", 0, stream=out)
    assert "warning: --host 0.0.0.0 makes the page reachable from other machines" in out.getvalue()
    assert runs[-1][0].state.web.settings.allowed_hosts is None


def test_serve_command_line_errors(capsys):
    assert main(["serve", "--port", "70000"]) == 2
    assert "expected a port" in capsys.readouterr().err
    assert main(["serve", "--max-trials", "1"]) == 2
    assert "--max-trials" in capsys.readouterr().err
    assert main(["serve", "--decks", "/nonexistent"]) == 2
    assert "not a directory" in capsys.readouterr().err


@pytest.mark.parametrize("host, loopback", [("127.0.0.1", True), ("127.8.0.1", True),
                                            ("::1", True), ("localhost", True),
                                            ("0.0.0.0", False), ("192.168.1.2", False),
                                            ("example.org", False)])
def test_is_loopback(host, loopback):
    assert is_loopback(host) is loopback


def test_page_url():
    assert page_url("0.0.0.0", 8000) == "http://127.0.0.1:8000/"
    assert page_url("::1", 8765) == "http://[::1]:8765/"


# ------------------------------------------------------------------------------ form fields

def test_fields_parse_what_people_type():
    trials = Field("trials", "trials", "int", 100_000, "", low=2)
    assert trials.parse("200,000") == trials.parse("2e5") == trials.parse("200_000") == 200_000
    assert trials.parse(None) == 100_000
    for bad, message in (("1", "at least 2"), ("lots", "whole number"), ("", "enter a number")):
        with pytest.raises(FieldError, match=message):
            trials.parse(bad)
    assert parse_count("1.5") is None
    flag = Field("on_draw", "on the draw", "flag", False, "")
    assert flag.parse("1") is True and flag.parse(None) is False
    lines = Field("policies", "policies", "lines", ["forge"], "")
    assert lines.parse("keep\n\n mill \n") == ["keep", "mill"]
    with pytest.raises(FieldError, match="at most 20 lines"):
        lines.parse("keep\n" * 21)


@pytest.mark.parametrize("name", list(ANALYSES))
def test_every_field_reads_back_its_own_query_text(name):
    analysis = ANALYSES[name]
    for field in analysis.fields:
        for value in [field.default, *field.choices[-1:]]:
            text = field.to_query(value)
            assert field.parse(text) == (value if text is not None else field.default)
    values = {f.name: f.default for f in analysis.fields} | {"seed": 7}
    assert dict(query_pairs(analysis.fields, values)) == {"trials": "100000", "seed": "7"}



def test_the_docs_describe_the_page_as_it_is(capsys):
    section = (ROOT / "docs" / "guide" / "serve.md").read_text(encoding="utf-8")
    limits = (ROOT / "docs" / "guide" / "assumptions.md").read_text(encoding="utf-8")
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    usage = capsys.readouterr().out
    for option in set(re.findall(r"`(--[a-z-]+)", section)) - {"--plot", "--format"}:
        assert option in usage, option
    picture = ROOT / "docs" / "figures" / "web_page.png"
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "../figures/web_page.png" in section
    assert f"{Settings().max_body:,} bytes" in limits
    assert "explore-sim serve --port 8765" in section


def test_a_deck_with_unknown_cards_offers_a_card_file_template_to_download(client):
    """The problems of a deck with unknown cards end in a button that downloads the
    ``cards template`` skeleton of the cards still unknown (a pasted card file's are known)."""
    deck = "20 Forest\n4 Mysterious Merfolk\n4 Other Newcomer\n32 Grizzly Bears"
    page = client.post("/", data={"action": "run", "analysis": "explore", "deck": deck,
                                  "explorer": "Grizzly Bears"})
    assert page.status_code == 400
    assert 'name="action" value="template:deck"' in page.text
    pasted = '[[card]]\nname = "Other Newcomer"\ntype_line = "Creature — Elf"\nmana_cost = "{G}"\n'
    got = client.post("/", data={"action": "template:deck", "deck": deck, "cards_text": pasted,
                                 "cards_format": "toml"})
    assert got.status_code == 200
    assert got.headers["content-disposition"] == 'attachment; filename="cards.toml"'
    assert got.text.startswith("# Card file for") and 'name = "Mysterious Merfolk"' in got.text
    assert "Other Newcomer" not in got.text
    known = client.post("/", data={"action": "template:deck",
                                   "deck": "24 Forest\n36 Grizzly Bears"})
    assert known.status_code == 200 and "no card file is needed" in known.text
    bad = client.post("/", data={"action": "template:deck", "deck": "4 Forest\nfour Forest"})
    assert bad.status_code == 400 and len(bad.text.strip().splitlines()) == 1
    assert 'value="template:deck"' not in client.get("/").text
