"""Helpers of the web page's tests: a real uvicorn server on a free loopback port, runs
waited for without sleeping past their end, and the browser to drive."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from conftest import DECKS

#: Seconds any wait of these tests may take before it fails.
DEADLINE = 120.0


def deck_text(name: str) -> str:
    return (DECKS / name).read_text(encoding="utf-8")


def wait_for(job, states=("done", "failed", "cancelled"), deadline: float = DEADLINE):
    """Wait until a :class:`explore_sim.web.jobs.Job` reaches one of ``states``."""
    end = time.monotonic() + deadline
    while job.state not in states:
        if time.monotonic() > end:
            raise AssertionError(f"job stayed {job.state} for {deadline} s")
        time.sleep(0.01)
    return job


def wait_until(condition, deadline: float = DEADLINE) -> None:
    """Wait until ``condition()`` is true."""
    end = time.monotonic() + deadline
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"still waiting after {deadline} s")
        time.sleep(0.01)


def job_of(client, response):
    """The job a run's 303 answer points at."""
    assert response.status_code == 303, response.text[:2000]
    job_id = response.headers["location"].rsplit("/", 1)[-1]
    return client.app.state.web.jobs._jobs[job_id]


@contextlib.contextmanager
def live_server(settings) -> Iterator[tuple[str, object]]:
    """The page's application on uvicorn in a thread, on a free port of 127.0.0.1."""
    import uvicorn

    from explore_sim.web import create_app

    app = create_app(settings)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    end = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > end or not thread.is_alive():
            raise AssertionError("the server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()


def chromium_path() -> str | None:
    """Debian's chromium (or $EXPLORE_SIM_CHROMIUM), if installed."""
    candidates = [os.environ.get("EXPLORE_SIM_CHROMIUM"), shutil.which("chromium"),
                  shutil.which("chromium-browser"), "/usr/bin/chromium"]
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None
