"""The compiled game's numbering, as enumerations: every slot, column and code the kernel reads.

Each name is defined once, here, as a member of an :class:`enum.IntEnum` (numba reads a
member as a constant), and the arrays are laid out from these enumerations: the packed tables
(:mod:`.pack`) fill column ``CardCol.IS_LAND`` of ``K.card`` from the deck's ``is_land``, the
state (:mod:`~explore_sim.engine.kernel.state`) has ``len(Slot)`` slots. Where a name belongs
to one of the package's registries, the member is that registry entry's name in capitals, and
``tests/test_registries.py`` checks both ways that the kernel's members are exactly the entries
the registry says the kernel implements:

- :class:`Group`: the ability groups (:data:`~explore_sim.engine.abilities.ABILITIES` with
  ``kernel=True``, after :data:`~explore_sim.engine.tables.BASIC_GROUPS`), then the deck's lists
  of card ids;
- :class:`Event` and :class:`TurnMetric`: the per-turn metrics
  (:data:`~explore_sim.engine.metrics.CATALOGUE` with ``kernel=True``): the event counters the
  game keeps, and every per-turn metric it reports;
- :class:`Field`: the observation fields of a policy
  (:data:`~explore_sim.engine.observations.OBSERVATIONS` with ``kernel=True``);
- :class:`Op`: the operations of a policy's bytecode
  (:data:`~explore_sim.engine.policy_expressions.OPERATIONS` with ``kernel=True``, and the
  bytecode's own loads, constants and jumps).
"""

from __future__ import annotations

from enum import IntEnum, auto
from typing import Any

__all__ = [
    "CardCol", "ClassCol", "ModeCol", "PipCol", "OptionCol", "SourceCol", "CommanderCol",
    "ProfileCol", "IdSet", "KeyRow", "Dim", "Group", "Event", "TurnMetric", "Field", "Op",
    "Trace", "Slot", "Zone", "UnitRow", "SetRow", "Work", "columns", "N_EVENTS",
    "N_TURN_METRICS",
]


class _Numbered(IntEnum):
    """Members numbered 0, 1, 2, ... in the order written."""

    @staticmethod
    def _generate_next_value_(name: str, start: int, count: int, last_values: list[Any]) -> int:
        return count


def columns(numbering: type[IntEnum]) -> tuple[str, ...]:
    """The members' names in lower case, in their order (what a registry calls them).

    Parameters
    ----------
    numbering : IntEnum subclass

    Returns
    -------
    tuple of str
    """
    return tuple(member.name.lower() for member in numbering)


# --- the packed tables (:mod:`.pack`) -------------------------------------------------------

class CardCol(_Numbered):
    """Columns of ``K.card``, one row per card id."""

    IS_LAND = auto()
    IS_CREATURE = auto()
    IS_PERMANENT = auto()
    IS_NONLAND = auto()
    IS_CARD = auto()
    IS_SOURCE = auto()
    RAMPS = auto()  # a mana source or ramp (FeatureTable.ramps)
    HAS_HASTE = auto()
    IS_LAND_LIKE = auto()
    COST = auto()
    EXPLORES = auto()
    IS_X = auto()
    MAPS = auto()
    FETCH = auto()
    FETCH_WHEN = auto()
    LAND_ENTERS = auto()
    TAPPED_RULE = auto()
    TAPPED_ARG = auto()
    BASIC_TYPES = auto()
    FACE_OF = auto()
    POWER = auto()
    TOUGHNESS = auto()
    SOURCE_COST = auto()
    CHEAPEST = auto()
    N_CARD_MODES = auto()
    NEEDS_TARGET = auto()
    ABILITY_COST_MODE = auto()
    IS_CAST = auto()
    COMMANDER_SLOT = auto()
    LAND_COLOURS = auto()
    HAND_PROFILE = auto()
    N_GROUPS = auto()
    PASS_RANK = auto()
    FETCH_TYPES = auto()
    IS_BASIC = auto()
    IS_LEGENDARY = auto()  # a legendary permanent the casting pass casts (the legend rule)
    IS_PAYOFF = auto()  # an explore payoff: cast first when the mana pays the next spell too
    BASE_RANK = auto()  # its place in the casting order without commanders' and payoffs' groups
    DRAWS = auto()  # cards drawn as the spell resolves or the permanent enters


