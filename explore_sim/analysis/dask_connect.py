"""Reaching a Dask scheduler in bounded time, and keeping Dask's own logs off the terminal.

:func:`check_address` and :func:`check_timeout` refuse at once, in one line, what cannot
work: an empty address, a scheme other than ``tcp://`` (or ``tls://``, with Dask's TLS
settings), a port that is not a number, a timeout that is not a number of seconds from 0 to
:data:`MAX_CONNECT_TIMEOUT`. :func:`connect` then bounds the whole connection, handshake
included, by the timeout: a plain TCP connection first (a refused or unknown address fails
at once), then one connection with Dask's handshake under a deadline (Dask's client waits
for the scheduler's handshake without one, so a port that accepts connections and never
answers would hold it for ever), then Dask's client; the last two in a thread of their own
that is given up on when the deadline passes. A client that comes up after it was given up
on is closed.

While explore_sim drives a cluster, Dask's loggers are quiet (:class:`QuietDask`): what
goes wrong reaches the user as one :class:`~explore_sim.errors.ExecutorError`, not as
Dask's log of its reconnection attempts.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import math
import numbers
import socket
import sys
import threading
import time
from typing import Any

from ..errors import ExecutorError, OptionError, clip

__all__ = ["check_address", "check_timeout", "connect", "QuietDask", "MAX_CONNECT_TIMEOUT",
           "SCHEMES"]

#: The longest connection timeout accepted, in seconds (an hour).
MAX_CONNECT_TIMEOUT = 3600.0
#: The address schemes a command can reach a scheduler by.
SCHEMES = ("tcp", "tls")
_QUIET = ("distributed", "tornado")
_HOOKED = False


def check_address(address: str) -> str:
    """A scheduler address, stripped; one-line errors for what cannot be reached.

    Parameters
    ----------
    address : str
        ``tcp://HOST:PORT``, ``tls://HOST:PORT`` or ``HOST:PORT``.

    Returns
    -------
    str

    Raises
    ------
    ExecutorError
        An empty address, another scheme, no ``HOST:PORT``, or a host that is no name (an
        empty or over-long label).
    """
    text = address.strip()
    if not text:
        raise ExecutorError("the scheduler address is empty: give tcp://HOST:PORT")
    scheme, separator, rest = text.partition("://")
    if not separator:
        scheme, rest = "tcp", text
    if scheme.casefold() not in SCHEMES:
        raise ExecutorError(f"scheduler address {clip(text)!r}: a Dask scheduler is reached "
                            f"over tcp:// (or tls://, with Dask's TLS settings), not "
                            f"{clip(scheme, 20)}://")
    host, _, port = rest.rpartition(":")
    if not host.strip("[]") or not port.isdigit() or not 0 < int(port) < 65536:
        raise ExecutorError(f"scheduler address {clip(text)!r} must look like "
                            "tcp://HOST:PORT")
    if not host.startswith("["):  # a name (or an IPv4 address) as the resolver takes it
        try:
            host.encode("idna")
        except UnicodeError:
            raise ExecutorError(f"scheduler address {clip(text)!r}: {clip(host, 40)!r} is not "
                                "a host name (each part between dots has 1 to 63 "
                                "characters)") from None
    return text


def check_timeout(timeout: object) -> float:
    """A connection timeout in seconds.

    Parameters
    ----------
    timeout : object
        A number of seconds above 0 and at most :data:`MAX_CONNECT_TIMEOUT`.

    Returns
    -------
    float

    Raises
    ------
    OptionError
        For anything else.
    """
    if isinstance(timeout, bool) or not isinstance(timeout, numbers.Real) \
            or not math.isfinite(seconds := float(timeout)) \
            or not 0 < seconds <= MAX_CONNECT_TIMEOUT:
        raise OptionError(f"scheduler timeout must be a number of seconds above 0 and at most "
                          f"{MAX_CONNECT_TIMEOUT:g}, got {clip(repr(timeout))}")
    return seconds


def _reach(address: str, timeout: float) -> None:
    """Fail fast, in one line, when nothing listens at the address."""
    rest = address.partition("://")[2] or address
    host, _, port = rest.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except UnicodeError:  # a name no resolver takes (check_address refuses it first)
        raise ExecutorError(f"cannot reach the Dask scheduler at {clip(address)}: the host "
                            "is not a name") from None
    except OSError as error:
        reason = error.strerror or type(error).__name__
        if isinstance(error, TimeoutError):
            reason = f"no answer within {timeout:g} s"
        raise ExecutorError(f"cannot reach the Dask scheduler at {clip(address)}: {reason}"
                            ) from None


def connect(address: str, timeout: float) -> Any:
    """A Dask client of the scheduler at ``address``, connected within about ``timeout``.

    Parameters
    ----------
    address : str
        Checked by :func:`check_address`.
    timeout : float
        Seconds for the whole connection.

    Returns
    -------
    distributed.Client

    Raises
    ------
    ExecutorError
        Nothing listens there, or it does not answer as a Dask scheduler in time.
    """
    from distributed import Client

    deadline = time.monotonic() + timeout
    _reach(address, timeout)
    _ignore_client_del_errors()
    outcome: dict[str, Any] = {}
    done = threading.Event()
    lock = threading.Lock()

    def make() -> None:
        try:
            asyncio.run(_handshake(address, timeout))
            client = Client(address, timeout=timeout, set_as_default=False)
        except TimeoutError:
            outcome["error"] = silent
        except Exception as error:  # noqa: BLE001 - handed to the waiting thread as text
            outcome["error"] = str(error).strip() or type(error).__name__
            del error  # and a half-made client with it, closed here, not where gc runs
            gc.collect()
        else:
            with lock:
                if done.is_set():  # given up on: nobody will close it
                    _close(client)
                    return
                outcome["client"] = client
        finally:
            done.set()

    silent = f"it accepted the connection but did not answer within {timeout:g} s"
    threading.Thread(target=make, name="explore-sim-dask-connect", daemon=True).start()
    done.wait(max(0.0, deadline - time.monotonic()))
    with lock:
        if not done.is_set():
            done.set()
            raise ExecutorError(f"cannot connect to the Dask scheduler at {clip(address)}: "
                                f"{silent}")
    if "error" in outcome:
        raise ExecutorError(f"cannot connect to the Dask scheduler at {clip(address)}: "
                            f"{clip(outcome['error'])}")
    return outcome["client"]


async def _handshake(address: str, timeout: float) -> None:
    """Open and close one connection to the scheduler, handshake included, within
    ``timeout`` (Dask's client waits for the handshake without a deadline)."""
    from distributed.comm import connect as open_comm
    from distributed.security import Security

    arguments = Security().get_connection_args("client")
    comm = await asyncio.wait_for(open_comm(address, timeout=timeout, **arguments), timeout)
    await comm.close()


def _ignore_client_del_errors() -> None:
    """Drop the errors of Dask's ``Client.__del__`` (closing a client whose connection
    failed or was lost), which Python would print as ``Exception ignored in ...``."""
    global _HOOKED
    if _HOOKED:
        return
    _HOOKED = True
    previous = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        where = unraisable.object
        if getattr(where, "__qualname__", "") == "Client.__del__" and \
                getattr(where, "__module__", "").startswith("distributed"):
            return
        previous(unraisable)

    sys.unraisablehook = hook


def _close(client: Any) -> None:
    """Close a client, whatever state its connection is in."""
    try:
        client.close(timeout=2)
    except Exception:  # noqa: BLE001 - a lost connection fails to close in many ways
        pass


class QuietDask:
    """Dask's loggers say nothing from :meth:`start` to :meth:`stop`.

    A filter on every ``distributed`` and ``tornado`` logger there is, and on their
    handlers (for loggers made later), drops their records.
    """

    def __init__(self) -> None:
        self._filtered: list[logging.Filterer] = []

    @staticmethod
    def _drop(record: logging.LogRecord) -> bool:
        return record.name.split(".", 1)[0] not in _QUIET

    def start(self) -> None:
        """Silence Dask's loggers (again, if already started)."""
        self.stop()
        names = [name for name in logging.Logger.manager.loggerDict
                 if name.split(".", 1)[0] in _QUIET]
        for name in {*_QUIET, *names}:
            logger = logging.getLogger(name)
            for target in (logger, *logger.handlers):
                target.addFilter(self._drop)
                self._filtered.append(target)

    def stop(self) -> None:
        """Let Dask's loggers speak again."""
        for target in self._filtered:
            target.removeFilter(self._drop)
        self._filtered = []
