"""From game options to a game: checked values, the :class:`GameConfig`, the mulligan rule,
the scry policy, and what a result's metadata says about them.

The options come from the schema of :mod:`explore_sim.engine.options`; every analysis that
plays goldfish games (simulate, compare, sweep, value, tune) turns its options into a
:class:`GameSetup` with :func:`game_setup` and writes them into its metadata with
:func:`run_meta` or :func:`options_meta`.
"""

from __future__ import annotations

import dataclasses
import inspect
import textwrap
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from ..cards import Card, FeatureTable, normalize_name
from ..cards.decklist import Deck
from ..engine.config import GameConfig, is_commander_game, starting_life
from ..engine.mulligan import MulliganRule, as_mulligan_rule
from ..engine.options import GAME_OPTIONS, GameOption, keyword_options, option
from ..engine.policies import Policy, one_policy, policy_name
from ..errors import OptionError, close_matches
from .engines import EngineChoice, EnginePlay, choose_engine
from .report import INTERVAL, deck_meta, never_cast, versions
from .runner import CHUNK_TRIALS, check_trials

__all__ = ["ASSUMPTIONS", "GameSetup", "game_setup", "game_option_defaults", "run_meta",
           "options_meta", "game_mulligan", "game_formats", "castable_cards",
           "with_game_options", "with_engine", "engine_plays"]

#: What every goldfish game assumes, for result metadata.
ASSUMPTIONS = [
    "goldfish: no opponent; attacks are unblocked",
    "mana: colours, mana creatures (summoning sick the turn they enter), mana rocks, lands "
    "entering tapped and land faces follow the card data; a spell is cast when the untapped "
    "sources can pay it exactly (colours included), tapping the least flexible sources first",
    "land choice: a land that lets a spell in hand or the commander be cast, untapped when "
    "mana is used this turn (a fetch land counts as tapped), the one closing most of the "
    "remaining colour "
    "deficit of the spells in hand, the commander and the castable cards, then the colour "
    "with the largest remaining deficit and the library's; a spell // land card is played as "
    "a land only when no land card can be (land_faces)",
    "a pip, and generic mana a unit at a time, is paid with the units that leave the spells "
    "the mana left could cast together this turn (in casting order, colours aside; not a "
    "second legendary permanent, nor a spell waiting for a creature) short of the fewest "
    "pips, then the least flexible, then (generic mana) the colour the rest of the hand (but "
    "cards never cast), then the library, needs least; ties between cards go to ramp (a mana "
    "source, a spell that puts a land onto the battlefield), then by name (never the "
    "decklist's order); mana creatures do not attack",
    "cast priority: a commander first, then explore payoffs (Wildgrowth Walker, Nicanzil, "
    "Merfolk Cave-Diver, Shadowed Caravel), then ramp (mana rocks, spells that put a land "
    "onto the battlefield; not mana creatures), then explore and Map makers, then the rest, "
    "most expensive first in each group; Jadelight Spelunker takes the mana left (X >= 1)",
    "targets: a spell or aura whose target only an opponent has (removal, bounce, a "
    "counterspell, an aura that only harms its creature) is held, never cast on a permanent "
    "of yours, and discarded first; one that helps the creature it targets waits for a "
    "creature you control",
    "Maps and Seeker of Sunlight are used with the mana left in the second main phase, Maps "
    "also with mana left in the pool in the first",
    "event metrics are cumulative from the start of the game; lands_played, on_curve, "
    "land_drop, creatures and hand_size describe the end of the turn",
]

#: Metadata keys that :func:`run_meta` writes itself (the mulligan as played, the scry policy
#: by name), ahead of the other options.
_RUN_KEYS = ("scry_policy", "mulligan")


