"""Never a silent wait: the compiled game's first compilation is told in Python and Jupyter
(a CompileNotice warning), on the command line (a notice, then the time it takes), and to
anyone listening (explore_sim.progress.add_compile_listener)."""

from __future__ import annotations

import logging
import threading
import warnings

import pytest

from explore_sim import progress
from explore_sim.engine import kernel
from explore_sim.errors import CompileNotice


@pytest.fixture
def unsaid(monkeypatch):
    """A process that has not announced a compilation yet, not the command line's."""
    monkeypatch.setattr(kernel, "_SAID", [])
    monkeypatch.setattr(progress, "_TERMINAL", [])


def test_python_and_jupyter_are_told_by_a_warning(unsaid):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kernel._announce()
        kernel._announce()  # once per process
    assert [(w.category, str(w.message)) for w in caught] == [
        (CompileNotice, kernel.COMPILE_NOTICE)]


def test_the_command_line_is_told_by_its_notice(unsaid, monkeypatch, request):
    """The command line (which shows notices itself) gets the log record, no warning."""
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    monkeypatch.setattr(kernel.NOTICES, "handlers", [Keep()])
    monkeypatch.setattr(kernel.NOTICES, "disabled", False)
    level = kernel.NOTICES.level
    kernel.NOTICES.setLevel(logging.INFO)  # setLevel, which clears the logger's cache
    request.addfinalizer(lambda: kernel.NOTICES.setLevel(level))
    progress.notices_on_terminal()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kernel._announce()
    assert records == [kernel.COMPILE_NOTICE]


def test_listeners_are_told_the_time_while_it_compiles(monkeypatch):
    told = []
    monkeypatch.setattr(progress, "_COMPILE_LISTENERS", [])
    progress.add_compile_listener(lambda seconds, done: told.append((seconds, done)))
    monkeypatch.setattr(kernel, "compiling", lambda: True)
    done = threading.Event()
    ticker = threading.Thread(target=kernel._tick, args=(done, 0.01))
    ticker.start()
    while len(told) < 3:
        done.wait(0.01)
    done.set()
    ticker.join()
    assert [d for _, d in told[:3]] == [False] * 3 and told[-1][1] is True
    times = [seconds for seconds, _ in told]
    assert times == sorted(times)


def test_nothing_is_told_when_the_game_loads_from_the_cache(monkeypatch):
    told = []
    monkeypatch.setattr(progress, "_COMPILE_LISTENERS", [])
    progress.add_compile_listener(lambda seconds, done: told.append(done))
    monkeypatch.setattr(kernel, "compiling", lambda: False)
    done = threading.Event()
    ticker = threading.Thread(target=kernel._tick, args=(done, 0.01))
    ticker.start()
    done.wait(0.05)
    done.set()
    ticker.join()
    assert told == []


def test_a_log_file_gets_the_notice_and_the_time_it_took(monkeypatch):
    """Standard error that is not a terminal (a log file, a pipe): the notice and the time
    the compile took, one line each, without the terminal's ticking counter."""
    import io

    from explore_sim.cli import output

    log = io.StringIO()
    monkeypatch.setattr(output.sys, "stderr", log)
    output._TerminalNotices().emit(logging.makeLogRecord({"msg": kernel.COMPILE_NOTICE}))
    output._compile_time(3, False)
    output._compile_time(29.4, True)
    assert log.getvalue().splitlines() == [f"explore-sim: {kernel.COMPILE_NOTICE}",
                                           "explore-sim: the game kernel compiled in 29 s"]
