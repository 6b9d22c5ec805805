"""The page's form between requests (:mod:`explore_sim.web.form_state`): permalinks for any
deck the page accepts (compressed, else kept on the server under a digest), each deck's
warnings once, and a running job's time elapsed and estimate of the time left."""

from __future__ import annotations

import re
import zlib
from html import unescape

import pytest

pytest.importorskip("starlette")
pytest.importorskip("multipart")

from conftest import DECKS  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from web_helpers import job_of, run_permalink, wait_for  # noqa: E402

from explore_sim.web import Settings, create_app  # noqa: E402
from explore_sim.web.app import MAX_LINK  # noqa: E402
from explore_sim.web.form_state import pack_decks, unpack_decks, unseen_notes  # noqa: E402

HAKBAL = "hakbal_merfolk_commander"


@pytest.fixture
def client():
    with TestClient(create_app(Settings(max_trials=100_000)),
                    raise_server_exceptions=False) as c:
        yield c


def run(client, **fields):
    response = client.post("/", data={"action": "run", **{k: str(v) for k, v in fields.items()}},
                           follow_redirects=False)
    job = wait_for(job_of(client, response))
    return job, client.get(response.headers["location"])


def permalink(page) -> str:
    match = re.search(r'href="([^"]+)" id="permalink"', page.text)
    assert match, "no permalink"
    return unescape(match.group(1))


@pytest.mark.slow
def test_a_commander_deck_with_its_card_file_gets_a_permalink_that_reopens_the_run(client):
    deck = (DECKS / f"{HAKBAL}.txt").read_text(encoding="utf-8")
    cards = (DECKS / f"{HAKBAL}.cards.toml").read_text(encoding="utf-8")
    plain = len(deck) + len(cards)
    assert plain > MAX_LINK  # too long for a link as plain text
    job, page = run(client, analysis="simulate", deck=deck, cards_text=cards, turns=3,
                    trials=2000, seed=5)
    assert job.state == "done"
    link = permalink(page)
    assert len(link) <= MAX_LINK and "z=" in link and "stored=" not in link
    again = run_permalink(client, link)
    assert client.get(f"/jobs/{again.id}/download.csv").text == \
        client.get(f"/jobs/{job.id}/download.csv").text


@pytest.mark.slow
def test_decks_too_long_even_compressed_are_kept_under_their_digest(client):
    deck = (DECKS / f"{HAKBAL}.txt").read_text(encoding="utf-8")
    cards = (DECKS / f"{HAKBAL}.cards.toml").read_text(encoding="utf-8")
    # a card file of made-up cards no compression shrinks enough (random names)
    import random

    rng = random.Random(1)
    extra = "".join(f'\n[[card]]\nname = "{rng.getrandbits(128):x}"\nmana_cost = "{{1}}"\n'
                    f'type_line = "Artifact"\n' for _ in range(300))
    job, page = run(client, analysis="simulate", deck=deck, cards_text=cards + extra, turns=2,
                    trials=1000, seed=2)
    assert job.state == "done", job.error
    link = permalink(page)
    assert "stored=" in link and len(link) < 2000
    again = run_permalink(client, link)
    assert client.get(f"/jobs/{again.id}/download.csv").text == \
        client.get(f"/jobs/{job.id}/download.csv").text
    gone = client.get(re.sub(r"stored=[0-9a-f]+", "stored=" + "0" * 32, link),
                      headers={"sec-fetch-site": "none"})
    assert "were kept by a server that has stopped since" in gone.text
    assert 'data-autorun="1"' not in gone.text


def test_a_packed_link_is_read_within_its_bounds():
    pairs = [("deck", "4 Forest\n36 Grizzly Bears"), ("base", "x"), ("cards_text", "")]
    packed = pack_decks(pairs)
    assert unpack_decks(packed, ["deck", "base", "cards_text"], 1000) == dict(pairs)
    assert unpack_decks(packed, ["deck"], 1000) == {"deck": pairs[0][1]}  # only known keys
    assert unpack_decks(packed, ["deck"], 10) is None  # never inflated past the cap
    assert unpack_decks("not base64 at all!", ["deck"], 1000) is None
    bomb = pack_decks([("deck", "0" * 10**6)])
    assert len(bomb) < 3000 and unpack_decks(bomb, ["deck"], 100_000) is None
    assert unpack_decks(packed[:-8], ["deck"], 1000) is None  # cut short
    assert zlib.decompress(__import__("base64").urlsafe_b64decode(packed + "==")).startswith(
        b"deck=")


def test_each_warning_once_per_deck(client):
    """A pasted MTGO list whose sideboard holds an unknown card warns on its first run only;
    the same deck again (another analysis too) does not repeat it; an edited deck does."""
    deck = "24 Forest\n36 Grizzly Bears\n\nSideboard\n2 Notacard Anywhere\n"
    first, page = run(client, analysis="simulate", deck=deck, turns=2, trials=200, seed=1)
    note = "unknown card left out of the deck"
    assert note in page.text
    fields = dict(re.findall(r'<input type="hidden" name="(seen)" value="([^"]*)">', page.text))
    assert fields["seen"]
    second, page = run(client, analysis="explore", deck=deck, trials=200, seed=1,
                       seen=fields["seen"])
    assert second.state == "done" and note not in page.text
    third, page = run(client, analysis="simulate", deck=deck + "1 Grizzly Bears\n", turns=2,
                      trials=200, seed=1, seen=fields["seen"])
    assert note in page.text  # another deck: said again
    shown, seen = unseen_notes(["a", "a", "b"], ["deck"], "")
    assert shown == ["a", "b"] and unseen_notes(["a", "b"], ["deck "], seen) == ([], seen)


def test_a_running_job_says_its_time_and_an_estimate(client):
    response = client.post("/", data={"action": "run", "analysis": "explore",
                                      "deck": "24 Forest\n36 Grizzly Bears",
                                      "trials": "100000", "seed": "1"},
                           follow_redirects=False)
    job = wait_for(job_of(client, response))
    elapsed, left = job.timing()
    assert elapsed >= 0 and left == 0  # done: nothing left
    status = client.get(f"/jobs/{job.id}/status").json()
    assert status["elapsed"] == elapsed and status["left"] == 0
    job.finished, job.state, job.done = None, "running", 50_000  # halfway, as it was
    job.first_report = (job.started, 10_000)
    page = client.get(f"/jobs/{job.id}")
    assert re.search(r'<p id="progress-time">\d+ s elapsed, about \d+ s left</p>', page.text)
