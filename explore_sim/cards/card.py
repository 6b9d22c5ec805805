"""Card facts: the :class:`Card` record and the rules that classify a card.

A card's land / creature flags are decided by docs/rules.md E10: the type of the card *as it is in
the library* counts. Double-faced cards show only their front face there, split cards combine
both halves, adventurers have only their main characteristics, and {X} counts as zero.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata

from ..errors import CardError, clip
from .costs import (
    ANY_COLOUR,
    CostMode,
    S,
    basic_land_colours,
    cost_modes,
    mask_of,
    parse_produces,
)

__all__ = [
    "KNOWN_LAYOUTS",
    "POWER_RANGE",
    "MAX_MANA_VALUE",
    "MAX_EXPLORES",
    "MAX_MAPS",
    "MAX_DRAWS",
    "MAX_NAME_LENGTH",
    "MAX_TEXT_LENGTH",
    "EXPLORES_WHEN",
    "MAPS_WHEN",
    "EXPLORE_TRIGGERS",
    "EXPLORE_REPLACEMENTS",
    "EXTRA_LAND",
    "ENTERS_TAPPED",
    "LAND_ENTERS",
    "FETCHES",
    "FETCH_TYPES",
    "TYPED_FETCHES",
    "FETCH_WHEN",
    "SACRIFICE_FOR_MANA",
    "TARGETS",
    "CAN_BE_COMMANDER",
    "Card",
    "normalize_name",
    "mana_value_of",
    "classify_types",
    "is_permanent_type",
]

#: When a card's explores happen (the ``explores_when`` column of the catalog).
EXPLORES_WHEN = (
    "enter",  # "When this enters, it explores" (Twists and Turns: a targeted enter trigger)
    "attack",  # "Whenever this attacks, it explores"
    "combat_damage",  # "Whenever this deals combat damage to a player, it explores"
    "beginning_of_combat",  # "At the beginning of combat on your turn, it explores"
    "merfolk_at_combat",  # Hakbal: at the beginning of combat each Merfolk you control explores
    "creature_enters",  # Path of Discovery, Janeway: each creature you control that enters
    "cast",  # a spell: target creature you control explores
    "activated",  # an activated ability of the card
    "dies",  # Miner's Guidewing: when it dies, target creature you control explores
    "lifegain",  # Amalia: whenever you gain life
    "equipped_attack",  # Glowcap Lantern: the equipped creature explores when it attacks
    "crewed_attack",  # Subterranean Schooner: the creature that crewed it explores
    "reanimate",  # Defossilize: the returned creature explores
)

#: When a card makes Map tokens (the ``maps_when`` column).
MAPS_WHEN = (
    "enter",
    "attack",
    "enter_or_attack",
    "parley",  # Storm Fleet Negotiator: a Map per nonland card revealed by parley
    "cast",
    "cast_tapped_target",  # Brackish Blunder: only if the returned creature was tapped
    "opponent",  # Get Lost: the Maps go to the opponent (M6)
    "land_attack",  # Restless Anchorage: when the animated land attacks
    "token_extra",  # Worldwalker Helm: an extra Map whenever you make artifact tokens
)

#: "Whenever a creature you control explores" triggers (docs/rules.md, explore-related triggers).
EXPLORE_TRIGGERS = ("walker", "cave_diver", "chupacabra", "caravel", "nicanzil")

#: Replacement effects on explore (docs/rules.md R1, R2).
EXPLORE_REPLACEMENTS = ("tracker", "twists")

#: Extra lands: a land drop for the turn the card resolves, one every turn while it is in
#: play, or "whenever it attacks, you may put a land card from your hand onto the
#: battlefield; if you don't, draw a card" (Hakbal of the Surging Soul).
EXTRA_LAND = ("this_turn", "each_turn", "attack_or_draw")

#: How a land (or a land face) enters: ``yes`` always tapped; ``unless:forest|swamp`` (a check
#: land: untapped if you control a land of one of those types); ``fast`` (untapped with two
#: or fewer other lands); ``slow`` (untapped with two or more other lands); ``shock`` (pay 2
#: life or it enters tapped); ``life:N`` (pay N life or it enters tapped). Empty: untapped.
ENTERS_TAPPED = ("yes", "fast", "slow", "shock", "unless:<types>", "life:<N>")
#: What a land does when it enters: ``scry`` (scry 1: the temples), ``bounce`` (return a
#: land you control to its owner's hand).
LAND_ENTERS = ("scry", "bounce")
#: Land searches: ``basic_tapped`` (a basic land card onto the battlefield tapped),
#: ``basic_passage`` (the same, untapped if you control four or more lands: Fabled Passage),
#: ``basic_hand`` (a basic land card into your hand), ``basic_tapped_and_hand`` (Cultivate,
#: Kodama's Reach), ``two_basics_tapped`` (two sharing a land type: Myriad Landscape); and
#: the searches for a land card of given land types (:data:`TYPED_FETCHES`, written
#: ``KIND:TYPES``: ``land_untapped:forest`` for Nature's Lore and Three Visits, "a Forest
#: card", put onto the battlefield; ``land_tapped:plains|island|swamp|mountain`` for
#: Farseek; ``land_hand:basic`` for a basic land card into your hand; ``basic`` among the
#: types is any basic land card). The library is shuffled afterwards.
FETCHES = ("basic_tapped", "basic_passage", "basic_hand", "basic_tapped_and_hand",
           "two_basics_tapped", "land_untapped", "land_tapped", "land_hand")
#: The searches that name what they find, ``KIND:TYPES``: a land card with one of the land
#: types (or a basic land card, ``basic``) onto the battlefield untapped (as its own text
#: lets it: a shock land found by Nature's Lore still asks for its life), tapped, or into
#: your hand. Only a spell's (``fetch_when = "cast"``).
TYPED_FETCHES = ("land_untapped", "land_tapped", "land_hand")
#: What a typed search may name: the basic land types, and ``basic`` (a basic land card).
FETCH_TYPES = ("plains", "island", "swamp", "mountain", "forest", "basic")
#: The keyword of a one-shot mana source: its mana ability sacrifices it ("{T}, Sacrifice
#: this artifact: Add one mana of any color.": Lotus Petal), so it pays for one spell.
SACRIFICE_FOR_MANA = "sacrifice_for_mana"
#: When a search happens: ``sacrifice`` (a land's "{T}, Sacrifice this land: ...", used as
#: soon as it enters), ``activated`` (an activated ability paid with ``ability_cost`` in the
#: second main phase), ``cast`` (the spell resolving), ``enter`` (an enter trigger).
FETCH_WHEN = ("sacrifice", "activated", "cast", "enter")
#: Targets a spell or aura needs before it is cast: ``opponent``, a target only an opponent
#: has (an opponent's permanent or spell: removal, bounce, a counterspell, an aura that only
#: harms its creature), which a goldfish opponent never has, so the card is held, never
#: cast (nor on a permanent of yours it would only harm); ``creature``, a creature you
#: control (a pump, an aura that helps its creature), so the card waits for one. A spell
#: whose explore targets a creature you control waits for one too (``explore_targets``).
TARGETS = ("opponent", "creature")
#: The keyword of a card whose text says it can be your commander (CR 903.3): the card
#: import writes it, card files may give it.
CAN_BE_COMMANDER = "can_be_commander"
_BASIC_TYPE_NAMES = ("plains", "island", "swamp", "mountain", "forest")

#: Layouts whose card is, in the library, only its front face or main part (E10).
_FRONT_FACE_LAYOUTS = frozenset(
    {"transform", "modal_dfc", "adventure", "flip", "meld", "reversible_card", "prepare"}
)
#: Layouts whose halves are combined in the library (E10, CR 709.4).
_COMBINED_LAYOUTS = frozenset({"split", "aftermath"})
KNOWN_LAYOUTS = frozenset(
    {"normal", "leveler", "saga", "class", "case", "mutate", "prototype", "battle", "host",
     "augment"}
) | (_FRONT_FACE_LAYOUTS | _COMBINED_LAYOUTS)

#: Power and toughness accepted (a few printed cards have negative power, B.F.M. is 99/99).
POWER_RANGE = (-99, 999)
#: The largest mana value accepted (the engine holds card numbers in 16-bit arrays).
MAX_MANA_VALUE = 1000
#: The most explores one ability may make, and the most Maps one ability may create.
MAX_EXPLORES = 20
MAX_MAPS = 20
#: The most cards one spell or enter trigger may draw.
MAX_DRAWS = 10
#: The longest card name, and the longest of any other text field (cost, type line, note).
MAX_NAME_LENGTH = 200
MAX_TEXT_LENGTH = 1000
_MAX_KEYWORDS = 50

_MANA_SYMBOL = re.compile(r"\{([^{}]*)\}")
_SPACES = re.compile(r"\s+")
_FACE_SEPARATOR = re.compile(r" ?/{1,2} ?")
_TYPE_DASH = re.compile(r" [—-] | [—-]$|—")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'", "\u00b4": "'"})


def normalize_name(name: str) -> str:
    """Return the lookup key of a card name.

    Case-insensitive, tolerant of typographic apostrophes, accents and runs of spaces, and
    of ``/`` vs ``//`` between the faces of a double-faced or split card.
    """
    text = unicodedata.normalize("NFKD", str(name).translate(_QUOTES))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = _FACE_SEPARATOR.sub(" // ", _SPACES.sub(" ", text))
    return " ".join(text.casefold().split())


def mana_value_of(mana_cost: str, layout: str = "normal") -> int:
    """Mana value of a card in the library (E10).

    ``{X}`` (and Y, Z) count as 0 (CR 202.3e); a hybrid ``{2/W}`` counts 2; every other
    symbol counts 1. Split cards add the costs of both halves (CR 709.4); double-faced and
    adventurer cards use the front face / main part only.

    >>> mana_value_of("{X}{G}")
    1
    >>> mana_value_of("{1}{R} // {2}{U}", layout="split")
    5
    """
    faces = [part for part in mana_cost.split("//")]
    if layout not in _COMBINED_LAYOUTS:
        faces = faces[:1]
    total = 0
    for face in faces:
        rest = _MANA_SYMBOL.sub("", face).strip()
        if rest:
            raise CardError(f"malformed mana cost {mana_cost!r}: unexpected {rest!r}")
        for symbol in _MANA_SYMBOL.findall(face):
            total += _symbol_value(symbol, mana_cost)
    return total


def _symbol_value(symbol: str, mana_cost: str) -> int:
    symbol = symbol.strip().upper()
    if _is_number(symbol):
        return int(symbol)
    if symbol in {"X", "Y", "Z"}:
        return 0
    parts = symbol.split("/")
    if parts and _is_number(parts[0]):  # {2/W}: the larger half counts (CR 202.3f)
        return int(parts[0])
    if all(re.fullmatch(r"[WUBRGCSP]|H[WUBRG]", part) for part in parts):
        return 1
    raise CardError(f"malformed mana cost {mana_cost!r}: unknown symbol {{{symbol}}}")


def _is_number(symbol: str) -> bool:
    return symbol.isascii() and symbol.isdigit() and len(symbol) <= 9


def is_permanent_type(type_line: str) -> bool:
    """Whether a card of ``type_line`` is a permanent in the library: its front face is not
    an instant or a sorcery.

    Parameters
    ----------
    type_line : str
        The card's type line (faces joined by ``//``).

    Returns
    -------
    bool
    """
    return not ({"instant", "sorcery"} & _card_types(type_line.split("//")[0]))


def _card_types(face_type_line: str) -> set[str]:
    """The card types and supertypes of one face (the words before the dash)."""
    head = _TYPE_DASH.split(_SPACES.sub(" ", face_type_line), maxsplit=1)[0]
    return {word.casefold() for word in head.split()}


#: Card types (CR 300.1) and supertypes (CR 205.4a) a type line may hold before its dash.
CARD_TYPES = frozenset({"artifact", "battle", "conspiracy", "creature", "dungeon",
                        "enchantment", "instant", "kindred", "land", "phenomenon", "plane",
                        "planeswalker", "scheme", "sorcery", "tribal", "vanguard"})
SUPERTYPES = frozenset({"basic", "legendary", "ongoing", "snow", "world", "token", "elite",
                        "host"})


def unknown_types(type_line: str) -> list[str]:
    """The words before a face's dash that are neither a card type nor a supertype, and
    ``"(no card type)"`` for a face without a card type: what a card file's ``type_line``
    must not hold (``"Creatur — Merfolk"`` would make a card that is no creature).

    Parameters
    ----------
    type_line : str
        Faces separated by ``//``.

    Returns
    -------
    list of str
        Empty for a well-formed type line.
    """
    found: list[str] = []
    for face in type_line.split("//"):
        words = _card_types(face)
        found += sorted(words - CARD_TYPES - SUPERTYPES)
        if words and not words & CARD_TYPES and not words - CARD_TYPES - SUPERTYPES:
            found.append("(no card type)")
    return found


def classify_types(type_line: str, layout: str = "normal") -> tuple[bool, bool, bool]:
    """Decide ``(is_land, is_creature, is_land_like)`` for a card in the library (E10).

    Parameters
    ----------
    type_line : str
        The whole type line, faces separated by ``//``.
    layout : str
        ``normal``, ``split``, ``transform``, ``modal_dfc``, ``adventure``, ...

    Returns
    -------
    tuple of bool
        ``is_land``: the card in the library is a land card (Dryad Arbor: yes; spell // land
        double-faced cards: no). ``is_creature``: likewise for creature. ``is_land_like``: a
        nonland modal double-faced card whose back face is a land, which deckbuilders count
        among their lands; never a land for explore.
    """
    if layout not in KNOWN_LAYOUTS:
        raise CardError(f"unknown card layout {layout!r}")
    faces = [face.strip() for face in type_line.split("//")]
    if layout in _COMBINED_LAYOUTS:
        types = set().union(*(_card_types(face) for face in faces))
    else:
        types = _card_types(faces[0])
    is_land = "land" in types
    is_creature = "creature" in types
    is_land_like = (
        not is_land
        and layout == "modal_dfc"
        and any("land" in _card_types(face) for face in faces[1:])
    )
    return is_land, is_creature, is_land_like


@dataclasses.dataclass(frozen=True)
class Card:
    """One card's facts as the simulator uses them.

    ``explores`` is the number of explores an ability makes (0: none) and ``explores_x`` marks
    "explores X times" (Jadelight Spelunker), whose count is chosen on casting. The vocabulary
    of ``explores_when``, ``maps_when``, ``explore_trigger``, ``explore_replacement`` and
    ``extra_land`` is :data:`EXPLORES_WHEN`, :data:`MAPS_WHEN`, :data:`EXPLORE_TRIGGERS`,
    :data:`EXPLORE_REPLACEMENTS` and :data:`EXTRA_LAND`. ``draws`` is the cards you draw when
    the card resolves (an instant or sorcery) or enters (a permanent: "when it enters, draw a
    card"); the keyword ``draw`` is the older spelling of ``draws = 1``. ``mana_value`` may
    be given (a card database's value); otherwise it is computed from ``mana_cost`` (E10: X
    counts 0).
    ``is_land``, ``is_creature`` and ``is_land_like`` are derived from the type line and
    layout by :func:`classify_types` (E10).

    Mana: ``produces`` is what one activation of the card's mana ability makes
    (:func:`explore_sim.cards.costs.parse_produces`: ``"G"``, ``"BG"`` for B or G, ``"any"``,
    ``"CC"``, ``"G+U"``, ``"commander"``); a land without it makes the colours of its basic
    land types. ``mana_ability_cost`` is the mana the ability needs (``"{1}"`` for a Signet)
    and ``mana_life`` the life each coloured mana from it costs (pain lands: 1).
    ``enters_tapped`` (:data:`ENTERS_TAPPED`), ``land_enters`` (:data:`LAND_ENTERS`),
    ``fetch`` / ``fetch_when`` (:data:`FETCHES`, :data:`FETCH_WHEN`) describe lands and ramp;
    ``back_produces`` and ``back_enters_tapped`` the land face of a modal double-faced card
    (spell // land, or a land // land Pathway), which may be played instead of the front.
    ``colour_identity`` (letters, e.g. ``"GU"``) is a commander's colour identity; without it
    the colours of the mana cost count. ``target`` (:data:`TARGETS`) is the target a spell
    or aura needs before it is cast: ``opponent`` holds it in a goldfish game.
    ``unmodelled`` keeps the oracle text an importer could not model (shown by ``cards
    check``).

    Every field is checked when the card is made, so the engine's 16-bit feature arrays can
    hold it: a name of at most :data:`MAX_NAME_LENGTH` characters without control characters,
    other text of at most :data:`MAX_TEXT_LENGTH`, power and toughness within
    :data:`POWER_RANGE`, a mana value from 0 to :data:`MAX_MANA_VALUE`, ``explores`` and
    ``maps`` from 0 to :data:`MAX_EXPLORES` / :data:`MAX_MAPS`, ``draws`` from 0 to
    :data:`MAX_DRAWS`, keywords a tuple of words.
    Anything else raises :class:`~explore_sim.errors.CardError`.
    """

    name: str
    mana_cost: str
    type_line: str
    layout: str = "normal"
    power: int | None = None
    toughness: int | None = None
    explores: int = 0
    explores_x: bool = False
    explores_when: str = ""
    explore_targets: bool = False
    maps: int = 0
    maps_when: str = ""
    explore_trigger: str = ""
    explore_replacement: str = ""
    extra_land: str = ""
    draws: int = 0
    keywords: tuple[str, ...] = ()
    ability_cost: str = ""
    set_number: str = ""
    note: str = ""
    source: str = "built-in"
    mana_value: int | None = None
    produces: str = ""
    mana_ability_cost: str = ""
    mana_life: int = 0
    enters_tapped: str = ""
    land_enters: str = ""
    fetch: str = ""
    fetch_when: str = ""
    back_produces: str = ""
    back_enters_tapped: str = ""
    colour_identity: str = ""
    target: str = ""
    unmodelled: str = ""
    is_land: bool = dataclasses.field(init=False)
    is_creature: bool = dataclasses.field(init=False)
    is_land_like: bool = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        _check_name(self.name)
        where = f"card {clip(self.name)!r}"
        _check_fields(self, where)
        _check_choice(self.explores_when, EXPLORES_WHEN, "explores_when", where)
        _check_choice(self.maps_when, MAPS_WHEN, "maps_when", where)
        _check_choice(self.explore_trigger, EXPLORE_TRIGGERS, "explore_trigger", where)
        _check_choice(
            self.explore_replacement, EXPLORE_REPLACEMENTS, "explore_replacement", where
        )
        _check_choice(self.extra_land, EXTRA_LAND, "extra_land", where)
        _check_choice(self.target, TARGETS, "target", where)
        if (self.explores > 0 or self.explores_x) != bool(self.explores_when):
            raise CardError(f"{where}: explores and explores_when must be given together")
        if (self.maps > 0) != bool(self.maps_when):
            raise CardError(f"{where}: maps and maps_when must be given together")
        _check_choice(self.land_enters, LAND_ENTERS, "land_enters", where)
        _check_fetch(self.fetch, self.fetch_when, where)
        if "enters_tapped" in self.keywords and not self.enters_tapped:
            object.__setattr__(self, "enters_tapped", "yes")  # the older keyword spelling
        if "draw" in self.keywords and not self.draws:
            object.__setattr__(self, "draws", 1)  # the older keyword spelling
        for field in ("enters_tapped", "back_enters_tapped"):
            _check_enters_tapped(getattr(self, field), field, where)
        try:
            is_land, is_creature, is_land_like = classify_types(self.type_line, self.layout)
            # A card database's own mana value wins (it knows every symbol); else the cost's.
            mana_value = (
                mana_value_of(self.mana_cost, self.layout)
                if self.mana_value is None
                else _whole_mana_value(self.mana_value)
            )
            mana_value_of(self.ability_cost)
            mana_value_of(self.mana_ability_cost)
            parse_produces(self.produces, ANY_COLOUR)
            parse_produces(self.back_produces, ANY_COLOUR)
            cost_modes(self.mana_cost, self.layout)
            _check_number(mana_value, "mana value", 0, MAX_MANA_VALUE)
        except CardError as error:
            raise CardError(f"{where}: {error}") from None
        object.__setattr__(self, "mana_value", mana_value)
        object.__setattr__(self, "is_land", is_land)
        object.__setattr__(self, "is_creature", is_creature)
        object.__setattr__(self, "is_land_like", is_land_like)
        if is_land:
            _check_makes_mana(self, where)
            if self.draws:
                raise CardError(f"{where}: draws: a land draws no cards; card draw is a "
                                "spell's (as it resolves) or a nonland permanent's (as it "
                                "enters)")
        try:
            self.land_face  # noqa: B018 - reading it checks it: a land face must make mana too
        except CardError as error:
            raise CardError(f"{where}: its land face: {error}") from None

    @property
    def cost_modes(self) -> tuple[CostMode, ...]:
        """The ways to cast the card from hand (:func:`explore_sim.cards.costs.cost_modes`)."""
        return cost_modes(self.mana_cost, self.layout)

    @property
    def identity(self) -> int:
        """The card's colour identity as a colour mask: ``colour_identity`` if given, else
        the colours of the pips of its mana cost (both halves and faces)."""
        if self.colour_identity:
            return mask_of(self.colour_identity) & ANY_COLOUR
        mask = 0
        for face in self.mana_cost.split("//"):
            for mode in cost_modes(face.strip()):
                for pip in mode.pips:
                    mask |= pip & ANY_COLOUR
        return mask

    @property
    def is_snow(self) -> bool:
        """The front face has the snow supertype (its mana pays {S})."""
        return "snow" in _card_types(self.type_line.split("//")[0])

    def mana_units(self, commander_colours: int = 0) -> tuple[int, ...]:
        """Mana units one activation of the card's mana ability makes, as colour masks.

        ``produces`` if given; otherwise a land makes one mana of the colours of its basic
        land types (CR 305.6: Overgrown Tomb is a Swamp Forest). Snow sources' units also
        pay {S}.

        Parameters
        ----------
        commander_colours : int
            The commander's colours (a mask), for ``produces = "commander"``.

        Returns
        -------
        tuple of int
            One colour mask per unit (:mod:`explore_sim.cards.costs`); empty for a card that
            makes no mana.
        """
        if self.produces:
            units = parse_produces(self.produces, commander_colours)
        elif self.is_land:
            colours = basic_land_colours(self.subtypes)
            units = (colours,) if colours else ()
        else:
            units = ()
        return tuple(unit | S for unit in units) if self.is_snow else units

    @property
    def land_face(self) -> Card | None:
        """The land face of a modal double-faced card (spell // land or a Pathway), as a card
        of its own, or None."""
        faces = [face.strip() for face in self.type_line.split("//")]
        if self.layout != "modal_dfc" or len(faces) < 2 or "land" not in _card_types(faces[1]):
            return None
        names = [name.strip() for name in self.name.split("//")]
        return Card(
            name=names[1] if len(names) > 1 else f"{self.name} (land)",
            mana_cost="",
            type_line=faces[1],
            produces=self.back_produces,
            enters_tapped=self.back_enters_tapped,
            source=self.source,
            note=f"land face of {self.front_name}",
        )

    @property
    def is_mana_source(self) -> bool:
        """The card has a modelled mana ability (or is a land with a basic land type)."""
        return bool(self.mana_units(ANY_COLOUR))

    @property
    def front_name(self) -> str:
        """The name of the front face (what MTG Arena exports for double-faced cards)."""
        return self.name.split(" // ")[0]

    @property
    def ability_mana(self) -> int:
        """Mana needed for the card's modelled activated ability (equip, explore), 0 if none."""
        return mana_value_of(self.ability_cost)

    @property
    def fetch_kind(self) -> str:
        """What the card's land search does (:data:`FETCHES`), without the types a typed
        search names; ``""`` for none."""
        return self.fetch.partition(":")[0]

    @property
    def fetch_types(self) -> tuple[str, ...]:
        """The land types a typed search (:data:`TYPED_FETCHES`) may find (``basic``: a
        basic land card); empty for any other."""
        types = self.fetch.partition(":")[2]
        return tuple(types.split("|")) if types else ()

    @property
    def subtypes(self) -> frozenset[str]:
        """The front face's subtypes (the words after the dash), lower case."""
        front = self.type_line.split("//")[0]
        _, _, tail = front.partition("—")
        return frozenset(word.casefold() for word in tail.split())

    def has_keyword(self, keyword: str) -> bool:
        """Whether the card has a keyword.

        Parameters
        ----------
        keyword : str
            Such as ``haste`` or ``enters_tapped``.

        Returns
        -------
        bool
        """
        return keyword in self.keywords

    @property
    def is_legendary(self) -> bool:
        """A legendary permanent (its front face's supertype): a player controls one of a name
        at a time (the legend rule, CR 704.5j)."""
        front = _card_types(self.type_line.split("//")[0])
        return "legendary" in front and not ({"instant", "sorcery"} & front)

    @property
    def is_permanent(self) -> bool:
        """True unless the card in the library is an instant or a sorcery."""
        return is_permanent_type(self.type_line)

    def abilities(self) -> str:
        """The modelled explore / Map abilities in words.

        Returns
        -------
        str
            Such as ``explores 2 (enter)``; ``-`` if none.
        """
        parts = []
        if self.explores or self.explores_x:
            count = "X" if self.explores_x else self.explores
            parts.append(f"explores {count} ({self.explores_when})")
        if self.maps:
            parts.append(f"{self.maps} Map ({self.maps_when})")
        if self.explore_trigger:
            parts.append(f"trigger {self.explore_trigger}")
        if self.explore_replacement:
            parts.append(f"replacement {self.explore_replacement}")
        if self.extra_land:
            parts.append(f"extra land {self.extra_land}")
        if self.draws:
            when = "enter" if self.is_permanent else "resolve"
            parts.append(f"draws {self.draws} ({when})")
        if self.fetch:
            parts.append(f"search {self.fetch} ({self.fetch_when})")
        if self.has_keyword(SACRIFICE_FOR_MANA):
            parts.append("one-shot mana: sacrificed for its mana")
        if self.target == "opponent":
            parts.append("held: its target is an opponent's")
        elif self.target == "creature":
            parts.append("targets a creature you control")
        return "; ".join(parts) or "-"

    def mana(self) -> str:
        """What the card makes and how it enters, in words (``cards check``).

        Returns
        -------
        str
            For example ``"BG; enters tapped: unless:swamp|forest"``; ``-`` if nothing.
        """
        parts = []
        units = self.mana_units(ANY_COLOUR)
        if units:
            from .costs import mask_text

            text = "+".join(mask_text(u & ~S) for u in units)
            if self.produces.strip().casefold() == "commander":
                text = "commander's colours"
            if self.mana_ability_cost:
                text = f"{self.mana_ability_cost}: {text}"
            if self.mana_life:
                text += f" ({self.mana_life} life per coloured mana)"
            parts.append(text)
        if self.enters_tapped:
            parts.append(f"enters tapped: {self.enters_tapped}")
        if self.land_enters:
            parts.append(f"on entering: {self.land_enters}")
        face = self.land_face
        if face is not None:
            back = face.mana()
            parts.append(f"land face {face.name}: {back}")
        return "; ".join(parts) or "-"

    def describe(self) -> dict[str, object]:
        """The card's facts, for display.

        Returns
        -------
        dict of str to object
            Name, cost, types, abilities and source, in display order.
        """
        explores = "X" if self.explores_x else (self.explores or "")
        return {
            "name": self.name,
            "mana_cost": self.mana_cost or "-",
            "mana_value": self.mana_value,
            "type_line": self.type_line,
            "layout": self.layout,
            "land": self.is_land,
            "land_like": self.is_land_like,
            "creature": self.is_creature,
            "power/toughness": (
                f"{self.power}/{self.toughness}" if self.power is not None else "-"
            ),
            "explores": f"{explores} ({self.explores_when})" if explores else "-",
            "explore_targets": self.explore_targets,
            "maps": f"{self.maps} ({self.maps_when})" if self.maps else "-",
            "explore_trigger": self.explore_trigger or "-",
            "explore_replacement": self.explore_replacement or "-",
            "extra_land": self.extra_land or "-",
            "draws": self.draws or "-",
            "search": f"{self.fetch} ({self.fetch_when})" if self.fetch else "-",
            "target": self.target or "-",
            "keywords": ", ".join(self.keywords) or "-",
            "ability_cost": self.ability_cost or "-",
            "mana": self.mana(),
            "set_number": self.set_number or "-",
            "note": self.note or "-",
            "source": self.source,
        }


def _whole_mana_value(value: object) -> int:
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not 0 <= value <= MAX_MANA_VALUE):  # also false for NaN
        raise CardError(f"mana value must be a number from 0 to {MAX_MANA_VALUE}, "
                        f"got {clip(repr(value))}")
    return int(value)  # half mana (Un-cards) rounds down


def _check_enters_tapped(value: str, field: str, where: str) -> None:
    """``enters_tapped`` values: see :data:`ENTERS_TAPPED`."""
    if not value or value in {"yes", "fast", "slow", "shock"}:
        return
    kind, _, arg = value.partition(":")
    if kind == "unless" and arg and all(t in _BASIC_TYPE_NAMES for t in arg.split("|")):
        return
    if kind == "life" and arg.isdigit() and 1 <= int(arg) <= 20:
        return
    raise CardError(
        f"{where}: {field} {value[:40]!r} is not one of yes, fast, slow, shock, "
        "unless:<types> (e.g. unless:forest|swamp), life:<N>"
    )


def _check_name(name: object) -> None:
    if not isinstance(name, str) or not name.strip():
        raise CardError("a card has an empty name" if isinstance(name, str)
                        else f"a card name must be text, got {type(name).__name__}")
    if len(name) > MAX_NAME_LENGTH:
        raise CardError(f"card name {clip(name)!r} is too long ({len(name):,} characters, "
                        f"at most {MAX_NAME_LENGTH})")
    if _CONTROL.search(name):
        raise CardError(f"card name {clip(name)!r} contains control characters")


_TEXT_FIELDS = ("mana_cost", "type_line", "layout", "explores_when", "maps_when",
                "explore_trigger", "explore_replacement", "extra_land", "ability_cost",
                "set_number", "note", "source", "produces", "mana_ability_cost",
                "enters_tapped", "land_enters", "fetch", "fetch_when", "back_produces",
                "back_enters_tapped", "colour_identity", "target", "unmodelled")
_NUMBER_FIELDS = {
    "power": POWER_RANGE,
    "toughness": POWER_RANGE,
    "explores": (0, MAX_EXPLORES),
    "maps": (0, MAX_MAPS),
    "draws": (0, MAX_DRAWS),
    "mana_life": (0, 20),
}


def _check_fields(card: Card, where: str) -> None:
    """Types, lengths and ranges of a card's fields: what the engine's arrays can hold."""
    for field in _TEXT_FIELDS:
        value = getattr(card, field)
        if not isinstance(value, str):
            raise CardError(f"{where}: {field} must be text, got {type(value).__name__}")
        if len(value) > MAX_TEXT_LENGTH:
            raise CardError(f"{where}: {field} is too long ({len(value):,} characters, at "
                            f"most {MAX_TEXT_LENGTH})")
    for field, (low, high) in _NUMBER_FIELDS.items():
        value = getattr(card, field)
        if value is not None or field in {"explores", "maps", "draws", "mana_life"}:
            try:
                _check_number(value, field, low, high)
            except CardError as error:
                raise CardError(f"{where}: {error}") from None
    keywords = card.keywords
    if (not isinstance(keywords, tuple) or len(keywords) > _MAX_KEYWORDS
            or not all(isinstance(k, str) and 0 < len(k) <= 50 for k in keywords)):
        raise CardError(f"{where}: keywords must be a list of at most {_MAX_KEYWORDS} words, "
                        f"got {clip(repr(keywords))}")


def _check_number(value: object, field: str, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise CardError(f"{field} must be a whole number from {low} to {high}, "
                        f"got {clip(repr(value))}")


def _check_makes_mana(card: Card, where: str) -> None:
    """A land makes mana (its ``produces`` or its basic land types) unless its text says it
    does not: ``produces = "none"``, a land that sacrifices itself to search (``fetch``), or
    text an importer could not read (``unmodelled``, shown by ``cards check``)."""
    if card.produces or card.fetch or card.unmodelled or basic_land_colours(card.subtypes):
        return
    raise CardError(
        f"{where}: a land that makes no mana; give what its mana ability makes (produces = "
        '"C" for {T}: Add {C}) or say it makes none (produces = "none")'
    )


def _check_fetch(fetch: str, fetch_when: str, where: str) -> None:
    """``fetch`` (:data:`FETCHES`; a typed search as ``KIND:TYPES``) and ``fetch_when``."""
    kind, colon, types = fetch.partition(":")
    _check_choice(kind, FETCHES, "fetch", where)
    _check_choice(fetch_when, FETCH_WHEN, "fetch_when", where)
    if bool(fetch) != bool(fetch_when):
        raise CardError(f"{where}: fetch and fetch_when must be given together")
    if kind in TYPED_FETCHES:
        if not types or not all(t in FETCH_TYPES for t in types.split("|")):
            raise CardError(f"{where}: fetch {clip(fetch, 60)!r}: {kind} names the land types "
                            f"it finds, {kind}:TYPES with TYPES of {', '.join(FETCH_TYPES)} "
                            f"joined by | (e.g. {kind}:forest)")
        if fetch_when != "cast":
            raise CardError(f"{where}: fetch {kind} is a spell's search: fetch_when must be "
                            f"cast, got {fetch_when!r}")
    elif colon:
        raise CardError(f"{where}: fetch {clip(fetch, 60)!r}: only {', '.join(TYPED_FETCHES)} "
                        "name land types")


def _check_choice(value: str, choices: tuple[str, ...], field: str, where: str) -> None:
    if value and value not in choices:
        raise CardError(f"{where}: {field} {value!r} is not one of {', '.join(choices)}")
