"""A card file skeleton for the cards of a decklist that no card source knows.

:func:`card_template` reads a decklist the way :func:`~explore_sim.cards.decklist.load_deck`
does, looks every main-deck and commander card up, and writes one ``[[card]]`` table for
each card it cannot find: ``name`` filled in, the required ``type_line`` and ``mana_cost``
left empty for the user, the common optional fields commented out, and every other field
described in the header. Sideboard and companion cards are never shuffled, so they are left
out. A skeleton that is not filled in is refused when it is loaded (an empty ``type_line``,
an empty ``mana_cost`` on a nonland card), with the file, line and field named. A name that
is a near miss of a known card's (:mod:`.spelling`) gets a "did you mean" line above its
table; any other name is simply a card no source knows, to be described.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterable
from os import PathLike
from pathlib import Path

from .card import (
    ENTERS_TAPPED,
    EXPLORE_REPLACEMENTS,
    EXPLORE_TRIGGERS,
    EXPLORES_WHEN,
    EXTRA_LAND,
    FETCH_WHEN,
    FETCHES,
    KNOWN_LAYOUTS,
    LAND_ENTERS,
    MAPS_WHEN,
    normalize_name,
)
from .decklist import deck_sources, read_deck_text, read_entries

__all__ = ["card_template", "unknown_cards"]

#: Sections whose unknown cards the skeleton holds (the others are never shuffled).
_SECTIONS = ("commander", "main")


def unknown_cards(
    deck: str | PathLike[str],
    *,
    cards: Iterable[str | PathLike[str]] | str | PathLike[str] = (),
    cards_dir: str | PathLike[str] | None = None,
    format: str = "auto",
) -> list[tuple[int, str]]:
    """The main-deck and commander cards of a decklist that no card source knows.

    Parameters
    ----------
    deck : str or path-like
        A decklist file, or decklist text (any string with a line break).
    cards : path or iterable of paths
        Card files to look names up in first, as for
        :func:`~explore_sim.cards.decklist.load_deck`; the decklist's own
        ``NAME.cards.toml`` is read too.
    cards_dir : str or path-like, optional
        The directory of the imported card index.
    format : str
        The decklist format (``auto`` detects it).

    Returns
    -------
    list of (int, str)
        ``(line number, name as written)`` of each unknown card, once per card, in decklist
        order (commander first).
    """
    return _unknown(*read_deck_text(deck, format), cards, cards_dir)


def _unknown(text: str, source: str, name: str | None, format: str, path: Path | None,
             cards: Iterable[str | PathLike[str]] | str | PathLike[str],
             cards_dir: str | PathLike[str] | None) -> list[tuple[int, str]]:
    catalog = deck_sources(None, cards, cards_dir, path)
    entries = read_entries(text, source, format)[0]
    found: dict[str, tuple[int, str]] = {}
    for section in _SECTIONS:
        for number, name, _ in entries.get(section, []):
            key = normalize_name(name)
            if key not in found and catalog.find(name) is None:
                found[key] = (number, name)
    return list(found.values())


def card_template(
    deck: str | PathLike[str],
    *,
    cards: Iterable[str | PathLike[str]] | str | PathLike[str] = (),
    cards_dir: str | PathLike[str] | None = None,
    format: str = "auto",
) -> str:
    """A TOML card file skeleton for the unknown cards of a decklist, to fill in.

    Parameters
    ----------
    deck : str or path-like
        A decklist file, or decklist text (any string with a line break).
    cards : path or iterable of paths
        Card files whose cards count as known (``--cards FILE``).
    cards_dir : str or path-like, optional
        The directory of the imported card index (``--cards-dir``).
    format : str
        The decklist format (``auto`` detects it).

    Returns
    -------
    str
        One ``[[card]]`` table per unknown main-deck or commander card (:func:`unknown_cards`)
        with ``name`` filled in and ``type_line = ""`` and ``mana_cost = ""`` to fill in,
        the common optional fields commented out and the others described in the header.
        With no unknown card, a one-line TOML comment that says so.

    Raises
    ------
    DeckError
        A decklist that cannot be read.
    CardError
        A card file in ``cards`` (or beside the deck) that cannot be read.
    """
    text, source, name, format, path = read_deck_text(deck, format)
    unknown = _unknown(text, source, name, format, path, cards, cards_dir)
    if not unknown:
        return f"# {source}: every main-deck card is known; no card file is needed\n"
    if path is None:
        save = "pass this file with --cards FILE (load_deck(DECK, cards=[FILE]) in Python)"
    else:
        save = (f"save it as {path.stem}.cards.toml beside the deck (it is read with the deck) "
                "or pass it with --cards FILE (load_deck(DECK, cards=[FILE]) in Python)")
    catalog = deck_sources(None, cards, cards_dir, path)
    noun = "card" if len(unknown) == 1 else "cards"
    intro = (f"Card file for {source}: the {len(unknown)} main-deck {noun} that no card "
             "source knows (the built-in catalog, card files, the imported card index). Fill "
             "in each card's type_line and mana_cost (a land has no mana cost: leave it \"\"), "
             f"uncomment the fields that apply, then {save}. A card left as it is here is "
             "refused with its line and field named.")
    lines = [
        *textwrap.wrap(intro, 92, initial_indent="# ", subsequent_indent="# "),
        "#",
        "# Other optional fields:",
        *_commented(_OTHER_FIELDS),
        "",
    ]
    for number, name in unknown:
        close = catalog.suggest(name, 2)
        lines += [
            "[[card]]",
            f"name = {_toml_string(name)}  # decklist line {number}",
            *([f"# did you mean {' or '.join(map(repr, close))}? If so, correct the "
               "decklist and delete this table; if not, describe the card below"]
              if close else []),
            '# required: the type line as printed, e.g. "Creature — Merfolk Scout", "Instant",',
            '# "Land — Forest Island", "Sorcery // Land" (then set layout, see above)',
            'type_line = ""',
            '# the mana cost, e.g. "{1}{G}{U}", "{X}{G}"; required for a nonland card',
            'mana_cost = ""',
            *_commented(_COMMON_FIELDS),
            "",
        ]
    return "\n".join(lines)


def _toml_string(text: str) -> str:
    """``text`` as a TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text, ensure_ascii=False)


