"""What the page's form carries between requests besides what is typed: each tab's own
settings, the warnings already shown for a deck, and permalinks for any deck.

**Each tab keeps its own settings.** Switching tabs saves the options of the tab left in one
hidden field of its own (``saved:NAME``, the options as a query string) and fills the tab
opened from its saved field, else its defaults: 20,000 trials typed on the curve tab stay
there, and the advise tab opens with its own.

**Each warning once per deck.** A note about a deck (unknown sideboard cards left out, a
sideboard read from a second block) is shown once: the hidden field ``seen`` keeps short
digests of the notes shown with the deck's text, and a later run of the same deck leaves
them out (another deck, or the deck edited, shows them again).

**Permalinks for any deck.** A permalink's decks and card files travel compressed (zlib, then
URL-safe base64, ``z=``), so a Commander deck with its card file fits a link; a link still
too long is stored on the server under the digest of its decks (``stored=``), kept while
the server runs (the :data:`MAX_STORED` most recent).
"""

from __future__ import annotations

import base64
import hashlib
import threading
import zlib
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from urllib.parse import parse_qsl, urlencode

__all__ = ["SAVED_PREFIX", "SEEN_KEY", "MAX_STORED", "switch_tab", "saved_fields",
           "unseen_notes", "LinkStore", "pack_decks", "unpack_decks"]

#: The hidden fields holding a tab's saved options.
SAVED_PREFIX = "saved:"
#: The hidden field holding the digests of the notes already shown.
SEEN_KEY = "seen"
#: Permalinks' decks kept on the server (the most recent).
MAX_STORED = 256
#: The most digests ``seen`` keeps.
_MAX_SEEN = 64


def switch_tab(data: dict[str, str], previous: str | None, previous_fields: Iterable[str],
               analysis: str, fields: Iterable[str]) -> dict[str, str]:
    """The form for tab ``analysis`` after tab ``previous``: the decks, card files and saved
    tabs as they were, ``previous``'s options saved, ``analysis``'s restored from its saved
    field (an option it never had starts from its default).

    Parameters
    ----------
    data : dict of str to str
        The form as posted.
    previous : str or None
        The tab left.
    previous_fields, fields : iterable of str
        The option names of the tab left and of the tab opened.
    analysis : str
        The tab opened.

    Returns
    -------
    dict of str to str
    """
    previous_fields, fields = list(previous_fields), list(fields)
    kept = {key: value for key, value in data.items()
            if key not in previous_fields and key not in fields}
    if previous is not None:
        kept[SAVED_PREFIX + previous] = urlencode(
            [(name, data.get(name, "")) for name in previous_fields])
    saved = dict(parse_qsl(kept.get(SAVED_PREFIX + analysis, ""), keep_blank_values=True))
    kept.update({name: value for name, value in saved.items() if name in fields})
    return kept


def saved_fields(data: Mapping[str, str]) -> list[tuple[str, str]]:
    """The hidden fields the form carries along: each tab's saved options and the notes
    already shown.

    Parameters
    ----------
    data : mapping of str to str

    Returns
    -------
    list of (str, str)
    """
    return [(key, value) for key, value in data.items()
            if key.startswith(SAVED_PREFIX) or key == SEEN_KEY]


def _digest(note: str, deck_texts: Sequence[str]) -> str:
    text = "\x00".join([note, *(" ".join(t.split()) for t in deck_texts)])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def unseen_notes(notes: Sequence[str], deck_texts: Sequence[str],
                 seen: str) -> tuple[list[str], str]:
    """The notes not shown yet with these decks, and ``seen`` with them added.

    Parameters
    ----------
    notes : sequence of str
        The deck notes of this run.
    deck_texts : sequence of str
        The decks' texts (white space aside, the same deck).
    seen : str
        The ``seen`` field: digests joined by spaces.

    Returns
    -------
    (list of str, str)
    """
    shown = seen.split()
    fresh = []
    for note in dict.fromkeys(notes):
        digest = _digest(note, deck_texts)
        if digest not in shown:
            fresh.append(note)
            shown.append(digest)
    return fresh, " ".join(shown[-_MAX_SEEN:])


def pack_decks(pairs: Sequence[tuple[str, str]]) -> str:
    """The decks and card files of a permalink as one compact value (zlib, URL-safe base64).

    Parameters
    ----------
    pairs : sequence of (str, str)

    Returns
    -------
    str
    """
    raw = urlencode(pairs).encode("utf-8")
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")


def unpack_decks(value: str, allowed: Iterable[str], max_bytes: int) -> dict[str, str] | None:
    """The decks and card files of :func:`pack_decks`, only the ``allowed`` keys; None for
    a value that is not one, or whose text would be over ``max_bytes`` (never inflated past
    it).

    Parameters
    ----------
    value : str
    allowed : iterable of str
    max_bytes : int

    Returns
    -------
    dict of str to str or None
    """
    try:
        packed = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        inflate = zlib.decompressobj()
        raw = inflate.decompress(packed, max_bytes + 1)
        if len(raw) > max_bytes or not inflate.eof:
            return None
        text = raw.decode("utf-8")
    except (ValueError, zlib.error, UnicodeDecodeError):
        return None
    keys = set(allowed)
    return {key: item for key, item in parse_qsl(text, keep_blank_values=True) if key in keys}


class LinkStore:
    """Permalinks' decks too long for a link, by the digest of their text (the most recent
    :data:`MAX_STORED`, while the server runs)."""

    def __init__(self, size: int = MAX_STORED) -> None:
        self.size = size
        self._links: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, packed: str) -> str:
        """Keep ``packed`` (:func:`pack_decks`); its key.

        Parameters
        ----------
        packed : str

        Returns
        -------
        str
        """
        key = hashlib.sha256(packed.encode("ascii")).hexdigest()[:32]
        with self._lock:
            self._links[key] = packed
            self._links.move_to_end(key)
            while len(self._links) > self.size:
                self._links.popitem(last=False)
        return key

    def get(self, key: str) -> str | None:
        """What :meth:`put` kept under ``key``, or None.

        Parameters
        ----------
        key : str

        Returns
        -------
        str or None
        """
        with self._lock:
            return self._links.get(key)

    def unpack(self, data: dict[str, str], allowed: Iterable[str], max_bytes: int) -> str:
        """A permalink's compressed (``z``) or stored (``stored``) decks into ``data``; what
        the page says when they cannot be had ("" when all is well).

        Parameters
        ----------
        data : dict of str to str
            The query string, changed in place.
        allowed : iterable of str
            The deck and card-file keys.
        max_bytes : int
            The most text the decks may hold.

        Returns
        -------
        str
        """
        packed, key = data.pop("z", None), data.pop("stored", None)
        if key is not None:
            packed = self.get(key)
            if packed is None:
                return ("this permalink's decks were kept by a server that has stopped since: "
                        "paste the deck, or read the options from the run's JSON download")
        if packed is None:
            return ""
        decks = unpack_decks(packed, allowed, max_bytes)
        if decks is None:
            return "this permalink's decks cannot be read (a damaged link)"
        data.update(decks)
        return ""
