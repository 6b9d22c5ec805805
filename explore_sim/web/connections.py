"""The server's connections: slow clients timed out, and uvicorn's own answers made like the
page's (its security headers, a readable page, never an exception's name).

uvicorn closes a connection left idle after an answer (``timeout_keep_alive``), but by itself
it waits forever for a fresh connection's first byte, for headers that arrive one byte at a
time and for a body that trickles, so a few hundred such connections would hold every socket
the server has. :class:`PageProtocol`, uvicorn's h11 protocol with deadlines, closes them:

- a request's line and headers must arrive within ``header_seconds`` of the connection (or
  of the first byte of a next request on a kept-alive connection);
- its body must arrive within ``body_seconds`` of its headers.

A connection that missed its deadline after sending part of a request is answered 408; one
that sent nothing is closed. A request beyond ``max_connections`` connections is answered
503, and a malformed one 400: each with :data:`~.middleware.SECURITY_HEADERS` and a page.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from .middleware import SECURITY_HEADERS, message_page

__all__ = ["PageProtocol", "protocol_class", "answer_parts", "raw_answer"]

#: Seconds a connection refused for its slowness may keep its socket to read the refusal.
_LINGER = 5.0
_REASONS = {400: "Bad Request", 408: "Request Timeout", 503: "Service Unavailable"}


def answer_parts(status: int, title: str, text: str) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """The headers and body of an answer that closes the connection:
    :func:`~.middleware.message_page` with the security headers.

    Parameters
    ----------
    status : int
        400, 408 or 503.
    title, text : str

    Returns
    -------
    (list of (bytes, bytes), bytes)
    """
    body = message_page(title, text).encode()
    headers = [(b"content-type", b"text/html; charset=utf-8"),
               (b"content-length", str(len(body)).encode()), (b"connection", b"close"),
               *SECURITY_HEADERS]
    if status == 503:
        headers.append((b"retry-after", b"10"))
    return headers, body


def raw_answer(status: int, title: str, text: str) -> bytes:
    """:func:`answer_parts` as the bytes of a whole HTTP/1.1 answer.

    Parameters
    ----------
    status : int
        400, 408 or 503.
    title, text : str

    Returns
    -------
    bytes
    """
    headers, body = answer_parts(status, title, text)
    lines = [f"HTTP/1.1 {status} {_REASONS[status]}".encode(),
             *(name + b": " + value for name, value in headers)]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


_MALFORMED = raw_answer(400, "Bad request", "The server could not read this request (it is "
                        "not well-formed HTTP/1.1, or its headers are too large).")
_TOO_SLOW = raw_answer(408, "Too slow", "The request did not arrive in time; the connection "
                       "is closed. Send it again.")
_FULL = answer_parts(503, "Busy", "The server has too many connections open; try again in a "
                     "few seconds.")


class PageProtocol(H11Protocol):
    """uvicorn's h11 protocol with deadlines for a request's headers and body, and the page's
    own 400, 408 and 503 answers (see the module's description)."""

    header_seconds: float = 10.0
    body_seconds: float = 60.0
    max_connections: int = 100

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limit_concurrency = None  # checked by _Limited, which answers with a page
        self.app = _Limited(self.app, self)
        self._timer: asyncio.TimerHandle | None = None
        self._waiting = ""  # "headers" or "body": what the timer waits for
        self._cycle_seen: object = None
        self._bytes = False  # bytes of the request awaited have arrived

    # ------------------------------------------------------------------ deadlines

    def connection_made(  # type: ignore[override]  # a Transport, as H11Protocol's own says
            self, transport: asyncio.Transport) -> None:
        super().connection_made(transport)
        self._expect("headers", self.header_seconds)

    def data_received(self, data: bytes) -> None:
        between = self.cycle is None or self.cycle.response_complete
        if between and not self._waiting:  # the first byte of a next request
            self._expect("headers", self.header_seconds)
        self._bytes = self._bytes or bool(data)
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._stop()  # an idle kept-alive connection is uvicorn's: timeout_keep_alive
        self._follow()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop()
        super().connection_lost(exc)

    def _follow(self) -> None:
        """Move the deadline on when a request's headers or body have arrived."""
        cycle = self.cycle
        if cycle is None or cycle.response_complete or self.transport.is_closing():
            return
        if cycle is not self._cycle_seen:  # its headers have arrived
            self._cycle_seen = cycle
            self._stop()
            if cycle.more_body:
                self._expect("body", self.body_seconds)
        elif self._waiting == "body" and not cycle.more_body:
            self._stop()

    def _expect(self, what: str, seconds: float) -> None:
        self._stop()
        self._waiting, self._bytes = what, False
        self._timer = self.loop.call_later(seconds, self._too_slow)

    def _stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._waiting = None, ""

    def _too_slow(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        started = self.cycle is not None and self._waiting == "body" \
            and self.cycle.response_started
        if (self._bytes or self._waiting == "body") and not started:
            self.transport.write(_TOO_SLOW)
        self._waiting = ""
        self._close()

    def _close(self) -> None:
        transport = self.transport
        transport.close()  # sends what was written, then closes
        self.loop.call_later(_LINGER, transport.abort)  # unless the client does not read

    # ------------------------------------------------------------------ uvicorn's answers

    def send_400_response(self, msg: str) -> None:
        self._stop()
        self.transport.write(_MALFORMED)
        self._close()

    def full(self) -> bool:
        """More connections or requests than :attr:`max_connections`."""
        return len(self.connections) > self.max_connections \
            or len(self.tasks) > self.max_connections


class _Limited:
    """The application, or the 503 page when the server has too many connections."""

    def __init__(self, app: Any, protocol: PageProtocol) -> None:
        self.app, self.protocol = app, protocol

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not self.protocol.full():
            await self.app(scope, receive, send)
            return
        headers, body = _FULL
        await send({"type": "http.response.start", "status": 503, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def protocol_class(header_seconds: float, body_seconds: float,
                   max_connections: int) -> type[PageProtocol]:
    """:class:`PageProtocol` with these limits (uvicorn builds one per connection).

    Parameters
    ----------
    header_seconds, body_seconds : float
    max_connections : int

    Returns
    -------
    type
    """
    return type("PageProtocol", (PageProtocol,), {
        "header_seconds": float(header_seconds), "body_seconds": float(body_seconds),
        "max_connections": int(max_connections)})