class ClassCol(_Numbered):
    """Columns of ``K.classes``, one row per unit class; ``COLOURS`` is the first of five
    (W U B R G)."""

    CLASS_MASK = auto()
    CLASS_PAIN = auto()
    GENERIC_ORDER = auto()
    FLEXIBILITY = auto()
    GENERIC_RANK = auto()
    STRIDES = auto()
    KEY_CAP = auto()
    KEY_STRIDE = auto()
    COLOURS = auto()


class ModeCol(_Numbered):
    """Columns of ``K.modes``, one row per way to pay."""

    TOTAL = auto()
    LIFE = auto()
    GENERIC = auto()
    N_PIPS = auto()
    MODE_CARD = auto()


class PipCol(_Numbered):
    """Columns of ``K.pips_of``, per way to pay and pip."""

    PIP_MASK = auto()
    REST_TOTAL = auto()
    N_CAND = auto()


class OptionCol(_Numbered):
    """Columns of ``K.options``, one row per land option."""

    CARD = auto()
    KIND = auto()
    SPELL_FACE = auto()
    BOUNCE = auto()
    FETCH = auto()
    PASSAGE = auto()
    COLOURS = auto()
    TIEBREAK = auto()
    RULE = auto()
    ARG = auto()


class SourceCol(_Numbered):
    """Columns of ``K.sources``, the mana sources in tapping order."""

    KIND = auto()
    COST = auto()


class CommanderCol(_Numbered):
    """Columns of ``K.commanders``, one row per commander."""

    N_TAXED = auto()
    COMMANDER_PROFILE = auto()


class ProfileCol(IntEnum):
    """Columns of ``K.profiles``, one row per colour profile: its ways to pay, the cards named
    by ``castable`` that want it, its pips W U B R G (five columns), then its ways to pay."""

    PROF_N = 0
    CASTABLE_PROFILES = 1
    PIPS = 2
    MODES = 7


class IdSet(_Numbered):
    """Rows of ``K.id_sets``: fixed sets of card ids, as bits (:mod:`.bits`)."""

    CREATURE_IDS = auto()
    ATTACKER_IDS = auto()
    CAST_IDS = auto()
    PROFILED_IDS = auto()
    OPTION_CARD_IDS = auto()


class KeyRow(_Numbered):
    """Rows of ``K.castable_by_key``: the spells a castability key pays, by the casting
    order's ranks, by card id, and the cards named by ``castable``."""

    RANKS = auto()
    KINDS = auto()
    WATCHED = auto()


class Dim(_Numbered):
    """Slots of ``K.dims``: the deck's sizes and the game's options as integers."""

    N_KINDS = auto()
    N_CLASSES = auto()
    N_MASKS = auto()
    N_MODES = auto()
    N_DECK = auto()
    N_OPTIONS = auto()
    N_BASICS = auto()
    N_PROFILES = auto()
    N_CASTABLE = auto()
    HAS_FILTERS = auto()
    TIES = auto()
    USE_LOOKUP = auto()
    CAP = auto()
    MAP_MODE = auto()
    HAND_LIMIT = auto()
    TURNS = auto()
    ON_PLAY = auto()
    IS_COMMANDER = auto()
    TWISTS_FIRST = auto()
    USE_MAPS = auto()
    N_GROUPS = auto()
    N_SOURCES = auto()
    N_COMMANDERS = auto()
    MAX_TAXED = auto()
    SPELL_FACES = auto()
    CASTABLE_LANDS = auto()
    LIFE = auto()
    CASTABLE_CHEAPEST = auto()
    CASTABLE_KEYS = auto()
    TOTAL_KEY_CAP = auto()
    TOTAL_KEY_STRIDE = auto()
    MAIN_PHASE_METRICS = auto()  # a metric taken in the first main phase is recorded
    HAS_DRAWS = auto()  # a card the casting pass casts draws (it may dig for a land drop)


