"""What any decklist may hold: its size, its lines and its counts."""

from __future__ import annotations

import re

__all__ = ["Entry", "MAX_COPIES_PER_LINE", "MAX_DECK_BYTES", "MAX_LINE_LENGTH",
           "MAX_CARD_LINES", "BAD_NAME"]

#: One card line: (line number, card name as written, copies).
Entry = tuple[int, str, int]
#: The most copies one line may ask for; more is treated as a typo.
MAX_COPIES_PER_LINE = 250
#: Largest decklist read (a file, in bytes; text, in characters).
MAX_DECK_BYTES = 1 << 20
#: Longest line of a text decklist.
MAX_LINE_LENGTH = 1000
#: The most card lines a decklist may have (all sections together).
MAX_CARD_LINES = 5000
#: Characters no card name has.
BAD_NAME = re.compile(r"[\x00-\x1f\x7f{}\[\]<>|\\]")
