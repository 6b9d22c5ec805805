"""One writer at a time for a results file: an exclusive lock held for the whole run.

The lock is a hidden neighbour of the results file (``.r.parquet.lock``) holding the pid of
the run that writes the file. It is locked with ``fcntl.lockf``, a POSIX record lock: the
operating system drops it when the process ends, however it ends (a kill -9 included), and
the worker processes a run forks do not inherit it. A second run asking for the same file is
refused at once, naming the holder's pid; a second sweep of the same process is refused as
well. On Windows the lock is ``msvcrt.locking`` on one byte of the file.

The run's file is written through a partial neighbour of its own (``.r.parquet.PID.partial``),
so two writers never share one; :func:`remove_stale_partials` clears those of runs that
ended without removing theirs.

Both names can be guessed, so neither is ever followed: the lock file is opened with
``O_NOFOLLOW`` and must be a regular file (a symbolic link or a FIFO planted at its name is
refused, naming it), and a partial file is always made afresh (:func:`create_partial`:
whatever is at its name removed, then ``O_CREAT | O_EXCL | O_NOFOLLOW``). The results
file itself is named by its resolved path (a symbolic link ``--out`` is its target), so
that two runs writing one file through different names take the same lock.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import sys
import threading
import time
import warnings
from pathlib import Path

from ..errors import OptionError, OptionWarning, clip

__all__ = ["ResultsLock", "hidden_neighbour", "partial_path", "remove_stale_partials",
           "create_partial"]

#: Neighbour names longer than this use a digest of the file's name instead (file systems
#: take names of at most 255 bytes).
_LONGEST_NAME = 200
#: Where the Windows lock sits, past any pid written at the start of the file.
_WINDOWS_LOCK_OFFSET = 1 << 20
_UNSUPPORTED = {errno.ENOLCK, errno.EINVAL, getattr(errno, "ENOTSUP", -1),
                getattr(errno, "EOPNOTSUPP", -1)}
#: Opening a neighbour never follows a symbolic link at its name, never waits on a FIFO.
_NEIGHBOUR_FLAGS = (getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
                    | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))

# Lock files held by this process: a POSIX lock does not keep out the process holding it,
# and closing any descriptor of the file would drop it, so this process checks here first.
_HELD: set[str] = set()
_HELD_GUARD = threading.Lock()


def hidden_neighbour(path: Path, suffix: str) -> Path:
    """``.NAME.SUFFIX`` beside ``path`` (a digest of the name when that would be too long).

    Parameters
    ----------
    path : Path
        The results file.
    suffix : str
        ``"lock"`` or ``"PID.partial"``.

    Returns
    -------
    Path
    """
    name = f".{path.name}.{suffix}"
    if len(name.encode("utf-8", "surrogateescape")) > _LONGEST_NAME:
        digest = hashlib.sha256(path.name.encode("utf-8", "surrogateescape")).hexdigest()
        name = f".{digest[:24]}.{suffix}"
    return path.with_name(name)


def partial_path(path: Path, pid: int | None = None) -> Path:
    """The partial file a process writes ``path`` through: ``.NAME.PID.partial``.

    Parameters
    ----------
    path : Path
        The results file.
    pid : int, optional
        The writing process (default: this one).

    Returns
    -------
    Path
    """
    return hidden_neighbour(path, f"{os.getpid() if pid is None else pid}.partial")


def create_partial(partial: Path) -> int:
    """A new, empty partial file at ``partial``, open for writing: whatever was at its name (a
    partial of a run that ended, or a symbolic link planted there) is removed first, never
    followed.

    Parameters
    ----------
    partial : Path
        This process's partial file (:func:`partial_path`).

    Returns
    -------
    int
        The file's descriptor, blocking; the caller closes it.

    Raises
    ------
    OSError
        A name that cannot be removed or made (a directory there, no permission).
    """
    try:
        os.unlink(partial)
    except FileNotFoundError:
        pass
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NEIGHBOUR_FLAGS, 0o644)
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return fd


def remove_stale_partials(path: Path) -> None:
    """Remove the partial files of ``path`` left by processes that are no longer running.

    Call it holding the file's lock (no live writer then has a partial file). Nothing is
    removed where a process cannot be looked up by its pid (Windows).

    Parameters
    ----------
    path : Path
        The results file.
    """
    if os.name != "posix":
        return
    prefix, _, _ = hidden_neighbour(path, "0.partial").name.rpartition("0.partial")
    try:
        names = os.listdir(path.parent)
    except OSError:
        return
    for name in names:
        pid = name[len(prefix):-len(".partial")]
        if not (name.startswith(prefix) and name.endswith(".partial") and pid.isdigit()):
            continue
        if int(pid) != os.getpid() and not _running(int(pid)):
            try:
                os.unlink(path.parent / name)
            except OSError:
                pass


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process
        return True
    return True


def _lock(fd: int) -> None:
    """Lock ``fd`` without waiting; BlockingIOError or PermissionError if it is held."""
    if sys.platform == "win32":  # no fcntl there
        import msvcrt

        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            raise BlockingIOError(errno.EAGAIN, "locked") from None
        os.lseek(fd, 0, os.SEEK_SET)
        return
    import fcntl

    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


class ResultsLock:
    """The exclusive lock of a results file, held from :meth:`acquire` to :meth:`release`.

    Use it as a context manager.

    Parameters
    ----------
    path : str or PathLike
        The results file (it need not exist).
    label : str
        The option that named the file, for messages.

    Raises
    ------
    OptionError
        From :meth:`acquire`: another run holds the lock (naming its pid), or the lock file
        cannot be made.
    """

    def __init__(self, path: str | os.PathLike[str], label: str = "--out") -> None:
        self.path = Path(path)
        self.label = label
        self.lock_path = hidden_neighbour(self.path, "lock")
        self._key = os.path.realpath(self.lock_path)
        self._fd: int | None = None

    def acquire(self) -> ResultsLock:
        """Take the lock, or refuse at once if another run holds it.

        Returns
        -------
        ResultsLock
            Itself.
        """
        with _HELD_GUARD:
            if self._key in _HELD:
                raise self._held(os.getpid())
            _HELD.add(self._key)
        try:
            self._fd = self._take()
        except BaseException:
            with _HELD_GUARD:
                _HELD.discard(self._key)
            raise
        if self._fd is not None:
            remove_stale_partials(self.path)
        return self

    def _take(self) -> int | None:
        """The locked descriptor of the lock file (None where the file system has no locks)."""
        for _ in range(20):  # the holder removes the file when it ends: lock the new one
            fd = self._open()
            try:
                _lock(fd)
            except (BlockingIOError, PermissionError):
                os.close(fd)
                raise self._held(self._holder()) from None
            except OSError as error:
                os.close(fd)
                if error.errno not in _UNSUPPORTED:
                    raise OptionError(f"{self.label}: cannot lock {clip(self.path)}: "
                                      f"{error.strerror or error}") from None
                warnings.warn(f"{self.label}: the file system of {clip(self.path)} does not "
                              "lock files; never run two sweeps into it at once",
                              OptionWarning, stacklevel=3)
                return None
            if self._still_named(fd):
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode())
                return fd
            os.close(fd)
        raise OptionError(f"{self.label}: cannot lock {clip(self.path)}: its lock file keeps "
                          "being replaced")

    def _open(self) -> int:
        """The lock file's descriptor: made if missing, never through a symbolic link, and
        only ever a regular file."""
        try:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | _NEIGHBOUR_FLAGS, 0o644)
        except OSError as error:
            what = "a symbolic link" if error.errno == errno.ELOOP else \
                error.strerror or str(error)
            advice = "; remove it" if error.errno == errno.ELOOP else ""
            raise OptionError(f"{self.label}: cannot lock {clip(self.path)}: cannot make "
                              f"{clip(self.lock_path.name)}: {what}{advice}") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise OptionError(f"{self.label}: cannot lock {clip(self.path)}: "
                              f"{clip(self.lock_path.name)} is not a regular file; remove it")
        return fd

    def _still_named(self, fd: int) -> bool:
        """Whether the locked file is still the one at the lock path (not removed by a
        holder that ended while this run opened it)."""
        try:
            here, there = os.fstat(fd), os.stat(self.lock_path)
        except OSError:
            return False
        return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)

    def _holder(self) -> int | None:
        """The pid written in the lock file (the holder writes it just after locking)."""
        deadline = time.monotonic() + 1.0
        while True:
            try:
                fd = os.open(self.lock_path, os.O_RDONLY | _NEIGHBOUR_FLAGS)
                try:
                    text = os.read(fd, 32).decode("ascii", "replace").strip()
                finally:
                    os.close(fd)
            except OSError:
                text = ""
            if text.isdigit() or time.monotonic() > deadline:
                return int(text) if text.isdigit() else None
            time.sleep(0.01)

    def _held(self, pid: int | None) -> OptionError:
        who = "this process" if pid == os.getpid() else "another run"
        where = f" (pid {pid})" if pid is not None else ""
        return OptionError(f"{self.label}: {clip(self.path)} is being written by {who}{where}; "
                           "wait for it to finish or choose another --out file")

    def release(self) -> None:
        """Remove the lock file and drop the lock (nothing if it is not held)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            if self._still_named(fd):
                try:
                    os.unlink(self.lock_path)
                except OSError:
                    pass  # Windows: an open file stays; the next run locks it again
            os.close(fd)
        with _HELD_GUARD:
            _HELD.discard(self._key)

    def __enter__(self) -> ResultsLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
