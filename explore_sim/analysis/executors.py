"""Where chunks of trials run: in this process, in local worker processes or on a Dask cluster.

A *task* is a callable ``task(trials, chunk_seed)`` that plays one chunk of trials and returns
its statistics, already aggregated (so they are small). The analyses build their tasks from
module-level classes holding plain data (the deck, the game options, the policy), so a task
pickles: it can go to a worker process started with ``spawn`` (the default on macOS and
Windows) or to a Dask worker on another machine. A :class:`Job` is one chunk: the index of
its task, its trials and its own ``SeedSequence`` child.

An :class:`Executor` runs jobs and yields their results *in job order*, with a bounded
number of jobs in flight (so memory stays bounded however many jobs there are). A chunk's
numbers depend only on its task and its seed, and the analyses merge results in job order,
so every executor, worker count and cluster gives the same numbers.

- :class:`InProcessExecutor`: one job after the other in this process, nothing pickled
  (the compiled kernel plays each chunk's games on every core, in threads:
  :mod:`explore_sim.engine.threads`);
- :class:`ProcessExecutor`: a :class:`concurrent.futures.ProcessPoolExecutor` with any start
  method; the tasks reach each worker once, when it starts, and every worker ends with the
  process that started it, however that ends (:mod:`.parent_watch`);
- :class:`DaskExecutor`: a ``dask.distributed`` cluster (``pip install
  'explore_sim[distributed]'``), reached at a scheduler address.
"""

from __future__ import annotations

import dataclasses
import gc
import multiprocessing
import numbers
import os
import pickle
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, NamedTuple

import numpy as np

from .._version import __version__
from ..engine.buffers import begin_reuse, reusing_chunk_arrays
from ..engine.threads import available_cores, kernel_threads, one_thread
from ..errors import ExecutorError, OptionError, OptionWarning, clip
from .dask_connect import QuietDask, check_address, check_timeout, connect as connect_client
from .parent_watch import die_with_parent

__all__ = [
    "Job",
    "Executor",
    "InProcessExecutor",
    "ProcessExecutor",
    "DaskExecutor",
    "executor_for",
    "executing",
    "check_workers",
    "available_cores",
    "SCHEDULER_ENV",
    "DEFAULT_CONNECT_TIMEOUT",
    "WORKER_MALLOC",
]

#: The environment variable naming a Dask scheduler (Dask's own name for it).
SCHEDULER_ENV = "DASK_SCHEDULER_ADDRESS"
#: Seconds to wait for a Dask scheduler to answer and for its first worker.
DEFAULT_CONNECT_TIMEOUT = 10.0

Task = Callable[[int, np.random.SeedSequence], Any]


class Job(NamedTuple):
    """One chunk of trials.

    Attributes
    ----------
    task : int
        Index of the task (in the sequence given to :meth:`Executor.map`) that plays it.
    trials : int
        Trials in the chunk.
    seed : numpy.random.SeedSequence
        The chunk's own seed.
    """

    task: int
    trials: int
    seed: np.random.SeedSequence


def check_workers(workers: object) -> int:
    """Validate a worker count.

    More workers than cores only cost memory (each is a process holding a chunk), so a
    larger count is lowered to the number of cores with an :class:`OptionWarning`.

    Parameters
    ----------
    workers : object
        A whole number >= 1, or 0 for every core.

    Returns
    -------
    int
        Processes to use (at most the number of cores).

    Raises
    ------
    OptionError
        For anything else.
    """
    if isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers < 0:
        raise OptionError(f"workers must be a whole number >= 0 (0: every core), got "
                          f"{clip(repr(workers))}")
    count, cores = int(workers), available_cores()
    if count > cores:
        warnings.warn(f"workers: {count} is more than the {cores} cores available; "
                      f"running on {cores}", OptionWarning, stacklevel=2)
        return cores
    return count or cores