class Group(_Numbered):
    """Slots of ``K.gi`` (a group's column in ``K.members``, -1 when the deck has none): the
    basic groups and the abilities the kernel plays, by their registry names, then the
    deck's lists of card ids (the members ending in ``_IDS``)."""

    LAND = auto()
    CREATURE = auto()
    SOURCE = auto()
    SACRIFICE_FOR_MANA = auto()
    TRACKER = auto()
    TWISTS = auto()
    HELM = auto()
    EACH_TURN_LAND = auto()
    EACH_TURN_LAND_ON_ENTER = auto()
    MAPS_ON_ENTER = auto()
    EXPLORES_ON_ENTER = auto()
    TARGET_EXPLORES_ON_ENTER = auto()
    ENTERS_EXPLORER = auto()
    BASIC_TO_HAND_ON_ENTER = auto()
    DRAWS_ON_ENTER = auto()
    SPELL_EXPLORES = auto()
    EXTRA_LAND_THIS_TURN = auto()
    DRAWS = auto()
    RAMP = auto()
    LAND_SEARCH = auto()
    LANTERN = auto()
    SEEKER = auto()
    ACTIVATED_SEARCH = auto()
    COMBAT_EXPLORER = auto()
    HAKBAL = auto()
    ANCHORAGE = auto()
    SCHOONER = auto()
    ATTACK_MAP = auto()
    ATTACK_EXPLORER = auto()
    PARLEY = auto()
    ATTACK_LAND = auto()
    DAMAGE_EXPLORER = auto()
    WALKER = auto()
    CARAVEL = auto()
    CAVE_DIVER = auto()
    CHUPACABRA = auto()
    NICANZIL = auto()
    # The deck's lists of card ids.
    MERFOLK_IDS = auto()
    LAND_IDS = auto()
    BASIC_IDS = auto()
    COMMANDER_IDS = auto()
    PASS_IDS = auto()


class Event(_Numbered):
    """Slots of ``S.totals``: the event metrics the game counts as they happen (cumulative
    from the start of the game), by their catalogue names."""

    EXPLORE_COUNTERS = auto()
    TRIGGER_COUNTERS = auto()
    EXPLORES = auto()
    EXPLORE_LANDS = auto()
    MILLED = auto()
    SCRIES = auto()
    MAPS_CREATED = auto()
    MAPS_USED = auto()
    MANA_SPENT = auto()
    CARDS_CAST = auto()
    LIFE_GAINED = auto()
    CAVE_DIVER_PUMPS = auto()
    CHUPACABRA_TRIGGERS = auto()
    NICANZIL_LANDS = auto()
    LANDS_PUT = auto()
    EXPLORERS_REMOVED = auto()
    EXTRA_LAND_DROPS = auto()
    DECKED = auto()
    LIFE_PAID = auto()
    TAPPED_LANDS_PLAYED = auto()
    COMMANDER_CAST = auto()
    COMMANDER_TAX_PAID = auto()
    DAMAGE = auto()
    SPELL_MANA = auto()
    COMPOUNDED_MANA = auto()
    CARDS_DRAWN = auto()


class TurnMetric(_Numbered):
    """The per-turn metrics the game reports, by their catalogue names: every :class:`Event`,
    then the metrics read from the state (or, for ``counters``, summed from two events)."""

    EXPLORE_COUNTERS = auto()
    TRIGGER_COUNTERS = auto()
    EXPLORES = auto()
    EXPLORE_LANDS = auto()
    MILLED = auto()
    SCRIES = auto()
    MAPS_CREATED = auto()
    MAPS_USED = auto()
    MANA_SPENT = auto()
    CARDS_CAST = auto()
    LIFE_GAINED = auto()
    CAVE_DIVER_PUMPS = auto()
    CHUPACABRA_TRIGGERS = auto()
    NICANZIL_LANDS = auto()
    LANDS_PUT = auto()
    EXPLORERS_REMOVED = auto()
    EXTRA_LAND_DROPS = auto()
    DECKED = auto()
    LIFE_PAID = auto()
    TAPPED_LANDS_PLAYED = auto()
    COMMANDER_CAST = auto()
    COMMANDER_TAX_PAID = auto()
    DAMAGE = auto()
    SPELL_MANA = auto()
    COMPOUNDED_MANA = auto()
    CARDS_DRAWN = auto()
    # Read from the state at the end of the turn (or in the first main phase).
    COUNTERS = auto()
    LANDS_PLAYED = auto()
    ON_CURVE = auto()
    LAND_DROP = auto()
    CREATURES = auto()
    HAND_SIZE = auto()
    MANA_AVAILABLE = auto()
    COLOUR_SCREWED = auto()
    OPPONENT_DEAD = auto()
    SCREWED = auto()
    FLOODED = auto()


class Field(_Numbered):
    """The observation fields a policy's bytecode loads, by their names."""

    CARD = auto()
    IS_LAND = auto()
    IS_NONLAND = auto()
    IS_EMPTY = auto()
    IS_CREATURE = auto()
    IS_LAND_LIKE = auto()
    MAKES_EXPLORES = auto()
    MAKES_MAPS = auto()
    MANA_VALUE = auto()
    POWER = auto()
    TOUGHNESS = auto()
    CARDS_IN_HAND = auto()
    LANDS_IN_HAND = auto()
    LANDS_IN_PLAY = auto()
    MANA_SOURCES = auto()
    PREDICTED_MANA = auto()
    CASTABLE_NOW = auto()
    CASTABLE_NEXT_TURN = auto()
    TURN = auto()
    EXPLORES_LEFT = auto()
    COUNTERS = auto()
    EXPLORER_PRESENT = auto()
    LIBRARY_SIZE = auto()
    LANDS_IN_LIBRARY = auto()


