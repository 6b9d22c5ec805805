"""A one-line progress bar on a text stream (standard error from the command line)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import IO

__all__ = ["ProgressBar", "add_compile_listener", "compile_listeners", "notices_on_terminal",
           "terminal_shows_notices"]

#: Whether the command line shows the package's notices on its terminal (then they are not
#: also warnings).
_TERMINAL: list[bool] = []


def notices_on_terminal() -> None:
    """Say that the command line shows the package's notices itself (once per process)."""
    if not _TERMINAL:
        _TERMINAL.append(True)


def terminal_shows_notices() -> bool:
    """Whether :func:`notices_on_terminal` was called in this process.

    Returns
    -------
    bool
    """
    return bool(_TERMINAL)

#: Who is told, every second while the compiled game compiles, how long it has taken.
_COMPILE_LISTENERS: list[Callable[[float, bool], None]] = []


def add_compile_listener(listener: Callable[[float, bool], None]) -> None:
    """Be told, every second while the compiled game compiles (once per installation), how
    long it has taken: ``listener(seconds, done)``, ``done`` True once at the end.

    Parameters
    ----------
    listener : callable
        Called from a thread of its own; it should return at once.
    """
    if listener not in _COMPILE_LISTENERS:
        _COMPILE_LISTENERS.append(listener)


def compile_listeners() -> tuple[Callable[[float, bool], None], ...]:
    """The listeners :func:`add_compile_listener` added.

    Returns
    -------
    tuple of callable
    """
    return tuple(_COMPILE_LISTENERS)


class ProgressBar:
    """Draws ``label [#####.....] done / total unit`` in place, at most ten times a second.

    Nothing is drawn before ``delay`` seconds have passed, so quick runs stay quiet.

    Parameters
    ----------
    stream : text stream or None
        Where to draw; None draws nothing.
    label : str
    total : float, optional
        The amount of work; unknown totals show only the amount done.
    unit : str
    scale : float
        ``done`` and ``total`` are divided by it for display (1e6 with unit "MB").
    delay : float
        Seconds before the bar first appears.
    """

    def __init__(self, stream: IO[str] | None, label: str, total: float | None = None,
                 unit: str = "", scale: float = 1.0, delay: float = 1.0) -> None:
        self.stream, self.label, self.total = stream, label, total
        self.unit, self.scale, self.delay = unit, scale, delay
        self.started = time.monotonic()
        self.last = 0.0
        self.drawn = False

    def __call__(self, done: float, total: float | None = None) -> None:
        """Report progress (usable as a ``progress(done, total)`` callback)."""
        if total is not None:
            self.total = total
        now = time.monotonic()
        if self.stream is None or now - self.started < self.delay or now - self.last < 0.1:
            return
        self.last = now
        shown = f"{done / self.scale:,.1f}" if self.scale != 1 else f"{done:,.0f}"
        if self.total:
            share = min(done / self.total, 1.0)
            filled = int(30 * share)
            whole = f"{self.total / self.scale:,.1f}" if self.scale != 1 else f"{self.total:,.0f}"
            text = f"[{'#' * filled}{'.' * (30 - filled)}] {shown} / {whole} {self.unit}"
        else:
            text = f"{shown} {self.unit}"
        self.stream.write(f"\r{self.label} {text}".rstrip() + " ")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        """End the line if anything was drawn."""
        if self.stream is not None and self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False
