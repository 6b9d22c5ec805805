"""Mana abilities, enters-tapped conditions and land searches read from oracle text.

Only common, unambiguous templates are recognised (older cards say "enters the
battlefield"); any other text that adds mana, makes a land enter tapped or searches for a land
is reported, never guessed silently. Templates, in oracle wording:

- ``{T}: Add {G}.``, ``{T}: Add {C}{C}.``, ``{T}: Add {B} or {G}.``, ``{T}: Add {W}, {U}, or
  {B}.``, ``{T}: Add one mana of any color.``, ``... in your commander's color identity.``,
  ``{1}, {T}: Add {G}{U}.`` (a filter), pain lands (``{T}: Add {C}.`` and ``{T}: Add {G} or
  {U}. This land deals 1 damage to you.``);
- ``This land enters tapped.``; ``... enters tapped unless you control a Forest or a
  Swamp.``; ``... unless you control two or fewer other lands.``; ``... unless you control two
  or more other lands.``; ``As this land enters, you may pay 2 life. If you don't, it enters
  tapped.`` (and 3 life);
- ``When this land enters, scry 1.``; ``When this land enters, return a land you control to
  its owner's hand.``;
- basic-land searches of Evolving Wilds, Fabled Passage, Myriad Landscape, Rampant Growth,
  Cultivate / Kodama's Reach and District Guide; a spell's search for a basic land card into
  your hand; a spell's search for a land card of named land types onto the battlefield,
  untapped or tapped (Nature's Lore and Three Visits: ``Search your library for a Forest
  card, put that card onto the battlefield, then shuffle.``; Farseek: ``... for a Plains,
  Island, Swamp, or Mountain card, put it onto the battlefield tapped, then shuffle.``);
- a one-shot mana source, ``{T}, Sacrifice this artifact: Add one mana of any color.``
  (Lotus Petal): the keyword ``sacrifice_for_mana``.
"""

from __future__ import annotations

import re
from typing import Any

from .costs import COLOURS

__all__ = ["mana_from_text"]

_SELF = r"(?:~|this land|this creature|this artifact|it)"
_ENTERS = r"enters(?: the battlefield)?"
_SYM = r"\{([wubrgc])\}"

_ADD_LINE = re.compile(r"\badd\b")
_MANA_ABILITY = re.compile(
    r"^(?P<cost>(?:\{[0-9wubrgc]\}, )?)\{t\}(?P<once>, sacrifice (?:~|this artifact|this "
    r"creature|this land)|): add (?P<what>.+?)\.(?P<rest>.*)$"
)
_CHOICE = re.compile(r"^\{([wubrgc])\}(?:(?:, | or |, or )\{([wubrgc])\})*$")
_PAIN = re.compile(rf"^{_SELF} deals 1 damage to you\.?$")

