"""The lines of a text decklist (Arena, MTGO, Moxfield, Archidekt, plain text): card lines,
section headers, comments, and the blocks a header-less list is split into.

The line patterns run on a line whose whitespace runs are collapsed to single spaces
(:func:`words`), so no two quantifiers compete for the same characters: each match is linear
in the line's length.
"""

from __future__ import annotations

import collections
import dataclasses
import re
import warnings
from collections.abc import Callable

from ...errors import DeckError, DeckWarning, clip
from .limits import BAD_NAME, MAX_CARD_LINES, MAX_COPIES_PER_LINE, Entry

__all__ = ["CardLine", "words", "card_line", "categories", "section_of", "parse_lines",
           "SIDEBOARD_BLOCK_MAX"]

#: A header-less second block of at most this many cards is read as the sideboard.
SIDEBOARD_BLOCK_MAX = 15
#: A section header is short ("Sideboard (15)"); longer lines are never headers.
_MAX_HEADER_LENGTH = 40

_SECTIONS = {
    "about": "about",
    "name": "about",
    "deck": "main",
    "main": "main",
    "maindeck": "main",
    "main deck": "main",
    "mainboard": "main",
    "sideboard": "sideboard",
    "side board": "sideboard",
    "side": "sideboard",
    "commander": "commander",
    "commanders": "commander",
    "companion": "companion",
    "maybeboard": "maybeboard",
    "considering": "maybeboard",
}
#: Type headers of some exports ("Creatures (24)"): skipped, the section stays.
_TYPE_HEADERS = frozenset({
    "creature", "creatures", "land", "lands", "instant", "instants", "sorcery", "sorceries",
    "artifact", "artifacts", "enchantment", "enchantments", "planeswalker", "planeswalkers",
    "battle", "battles", "spell", "spells", "other spells", "other", "nonland", "nonlands",
})
_HEADER = re.compile(r"(?P<name>[A-Za-z]+(?: [A-Za-z]+)*) ?:? ?(?:\( ?\d+ ?\)|\d+)? ?:?")
_COUNT_AND_NAME = re.compile(r"(?P<sb>SB: ?)?(?P<count>[+-]?\d+) ?[xX]? (?P<name>.+)")
_SET_CODE = re.compile(r"\((?P<set>[A-Za-z0-9_]{2,6})\)")
_COLLECTOR_NUMBER = re.compile(r"[A-Za-z0-9\-★*]+")
#: Moxfield finish markers and #tags (one word each, at the end of a line).
_MARKER_WORD = re.compile(r"\*[A-Z]\*|#\S+")
_FILLER_LINE = re.compile(r"(?:#|//) ?filler ?: ?(?P<name>.*)", flags=re.IGNORECASE)



@dataclasses.dataclass(frozen=True)
class CardLine:
    """The parts of a card line: ``SB: 4x Cenote Scout (LCI) 178``.

    Attributes
    ----------
    sideboard : bool
    count : str
    name : str
    set_code, number : str or None
    """

    sideboard: bool
    count: str
    name: str
    set_code: str | None = None
    number: str | None = None


def words(line: str) -> str:
    """``line`` with surrounding whitespace removed and inner runs made single spaces.

    Parameters
    ----------
    line : str

    Returns
    -------
    str
    """
    return " ".join(line.split())


def card_line(line: str) -> CardLine | None:
    """Parse a card line (whitespace already collapsed by :func:`words`), or None.

    Parameters
    ----------
    line : str

    Returns
    -------
    CardLine or None
    """
    match = _COUNT_AND_NAME.fullmatch(_strip_markers(line))
    if match is None:
        return None
    name, set_code, number = match.group("name"), None, None
    words = name.rsplit(" ", 2)
    if len(words) == 3 and _SET_CODE.fullmatch(words[1]) and _COLLECTOR_NUMBER.fullmatch(words[2]):
        name, set_code, number = words[0], words[1][1:-1], words[2]
    elif len(words) >= 2 and _SET_CODE.fullmatch(words[-1]):
        name, set_code = name.rsplit(" ", 1)[0], words[-1][1:-1]
    return CardLine(bool(match.group("sb")), match.group("count"), name, set_code, number)


def _strip_markers(line: str) -> str:
    """``line`` without the Moxfield finish markers (``*F*``) and ``#tags``, Archidekt
    ``^tags^`` and ``[Categories]`` at its end (each after a space)."""
    end = len(line)
    while (start := _last_marker(line, end)) is not None:
        end = start
    return line[:end]


def _last_marker(line: str, end: int) -> int | None:
    """Where the space before the last marker of ``line[:end]`` is, or None."""
    starts = []
    if line.endswith("]", 0, end):  # the first " [" after the previous "]"
        space = line.find(" [", max(line.rfind("]", 0, end - 1), 0), end - 1)
        if space >= 0:
            starts.append(space + 1)
    if end > 1 and line[end - 1] == "^":
        starts.append(line.rfind("^", 0, end - 1))
    word = line.rfind(" ", 0, end) + 1
    if _MARKER_WORD.fullmatch(line, word, end):
        starts.append(word)
    starts = [start for start in starts if start > 0 and line[start - 1] == " "]
    return min(starts) - 1 if starts else None


