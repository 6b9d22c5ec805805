"""The metrics catalogue: every metric's name, meaning, unit and kind, defined once.

:data:`CATALOGUE` is the one list of the metrics explore_sim reports: those of an explore
sequence (the ``explore`` command), those of the opening hand (turn 0 of a goldfish game)
and the per-turn metrics of a goldfish game. The engine's tables of names
(:data:`TURN_METRICS`, :data:`OPENING_METRICS`, :data:`STATE_METRICS`,
:data:`EVENT_METRICS`, :data:`MAIN_PHASE_METRICS`), the plots' axis labels, the command
line's help and ``explore-sim metrics``, and the documentation's metrics page all read it.
"""

from __future__ import annotations

import dataclasses

__all__ = ["Metric", "CATALOGUE", "SCOPES", "KINDS", "catalogue", "TURN_METRICS",
           "OPENING_METRICS", "STATE_METRICS", "EVENT_METRICS", "MAIN_PHASE_METRICS",
           "EXPLORE_METRIC_NAMES", "CASTABLE_PREFIX", "MAIN_LANDS", "CASTABLE_LANDS_PREFIX",
           "KERNEL_METRICS"]

#: Where a metric is measured: one explore sequence, the opening hand, or each turn.
SCOPES = ("explore", "opening", "turn")
#: A state metric describes the game at one moment; an event metric counts what happened,
#: cumulative from the start (of the game, or of the explore sequence).
KINDS = ("state", "event")
#: Prefix of the metric "the sources in play after the land drop could pay CARD's cost".
CASTABLE_PREFIX = "castable:"
#: The lands on the battlefield after the land drop, when ``castable:CARD`` is taken (only
#: in games with ``castable_lands``, as the ``curve`` answer plays them).
MAIN_LANDS = "main_lands"
#: Prefix of the metric ``main_lands`` where ``castable:CARD`` is 1, else 0 (the joint
#: distribution of castability and lands in play; only with ``castable_lands``).
CASTABLE_LANDS_PREFIX = "castable_lands:"


@dataclasses.dataclass(frozen=True)
class Metric:
    """One metric of the catalogue.

    Attributes
    ----------
    name : str
        What ``--metrics``, ``--distribution`` and the tidy rows call it.
    scope : str
        ``"explore"`` (an explore sequence), ``"opening"`` (the opening hand, turn 0) or
        ``"turn"`` (each turn of a goldfish game).
    kind : str
        ``"state"`` (the game at one moment) or ``"event"`` (a count of what happened,
        cumulative from the start).
    unit : str
        What one unit of its value is (``"probability"`` for a 0/1 indicator, whose mean is
        a probability).
    meaning : str
        What it measures, in one sentence.
    label : str
        The axis label of its plots.
    main_phase : bool
        Taken in the first main phase after the land drop, before any spell, rather than
        at the end of the turn.
    kernel : bool
        The compiled kernel records it (:class:`~explore_sim.engine.kernel.layout.TurnMetric`
        has a member of its name; a game asked for a metric the kernel does not record is
        played by the NumPy engine, ``meta["engine_fallback"]`` saying why). Only the NumPy
        engine plays an explore sequence, so ``explore`` metrics have False.
    """

    name: str
    scope: str
    kind: str
    unit: str
    meaning: str
    label: str
    main_phase: bool = False
    kernel: bool = False

    @property
    def probability(self) -> bool:
        """True for a 0/1 indicator (its mean is a probability; Wilson intervals)."""
        return self.unit == "probability"


def _m(name: str, scope: str, kind: str, unit: str, meaning: str, label: str | None = None,
       main_phase: bool = False, kernel: bool = False) -> Metric:
    return Metric(name, scope, kind, unit, meaning, label or name.replace("_", " "), main_phase,
                  kernel)


