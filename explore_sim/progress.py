"""Progress displays: a run's trials and the compiled game's first compilation, with the time
elapsed and an estimate of the time left, in a terminal (standard error) or a Jupyter notebook.

The displays are tqdm's: in a terminal its text bar; in a notebook its widget when ipywidgets
is installed (the ``notebooks`` extra), else its text bar in the cell's output, updated in
place (what tqdm's ``auto`` front end chooses, without its warning). Nothing is drawn before
a second has passed, so quick runs stay quiet, nor anywhere but a terminal or a notebook (a
pipe, a file, a test's captured output). The public analyses show one by default
(:func:`shows_progress`); ``progress=False`` turns it off, and a callable ``progress(done,
total)`` replaces it.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable
from typing import IO, Any, TypeVar

__all__ = ["ProgressBar", "add_compile_listener", "remove_compile_listener",
           "compile_listeners", "notices_on_terminal", "terminal_shows_notices", "front_end",
           "shows_progress", "callback"]

#: Whether the command line shows the package's notices on its terminal (then they are not
#: also warnings).
_TERMINAL: list[bool] = []
#: Seconds before a display first appears.
DELAY = 1.0

_F = TypeVar("_F", bound=Callable[..., Any])


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


def remove_compile_listener(listener: Callable[[float, bool], None]) -> None:
    """Stop telling ``listener`` (nothing if it was not told).

    Parameters
    ----------
    listener : callable
    """
    if listener in _COMPILE_LISTENERS:
        _COMPILE_LISTENERS.remove(listener)


def compile_listeners() -> tuple[Callable[[float, bool], None], ...]:
    """The listeners :func:`add_compile_listener` added.

    Returns
    -------
    tuple of callable
    """
    return tuple(_COMPILE_LISTENERS)


def front_end() -> str | None:
    """Where a progress display can be seen: ``"notebook"`` in a Jupyter kernel,
    ``"terminal"`` when standard error is a terminal, else None.

    Returns
    -------
    str or None
    """
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython else None
    if shell is not None and type(shell).__name__ == "ZMQInteractiveShell":
        return "notebook"
    try:
        return "terminal" if sys.stderr is not None and sys.stderr.isatty() else None
    except (AttributeError, ValueError):
        return None


def _tqdm_class(notebook: bool) -> Any:
    """tqdm's notebook widget where it can be drawn, else its text bar."""
    import importlib
    import importlib.util

    if notebook and importlib.util.find_spec("ipywidgets") is not None:
        return importlib.import_module("tqdm.notebook").tqdm
    return importlib.import_module("tqdm.std").tqdm


