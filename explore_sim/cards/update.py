"""``explore-sim cards update``: download Scryfall's current ``oracle_cards`` file and import it.

This is the only part of explore_sim that uses the network, and it trusts the server's
answer no further than it must:

* the base URL must be ``http(s)://HOST[:PORT][/PATH]``;
* the download link the server lists is followed only if it is http(s) (https when the base
  URL is), on the base URL's host or on a host allowed by ``download_hosts`` (default
  :data:`DEFAULT_DOWNLOAD_HOSTS`, where Scryfall keeps its bulk files) or by
  ``$EXPLORE_SIM_DOWNLOAD_HOSTS``; redirects are held to the same rule;
* the listing may be at most :data:`MAX_LISTING_BYTES` and the download at most
  ``max_bytes`` (default :data:`DEFAULT_MAX_BYTES`);
* every read waits at most ``timeout`` seconds, and the whole download stops at
  ``deadline`` seconds.

The file is downloaded to a temporary file in the card directory and imported from there;
only when the import succeeded is it renamed into place and the index replaced (atomically).
A failed, truncated, oversized, slow or interrupted download leaves the previous file and
index as they were, and the temporary files of a killed run are removed by the next one.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from .._version import __version__
from ..errors import CardError, OptionError, clip
from ..progress import ProgressBar
from .card_index import ImportReport, cards_dir, import_cards, prepare_cards_dir, temporary_file

__all__ = [
    "DEFAULT_BASE_URL",
    "BASE_URL_ENV",
    "DOWNLOAD_HOSTS_ENV",
    "DEFAULT_DOWNLOAD_HOSTS",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_DEADLINE",
    "MAX_LISTING_BYTES",
    "DOWNLOAD_NAME",
    "update_cards",
]

#: Scryfall's API.
DEFAULT_BASE_URL = "https://api.scryfall.com"
#: Environment variable overriding the base URL.
BASE_URL_ENV = "EXPLORE_SIM_SCRYFALL_URL"
#: Environment variable naming more hosts the download may come from (comma-separated).
DOWNLOAD_HOSTS_ENV = "EXPLORE_SIM_DOWNLOAD_HOSTS"
#: Hosts the download may come from besides the base URL's: Scryfall's bulk file host.
DEFAULT_DOWNLOAD_HOSTS = ("data.scryfall.io",)
#: The largest download accepted (the oracle_cards file is about 160 MB).
DEFAULT_MAX_BYTES = 2_000_000_000
#: Seconds the whole download may take.
DEFAULT_DEADLINE = 1800.0
#: The largest bulk-data listing accepted.
MAX_LISTING_BYTES = 1 << 20
#: File name of the downloaded bulk file inside the card directory.
DOWNLOAD_NAME = "scryfall-oracle-cards.json"
_CHUNK = 1 << 16
_HEADERS = {"User-Agent": f"explore_sim/{__version__}",
            "Accept": "application/json;q=0.9,*/*;q=0.8"}


def update_cards(
    directory: str | os.PathLike[str] | None = None,
    base_url: str | None = None,
    timeout: float = 60.0,
    progress: IO[str] | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    deadline: float = DEFAULT_DEADLINE,
    download_hosts: Sequence[str] = (),
) -> ImportReport:
    """Download the current ``oracle_cards`` bulk file and import it.

    Parameters
    ----------
    directory : path, optional
        The card directory (:func:`explore_sim.cards.card_index.cards_dir`).
    base_url : str, optional
        The API's base URL; default ``$EXPLORE_SIM_SCRYFALL_URL`` or Scryfall's.
    timeout : float
        Seconds to wait for the server at each step (> 0).
    progress : text stream, optional
        Where a progress bar is drawn (standard error from the command line).
    max_bytes : int
        The largest download accepted.
    deadline : float
        Seconds the listing and the download may take together (> 0).
    download_hosts : sequence of str
        More hosts the download may come from, besides the base URL's,
        :data:`DEFAULT_DOWNLOAD_HOSTS` and those in ``$EXPLORE_SIM_DOWNLOAD_HOSTS``.

    Raises
    ------
    OptionError
        A malformed base URL, timeout, deadline or size cap.
    CardError
        Any failure of the server, the download or the import; the previous file and index
        are unchanged.
    """
    base = (base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL).rstrip("/")
    base_host = _check_base_url(base)
    _check_seconds(timeout, "timeout")
    _check_seconds(deadline, "deadline")
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise OptionError(f"max_bytes must be a whole number >= 1, got {clip(repr(max_bytes))}")
    hosts = [*DEFAULT_DOWNLOAD_HOSTS, *os.environ.get(DOWNLOAD_HOSTS_ENV, "").split(","),
             *download_hosts]
    allowed = {base_host, *(host.strip().casefold() for host in hosts if host.strip())}
    secure = base.casefold().startswith("https:")
    target_dir = prepare_cards_dir(cards_dir(directory))
    clock = _Deadline(deadline, timeout)
    listing = _get_json(f"{base}/bulk-data", clock, allowed, secure)
    url = _download_url(listing, base, allowed, secure)
    temp = temporary_file(target_dir, "download", ".part")
    try:
        _download(url, temp, clock, max_bytes, allowed, secure, progress)
        report = import_cards(temp, directory, label=url)
        try:
            os.replace(temp, target_dir / DOWNLOAD_NAME)
        except OSError as error:
            raise CardError(f"{target_dir}: cannot keep the download: "
                            f"{error.strerror or error}") from None
    finally:
        temp.unlink(missing_ok=True)
    return report


def _check_base_url(url: str) -> str:
    """The base URL's host (lower case); OptionError unless ``http(s)://HOST[:PORT][/PATH]``."""
    shown = clip(url)
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        raise OptionError(f"base URL must not contain spaces or control characters, got {shown!r}")
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError:
        raise OptionError(f"base URL {shown!r} is malformed (a bad host or port)") from None
    if parts.scheme.casefold() not in {"http", "https"}:
        raise OptionError(f"base URL must start with http:// or https://, got {shown!r}")
    if not parts.hostname or parts.query or parts.fragment or parts.username is not None:
        raise OptionError(f"base URL must be http(s)://HOST[:PORT][/PATH], got {shown!r}")
    del port
    return parts.hostname.casefold()