#: Every metric, in the order of the engine's tables and of the output.
CATALOGUE: tuple[Metric, ...] = (
    # --- an explore sequence (the explore command) --------------------------------------
    _m("explores", "explore", "event", "explores", "explores that happened: what \"whenever a "
       "creature explores\" triggers count", "explores"),
    _m("counters", "explore", "event", "counters", "+1/+1 counters on the explorer",
       "+1/+1 counters"),
    _m("lands_to_hand", "explore", "event", "lands", "land cards put into hand (E1)",
       "lands put into hand"),
    _m("land_hit", "explore", "event", "probability", "at least one land put into hand",
       "P(at least one land)"),
    _m("nonlands_revealed", "explore", "event", "cards", "nonland cards revealed, a kept card "
       "counted each time it is revealed (E6)"),
    _m("milled", "explore", "event", "cards", "nonland cards put into the graveyard",
       "cards milled"),
    _m("empty_reveals", "explore", "event", "explores", "explores of an empty library (E4)"),
    # --- the opening hand (turn 0 of a goldfish game) -----------------------------------
    _m("mulligans", "opening", "state", "mulligans", "mulligans taken before keeping a hand",
       "mulligans", kernel=True),
    _m("hand_size", "opening", "state", "cards", "cards in the kept hand, after bottoming",
       "cards in hand", kernel=True),
    _m("opening_lands", "opening", "state", "lands", "land cards in the kept hand", kernel=True),
    # --- each turn of a goldfish game ---------------------------------------------------
    _m("lands_played", "turn", "state", "lands", "lands on the battlefield",
       "lands on the battlefield", kernel=True),
    _m("on_curve", "turn", "state", "probability", "lands on the battlefield >= the turn "
       "number", "P(on curve: lands ≥ turn)", kernel=True),
    _m("land_drop", "turn", "state", "probability", "a land was played this turn",
       "P(land played this turn)", kernel=True),
    _m("screwed", "turn", "state", "probability", "mana screw: no land was played this turn, "
       "fewer lands are on the battlefield than the turn number, and a spell is left in hand "
       "(not one held for want of a target) or a commander in the command zone",
       "P(screwed)", kernel=True),
    _m("flooded", "turn", "state", "probability", "mana flood: no spell is left in hand (but "
       "ones held for want of a target) nor a commander in the command zone, and the lands on "
       "the battlefield and in hand outnumber the turn number", "P(flooded)", kernel=True),
    _m("counters", "turn", "event", "counters", "+1/+1 counters put on your permanents by "
       "explore and its triggers (explore_counters + trigger_counters)", "+1/+1 counters",
       kernel=True),
    _m("explore_counters", "turn", "event", "counters", "+1/+1 counters put by explore "
       "itself (E2, E4)", "+1/+1 counters from explore", kernel=True),
    _m("trigger_counters", "turn", "event", "counters", "+1/+1 counters put by explore "
       "triggers: Wildgrowth Walker, Shadowed Caravel, Nicanzil",
       "+1/+1 counters from triggers", kernel=True),
    _m("explores", "turn", "event", "explores", "explores that happened (E3, E4 included; "
       "E9 not)", "explores", kernel=True),
    _m("explore_lands", "turn", "event", "lands", "lands put into hand by explore (E1)",
       "lands found by explore", kernel=True),
    _m("milled", "turn", "event", "cards", "nonland cards put into the graveyard by explore",
       "cards milled", kernel=True),
    _m("scries", "turn", "event", "scries", "scry 1 from Twists and Turns (R2)", kernel=True),
    _m("maps_created", "turn", "event", "Map tokens", "Map tokens created",
       "Map tokens created", kernel=True),
    _m("maps_used", "turn", "event", "Map tokens", "Map tokens used", "Map tokens used",
       kernel=True),
    _m("mana_spent", "turn", "event", "mana", "mana spent on spells and abilities",
       "mana spent", kernel=True),
    _m("spell_mana", "turn", "event", "mana", "mana paid to cast spells, commander tax aside "
       "(mana_spent without abilities such as Maps)", "mana spent on spells", kernel=True),
    _m("compounded_mana", "turn", "event", "mana", "Karsten's compounded mana spent: "
       "spell_mana at the end of each turn from the first to this one, added up",
       "compounded mana spent", kernel=True),
    _m("cards_cast", "turn", "event", "spells", "spells cast", kernel=True),
    _m("cards_drawn", "turn", "event", "cards", "cards drawn: the draw step and card draw "
       "(Divination, an enter trigger, Hakbal's attack with no land in hand); not the "
       "opening hand, nor the lands an explore or a search puts into the hand",
       "cards drawn", kernel=True),
    _m("creatures", "turn", "state", "creatures", "creatures on the battlefield", kernel=True),
    _m("hand_size", "turn", "state", "cards", "cards in hand", "cards in hand", kernel=True),
    _m("life_gained", "turn", "event", "life", "life gained (Wildgrowth Walker)",
       "life gained", kernel=True),
    _m("cave_diver_pumps", "turn", "event", "triggers", "Merfolk Cave-Diver +1/+0 triggers",
       kernel=True),
    _m("chupacabra_triggers", "turn", "event", "triggers", "Lurking Chupacabra -2/-2 "
       "triggers (no target in a goldfish)", kernel=True),
    _m("nicanzil_lands", "turn", "event", "lands", "lands put onto the battlefield by "
       "Nicanzil, Current Conductor", kernel=True),
    _m("lands_put", "turn", "event", "lands", "lands put onto the battlefield other than by "
       "a land drop: Nicanzil, Hakbal, ramp spells, fetch lands", kernel=True),
    _m("explorers_removed", "turn", "event", "explorers", "explorers removed in response to "
       "their explore (--removal)", kernel=True),
    _m("extra_land_drops", "turn", "event", "land drops", "land drops beyond one a turn "
       "(Enter the Unknown, Janeway, Explore)", kernel=True),
    _m("decked", "turn", "event", "probability", "having drawn from an empty library (the "
       "game would be lost)", "P(drew from an empty library)", kernel=True),
    _m("mana_available", "turn", "state", "mana", "the mana your untapped sources can make "
       "in the first main phase, after the land drop, before any spell", main_phase=True,
       kernel=True),
    _m("colour_screwed", "turn", "state", "probability", "then, a spell in hand costs no "
       "more than mana_available but cannot be paid for lack of colours", main_phase=True,
       kernel=True),
    _m("life_paid", "turn", "event", "life", "life paid for mana: shock lands, pain lands, "
       "Phyrexian mana", kernel=True),
    _m("tapped_lands_played", "turn", "event", "lands", "land drops that entered tapped",
       kernel=True),
    _m("commander_cast", "turn", "event", "casts", "casts of a commander from the command "
       "zone (above 1 when a removed commander is cast again; Commander games)", kernel=True),
    _m("commander_tax_paid", "turn", "event", "mana", "mana paid as commander tax ({2} per "
       "earlier cast; Commander games)", kernel=True),
    _m("damage", "turn", "event", "damage", "combat damage dealt to the goldfish opponent, "
       "attacks unblocked: each attacker's power, +1/+1 counters and Merfolk Cave-Diver's "
       "+1/+0 (docs/guide/damage.md)", "combat damage dealt", kernel=True),
    _m("opponent_dead", "turn", "state", "probability", "the combat damage dealt is at least "
       "the opponent's starting life (20, 40 in Commander games, or --life)",
       "P(opponent dead)", kernel=True),
    _m(f"{CASTABLE_PREFIX}CARD", "turn", "state", "probability", "the sources in play after "
       "the land drop could pay CARD, a card named with --castable, in the deck or not",
       main_phase=True, kernel=True),
)


