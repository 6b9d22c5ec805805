"""Runs off the request thread: a bounded pool, a bounded queue, progress and cancelling.

A run is a :class:`Job`. At most ``max_runs`` jobs run at once, in worker threads; at most
``max_queued`` more wait; past that :meth:`Jobs.submit` refuses with :class:`Busy`. The
analysis reports progress through the API's ``progress(done, total)`` callback after every
chunk of trials, and that callback is also where a job stops: when it was cancelled (the
cancel button), when its page closed its progress stream and no page opened it again within
``reopen_seconds`` (a reload opens it again), or when no page asked about it for
``orphan_seconds``, the callback raises :class:`RunCancelled`, the API's
:class:`~explore_sim.analysis.runner.StopRun`. A job therefore stops within one chunk of
trials (65,536) of being cancelled, and keeps what it finished: an analysis made of one run
of chunks returns the result of the chunks finished (the same as a run of that many trials
with the same seed), which the job keeps as its outcome in the ``cancelled`` state; an
analysis made of several runs (value, curve) lets the exception through, and the cancelled job has
no outcome, as has one cancelled before its first chunk finished.

When a job ends, however it ends, its work (the decks, the options) is dropped, garbage is
collected and, on glibc, the memory its chunks took is handed back to the system
(``malloc_trim``): an idle server holds only the results it keeps.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import dataclasses
import gc
import itertools
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..analysis.runner import StopRun
from ..errors import ExploreSimError

__all__ = ["Job", "Jobs", "Busy", "RunCancelled", "STATES", "release_memory"]

log = logging.getLogger("explore_sim.web")

#: A job's states, in order; the last three are final.
STATES = ("queued", "running", "done", "failed", "cancelled")


class RunCancelled(StopRun):
    """Raised by a cancelled job's progress callback: the analysis stops after the chunk
    just finished, and returns its result when it has one (:class:`StopRun`)."""


class Busy(Exception):
    """Every run slot and queue place is taken."""


@dataclasses.dataclass(eq=False)
class Job:
    """One run of an analysis.

    Attributes
    ----------
    id : str
        Unguessable (it is the only key to the run's results).
    total : int
        Trials to run.
    work : callable
        ``work(progress)`` returns the outcome; ``progress(done, total)`` as the API calls it.
    state : str
        One of :data:`STATES`.
    done : int
        Trials done so far.
    outcome : object
        What ``work`` returned: once done, or when it was cancelled and the analysis
        returned the result of the trials it finished (``done`` of ``total``); else None.
    error : str
        Why it failed or was cancelled.
    """

    id: str
    total: int
    work: Callable[[Callable[[int, int], None]], Any]
    context: dict[str, Any] = dataclasses.field(default_factory=dict)
    state: str = "queued"
    done: int = 0
    outcome: Any = None
    error: str = ""
    created: float = dataclasses.field(default_factory=time.monotonic)
    seen: float = dataclasses.field(default_factory=time.monotonic)
    started: float | None = None
    finished: float | None = None
    watchers: int = 0
    closed: bool = False
    cancel_reason: str = ""
    number: int = 0
    first_report: tuple[float, int] | None = None

    @property
    def final(self) -> bool:
        """Done, failed or cancelled."""
        return self.state in STATES[2:]

    def timing(self) -> tuple[int, int | None]:
        """Seconds since the run started, and an estimate of the seconds left: the trials
        left at the pace measured since its first progress report (a compilation or a deal
        before it aside); None before a second report.

        Returns
        -------
        (int, int or None)
        """
        if self.started is None:
            return 0, None
        now = (self.finished or time.monotonic())
        left = None
        if self.first_report is not None and self.done > self.first_report[1]:
            pace = (now - self.first_report[0]) / (self.done - self.first_report[1])
            left = round(pace * max(self.total - self.done, 0))
        return round(now - self.started), left

    def fraction(self) -> float:
        """The share of trials done, 0 to 1.

        Returns
        -------
        float
        """
        return min(1.0, self.done / self.total) if self.total else 0.0


class Jobs:
    """The server's runs.

    Parameters
    ----------
    max_runs : int
        Jobs running at once (worker threads).
    max_queued : int
        Jobs waiting for a worker beyond those.
    keep : int
        Finished jobs kept for their results and downloads (the oldest are forgotten).
    orphan_seconds : float
        A job no page has watched for this long is cancelled.
    reopen_seconds : float
        A job whose last page closed its progress stream is cancelled unless a page opens it
        again within this long (a reload of the run's page does).
    describe : callable, optional
        Turns the message of a job's error into what the page shows (default: as it is).
    """

    def __init__(self, max_runs: int = 1, max_queued: int = 4, keep: int = 32,
                 orphan_seconds: float = 20.0, reopen_seconds: float = 5.0,
                 describe: Callable[[str], str] | None = None) -> None:
        if max_runs < 1 or max_queued < 0 or keep < 1:
            raise ValueError("max_runs and keep must be >= 1 and max_queued >= 0")
        self.max_runs, self.max_queued, self.keep = max_runs, max_queued, keep
        self.orphan_seconds, self.reopen_seconds = orphan_seconds, reopen_seconds
        self._describe = describe or str
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=max_runs, thread_name_prefix="explore-run")
        self._numbers = itertools.count(1)
        self._closed = False

    # ------------------------------------------------------------------ submitting

    def submit(self, total: int, work: Callable[[Callable[[int, int], None]], Any],
               context: dict[str, Any] | None = None) -> Job:
        """Queue a run.

        Parameters
        ----------
        total : int
            Trials it will run.
        work : callable
            ``work(progress)``; see :class:`Job`.
        context : dict, optional
            Kept with the job for the page (the analysis, its options, the permalink).

        Returns
        -------
        Job

        Raises
        ------
        Busy
            When ``max_runs`` jobs run and ``max_queued`` wait.
        """
        with self._lock:
            if self._closed:
                raise Busy("the server is shutting down")
            active = [job for job in self._jobs.values() if not job.final]
            if len(active) >= self.max_runs + self.max_queued:
                running = sum(job.state == "running" for job in active)
                raise Busy(f"the server is busy: {running} run(s) in progress and "
                           f"{len(active) - running} waiting, the most it takes; try again "
                           "when one has finished")
            job = Job(secrets.token_urlsafe(12), total, work, dict(context or {}),
                      number=next(self._numbers))
            self._jobs[job.id] = job
            self._forget_old()
        self._pool.submit(self._run, job)
        return job

    def _forget_old(self) -> None:
        finished = [job for job in self._jobs.values() if job.final]
        for job in finished[: max(0, len(finished) - self.keep)]:
            del self._jobs[job.id]

    # ------------------------------------------------------------------ running

    def _run(self, job: Job) -> None:
        with self._lock:
            if job.final:  # cancelled while it waited
                return
            job.state, job.started = "running", time.monotonic()

        def progress(done: int, total: int) -> None:
            job.done, job.total = int(done), int(total)
            if job.first_report is None:
                job.first_report = (time.monotonic(), job.done)
            self._stop_if_cancelled(job)

        try:
            self._stop_if_cancelled(job)
            outcome = job.work(progress)
        except StopRun:  # nothing finished, or nothing complete (an analysis of several runs)
            self._finish(job, "cancelled", error=job.cancel_reason or "cancelled")
        except ExploreSimError as error:
            self._finish(job, "failed", error=self._describe(str(error)))
        except Exception:  # never a traceback, nor the error's name, on the page
            log.exception("run %s failed", job.id)
            self._finish(job, "failed", error="the run failed unexpectedly; the server's log "
                                              "has the details")
        else:  # stopped early by a cancel: the outcome of the trials finished
            stopped = bool(job.cancel_reason) and job.done < job.total
            self._finish(job, "cancelled" if stopped else "done", outcome=outcome,
                         error=job.cancel_reason if stopped else "")
            del outcome
        release_memory()

    def _stop_if_cancelled(self, job: Job) -> None:
        if job.cancel_reason:
            raise RunCancelled(job.cancel_reason)
        unwatched = time.monotonic() - job.seen if job.watchers == 0 else 0.0
        if job.closed and unwatched > self.reopen_seconds:
            job.cancel_reason = "cancelled: the page was closed"
            raise RunCancelled(job.cancel_reason)
        if unwatched > self.orphan_seconds:
            job.cancel_reason = "cancelled: no page was watching the run"
            raise RunCancelled(job.cancel_reason)

    def _finish(self, job: Job, state: str, outcome: Any = None, error: str = "") -> None:
        with self._lock:
            job.outcome, job.error = outcome, error
            job.finished = time.monotonic()
            if state == "done":
                job.done = job.total
            job.work = _spent
            job.state = state  # last: whoever sees the final state sees the outcome
            self._forget_old()

    # ------------------------------------------------------------------ asking and cancelling

    def get(self, job_id: str) -> Job | None:
        """The job with this id (it counts as being watched now), or None.

        Parameters
        ----------
        job_id : str

        Returns
        -------
        Job or None
        """
        with self._lock:
            job = self._jobs.get(job_id)
            if job is not None:
                job.seen = time.monotonic()
            return job

    def position(self, job: Job) -> int:
        """Jobs queued before ``job`` (0 when it runs or has finished).

        Parameters
        ----------
        job : Job

        Returns
        -------
        int
        """
        with self._lock:
            if job.state != "queued":
                return 0
            return sum(other.state == "queued" and other.number < job.number
                       for other in self._jobs.values())

    def cancel(self, job: Job, reason: str = "cancelled") -> None:
        """Stop ``job``: at once when it waits, after its current chunk when it runs.

        Parameters
        ----------
        job : Job
        reason : str
            Shown on the page.
        """
        with self._lock:
            if job.final:
                return
            job.cancel_reason = job.cancel_reason or reason
            if job.state == "queued":
                job.error, job.finished, job.work = job.cancel_reason, time.monotonic(), _spent
                job.state = "cancelled"

    def watch(self, job: Job) -> None:
        """A page opened the job's progress stream.

        Parameters
        ----------
        job : Job
        """
        with self._lock:
            job.watchers += 1
            job.seen = time.monotonic()
            job.closed = False

    def unwatch(self, job: Job) -> None:
        """A page closed the job's progress stream; when the last one goes, the run is
        cancelled at its next chunk after ``reopen_seconds`` unless a page opens the stream
        again (a reload).

        Parameters
        ----------
        job : Job
        """
        with self._lock:
            job.watchers -= 1
            job.seen = time.monotonic()
            job.closed = job.watchers == 0

    def close(self) -> None:
        """Cancel every job and stop the workers (server shutdown)."""
        with self._lock:
            self._closed = True
            jobs = list(self._jobs.values())
        for job in jobs:
            self.cancel(job, "cancelled: the server stopped")
        self._pool.shutdown(wait=False, cancel_futures=True)


def _spent(progress: Callable[[int, int], None]) -> Any:  # pragma: no cover - never called
    raise RunCancelled("this run has already finished")


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None on another C library."""
    name = ctypes.util.find_library("c")
    try:
        trim = ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None
    if trim is not None:
        trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


_TRIM = _malloc_trim()


def release_memory() -> None:
    """Collect garbage and hand freed memory back to the system (glibc keeps the memory a
    finished run's chunks took, in its arenas, until it is trimmed)."""
    gc.collect()
    if _TRIM is not None:
        _TRIM(0)
