"""Where numba caches a package's compiled functions: keyed on the package's sources, healed
when an entry is damaged, in memory when there is nowhere to write.

numba caches a compiled function (``cache=True``) in files named after the function and
checks them against that function's own source file only. A compiled function carries the
code of every function it calls, which lives in other modules of the package: after an edit
to one of them, numba's check alone would load the old machine code. A
:class:`CompileCache` therefore keeps the whole package's cache in a folder named after a
digest of every source file of the package (and of the files named with ``also``: modules
whose values the compiled code holds as constants), wherever the cache is, so an edited
source gets a fresh folder and every function is compiled again.

The folder is made in the first of these places that can be written:

1. ``$NUMBA_CACHE_DIR`` (numba's own setting), when it is set;
2. the package's ``__pycache__`` folder;
3. the user's cache folder, ``$XDG_CACHE_HOME/explore_sim`` (default ``~/.cache``).

Where none can (a read-only installation run by a user without a home folder, a
``NUMBA_CACHE_DIR`` that is a file or read-only), the functions are compiled in memory by
each process, and :meth:`CompileCache.notice` says why. An entry that cannot be loaded (bytes
that are not numba's, an empty or truncated file) is removed when it is read, said once
per process, and the function compiled again; an entry that cannot be written leaves the
function compiled in memory. Folders of older sources beside the current one are removed,
keeping the few most recently used (another checkout may share ``$NUMBA_CACHE_DIR``).

This module knows numba's cache, not the package it caches: :func:`cache_for` is given the
package's folder, and :meth:`CompileCache.attach` a numba dispatcher.
"""

from __future__ import annotations

import functools
import glob
import hashlib
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import clip

__all__ = ["CompileCache", "cache_for", "sources_digest", "NOTICES", "KEEP_FOLDERS"]

#: One-line notices for the person waiting (the command line prints them on a terminal).
NOTICES = logging.getLogger("explore_sim.notices")
#: Cache folders of one name kept in one place: the current sources' and the most recently
#: used others'.
KEEP_FOLDERS = 4


def sources_digest(package: Path, also: Sequence[Path] = ()) -> str:
    """The SHA-256 of every ``.py`` file under ``package`` (in path order) and of ``also``.

    Parameters
    ----------
    package : Path
        The package's folder (its sub-packages included).
    also : sequence of Path
        Other source files whose values the compiled code holds.

    Returns
    -------
    str
        64 hexadecimal digits.

    Raises
    ------
    OSError
        A source that cannot be read.
    """
    digest = hashlib.sha256()
    files = sorted(path for path in package.rglob("*.py") if "__pycache__" not in path.parts)
    for path in files:
        name = path.relative_to(package).as_posix()
        digest.update(name.encode("utf-8", "surrogateescape") + b"\0" + path.read_bytes() + b"\0")
    for path in also:
        digest.update(b"+" + path.name.encode("utf-8", "surrogateescape") + b"\0"
                      + path.read_bytes() + b"\0")
    return digest.hexdigest()


