"""The web page's answers in words and its games to watch (Starlette's test client).

Every tab's sentence is made from the numbers of its own table; the sample game under a
simulate or compare result is :func:`explore_sim.replay`'s log of that run's trial 0; each
value of simulate's distribution links to a game that really took it (read from the replayed
game's own metrics), and ``/replay`` refuses every bad value in one line.
"""

from __future__ import annotations

import re
from html import unescape

import numpy as np
import pandas as pd
import pytest
from conftest import DECKS
from web_helpers import deck_text, job_of, wait_for

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

import explore_sim  # noqa: E402
from explore_sim.web import create_app  # noqa: E402
from explore_sim.web.answers import (  # noqa: E402
    compare_answer,
    distribution_answer,
    explore_answer,
    simulate_answer,
)
from explore_sim.web.app import Settings  # noqa: E402

MERFOLK = deck_text("lci_merfolk_explore.txt")
SIMULATE = {"analysis": "simulate", "deck": MERFOLK, "trials": 300, "seed": 7, "turns": 4,
            "distribution": "counters"}


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(Settings()), raise_server_exceptions=False) as c:
        yield c


def run(client, **fields):
    data = {"action": "run", **{k: str(v) for k, v in fields.items()}}
    job = wait_for(job_of(client, client.post("/", data=data, follow_redirects=False)))
    assert job.state == "done", job.error
    return job, client.get(f"/jobs/{job.id}").text


def answers(html: str) -> list[str]:
    return [unescape(a) for a in re.findall(r'<p class="answer">(.*?)</p>', html, re.S)]


def table(html: str, caption: str) -> dict[str, list[str]]:
    """The table whose caption starts with ``caption``: row header -> cells."""
    found = re.search(r"<caption>" + re.escape(caption) + r".*?</caption>(.*?)</table>", html,
                      re.S)
    assert found, caption
    rows = {}
    for row in re.findall(r'<tr><th scope="row">(.*?)</tr>', found.group(1), re.S):
        name, rest = row.split("</th>", 1)
        rows[unescape(name)] = [unescape(c) for c in re.findall(r"<td>(.*?)</td>", rest)]
    return rows


@pytest.fixture(scope="module")
def simulated(client):
    return run(client, **SIMULATE)


# --------------------------------------------------------------------------- the sentences

def test_simulate_answer_says_the_first_metrics_on_the_last_turn():
    rows = pd.DataFrame({"turn": [4, 4, 4, 3], "metric": ["lands_played", "on_curve",
                                                          "mana_spent", "on_curve"],
                         "mean": [3.4182, 0.6123, 5.25, 0.1], "se": [0.0121, 0.0111, 0.1, 0.0],
                         "ci_low": [3.3951, 0.5901, 5.05, 0.1],
                         "ci_high": [3.4419, 0.6341, 5.45, 0.1]})
    assert simulate_answer(rows, ["lands_played", "on_curve", "mana_spent", "x"], 4) == (
        "On turn 4, the last played, this deck has 3.418 lands in play (se 0.012, 3.395 to "
        "3.442), is on curve in 61.2% of games (se 1.1%, 59.0% to 63.4%) and averages 5.250 "
        "mana_spent (se 0.100, 5.050 to 5.450).")
    assert simulate_answer(rows, ["nothing"], 4) == ""


def test_compare_answer_says_each_difference_and_the_highest_variant():
    diffs = pd.DataFrame({"variant": ["mill"], "metric": ["on_curve"], "mean": [0.096],
                          "se": [0.004], "ci_low": [0.0882], "ci_high": [0.1038]})
    means = pd.DataFrame({"variant": ["keep", "mill"], "metric": ["on_curve"] * 2,
                          "mean": [0.617, 0.713]})
    assert compare_answer(diffs, means, ["keep", "mill"], "on_curve", 5) == (
        "mill: +0.0960 on_curve on turn 5 against keep (se 0.0040, +0.0882 to +0.1038). "
        "Highest on_curve on turn 5: mill, 0.7130.")


