"""What format detection reads of a decklist, once for every format: its first lines and
those that are card lines."""

from __future__ import annotations

import dataclasses

from .limits import MAX_CARD_LINES, MAX_LINE_LENGTH, Entry
from .lines import CardLine, card_line, words

__all__ = ["Sample", "ParsedList"]

#: What a format's parser returns: card lines by section, the deck's name if the list gives
#: one, and its ``// filler:`` line as ``(line number, card name)``.
ParsedList = tuple[dict[str, list[Entry]], "str | None", "tuple[int, str] | None"]


@dataclasses.dataclass(frozen=True)
class Sample:
    """The start of a decklist, as format detection reads it.

    Attributes
    ----------
    head : str
        The first 200 characters after leading whitespace, case-folded.
    lines : list of str
        Non-blank lines (whitespace runs collapsed).
    cards : list of (str, CardLine)
        The lines that are card lines, parsed.
    """

    head: str
    lines: list[str]
    cards: list[tuple[str, CardLine]]

    @classmethod
    def of(cls, text: str) -> Sample:
        """The sample of ``text``.

        Parameters
        ----------
        text : str

        Returns
        -------
        Sample
        """
        lines = [words(line) for line in text.splitlines()[:MAX_CARD_LINES * 2]]
        lines = [line for line in lines if line and len(line) <= MAX_LINE_LENGTH]
        parsed = [(line, card_line(line)) for line in lines]
        cards = [(line, card) for line, card in parsed if card is not None]
        return cls(text.lstrip()[:200].casefold(), lines, cards)