class CompileCache:
    """numba's on-disk cache of one package's compiled functions (see the module docstring).

    Parameters
    ----------
    package : Path
        The package's folder.
    label : str
        What is compiled, for notices ("game kernel").
    also : sequence of Path
        Other source files the digest covers.

    Attributes
    ----------
    digest : str or None
        The sources' digest (None: a source could not be read).
    directory : Path or None
        The cache folder (None: compiled in memory).
    reason : str or None
        Why there is no cache folder.
    """

    def __init__(self, package: Path, label: str, also: Sequence[Path] = ()) -> None:
        self.package = Path(package)
        self.label = label
        self.name = "explore-sim-" + "-".join(label.split())
        self._said: set[str] = set()
        self._lock = threading.Lock()
        self.directory: Path | None = None
        self.reason: str | None = None
        try:
            self.digest: str | None = sources_digest(self.package, also)
        except OSError as error:
            self.digest = None
            self.reason = f"its sources cannot be read ({error.strerror or error})"
            return
        self.directory, self.reason = self._choose()

    def places(self) -> list[tuple[str, Path]]:
        """Where the cache may be, in order of preference, each with how it is named.

        Returns
        -------
        list of (str, Path)
        """
        from numba.core import config

        places = []
        chosen = config.CACHE_DIR or os.environ.get("NUMBA_CACHE_DIR", "")
        if chosen:
            places.append(("NUMBA_CACHE_DIR", Path(chosen)))
        places.append(("the package's __pycache__", self.package / "__pycache__"))
        try:
            home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        except (RuntimeError, KeyError):  # no home folder to be found
            home = ""
        if home:
            places.append(("the user's cache folder", Path(home) / "explore_sim"))
        return places

    def _choose(self) -> tuple[Path | None, str | None]:
        """The first place where the cache folder can be made and written, else why none."""
        assert self.digest is not None  # chosen only once the sources are read
        problems = []
        for how, base in self.places():
            folder = base / f"{self.name}-{self.digest[:20]}"
            try:
                folder.mkdir(parents=True, exist_ok=True)
                tempfile.TemporaryFile(dir=folder).close()
            except (OSError, ValueError) as error:  # ValueError: a NUL in the path
                problems.append(f"{how} {clip(str(base), 60)}: "
                                f"{getattr(error, 'strerror', None) or error}")
                continue
            self._tidy(base, folder)
            return folder, None
        return None, "nowhere to cache it (" + "; ".join(problems) + ")"

    def _tidy(self, base: Path, folder: Path) -> None:
        """Mark ``folder`` as used now; remove the folders of other sources beyond the most
        recently used (:data:`KEEP_FOLDERS` in all), and the loose files of numba's own
        layout in the package's ``__pycache__``."""
        try:
            os.utime(folder)
            others = [path for path in base.glob(glob.escape(self.name) + "-*")
                      if path != folder and path.is_dir() and not path.is_symlink()]
            others.sort(key=lambda path: path.stat().st_mtime, reverse=True)
            for old in others[KEEP_FOLDERS - 1:]:
                shutil.rmtree(old, ignore_errors=True)
            if base == self.package / "__pycache__":
                for loose in [*base.glob("*.nbi"), *base.glob("*.nbc"),
                              base / "kernel-sources.sha256"]:
                    loose.unlink(missing_ok=True)
        except OSError:
            pass  # tidying is a courtesy: the cache works without it

    def attach(self, dispatcher: Any) -> Any:
        """Give a numba dispatcher (``numba.njit(..., cache=False)``) this cache.

        Parameters
        ----------
        dispatcher : numba Dispatcher

        Returns
        -------
        numba Dispatcher
            The same dispatcher: cached in :attr:`directory`, or compiled in memory when
            there is none (or the function itself, with ``NUMBA_DISABLE_JIT``).
        """
        if self.directory is None or not hasattr(dispatcher, "enable_caching"):
            return dispatcher
        from numba.core import config

        saved = config.CACHE_DIR, getattr(config, "CACHE_LOCATOR_CLASSES", "")
        config.CACHE_DIR = str(self.directory)
        if hasattr(config, "CACHE_LOCATOR_CLASSES"):
            config.CACHE_LOCATOR_CLASSES = ""  # numba's own locator of CACHE_DIR, nothing else
        try:
            dispatcher._cache = _healing_cache()(dispatcher.py_func, self)
        except (OSError, RuntimeError) as error:  # the folder went away: compiled in memory
            self.directory = None
            self.reason = f"its cache folder cannot be used ({clip(str(error), 120)})"
        finally:
            config.CACHE_DIR = saved[0]
            if hasattr(config, "CACHE_LOCATOR_CLASSES"):
                config.CACHE_LOCATOR_CLASSES = saved[1]
        return dispatcher

    def notice(self, cached: str) -> str:
        """The notice of a compilation: ``cached`` when the result is cached, else why not.

        Parameters
        ----------
        cached : str
            What to say when the compiled functions are cached.

        Returns
        -------
        str
        """
        if self.directory is not None:
            return cached
        return (f"compiling the {self.label} in memory, as every run here will (about half a "
                f"minute): {self.reason}; NUMBA_CACHE_DIR=FOLDER caches it in a folder that can "
                "be written")

    def discard(self, cache: Any, error: BaseException) -> None:
        """Remove a damaged entry (a function's index and data files); say so once.

        Parameters
        ----------
        cache : numba FunctionCache
            The function's cache, whose entry could not be loaded.
        error : BaseException
            What loading it raised.
        """
        folder, base = Path(cache.cache_path), cache._impl.filename_base
        damaged = [folder / f"{base}.nbi", *folder.glob(glob.escape(base) + ".*.nbc")]
        for path in damaged:
            try:
                path.unlink(missing_ok=True)
            except OSError:
                pass
        reason = " ".join(str(error).split()) or type(error).__name__
        self._say("damaged", f"the {self.label}'s cache held a damaged entry ({base}: "
                             f"{clip(reason, 80)}); it was removed and is compiled again")

    def unsaved(self, error: OSError) -> None:
        """Say once that compiled code could not be written to the cache (it runs anyway).

        Parameters
        ----------
        error : OSError
        """
        self._say("unsaved", f"the {self.label} cannot be saved in its cache "
                             f"{clip(str(self.directory), 60)} "
                             f"({error.strerror or error}); it is compiled in memory")

    def _say(self, key: str, text: str) -> None:
        with self._lock:
            if key in self._said:
                return
            self._said.add(key)
        NOTICES.info(text)


@functools.cache
def _healing_cache() -> type:
    """numba's ``FunctionCache``, made to discard an entry it cannot load (and compile the
    function again) and to carry on when it cannot save one."""
    from numba.core.caching import FunctionCache

    class HealingCache(FunctionCache):
        def __init__(self, py_func: Any, owner: CompileCache) -> None:
            self._owner = owner
            super().__init__(py_func)

        def load_overload(self, sig: Any, target_context: Any) -> Any:
            try:
                return super().load_overload(sig, target_context)
            except Exception as error:  # noqa: BLE001 - any damage numba's loading meets
                self._owner.discard(self, error)
                return None

        def save_overload(self, sig: Any, data: Any) -> None:
            try:
                super().save_overload(sig, data)
            except OSError as error:
                self._owner.unsaved(error)

    return HealingCache


_CACHES: dict[tuple[str, str, tuple[str, ...]], CompileCache] = {}
_CACHES_LOCK = threading.Lock()


def cache_for(package: str | os.PathLike[str], label: str,
              also: Sequence[str | os.PathLike[str]] = ()) -> CompileCache:
    """The cache of ``package``'s compiled functions, made once per process.

    Parameters
    ----------
    package : path-like
        The package's folder.
    label : str
        What is compiled, for notices.
    also : sequence of path-like
        Other source files whose values the compiled code holds.

    Returns
    -------
    CompileCache
    """
    key = (os.path.realpath(package), label, tuple(os.path.realpath(p) for p in also))
    with _CACHES_LOCK:
        if key not in _CACHES:
            _CACHES[key] = CompileCache(Path(key[0]), label, [Path(p) for p in key[2]])
        return _CACHES[key]
