"""The web page's limits on what a run and a connection may take: a run's game turns, in all
and at once, are capped before it is queued; a cancelled run stops within a chunk; a finished
run gives its memory back; and idle or trickling connections are closed, so that a few
hundred of them cannot hold the server's sockets (a real server on loopback, raw sockets)."""

from __future__ import annotations

import contextlib
import io
import re
import selectors
import socket
import subprocess
import sys
import time
from html import unescape
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("multipart")

from starlette.testclient import TestClient  # noqa: E402
from web_helpers import DEADLINE, deck_text, job_of, live_server, wait_for, wait_until  # noqa: E402

from explore_sim.cli import main  # noqa: E402
from explore_sim.web import Settings, create_app  # noqa: E402
from explore_sim.web.server import serve  # noqa: E402

SULTAI = deck_text("xln_sultai_explore.txt")
VANILLA = deck_text("lci_merfolk_vanilla.txt")
CHUNK = 1 << 16


def field_error(html: str, name: str) -> str:
    match = re.search(rf'name="{name}".*?<p class="field-error"[^>]*>(.*?)</p>', html,
                      flags=re.S)
    assert match, f"no error beside {name}"
    return unescape(match.group(1))


# ------------------------------------------------------------------------------ cost caps

def test_a_run_of_every_card_and_variant_is_refused_beside_trials():
    """value, every explore card, max_lands 60, 50 turns, 1,000,000 trials: each option is
    within its field's bounds, but the run is billions of game turns."""
    with TestClient(create_app(Settings())) as client:
        response = client.post("/", data={"action": "run", "analysis": "value", "deck": SULTAI,
                                          "max_lands": "60", "turns": "50",
                                          "trials": "1000000"}, follow_redirects=False)
        assert response.status_code == 400, response.text[:300]
        message = field_error(response.text, "trials")
        assert message.startswith("trials: this run plays 1,000,000 trials x ")
        assert "deck variants x 50 turns = " in message
        assert "at most 100,000,000 per run on this server: at most " in message
        assert "explore-sim serve --max-game-turns raises the cap" in message
        assert not client.app.state.web.jobs._jobs  # nothing was queued


@pytest.mark.slow
def test_variants_played_at_once_are_capped():
    policies = "\n".join(["keep", "forge", "mill", "xmage"] * 2)
    data = {"action": "run", "analysis": "compare", "deck": SULTAI, "policies": policies,
            "turns": "50", "trials": "100000", "seed": "1"}
    with TestClient(create_app(Settings())) as client:
        response = client.post("/", data=data)
        assert response.status_code == 400
        message = field_error(response.text, "trials")
        assert message.startswith("trials: this run plays 65,536 games of 8 deck variant(s) x "
                                  "50 turns at once")
        assert "at most 8,000,000 at once on this server: at most 20,000 trials" in message
    with TestClient(create_app(Settings(max_at_once=20_000))) as client:
        message = field_error(client.post("/", data=data).text, "trials")
        assert "at most 20,000 at once on this server: at most 50 trials" in message
        small = client.post("/", data={**data, "trials": "50"}, follow_redirects=False)
        assert wait_for(job_of(client, small)).state == "done"


def test_the_game_turn_cap_is_the_servers_to_set(monkeypatch):
    data = {"action": "run", "analysis": "simulate", "deck": SULTAI, "turns": "10",
            "trials": "1000"}
    with TestClient(create_app(Settings(max_game_turns=9_999))) as client:
        message = field_error(client.post("/", data=data).text, "trials")
        assert "1,000 trials x 10 turns = 10,000 game turns; at most 9,999 per run" in message
        assert "at most 999 trials" in message
    import uvicorn

    settings = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: settings.append(
        self.config.app.state.web.settings))
    assert main(["serve", "--port", "0", "--max-game-turns", "5000"]) == 0
    assert settings[-1].max_game_turns == 5000


@pytest.mark.slow
def test_a_cancelled_value_run_stops_within_one_chunk():
    deck = "24 Forest\n30 Grizzly Bears\n6 Jadelight Ranger"  # 8 variants of one card
    with TestClient(create_app(Settings(max_trials=10**8, max_game_turns=10**12))) as client:
        response = client.post("/", data={"action": "run", "analysis": "value", "deck": deck,
                                          "turns": "3", "turn": "2", "trials": str(10**8),
                                          "seed": "1"}, follow_redirects=False)
        job = job_of(client, response)
        wait_until(lambda: job.done > 0)
        client.post(f"/jobs/{job.id}/cancel")
        at_cancel = job.done
        wait_for(job)
        assert job.state == "cancelled" and at_cancel <= job.done <= at_cancel + CHUNK


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