def _commented(fields: list[tuple[str, str]]) -> list[str]:
    """``# field = example    # what it means`` lines, the comments aligned."""
    width = max(len(example) for example, _ in fields)
    return [f"# {example:<{width}}  # {meaning}" for example, meaning in fields]


def _choices(values: Iterable[str]) -> str:
    return ", ".join(sorted(values) if isinstance(values, frozenset) else values)


#: Shown commented out in every card's table.
_COMMON_FIELDS = [
    ("power = 2", "creatures"),
    ("toughness = 2", "creatures"),
    ('keywords = ["haste"]', "haste: it attacks and taps for mana the turn it enters"),
    ("explores = 1", 'explores per ability: a number, or "X"'),
    ('explores_when = "enter"', _choices(EXPLORES_WHEN)),
    ("maps = 1", "Map tokens per ability"),
    ('maps_when = "enter"', _choices(MAPS_WHEN)),
    ('produces = "G"', 'mana per activation: "G", "BG" (B or G), "any", "CC", "G+U" (both), '
                       '"commander"; "none" for a land whose text makes no mana'),
    ('enters_tapped = "yes"', "lands: " + _choices(ENTERS_TAPPED)
     + " (e.g. unless:forest|swamp)"),
]

#: Described once, in the header.
_OTHER_FIELDS = [
    ('layout = "modal_dfc"', _choices(KNOWN_LAYOUTS)),
    ("mana_value = 3", "only to override the mana cost's"),
    ("explore_targets = true", "the explore targets a creature you control"),
    ('explore_trigger = "walker"', '"whenever a creature you control explores": '
                                   + _choices(EXPLORE_TRIGGERS)),
    ('explore_replacement = "tracker"', _choices(EXPLORE_REPLACEMENTS)),
    ('extra_land = "this_turn"', "extra land drops: " + _choices(EXTRA_LAND)),
    ("draws = 1", "cards drawn as the spell resolves or the permanent enters"),
    ('ability_cost = "{2}{G}"', "the cost of an activated ability (explores_when or "
                                'fetch_when = "activated")'),
    ('mana_ability_cost = "{1}"', "mana its mana ability needs (a Signet)"),
    ("mana_life = 1", "life per coloured mana (pain lands)"),
    ('land_enters = "scry"', _choices(LAND_ENTERS)),
    ('fetch = "basic_tapped"', "land searches: " + _choices(FETCHES) + " (land_*: a spell's "
                               'search for a land card of named types, "land_untapped:forest")'),
    ('keywords = ["sacrifice_for_mana"]', "a one-shot mana source (Lotus Petal)"),
    ('fetch_when = "sacrifice"', _choices(FETCH_WHEN)),
    ('back_produces = "B"', "the land face of a modal double-faced card: its mana"),
    ('back_enters_tapped = "yes"', "the land face: how it enters"),
    ('colour_identity = "GU"', "a commander's colour identity (default: its cost's colours)"),
    ('target = "opponent"', "a spell or aura whose target only an opponent has (removal, "
                            "bounce, a counterspell): held; \"creature\": it needs a "
                            "creature you control"),
    ('set_number = "LCI 209"', "set and collector number, for reference"),
    ('note = "..."', "free text"),
]