def test_explore_and_distribution_answers():
    summary = pd.DataFrame({"metric": ["counters", "lands_to_hand", "milled"],
                            "mean": [0.6, 0.4, 0.16], "se": [0.01, 0.01, 0.008],
                            "ci_low": [0.58, 0.38, 0.144], "ci_high": [0.62, 0.42, 0.176]})
    assert explore_answer(summary, {"explores": 2, "drawn": 8}) == (
        "After 8 cards drawn, 2 explores put 0.6000 +1/+1 counters on the explorer (se "
        "0.0100, 0.5800 to 0.6200), 0.4000 lands into hand (se 0.0100, 0.3800 to 0.4200) and "
        "mill 0.1600 cards (se 0.0080, 0.1440 to 0.1760).")
    one = explore_answer(summary, {"explores": 1, "drawn": 8, "explorer": "Cenote Scout"})
    assert one.startswith("After 8 cards drawn, 1 explore puts 0.6000 +1/+1 counters on "
                          "Cenote Scout (se 0.0100")
    assert "and mills 0.1600 cards" in one
    rows = pd.DataFrame({"value": [0, 1, 2], "count": [10, 60, 30],
                         "probability": [0.1, 0.6, 0.3], "se": [0.03, 0.049, 0.046]})
    assert distribution_answer(rows, "counters", 4) == (
        "On turn 4, counters is most often 1 (60.0% of games, se 4.9%); it is 0 in 10.0% of "
        "games.")
    never = rows.assign(count=[0, 70, 30], probability=[0.0, 0.7, 0.3])
    assert distribution_answer(never, "counters", 4).endswith("; it is never 0.")
    rare = pd.DataFrame({"value": [0, 6], "count": [1, 4999],
                         "probability": [0.0002, 0.9998], "se": [0.0002, 0.0002]})
    assert distribution_answer(rare, "lands_played", 6).endswith(
        "; it is 0 in under 0.1% of games.")


@pytest.mark.slow
def test_the_simulate_sentence_has_the_tables_numbers(simulated):
    job, html = simulated
    sentence = answers(html)[0]
    means = table(html, "simulate: 4 turns")
    intervals = table(html, "95% intervals")
    lands = re.search(r"has (\S+) lands in play \(se (\S+), (\S+) to (\S+)\)", sentence)
    assert lands, sentence
    assert f"{lands[1]} ({lands[2]})" == means["lands_played"][-1]  # turn 4: the last column
    assert f"{lands[3]} to {lands[4]}" == intervals["lands_played"][-1]
    curve = re.search(r"on curve in (\S+)% of games \(se (\S+)%", sentence)
    mean, se = (float(x) for x in re.match(r"(\S+) \((\S+)\)", means["on_curve"][-1]).groups())
    assert abs(float(curve[1]) - 100 * mean) <= 0.05 + 1e-9
    assert abs(float(curve[2]) - 100 * se) <= 0.05 + 1e-9


@pytest.mark.slow
def test_every_value_of_the_distribution_links_to_a_game_that_took_it(client, simulated):
    job, html = simulated
    result = job.outcome["result"]
    frame = result.distribution("counters", 4)
    shown = table(html, "distribution of counters on turn 4")
    assert [int(v) for v in shown] == [int(v) for v in frame["value"]]
    links = re.findall(r'href="(/replay\?job=[^"]+)">show me a game', html)
    assert len(links) == int((frame["count"] > 0).sum())
    for link in links:
        value = int(re.search(r"value=(\d+)", link)[1])
        page = client.get(unescape(link))
        assert page.status_code == 200, page.text
        trial = int(re.search(r"<h2>Trial (\d+) of this run", page.text)[1])
        game = explore_sim.replay(DECKS / "lci_merfolk_explore.txt", trial=trial, seed=7,
                                  turns=4, trials=300)
        assert game.metrics.loc[4, "counters"] == value  # the game is in its bucket
        assert re.search(r'<span id="seen">(\d+)</span>', page.text)[1] == str(value)
        assert unescape(re.search(r'<pre class="replay-log" id="replay-log">(.*?)</pre>',
                                  page.text, re.S)[1]) == game.text()


@pytest.mark.slow
def test_the_sample_game_is_the_runs_trial_0(client, simulated):
    job, html = simulated
    log = unescape(re.search(r'<details class="sample" id="sample-game">.*?'
                             r'<pre class="replay-log">(.*?)</pre>', html, re.S)[1])
    game = explore_sim.replay(DECKS / "lci_merfolk_explore.txt", trial=0, seed=7, turns=4,
                              trials=300)
    assert log == game.text()
    other = client.get(f"/replay?job={job.id}&trial=299")
    assert other.status_code == 200 and "Trial 299 of this run" in other.text
    assert "next trial" not in other.text  # the last trial of the run