class ProgressBar:
    """``label: 40%|####      | 80,000/200,000 [00:03<00:04, 24,000 trials/s]`` drawn by
    tqdm, from ``delay`` seconds after it is made on; usable as a ``progress(done, total)``
    callback.

    Parameters
    ----------
    stream : text stream or None
        Where to draw (standard error); None draws nothing (unless ``notebook``).
    label : str
    total : float, optional
        The amount of work; unknown totals show only the amount done and the time.
    unit : str
    scale : float
        ``done`` and ``total`` are divided by it for display (1e6 with unit "MB").
    delay : float, optional
        Seconds before the bar first appears (default :data:`DELAY`, a second).
    notebook : bool
        Draw in a Jupyter notebook (its widget, or text in the cell's output).
    """

    def __init__(self, stream: IO[str] | None, label: str, total: float | None = None,
                 unit: str = "", scale: float = 1.0, delay: float | None = None,
                 notebook: bool = False) -> None:
        self.stream, self.label, self.total = stream, label, total
        self.unit, self.scale, self.notebook = unit, scale, notebook
        self.delay = DELAY if delay is None else delay
        self.started = time.monotonic()
        self._bar: Any = None
        self._done: float = 0

    @property
    def drawn(self) -> bool:
        """Whether anything was drawn."""
        return self._bar is not None and bool(getattr(self._bar, "displayed", True)) \
            and time.monotonic() - self.started >= self.delay

    def __call__(self, done: float, total: float | None = None) -> None:
        """Report progress (usable as a ``progress(done, total)`` callback)."""
        if total is not None:
            self.total = total
        if self.stream is None and not self.notebook:
            return
        if self._bar is None:
            since = time.monotonic() - self.started
            self._bar = _tqdm_class(self.notebook)(
                total=None if self.total is None else self._scaled(self.total),
                desc=self.label, unit=f" {self.unit}" if self.unit else "it",
                unit_scale=self.scale == 1,
                file=self.stream if self.stream is not None else sys.stderr,
                delay=self.delay, mininterval=0.1, leave=True, dynamic_ncols=True,
                bar_format=None if self.scale == 1 else "{l_bar}{bar}| {n:,.1f}/{total:,.1f}"
                                                        "{unit} [{elapsed}<{remaining}]")
            # The work began when this display was made, not at its first report: the time
            # and rate shown count from then (a run of one chunk reports only once).
            if hasattr(self._bar, "start_t"):  # not a disabled bar, which keeps no times
                self._bar.start_t -= since
                self._bar.last_print_t -= since
        elif total is not None:
            self._bar.total = self._scaled(total)
        self._bar.update(self._scaled(done) - self._done)
        self._done = self._scaled(done)

    def _scaled(self, amount: float) -> float:
        return amount / self.scale if self.scale != 1 else int(amount)

    def close(self) -> None:
        """End the display (a bar never drawn leaves nothing)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None


class _CompileDisplay:
    """``compiling the game kernel (once per installation): 12 s`` while the compiled game
    compiles during a run, as the kernel tells its listeners every second."""

    def __init__(self, notebook: bool) -> None:
        self.notebook = notebook
        self._bar: Any = None

    def __call__(self, seconds: float, done: bool) -> None:
        if self._bar is None:
            self._bar = _tqdm_class(self.notebook)(total=None, file=sys.stderr, leave=True,
                                                   mininterval=0, bar_format="{desc}")
        if done:
            self._bar.set_description_str(f"the game kernel compiled in {seconds:.0f} s")
            self._bar.close()
        else:
            self._bar.set_description_str("compiling the game kernel (once per installation, "
                                          f"about half a minute): {seconds:.0f} s")


def callback(progress: Callable[[int, int], None] | bool | None
             ) -> Callable[[int, int], None] | None:
    """The callback a ``progress`` argument stands for inside an analysis: None for none
    (``False``, what :func:`shows_progress` passes on as None).

    Parameters
    ----------
    progress : callable, bool or None

    Returns
    -------
    callable or None
    """
    return progress if callable(progress) else None


def shows_progress(label: str) -> Callable[[_F], _F]:
    """Make an analysis show a progress display by default.

    The decorated function's ``progress`` argument: None (the default) shows a display
    (:class:`ProgressBar`, ``label`` and trials) where one can be seen (:func:`front_end`),
    with the compiled game's first compilation (:func:`add_compile_listener`) during the
    run; False shows nothing; a callable ``progress(done, total)`` is called instead.

    Parameters
    ----------
    label : str

    Returns
    -------
    callable
        The decorator.
    """

    def decorate(function: _F) -> _F:
        @functools.wraps(function)
        def shown(*args: Any, **kwargs: Any) -> Any:
            given = kwargs.get("progress")
            if given is False:
                kwargs["progress"] = None
                return function(*args, **kwargs)
            where = front_end()
            if given is not None or where is None:
                return function(*args, **kwargs)
            notebook = where == "notebook"
            bar = ProgressBar(None if notebook else sys.stderr, label, unit="trials",
                              notebook=notebook)
            compiling = _CompileDisplay(notebook)
            add_compile_listener(compiling)
            kwargs["progress"] = bar
            try:
                return function(*args, **kwargs)
            finally:
                remove_compile_listener(compiling)
                bar.close()

        shown.progress_label = label  # type: ignore[attr-defined]  # what it shows, for tests
        return shown  # type: ignore[return-value]  # wraps keeps the function's signature

    return decorate
