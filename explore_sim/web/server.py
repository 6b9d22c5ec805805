"""Run the web page's application on uvicorn, on the loopback interface by default, with the
connection limits of :mod:`explore_sim.web.connections`."""

from __future__ import annotations

import ipaddress
import socket
import sys
import threading
import time
import webbrowser
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    import uvicorn
    from starlette.types import ASGIApp

from ..errors import OptionError
from .app import LOOPBACK_HOSTS, Settings, create_app

__all__ = ["serve", "server_config", "is_loopback", "page_url"]


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (127.0.0.0/8, ::1, localhost).

    Parameters
    ----------
    host : str

    Returns
    -------
    bool
    """
    if host.casefold() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def page_url(host: str, port: int) -> str:
    """The page's address for a browser.

    Parameters
    ----------
    host : str
    port : int

    Returns
    -------
    str
    """
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1"
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def server_config(app: ASGIApp, settings: Settings) -> uvicorn.Config:
    """uvicorn's configuration for the page: the h11 protocol with the deadlines and the
    connection limit of ``settings`` (:class:`~.connections.PageProtocol`), no WebSockets,
    quiet logs.

    Parameters
    ----------
    app : ASGI application
        :func:`~.app.create_app`'s.
    settings : Settings

    Returns
    -------
    uvicorn.Config
    """
    import uvicorn

    from .connections import protocol_class

    return uvicorn.Config(
        app, http=protocol_class(settings.header_seconds, settings.body_seconds,
                                 settings.max_connections),
        ws="none", lifespan="on", log_level="warning", access_log=False,
        timeout_keep_alive=5, timeout_graceful_shutdown=2)


def serve(host: str = "127.0.0.1", port: int = 8000, open_browser: bool = False,
          settings: Settings | None = None, stream: TextIO | None = None) -> None:
    """Serve the page until interrupted (Ctrl-C).

    Parameters
    ----------
    host : str
        The address to listen on; anything but loopback is announced with a warning, since
        the page has no login and runs whatever anyone who reaches it asks.
    port : int
        0 picks a free port.
    open_browser : bool
        Open the page in the default browser once the server is up.
    settings : Settings, optional
        Limits; a loopback server answers only to loopback host names.
    stream : text stream, optional
        Where the address and warnings are printed (default standard error).

    Raises
    ------
    OptionError
        When the address cannot be listened on (in use, not this machine's).
    CardError
        When the card directory, the card index or a shipped deck's card file cannot be
        read (:func:`~.app.create_app`): the server does not start.
    """
    import dataclasses

    import uvicorn

    stream = stream or sys.stderr
    settings = settings or Settings()
    if is_loopback(host) and settings.allowed_hosts is None:
        settings = dataclasses.replace(settings, allowed_hosts=LOOPBACK_HOSTS)
    app = create_app(settings)  # before listening: a bad directory stops it here
    if not is_loopback(host):
        print(f"explore-sim: warning: --host {host} makes the page reachable from other "
              "machines; it has no login and runs any analysis anyone asks for", file=stream)
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as error:
        sock.close()
        raise OptionError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    port = sock.getsockname()[1]
    url = page_url(host, port)
    server = uvicorn.Server(server_config(app, settings))
    print(f"explore-sim: serving {url} (Ctrl-C stops it); at most {settings.max_trials:,} "
          f"trials and {settings.max_runs} run(s) at once", file=stream, flush=True)
    if open_browser:
        threading.Thread(target=_open_when_up, args=(server, url), daemon=True).start()
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()


def _open_when_up(server: uvicorn.Server, url: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    if server.started:
        webbrowser.open(url)