@dataclasses.dataclass(frozen=True)
class GameSetup:
    """Checked game options, ready to play.

    Attributes
    ----------
    config : GameConfig
    rule : MulliganRule
        The mulligan rule asked for (a Commander game's free first mulligan is added when a
        deck's games are dealt: :func:`game_mulligan`).
    scry : callable or None
        Twists and Turns' scry policy (None: each game's keep-or-mill policy).
    trials : int
    options : dict
        Every keyword option's value, as given or defaulted (``castable`` as cards).
    engine : EngineChoice or None
        The engine that plays the run, once chosen for its decks and policies
        (:func:`with_engine`).
    """

    config: GameConfig
    rule: MulliganRule
    scry: Policy | None
    trials: int
    options: dict[str, Any]
    engine: EngineChoice | None = None


def game_option_defaults() -> dict[str, Any]:
    """``{name: default}`` of every keyword option, in schema order.

    Returns
    -------
    dict of str to object
    """
    return {entry.name: entry.default for entry in keyword_options()}


def game_setup(decks: Sequence[Deck], trials: int, options: Mapping[str, Any]) -> GameSetup:
    """Check keyword game options and build the game from them.

    Parameters
    ----------
    decks : sequence of Deck
        The decks played (``castable`` names are looked up in them first).
    trials : int
        Games to play.
    options : mapping of str to object
        Keyword options of the schema; the others take their defaults.

    Returns
    -------
    GameSetup

    Raises
    ------
    TypeError
        An option that is not in the schema, as a call with an unknown keyword would.
    OptionError
        A value out of bounds or of the wrong kind.
    PolicyError
        A scry policy that cannot be built.
    """
    known = game_option_defaults()
    unknown = sorted(set(options) - set(known))
    if unknown:
        close = close_matches(unknown[0], known)
        hint = f" (did you mean {close}?)" if close else ""
        raise TypeError(f"unexpected option {unknown[0]!r}{hint}; game options: "
                        f"{', '.join(known)}")
    values = {**known, **options}
    for entry in keyword_options():
        if entry.kind == "bool":
            entry.check(values[entry.name])  # "no" would be True
            values[entry.name] = bool(values[entry.name])
        elif entry.kind == "names":
            values[entry.name] = tuple(values[entry.name])
        elif entry.kind == "cards":
            values[entry.name] = castable_cards(values[entry.name], decks)
    fields = {f.name for f in dataclasses.fields(GameConfig)}
    config = GameConfig(**{name: value for name, value in values.items() if name in fields})
    for entry in keyword_options():
        if not entry.config and entry.kind in ("int", "probability", "choice"):
            entry.check(values[entry.name])
    rule = as_mulligan_rule(values["mulligan"], free_first=values["free_mulligan"],
                            keep=values["keep"])
    scry_policy = values["scry_policy"]
    scry = one_policy(scry_policy, "scry_policy") if scry_policy is not None else None
    return GameSetup(config, rule, scry, check_trials(trials), values)


def options_meta(setup: GameSetup) -> dict[str, Any]:
    """The game options of a result's metadata (JSON-safe): every :class:`GameConfig` field,
    then the other options recorded under a ``meta`` name.

    Parameters
    ----------
    setup : GameSetup

    Returns
    -------
    dict
    """
    config = setup.config
    # A field whose option has no meta name (castable_lands) is not recorded on its own.
    meta = {field.name: getattr(config, field.name) for field in dataclasses.fields(config)
            if option(field.name).meta is not None}
    meta["cast_order"] = list(config.cast_order)
    meta["castable"] = [card.name for card in config.castable]
    for entry in GAME_OPTIONS:
        if not entry.config and entry.meta and entry.meta not in _RUN_KEYS \
                and entry.name in setup.options:
            meta[entry.meta] = _json_value(setup.options[entry.name])
    if setup.engine is not None:
        meta.update(setup.engine.meta())
    return meta


def engine_plays(variants: Sequence[tuple[Deck, Policy]], config: GameConfig,
                 rule: MulliganRule) -> list[EnginePlay]:
    """The decks and policies of a run, as :func:`~.engines.choose_engine` takes them.

    Parameters
    ----------
    variants : sequence of (Deck, callable)
    config : GameConfig
    rule : MulliganRule
        The mulligan rule asked for (each deck's as played is worked out here).

    Returns
    -------
    list of EnginePlay
    """
    return [EnginePlay(deck.features(), policy, game_mulligan(rule, config, deck.features()),
                       f"{deck.name} / {policy_name(policy)}", deck.card_ids())
            for deck, policy in variants]


