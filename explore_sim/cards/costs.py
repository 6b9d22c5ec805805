"""Mana costs and mana production as plain data: colours as bit masks, costs as payment modes.

Colours are bits of a small integer mask: ``W U B R G`` are the five colours, ``C`` is
colourless mana (what ``{C}`` demands) and ``S`` marks mana from a snow source (what ``{S}``
demands). A *unit* of mana is described by the mask of what it can be: a Forest's unit is
``G``; a Golgari guildgate's is ``B|G``; a snow Forest's is ``G|S``; a pain land's
``C|G|U``. A *pip* is described by the mask of units that can pay it: ``{G}`` by ``G``,
``{G/U}`` by ``G|U``, ``{C}`` by ``C``, ``{S}`` by ``S``; generic mana is paid by any unit.

A cost becomes one or more :class:`CostMode`: the ways it can be paid. Most costs have one;
a Phyrexian pip ``{G/P}`` adds a mode paid with 2 life instead of G, a monocoloured hybrid
``{2/G}`` a mode paid with two generic mana instead of G, and a split card (Find // Finality)
one mode per half. Modes come in the order the goldfish prefers them: colours over life,
coloured mana over extra generic mana.
"""

from __future__ import annotations

import dataclasses
import itertools
import re

from ..errors import CardError

__all__ = [
    "COLOURS",
    "COLOUR_BITS",
    "W",
    "U",
    "B",
    "R",
    "G",
    "C",
    "S",
    "ANY_COLOUR",
    "ALL_MANA",
    "CostMode",
    "cost_modes",
    "parse_produces",
    "mask_of",
    "mask_text",
    "basic_land_colours",
    "MAX_COST_SYMBOLS",
    "MAX_UNITS",
]

W, U, B, R, G, C, S = 1, 2, 4, 8, 16, 32, 64
#: Mana letters in WUBRG order, then colourless and snow.
COLOURS = "WUBRGCS"
COLOUR_BITS = {"W": W, "U": U, "B": B, "R": R, "G": G, "C": C, "S": S}
#: "One mana of any color".
ANY_COLOUR = W | U | B | R | G
#: Every kind of mana (what generic mana accepts).
ALL_MANA = ANY_COLOUR | C | S
#: The most symbols one cost may have (a guard against absurd card data).
MAX_COST_SYMBOLS = 40
#: The most mana one source may make with one activation.
MAX_UNITS = 8

_BASIC_TYPES = {"plains": W, "island": U, "swamp": B, "mountain": R, "forest": G}
_SYMBOL = re.compile(r"\{([^{}]{1,8})\}")


def mask_of(letters: str) -> int:
    """The mask of mana letters, e.g. ``mask_of("BG") == B | G``."""
    mask = 0
    for letter in letters.upper():
        if letter not in COLOUR_BITS:
            raise CardError(f"unknown mana letter {letter!r} (use {COLOURS})")
        mask |= COLOUR_BITS[letter]
    return mask


def mask_text(mask: int) -> str:
    """Letters of a mask in WUBRGCS order (``"any"`` for every colour)."""
    if mask & ANY_COLOUR == ANY_COLOUR:
        rest = "".join(letter for letter in "CS" if mask & COLOUR_BITS[letter])
        return "any" + (f"+{rest}" if rest else "")
    return "".join(letter for letter in COLOURS if mask & COLOUR_BITS[letter])


def basic_land_colours(subtypes: frozenset[str] | set[str]) -> int:
    """Colours of the intrinsic mana abilities of basic land types (CR 305.6)."""
    mask = 0
    for subtype, bit in _BASIC_TYPES.items():
        if subtype in subtypes:
            mask |= bit
    return mask


@dataclasses.dataclass(frozen=True)
class CostMode:
    """One way to pay a cost.

    Attributes
    ----------
    pips : tuple of int
        The mask of units that can pay each coloured (or colourless, or snow) pip, sorted
        from the most to the least demanding (fewest accepted kinds first).
    generic : int
        Generic mana, paid by any unit.
    life : int
        Life paid instead of mana (Phyrexian pips in this mode).
    has_x : bool
        The cost has ``{X}`` (paid as 0 unless the card says otherwise).
    half : int
        For split cards, which half this mode casts (0 or 1); 0 otherwise.
    """

    pips: tuple[int, ...]
    generic: int
    life: int = 0
    has_x: bool = False
    half: int = 0

    @property
    def mana(self) -> int:
        """Mana paid in this mode (X = 0)."""
        return len(self.pips) + self.generic

    def text(self) -> str:
        """The mode as cost symbols, e.g. ``{1}{G}{G}``."""
        parts = ["{X}"] if self.has_x else []
        if self.generic:
            parts.append(f"{{{self.generic}}}")
        parts += ["{" + "/".join(mask_text(p)) + "}" if len(mask_text(p)) > 1 and p != ALL_MANA
                  else "{" + mask_text(p) + "}" for p in self.pips]
        if self.life:
            parts.append(f" + {self.life} life")
        return "".join(parts) or "{0}"