class Executor:
    """Runs jobs and yields their results in job order.

    Use it as a context manager: :meth:`close` releases its processes or its connection.

    Attributes
    ----------
    capacity : int
        Jobs it runs at the same time (worker processes, or the cluster's worker threads).
    """

    capacity: int = 1

    def map(self, tasks: Sequence[Task], jobs: Iterable[Job]) -> Iterator[Any]:
        """Run ``tasks[job.task](job.trials, job.seed)`` for every job.

        Parameters
        ----------
        tasks : sequence of callable
            The tasks the jobs name.
        jobs : iterable of Job
            Read lazily, a bounded number ahead of the results.

        Returns
        -------
        iterator
            The jobs' results, in job order.
        """
        raise NotImplementedError

    def describe(self) -> str:
        """Where the jobs run, for metadata and messages.

        Returns
        -------
        str
        """
        return type(self).__name__

    def close(self) -> None:
        """Release what the executor holds (nothing by default)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class InProcessExecutor(Executor):
    """One job after the other in this process; nothing is pickled, so any task works."""

    def map(self, tasks: Sequence[Task], jobs: Iterable[Job]) -> Iterator[Any]:
        """Run the jobs here, one at a time.

        Parameters
        ----------
        tasks : sequence of callable
        jobs : iterable of Job

        Returns
        -------
        iterator
            The jobs' results, in job order.
        """
        def run() -> Iterator[Any]:
            with reusing_chunk_arrays():  # a chunk's array serves the next (let go after)
                for job in jobs:
                    yield tasks[job.task](job.trials, job.seed)

        return run()

    def describe(self) -> str:
        """``"this process"``.

        Returns
        -------
        str
        """
        return "this process"


def _in_order(submit: Callable[[Job], Future], jobs: Iterable[Job], window: int,
              result: Callable[[Future], Any], cancel: Callable[[list[Future]], object]
              ) -> Iterator[Any]:
    """Keep up to ``window`` jobs in flight and yield their results in job order."""
    pending: deque[Future] = deque()
    jobs = iter(jobs)
    try:
        for job in jobs:
            pending.append(submit(job))
            if len(pending) >= window:
                break
        while pending:
            future = pending.popleft()
            following = next(jobs, None)
            if following is not None:
                pending.append(submit(following))
            yield result(future)
    finally:
        if pending:
            cancel(list(pending))


_TASKS: tuple[Task, ...] = ()


def _install_tasks(tasks: tuple[Task, ...]) -> None:
    global _TASKS
    _TASKS = tasks


def _start_worker(parent: int | None, tasks: tuple[Task, ...]) -> None:
    """A pool worker's start: end with the process that made the pool, hold the tasks."""
    die_with_parent(parent)
    _install_tasks(tasks)
    begin_reuse()  # for the worker's life: it ends with the run


def _run_installed(task: int, trials: int, seed: np.random.SeedSequence) -> Any:
    with one_thread():  # the worker processes are the parallelism
        return _TASKS[task](trials, seed)


def _call(task: Task, trials: int, seed: np.random.SeedSequence) -> Any:
    with one_thread():  # a worker process's or a Dask worker's chunk
        return task(trials, seed)


def _unpicklable(value: Any, where: str = "") -> str | None:
    """Where in ``value`` (a task) the part that cannot be pickled sits, as a short phrase
    (``"policy 'greedy'"``), or None if it pickles."""
    try:
        pickle.dumps(value)
        return None
    except Exception:  # noqa: BLE001 - any pickling failure is reported the same way
        pass
    name = getattr(value, "name", None)
    if callable(value) and isinstance(name, str):  # a named policy: its label says it best
        return f"{where or 'the task'} {clip(name)!r}"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            found = _unpicklable(getattr(value, field.name), field.name)
            if found:
                return found
    elif isinstance(value, (tuple, list)):
        for item in value:
            found = _unpicklable(item, where)
            if found:
                return found
    name = getattr(value, "__name__", None) or type(value).__name__
    return f"{where or 'the task'} {clip(name)!r}"