_TAPPED_PATTERNS: list[tuple[re.Pattern[str], Any]] = [
    (re.compile(rf"{_SELF} {_ENTERS} tapped unless you control an? (\w+)(?: or an? (\w+))?\."),
     lambda m: "unless:" + "|".join(g for g in m.groups() if g)),
    (re.compile(rf"{_SELF} {_ENTERS} tapped unless you control two or fewer other lands\."),
     lambda m: "fast"),
    (re.compile(rf"{_SELF} {_ENTERS} tapped unless you control two or more other lands\."),
     lambda m: "slow"),
    (re.compile(rf"as {_SELF} {_ENTERS}, you may pay (2|3) life\. if you don't, {_SELF} "
                rf"{_ENTERS} tapped\."),
     lambda m: "shock" if m.group(1) == "2" else f"life:{m.group(1)}"),
    (re.compile(rf"(?:^|\. ){_SELF} {_ENTERS} tapped\."), lambda m: "yes"),
]
_TAPPED_MENTION = re.compile(r"\benters(?: the battlefield)? tapped\b")
_LAND_ENTERS = [
    (re.compile(rf"when {_SELF} {_ENTERS}, scry 1\."), "scry"),
    (re.compile(rf"when {_SELF} {_ENTERS}, return a land you control to its owner's hand\."),
     "bounce"),
]
_SEARCH = "search your library for"
_FETCHES: list[tuple[re.Pattern[str], dict[str, str]]] = [
    (re.compile(rf"^\{{t\}}, sacrifice {_SELF}: {_SEARCH} a basic land card, put it onto the "
                r"battlefield tapped, then shuffle\. then if you control four or more lands, "
                r"untap that land\.$"),
     {"fetch": "basic_passage", "fetch_when": "sacrifice"}),
    (re.compile(rf"^\{{t\}}, sacrifice {_SELF}: {_SEARCH} a basic land card, put it onto the "
                r"battlefield tapped, then shuffle\.$"),
     {"fetch": "basic_tapped", "fetch_when": "sacrifice"}),
    (re.compile(rf"^\{{(\d)\}}, \{{t\}}, sacrifice {_SELF}: {_SEARCH} up to two basic land "
                r"cards that share a land type, put them onto the battlefield tapped, then "
                r"shuffle\.$"),
     {"fetch": "two_basics_tapped", "fetch_when": "activated"}),
    (re.compile(rf"^{_SEARCH} a basic land card, put (?:that card|it) onto the battlefield "
                r"tapped, then shuffle\.$"),
     {"fetch": "basic_tapped", "fetch_when": "cast"}),
    (re.compile(rf"^{_SEARCH} up to two basic land cards, reveal those cards, put one onto the "
                r"battlefield tapped and the other into your hand, then shuffle\.$"),
     {"fetch": "basic_tapped_and_hand", "fetch_when": "cast"}),
    (re.compile(rf"^when {_SELF} {_ENTERS}, you may {_SEARCH} a basic land card(?: or gate "
                r"card)?, reveal it, put it into your hand, then shuffle\.$"),
     {"fetch": "basic_hand", "fetch_when": "enter"}),
    (re.compile(rf"^{_SEARCH} a basic land card, reveal it, put it into your hand, then "
                r"shuffle\.$"),
     {"fetch": "basic_hand", "fetch_when": "cast"}),
]
_LAND_TYPE = r"(?:plains|island|swamp|mountain|forest)"
#: A spell's search for a land card of named types (older wording: "and put it onto the
#: battlefield tapped. then shuffle").
_TYPED_SEARCH = re.compile(
    rf"^{_SEARCH} an? (?P<types>{_LAND_TYPE}(?:(?:, | or |, or ){_LAND_TYPE})*) card,? "
    r"(?:and )?put (?:that card|it) onto the battlefield(?P<tapped> tapped)?(?:, then|\. then) "
    r"shuffle\.$")