def _pip_options(symbol: str, cost: str) -> list[tuple[int | None, int, int]]:
    """Ways to pay one symbol: (pip mask or None, generic, life), preferred first."""
    symbol = symbol.strip().upper()
    if symbol.isdigit():
        return [(None, int(symbol), 0)]
    if symbol in {"X", "Y", "Z"}:
        return [(None, 0, 0)]
    if symbol in COLOUR_BITS:
        return [(COLOUR_BITS[symbol], 0, 0)]
    parts = symbol.split("/")
    if len(parts) == 2 and parts[1] == "P" and parts[0] in "WUBRG" and parts[0]:
        return [(COLOUR_BITS[parts[0]], 0, 0), (None, 0, 2)]  # {G/P}: G, or 2 life
    if len(parts) == 3 and parts[2] == "P" and all(p in "WUBRG" and p for p in parts[:2]):
        return [(COLOUR_BITS[parts[0]] | COLOUR_BITS[parts[1]], 0, 0), (None, 0, 2)]
    if len(parts) == 2 and parts[0].isdigit() and parts[1] in "WUBRGC" and parts[1]:
        return [(COLOUR_BITS[parts[1]], 0, 0), (None, int(parts[0]), 0)]  # {2/G}
    if len(parts) == 2 and all(p in "WUBRGC" and p for p in parts):
        return [(COLOUR_BITS[parts[0]] | COLOUR_BITS[parts[1]], 0, 0)]  # hybrid {G/U}
    if re.fullmatch(r"H[WUBRG]", symbol):  # half mana (Un-cards): treated as the colour
        return [(COLOUR_BITS[symbol[1]], 0, 0)]
    raise CardError(f"malformed mana cost {cost!r}: unknown symbol {{{symbol}}}")


def _face_modes(face: str, cost: str, half: int) -> list[CostMode]:
    rest = _SYMBOL.sub("", face).strip()
    if rest:
        raise CardError(f"malformed mana cost {cost!r}: unexpected {rest[:20]!r}")
    symbols = _SYMBOL.findall(face)
    if len(symbols) > MAX_COST_SYMBOLS:
        raise CardError(f"mana cost {cost[:40]!r}... has more than {MAX_COST_SYMBOLS} symbols")
    has_x = any(s.strip().upper() in {"X", "Y", "Z"} for s in symbols)
    options = [_pip_options(symbol, cost) for symbol in symbols]
    modes = []
    for choice in itertools.product(*options):
        pips = tuple(sorted((mask for mask, _, _ in choice if mask is not None),
                            key=lambda m: (bin(m).count("1"), m)))
        generic = sum(g for _, g, _ in choice)
        life = sum(life for _, _, life in choice)
        modes.append(CostMode(pips=pips, generic=generic, life=life, has_x=has_x, half=half))
    # Colours over life, coloured mana over extra generic mana; drop duplicates.
    modes.sort(key=lambda m: (m.life, m.generic, -len(m.pips)))
    return list(dict.fromkeys(modes))


def cost_modes(mana_cost: str, layout: str = "normal") -> tuple[CostMode, ...]:
    """The ways to pay a card's cost when it is cast from hand.

    Split cards (``split``, ``aftermath``) are cast as either half: one group of modes per
    half. Double-faced, adventurer and flip cards are cast as their front face / main part.
    A card without a mana cost (a land) has one free mode.

    >>> [m.text() for m in cost_modes("{1}{G}{G}")]
    ['{1}{G}{G}']
    >>> [m.text() for m in cost_modes("{G/P}")]
    ['{G}', '{0} + 2 life']
    """
    faces = [part.strip() for part in mana_cost.split("//")]
    if layout not in {"split", "aftermath"}:
        faces = faces[:1]
    modes: list[CostMode] = []
    for half, face in enumerate(faces):
        modes += _face_modes(face, mana_cost, half)
    if len(modes) > 64:
        raise CardError(f"mana cost {mana_cost[:40]!r} has too many ways to pay it")
    return tuple(modes)


def parse_produces(text: str, commander_colours: int = 0) -> tuple[int, ...]:
    """Mana units one activation makes, from a card file's ``produces`` text.

    ``"G"``: one G. ``"BG"``: one mana, B or G. ``"any"`` (or ``"WUBRG"``): one mana of any
    colour. ``"C"``: one colourless. ``"CC"`` or ``"GG"`` (one letter repeated): that many
    of it. ``"G+U"``: two mana, one G and one U (a Signet). ``"commander"``: one mana of the
    commander's colours (Command Tower, Arcane Signet; nothing without a commander).
    ``"none"``: the card's text makes no mana (a land that only fetches, say).

    Returns
    -------
    tuple of int
        One mask per unit of mana.
    """
    text = text.strip()
    if not text or text.casefold() == "none":
        return ()
    units: list[int] = []
    for part in text.split("+"):
        part = part.strip()
        key = part.casefold()
        if key in {"any", "any color", "any colour"}:
            units.append(ANY_COLOUR)
        elif key == "commander":
            if commander_colours:
                units.append(commander_colours)
        elif len(part) > 1 and len(set(part.upper())) == 1:
            units += [mask_of(part[0])] * len(part)
        else:
            units.append(mask_of(part))
    if len(units) > MAX_UNITS:
        raise CardError(f"produces {text[:40]!r}: at most {MAX_UNITS} mana per activation")
    return tuple(units)