def categories(line: str) -> str | None:
    """The text inside the first ``[...]`` of a line (Archidekt categories), or None.

    Parameters
    ----------
    line : str

    Returns
    -------
    str or None
    """
    opening = line.find("[")
    closing = line.find("]", opening + 1) if opening >= 0 else -1
    return line[opening + 1: closing] if closing >= 0 else None


def parse_lines(
    text: str, source: str, split: str, sections_of: Callable[[str, str], str] | None = None,
) -> tuple[dict[str, list[Entry]], str | None, tuple[int, str] | None]:
    """Card lines per section, the deck's name if the list gives one, and its declared
    filler card as ``(line number, name)`` if a ``// filler: ...`` line names one.

    Parameters
    ----------
    text : str
    source : str
        Names the list in error messages.
    split : {"last", "never", "auto"}
        Header-less blocks separated by blank lines: ``last`` reads the last block as the
        sideboard, ``never`` never does, ``auto`` does when there are exactly two blocks and
        the second has at most :data:`SIDEBOARD_BLOCK_MAX` cards (with a warning).
    sections_of : callable, optional
        ``sections_of(line, section)``: the section a card line goes to, where the format
        says it on the line itself (Archidekt's categories).

    Returns
    -------
    (dict of str to list of Entry, str or None, (int, str) or None)

    Raises
    ------
    DeckError
        A malformed line, name or count, naming the line.
    """
    lines = text.splitlines()
    has_headers = any(section_of(line) is not None for line in lines)
    section = "main"
    deck_name = None
    filler: tuple[int, str] | None = None
    blocks: list[list[Entry]] = [[]]  # header-less: blocks between blank lines
    entries: dict[str, list[Entry]] = collections.defaultdict(list)
    card_lines = 0
    for number, raw_line in enumerate(lines, start=1):
        line = words(raw_line)
        where = f"{source}:{number}"
        if not line:
            if not has_headers and blocks[-1]:
                blocks.append([])
            continue
        if line.startswith("#") or line.startswith("//"):
            declared = _FILLER_LINE.fullmatch(line)
            if declared:
                if not declared.group("name"):
                    raise DeckError(f"{where}: 'filler:' needs a card name")
                filler = (number, declared.group("name"))
            continue
        header = section_of(line)
        if header == "type":
            continue
        if header is not None:
            section = header
            continue
        if section == "about":
            if line[:5].casefold() == "name ":
                deck_name = line[5:]
                continue
            raise DeckError(f"{where}: expected 'Name <deck name>' in the About section, "
                            f"got {clip(line)!r}")
        card_lines += 1
        if card_lines > MAX_CARD_LINES:
            raise DeckError(f"{where}: more than {MAX_CARD_LINES:,} card lines")
        parsed = _entry(line, where, number)
        target = "sideboard" if parsed[0] else section
        if sections_of is not None:
            target = sections_of(line, target)
        if has_headers or target != "main" or split == "never":
            entries[target].append(parsed[1])
        else:
            blocks[-1].append(parsed[1])
    _place_blocks(entries, [block for block in blocks if block], source, split)
    entries.pop("maybeboard", None)
    return entries, deck_name, filler


def _entry(line: str, where: str, number: int) -> tuple[bool, Entry]:
    """``(on the sideboard, entry)`` of a card line, its count and name checked."""
    parsed = card_line(line)
    if parsed is None:
        raise DeckError(
            f"{where}: malformed line {clip(line)!r} (expected a count and a card name, "
            "such as '4 Cenote Scout')"
        )
    digits = parsed.count.lstrip("+-")
    if (len(digits) > 4 or parsed.count[0] in "+-"
            or not 1 <= int(digits) <= MAX_COPIES_PER_LINE):
        raise DeckError(
            f"{where}: count {clip(parsed.count, 12)} is out of range "
            f"(1 to {MAX_COPIES_PER_LINE} copies per line)"
        )
    if BAD_NAME.search(parsed.name):
        raise DeckError(f"{where}: malformed card name {clip(parsed.name)!r}")
    return parsed.sideboard, (number, parsed.name, int(digits))


def _place_blocks(entries: dict[str, list[Entry]], blocks: list[list[Entry]], source: str,
                  split: str) -> None:
    """Put a header-less list's blocks into the main deck and the sideboard."""
    if len(blocks) >= 2 and split == "last":
        entries["main"].extend(entry for block in blocks[:-1] for entry in block)
        entries["sideboard"][:0] = blocks[-1]
    elif split == "auto" and len(blocks) == 2 \
            and sum(c for _, _, c in blocks[1]) <= SIDEBOARD_BLOCK_MAX:
        entries["main"].extend(blocks[0])
        entries["sideboard"][:0] = blocks[1]
        warnings.warn(
            f"{source}: the {sum(c for _, _, c in blocks[1])} cards after the blank line (line "
            f"{blocks[1][0][0]}) are read as the sideboard; add a 'Deck' header above "
            "the list to keep them in the main deck",
            DeckWarning,
            stacklevel=6,
        )
    else:
        for block in blocks:
            entries["main"].extend(block)


def section_of(line: str) -> str | None:
    """The section a header line opens, "type" for a type header, or None for other lines.

    Parameters
    ----------
    line : str

    Returns
    -------
    str or None
    """
    line = words(line)
    match = _HEADER.fullmatch(line) if len(line) <= _MAX_HEADER_LENGTH else None
    if match is None:
        return None
    key = match.group("name").casefold()
    if key in _TYPE_HEADERS:
        return "type"
    return _SECTIONS.get(key)