def catalogue(scope: str | None = None) -> tuple[Metric, ...]:
    """The metrics of one scope, in catalogue order (all of them when ``scope`` is None).

    Parameters
    ----------
    scope : {"explore", "opening", "turn"}, optional

    Returns
    -------
    tuple of Metric
    """
    if scope is not None and scope not in SCOPES:
        raise ValueError(f"metric scope must be one of {', '.join(SCOPES)}, not {scope!r}")
    return tuple(m for m in CATALOGUE if scope is None or m.scope == scope)


def _named(scope: str) -> tuple[Metric, ...]:
    """A scope's metrics with a fixed name (``castable:CARD`` is a family, left out)."""
    return tuple(m for m in catalogue(scope) if not m.name.startswith(CASTABLE_PREFIX))


#: Per-turn metrics recorded at the end of every turn; True marks 0/1 indicators.
TURN_METRICS: dict[str, bool] = {m.name: m.probability for m in _named("turn")}
#: Metrics of the opening hand (reported as turn 0).
OPENING_METRICS: dict[str, bool] = {m.name: m.probability for m in _named("opening")}
#: Metrics that describe the state at the end of a turn; every other turn metric is an
#: event count, cumulative from the start of the game.
STATE_METRICS = tuple(m.name for m in _named("turn") if m.kind == "state")
#: Metrics taken in the first main phase after the land drop, before casting (with
#: ``castable:CARD`` for every card asked about).
MAIN_PHASE_METRICS = tuple(m.name for m in _named("turn") if m.main_phase)
#: Per-trial event counters kept in :attr:`GameState.totals`.
EVENT_METRICS = tuple(name for name in TURN_METRICS if name not in STATE_METRICS)
#: The per-turn and opening metrics the compiled kernel records (castable:CARD included).
KERNEL_METRICS = frozenset(m.name for m in CATALOGUE if m.kernel and m.scope != "explore")
#: The metrics of an explore sequence, in output order.
EXPLORE_METRIC_NAMES = tuple(m.name for m in catalogue("explore"))

