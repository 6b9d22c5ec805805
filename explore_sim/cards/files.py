"""Opening user files safely: regular files only, a bounded number of bytes, bounded lines.

Every file a user names (a decklist, a card file, a card database to import, the card
index) is opened through :func:`open_regular_file`. A FIFO, a device such as ``/dev/zero``,
a socket or a directory is refused with a one-line error naming the path, before anything
is read (a FIFO is opened without blocking, so a pipe with no writer cannot hang the
command). Reads stop at a byte cap, so no file can make memory grow without bound.
"""

from __future__ import annotations

import os
import stat
from os import PathLike
from pathlib import Path
from typing import BinaryIO

from ..errors import CardError, ExploreSimError, clip

__all__ = ["open_regular_file", "check_regular_file", "read_file_bytes", "read_text_file",
           "check_lines"]

_KINDS = (
    (stat.S_ISDIR, "is a directory"),
    (stat.S_ISFIFO, "is a FIFO (named pipe)"),
    (stat.S_ISCHR, "is a device"),
    (stat.S_ISBLK, "is a device"),
    (stat.S_ISSOCK, "is a socket"),
)


def open_regular_file(
    path: str | PathLike[str],
    what: str,
    error: type[ExploreSimError] = CardError,
    max_bytes: int | None = None,
) -> BinaryIO:
    """Open ``path`` for binary reading if it is a regular file of at most ``max_bytes``.

    Parameters
    ----------
    path : path-like
        The file.
    what : str
        What the file should be, for messages ("decklist file", "card file").
    error : ExploreSimError subclass
        The error raised, with a one-line message naming the path.
    max_bytes : int, optional
        The largest size accepted (checked on the open file, so a file swapped after a
        check is caught too). Callers that stream must still stop reading at their cap.

    Returns
    -------
    binary file
        Open for reading; the caller closes it.

    Raises
    ------
    ExploreSimError
        A missing or unreadable path, anything but a regular file, or a file too large.
    """
    label = str(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise error(f"{label}: no such {what}") from None
    except IsADirectoryError:
        raise error(f"{label}: is a directory, not a {what}") from None
    except OSError as exc:
        raise error(f"{label}: cannot read: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        for test, kind in _KINDS:
            if test(info.st_mode):
                raise error(f"{label}: {kind}, not a {what} (only regular files are read)")
        if max_bytes is not None and info.st_size > max_bytes:
            raise error(f"{label}: too large for a {what} ({info.st_size:,} bytes, "
                        f"at most {max_bytes:,})")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def check_regular_file(
    path: str | PathLike[str], what: str, error: type[ExploreSimError] = CardError
) -> Path:
    """Refuse ``path`` unless it is a regular file that can be read.

    Parameters
    ----------
    path : path-like
        The file.
    what : str
        What the file should be, for messages.
    error : ExploreSimError subclass
        The error raised.

    Returns
    -------
    Path
        ``path``.
    """
    open_regular_file(path, what, error).close()
    return Path(path)


def read_file_bytes(
    path: str | PathLike[str],
    what: str,
    error: type[ExploreSimError],
    max_bytes: int,
) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` bytes.

    Parameters
    ----------
    path : path-like
        The file.
    what : str
        What the file should be, for messages ("decklist file").
    error : ExploreSimError subclass
        The error raised, naming the path, for every problem of :func:`open_regular_file`
        and for a file that grew past the cap while it was read.
    max_bytes : int
        The largest size accepted.

    Returns
    -------
    bytes
    """
    with open_regular_file(path, what, error, max_bytes) as handle:
        try:
            raw = handle.read(max_bytes + 1)
        except OSError as exc:
            raise error(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > max_bytes:
        raise error(f"{path}: too large for a {what} (more than {max_bytes:,} bytes)")
    return raw


def read_text_file(
    path: str | PathLike[str],
    what: str,
    error: type[ExploreSimError],
    max_bytes: int,
) -> str:
    """The UTF-8 text of a regular file of at most ``max_bytes`` bytes (a BOM is dropped).

    Parameters
    ----------
    path, what, error, max_bytes
        As for :func:`read_file_bytes`; ``error`` is also raised for bytes that are not UTF-8.

    Returns
    -------
    str
    """
    raw = read_file_bytes(path, what, error, max_bytes)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not a UTF-8 text file (byte {exc.start} is not UTF-8)") from None


def check_lines(text: str, source: str, max_length: int, error: type[ExploreSimError]) -> None:
    """Refuse text with a line longer than ``max_length`` characters, naming source and line.

    Every line pattern of the parsers runs in linear time; this cap also bounds the work
    and the size of anything echoed from a line.

    Parameters
    ----------
    text : str
        The whole text.
    source : str
        The file's name, for messages (``deck.txt:2: line too long ...``).
    max_length : int
        The longest line accepted.
    error : ExploreSimError subclass
        The error raised.
    """
    if len(text) <= max_length:
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if len(line) > max_length:
            raise error(f"{source}:{number}: line too long ({len(line):,} characters, at most "
                        f"{max_length:,}): {clip(line.strip())!r}")
