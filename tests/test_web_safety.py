"""The web page against other sites and broken requests: every answer carries the security
headers (the 500 page, the host check's 400 and the server's own answers to malformed
requests included) and never an exception's name, and no other site's page can start or stop
a run, by a POST or by a link."""

from __future__ import annotations

import dataclasses
import os
import socket
import threading
import urllib.request
from html import unescape

import pytest

pytest.importorskip("starlette")
pytest.importorskip("multipart")

from starlette.testclient import TestClient  # noqa: E402
from web_helpers import (  # noqa: E402
    DEADLINE,
    deck_text,
    form_fields,
    job_of,
    live_server,
    wait_for,
    wait_until,
)

from explore_sim.web import Settings, create_app  # noqa: E402

DECK = "24 Forest\n36 Grizzly Bears"
RUN = {"action": "run", "analysis": "explore", "deck": DECK, "trials": "2000", "seed": "1"}
HEADERS = {
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
                               "img-src 'self'; connect-src 'self'; form-action 'self'; "
                               "base-uri 'none'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
}
EVIL = "http://evil.example"


def assert_secured(headers, what: str) -> None:
    for name, value in HEADERS.items():
        assert headers.get(name) == value, (what, name, headers.get(name))


def raw_request(url: str, data: bytes, read_all: bool = True) -> bytes:
    """Send bytes to the live server; everything it answers until it closes."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=DEADLINE) as sock:
        sock.sendall(data)
        answer = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return answer
            answer += chunk
            if not read_all and b"</html>" in answer:
                return answer


def raw_headers(answer: bytes) -> dict[str, str]:
    head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")[1:]
    return {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in head)}


@pytest.fixture
def client():
    app = create_app(Settings(allowed_hosts=("testserver", "127.0.0.1")))
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


# ------------------------------------------------------------------------------ headers

def test_every_answer_carries_the_security_headers(client, monkeypatch):
    answers = {
        "page": client.get("/"),
        "static": client.get("/static/app.js"),
        "404": client.get("/nowhere"),
        "405": client.put("/"),
        "413": client.post("/", content=b"x" * (3 << 20),
                           headers={"content-type": "application/x-www-form-urlencoded"}),
        "host check": client.get("/", headers={"host": "attacker.example"}),
        "403": client.post("/", data=RUN, headers={"origin": EVIL}),
    }
    import explore_sim.web.app as web_app

    def explode(*args, **kwargs):
        raise KeyError("secret internals")

    monkeypatch.setattr(web_app, "parse_fields", explode)
    answers["500"] = client.post("/", data=RUN)
    monkeypatch.undo()
    assert answers["500"].status_code == 500 and answers["host check"].status_code == 400
    for what, response in answers.items():
        assert_secured(response.headers, what)
        assert "Traceback" not in response.text and "KeyError" not in response.text, what
    assert "Something went wrong" in answers["500"].text
    assert client.get("/").status_code == 200


def test_the_servers_own_answers_carry_the_headers_and_no_exception_names():
    settings = Settings(max_connections=3)
    with live_server(settings) as (url, app):
        for malformed in (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n",
                          b"BREW /pot HTCPCP/1.0\r\n\r\n",
                          b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: x\r\n\r\n"):
            answer = raw_request(url, malformed)
            assert answer.startswith(b"HTTP/1.1 400 "), answer[:200]
            assert_secured(raw_headers(answer), malformed[:20])
            assert b"Error" not in answer.split(b"\r\n\r\n", 1)[1]  # no exception's name
        host, port = url.removeprefix("http://").split(":")
        idle = [socket.create_connection((host, int(port)), timeout=DEADLINE) for _ in range(3)]
        try:  # three connections open: a fourth's request is answered 503, with a page
            answer = raw_request(url, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert answer.startswith(b"HTTP/1.1 503 "), answer[:200]
            assert_secured(raw_headers(answer), "503")
            assert b"too many connections" in answer
        finally:
            for sock in idle:
                sock.close()
        import httpx

        wait_until(lambda: httpx.get(url + "/", timeout=DEADLINE).status_code == 200)


# ------------------------------------------------------------------------------ other sites

@pytest.mark.parametrize("headers", [
    {"origin": EVIL},
    {"origin": "null"},
    {"origin": "http://testserver:8080"},  # another port is another origin
    {"origin": "https://testserver"},  # another scheme too
    {"sec-fetch-site": "cross-site"},
    {"sec-fetch-site": "same-site"},  # a page of another port of this machine
    {"origin": "http://testserver", "sec-fetch-site": "cross-site"},
])
def test_a_post_from_another_site_starts_no_run(client, headers):
    jobs = client.app.state.web.jobs._jobs
    response = client.post("/", data=RUN, headers=headers, follow_redirects=False)
    assert response.status_code == 403, response.text[:500]
    assert "came from another site" in response.text and not jobs


@pytest.mark.slow
def test_a_post_from_the_page_itself_runs(client):
    for headers in ({"origin": "http://testserver", "sec-fetch-site": "same-origin"},
                    {"origin": "http://testserver"}, {}):  # a client that is no browser
        wait_for(job_of(client, client.post("/", data=RUN, headers=headers,
                                            follow_redirects=False)))


@pytest.mark.slow
def test_another_site_cannot_cancel_a_run():
    settings = Settings(max_trials=10**9, max_game_turns=10**12)
    with TestClient(create_app(settings)) as client:
        data = {**RUN, "trials": str(10**9), "deck": deck_text("lci_merfolk_explore.txt")}
        job = job_of(client, client.post("/", data=data, follow_redirects=False))
        refused = client.post(f"/jobs/{job.id}/cancel", headers={"origin": EVIL})
        assert refused.status_code == 403 and not job.cancel_reason
        client.post(f"/jobs/{job.id}/cancel", headers={"origin": "http://testserver"})
        assert wait_for(job).state == "cancelled"


@pytest.mark.slow
def test_a_permalink_never_starts_a_run_by_itself(client):
    job = wait_for(job_of(client, client.post("/", data=RUN, follow_redirects=False)))
    link = client.app.state.web.view(job)["permalink"]
    assert link.endswith("&run=1")
    jobs = client.app.state.web.jobs._jobs
    for fetch_site in ("cross-site", "same-site", None):  # another site's link, an old browser
        headers = {"sec-fetch-site": fetch_site} if fetch_site else {}
        page = client.get(link, headers=headers, follow_redirects=False)
        assert page.status_code == 200 and list(jobs) == [job.id]
        assert "data-autorun" not in page.text and "press Run to start it" in page.text
        assert dict(form_fields(page.text))["trials"] == "2000"  # the form is filled in
    for fetch_site in ("same-origin", "none"):  # the page's own link, or the user's address
        page = client.get(link, headers={"sec-fetch-site": fetch_site})
        assert 'data-autorun="1"' in page.text and list(jobs) == [job.id]  # the script runs it


@pytest.mark.slow
def test_a_run_from_a_filled_in_permalink_gives_the_same_numbers(client):
    job = wait_for(job_of(client, client.post("/", data=RUN, follow_redirects=False)))
    link = client.app.state.web.view(job)["permalink"]
    page = client.get(link, headers={"sec-fetch-site": "none"})
    again = client.post("/", data=dict(form_fields(page.text)),
                        headers={"origin": "http://testserver", "sec-fetch-site": "same-origin"},
                        follow_redirects=False)
    second = wait_for(job_of(client, again))
    assert second.id != job.id
    assert client.get(f"/jobs/{second.id}/download.csv").text == \
        client.get(f"/jobs/{job.id}/download.csv").text


def test_a_real_server_refuses_another_sites_form():
    import httpx

    settings = dataclasses.replace(Settings(), allowed_hosts=("127.0.0.1",))
    with live_server(settings) as (url, app):
        with httpx.Client(base_url=url, timeout=DEADLINE) as http:
            refused = http.post("/", data=RUN, headers={"origin": EVIL,
                                                        "sec-fetch-site": "cross-site"})
            assert refused.status_code == 403 and not app.state.web.jobs._jobs
            assert_secured(refused.headers, "403")
            ok = http.post("/", data=RUN, headers={"origin": url, "sec-fetch-site": "same-origin"})
            assert ok.status_code == 303


# ------------------------------------------------------------------------------ the decks folder


@pytest.fixture
def decks_dir(tmp_path):
    folder = tmp_path / "decks"
    folder.mkdir()
    (folder / "mine.txt").write_text(DECK + "\n", encoding="utf-8")
    return folder


@pytest.mark.timeout(60)
def test_a_shipped_deck_replaced_by_a_fifo_is_refused_at_request_time(decks_dir):
    """The file was a decklist when the server started; a FIFO with no writer replaces it: a
    request loading it is answered at once, naming what the file is now."""
    with TestClient(create_app(Settings(decks_dir=decks_dir))) as client:
        assert "mine" in client.app.state.web.decks
        (decks_dir / "mine.txt").unlink()
        os.mkfifo(decks_dir / "mine.txt")
        for response in (client.post("/", data={"action": "load:deck", "analysis": "explore",
                                                "shipped": "mine"}),
                         client.get("/", params={"shipped": "mine"})):
            assert response.status_code == 400
            text = unescape(response.text)
            assert "the shipped deck 'mine' cannot be read: " in text
            assert "is a FIFO (named pipe), not a decklist file" in text
        assert client.get("/static/style.css").status_code == 200


@pytest.mark.timeout(120)
def test_a_slow_deck_file_blocks_no_other_request(decks_dir, monkeypatch):
    """A deck file whose read does not end (a slow disk, a network folder) holds its own
    request only: the page and its static files are answered meanwhile."""
    from explore_sim.web.decks import ShippedDeck

    reading, release = threading.Event(), threading.Event()
    real_text = ShippedDeck.text

    def slow_text(self):
        if threading.current_thread() is not threading.main_thread() and not release.is_set():
            reading.set()
            release.wait(DEADLINE)
        return real_text(self)

    with live_server(Settings(decks_dir=decks_dir)) as (url, _):
        monkeypatch.setattr(ShippedDeck, "text", slow_text)
        loaded = []
        loader = threading.Thread(target=lambda: loaded.append(urllib.request.urlopen(
            f"{url}/?shipped=mine", timeout=DEADLINE).status))
        loader.start()
        try:
            assert reading.wait(DEADLINE)
            with urllib.request.urlopen(f"{url}/static/style.css", timeout=30) as answer:
                assert answer.status == 200  # while the deck's read is still under way
            assert not loaded
        finally:
            release.set()
            loader.join(DEADLINE)
        assert loaded == [200]