class ProcessExecutor(Executor):
    """Jobs in a pool of local worker processes.

    Under the ``fork`` start method every worker inherits the tasks when it starts, so they may
    hold anything (a lambda policy) and a job sends only its task index, trials and seed. Under
    ``spawn`` and ``forkserver`` each job is sent with its task, pickled, so the tasks must be
    picklable (preset and expression policies, module-level functions). With the default start
    method (``start_method=None``), tasks that cannot be pickled run under ``fork`` where the
    platform has it.

    Parameters
    ----------
    workers : int
        Worker processes (>= 1).
    start_method : {"fork", "spawn", "forkserver"}, optional
        How workers start (default: :func:`multiprocessing.get_start_method`).
    """

    def __init__(self, workers: int, start_method: str | None = None) -> None:
        if start_method is not None and start_method not in multiprocessing.get_all_start_methods():
            raise OptionError(f"start method must be one of "
                              f"{', '.join(multiprocessing.get_all_start_methods())}, got "
                              f"{clip(repr(start_method))}")
        self.capacity = max(1, int(workers))
        self.start_method = start_method

    def _method(self, tasks: tuple[Task, ...]) -> str:
        method = self.start_method or multiprocessing.get_start_method()
        if method == "fork":
            return method
        where = _unpicklable(tasks)
        if where is None:
            return method
        if self.start_method is None and "fork" in multiprocessing.get_all_start_methods():
            return "fork"
        raise ExecutorError(
            f"worker processes started with {method} need the work pickled, and {where} "
            "cannot be (a lambda or a function defined inside another); define it at module "
            "level, use a preset or an expression policy, or run with workers=1"
        )

    def map(self, tasks: Sequence[Task], jobs: Iterable[Job]) -> Iterator[Any]:
        """Run the jobs in worker processes.

        Parameters
        ----------
        tasks : sequence of callable
        jobs : iterable of Job

        Returns
        -------
        iterator
            The jobs' results, in job order.

        Raises
        ------
        ExecutorError
            Tasks that cannot be pickled for the start method.
        """
        tasks = tuple(tasks)
        method = self._method(tasks)  # raises before any process starts
        return self._run(tasks, jobs, method)

    def _run(self, tasks: tuple[Task, ...], jobs: Iterable[Job], method: str) -> Iterator[Any]:
        context = multiprocessing.get_context(method)
        # Workers end with this process, however it ends (a fork server's workers are not
        # its children: they watch it another way).
        parent = None if method == "forkserver" else os.getpid()
        if method == "fork":  # inherited by every worker: nothing is pickled
            pool = ProcessPoolExecutor(max_workers=self.capacity, mp_context=context,
                                       initializer=_start_worker, initargs=(parent, tasks))

            def submit(job: Job) -> Future:
                return pool.submit(_run_installed, *job)
        else:  # each job carries its task (a few kB), however many tasks there are
            pool = ProcessPoolExecutor(max_workers=self.capacity, mp_context=context,
                                       initializer=_start_worker, initargs=(parent, ()))

            def submit(job: Job) -> Future:
                return pool.submit(_call, tasks[job.task], job.trials, job.seed)
        try:
            yield from _in_order(submit, jobs, 2 * self.capacity, Future.result,
                                 lambda futures: [f.cancel() for f in futures])
        finally:
            pool.shutdown(cancel_futures=True)

    def describe(self) -> str:
        """``"N local processes (start method)"``.

        Returns
        -------
        str
        """
        method = self.start_method or multiprocessing.get_start_method()
        return f"{self.capacity} local processes ({method})"


#: The allocator settings that keep NumPy's chunk-sized arrays on the heap (glibc's largest
#: automatic thresholds, fixed), for Dask workers: their nanny sets ``MALLOC_TRIM_THRESHOLD_``,
#: which turns glibc's automatic mmap threshold off.
WORKER_MALLOC = {"MALLOC_TRIM_THRESHOLD_": "67108864", "MALLOC_MMAP_THRESHOLD_": "33554432"}


def _worker_versions() -> tuple[str, str]:
    """explore_sim and NumPy versions where this runs (on every Dask worker)."""
    return __version__, np.__version__


def _worker_facts() -> tuple[tuple[str, str], dict[str, str | None]]:
    """Versions and allocator settings where this runs (on every Dask worker)."""
    return _worker_versions(), {name: os.environ.get(name) for name in WORKER_MALLOC}


def _slow_allocator(settings: dict[str, str | None]) -> bool:
    """A fixed trim threshold without a large fixed mmap threshold: every array of a chunk
    (over 128 kB) is mapped and unmapped again, and a game takes about 1.5 times as long."""
    def size(name: str) -> int:
        value = (settings.get(name) or "").strip()
        return int(value) if value.isdigit() else 0

    trim = settings.get("MALLOC_TRIM_THRESHOLD_")
    return trim is not None and not (size("MALLOC_TRIM_THRESHOLD_") >= 1 << 24
                                     and size("MALLOC_MMAP_THRESHOLD_") >= 1 << 24)


