"""Explore and Map abilities read from oracle text, for cards outside the built-in catalog,
and the target a spell or aura needs (:func:`target_from_faces`).

Only common, unambiguous templates are recognised; any other text that mentions exploring
or Map tokens is reported so the user knows the card is modelled as a vanilla card. Every
pattern is a fixed phrase with bounded alternatives, and text longer than
:data:`MAX_ORACLE_TEXT` characters is refused, so reading a card takes bounded time.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import CardError
from .card import CAN_BE_COMMANDER, is_permanent_type

__all__ = ["abilities_from_text", "target_from_faces", "MAX_ORACLE_TEXT"]

#: The longest oracle text read (the longest printed card has about 1,500 characters).
MAX_ORACLE_TEXT = 10_000

_NUMBERS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4}
_SELF = r"(?:~|this creature|this permanent|this artifact|this enchantment|it)"
_ENTERS = rf"when(?:ever)? {_SELF} enters(?: the battlefield)?"

# (pattern, fields); the first pattern that matches a sentence wins.
_EXPLORE_PATTERNS: list[tuple[re.Pattern[str], dict[str, Any]]] = [
    (re.compile(rf"{_ENTERS}, (?:it|~) explores x times"),
     {"explores_x": True, "explores_when": "enter"}),
    (re.compile(rf"{_ENTERS}, (?:it|~) explores, then (?:it )?explores again"),
     {"explores": 2, "explores_when": "enter"}),
    (re.compile(rf"{_ENTERS}, (?:it|~) explores"), {"explores": 1, "explores_when": "enter"}),
    (re.compile(rf"whenever {_SELF} attacks, (?:it|~) explores"),
     {"explores": 1, "explores_when": "attack"}),
    (re.compile(rf"whenever {_SELF} deals combat damage to a player, (?:it|~) explores"),
     {"explores": 1, "explores_when": "combat_damage"}),
    (re.compile(r"at the beginning of combat on your turn, each merfolk (?:creature )?you "
                r"control explores"),
     {"explores": 1, "explores_when": "merfolk_at_combat"}),
    (re.compile(r"at the beginning of combat on your turn, (?:it|~) explores"),
     {"explores": 1, "explores_when": "beginning_of_combat"}),
    (re.compile(r"whenever (?:another )?(?:a )?(?:nontoken )?creature you control enters"
                r"(?: the battlefield)?, (?:it|that creature) explores"),
     {"explores": 1, "explores_when": "creature_enters"}),
    (re.compile(r"^target creature you control explores, then (?:it )?explores again"),
     {"explores": 2, "explores_when": "cast", "explore_targets": True}),
    (re.compile(r"^target creature you control explores"),
     {"explores": 1, "explores_when": "cast", "explore_targets": True}),
]
_MAP_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"{_ENTERS} or attacks, create (a|one|two|three) map tokens?"), "enter_or_attack"),
    (re.compile(rf"whenever {_SELF} enters(?: the battlefield)? or attacks, create "
                r"(a|one|two|three) map tokens?"),
     "enter_or_attack"),
    (re.compile(rf"{_ENTERS}, create (a|one|two|three) map tokens?"), "enter"),
    (re.compile(rf"whenever {_SELF} attacks, create (a|one|two|three) map tokens?"), "attack"),
]
_TRIGGER_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"whenever a creature you control explores, put a \+1/\+1 counter on "
                r"(?:~|it|this creature) and you gain 3 life"), "walker"),
    (re.compile(r"whenever a creature you control explores, put a \+1/\+1 counter on "
                r"(?:~|it|this creature|this vehicle|this artifact)"), "caravel"),
]
_COMMANDER = re.compile(r"~ can be your commander")
_LAND_OR_DRAW = re.compile(r"whenever ~ attacks, you may put a land card from your hand onto the "
                           r"battlefield\. if you don't, draw a card")
_MENTIONS = re.compile(r"\bexplores?\b|\bmap tokens?\b")
#: Card draw: a spell's paragraph that begins "Draw two cards." (Divination, Harmonize,
#: Growth Spiral), "Scry 2, then draw a card." (Preordain: the scry is not played), "You
#: draw two cards and you lose 2 life." (Night's Whisper) or "Target player draws three
#: cards." (a goldfish game's only player: you), and a permanent's "When it enters, draw a
#: card." Nothing else may follow the draw in its sentence ("draw two cards, then discard a
#: card" is not read), nor may the card discard, have an additional cost or put cards back
#: anywhere in its text (:data:`_DRAW_SPOILERS`: Thrill of Possibility, Chart a Course).
_SPELL_DRAWS = re.compile(r"^\s*(?:scry \d+, then )?(?:(?:you )?draw|target player draws) "
                          r"(a|one|two|three|four|five|six|seven|eight|nine|ten) "
                          r"cards?(?: and (?:you lose|loses) \d+ life)?\.")
_DRAW_SPOILERS = re.compile(r"\bdiscards?\b|additional cost|from your hand on top|"
                            r"on (?:the )?(?:top|bottom) of (?:your|their) library")
_DRAW_NUMBERS = {**dict.fromkeys(("a", "one"), 1), "two": 2, "three": 3, "four": 4, "five": 5,
                 "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_ENTER_DRAWS = re.compile(rf"^\s*{_ENTERS}, (?:you )?draw (a|one|two|three|four) cards?\.")


def abilities_from_text(name: str, text: str,
                        type_line: str = "") -> tuple[dict[str, Any], list[str]]:
    """Card fields for the explore / Map abilities and the card draw found in oracle
    ``text``.

    Parameters
    ----------
    name : str
        The card's name (and front-face name), replaced by ``~`` before matching.
    text : str
        Oracle text; faces joined by newlines.
    type_line : str
        The card's type line: a permanent's ``draws`` are an enter trigger's ("When it enters,
        draw a card."), an instant's or sorcery's its own ("Draw two cards.")
        (:func:`~explore_sim.cards.card.is_permanent_type`).

    Returns
    -------
    (dict, list of str)
        Fields for :class:`~explore_sim.cards.Card` (``explores``, ``explores_when``,
        ``maps``, ``explore_trigger``, ...) and the lines
        that mention exploring or Maps but match no known template.
    """
    if not isinstance(text, str):
        raise CardError(f"oracle text must be text, got {type(text).__name__}")
    if len(text) > MAX_ORACLE_TEXT:
        raise CardError(f"oracle text is too long ({len(text):,} characters, at most "
                        f"{MAX_ORACLE_TEXT:,})")
    normalized = _normalize(name, text)
    originals = _without_reminders(text).splitlines()
    drawing = (_ENTER_DRAWS if is_permanent_type(type_line) else _SPELL_DRAWS)
    spoiled = bool(_DRAW_SPOILERS.search(normalized))  # a cost or a loss of cards: no draw read
    fields: dict[str, Any] = {}
    unmatched: list[str] = []
    for number, line in enumerate(normalized.splitlines()):
        recognised = False
        for pattern, found in _EXPLORE_PATTERNS:
            if pattern.search(line) and "explores_when" not in fields:
                fields.update(found)
                recognised = True
                break
        for pattern, when in _MAP_PATTERNS:
            match = pattern.search(line)
            if match and "maps_when" not in fields:
                fields["maps"] = _NUMBERS[match.group(1)]
                fields["maps_when"] = when
                recognised = True
                break
        for pattern, kind in _TRIGGER_PATTERNS:
            if pattern.search(line) and "explore_trigger" not in fields:
                fields["explore_trigger"] = kind
                recognised = True
                break
        if _LAND_OR_DRAW.search(line):
            fields["extra_land"] = "attack_or_draw"
            recognised = True
        draws = drawing.search(line)
        if draws and "draws" not in fields and not spoiled:
            fields["draws"] = _DRAW_NUMBERS[draws.group(1)]
        if _COMMANDER.search(line):
            fields["keywords"] = (*fields.get("keywords", ()), CAN_BE_COMMANDER)
        if not recognised and _MENTIONS.search(line):
            unmatched.append(originals[number].strip() if number < len(originals) else line)
    return fields, unmatched


def _normalize(name: str, text: str) -> str:
    text = text.replace("\u2019", "'").casefold()
    names = {name.casefold(), *(part.strip().casefold() for part in name.split("//"))}
    for card_name in sorted(names, key=len, reverse=True):
        if card_name:
            text = text.replace(card_name, "~")
    # Reminder text never defines an ability.
    return _without_reminders(text)


def _without_reminders(text: str) -> str:
    """``text`` without parenthesised reminder text: each "(" up to the next ")"."""
    parts, position = [], 0
    while (opening := text.find("(", position)) >= 0:
        closing = text.find(")", opening)
        if closing < 0:
            break
        parts.append(text[position:opening])
        position = closing + 1
    parts.append(text[position:])
    return "".join(parts)


# --------------------------------------------------------------------------------------
# Targets (docs/guide/simulate.md: a card whose target only an opponent has is held)

#: Something only an opponent has in a goldfish game: a spell on the stack, or a permanent
#: the effect removes, bounces, steals or shrinks (cast on your own permanent it would only
#: harm you, so a player never does).
_OPPONENT_TARGETS = [re.compile(pattern) for pattern in (
    r"\bcounter target\b",
    r"\b(?:destroy|exile) target\b",
    r"\breturn target [a-z ,]*?(?:permanent|creature|artifact|enchantment|planeswalker)s?"
    r"(?: [a-z' ]*?)? to (?:its|their) owner's hand",
    r"\bgain control of target\b",
    r"\btarget [a-z ,]*?(?:permanent|creature|artifact|enchantment|planeswalker|land)s? "
    r"(?:an opponent controls|you don't control)",
    r"\btarget creature gets -\d+/-\d+",
    r"\bdeals? (?:\d+|x) damage to target (?:creature|planeswalker|artifact|permanent)",
)]
#: An aura's effect that only harms the creature it enchants.
_HARMFUL_AURA = re.compile(r"enchanted creature (?:gets -|can't attack|can't block|doesn't "
                           r"untap|loses all abilities|'s activated abilities can't)|you "
                           r"control enchanted creature")
#: A spell that helps a creature you control (a pump).
_HELPS_CREATURE = re.compile(r"\btarget creature(?: you control)? gets \+|\btarget creature "
                             r"you control\b")
_MODAL = re.compile(r"\bchoose (?:one|two|one or more|one or both)\b")
_OPTIONAL_TARGETS = re.compile(r"\bup to (?:one|two|three|four|x|\d+) (?:other )?target")


def target_from_faces(layout: str, faces: list[tuple[str, str, str]]) -> str:
    """The ``target`` card field (:data:`~explore_sim.cards.card.TARGETS`) read from the
    faces' ``(name, type line, oracle text)``: ``opponent`` for an instant or sorcery whose
    target only an opponent has (removal, bounce, a counterspell: "Destroy target ...",
    "Return target nonland permanent to its owner's hand", "Counter target spell") and for
    an aura that only harms the creature it enchants (Dead Weight); ``creature`` for a
    pump or an aura that helps a creature, which needs a creature you control; ``""``
    otherwise. A split card is held only when both halves are; a modal spell ("Choose one
    --") or one whose targets are optional ("up to one target") is never held; only the
    front face of other cards is read.

    Parameters
    ----------
    layout : str
    faces : list of (str, str, str)

    Returns
    -------
    str
    """
    if not faces:
        return ""
    castable = faces if layout in {"split", "aftermath"} else faces[:1]
    found = {_face_target(name, type_line, text) for name, type_line, text in castable}
    return found.pop() if len(found) == 1 else ""


def _face_target(name: str, type_line: str, text: str) -> str:
    if not isinstance(text, str) or len(text) > MAX_ORACLE_TEXT:
        return ""
    head, _, tail = type_line.partition("—")
    types, subtypes = head.casefold().split(), tail.casefold().split()
    lines = [line.strip() for line in _normalize(name, text).splitlines() if line.strip()]
    if "aura" in subtypes:
        enchant = next((line for line in lines if line.startswith("enchant ")), "")
        if not enchant.startswith("enchant creature"):
            return ""
        if enchant.endswith(("an opponent controls", "you don't control")):
            return "opponent"
        rest = " ".join(line for line in lines if line != enchant)
        if enchant.endswith("you control"):
            return "creature"
        return "opponent" if _HARMFUL_AURA.search(rest) else "creature"
    if not {"instant", "sorcery"} & set(types):
        return ""
    whole = " ".join(lines)
    if _MODAL.search(whole) or _OPTIONAL_TARGETS.search(whole):
        return ""
    if any(pattern.search(whole) for pattern in _OPPONENT_TARGETS):
        return "opponent"
    return "creature" if _HELPS_CREATURE.search(whole) else ""