class Op(_Numbered):
    """The operations of a policy's bytecode (:mod:`.bytecode`): the expression language's
    operators by their names, and the bytecode's own loads, constants and jumps."""

    LOAD = auto()
    CONST = auto()
    NOT = auto()
    NEG = auto()
    AND = auto()
    OR = auto()
    EQ = auto()
    NE = auto()
    LT = auto()
    LE = auto()
    GT = auto()
    GE = auto()
    ADD = auto()
    SUB = auto()
    MUL = auto()
    DIV = auto()
    FLOORDIV = auto()
    MOD = auto()
    JUMP_UNLESS = auto()
    JUMP_IF = auto()
    TRUTH = auto()
    COMPARE_FIELD = auto()


class Trace(_Numbered):
    """The events of a game's log (:mod:`.trace`), with what ``card``, ``a`` and ``b`` hold."""

    DEAL = auto()  # a hand is dealt: a = the attempt (0: the first hand), b = cards dealt
    DEALT = auto()  # card = a card of that hand
    BOTTOM = auto()  # card = a card put on the bottom of the library (London mulligan)
    KEEP = auto()  # the hand is kept: a = mulligans taken, b = lands in it
    MULLIGAN = auto()  # the hand is shuffled away: b = lands in it
    DRAW = auto()  # card = the card drawn
    DECKED = auto()  # a draw from an empty library
    LAND = auto()  # the land drop: card = the land (its land face), a = 1 if tapped, b = life paid
    LAND_PUT = auto()  # a land put onto the battlefield by an effect: as for land
    LAND_LEAVES = auto()  # card = a land leaving the battlefield (bounced, sacrificed)
    CAST = auto()  # card = the spell, a = mana paid, b = X (-1 without)
    # card = revealed (0: none), a = 1 land to hand, 2 kept, 3 milled, 0 none; b = explorer
    EXPLORE = auto()
    REMOVED = auto()  # card = an explorer removed in response to its explore
    MAPS_MADE = auto()  # a = Maps created
    MAP_USED = auto()  # card = the creature a Map makes explore; a = 1: paid from the pool
    DAMAGE = auto()  # a = combat damage dealt this turn, b = the opponent's damage so far
    DISCARD = auto()  # card = discarded down to the hand limit, a = copies
    END_TURN = auto()  # a = lands in play, b = cards in hand
    ATTACK = auto()  # card = an attacking creature, a = copies attacking, b = their damage
    SCRY = auto()  # card = the top card seen, a = 1 put on the bottom, 0 kept on top
    COMBAT = auto()  # the beginning of combat
    COUNTERS = auto()  # card = a permanent given +1/+1 counters, a = counters, b = its copies
    # card = the card whose trigger, ability or spell makes a creature explore (a Map's use
    # is map_used), a = explores, b = the explorer
    EXPLORE_EFFECT = auto()
    # card = a spell in hand held for want of a target at the end of the second main phase,
    # a = copies, b = 1 no creature you control, 2 its target only an opponent has
    HELD = auto()
    SACRIFICED = auto()  # card = a one-shot mana source sacrificed for its mana (Lotus Petal)
    LIFE_PAID = auto()  # a = life paid for the mana of the payment just made (pain lands)
    SEARCHED = auto()  # card = a land a search put into the hand (Kodama's Reach)
    LIFE_GAINED = auto()  # card = a permanent whose trigger gains life, a = life, b = its copies
    PUMPED = auto()  # card = a permanent given +a/+0 until end of turn in all, b = its copies


# --- one game's state (:mod:`.state`) -------------------------------------------------------