class DaskExecutor(Executor):
    """Jobs on a ``dask.distributed`` cluster.

    Every job is one Dask task carrying its chunk's task object, trials and seed; the
    cluster's workers need the same explore_sim and NumPy versions as this machine (checked
    when connecting, since other versions could give other numbers). The connection is made
    by the first :meth:`map` (or :meth:`connect`), so making the executor costs nothing.

    Parameters
    ----------
    scheduler : str or distributed.Client
        The scheduler's address (``tcp://HOST:PORT``, or ``tls://HOST:PORT`` with Dask's TLS
        settings), or a connected client (left open by :meth:`close`).
    timeout : float
        Seconds to wait for the scheduler to answer (the whole connection, handshake
        included), and for its first worker; at most an hour.

    Raises
    ------
    ExecutorError
        Dask is not installed, or an address that cannot be reached (empty, another scheme,
        no port); the scheduler and its workers are checked by :meth:`connect`.
    OptionError
        A timeout that is not a number of seconds from 0 to an hour, or a scheduler that is
        neither an address nor a client.
    """

    def __init__(self, scheduler: Any, timeout: float = DEFAULT_CONNECT_TIMEOUT) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise ExecutorError("a Dask scheduler needs Dask: pip install "
                                "'explore_sim[distributed]'") from None
        self.timeout = check_timeout(timeout)
        self._own = isinstance(scheduler, str)
        self._quiet = QuietDask()
        if self._own:
            self._address = check_address(scheduler)
            self.client: Any = None
        elif isinstance(scheduler, Client):
            self.client = scheduler
            self._address = str(
                scheduler.scheduler.address)  # type: ignore[union-attr]  # None until it starts
        else:
            raise OptionError(f"scheduler must be an address such as tcp://HOST:PORT or a "
                              f"distributed.Client, got {clip(repr(scheduler))}")
        self._checked = False

    def connect(self) -> None:
        """Connect (if not yet connected) and check the workers; :meth:`map` calls it.

        Raises
        ------
        ExecutorError
            The scheduler cannot be reached, has no worker, or a worker runs other versions.
        """
        if self._checked:
            return
        self._quiet.start()  # failures reach the user as one ExecutorError, not Dask's logs
        if self.client is None:
            try:
                self.client = connect_client(self._address, self.timeout)
            except BaseException:
                self._quiet.stop()
                raise
        try:
            self._check_workers()
        except BaseException:
            self.close()
            raise
        self.capacity = max(1, sum(self.client.nthreads().values()))
        self._checked = True

    @property
    def address(self) -> str:
        """The scheduler's address.

        Returns
        -------
        str
        """
        return self._address

    def _check_workers(self) -> None:
        try:
            self.client.wait_for_workers(1, timeout=self.timeout)
        except (TimeoutError, OSError):
            raise ExecutorError(f"the Dask scheduler at {self.address} has no worker "
                                f"(waited {self.timeout:g} s)") from None
        here = _worker_versions()
        slow = []
        for worker, facts in sorted(self.client.run(_worker_facts, on_error="return").items()):
            if isinstance(facts, BaseException):
                raise ExecutorError(f"Dask worker {worker} cannot run explore_sim "
                                    f"({type(facts).__name__}: {clip(facts)}); install "
                                    f"explore_sim {here[0]} on every worker")
            theirs, malloc = facts
            if tuple(theirs) != here:
                raise ExecutorError(
                    f"Dask worker {worker} runs explore_sim {theirs[0]} with NumPy "
                    f"{theirs[1]}, this machine explore_sim {here[0]} with NumPy {here[1]}; "
                    "other versions could give other numbers: install the same on every "
                    "worker")
            if _slow_allocator(malloc):
                slow.append(f"MALLOC_TRIM_THRESHOLD_={malloc['MALLOC_TRIM_THRESHOLD_']}")
        if slow:
            warnings.warn(
                f"{len(slow)} Dask worker(s) run with {slow[0]} (the Dask nanny's default), "
                "which makes games take about 1.5 times as long; start them with "
                + " ".join(f"{k}={v}" for k, v in WORKER_MALLOC.items())
                + " in their environment", OptionWarning, stacklevel=2)

    def map(self, tasks: Sequence[Task], jobs: Iterable[Job]) -> Iterator[Any]:
        """Run the jobs on the cluster.

        Parameters
        ----------
        tasks : sequence of callable
        jobs : iterable of Job

        Returns
        -------
        iterator
            The jobs' results, in job order.

        Raises
        ------
        ExecutorError
            A task that cannot be sent, or a cluster that lost the work.
        """
        tasks = tuple(tasks)
        self.connect()
        where = _unpicklable(tasks)
        if where is not None:
            import cloudpickle

            try:
                cloudpickle.dumps(tasks)
            except Exception:  # noqa: BLE001 - Dask sends with cloudpickle
                raise ExecutorError(f"{where} cannot be pickled to be sent to Dask workers; "
                                    "run it locally") from None
        return self._run(tasks, jobs)

    def _run(self, tasks: tuple[Task, ...], jobs: Iterable[Job]) -> Iterator[Any]:
        from distributed import CancelledError, TimeoutError as DaskTimeout

        def submit(job: Job) -> Any:
            return self.client.submit(_call, tasks[job.task], job.trials, job.seed, pure=False)

        def result(future: Any) -> Any:
            try:
                return future.result()
            except (CancelledError, DaskTimeout, OSError) as error:
                reason = getattr(error, "reason", None)  # a future the scheduler cancelled
                why = f"cancelled ({clip(reason, 60)})" if isinstance(reason, str) else \
                    f"{type(error).__name__}: {clip(error)}"
                raise ExecutorError(f"the Dask cluster at {self.address} lost the work: "
                                    f"{why}") from None
            except Exception as error:
                if type(error).__name__ == "KilledWorker":
                    raise ExecutorError(f"the Dask cluster at {self.address} lost the work: "
                                        f"{clip(error)}") from None
                raise

        def cancel(futures: list[Any]) -> None:
            try:
                self.client.cancel(futures)
            except Exception:  # noqa: BLE001 - a lost cluster has nothing left to cancel
                pass

        yield from _in_order(submit, jobs, 2 * self.capacity + 2, result, cancel)

    def describe(self) -> str:
        """``"Dask at ADDRESS (N threads)"``.

        Returns
        -------
        str
        """
        return f"Dask at {self.address} ({self.capacity} threads)"

    def close(self) -> None:
        """Disconnect, if this executor made the connection."""
        if self._own and self.client is not None:
            client, self.client = self.client, None
            try:
                client.close(timeout=self.timeout)
            except Exception:  # noqa: BLE001 - a lost cluster fails to close in many ways
                pass
            del client
            gc.collect()  # its connection is gone now, not noisily at exit
        self._checked = False
        self._quiet.stop()


