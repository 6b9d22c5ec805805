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
    """The page's application on uvicorn in a thread, on a free port of 127.0.0.1, configured
    as ``explore-sim serve`` configures it."""
    import uvicorn

    from explore_sim.web import create_app
    from explore_sim.web.server import server_config

    app = create_app(settings)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(server_config(app, settings))
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


def form_fields(html: str, form_id: str = "run-form") -> list[tuple[str, str]]:
    """What a browser sends when the form ``form_id`` of ``html`` is submitted with its Run
    button: text inputs, hidden inputs, ticked checkboxes, text areas and the selected option
    of each select (the first without one), in document order."""
    from html.parser import HTMLParser

    class Form(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.inside, self.fields = False, []
            self.area = self.select = None
            self.options: list[tuple[str, bool]] = []

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if tag == "form":
                self.inside = a.get("id") == form_id
            if not self.inside or "name" not in a and tag != "option":
                return
            if tag == "input" and a.get("type") not in ("file", "submit", "button"):
                if a.get("type") != "checkbox" or "checked" in a:
                    self.fields.append((a["name"], a.get("value", "")))
            elif tag == "textarea":
                self.area = [a["name"], ""]
            elif tag == "select":
                self.select, self.options = a["name"], []
            elif tag == "option" and self.select is not None:
                self.options.append((a.get("value", ""), "selected" in a))

        def handle_data(self, data):
            if self.area is not None:
                self.area[1] += data

        def handle_endtag(self, tag):
            if tag == "form":
                self.inside = False
            elif tag == "textarea" and self.area is not None:
                name, text = self.area
                self.fields.append((name, text[1:] if text.startswith("\n") else text))
                self.area = None
            elif tag == "select" and self.select is not None:
                chosen = [v for v, on in self.options if on] or [v for v, _ in self.options[:1]]
                self.fields.append((self.select, chosen[0] if chosen else ""))
                self.select = None

    parser = Form()
    parser.feed(html)
    return [("action", "run"), *parser.fields]


def run_permalink(client, link: str):
    """What the page does with a permalink the browser vouches for (opened by the user): the
    GET fills the form and starts nothing; the page's script submits that form (a POST from
    the page itself). The job the POST starts, once finished."""
    jobs = client.app.state.web.jobs._jobs
    before = set(jobs)
    page = client.get(link, headers={"sec-fetch-site": "none"})
    assert page.status_code == 200, page.text[:2000]
    assert 'data-autorun="1"' in page.text and set(jobs) == before
    response = client.post("/", data=dict(form_fields(page.text)), follow_redirects=False)
    return wait_for(job_of(client, response))