def _check_seconds(value: object, name: str) -> None:
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not math.isfinite(value) or value <= 0):
        raise OptionError(f"{name} must be a number of seconds > 0, got {clip(repr(value))}")


def _check_link(url: str, allowed: set[str], secure: bool, where: str) -> str:
    """``url`` if the update may follow it: http(s) on an allowed host (https if ``secure``)."""
    shown = clip(url)
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        raise CardError(f"{where}: refused a malformed link {shown!r}") from None
    scheme = parts.scheme.casefold()
    if scheme not in {"http", "https"} or (secure and scheme != "https"):
        wanted = "https" if secure else "http(s)"
        raise CardError(f"{where}: refused the link {shown!r}: only {wanted} links are followed")
    host = (parts.hostname or "").casefold()
    if host not in allowed:
        raise CardError(f"{where}: refused the link {shown!r}: host {clip(host, 60)!r} is not "
                        f"the base URL's; allow it with --download-host or ${DOWNLOAD_HOSTS_ENV}")
    if any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise CardError(f"{where}: refused a malformed link {shown!r}")
    return url


def _download_url(listing: Any, base: str, allowed: set[str], secure: bool) -> str:
    where = f"{base}/bulk-data"
    entries = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(entries, list):
        raise CardError(f"{where}: not a Scryfall bulk-data list")
    entry = next((e for e in entries if isinstance(e, dict) and e.get("type") == "oracle_cards"),
                 None)
    if entry is None or not isinstance(entry.get("download_uri"), str):
        raise CardError(f"{where}: no oracle_cards file listed")
    return _check_link(entry["download_uri"], allowed, secure, where)


class _Deadline:
    """The time left for the whole download, and the timeout of the next wait."""

    def __init__(self, seconds: float, timeout: float) -> None:
        self.seconds, self.timeout = seconds, timeout
        self.end = time.monotonic() + seconds

    def wait(self, url: str) -> float:
        """Seconds the next network step may wait; CardError once the deadline is past."""
        left = self.end - time.monotonic()
        if left <= 0:
            raise CardError(f"{clip(url)}: the update took longer than its deadline of "
                            f"{self.seconds:g} s; the previous card index is unchanged")
        return min(self.timeout, left)