def executor_for(workers: object = 1, scheduler: Any = None,
                 timeout: float = DEFAULT_CONNECT_TIMEOUT) -> Executor:
    """The executor for a ``workers`` count or a Dask ``scheduler``.

    Parameters
    ----------
    workers : int
        Local processes (1: this process; 0: every core).
    scheduler : str, distributed.Client or Executor, optional
        A Dask scheduler's address (``tcp://HOST:PORT``) or client, or an :class:`Executor`
        (returned as it is). ``workers`` must then be 1. An empty address means none.
    timeout : float
        Seconds to wait for a scheduler.

    Returns
    -------
    Executor

    Raises
    ------
    OptionError
        A bad worker count, both ``workers`` and ``scheduler``, or a bad
        ``$EXPLORE_SIM_THREADS`` (:func:`~explore_sim.engine.threads.kernel_threads`).
    ExecutorError
        A scheduler address without Dask installed (the scheduler itself is reached when
        the first chunk is sent).
    """
    kernel_threads()  # a bad $EXPLORE_SIM_THREADS is refused before any game, on any engine
    if scheduler is None or (isinstance(scheduler, str) and not scheduler.strip()):
        count = check_workers(workers)
        return InProcessExecutor() if count == 1 else ProcessExecutor(count)
    if isinstance(workers, bool) or workers != 1:
        raise OptionError("workers runs local processes and scheduler a Dask cluster: "
                          "choose one")
    if isinstance(scheduler, Executor):
        return scheduler
    return DaskExecutor(scheduler, timeout)


@contextmanager
def executing(workers: object = 1, scheduler: Any = None,
              timeout: float = DEFAULT_CONNECT_TIMEOUT) -> Iterator[Executor]:
    """:func:`executor_for` as a context: closes the executor it made on leaving (an
    :class:`Executor` or a client passed in is left open).

    Parameters
    ----------
    workers : int
    scheduler : str, distributed.Client or Executor, optional
    timeout : float
        As for :func:`executor_for`.

    Yields
    ------
    Executor
    """
    executor = executor_for(workers, scheduler, timeout)
    try:
        yield executor
    finally:
        if executor is not scheduler:
            executor.close()
