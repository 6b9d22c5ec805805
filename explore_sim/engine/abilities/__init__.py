"""The ability registry: every ability the goldfish models, one entry each.

An :class:`Ability` names its group (the permanents counted as they enter and leave, and the
card ids of :attr:`~explore_sim.engine.tables.DeckTables.ids`), the card-data pattern of its
members (what a card's fields say: ``explores_when == "beginning_of_combat"``), the step of
the turn it acts in, and its handler, ``handler(play, state, ...)``. The turn loop runs a
step's handlers in the order of :data:`ABILITIES` (:meth:`~explore_sim.engine.context.Play.run`);
an ability with no step only counts its permanents for another's handler (Topography
Tracker's doubling is read by every explore). The steps and what their handlers receive:

- ``"untap"``: ``(state)``, at the untap step;
- ``"enter"``: ``(state, event)``, an :class:`~explore_sim.engine.zones.EnterEvent` for each
  kind of permanent entering;
- ``"resolve"``: ``(state, event)``, a :class:`~explore_sim.engine.casting.ResolveEvent`
  for an instant or sorcery;
- ``"main_phase"`` and ``"second_main_phase"``: ``(state, rows) -> progressed``, activated
  abilities used with the mana left (every main phase, or the second only), tried in order
  on the trials that did nothing else;
- ``"beginning_of_combat"``: ``(state)``;
- ``"animate"``: ``(state) -> attackers added`` (lands that become creatures, before attacks);
- ``"crew"``: ``(state, attackers) -> crewers`` (vehicles crewed by attackers);
- ``"attack"``: ``(state, event)``, an :class:`~explore_sim.engine.abilities.combat.AttackEvent`;
- ``"combat_damage"``: ``(state, attackers)``;
- ``"explore_trigger"``: ``(state, rows, explored, lands, nonlands)``, after each explore
  instruction (E8).

Adding an ability: its card-data value (:mod:`explore_sim.cards.card`), an entry here and a
handler in the module of its step, any new metric in :mod:`explore_sim.engine.metrics`, and
the cards that have it (see the contributor's guide).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from ...cards import Card
from ...cards.card import SACRIFICE_FOR_MANA, TYPED_FETCHES
from . import activated, combat, entering, explore_triggers

__all__ = ["Ability", "ABILITIES", "MODELLED", "STEPS", "steps", "patterns", "without_effect",
           "held_reason", "OPPONENTS_TARGET", "NO_EFFECT"]

#: The steps of a turn that run handlers, in the order the turn reaches them.
STEPS = ("untap", "enter", "resolve", "main_phase", "second_main_phase", "beginning_of_combat",
         "animate", "crew", "attack", "combat_damage", "explore_trigger")


@dataclasses.dataclass(frozen=True)
class Ability:
    """One modelled ability.

    Attributes
    ----------
    name : str
        Its group: the permanents counted and the card ids of its members.
    pattern : callable
        ``pattern(card) -> bool``: the card data of its members.
    text : str
        What it does in a goldfish game (for the docs and ``cards`` output).
    step : str, optional
        The step of the turn its handler acts in (:data:`STEPS`); "" for an ability read
        by others' handlers.
    handler : callable, optional
    cost_field : str
        The card field holding its activation cost, registered with the mana model ("" for
        none).
    kernel : bool
        The compiled kernel plays it (for an ability with members, a member of
        :class:`~explore_sim.engine.kernel.layout.Group` of its name). A deck with a member
        of an ability the kernel does not play is played by the NumPy engine
        (``meta["engine_fallback"]`` says why).
    counted : bool
        Cards can be its members, counted as they enter and leave (False for a step of
        another ability, such as the Maps' use or a crewed creature's explore).
    """

    name: str
    pattern: Callable[[Card], bool]
    text: str
    step: str = ""
    handler: Callable[..., Any] | None = None
    cost_field: str = ""
    kernel: bool = False
    counted: bool = True


def _explores(when: str) -> Callable[[Card], bool]:
    return lambda card: card.explores_when == when


def _trigger(name: str) -> Callable[[Card], bool]:
    return lambda card: card.explore_trigger == name


#: Every modelled ability, in the order each step runs its handlers.
ABILITIES: tuple[Ability, ...] = (
    # Counted by other handlers: explore replacements (R1, R2), Worldwalker Helm (M6).
    # Read by the mana model as it taps sources.
    Ability("sacrifice_for_mana", lambda c: c.has_keyword(SACRIFICE_FOR_MANA),
            "Lotus Petal: one mana of any colour, sacrificed as it is tapped for a spell",
            kernel=True),
    Ability("tracker", lambda c: c.explore_replacement == "tracker",
            "Topography Tracker: each explore of a creature you control happens twice (R1)",
            kernel=True),
    Ability("twists", lambda c: c.explore_replacement == "twists",
            "Twists and Turns: scry 1 before each explore (R2)", kernel=True),
    Ability("helm", lambda c: c.maps_when == "token_extra",
            "Worldwalker Helm: an extra Map whenever you create Maps", kernel=True),
    # Extra land drops.
    Ability("each_turn_land", lambda c: c.extra_land == "each_turn",
            "Captain Kathryn Janeway: an additional land each turn, the turn it enters too",
            "untap", entering.extra_land_each_turn, kernel=True),
    Ability("each_turn_land_on_enter", lambda c: c.extra_land == "each_turn",
            "", "enter", entering.extra_land_when_entering, kernel=True),
    # Enter triggers, in the order they resolve.
    Ability("maps_on_enter", lambda c: c.maps_when in {"enter", "enter_or_attack"},
            "Map tokens when it enters", "enter", entering.maps_on_enter, kernel=True),
    Ability("explores_on_enter", lambda c: c.explores_when == "enter" and not c.explore_targets,
            "explores when it enters (X: Jadelight Spelunker takes the mana left)", "enter",
            entering.explores_on_enter, kernel=True),
    Ability("target_explores_on_enter",
            lambda c: c.explores_when == "enter" and c.explore_targets,
            "Twists and Turns: target creature you control explores when it enters", "enter",
            entering.target_explores_on_enter, kernel=True),
    Ability("enters_explorer", _explores("creature_enters"),
            "Path of Discovery, Janeway: each creature you control that enters explores",
            "enter", entering.creature_enters_explores, kernel=True),
    Ability("basic_to_hand_on_enter", lambda c: c.fetch_when == "enter",
            "District Guide: a basic land card into your hand when it enters", "enter",
            entering.search_on_enter, kernel=True),
    Ability("draws_on_enter", lambda c: c.is_permanent and c.draws > 0,
            "Elvish Visionary, Mulldrifter: cards drawn when it enters", "enter",
            entering.draws_on_enter, kernel=True),
    # Instants and sorceries resolving.
    Ability("spell_explores", _explores("cast"),
            "a spell that makes target creature you control explore (needs a creature)",
            "resolve", entering.spell_explores, kernel=True),
    Ability("extra_land_this_turn", lambda c: c.extra_land == "this_turn",
            "Enter the Unknown: an additional land this turn", "resolve",
            entering.extra_land_this_turn, kernel=True),
    Ability("draws", lambda c: not c.is_permanent and c.draws > 0,
            "a spell that draws cards (Divination, Harmonize)", "resolve", entering.spell_draws,
            kernel=True),
    Ability("ramp", lambda c: c.fetch_when == "cast" and c.fetch_kind not in TYPED_FETCHES,
            "Rampant Growth, Cultivate, Kodama's Reach: basic lands from the library",
            "resolve", entering.spell_searches, kernel=True),
    Ability("land_search", lambda c: c.fetch_when == "cast" and c.fetch_kind in TYPED_FETCHES,
            "Nature's Lore, Three Visits, Farseek: a land card of the named land types from "
            "the library, onto the battlefield (untapped or tapped) or into your hand",
            "resolve", entering.spell_searches_lands, kernel=True),
    # Activated abilities with the mana left.
    Ability("lantern", _explores("equipped_attack"),
            "Glowcap Lantern: equipped for {2} when possible; the equipped creature explores "
            "when it attacks", "main_phase", activated.equip, "ability_cost", kernel=True),
    Ability("pool_maps", lambda c: False, "Map tokens paid from mana left in the pool, in "
            "either main phase (a source made more than a spell needed)", "main_phase",
            activated.activate_map_from_pool, kernel=True, counted=False),
    Ability("maps", lambda c: False, "Map tokens ({1}, T, sacrifice: target creature you "
            "control explores) with the mana left in the second main phase",
            "second_main_phase", activated.activate_map, kernel=True, counted=False),
    Ability("seeker", lambda c: c.explores_when == "activated" and c.ability_mana > 0,
            "Seeker of Sunlight's {2}{G} explore, with mana left in the second main phase",
            "second_main_phase", activated.activate_explore_ability, "ability_cost", kernel=True),
    Ability("activated_search", lambda c: c.fetch_when == "activated",
            "Myriad Landscape: {2}, T, sacrifice: two basic lands, with mana left",
            "second_main_phase", activated.activate_search, "ability_cost", kernel=True),
    # Combat.
    Ability("combat_explorer", _explores("beginning_of_combat"),
            "explores at the beginning of combat on your turn", "beginning_of_combat",
            combat.combat_explores, kernel=True),
    Ability("hakbal", _explores("merfolk_at_combat"),
            "Hakbal: each Merfolk you control explores at the beginning of combat",
            "beginning_of_combat", combat.merfolk_explore, kernel=True),
    Ability("anchorage", lambda c: c.maps_when == "land_attack",
            "Restless Anchorage: animated for {1}{W}{U} from other sources before combat; "
            "attacks: a Map", "animate", combat.animate_lands, "ability_cost", kernel=True),
    Ability("schooner", _explores("crewed_attack"),
            "Subterranean Schooner: crewed by a creature (a summoning-sick one when there is "
            "one), which explores", "crew", combat.crew_vehicles, kernel=True),
    Ability("attack_map", lambda c: c.maps_when in {"attack", "enter_or_attack"},
            "Map tokens when it attacks", "attack", combat.attack_maps, kernel=True),
    Ability("attack_explorer", _explores("attack"), "explores when it attacks", "attack",
            combat.attack_explores, kernel=True),
    Ability("parley", lambda c: c.maps_when == "parley",
            "Storm Fleet Negotiator: your top card and a coin flip for the opponent's",
            "attack", combat.parley_on_attack, kernel=True),
    Ability("crewer_explores", lambda c: False, "", "attack", combat.crewers_explore,
            kernel=True, counted=False),
    Ability("attack_land", lambda c: c.extra_land == "attack_or_draw",
            "Hakbal: when it attacks, a land from hand onto the battlefield, else a card",
            "attack", combat.land_or_card_on_attack, kernel=True),
    Ability("lantern_explores", lambda c: False, "", "attack", combat.lantern_explores,
            kernel=True, counted=False),
    Ability("damage_explorer", _explores("combat_damage"),
            "explores when it deals combat damage (attacks are unblocked)", "combat_damage",
            combat.combat_damage_explores, kernel=True),
    # "Whenever a creature you control explores" (E8).
    Ability("walker", _trigger("walker"),
            "Wildgrowth Walker: a +1/+1 counter and 3 life per explore", "explore_trigger",
            explore_triggers.walker, kernel=True),
    Ability("caravel", _trigger("caravel"), "Shadowed Caravel: a +1/+1 counter per explore",
            "explore_trigger", explore_triggers.caravel, kernel=True),
    Ability("cave_diver", _trigger("cave_diver"), "Merfolk Cave-Diver: +1/+0 per explore",
            "explore_trigger", explore_triggers.cave_diver, kernel=True),
    Ability("chupacabra", _trigger("chupacabra"),
            "Lurking Chupacabra: -2/-2 to an opposing creature per explore", "explore_trigger",
            explore_triggers.chupacabra, kernel=True),
    Ability("nicanzil", _trigger("nicanzil"),
            "Nicanzil: a land explored puts a land from hand onto the battlefield tapped; a "
            "nonland, a counter", "explore_trigger", explore_triggers.nicanzil, kernel=True),
)

#: How each explore / Map ability of the catalog is treated in a goldfish game.
MODELLED: dict[str, str] = {
    **{ability.name: ability.text for ability in ABILITIES if ability.text},
    "not modelled": "activated explores needing an opponent, discards or sacrifices (Deadeye "
    "Tracker, Tomb Robber, Legion Vanguard), dies (Miner's Guidewing), life gain (Amalia), "
    "Defossilize, and Maps given to the opponent or needing a target (Get Lost, Brackish "
    "Blunder, Fanatical Offering): such permanents are cast as vanilla cards; such "
    "instants and sorceries are held (never cast: no effect of theirs is played)",
}


def steps() -> Mapping[str, tuple[Callable[..., Any], ...]]:
    """The handlers of each step, in registry order."""
    return {step: tuple(a.handler for a in ABILITIES if a.step == step and a.handler)
            for step in STEPS}


def patterns() -> tuple[tuple[str, Callable[[Card], bool], str], ...]:
    """``(name, pattern, cost field)`` of every ability, for
    :meth:`~explore_sim.engine.tables.DeckTables.build`."""
    return tuple((a.name, a.pattern, a.cost_field) for a in ABILITIES)


def without_effect(card: Card) -> bool:
    """An instant or sorcery none of whose effects a goldfish game plays: no ability of
    :data:`ABILITIES` acts when it resolves, and its target is not one only an opponent has
    (those are held for that reason). Cast, it would spend a card and mana for nothing, so a
    goldfish game never casts it: Agadeem's Awakening (played by its land face instead),
    Find // Finality, Heroic Intervention.

    Parameters
    ----------
    card : Card

    Returns
    -------
    bool
    """
    return (not card.is_land and not card.is_permanent and card.target != "opponent"
            and not any(a.pattern(card) for a in ABILITIES if a.step == "resolve"))


#: Why a goldfish game holds a spell (never casts it): :func:`held_reason`.
OPPONENTS_TARGET = "its target is an opponent's"
NO_EFFECT = "no effect a goldfish game plays"


def held_reason(card: Card) -> str:
    """Why a goldfish game never casts ``card`` (:data:`OPPONENTS_TARGET`: a spell or aura
    whose target only an opponent has; :data:`NO_EFFECT`: :func:`without_effect`), or "" for
    a card it casts (and a land).

    Parameters
    ----------
    card : Card

    Returns
    -------
    str
    """
    if card.is_land:
        return ""
    if card.target == "opponent":
        return OPPONENTS_TARGET
    return NO_EFFECT if without_effect(card) else ""
