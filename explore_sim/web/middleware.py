"""The layers around the page's routes: security headers on every answer, a capped request
body, and no run started by another site's page.

:class:`SecurityHeaders` is the outermost layer of the application (outside Starlette's own
error layer), so the 500 page and the host check's 400 carry the headers too; the answers
uvicorn gives by itself (a malformed request, a timeout, a full server) are written by
:mod:`explore_sim.web.connections` with the same headers. :class:`SameOrigin` refuses a
request that changes something (a POST: a run, a cancel) unless the browser says it comes
from this server's own page.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

import anyio
from markupsafe import escape
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..cards.decklist import MAX_DECK_BYTES
from .decks import MAX_CARD_FILE_CHARS

__all__ = [
    "SECURITY_HEADERS",
    "SecurityHeaders",
    "BodyLimit",
    "SameOrigin",
    "message_page",
    "foreign_origin",
    "own_navigation",
]

log = logging.getLogger("explore_sim.web")

#: The headers of every answer: scripts and styles only from /static, no framing, no
#: sniffing, and no referrer to another site. (``same-origin``, not ``no-referrer``: with
#: ``no-referrer`` a browser sends the page's own form with ``Origin: null``, which cannot
#: be told from a sandboxed page of another site.)
SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy",
     b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
     b"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]
#: Methods that only read: everything else must come from the page itself.
_READ_ONLY = frozenset({"GET", "HEAD", "OPTIONS"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


def message_page(title: str, text: str) -> str:
    """A self-contained page for the answers given outside the page's templates.

    Parameters
    ----------
    title, text : str
        Escaped here.

    Returns
    -------
    str
    """
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{escape(title)} - "
            f"explore_sim</title><link rel=stylesheet href=/static/style.css></head><body>"
            f"<main class=message><h1>{escape(title)}</h1><p class=error>{escape(text)}</p>"
            f"<p><a href=/>Back to the page</a></p></main></body></html>")


async def send_page(send: Send, status: int, title: str, text: str,
                    extra: list[tuple[bytes, bytes]] | None = None) -> None:
    """Answer with :func:`message_page` (the caller's layer adds the security headers)."""
    body = message_page(title, text).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"text/html; charset=utf-8"),
        (b"content-length", str(len(body)).encode()), *(extra or [])]})
    await send({"type": "http.response.body", "body": body})


class SecurityHeaders:
    """Add :data:`SECURITY_HEADERS` to every answer (an answer that sets one of them, such as
    the figure's own Content-Security-Policy, keeps its own), and answer with a plain 500
    page when an error escapes everything inside before any answer was started."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                names = {name.lower() for name, _ in message.get("headers", [])}
                message = {**message, "headers": [
                    *message.get("headers", []),
                    *(h for h in SECURITY_HEADERS if h[0] not in names)]}
            await send(message)

        try:
            await self.app(scope, receive, with_headers)
        except Exception:
            if started:
                raise  # the answer is under way: the server closes the connection
            log.exception("unexpected error on %s", scope.get("path", "?"))
            await _server_error(with_headers)
            return
        if not started:
            log.error("no answer on %s", scope.get("path", "?"))
            await _server_error(with_headers)


async def _server_error(send: Send) -> None:
    await send_page(send, 500, "Something went wrong", "The server could not answer this "
                    "request; it keeps serving. The server's log has the details.",
                    [(b"connection", b"close")])


class _TooLarge(Exception):
    def __init__(self, size: int | None) -> None:
        super().__init__(size)
        self.size = size


class BodyLimit:
    """Refuse a request body over ``max_body`` bytes with 413, before or while it arrives."""

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app, self.max_body = app, max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None:
            if not declared.isdigit() or int(declared) > self.max_body:
                await self._refuse(send, int(declared) if declared.isdigit() else None)
                return
        received = 0
        started = False

        async def limited() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise _TooLarge(None)
            return message

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited, tracked)
        except _TooLarge as error:
            if started:
                raise
            await self._drain(receive)
            await self._refuse(send, error.size)

    async def _drain(self, receive: Receive) -> None:
        """Read what is left of an oversized body (at most 8 times the cap, for at most 10
        seconds), so that a client still sending it reads the refusal, not a reset."""
        left = 8 * self.max_body
        with anyio.move_on_after(10):
            while left > 0:
                message = await receive()
                if message["type"] != "http.request":
                    return
                left -= len(message.get("body", b""))
                if not message.get("more_body"):
                    return

    async def _refuse(self, send: Send, size: int | None) -> None:
        got = f" ({size:,} bytes)" if size is not None else ""
        await send_page(
            send, 413, "Too large", f"The request is too large{got}; this page accepts at "
            f"most {self.max_body:,} bytes: a decklist of at most {MAX_DECK_BYTES:,} "
            f"characters (1 MB) and a card file of at most {MAX_CARD_FILE_CHARS:,}.",
            [(b"connection", b"close")])


def _origin_key(scheme: str, netloc: str) -> tuple[str, str, int | None] | None:
    """``(scheme, host, port)`` of ``scheme://netloc``, the default port filled in."""
    try:
        parts = urlsplit(f"{scheme}://{netloc}")
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    return scheme.lower(), parts.hostname.lower(), port or _DEFAULT_PORTS.get(scheme.lower())


def foreign_origin(headers: Headers, scheme: str) -> str | None:
    """Whether a request comes from another site's page: the site, else None.

    A browser says where a request comes from in ``Sec-Fetch-Site`` (``same-origin``,
    ``same-site``, ``cross-site``, or ``none`` when the user typed or bookmarked it) and, for
    a POST, in ``Origin``; either one that is not this server's own origin (its scheme and
    ``Host``) makes it foreign. A request without either header (a command-line client, an
    old browser) is not a browser page of another site.

    Parameters
    ----------
    headers : Headers
    scheme : str
        The request's scheme (``http``).

    Returns
    -------
    str or None
        The other site (its origin, or what ``Sec-Fetch-Site`` says), for the message.
    """
    origin = headers.get("origin")
    fetch_site = headers.get("sec-fetch-site", "").strip().lower()
    if fetch_site and fetch_site not in {"same-origin", "none"}:
        return origin or f"a {fetch_site} page"
    if origin is None:
        return None
    split = urlsplit(origin.strip())
    theirs = _origin_key(split.scheme, split.netloc) if split.scheme else None
    ours = _origin_key(scheme, headers.get("host", ""))
    if theirs is None or ours is None or theirs != ours:
        return origin
    return None


def own_navigation(headers: Headers) -> bool:
    """Whether the browser says a page load comes from this server's own page or from the
    user (an address typed or pasted, a bookmark): ``Sec-Fetch-Site`` is ``same-origin`` or
    ``none``. A link followed from another site, or a browser that does not say, is not.

    Parameters
    ----------
    headers : Headers

    Returns
    -------
    bool
    """
    return headers.get("sec-fetch-site", "").strip().lower() in {"same-origin", "none"}


class SameOrigin:
    """Refuse (403) a request that changes something (any method but GET, HEAD and OPTIONS:
    starting a run, cancelling one) that another site's page sent (:func:`foreign_origin`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in _READ_ONLY:
            await self.app(scope, receive, send)
            return
        other = foreign_origin(Headers(scope=scope), scope.get("scheme", "http"))
        if other is None:
            await self.app(scope, receive, send)
            return
        await send_page(send, 403, "Refused", f"Refused: this request came from another "
                        f"site ({other[:80]}); runs start and stop only from this server's "
                        "own page. Open the page and press Run there.",
                        [(b"connection", b"close")])
