"""Worker processes end with the process that started them.

A pool's workers wait on a pipe for their next chunk. When the run that started them ends
without closing the pool (kill -9, SIGTERM, a crash), nothing closes that pipe for them:
the other workers, forked from the same process, hold it open too, and they would wait for
ever. So each worker, as it starts (:func:`die_with_parent`), asks the kernel to kill it
when its parent ends (Linux: ``prctl(PR_SET_PDEATHSIG, SIGKILL)``), and on every platform
watches from a daemon thread that the process that made the pool is still there, ending at
once when it is not: by its parent pid on POSIX (an orphan gets a new parent), else by the
sentinel :mod:`multiprocessing` gives a worker of its maker (the maker's process handle on
Windows; a pipe only the maker holds under ``forkserver``, whose workers are the fork
server's children, and the fork server lives as long as they do).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
import time
from collections.abc import Callable

__all__ = ["die_with_parent", "WATCH_SECONDS", "ORPHAN_STATUS"]

#: How often the watch thread looks for its parent.
WATCH_SECONDS = 0.2
#: The exit status of a worker whose parent ended.
ORPHAN_STATUS = 70
_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int | None = None) -> None:
    """Make this worker process end when the process that made its pool does.

    Parameters
    ----------
    parent : int, optional
        The pool maker's pid, this process's parent (``fork`` and ``spawn``); None when the
        maker is not the parent (``forkserver``): its sentinel is watched instead.
    """
    _parent_death_signal()
    target: Callable[[int], None]
    if parent is not None and os.name == "posix":
        if os.getppid() != parent:  # it ended before the signal was set
            os._exit(ORPHAN_STATUS)
        target, args = _watch_parent, (parent,)
    else:
        maker = multiprocessing.parent_process()
        if maker is None or maker.sentinel is None:
            return
        target, args = _watch_sentinel, (maker.sentinel,)
    threading.Thread(target=target, args=args, name="explore-sim-parent-watch",
                     daemon=True).start()


def _parent_death_signal() -> None:
    """Linux: SIGKILL for this process when the thread that made it ends (nothing elsewhere,
    or when the C library cannot be reached)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        pass  # the watch thread still ends this process


def _watch_parent(parent: int) -> None:
    """End this process as soon as its parent is another (the first one ended)."""
    while os.getppid() == parent:
        time.sleep(WATCH_SECONDS)
    os._exit(ORPHAN_STATUS)


def _watch_sentinel(sentinel: int) -> None:
    """End this process as soon as the pool's maker is gone (its sentinel is ready)."""
    multiprocessing.connection.wait([sentinel])
    os._exit(ORPHAN_STATUS)