class Slot(_Numbered):
    """Slots of ``S.slots``: the game's scalars."""

    TOP = auto()  # the library's top (a logical position)
    END = auto()  # one past its bottom
    DEALT = auto()  # positions dealt so far (a partial Fisher-Yates shuffle)
    LAND_DROPS = auto()  # land drops left this turn
    PLAYED_LAND = auto()  # a land was played this turn
    MAPS = auto()  # Map tokens
    EQUIPPED = auto()  # Glowcap Lanterns attached
    GRAVEYARD = auto()  # cards in the graveyard
    TURN = auto()
    HAND_LANDS = auto()  # land cards in hand
    HAND_WAITING = auto()  # spells in hand whose target only an opponent has (never cast)
    LIB_LANDS = auto()  # land cards in the library
    POOL_IN_USE = auto()  # mana was put into the pool this phase
    SIZE = auto()  # the library's size at the start
    SEARCH_REVERSES = auto()  # a search reverses the library instead of shuffling (tests)
    EXPLORES_BEFORE = auto()  # explores before this turn (Merfolk Cave-Diver)
    HELD = auto()  # cards in hand
    SEEN = auto()  # the watch bits of the cards dealt (every bit for a given library)


class Zone(_Numbered):
    """Rows of ``S.zones``: counts per card id."""

    HAND = auto()
    BF = auto()  # on the battlefield
    SICK = auto()  # of those, summoning sick
    TAPPED = auto()
    COMMAND = auto()  # in the command zone
    CASTS = auto()  # cast from the command zone
    LIB_COUNT = auto()  # in the library
    CTR = auto()  # +1/+1 counters on the copies not summoning sick
    SICK_CTR = auto()  # and on the summoning-sick ones


class UnitRow(_Numbered):
    """Rows of ``S.units``: the units of mana of the plain sources you control, by class."""

    READY = auto()  # able to make mana now
    IN_PLAY = auto()  # all of them, tapped or not


class SetRow(_Numbered):
    """Rows of ``S.sets`` (sets of card ids as bits); the rows after the first three are
    workspace for the spells the mana pays, one for each function that reads them."""

    HELD_IDS = auto()
    ON_IDS = auto()
    CAST_RANKS = auto()
    PAID_CAST = auto()
    PAID_HAND = auto()
    PAID_RECORD = auto()


class Work(_Numbered):
    """Rows of the workspace ``S.work`` (int64): each function that needs scratch space has
    rows of its own, so that no call overwrites its caller's (the game never recurses) and
    no array is allocated while games are played."""

    CAST_PLAIN = auto()
    CAST_FILTERED = auto()
    PAY_PLAIN = auto()
    PAY_FILTERED = auto()
    PAY_USED = auto()
    MODE_UNITS = auto()
    TRIAL = auto()
    ORDER = auto()
    ORDER_PIPS = auto()
    ORDER_NOW = auto()
    ORDER_SUPPLY = auto()
    TOGETHER_KINDS = auto()
    TOGETHER_COPIES = auto()
    NEED = auto()
    FILTER_UNITS = auto()
    FILTER_ONE = auto()
    FILTER_BASE = auto()
    CHOOSE_PLAIN = auto()
    CHOOSE_FILTERED = auto()
    MORE_PLAIN = auto()
    MORE_FILTERED = auto()
    OPTION_KEYS = auto()
    OPTION_HELD = auto()
    OPTION_LIFE = auto()
    WANTED = auto()
    BEFORE = auto()
    MORE_COVERED = auto()
    DEMAND = auto()
    ENTER_PLAIN = auto()
    ENTER_FILTERED = auto()
    LIFE_PLAIN = auto()
    LIFE_FILTERED = auto()
    RECORD_PLAIN = auto()
    RECORD_FILTERED = auto()
    OBSERVE_PLAIN = auto()
    OBSERVE_FILTERED = auto()
    NEXT_MORE = auto()
    CAN_PLAIN = auto()
    CAN_FILTERED = auto()
    NO_PENDING = auto()
    BASIC_HELD = auto()
    BASIC_KEYS = auto()
    BASIC_COLOURS = auto()
    BASIC_FETCH = auto()
    ATTACKERS = auto()
    CREWERS = auto()
    VEHICLES = auto()
    BOTTOMED = auto()
    COUNTS = auto()
    HAKBAL_PENDING = auto()
    SOME_PROFILES = auto()
    DECK_PIPS = auto()
    TURN_VALUES = auto()
    WATCH = auto()  # per card id, the watch bits a deal of it sets (play_chunk's watch)


#: How many events and per-turn metrics there are (for loops in compiled code).
N_EVENTS, N_TURN_METRICS = len(Event), len(TurnMetric)
# The per-turn metrics begin with the events, in the same order, so that a turn's metrics
# start with a copy of the event counters.
if any(int(TurnMetric[event.name]) != int(event) for event in Event):
    raise RuntimeError("TurnMetric must begin with the members of Event, in their order")