class _CheckedRedirects(urllib.request.HTTPRedirectHandler):
    """Follow a redirect only to a link the update may follow (:func:`_check_link`)."""

    def __init__(self, allowed: set[str], secure: bool) -> None:
        self.allowed, self.secure = allowed, secure

    def redirect_request(self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str,
                         headers: http.client.HTTPMessage,
                         newurl: str) -> urllib.request.Request | None:
        _check_link(newurl, self.allowed, self.secure, f"{clip(req.full_url)} (redirect)")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _open(url: str, clock: _Deadline, allowed: set[str], secure: bool) -> Any:
    opener = urllib.request.build_opener(_CheckedRedirects(allowed, secure))
    request = urllib.request.Request(url, headers=_HEADERS)
    shown = clip(url)
    try:
        return opener.open(request, timeout=clock.wait(url))
    except CardError:
        raise
    except urllib.error.HTTPError as error:
        raise CardError(f"{shown}: the server answered {error.code} {clip(error.reason)}") from None
    except urllib.error.URLError as error:
        raise CardError(f"{shown}: cannot connect: {clip(error.reason)}") from None
    except (TimeoutError, OSError) as error:
        raise CardError(f"{shown}: {clip(error) or 'timed out'}") from None
    except (http.client.HTTPException, ValueError) as error:
        raise CardError(f"{shown}: a malformed answer ({type(error).__name__})") from None


def _read(response: Any, url: str, clock: _Deadline) -> bytes:
    """One chunk of the answer (b"" at its end), within the deadline."""
    clock.wait(url)
    try:
        return response.read1(_CHUNK)
    except (TimeoutError, OSError) as error:
        raise CardError(f"{clip(url)}: download failed: {clip(error) or 'timed out'}") from None
    except Exception as error:  # http.client.IncompleteRead and friends
        raise CardError(f"{clip(url)}: download failed: {type(error).__name__}") from None


def _get_json(url: str, clock: _Deadline, allowed: set[str], secure: bool) -> Any:
    chunks, size = [], 0
    with _open(url, clock, allowed, secure) as response:
        while chunk := _read(response, url, clock):
            size += len(chunk)
            if size > MAX_LISTING_BYTES:
                raise CardError(f"{clip(url)}: the answer is larger than "
                                f"{MAX_LISTING_BYTES:,} bytes")
            chunks.append(chunk)
    try:
        return json.loads(b"".join(chunks))
    except (ValueError, RecursionError):
        raise CardError(f"{clip(url)}: the answer is not JSON") from None


def _download(url: str, temp: Path, clock: _Deadline, max_bytes: int, allowed: set[str],
              secure: bool, progress: IO[str] | None) -> None:
    """Stream ``url`` into ``temp``, refusing more than ``max_bytes`` and a short answer."""
    shown = clip(url)
    with open(temp, "wb") as out, _open(url, clock, allowed, secure) as response:
        length = response.headers.get("Content-Length") or ""
        whole = length.isascii() and length.isdigit() and len(length) < 19
        expected = int(length) if whole else None
        if expected is not None and expected > max_bytes:
            raise CardError(f"{shown}: refused: {expected:,} bytes is more than the "
                            f"{max_bytes:,} allowed (--max-download)")
        received = 0
        bar = ProgressBar(progress, "downloading oracle_cards", expected, "MB", 1e6, delay=0)
        while chunk := _read(response, url, clock):
            received += len(chunk)
            if received > max_bytes:
                raise CardError(f"{shown}: refused: more than the {max_bytes:,} bytes allowed "
                                "(--max-download); the previous card index is unchanged")
            try:
                out.write(chunk)
            except OSError as error:
                raise CardError(f"{temp.parent}: cannot write the download: "
                                f"{error.strerror or error}") from None
            bar(received)
        bar.close()
        if expected is not None and received != expected:
            raise CardError(
                f"{shown}: download truncated ({received} of {expected} bytes); "
                "the previous card index is unchanged"
            )