@pytest.mark.slow
def test_comparisons_games_are_each_variants_games_on_the_same_shuffles(client):
    job, html = run(client, analysis="compare", deck=MERFOLK, trials=12, seed=3, turns=4,
                    policies="keep\nmill")
    result = job.outcome["result"]
    rows = result.summary().set_index(["variant", "turn", "metric"])["mean"]
    for index, policy in enumerate(["keep", "mill"]):  # the replays average to its numbers
        games = [explore_sim.replay(DECKS / "lci_merfolk_explore.txt", trial=k, seed=3,
                                    turns=4, trials=12, policy=policy) for k in range(12)]
        for name in ("on_curve", "counters", "milled"):
            mean = np.mean([g.metrics.loc[4, name] for g in games])
            assert mean == pytest.approx(rows[(policy, 4, name)], abs=1e-12), (policy, name)
        page = client.get(f"/replay?job={job.id}&variant={index}&trial=5")
        assert f"Trial 5 of this run: {policy}" in page.text
        assert unescape(re.search(r'id="replay-log">(.*?)</pre>', page.text, re.S)[1]) == \
            games[5].text()
    assert "<h3>keep</h3>" in html and "<h3>mill</h3>" in html
    assert answers(html)[0].startswith("mill: ")


# --------------------------------------------------------------------------- /replay's errors

@pytest.mark.parametrize("query, status, message", [
    ("", 404, "job: this run is not kept any more"),
    ("job=nope", 404, "job: this run is not kept any more"),
    ("{job}&trial=x", 400, "trial: expected a whole number, got &#39;x&#39;"),
    ("{job}&trial=300", 400, "trial: expected a whole number from 0 to 299, got 300"),
    ("{job}&trial=-1", 400, "trial: expected a whole number from 0 to 299, got -1"),
    ("{job}&variant=1", 400, "variant: expected a whole number from 0 to 0, got 1"),
    ("{job}&colour=red", 400, "colour: not an option of /replay"),
    ("{job}&metric=counters&turn=5&value=0", 400, "turn: expected a whole number from 1 to 4"),
    ("{job}&metric=counters&turn=4", 400, "metric: a game of a bucket needs its metric"),
    ("{job}&metric=nope&turn=4&value=0", 400, "metric: metric &#39;nope&#39; is not recorded"),
    ("{job}&metric=counters&turn=4&value=99", 404,
     "no game found: none of the first 300 trials of this run has counters 99 on turn 4"),
])
@pytest.mark.slow
def test_replay_refuses_bad_values_in_one_line(client, simulated, query, status, message):
    job, _ = simulated
    page = client.get("/replay?" + query.format(job=f"job={job.id}"))
    assert page.status_code == status
    text = re.search(r'<p class=error>(.*?)</p>', page.text)[1]
    assert message in text and "\n" not in text and "Traceback" not in page.text


@pytest.mark.slow
def test_runs_without_games_to_watch_say_so(client):
    job, html = run(client, analysis="explore", deck=MERFOLK, trials=200, seed=1)
    assert answers(html)[0].startswith("After 8 cards drawn, 1 explore puts ")
    assert 'id="sample-game"' not in html
    page = client.get(f"/replay?job={job.id}")
    assert page.status_code == 400 and "job: this run has no games to watch" in page.text
    numpy, html = run(client, analysis="simulate", deck=MERFOLK, trials=50, seed=1, turns=2,
                      engine="numpy")
    assert "no game to watch: this run played on the numpy engine" in html
    assert client.get(f"/replay?job={numpy.id}").status_code == 400


@pytest.mark.slow
def test_a_decks_name_in_the_log_is_escaped(client):
    named = "About\nName <script>alert(3)</script>\n\nDeck\n24 Forest\n36 Grizzly Bears\n"
    job, html = run(client, analysis="simulate", deck=named, trials=20, seed=1, turns=2)
    assert "<script>alert(3)" not in html
    assert "deck: &lt;script&gt;alert(3)&lt;/script&gt;" in html
    page = client.get(f"/replay?job={job.id}&trial=3")
    assert "<script>alert(3)" not in page.text and "&lt;script&gt;" in page.text


def test_the_distributions_turn_is_at_most_turns(client):
    page = client.post("/", data={"action": "run", **{k: str(v) for k, v in SIMULATE.items()},
                                  "turn": "5"})
    assert page.status_code == 400
    assert ("turn: the distribution&#39;s turn must be at most turns (4), got 5"
            in page.text)


def test_an_objective_the_choice_cannot_change_is_set_aside():
    from explore_sim.web.analyses import advise_answer

    rows = pd.DataFrame({"objective": ["on_curve@4", "mana_spent@6"],
                         "difference": [0.0, -1.9305], "se": [0.0, 0.0504],
                         "verdict": ["no clear difference", "keep"]})
    assert advise_answer(rows, "Jadelight Spelunker") == (
        "Keep Jadelight Spelunker (on_curve@4 the same either way): mill - keep on_curve@4 "
        "+0.0000 (se 0.0000), mana_spent@6 -1.9305 (se 0.0504).")
    unclear = rows.assign(se=[0.01, 0.0504], difference=[0.001, -1.9305])
    assert advise_answer(unclear, "Jadelight Spelunker").startswith("No single choice for")
