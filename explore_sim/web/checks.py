"""Checks of the page's options against its decks, made before a run is queued: what the
analysis would refuse once running (an explorer, a known card or a card to cast first that
the deck does not hold, more cards drawn than the library has) is refused beside its field,
so that a run that cannot play never takes a place in the queue; so is a run the compiled
kernel cannot play when the page asks for the kernel.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..analysis.explore import check_explore
from ..analysis.game_setup import castable_cards, game_setup, with_engine
from ..cards import Catalog
from ..cards.decklist import Deck
from ..cards.name_lists import joined_card_lists
from ..engine.policies import as_policies
from ..errors import ExploreSimError, OptionError, clip

__all__ = ["explore_errors", "card_option_errors", "engine_errors"]

#: The command line's advice at the end of an explorer error (the page has no such option).
_OUTSIDE_HINT = re.compile(r"; if it comes from elsewhere.*$", re.S)
#: The field of an explore error, by what the message says (first match wins).
_EXPLORE_FIELDS = (
    ("explorer", re.compile(r"^(unknown explorer|explorer )")),
    ("known", re.compile(r"^known: ")),
    ("drawn", re.compile(r"^drawn[: ]")),
    ("explores", re.compile(r"^explores[: ]")),
    ("turn", re.compile(r"^turn ")),
)
_LABELS = {"explorer": "explorer", "known": "known cards", "drawn": "cards drawn",
           "explores": "explores", "turn": "turn"}


def explore_errors(options: Mapping[str, Any], deck: Deck) -> dict[str, str]:
    """What :func:`explore_sim.explore` would refuse about the explorer, the explores, the
    known cards, the cards drawn and the turn, under the field it concerns.

    Parameters
    ----------
    options : mapping
        The explore tab's options, as parsed.
    deck : Deck

    Returns
    -------
    dict of str to str
        ``{field: message}``; empty when the sequence can be played.
    """
    try:
        check_explore(deck, explores=options.get("explores"), drawn=options["drawn"],
                      known=joined_card_lists(options.get("known") or []),
                      explorer=options.get("explorer"),
                      turn=options.get("turn"))
    except ExploreSimError as error:
        text = _OUTSIDE_HINT.sub("", str(error))
        text = text.removeprefix(f"{deck.source}: ")
        field = next((name for name, pattern in _EXPLORE_FIELDS if pattern.search(text)),
                     "explorer")
        text = text.removeprefix(f"{field}: ")  # the option's keyword: the field says it
        word = _LABELS[field].split()[0]
        named = text.startswith((word, f"unknown {word}"))
        return {field: text if named else f"{_LABELS[field]}: {text}"}
    return {}


def card_option_errors(options: Mapping[str, Any], decks: Sequence[Deck]) -> dict[str, str]:
    """The cards named by ``cast_first`` and ``castable`` checked before the run, as the game
    checks them once running (:func:`_cast_first_error`,
    :func:`~explore_sim.analysis.game_setup.castable_cards`).

    Parameters
    ----------
    options : mapping
        With ``cast_first`` and ``castable``, lists of names.
    decks : sequence of Deck
        The run's decks (a compare's second deck too).

    Returns
    -------
    dict of str to str
        ``{option: message}`` for each option in error, or empty.
    """
    errors = _cast_first_error(options, decks)
    if options.get("castable"):
        try:
            castable_cards(options["castable"], decks)
        except OptionError as error:
            errors["castable"] = str(error)
    return errors


def _cast_first_error(options: Mapping[str, Any], decks: Sequence[Deck]) -> dict[str, str]:
    """A card to cast first that a deck does not hold, or that is a land: refused as the
    game refuses it once running (the deck's own cards, commanders included)."""
    names = options.get("cast_first") or []
    for index, deck in enumerate(decks):
        if not names:
            break
        features = deck.features()
        catalog = Catalog(features.cards[: features.n_deck])
        which = "the second deck" if index else "the deck"
        for name in names:
            card = catalog.find(name)
            if card is None:
                return {"cast_first": f"cast first: {clip(name)!r} is not in {which}"
                                      f"{catalog.suggestion_text(name)}"}
            if card.is_land:
                return {"cast_first": f"cast first: {card.name!r} is a land, not a spell"}
    return {}


def engine_errors(game_options: Mapping[str, Any], decks: Sequence[Deck],
                  policies: Sequence[str]) -> dict[str, str]:
    """Games the compiled kernel cannot play, when the page asks for it (``engine`` kernel):
    refused beside the engine field, as the run would refuse them.

    Parameters
    ----------
    game_options : mapping
        The run's keyword game options (``engine`` among them).
    decks : sequence of Deck
    policies : sequence of str
        The keep-or-mill policies the run plays (each on every deck).

    Returns
    -------
    dict of str to str
        ``{"engine": message}`` or empty (also when another option is wrong: its own check
        says so).
    """
    if game_options.get("engine") != "kernel":
        return {}
    try:
        setup = game_setup(list(decks), 2, game_options)
        played = as_policies(list(policies))
    except ExploreSimError:
        return {}
    try:
        with_engine(setup, [(deck, policy) for deck in decks for policy in played])
    except ExploreSimError as error:
        return {"engine": str(error)}
    return {}
