"""The web page's limits on what a connection may take: idle or trickling connections are
closed, so that a few hundred of them cannot hold the server's sockets (a real server on
loopback, raw sockets)."""

from __future__ import annotations

import io
import selectors
import socket
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("multipart")

from web_helpers import DEADLINE, live_server  # noqa: E402

from explore_sim.web import Settings  # noqa: E402
from explore_sim.web.server import serve  # noqa: E402


# ------------------------------------------------------------------------------ slow clients

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