def mana_from_text(name: str, text: str,
                   produced: list[str] | None = None) -> tuple[dict[str, Any], list[str]]:
    """Card fields for the mana abilities, enters-tapped rule and land search in ``text``.

    Parameters
    ----------
    name : str
        The face's name (and the card's), replaced by ``~`` before matching.
    text : str
        Oracle text of one face.
    produced : list of str, optional
        Scryfall's ``produced_mana`` for the card: used, with a warning, when the text adds
        mana in a way no template knows.

    Returns
    -------
    (dict, list of str)
        Fields for :class:`~explore_sim.cards.card.Card` (``produces``,
        ``mana_ability_cost``, ``mana_life``, ``enters_tapped``, ``land_enters``, ``fetch``,
        ``fetch_when``, ``ability_cost``; ``mana_keywords``, keywords for the card's
        ``keywords``) and the lines no template matches.
    """
    lines = _normalise(name, text)
    fields: dict[str, Any] = {}
    unmatched: list[str] = []
    choices: list[str] = []  # single-mana abilities: their colours join into one choice
    units: list[str] = []  # a multi-mana ability
    pain = False
    for line in lines:
        recognised = False
        ability = _MANA_ABILITY.match(line)
        if ability and ability.group("once"):  # it pays for one spell (Lotus Petal)
            fields["mana_keywords"] = ("sacrifice_for_mana",)
        if ability:
            made = _made(ability.group("what"))
            rest = ability.group("rest").strip()
            if rest and _PAIN.match(rest):
                pain, rest = True, ""
            if made is not None and not rest:
                kind, value = made
                cost = ability.group("cost").strip().rstrip(",")
                if cost:
                    fields["mana_ability_cost"] = cost.upper()
                if kind == "choice":
                    choices.append(value)
                else:
                    units.append(value)
                recognised = True
        for pattern, rule in _TAPPED_PATTERNS:
            match = pattern.search(line)
            if match:
                rule_value = rule(match)
                if rule_value.startswith("unless:") and not all(
                        t in {"plains", "island", "swamp", "mountain", "forest"}
                        for t in rule_value[7:].split("|")):
                    break
                fields.setdefault("enters_tapped", rule_value)
                recognised = True
                break
        for pattern, effect in _LAND_ENTERS:
            if pattern.search(line):
                fields.setdefault("land_enters", effect)
                recognised = True
        recognised = _search_fields(line, fields) or recognised
        if not recognised and _TAPPED_MENTION.search(line):
            fields.setdefault("enters_tapped", "yes")  # a condition we cannot read: tapped
            unmatched.append(f"{line} (read as always entering tapped)")
        elif not recognised and (
            (_ADD_LINE.search(line) and "{t}" in line) or (_SEARCH in line and "land" in line)
        ):
            unmatched.append(line)
    if units and not choices:
        fields["produces"] = "+".join(units)
    elif choices and not units:
        if "any" in choices:
            fields["produces"] = "any"
        elif choices == ["commander"]:
            fields["produces"] = "commander"
        elif "commander" in choices:
            unmatched.append("a commander's-colours ability beside another mana ability")
        else:
            fields["produces"] = _ordered("".join(choices))
    elif choices or units:
        unmatched.append("more than one kind of mana ability")
    if pain and "produces" in fields:
        fields["mana_life"] = 1
    if unmatched and "produces" not in fields and produced:
        letters = "".join(p.upper() for p in produced if p.upper() in COLOURS)
        if letters:
            fields["produces"] = _ordered(letters)
            unmatched = [f"{line} (read as making one of {_ordered(letters)})"
                         if _ADD_LINE.search(line) else line for line in unmatched]
    return fields, unmatched


def _search_fields(line: str, fields: dict[str, Any]) -> bool:
    """The land search ``line`` says, into ``fields``; whether a template matched."""
    for pattern, found in _FETCHES:
        match = pattern.search(line)
        if match:
            fields.update(found)
            if found["fetch_when"] == "activated":
                fields["ability_cost"] = "{" + match.group(1) + "}"
            return True
    typed = _TYPED_SEARCH.match(line)
    if typed:
        kind = "land_tapped" if typed.group("tapped") else "land_untapped"
        types = "|".join(re.findall(_LAND_TYPE, typed.group("types")))
        fields.update({"fetch": f"{kind}:{types}", "fetch_when": "cast"})
        return True
    return False


def _made(what: str) -> tuple[str, str] | None:
    """What one ``Add ...`` makes: ("choice", letters) or ("units", "G+U"), else None."""
    what = what.strip()
    if what.startswith("one mana of any color"):
        if what == "one mana of any color":
            return "choice", "any"
        if what == "one mana of any color in your commander's color identity":
            return "choice", "commander"
        return None
    if _CHOICE.match(what):
        return "choice", "".join(re.findall(_SYM, what)).upper()
    symbols = re.findall(_SYM, what)
    if symbols and re.fullmatch(r"(?:\{[wubrgc]\}){2,4}", what):
        if len(set(symbols)) == 1:
            return "units", symbols[0].upper() * len(symbols)
        return "units", "+".join(s.upper() for s in symbols)
    return None


def _ordered(letters: str) -> str:
    """Mana letters once each, in WUBRGC order."""
    return "".join(ch for ch in COLOURS if ch in letters.upper())


def _normalise(name: str, text: str) -> list[str]:
    text = str(text).replace("\u2019", "'").replace("\u2014", "-").casefold()
    names = {name.casefold(), *(part.strip().casefold() for part in name.split("//"))}
    for card_name in sorted(names, key=len, reverse=True):
        if card_name:
            text = text.replace(card_name, "~")
    text = re.sub(r"\([^)]*\)", "", text)  # reminder text never defines an ability
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]
