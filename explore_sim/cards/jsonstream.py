"""Streaming reads of large card-database files: decompression with a bomb guard, and JSON
arrays / objects decoded one element at a time.

A 150 MB Scryfall file decoded with ``json.load`` takes well over a gigabyte; here only one
card object (a few kilobytes) plus a read buffer is in memory at a time. Only regular files
are read, at most :data:`MAX_IMPORT_BYTES` bytes of them, decompressed or not.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from ..errors import CardError
from .files import open_regular_file

__all__ = ["open_text", "iter_array", "iter_object", "first_char", "expect_end", "MAX_RATIO",
           "MAX_IMPORT_BYTES"]

#: Largest decompressed / compressed size ratio accepted (card JSON compresses ~5-10x).
MAX_RATIO = 200
#: The most bytes read from a card database file, before or after decompression (4 GiB;
#: Scryfall's largest bulk file, all_cards, is about 2.5 GB).
MAX_IMPORT_BYTES = 4 << 30
#: Decompressed bytes read before the ratio is checked.
_RATIO_GRACE = 16 << 20
#: Largest single JSON value (one card) accepted.
_MAX_VALUE = 64 << 20
_CHUNK = 1 << 20

_MAGIC = {
    b"\x1f\x8b": "gzip",
    b"\xfd7zXZ\x00": "xz",
    b"BZh": "bzip2",
    b"PK\x03\x04": "zip",
    b"\x89PNG": "png",
    b"%PDF": "pdf",
}


class _GuardedReader(io.RawIOBase):
    """Bytes of a card file, decompressed if ``decompressed`` is given, refusing more than
    :data:`MAX_IMPORT_BYTES` and a decompression bomb (ratio above MAX_RATIO).

    Closing it closes the decompressor and the file under it.
    """

    def __init__(self, raw: IO[bytes], decompressed: IO[bytes] | None, label: str) -> None:
        self.raw, self.decompressed, self.label = raw, decompressed, label
        self.out = 0

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        if not self.closed:
            try:
                if self.decompressed is not None:
                    self.decompressed.close()
            finally:
                self.raw.close()
        super().close()

    def readinto(self, buffer: Any) -> int:
        source = self.raw if self.decompressed is None else self.decompressed
        try:
            data = source.read(len(buffer))
        except (OSError, EOFError, lzma.LZMAError, zlib.error, ValueError) as error:
            if self.decompressed is None and isinstance(error, OSError):
                raise CardError(f"{self.label}: cannot read: {error.strerror or error}") from None
            raise CardError(f"{self.label}: corrupt compressed data ({error})") from None
        self.out += len(data)
        if self.out > MAX_IMPORT_BYTES:
            raise CardError(f"{self.label}: refused: more than {MAX_IMPORT_BYTES:,} bytes of "
                            "card data")
        if self.decompressed is not None and self.out > _RATIO_GRACE:
            consumed = max(self.raw.tell(), 1)
            if self.out / consumed > MAX_RATIO:
                raise CardError(
                    f"{self.label}: refused: decompresses more than {MAX_RATIO} times its size "
                    "(a decompression bomb?)"
                )
        buffer[: len(data)] = data
        return len(data)


def open_text(path: Path, label: str | None = None) -> IO[str]:
    """Open a card file as UTF-8 text, decompressing gzip, xz or bzip2 by their magic bytes.

    ``path`` must be a regular file (:func:`~explore_sim.cards.files.open_regular_file`);
    ``label`` names it in messages (default: the path).
    """
    label = str(path) if label is None else label
    raw = open_regular_file(path, "card database file", CardError, MAX_IMPORT_BYTES)
    try:
        head = raw.read(8)
        raw.seek(0)
    except OSError as error:
        raw.close()
        raise CardError(f"{label}: cannot read: {error.strerror or error}") from None
    kind = next((name for magic, name in _MAGIC.items() if head.startswith(magic)), "plain")
    if kind in {"zip", "png", "pdf"}:
        raw.close()
        raise CardError(f"{label}: a {kind} file, not a Scryfall or MTGJSON card file")
    decompressed: IO[bytes] | None = None
    if kind != "plain":
        opener = {"gzip": gzip.GzipFile, "xz": lzma.LZMAFile, "bzip2": bz2.BZ2File}[kind]
        decompressed = opener(fileobj=raw) if kind == "gzip" else opener(raw)
    binary = io.BufferedReader(_GuardedReader(raw, decompressed, label), _CHUNK)
    return io.TextIOWrapper(binary, encoding="utf-8", errors="strict")


class JsonReader:
    """A read buffer over a text stream, decoding one JSON value at a time."""

    def __init__(self, stream: IO[str], label: str) -> None:
        self.stream, self.label = stream, label
        self.buffer = ""
        self.pos = 0
        self.offset = 0  # characters dropped from the front of the buffer
        self.eof = False
        self.decoder = json.JSONDecoder()

    def _fill(self, size: int = _CHUNK) -> bool:
        if self.eof:
            return False
        try:
            chunk = self.stream.read(size)
        except UnicodeDecodeError:
            raise CardError(f"{self.label}: not a UTF-8 JSON file") from None
        if not chunk:
            self.eof = True
            return False
        self.offset += self.pos
        self.buffer = self.buffer[self.pos:] + chunk
        self.pos = 0
        return True

    def fail(self, message: str) -> CardError:
        return CardError(f"{self.label}: malformed JSON near character "
                         f"{self.offset + self.pos}: {message}")

    def peek(self) -> str:
        """The next non-space character, without consuming it ("" at the end)."""
        while True:
            while self.pos < len(self.buffer) and self.buffer[self.pos] in " \t\r\n":
                self.pos += 1
            if self.pos < len(self.buffer):
                return self.buffer[self.pos]
            if not self._fill():
                return ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            found = self.peek() or "the end of the file"
            raise self.fail(f"expected {char!r}, found {found!r}")
        self.pos += 1

    def value(self) -> Any:
        """Decode the next JSON value, reading more as needed."""
        self.peek()
        while True:
            try:
                value, end = self.decoder.raw_decode(self.buffer, self.pos)
            except json.JSONDecodeError as error:
                # Incomplete at the end of the buffer, or malformed: read more (as much
                # again, so a large value is decoded a few times only) and retry, up to the
                # size of the largest value we accept.
                pending = len(self.buffer) - self.pos
                if (pending > _MAX_VALUE or not _may_continue(error, len(self.buffer))
                        or not self._fill(max(_CHUNK, pending))):
                    message = error.msg.removesuffix(" starting at")  # json's text goes on
                    if self.eof and (error.msg.startswith("Unterminated")
                                     or error.pos >= len(self.buffer.rstrip())):
                        message += " at the end of the file (is it cut short?)"
                    raise self.fail(message) from None
                continue
            except RecursionError:
                raise self.fail("nested too deeply") from None
            except ValueError as error:  # a number of more than 4300 digits
                raise self.fail(str(error).split(";")[0]) from None
            if end == len(self.buffer) and not self.eof and isinstance(value, (int, float)):
                self._fill()  # a number may continue in the next chunk
                continue
            self.pos = end
            return value


def _may_continue(error: json.JSONDecodeError, length: int) -> bool:
    """Whether more text could complete a value that failed to decode at ``error``."""
    return error.pos >= length - 16 or error.msg.startswith("Unterminated string")


def first_char(stream: IO[str], label: str) -> tuple[str, JsonReader]:
    """The first non-space character of the stream, and a reader positioned before it."""
    reader = JsonReader(stream, label)
    return reader.peek(), reader


def expect_end(reader: JsonReader) -> None:
    """Refuse anything but whitespace after the JSON document.

    Parameters
    ----------
    reader : JsonReader
        The reader, positioned after the document.

    Raises
    ------
    CardError
        Naming the first character found.
    """
    char = reader.peek()
    if char:
        raise reader.fail(f"unexpected {char!r} after the end of the JSON document")


def iter_array(reader: JsonReader) -> Iterator[Any]:
    """Decode the elements of a top-level JSON array one at a time."""
    reader.expect("[")
    if reader.peek() == "]":
        reader.pos += 1
        return
    while True:
        yield reader.value()
        char = reader.peek()
        if char == ",":
            reader.pos += 1
        elif char == "]":
            reader.pos += 1
            return
        else:
            raise reader.fail(f"expected ',' or ']', found {char or 'the end of the file'!r}")


def iter_object(
    reader: JsonReader, descend: str | None = None
) -> Iterator[tuple[str, str | None, Any]]:
    """Decode the members of a JSON object one at a time, as ``(key, None, value)``.

    The member called ``descend`` is not decoded whole: its own members are yielded one at a
    time as ``(descend, key, value)`` (for MTGJSON's large ``data`` object).
    """
    reader.expect("{")
    if reader.peek() == "}":
        reader.pos += 1
        return
    while True:
        key = reader.value()
        if not isinstance(key, str):
            raise reader.fail("object keys must be strings")
        reader.expect(":")
        if key == descend:
            if reader.peek() != "{":
                raise reader.fail(f"{descend!r} must be an object")
            for inner, _, value in iter_object(reader):
                yield key, inner, value
        else:
            yield key, None, reader.value()
        char = reader.peek()
        if char == ",":
            reader.pos += 1
        elif char == "}":
            reader.pos += 1
            return
        else:
            raise reader.fail(f"expected ',' or '}}', found {char or 'the end of the file'!r}")
