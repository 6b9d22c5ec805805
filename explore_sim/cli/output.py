"""What a command prints: its results on standard output, one-line errors and warnings on
standard error, and the figure it draws once the results are printed."""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import sys
import warnings
from collections.abc import Callable, Mapping

from ..errors import ExploreSimError, OptionError, printable
from ..progress import add_compile_listener, notices_on_terminal
from .arguments import PROG

__all__ = ["Output", "BROKEN_PIPE_STATUS", "notices_to_terminal", "print_line", "print_error",
           "flag_text", "print_warnings", "write_output"]

#: Exit status of a command whose output went into a closed pipe (128 + SIGPIPE).
BROKEN_PIPE_STATUS = 141


@dataclasses.dataclass
class Output:
    """What a command prints, and the figure it draws once that is printed.

    Attributes
    ----------
    text : str
    plot : callable or None
    """

    text: str
    plot: Callable[[], None] | None = None


def print_line(line: str) -> None:
    """One line on standard error (nothing if it is closed).

    Parameters
    ----------
    line : str
    """
    if sys.stderr is None:
        return
    try:
        sys.stderr.write(printable(line) + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


class _TerminalNotices(logging.Handler):
    """``explore-sim: ...`` on standard error for each notice (a terminal, or a log file
    where someone will later wonder what the half minute was)."""

    def emit(self, record: logging.LogRecord) -> None:
        print_line(f"{PROG}: {record.getMessage()}")


def notices_to_terminal() -> None:
    """Print the package's one-line notices (``explore_sim.notices``: the compiled game's
    first compilation) on a terminal's standard error, and the time the compilation has
    taken while it runs; once per process."""
    notices = logging.getLogger("explore_sim.notices")
    if not any(isinstance(handler, _TerminalNotices) for handler in notices.handlers):
        notices.addHandler(_TerminalNotices())
        notices.setLevel(logging.INFO)
        notices.propagate = False
        add_compile_listener(_compile_time)
        notices_on_terminal()


def _compile_time(seconds: float, done: bool) -> None:
    """``explore-sim: compiling: 12 s`` in place on a terminal's standard error while the
    game compiles, then ``compiled in 41 s`` (only that line elsewhere, such as a log file)."""
    stream = sys.stderr
    try:
        if stream is None:
            return
        if not stream.isatty():
            if done:
                stream.write(f"{PROG}: the game kernel compiled in {seconds:.0f} s\n")
                stream.flush()
            return
        if done:
            stream.write(f"\r{PROG}: the game kernel compiled in {seconds:.0f} s      \n")
        else:
            stream.write(f"\r{PROG}: compiling the game kernel: {seconds:.0f} s ")
        stream.flush()
    except (OSError, ValueError):
        pass


def print_error(error: ExploreSimError, flags: Mapping[str, str] | None = None) -> None:
    """``explore-sim: error: ...`` on standard error.

    Parameters
    ----------
    error : ExploreSimError
    flags : mapping of str to str, optional
        The command's options by the Python keyword they set (``{"cast_order":
        "--cast-first"}``): a message that starts with a keyword (``cast_order: ...``,
        ``max_lands must be ...``) names the option instead.
    """
    print_line(f"{PROG}: error: {flag_text(str(error), flags)}")


def flag_text(text: str, flags: Mapping[str, str] | None = None) -> str:
    """``text`` (an error's or a warning's) with the options it names by their Python keyword
    named by their flags (:func:`print_error`).

    Parameters
    ----------
    text : str
    flags : mapping of str to str, optional
        The command's options by the Python keyword they set.

    Returns
    -------
    str
    """
    flags = flags or {}
    for keyword, flag in flags.items():
        if text.startswith((keyword + ": ", keyword + " must ")):
            text = flag + text[len(keyword):]
            break
    # A message that names an option both ways ("(explorer_cast=False, --explorer-in-play)",
    # "--explorer-outside (explorer_outside=True)") keeps the flag only.
    known = set(flags.values())
    text = _BOTH_WAYS_FLAG_LAST.sub(lambda m: f"({m[2]})" if m[2] in known else m[0], text)
    return _BOTH_WAYS_FLAG_FIRST.sub(lambda m: m[1] if m[1] in known else m[0], text)


_BOTH_WAYS_FLAG_LAST = re.compile(r"\((\w+)=\w+, (--[\w-]+)\)")
_BOTH_WAYS_FLAG_FIRST = re.compile(r"(--[\w-]+) \((\w+)=\w+\)")


def print_warnings(caught: list[warnings.WarningMessage],
                   flags: Mapping[str, str] | None = None) -> None:
    """Each warning as ``explore-sim: warning: ...``, on one line, once (a deck read twice
    warns twice).

    Parameters
    ----------
    caught : list of warnings.WarningMessage
    flags : mapping of str to str, optional
        As for :func:`print_error`: a warning names the options by their flags.
    """
    for text in dict.fromkeys(' '.join(str(item.message).split()) for item in caught):
        print_line(f"{PROG}: warning: {flag_text(text, flags)}")


def write_output(text: str) -> int:
    """Print the results; the exit status (a closed pipe, a full disk or no output).

    Parameters
    ----------
    text : str

    Returns
    -------
    int
    """
    if sys.stdout is None:
        print_error(OptionError("cannot write the results: standard output is closed"))
        return 2
    try:
        sys.stdout.write(printable(text))
        sys.stdout.flush()
    except BrokenPipeError:
        _discard_stdout()
        return BROKEN_PIPE_STATUS
    except (OSError, ValueError) as error:
        _discard_stdout()
        reason = getattr(error, "strerror", None) or error
        print_error(OptionError(f"cannot write the results to standard output: {reason}"))
        return 2
    return 0


def _discard_stdout() -> None:
    """Point standard output at the null device, so nothing fails again at exit."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (a test's capture): nothing is flushed at exit
