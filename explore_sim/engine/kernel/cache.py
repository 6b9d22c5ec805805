"""Keeping numba's on-disk cache of the compiled game in step with its sources.

The compiled functions are cached (``cache=True``) in the ``__pycache__`` folder beside
their modules. numba checks a cached function against its own module's file only, but a
compiled function carries the code of every function it calls, which lives in the other
modules of this package: after an edit to one of them, the cached callers would still run
the old code. :func:`drop_stale_cache` therefore keys the whole cache on a digest of every
source file here and removes the cached functions when the digest changes.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

__all__ = ["drop_stale_cache", "sources_digest"]

HERE = Path(__file__).resolve().parent
STAMP = "kernel-sources.sha256"


def sources_digest(folder: Path = HERE) -> str:
    """The SHA-256 of the package's ``.py`` files, in name order."""
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def drop_stale_cache(folder: Path = HERE) -> bool:
    """Remove the cached compiled functions if the sources changed since they were cached.

    Returns whether anything was removed. A folder that cannot be written is left alone (numba
    then caches elsewhere, or compiles each time).
    """
    cache = folder / "__pycache__"
    digest = sources_digest(folder)
    stamp = cache / STAMP
    try:
        if stamp.read_text(encoding="ascii") == digest:
            return False
    except OSError:
        pass
    removed = False
    try:
        for path in [*cache.glob("*.nbi"), *cache.glob("*.nbc")]:
            path.unlink(missing_ok=True)
            removed = True
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest, encoding="ascii")
    except OSError:
        pass
    return removed