@contextlib.contextmanager
def served(*argv: str):
    """``explore-sim serve`` in a subprocess on a free loopback port: (process, address)."""
    process = subprocess.Popen([sys.executable, "-m", "explore_sim", "serve", "--port", "0",
                                *argv], stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                               text=True)
    try:
        line = process.stderr.readline()  # "explore-sim: serving http://127.0.0.1:PORT/ ..."
        match = re.search(r"serving (http://\S+)/ ", line)
        assert match, line
        yield process, match.group(1)
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
@pytest.mark.slow
def test_a_finished_run_gives_its_memory_back():
    """A chunk of 65,536 games of 30 turns takes some 300 MB in the server; once the run is
    over the server's memory is back near where it was (a real server in its own process).
    The run is the NumPy engine's: its many arrays stay in glibc's arenas (about 260 MB kept
    here) unless the server trims them, whereas the compiled game's few large arrays go back
    to the system when freed, trimmed or not."""
    import httpx

    with served() as (process, url), httpx.Client(base_url=url, timeout=DEADLINE) as http:
        def finished(data):
            answer = http.post("/", data={"action": "run", "analysis": "simulate",
                                          "deck": VANILLA, "seed": "1", **data})
            assert answer.status_code == 303, answer.text[:300]
            status = answer.headers["location"] + "/status"
            peak = [_rss_mb(process.pid)]

            def finished_yet() -> bool:
                peak[0] = max(peak[0], _rss_mb(process.pid))
                return http.get(status).json()["state"] not in ("queued", "running")

            wait_until(finished_yet, DEADLINE)
            return http.get(status).json()["state"], peak[0]

        assert finished({"trials": "100"})[0] == "done"  # imports and caches
        before = _rss_mb(process.pid)
        state, peak = finished({"turns": "30", "trials": str(CHUNK), "engine": "numpy"})
        assert state == "done" and peak > before + 150  # it did take the memory
        wait_until(lambda: _rss_mb(process.pid) < before + 100, deadline=30)


# ------------------------------------------------------------------------------ slow clients

@pytest.mark.slow
def test_idle_and_trickling_connections_are_closed():
    """300 connections: 100 send nothing, 100 send their headers a byte at a time, 100 their
    body a byte at a time. The server closes all of them (408 for those that had started a
    request) and answers the page the whole time."""
    import httpx

    settings = Settings(header_seconds=1.0, body_seconds=2.0, max_connections=1000)
    with live_server(settings) as (url, app):
        host, port = url.removeprefix("http://").split(":")
        selector = selectors.DefaultSelector()
        answers: dict[socket.socket, bytes] = {}
        trickle: dict[socket.socket, bytes] = {}
        body_head = (b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/"
                     b"x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n")
        for index in range(300):
            sock = socket.create_connection((host, int(port)), timeout=DEADLINE)
            kind = index % 3
            if kind == 1:
                trickle[sock] = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 10_000
            elif kind == 2:
                sock.sendall(body_head)
                trickle[sock] = b"deck=" + b"b" * 10_000
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ, kind)
            answers[sock] = b""
        kinds = {key.fileobj: key.data for key in selector.get_map().values()}
        start = time.monotonic()
        open_ = set(answers)
        try:
            while open_ and time.monotonic() - start < 30:
                for sock in list(trickle):
                    if sock in open_:
                        try:
                            sock.send(trickle[sock][:1])
                            trickle[sock] = trickle[sock][1:]
                        except OSError:
                            pass  # closed by the server: the reading below sees it
                for key, _ in selector.select(timeout=0.2):
                    sock = key.fileobj
                    try:
                        data = sock.recv(65536)
                    except ConnectionResetError:
                        data = b""
                    if data:
                        answers[sock] += data
                    else:
                        selector.unregister(sock)
                        open_.discard(sock)
                if time.monotonic() - start > 0.5 and int(time.monotonic() - start) % 2 == 0:
                    assert httpx.get(url + "/", timeout=DEADLINE).status_code == 200
            assert not open_, f"{len(open_)} of 300 slow connections still open after 30 s"
            for sock, answer in answers.items():
                if kinds[sock]:
                    assert answer.startswith(b"HTTP/1.1 408 "), answer[:100]
                    assert b"content-security-policy" in answer.lower()
                else:
                    assert answer == b""  # nothing asked, nothing answered
        finally:
            for sock in answers:
                sock.close()
        assert httpx.get(url + "/", timeout=DEADLINE).status_code == 200


@pytest.mark.slow
def test_a_slow_client_that_finishes_in_time_is_served():
    settings = Settings(header_seconds=3.0, body_seconds=3.0)
    with live_server(settings) as (url, app):
        host, port = url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=DEADLINE) as sock:
            for piece in (b"GET / HTTP/1.1\r\n", b"Host: 127.0.0.1\r\n", b"\r\n"):
                sock.sendall(piece)
                time.sleep(0.3)  # slow, but well within the deadline
            answer = sock.recv(65536)
            assert answer.startswith(b"HTTP/1.1 200 ")


def test_serve_passes_its_connection_limits_to_uvicorn(monkeypatch):
    import uvicorn

    configs = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: configs.append(
        self.config))
    serve("127.0.0.1", 0, stream=io.StringIO(),
          settings=Settings(header_seconds=4, body_seconds=7, max_connections=9))
    protocol = configs[-1].http
    assert (protocol.header_seconds, protocol.body_seconds, protocol.max_connections) == \
        (4, 7, 9)
