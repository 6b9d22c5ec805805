"""``explore-sim cards update``: download Scryfall's current ``oracle_cards`` file and import it.

This is the only part of explore_sim that uses the network. The file is downloaded to a
temporary file in the card directory and renamed into place only when it is complete; the
import then replaces the index atomically. A failed, truncated or interrupted download
leaves the previous file and index as they were.
"""

from __future__ import annotations

import json
import os
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import IO, Any

from .._version import __version__
from ..errors import CardError
from ..progress import ProgressBar
from .index import ImportReport, cards_dir, import_cards

__all__ = ["DEFAULT_BASE_URL", "BASE_URL_ENV", "DOWNLOAD_NAME", "update_cards"]

#: Scryfall's API.
DEFAULT_BASE_URL = "https://api.scryfall.com"
#: Environment variable overriding the base URL.
BASE_URL_ENV = "EXPLORE_SIM_SCRYFALL_URL"
#: File name of the downloaded bulk file inside the card directory.
DOWNLOAD_NAME = "scryfall-oracle-cards.json"
_CHUNK = 1 << 16
_HEADERS = {"User-Agent": f"explore_sim/{__version__}", "Accept": "application/json;q=0.9,*/*;q=0.8"}


def update_cards(
    directory: str | os.PathLike[str] | None = None,
    base_url: str | None = None,
    timeout: float = 60.0,
    progress: IO[str] | None = None,
) -> ImportReport:
    """Download the current ``oracle_cards`` bulk file and import it.

    Parameters
    ----------
    directory : path, optional
        The card directory (:func:`explore_sim.carddb.cards_dir`).
    base_url : str, optional
        The API's base URL; default ``$EXPLORE_SIM_SCRYFALL_URL`` or Scryfall's.
    timeout : float
        Seconds to wait for the server at each step.
    progress : text stream, optional
        Where a progress bar is drawn (standard error from the command line).
    """
    base = (base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL).rstrip("/")
    if urllib.parse.urlparse(base).scheme not in {"http", "https"}:
        raise CardError(f"base URL must start with http:// or https://, got {base!r}")
    listing = _get_json(f"{base}/bulk-data", timeout)
    entries = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(entries, list):
        raise CardError(f"{base}/bulk-data: not a Scryfall bulk-data list")
    entry = next((e for e in entries if isinstance(e, dict) and e.get("type") == "oracle_cards"), None)
    if entry is None or not isinstance(entry.get("download_uri"), str):
        raise CardError(f"{base}/bulk-data: no oracle_cards file listed")
    target_dir = cards_dir(directory)
    target_dir.mkdir(parents=True, exist_ok=True)
    target = target_dir / DOWNLOAD_NAME
    _download(entry["download_uri"], target, timeout, progress)
    return import_cards(target, directory)


def _open(url: str, timeout: float) -> Any:
    request = urllib.request.Request(url, headers=_HEADERS)
    try:
        return urllib.request.urlopen(request, timeout=timeout)  # noqa: S310 - http(s) only
    except urllib.error.HTTPError as error:
        raise CardError(f"{url}: the server answered {error.code} {error.reason}") from None
    except urllib.error.URLError as error:
        raise CardError(f"{url}: cannot connect: {error.reason}") from None
    except (TimeoutError, OSError) as error:
        raise CardError(f"{url}: {error or 'timed out'}") from None


def _get_json(url: str, timeout: float) -> Any:
    with _open(url, timeout) as response:
        try:
            return json.loads(_read_all(response, url))
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise CardError(f"{url}: the answer is not JSON") from None


def _read_all(response: Any, url: str) -> bytes:
    try:
        return response.read()
    except (TimeoutError, OSError) as error:
        raise CardError(f"{url}: download failed: {error or 'timed out'}") from None
    except Exception as error:  # http.client.IncompleteRead and friends
        raise CardError(f"{url}: download failed: {type(error).__name__}") from None


def _download(url: str, target: Path, timeout: float, progress: IO[str] | None) -> None:
    """Stream ``url`` into ``target`` through a temporary file renamed when complete."""
    handle, temp_name = tempfile.mkstemp(prefix=".download-", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out, _open(url, timeout) as response:
            expected = response.headers.get("Content-Length")
            expected = int(expected) if expected and expected.isdigit() else None
            received = 0
            bar = ProgressBar(progress, "downloading oracle_cards", expected, "MB", 1e6, delay=0)
            while True:
                try:
                    chunk = response.read(_CHUNK)
                except (TimeoutError, OSError) as error:
                    raise CardError(f"{url}: download failed: {error or 'timed out'}") from None
                except Exception as error:  # http.client.IncompleteRead
                    raise CardError(f"{url}: download failed: {type(error).__name__}") from None
                if not chunk:
                    break
                out.write(chunk)
                received += len(chunk)
                bar(received)
            bar.close()
            if expected is not None and received != expected:
                raise CardError(
                    f"{url}: download truncated ({received} of {expected} bytes); "
                    "the previous card index is unchanged"
                )
        os.replace(temp_name, target)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