def with_engine(setup: GameSetup, variants: Sequence[tuple[Deck, Policy]]) -> GameSetup:
    """``setup`` with the engine that plays ``variants`` chosen (its ``engine`` option).

    Parameters
    ----------
    setup : GameSetup
    variants : sequence of (Deck, callable)
        Every deck and policy the run plays.

    Returns
    -------
    GameSetup

    Raises
    ------
    OptionError
        ``engine="kernel"`` for games the compiled kernel cannot play, naming why.
    """
    plays = engine_plays(variants, setup.config, setup.rule)
    choice = choose_engine(setup.options.get("engine", "auto"), plays, setup.config, setup.scry)
    return dataclasses.replace(setup, engine=choice)


def chosen_engine(setup: GameSetup) -> str:
    """The engine :func:`with_engine` chose for ``setup``.

    Parameters
    ----------
    setup : GameSetup
        A setup :func:`with_engine` returned.

    Returns
    -------
    str
        ``"kernel"`` or ``"numpy"``.
    """
    if setup.engine is None:
        raise RuntimeError("no engine chosen yet: with_engine chooses it")
    return setup.engine.engine


def _json_value(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [getattr(item, "name", item) for item in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def run_meta(command: str, decks: list[Deck], setup: GameSetup, policies: list[Policy],
             seed_seq: np.random.SeedSequence) -> dict[str, Any]:
    """The metadata of a run of goldfish games (JSON-safe).

    Parameters
    ----------
    command : str
        ``simulate``, ``compare`` or ``sweep``.
    decks : list of Deck
    setup : GameSetup
    policies : list of callable
    seed_seq : numpy.random.SeedSequence

    Returns
    -------
    dict
        ``command, deck, never_cast`` (:func:`~.report.never_cast`, per deck), ``policy,
        scry_policy, mulligan, formats``, the options
        (:func:`options_meta`), ``trials, seed, chunk_trials, interval, assumptions,
        versions``.
    """
    formats = game_formats(decks, setup.config, setup.rule)
    played = {f["mulligan"] for f in formats}  # a Commander game's first mulligan is free
    scry = setup.scry
    return {
        "command": command,
        "deck": [deck_meta(d) for d in decks],
        "never_cast": [never_cast(d) for d in decks],
        "policy": [policy_name(p) for p in policies],
        "scry_policy": policy_name(scry) if scry is not None else "same as policy",
        "mulligan": played.pop() if len(played) == 1 else
        f"{setup.rule.name} (per deck: see formats)",
        "formats": formats,
        **options_meta(setup),
        "trials": setup.trials,
        "seed": seed_seq.entropy,
        "chunk_trials": CHUNK_TRIALS,
        "interval": INTERVAL,
        "assumptions": ASSUMPTIONS,
        "versions": versions(),
    }


def game_mulligan(rule: MulliganRule, config: GameConfig, features: FeatureTable) -> MulliganRule:
    """The mulligan rule of a game: in a Commander game the London mulligan's first mulligan is
    free (CR 103.5c).

    Parameters
    ----------
    rule : MulliganRule
    config : GameConfig
    features : FeatureTable

    Returns
    -------
    MulliganRule
    """
    if is_commander_game(config, features) and rule.kind == "london" and not rule.free_first:
        return dataclasses.replace(rule, free_first=True)
    return rule


def game_formats(decks: Sequence[Deck], config: GameConfig,
                 rule: MulliganRule) -> list[dict[str, Any]]:
    """What kind of game each deck plays, for result metadata.

    Parameters
    ----------
    decks : sequence of Deck
    config : GameConfig
    rule : MulliganRule

    Returns
    -------
    list of dict
        Per deck: ``game`` (normal or commander), ``commander``, ``library``,
        ``starting_life``, ``mulligan`` (the rule as played), ``first_draw_skipped_on_the_play``.
    """
    formats = []
    for deck in decks:
        features = deck.features()
        commander = is_commander_game(config, features)
        formats.append({
            "game": "commander" if commander else "normal",
            "commander": [card.name for card, _ in deck.commander] if commander else [],
            "library": deck.size,
            "starting_life": starting_life(config, commander),
            "mulligan": game_mulligan(rule, config, features).name,
            "first_draw_skipped_on_the_play": not commander,
        })
    return formats


def castable_cards(names: Sequence[str | Card] | str | Card,
                   decks: Sequence[Deck]) -> tuple[Card, ...]:
    """Cards named for ``castable``: looked up in the decks, then in the card sources.

    Parameters
    ----------
    names : str, Card or a sequence of them
    decks : sequence of Deck

    Returns
    -------
    tuple of Card

    Raises
    ------
    OptionError
        A name no source knows, or a land.
    """
    if isinstance(names, (str, Card)):
        names = [names]
    cards: list[Card] = []
    card: Card | None
    for name in names:
        if isinstance(name, Card):
            card = name
        elif not isinstance(name, str) or not name.strip():
            raise OptionError(f"castable: expected card names, got {name!r}")
        else:
            key = normalize_name(name)
            card = next((c for d in decks for c in d.cards if normalize_name(c.name) == key
                         or normalize_name(c.front_name) == key), None)
            if card is None:
                from ..cards.card_index import card_sources

                sources = card_sources()
                card = sources.find(name)
                if card is None:
                    raise OptionError(f"castable: unknown card {name!r}"
                                      f"{sources.suggestion_text(name)}")
        if card.is_land:
            raise OptionError(f"castable: {card.name!r} is a land; name a spell")
        if card not in cards:
            cards.append(card)
    return tuple(cards)


F = TypeVar("F", bound=Callable[..., Any])


def _doc_entry(entry: GameOption) -> str:
    text = entry.doc_help or entry.help
    body = textwrap.fill(f"{text[0].upper()}{text[1:]}.", 92, initial_indent=" " * 8,
                         subsequent_indent=" " * 8)
    return f"    {entry.name} : {entry.doc}\n{body}"


def game_options_doc(skip: Sequence[str] = ()) -> str:
    """The numpydoc entries of the keyword game options, for a docstring.

    Parameters
    ----------
    skip : sequence of str
        Options documented by hand (the positional ones).

    Returns
    -------
    str
    """
    return "\n".join(_doc_entry(entry) for entry in keyword_options() if entry.name not in skip)


def with_game_options(positional: Sequence[str]) -> Callable[[F], F]:
    """Give a function taking ``**options`` the schema's keyword options in its signature
    (keyword-only, with their defaults, before ``progress``) and in its docstring (where it
    says ``{game_options}``).

    Parameters
    ----------
    positional : sequence of str
        The options the function names itself (they stay where they are).

    Returns
    -------
    callable
        A decorator.
    """
    def decorate(function: F) -> F:
        signature = inspect.signature(function)
        before: list[inspect.Parameter] = []
        after: list[inspect.Parameter] = []
        for parameter in signature.parameters.values():
            if parameter.kind is inspect.Parameter.VAR_KEYWORD:
                continue
            target = after if parameter.kind is inspect.Parameter.KEYWORD_ONLY and \
                parameter.name in ("progress", "workers", "scheduler") else before
            target.append(parameter)
        added = [inspect.Parameter(entry.name, inspect.Parameter.KEYWORD_ONLY,
                                   default=entry.default)
                 for entry in keyword_options() if entry.name not in positional]
        function.__signature__ = signature.replace(  # type: ignore[attr-defined]  # for inspect
            parameters=[*before, *added, *after])
        if function.__doc__:
            function.__doc__ = function.__doc__.replace(
                "{game_options}", game_options_doc(positional).strip("\n")[4:])
        return function

    return decorate
