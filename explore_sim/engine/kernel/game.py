"""The compiled goldfish game: one game at a time, the same rules as the vectorised engine.

This is the scalar implementation of the rules the vectorised turn loop
(:mod:`explore_sim.engine.goldfish`) is checked against, game by game, on the same
libraries. Each function reads the packed deck tables ``K`` (:class:`~.pack.KernelTables`)
and changes the game state ``S`` (:mod:`.state`); comments cite docs/rules.md (E1-E10,
R1-R3, M1-M6) and docs/mana.md. The turn: untap (extra land drops), draw (not on turn 1 on
the play, but in a Commander game), first main phase (land drop, casting, equipment),
combat (beginning-of-combat explores, attacks and their triggers, combat damage), second
main phase (a land found meanwhile, casting, Maps and activated abilities), cleanup.
Compiled with numba (``cache=True``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .mana import (
    pay_mode,
    payable_any,
    total_of,
    unit_sets,
    usable,
)
from ...cards.features import TAPPED_RULES
from .pack import DIMS, EVENTS, FETCH, FETCH_WHEN, GROUPS, LAND_ENTERS, METRICS
from .pack import (
    CL_COLOURS,
    CM_COMMANDER_PROFILE,
    CM_N_TAXED,
    C_ABILITY_COST_MODE,
    C_BASIC_TYPES,
    C_CHEAPEST,
    C_COMMANDER_SLOT,
    C_COST,
    C_EXPLORES,
    C_FACE_OF,
    C_FETCH,
    C_FETCH_WHEN,
    C_HAND_PROFILE,
    C_HAS_HASTE,
    C_IS_CARD,
    C_IS_CAST,
    C_IS_CREATURE,
    C_IS_LAND,
    C_IS_LAND_LIKE,
    C_IS_NONLAND,
    C_IS_PERMANENT,
    C_IS_SOURCE,
    C_IS_X,
    C_LAND_COLOURS,
    C_LAND_ENTERS,
    C_MAPS,
    C_NEEDS_TARGET,
    C_N_CARD_MODES,
    C_POWER,
    C_SOURCE_COST,
    C_TAPPED_ARG,
    C_TAPPED_RULE,
    C_TOUGHNESS,
    G_BASIC_IDS as _G_BASIC_IDS,
    G_COMMANDER_IDS as _G_COMMANDER_IDS,
    G_LAND_IDS as _G_LAND_IDS,
    G_MERFOLK_IDS as _G_MERFOLK_IDS,
    G_PASS_IDS as _G_PASS_IDS,
    LO_ARG,
    LO_BOUNCE,
    LO_CARD,
    LO_COLOURS,
    LO_FETCH,
    LO_KIND,
    LO_PASSAGE,
    LO_RULE,
    LO_SPELL_FACE,
    LO_TIEBREAK,
    PR_CASTABLE_PROFILES,
    PR_MODES,
    PR_PIPS,
    PR_PROF_N,
    SO_COST,
    SO_KIND,
)
from .structs import as_state, as_tables
from .state import (
    DEALT,
    END,
    EQUIPPED,
    GRAVEYARD,
    HAND_LANDS,
    LAND_DROPS,
    LIB_LANDS,
    MAPS,
    PLAYED_LAND,
    SEARCH_REVERSES,
    SIZE,
    TOP,
    TURN,
    BF,
    CASTS,
    R_ATTACKERS,
    R_BASIC_COLOURS,
    R_BASIC_FETCH,
    R_BASIC_HELD,
    R_BASIC_KEYS,
    R_BEFORE,
    R_BOTTOMED,
    R_CAN_FILTERED,
    R_CAN_PLAIN,
    R_CAST_FILTERED,
    R_CAST_PLAIN,
    R_CHOOSE_FILTERED,
    R_CHOOSE_PLAIN,
    R_COVERED,
    R_COUNTS,
    R_CREWERS,
    R_DEMAND,
    R_ENTER_FILTERED,
    R_ENTER_PLAIN,
    R_IN_PLAY,
    R_MORE_COVERED,
    R_MORE_FILTERED,
    R_MORE_PLAIN,
    R_HAKBAL_PENDING,
    R_METRICS_ROW,
    R_NEXT_MORE,
    R_NEXT_UNITS,
    R_NO_PENDING,
    R_OBSERVE_FILTERED,
    R_OBSERVE_PLAIN,
    R_OPTION_HELD,
    R_OPTION_KEYS,
    R_PAY_FILTERED,
    R_PAY_PLAIN,
    R_PAY_USED,
    R_RECORD_FILTERED,
    R_RECORD_PLAIN,
    R_WANTED,
    COMMAND,
    HAND,
    LIB_COUNT,
    SICK,
    TAPPED,
    below,
    uniform,
)

# Slots of K.dims.
(N_KINDS, N_CLASSES, N_MASKS, N_MODES, N_DECK, N_OPTIONS, N_BASICS, N_PROFILES, N_CASTABLE,
 HAS_FILTERS, TIES, USE_LOOKUP, CAP, MAP_MODE, HAND_LIMIT, TURNS, ON_PLAY, IS_COMMANDER,
 TWISTS_FIRST, USE_MAPS, N_GROUPS, N_SOURCES, N_COMMANDERS, MAX_TAXED, SPELL_FACES) = range(
    len(DIMS))
# Groups (K.gi[slot] is the group's column in K.members).
(G_LAND, G_CREATURE, G_SOURCE, G_TRACKER, G_TWISTS, G_HELM, G_EACH_TURN_LAND,
 G_EACH_TURN_LAND_ON_ENTER, G_MAPS_ON_ENTER, G_EXPLORES_ON_ENTER, G_TARGET_EXPLORES_ON_ENTER,
 G_ENTERS_EXPLORER, G_BASIC_TO_HAND_ON_ENTER, G_SPELL_EXPLORES, G_EXTRA_LAND_THIS_TURN,
 G_DRAWS, G_RAMP, G_LANTERN, G_SEEKER, G_ACTIVATED_SEARCH, G_COMBAT_EXPLORER, G_HAKBAL,
 G_ANCHORAGE, G_SCHOONER, G_ATTACK_MAP, G_ATTACK_EXPLORER, G_PARLEY, G_ATTACK_LAND,
 G_DAMAGE_EXPLORER, G_WALKER, G_CARAVEL, G_CAVE_DIVER, G_CHUPACABRA, G_NICANZIL) = (
    np.int64(slot) for slot in range(len(GROUPS)))  # typed, not literal: one compilation
# Event counters (S.totals).
(E_EXPLORES, E_EXPLORE_COUNTERS, E_TRIGGER_COUNTERS, E_EXPLORE_LANDS, E_MILLED, E_SCRIES,
 E_MAPS_CREATED, E_MAPS_USED, E_MANA_SPENT, E_CARDS_CAST, E_LIFE_GAINED, E_CAVE_DIVER,
 E_CHUPACABRA, E_NICANZIL_LANDS, E_LANDS_PUT, E_REMOVED, E_EXTRA_LAND_DROPS, E_DECKED,
 E_LIFE_PAID, E_TAPPED_LANDS, E_COMMANDER_CAST, E_COMMANDER_TAX) = (EVENTS.index(e) for e in (
    "explores", "explore_counters", "trigger_counters", "explore_lands", "milled", "scries",
    "maps_created", "maps_used", "mana_spent", "cards_cast", "life_gained", "cave_diver_pumps",
    "chupacabra_triggers", "nicanzil_lands", "lands_put", "explorers_removed",
    "extra_land_drops", "decked", "life_paid", "tapped_lands_played", "commander_cast",
    "commander_tax_paid"))
# Codes of the cards layer.
F_BASIC_TAPPED, F_PASSAGE, F_BASIC_HAND, F_TAPPED_AND_HAND, F_TWO_BASICS = (
    FETCH.index(f) for f in ("basic_tapped", "basic_passage", "basic_hand",
                             "basic_tapped_and_hand", "two_basics_tapped"))
W_SACRIFICE = FETCH_WHEN.index("sacrifice")
T_YES, T_UNLESS, T_FAST, T_SLOW, T_LIFE = (TAPPED_RULES.index(t) for t in
                                          ("yes", "unless", "fast", "slow", "life"))
L_SCRY, L_BOUNCE = LAND_ENTERS.index("scry"), LAND_ENTERS.index("bounce")
# Per-turn metrics (METRICS order): the event counter each is, or -1 for state metrics.
METRIC_EVENT = np.array([EVENTS.index(m) if m in EVENTS else -1 for m in METRICS],
                        dtype=np.int64)
(M_LANDS_PLAYED, M_ON_CURVE, M_LAND_DROP, M_COUNTERS, M_CREATURES, M_HAND_SIZE,
 M_MANA_AVAILABLE, M_COLOUR_SCREWED) = (METRICS.index(m) for m in (
    "lands_played", "on_curve", "land_drop", "counters", "creatures", "hand_size",
    "mana_available", "colour_screwed"))
G_MERFOLK_IDS, G_LAND_IDS, G_BASIC_IDS, G_COMMANDER_IDS, G_PASS_IDS = (np.int64(slot) for slot in (
    _G_MERFOLK_IDS, _G_LAND_IDS, _G_BASIC_IDS, _G_COMMANDER_IDS, _G_PASS_IDS))
# Constants passed to compiled functions as typed values (numba would otherwise compile a
# version of a function for each literal, which mutual recursion cannot type).
YES, NO = np.bool_(True), np.bool_(False)
NONE, ZERO, ONE = np.int64(-1), np.int64(0), np.int64(1)
MAX_TAXED_CASTS = 12
MAX_TRACKER_DOUBLINGS = 6
MAX_ACTIONS = 60
COLOUR_BITS = (1, 2, 4, 8, 16)
# Observation fields of the policy bytecode (:mod:`.bytecode`), in its numbering.
(O_CARD, O_IS_LAND, O_IS_NONLAND, O_IS_EMPTY, O_IS_CREATURE, O_IS_LAND_LIKE,
 O_MAKES_EXPLORES, O_MAKES_MAPS, O_MANA_VALUE, O_POWER, O_TOUGHNESS, O_CARDS_IN_HAND,
 O_LANDS_IN_HAND, O_LANDS_IN_PLAY, O_MANA_SOURCES, O_PREDICTED_MANA, O_CASTABLE_NOW,
 O_CASTABLE_NEXT_TURN, O_TURN, O_EXPLORES_LEFT, O_COUNTERS, O_EXPLORER_PRESENT,
 O_LIBRARY_SIZE, O_LANDS_IN_LIBRARY) = range(24)
(OP_LOAD, OP_CONST, OP_NOT, OP_NEG, OP_AND, OP_OR, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
 OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD) = range(18)


# --------------------------------------------------------------------------------------
# Counting, the library and the zones


@njit(cache=True, inline="always")
def count(K, S, slot):
    """Permanents of group ``slot`` on the battlefield."""
    g = K.gi[slot]
    return S.perm[g] if g >= 0 else 0


@njit(cache=True, inline="always")
def member(K, slot, kind):
    g = K.gi[slot]
    return g >= 0 and K.members[kind, g] != 0


@njit(cache=True, inline="always")
def group_ids(K, slot):
    """The card ids of group ``slot``."""
    g = K.gi[slot]
    if g < 0:
        return K.group_ids[0, :0]
    return K.group_ids[g, : K.group_n[g]]


@njit(cache=True)
def deal_to(S, position):
    """Deal the library up to logical ``position``: each undealt position takes a uniform
    choice among the cards not dealt yet (a partial Fisher-Yates shuffle)."""
    s, lib, rng = S.slots, S.lib, S.deal
    size = s[SIZE]
    while s[DEALT] <= position and s[DEALT] < size:
        d = s[DEALT]
        j = d + below(rng, size - d)
        lib[d], lib[j] = lib[j], lib[d]
        s[DEALT] = d + 1


@njit(cache=True, inline="always")
def deal_all(S):
    deal_to(S, S.slots[SIZE])


@njit(cache=True, inline="always")
def peek(K, S):
    """The top card of the library, 0 where it is empty."""
    s = S.slots
    if s[TOP] >= s[END]:
        return 0
    deal_to(S, s[TOP])
    return S.lib[s[TOP] % (s[SIZE] + 1)]


@njit(cache=True, inline="always")
def to_hand(K, S, card, n):
    S.zones[HAND, card] += n
    S.slots[HAND_LANDS] += n * K.card[card, C_IS_LAND]


@njit(cache=True)
def leave_library(K, S, card):
    """The top card ``card`` leaves the library (drawn, explored into hand, milled)."""
    s = S.slots
    s[TOP] += 1
    S.zones[LIB_COUNT, card] -= 1
    s[LIB_LANDS] -= K.card[card, C_IS_LAND]
    for k in range(5):
        S.lib_pips[k] -= K.pips[card, k]


@njit(cache=True)
def draw(K, S):
    """Draw a card; drawing from an empty library is recorded (``decked``)."""
    card = peek(K, S)
    if card == 0:
        S.totals[E_DECKED] = 1
        return
    leave_library(K, S, card)
    to_hand(K, S, card, ONE)


@njit(cache=True, inline="always")
def enter(K, S, kind):
    """A permanent enters the battlefield (summoning sick); its groups count it."""
    S.zones[BF, kind] += 1
    S.zones[SICK, kind] += 1
    for g in range(K.dims[N_GROUPS]):
        S.perm[g] += K.members[kind, g]


@njit(cache=True, inline="always")
def leave(K, S, kind):
    """A permanent leaves the battlefield; its sick and tapped counts stay within what is
    left."""
    S.zones[BF, kind] -= 1
    for g in range(K.dims[N_GROUPS]):
        S.perm[g] -= K.members[kind, g]
    S.zones[SICK, kind] = min(S.zones[SICK, kind], S.zones[BF, kind])
    S.zones[TAPPED, kind] = min(S.zones[TAPPED, kind], S.zones[BF, kind])


@njit(cache=True, inline="always")
def is_game_commander(K, kind):
    return K.dims[IS_COMMANDER] and K.card[kind, C_COMMANDER_SLOT] >= 0


@njit(cache=True)
def remove(K, S, kind, just_entered):
    """The removal model: a permanent leaves in response to its explore (E3); the copy that
    just entered goes (an older one stays free of summoning sickness), a commander returns
    to the command zone (CR 903.9)."""
    if kind == 0 or S.zones[BF, kind] <= 0:
        return
    if just_entered and S.zones[SICK, kind] > 0:
        S.zones[SICK, kind] -= 1
    leave(K, S, kind)
    if is_game_commander(K, kind):
        S.zones[COMMAND, kind] += 1
    else:
        S.slots[GRAVEYARD] += 1


@njit(cache=True, inline="always")
def sacrifice(K, S, kind):
    leave(K, S, kind)
    S.slots[GRAVEYARD] += 1


@njit(cache=True)
def pick_creature(K, S, prefer_sick):
    """A creature you control (a target of Maps and spells): the first by id (by name), or a
    summoning-sick one first."""
    first = 0
    for kind in range(1, K.dims[N_KINDS]):
        if S.zones[BF, kind] > 0 and K.card[kind, C_IS_CREATURE]:
            if not prefer_sick:
                return kind
            if S.zones[SICK, kind] > 0:
                return kind
            if first == 0:
                first = kind
    return first


@njit(cache=True)
def create_maps(K, S, n):
    """Create ``n`` Maps; each Worldwalker Helm adds one (M6)."""
    if n <= 0:
        return
    made = n + count(K, S, G_HELM)
    S.slots[MAPS] += made
    S.totals[E_MAPS_CREATED] += made


@njit(cache=True, inline="always")
def land_types(K, S):
    types = 0
    for kind in group_ids(K, G_LAND_IDS):
        if S.zones[BF, kind] > 0:
            types |= K.card[kind, C_BASIC_TYPES]
    return types


@njit(cache=True, inline="always")
def basics_left(K, S):
    n = 0
    for b in group_ids(K, G_BASIC_IDS):
        n += S.zones[LIB_COUNT, b]
    return n


# --------------------------------------------------------------------------------------
# Castability (docs/mana.md)


@njit(cache=True)
def castable_kind(K, plain, filtered, n_sets, kind, x_rule):
    """Whether the mana can pay card ``kind`` in any of its ways (Jadelight Spelunker, with
    ``x_rule``, needs X >= 1)."""
    for i in range(K.card[kind, C_N_CARD_MODES]):
        if payable_any(K, plain, filtered, n_sets, K.card_modes[kind, i]):
            if x_rule and K.card[kind, C_IS_X]:
                last = filtered if n_sets > 1 else plain
                return total_of(K, last) >= K.card[kind, C_COST] + 1
            return True
    return False


@njit(cache=True, inline="always")
def castable_card(K, card, plain, filtered, n_sets):
    if not (K.card[card, C_IS_NONLAND] and K.card[card, C_IS_CARD]):
        return False
    return castable_kind(K, plain, filtered, n_sets, card, NO)


@njit(cache=True)
def castable_in_hand(K, S, plain, filtered, n_sets):
    """Some spell in hand that the casting order casts can be paid."""
    last = filtered if n_sets > 1 else plain
    total = total_of(K, last)
    for kind in range(1, K.dims[N_KINDS]):
        if S.zones[HAND, kind] > 0 and K.card[kind, C_IS_CAST] and K.card[kind, C_CHEAPEST] <= total:
            if castable_kind(K, plain, filtered, n_sets, kind, YES):
                return True
    return False


@njit(cache=True)
def will_use_mana(K, S, total):
    """A spell in hand costs no more than the mana available plus one (colours aside)."""
    for kind in range(1, K.dims[N_KINDS]):
        if S.zones[HAND, kind] > 0 and K.card[kind, C_IS_NONLAND] and K.card[kind, C_CHEAPEST] <= total + 1:
            return True
    return False


@njit(cache=True)
def castable_next_turn(K, S, card):
    """Every source you control, untapped, plus one land from hand could pay ``card``."""
    n_classes = K.dims[N_CLASSES]
    units = S.work[R_NEXT_UNITS]
    units[:n_classes] = 0
    for si in range(K.dims[N_SOURCES]):
        if K.sources[si, SO_COST] == 0:
            copies = S.zones[BF, K.sources[si, SO_KIND]]
            for c in range(n_classes):
                units[c] += copies * K.s_units[si, c]
    if castable_card(K, card, units, units, ONE):
        return True
    more = S.work[R_NEXT_MORE]
    for o in range(K.dims[N_OPTIONS]):
        if S.zones[HAND, K.options[o, LO_CARD]] > 0:
            for c in range(n_classes):
                more[c] = units[c] + K.opt_units[o, c]
            if castable_card(K, card, more, more, ONE):
                return True
    return False


# --------------------------------------------------------------------------------------
# Policies: a small bytecode over the observation (docs: keep or mill)


@njit(cache=True, inline="always")
def as_float(condition):
    """A condition as the number the expressions compute with (1.0 or 0.0)."""
    return 1.0 if condition else 0.0


@njit(cache=True)
def observe(K, S, field, card, explores_left, counters, present):
    """One observation field of the revealed ``card`` (what the player may know)."""
    if field == O_CARD:
        return float(card)
    if field == O_IS_LAND:
        return float(K.card[card, C_IS_LAND])
    if field == O_IS_NONLAND:
        return float(K.card[card, C_IS_NONLAND])
    if field == O_IS_EMPTY:
        return as_float(not K.card[card, C_IS_CARD])
    if field == O_IS_CREATURE:
        return float(K.card[card, C_IS_CREATURE])
    if field == O_IS_LAND_LIKE:
        return float(K.card[card, C_IS_LAND_LIKE])
    if field == O_MAKES_EXPLORES:
        return as_float(K.card[card, C_EXPLORES] > 0)
    if field == O_MAKES_MAPS:
        return as_float(K.card[card, C_MAPS] > 0)
    if field == O_MANA_VALUE:
        return float(K.card[card, C_COST])
    if field == O_POWER:
        return float(K.card[card, C_POWER])
    if field == O_TOUGHNESS:
        return float(K.card[card, C_TOUGHNESS])
    if field == O_CARDS_IN_HAND:
        return float(S.zones[HAND].sum())
    if field == O_LANDS_IN_HAND:
        return float(S.slots[HAND_LANDS])
    if field == O_LANDS_IN_PLAY:
        return float(count(K, S, G_LAND))
    if field == O_MANA_SOURCES:
        return float(count(K, S, G_SOURCE))
    if field == O_PREDICTED_MANA:
        return float(count(K, S, G_SOURCE) + S.slots[HAND_LANDS])
    if field == O_CASTABLE_NOW:
        plain, filtered = S.work[R_OBSERVE_PLAIN], S.work[R_OBSERVE_FILTERED]
        n_sets = unit_sets(K, S, plain, filtered, NONE, ZERO)
        return as_float(castable_card(K, card, plain, filtered, n_sets))
    if field == O_CASTABLE_NEXT_TURN:
        return as_float(castable_next_turn(K, S, card))
    if field == O_TURN:
        return float(S.slots[TURN])
    if field == O_EXPLORES_LEFT:
        return float(explores_left)
    if field == O_COUNTERS:
        return float(counters)
    if field == O_EXPLORER_PRESENT:
        return as_float(present)
    if field == O_LIBRARY_SIZE:
        return float(S.slots[END] - S.slots[TOP])
    return float(S.slots[LIB_LANDS])  # O_LANDS_IN_LIBRARY


@njit(cache=True, error_model="numpy")
def decide(K, S, code, consts, card, explores_left, counters, present):
    """Run a policy's bytecode: True mills the revealed ``card`` (keeps it on top: False)."""
    stack = S.stack
    top = 0
    i = 0
    while i < len(code):
        op = code[i]
        if op == OP_LOAD:
            stack[top] = observe(K, S, code[i + 1], card, explores_left, counters, present)
            top += 1
            i += 2
            continue
        if op == OP_CONST:
            stack[top] = consts[code[i + 1]]
            top += 1
            i += 2
            continue
        if op == OP_NOT:
            stack[top - 1] = as_float(stack[top - 1] == 0)
        elif op == OP_NEG:
            stack[top - 1] = -stack[top - 1]
        else:
            b = stack[top - 1]
            a = stack[top - 2]
            top -= 1
            if op == OP_AND:
                r = as_float(a != 0 and b != 0)
            elif op == OP_OR:
                r = as_float(a != 0 or b != 0)
            elif op == OP_EQ:
                r = as_float(a == b)
            elif op == OP_NE:
                r = as_float(a != b)
            elif op == OP_LT:
                r = as_float(a < b)
            elif op == OP_LE:
                r = as_float(a <= b)
            elif op == OP_GT:
                r = as_float(a > b)
            elif op == OP_GE:
                r = as_float(a >= b)
            elif op == OP_ADD:
                r = a + b
            elif op == OP_SUB:
                r = a - b
            elif op == OP_MUL:
                r = a * b
            elif op == OP_DIV:
                r = a / b
            elif op == OP_FLOORDIV:
                r = np.floor(a / b)
            else:
                r = a - np.floor(a / b) * b
            stack[top - 1] = r
        i += 1
    return top > 0 and stack[top - 1] != 0


# --------------------------------------------------------------------------------------
# Explore instructions with their replacements (R1-R3) and triggers (E8)


@njit(cache=True)
def scry(K, S, explores_left, counters, present):
    """Scry 1 (R2; temples): a land stays on top; a nonland goes to the bottom if the scry
    policy says so."""
    card = peek(K, S)
    if card == 0:
        return
    s = S.slots
    if K.card[card, C_IS_NONLAND] and decide(K, S, K.scry_code, K.scry_consts, card, explores_left, counters,
                                     present):
        width = s[SIZE] + 1
        S.lib[s[END] % width] = card
        s[TOP] += 1
        s[END] += 1
    S.totals[E_SCRIES] += 1


@njit(cache=True)
def explore_triggers(K, S, explored, lands, nonlands):
    """"Whenever a creature you control explores", after the whole effect (E8)."""
    if explored <= 0:
        return
    totals = S.totals
    walkers = count(K, S, G_WALKER)
    totals[E_TRIGGER_COUNTERS] += walkers * explored
    totals[E_LIFE_GAINED] += 3 * walkers * explored
    totals[E_TRIGGER_COUNTERS] += count(K, S, G_CARAVEL) * explored
    totals[E_CAVE_DIVER] += count(K, S, G_CAVE_DIVER) * explored
    totals[E_CHUPACABRA] += count(K, S, G_CHUPACABRA) * explored
    # Nicanzil: a nonland explored gives it a counter; a land explored lets you put a land
    # from hand onto the battlefield tapped. Neither fires on an empty library (E4).
    nicanzils = count(K, S, G_NICANZIL)
    totals[E_TRIGGER_COUNTERS] += nicanzils * nonlands
    for _ in range(nicanzils * lands):
        if put_land(K, S, YES):
            totals[E_NICANZIL_LANDS] += 1


@njit(cache=True)
def explore_instruction(K, S, explorer, times, targeted, present_in, pending,
                        just_entered):
    """One effect that makes ``explorer`` explore ``times`` times (E6), then its triggers
    (or, with ``pending`` (int64[3]), its explores added there for the caller's triggers).
    Returns whether the explorer is still on the battlefield."""
    s, totals = S.slots, S.totals
    present = explorer != 0 and S.zones[BF, explorer] > 0 and present_in
    if times <= 0:
        return present
    removal = K.fdims[0]
    if removal > 0:  # the removal model: the explorer leaves in response (E3)
        if present and uniform(S.play) < removal:
            remove(K, S, explorer, just_entered)
            totals[E_REMOVED] += 1
            present = False
    if targeted and not present:
        return present  # E9: the target is gone, nothing happens at all
    # R1 (Topography Tracker doubles each explore), R2 (Twists and Turns: scry 1 first),
    # R3 (the order chosen: tracker-first gives scry, explore, scry, explore).
    trackers = min(count(K, S, G_TRACKER), MAX_TRACKER_DOUBLINGS)
    twists = count(K, S, G_TWISTS)
    per = 1 << trackers
    if K.dims[TWISTS_FIRST]:
        period = twists + per
        steps = times * period
    else:
        period = twists + 1
        steps = times * per * period
    total_explores = times * per
    explored = lands = nonlands = counters = 0
    for step in range(steps):
        if step % period < twists:
            scry(K, S, total_explores - explored, counters, present)
            continue
        card = peek(K, S)
        explored += 1
        totals[E_EXPLORES] += 1
        if card == 0:  # E4: nothing revealed, still a counter
            if present:
                counters += 1
                totals[E_EXPLORE_COUNTERS] += 1
        elif K.card[card, C_IS_LAND]:  # E1: a land goes to hand
            leave_library(K, S, card)
            to_hand(K, S, card, ONE)
            lands += 1
            totals[E_EXPLORE_LANDS] += 1
        else:  # E2 (E3: no counter when the explorer is gone; the choice is still made)
            nonlands += 1
            if present:
                counters += 1
                totals[E_EXPLORE_COUNTERS] += 1
            if decide(K, S, K.policy_code, K.policy_consts, card, total_explores - explored + 1,
                      counters - present, present):
                leave_library(K, S, card)
                s[GRAVEYARD] += 1
                totals[E_MILLED] += 1
    if pending[0] < 0:
        explore_triggers(K, S, explored, lands, nonlands)
    else:
        pending[0] += explored
        pending[1] += lands
        pending[2] += nonlands
    return present


# --------------------------------------------------------------------------------------
# Lands: which land to play (docs/mana.md), how it enters, searches


@njit(cache=True)
def enters_untapped(K, S, rule, arg, will_use):
    if rule == 0:
        return True
    if rule == T_UNLESS:
        return (land_types(K, S) & arg) != 0
    if rule == T_FAST:
        return count(K, S, G_LAND) <= 2
    if rule == T_SLOW:
        return count(K, S, G_LAND) >= 2
    if rule == T_LIFE:
        return will_use
    return False


@njit(cache=True)
def _deficit(K, covered, p):
    """Profile ``p``'s colour deficit: the fewest pips, over its ways to pay, that no
    distinct unit can pay (Hall's theorem with deficiency)."""
    best = 1 << 30
    for i in range(K.profiles[p, PR_PROF_N]):
        mode = K.profiles[p, PR_MODES + i]
        short = -(1 << 30)
        for m in range(K.dims[N_MASKS]):
            short = max(short, K.req[mode, m] - covered[m])
        best = min(best, short)
    return max(best, 0)


@njit(cache=True)
def colour_keys(K, S, units, colours, is_fetch, keys):
    """Steps 3 and 4 of the land choice for options making ``units`` (options, classes) of
    ``colours``, added to ``keys``: the remaining colour deficit of the wanted cards the
    option closes, then the colour with the largest remaining deficit, then the library's
    most demanded colour. A fetch option closes what the deck's best basic land would."""
    n_classes, n_masks, n_profiles = K.dims[N_CLASSES], K.dims[N_MASKS], K.dims[N_PROFILES]
    n_options = len(colours)
    if n_profiles:
        wanted = S.work[R_WANTED]
        wanted[:n_profiles] = 0
        for kind in range(1, K.dims[N_KINDS]):
            if S.zones[HAND, kind] > 0 and K.card[kind, C_IS_CAST] and K.card[kind, C_HAND_PROFILE] >= 0:
                wanted[K.card[kind, C_HAND_PROFILE]] += 1
        for p in range(n_profiles):
            wanted[p] += K.profiles[p, PR_CASTABLE_PROFILES]
        for slot in range(K.dims[N_COMMANDERS]):
            if S.zones[COMMAND, group_ids(K, G_COMMANDER_IDS)[slot]] > 0 and K.commanders[slot, CM_COMMANDER_PROFILE] >= 0:
                wanted[K.commanders[slot, CM_COMMANDER_PROFILE]] += 1
        in_play = S.work[R_IN_PLAY]
        in_play[:n_classes] = 0
        for si in range(K.dims[N_SOURCES]):
            if K.sources[si, SO_COST] == 0:
                copies = S.zones[BF, K.sources[si, SO_KIND]]
                for c in range(n_classes):
                    in_play[c] += copies * K.s_units[si, c]
        covered = S.work[R_COVERED]
        covered[:n_masks] = 0
        for m in range(n_masks):
            for c in range(n_classes):
                covered[m] += in_play[c] * K.intersects[c, m]
        before = S.work[R_BEFORE]
        for p in range(n_profiles):
            before[p] = _deficit(K, covered, p)
        more = S.work[R_MORE_COVERED]
        demand = S.work[R_DEMAND]
        demand[:5] = 0
        for k in range(5):
            made = 0
            for c in range(n_classes):
                made += in_play[c] * K.classes[c, CL_COLOURS + k]
            for p in range(n_profiles):
                demand[k] += wanted[p] * max(0, K.profiles[p, PR_PIPS + k] - made)
        for o in range(n_options):
            gain = 0
            tries = K.dims[N_BASICS] if is_fetch[o] else 1
            for t in range(tries):
                option_units = K.basic_units[t] if is_fetch[o] else units[o]
                for m in range(n_masks):
                    more[m] = covered[m]
                    for c in range(n_classes):
                        more[m] += option_units[c] * K.intersects[c, m]
                closed = 0
                for p in range(n_profiles):
                    closed += wanted[p] * (before[p] - _deficit(K, more, p))
                gain = max(gain, closed)
            keys[o] += min(gain, 255) << 41
            best = 0
            for k in range(5):
                if colours[o] & COLOUR_BITS[k]:
                    best = max(best, demand[k])
            keys[o] += min(best, 255) << 33
    lib_pips = S.lib_pips
    for o in range(n_options):
        best = 0
        for k in range(5):
            if colours[o] & COLOUR_BITS[k]:
                best = max(best, lib_pips[k])
        keys[o] += min(best, 4095) << 21


@njit(cache=True)
def choose_land(K, S, land_drop, tapped):
    """The land option to play (an index of the options), -1 if none. A land drop: steps 1-5;
    a land an effect puts onto the battlefield is a land card, chosen like a land drop when
    its mana may be used this turn (Hakbal), else a land that would enter tapped anyway
    first (Nicanzil)."""
    n_options = K.dims[N_OPTIONS]
    held = S.work[R_OPTION_HELD]
    any_land_card = False
    for o in range(n_options):
        held[o] = S.zones[HAND, K.options[o, LO_CARD]] > 0
        if held[o] and not K.options[o, LO_SPELL_FACE]:
            any_land_card = True
    no_land = count(K, S, G_LAND) == 0
    n_held = 0
    last = -1
    for o in range(n_options):
        if K.options[o, LO_SPELL_FACE] and (not land_drop or (K.dims[SPELL_FACES] == 0
                                                      and any_land_card)):
            held[o] = False
        if K.options[o, LO_BOUNCE] and no_land:  # a bounce land would return itself
            held[o] = False
        if held[o]:
            n_held += 1
            last = o
    if n_held <= 1:
        return last
    may_use = land_drop or not tapped
    n_classes = K.dims[N_CLASSES]
    plain, filtered = S.work[R_CHOOSE_PLAIN], S.work[R_CHOOSE_FILTERED]
    n_sets = 1
    will_use = False
    before = False
    if may_use:
        n_sets = unit_sets(K, S, plain, filtered, NONE, ZERO)
        will_use = will_use_mana(K, S, total_of(K, filtered if n_sets > 1 else plain))
        before = castable_in_hand(K, S, plain, filtered, n_sets)
    lands = count(K, S, G_LAND)
    keys = S.work[R_OPTION_KEYS]
    keys[:n_options] = 0
    more_plain, more_filtered = S.work[R_MORE_PLAIN], S.work[R_MORE_FILTERED]
    for o in range(n_options):
        if not held[o]:
            continue
        if K.options[o, LO_FETCH]:  # the land it finds enters tapped (a Passage's from the 4th land)
            untapped = K.options[o, LO_PASSAGE] != 0 and lands >= 3
        else:
            untapped = enters_untapped(K, S, K.options[o, LO_RULE], K.options[o, LO_ARG], will_use)
        if may_use and untapped and not before:
            for c in range(n_classes):
                more_plain[c] = plain[c] + K.opt_units[o, c]
                more_filtered[c] = filtered[c] + K.opt_units[o, c]
            if castable_in_hand(K, S, more_plain, more_filtered, n_sets):
                keys[o] += 1 << 50
        if untapped == will_use:
            keys[o] += 1 << 49
    colour_keys(K, S, K.opt_units, K.options[:, LO_COLOURS], K.options[:, LO_FETCH], keys)
    best, best_key = -1, -1
    for o in range(n_options):
        if held[o]:
            key = keys[o] + K.options[o, LO_TIEBREAK] + (1 << 20)
            if key > best_key:
                best, best_key = o, key
    return best


@njit(cache=True)
def play_land(K, S):
    """Play a land if a land drop is left and one can be played."""
    s = S.slots
    if s[LAND_DROPS] <= 0:
        return False
    o = choose_land(K, S, YES, NO)
    if o < 0:
        return False
    s[LAND_DROPS] -= 1
    s[PLAYED_LAND] = 1
    to_hand(K, S, K.options[o, LO_CARD], NONE)
    land_enters(K, S, K.options[o, LO_KIND], NO, YES)
    return True


@njit(cache=True)
def put_land(K, S, tapped):
    """Put a land card from hand onto the battlefield (not a land drop): tapped (Nicanzil),
    or as its own text says (Hakbal)."""
    o = choose_land(K, S, NO, tapped)
    if o < 0:
        return False
    to_hand(K, S, K.options[o, LO_CARD], NONE)
    land_enters(K, S, K.options[o, LO_KIND], tapped, NO)
    return True


@njit(cache=True)
def land_enters(K, S, kind, tapped, land_drop):
    """Land ``kind`` enters (its card already left the hand or library): tapped by the
    effect or by its own rule; then scry, bounce, a sacrifice to search, enter triggers."""
    totals = S.totals
    rule, arg = K.card[kind, C_TAPPED_RULE], K.card[kind, C_TAPPED_ARG]
    if tapped or rule == T_YES:
        enters_tapped = True
    elif rule == 0:
        enters_tapped = False
    else:
        plain, filtered = S.work[R_ENTER_PLAIN], S.work[R_ENTER_FILTERED]
        n_sets = unit_sets(K, S, plain, filtered, NONE, ZERO)
        will_use = will_use_mana(K, S, total_of(K, filtered if n_sets > 1 else plain))
        untapped = enters_untapped(K, S, rule, arg, will_use)
        enters_tapped = not untapped
        if rule == T_LIFE and untapped:  # paid the life to have it untapped
            totals[E_LIFE_PAID] += arg
    if not land_drop:
        totals[E_LANDS_PUT] += 1
    enters_land(K, S, kind, enters_tapped)
    if land_drop and enters_tapped:
        totals[E_TAPPED_LANDS] += 1
    effect = K.card[kind, C_LAND_ENTERS]
    if effect == L_SCRY:
        scry(K, S, ZERO, ZERO, YES)
    elif effect == L_BOUNCE:
        bounce(K, S, kind)
    if K.card[kind, C_FETCH_WHEN] == W_SACRIFICE:
        sacrifice_to_search(K, S, kind, land_drop)


@njit(cache=True)
def bounce(K, S, bounce_land):
    """Return a land you control to hand: the least flexible other land, tapped ones first,
    tapped for mana beforehand if it is untapped; else the bounce land itself."""
    chosen, best_key = bounce_land, -1
    land_ids = group_ids(K, G_LAND_IDS)
    for n in range(len(land_ids)):
        land = land_ids[n]
        present = S.zones[BF, land] - (1 if land == bounce_land else 0)
        if present <= 0:
            continue
        colours = 0
        mask = K.card[land, C_LAND_COLOURS]
        while mask:
            colours += mask & 1
            mask >>= 1
        key = ((1 if S.zones[TAPPED, land] > 0 else 0) << 20) + ((8 - colours) << 12) + 4095 - n
        if key > best_key:
            chosen, best_key = land, key
    if K.card[chosen, C_IS_SOURCE] and K.card[chosen, C_SOURCE_COST] == 0 and usable(K, S, chosen) > 0:
        S.zones[TAPPED, chosen] += 1  # its mana stays in the pool
        for c in range(K.dims[N_CLASSES]):
            S.pool[c] += K.source_units[chosen, c]
    leave(K, S, chosen)
    card = K.card[chosen, C_FACE_OF] if K.card[chosen, C_FACE_OF] else chosen
    to_hand(K, S, card, ONE)


@njit(cache=True)
def sacrifice_to_search(K, S, kind, land_drop):
    """A land's "{T}, Sacrifice this land: search ..." used at once, where it is untapped and
    the library holds a basic; played as the land drop, a land found tapped is a tapped
    land played."""
    if S.zones[BF, kind] - S.zones[TAPPED, kind] <= 0 or basics_left(K, S) == 0:
        return
    sacrifice(K, S, kind)
    how = K.card[kind, C_FETCH]
    search_basics(K, S, how)
    if land_drop and (how != F_PASSAGE or count(K, S, G_LAND) < 4):
        S.totals[E_TAPPED_LANDS] += 1


@njit(cache=True)
def take_basic(K, S, same_type_as):
    """Choose a basic land in the library (steps 3-5 of the land choice) and take it out (it
    swaps places with the top card); its id, 0 if there is none."""
    n_basics = K.dims[N_BASICS]
    if n_basics == 0:
        return 0
    held = S.work[R_BASIC_HELD]
    anything = False
    for b in range(n_basics):
        kind = group_ids(K, G_BASIC_IDS)[b]
        held[b] = S.zones[LIB_COUNT, kind] > 0
        if same_type_as >= 0:
            held[b] = held[b] and (K.card[kind, C_BASIC_TYPES] & K.card[same_type_as, C_BASIC_TYPES]) != 0
        anything = anything or held[b]
    if not anything:
        return 0
    keys, colours, no_fetch = S.work[R_BASIC_KEYS], S.work[R_BASIC_COLOURS], S.work[R_BASIC_FETCH]
    for b in range(n_basics):
        keys[b] = 0
        no_fetch[b] = 0
        colours[b] = K.card[group_ids(K, G_BASIC_IDS)[b], C_LAND_COLOURS]
    colour_keys(K, S, K.basic_units, colours[:n_basics], no_fetch[:n_basics], keys)
    best, best_key = -1, -1
    for b in range(n_basics):
        if held[b]:
            key = keys[b] + (1 << 20) - b
            if key > best_key:
                best, best_key = b, key
    card = group_ids(K, G_BASIC_IDS)[best]
    # Take one copy out of the library: it swaps places with the top card.
    deal_all(S)
    s, lib = S.slots, S.lib
    width = s[SIZE] + 1
    first = s[TOP] % width
    for p in range(s[TOP], s[END]):
        if lib[p % width] == card:
            lib[p % width] = lib[first]
            lib[first] = card
            break
    s[TOP] += 1
    s[LIB_LANDS] -= 1
    S.zones[LIB_COUNT, card] -= 1
    return card


@njit(cache=True)
def shuffle_library(S):
    """Shuffle the library (after a search); with ``s[SEARCH_REVERSES]`` (the tests'
    stand-in, shared with the vectorised engine's) reverse it instead."""
    deal_all(S)
    s, lib = S.slots, S.lib
    width = s[SIZE] + 1
    top, end = s[TOP], s[END]
    n = end - top
    if s[SEARCH_REVERSES]:
        for i in range(n // 2):
            a, b = (top + i) % width, (end - 1 - i) % width
            lib[a], lib[b] = lib[b], lib[a]
        return
    for i in range(n - 1):
        j = i + below(S.play, n - i)
        a, b = (top + i) % width, (top + j) % width
        lib[a], lib[b] = lib[b], lib[a]


@njit(cache=True)
def enters_land(K, S, kind, tapped):
    """A land enters the battlefield (tapped where ``tapped``) with the enter triggers a land
    can have here: Maps. A land that would explore or make a creature explore when it
    enters is played by the vectorised engine (:func:`~explore_sim.engine.kernel.kernel_problem`),
    so no land's entering starts another explore: the compiled game never recurses."""
    enter(K, S, kind)
    if tapped:
        S.zones[TAPPED, kind] += 1
    if member(K, G_MAPS_ON_ENTER, kind):
        create_maps(K, S, K.card[kind, C_MAPS])


@njit(cache=True)
def enter_found(K, S, card, untap):
    """A basic land found by a search enters tapped (untapped again with ``untap``); a
    basic land has no ability of its own here (:func:`~explore_sim.engine.kernel.kernel_problem`)."""
    if card == 0:
        return
    S.totals[E_LANDS_PUT] += 1
    enters_land(K, S, card, YES)
    if untap:
        S.zones[TAPPED, card] -= 1


@njit(cache=True)
def search_basics(K, S, how):
    """Search the library for basic lands as ``how`` says (Evolving Wilds, Fabled Passage,
    Rampant Growth, Cultivate, District Guide, Myriad Landscape), then shuffle it."""
    if how == F_BASIC_TAPPED or how == F_PASSAGE:
        found = take_basic(K, S, NONE)
        untap = how == F_PASSAGE and count(K, S, G_LAND) + 1 >= 4
        enter_found(K, S, found, untap)
    elif how == F_BASIC_HAND:
        found = take_basic(K, S, NONE)
        if found:
            to_hand(K, S, found, ONE)
    elif how == F_TAPPED_AND_HAND:
        first = take_basic(K, S, NONE)
        second = take_basic(K, S, NONE)
        enter_found(K, S, first, NO)
        if second:
            to_hand(K, S, second, ONE)
    elif how == F_TWO_BASICS:
        first = take_basic(K, S, NONE)
        second = take_basic(K, S, first if first else 0)
        enter_found(K, S, first, NO)
        enter_found(K, S, second, NO)
    shuffle_library(S)


# --------------------------------------------------------------------------------------
# Casting, entering, resolving


@njit(cache=True)
def pay_one(K, S, mode, take_all, skip_kind, skip_copies):
    """Pay ``mode`` (payable now); records mana spent and life paid and returns X."""
    used = S.work[R_PAY_USED]
    life, x = pay_mode(K, S, mode, take_all, skip_kind, skip_copies, used)
    S.totals[E_MANA_SPENT] += total_of(K, used)
    S.totals[E_LIFE_PAID] += life
    return x


@njit(cache=True)
def pay(K, S, modes, n_modes, take_all, skip_kind, skip_copies):
    """Pay the first payable of ``modes[:n_modes]`` (a card's ways to pay, in its order of
    preference); returns X."""
    if n_modes == 1:
        return pay_one(K, S, modes[0], take_all, skip_kind, skip_copies)
    plain, filtered = S.work[R_PAY_PLAIN], S.work[R_PAY_FILTERED]
    for i in range(n_modes):
        n_sets = unit_sets(K, S, plain, filtered, skip_kind, skip_copies)
        if payable_any(K, plain, filtered, n_sets, modes[i]):
            return pay_one(K, S, modes[i], take_all, skip_kind, skip_copies)
    return 0


@njit(cache=True, inline="always")
def can_pay(K, S, mode, skip_kind, skip_copies):
    plain, filtered = S.work[R_CAN_PLAIN], S.work[R_CAN_FILTERED]
    n_sets = unit_sets(K, S, plain, filtered, skip_kind, skip_copies)
    return payable_any(K, plain, filtered, n_sets, mode)


@njit(cache=True)
def cast_pass(K, S):
    """Cast at most one spell: the castable one of highest priority (commanders from the
    command zone with {2} of tax per earlier cast, CR 903.8)."""
    plain, filtered = S.work[R_CAST_PLAIN], S.work[R_CAST_FILTERED]
    n_sets = unit_sets(K, S, plain, filtered, NONE, ZERO)
    available = total_of(K, filtered if n_sets > 1 else plain)
    for kind in group_ids(K, G_PASS_IDS):
        if is_game_commander(K, kind):
            if S.zones[COMMAND, kind] <= 0:
                continue
            slot = K.card[kind, C_COMMANDER_SLOT]
            level = min(S.zones[CASTS, kind], MAX_TAXED_CASTS)
            ok = False
            for option in range(K.commanders[slot, CM_N_TAXED]):
                if payable_any(K, plain, filtered, n_sets, K.taxed[slot, level, option]):
                    ok = True
                    break
            if not ok:
                continue
        else:
            if S.zones[HAND, kind] <= 0 or K.card[kind, C_CHEAPEST] > available:
                continue
            if not castable_kind(K, plain, filtered, n_sets, kind, NO):
                continue
        if K.card[kind, C_IS_X] and available < K.card[kind, C_COST] + 1:  # Jadelight Spelunker: X >= 1
            continue
        if K.card[kind, C_NEEDS_TARGET] and count(K, S, G_CREATURE) == 0:
            continue  # a spell that targets a creature you control needs one
        cast(K, S, kind)
        return True
    return False


@njit(cache=True)
def cast(K, S, kind):
    """Cast ``kind`` (from the command zone for a commander) and resolve it."""
    totals = S.totals
    takes_x = K.card[kind, C_IS_X] != 0
    if is_game_commander(K, kind):
        slot = K.card[kind, C_COMMANDER_SLOT]
        level = min(S.zones[CASTS, kind], MAX_TAXED_CASTS)
        x = pay(K, S, K.taxed[slot, level], K.commanders[slot, CM_N_TAXED], takes_x, NONE, ZERO)
        totals[E_COMMANDER_TAX] += 2 * S.zones[CASTS, kind]
        totals[E_COMMANDER_CAST] += 1
        S.zones[CASTS, kind] += 1
        S.zones[COMMAND, kind] -= 1
    else:
        x = pay(K, S, K.card_modes[kind], K.card[kind, C_N_CARD_MODES], takes_x, NONE, ZERO)
        to_hand(K, S, kind, NONE)
    totals[E_CARDS_CAST] += 1
    if K.card[kind, C_IS_PERMANENT]:
        enters(K, S, kind, x if takes_x else -1, NO)
    else:
        resolve(K, S, kind)


@njit(cache=True, inline="always")
def no_pending(S):
    """The workspace row that says "resolve the explore triggers now" (its first entry is
    -1 and is never written)."""
    return S.work[R_NO_PENDING]


@njit(cache=True)
def enters(K, S, kind, x, tapped):
    """A permanent enters the battlefield (tapped where ``tapped``), then its enter
    triggers in the registry's order."""
    s, totals = S.slots, S.totals
    enter(K, S, kind)
    if tapped:
        S.zones[TAPPED, kind] += 1
    if member(K, G_EACH_TURN_LAND_ON_ENTER, kind):  # Janeway: a land drop this turn too
        s[LAND_DROPS] += 1
        totals[E_EXTRA_LAND_DROPS] += 1
    if member(K, G_MAPS_ON_ENTER, kind):
        create_maps(K, S, K.card[kind, C_MAPS])
    alive = True
    times = (x if x > 0 else 0) if K.card[kind, C_IS_X] else K.card[kind, C_EXPLORES]
    if member(K, G_EXPLORES_ON_ENTER, kind):
        alive = explore_instruction(K, S, kind, times, NO, alive, no_pending(S), YES)
    if member(K, G_TARGET_EXPLORES_ON_ENTER, kind):  # Twists and Turns
        target = pick_creature(K, S, NO)
        if target:
            explore_instruction(K, S, target, times, YES, YES, no_pending(S), NO)
    if K.card[kind, C_IS_CREATURE]:  # Path of Discovery, Janeway: the creature explores
        for _ in range(count(K, S, G_ENTERS_EXPLORER)):
            alive = explore_instruction(K, S, kind, ONE, NO, alive, no_pending(S), YES)
    if member(K, G_BASIC_TO_HAND_ON_ENTER, kind):  # District Guide
        search_basics(K, S, K.card[kind, C_FETCH])


@njit(cache=True)
def resolve(K, S, kind):
    """An instant or sorcery resolves: a targeted explore (nothing at all if the target is
    gone, E9), an extra land drop, a draw, a land search; then the graveyard."""
    s, totals = S.slots, S.totals
    resolved = True
    if member(K, G_SPELL_EXPLORES, kind):
        target = pick_creature(K, S, NO)
        if target:
            resolved = explore_instruction(K, S, target, K.card[kind, C_EXPLORES], YES, YES,
                                           no_pending(S), NO)
        else:
            resolved = False
    if member(K, G_EXTRA_LAND_THIS_TURN, kind) and resolved:
        s[LAND_DROPS] += 1
        totals[E_EXTRA_LAND_DROPS] += 1
    if member(K, G_DRAWS, kind):
        draw(K, S)
    if member(K, G_RAMP, kind):
        search_basics(K, S, K.card[kind, C_FETCH])
    s[GRAVEYARD] += 1


# --------------------------------------------------------------------------------------
# Activated abilities with the mana left (M1-M5)


@njit(cache=True)
def equip(K, S):
    """Attach an unattached Glowcap Lantern for its equip cost when a creature is there."""
    lanterns = group_ids(K, G_LANTERN)
    if len(lanterns) == 0:
        return False
    mode = K.card[lanterns[0], C_ABILITY_COST_MODE]
    s = S.slots
    if count(K, S, G_LANTERN) - s[EQUIPPED] <= 0 or count(K, S, G_CREATURE) <= 0:
        return False
    if not can_pay(K, S, mode, NONE, ZERO):
        return False
    pay_one(K, S, mode, NO, NONE, ZERO)
    s[EQUIPPED] += 1
    return True


@njit(cache=True)
def activate_map(K, S):
    """One Map: {1}, {T}, sacrifice: target creature you control explores (M1-M5, E9)."""
    s = S.slots
    if not K.dims[USE_MAPS] or s[MAPS] <= 0:
        return False
    mode = K.dims[MAP_MODE]
    if not can_pay(K, S, mode, NONE, ZERO):
        return False
    target = pick_creature(K, S, NO)
    if target == 0:
        return False  # M4: no target, no activation
    s[MAPS] -= 1
    pay_one(K, S, mode, NO, NONE, ZERO)
    S.totals[E_MAPS_USED] += 1
    explore_instruction(K, S, target, ONE, YES, YES, no_pending(S), NO)
    return True


@njit(cache=True)
def activate_explore_ability(K, S):
    """Seeker of Sunlight's sorcery-speed "{2}{G}: it explores"."""
    progressed = False
    for kind in group_ids(K, G_SEEKER):
        mode = K.card[kind, C_ABILITY_COST_MODE]
        if S.zones[BF, kind] > 0 and can_pay(K, S, mode, NONE, ZERO):
            pay_one(K, S, mode, NO, NONE, ZERO)
            explore_instruction(K, S, kind, ONE, NO, YES, no_pending(S), NO)
            progressed = True
    return progressed


@njit(cache=True)
def activate_search(K, S):
    """Myriad Landscape's "{2}, {T}, Sacrifice: two basic lands" where the library holds one."""
    progressed = False
    for kind in group_ids(K, G_ACTIVATED_SEARCH):
        mode = K.card[kind, C_ABILITY_COST_MODE]
        if S.zones[BF, kind] - S.zones[TAPPED, kind] > 0 and basics_left(K, S) > 0 \
                and can_pay(K, S, mode, kind, ONE):
            pay_one(K, S, mode, NO, kind, ONE)
            sacrifice(K, S, kind)  # an untapped one: {T} is part of the cost
            search_basics(K, S, K.card[kind, C_FETCH])
            progressed = True
    return progressed


# --------------------------------------------------------------------------------------
# Combat (attacks are unblocked; a mana creature stays back, attacking would tap it)


@njit(cache=True)
def combat(K, S, attackers, crewers):
    """Beginning of combat, attackers, attack triggers and combat damage."""
    n_kinds = K.dims[N_KINDS]
    for kind in group_ids(K, G_COMBAT_EXPLORER):  # Deepfathom Echo
        for _ in range(S.zones[BF, kind]):
            explore_instruction(K, S, kind, ONE, NO, YES, no_pending(S), NO)
    for _ in range(count(K, S, G_HAKBAL)):  # each Merfolk explores, triggers after all (E8)
        pending = S.work[R_HAKBAL_PENDING]
        pending[:3] = 0
        for kind in group_ids(K, G_MERFOLK_IDS):
            for _ in range(S.zones[BF, kind]):
                explore_instruction(K, S, kind, ONE, NO, YES, pending, NO)
        explore_triggers(K, S, pending[0], pending[1], pending[2])
    animated = 0
    for kind in group_ids(K, G_ANCHORAGE):  # Restless Anchorage, animated from other mana
        mode = K.card[kind, C_ABILITY_COST_MODE]
        if S.zones[BF, kind] - S.zones[SICK, kind] - S.zones[TAPPED, kind] > 0 and can_pay(K, S, mode, kind, ONE):
            pay_one(K, S, mode, NO, kind, ONE)
            S.zones[TAPPED, kind] += 1  # it attacks
            animated += 1
    for kind in range(n_kinds):
        attackers[kind] = 0
        if K.card[kind, C_IS_CREATURE] and not K.card[kind, C_IS_SOURCE]:
            ready = S.zones[BF, kind] if K.card[kind, C_HAS_HASTE] else S.zones[BF, kind] - S.zones[SICK, kind]
            attackers[kind] = max(ready - S.zones[TAPPED, kind], 0)
    n_crewers = 0
    for kind in group_ids(K, G_SCHOONER):  # crewed by a creature, a summoning-sick one first
        if S.zones[BF, kind] - S.zones[SICK, kind] > 0:
            crewer = pick_creature(K, S, YES)
            if crewer:
                if attackers[crewer] > 0:
                    attackers[crewer] -= 1
                crewers[n_crewers] = crewer
                n_crewers += 1
    # Attack triggers, in the registry's order.
    for kind in group_ids(K, G_ATTACK_MAP):
        create_maps(K, S, attackers[kind] * K.card[kind, C_MAPS])
    create_maps(K, S, animated)
    for kind in group_ids(K, G_ATTACK_EXPLORER):
        for _ in range(attackers[kind]):
            explore_instruction(K, S, kind, ONE, NO, YES, no_pending(S), NO)
    for kind in group_ids(K, G_PARLEY):
        for _ in range(attackers[kind]):
            parley(K, S)
    for i in range(n_crewers):
        explore_instruction(K, S, crewers[i], ONE, YES, YES, no_pending(S), NO)
    for kind in group_ids(K, G_ATTACK_LAND):  # Hakbal: a land from hand, else a card
        for _ in range(attackers[kind]):
            if not put_land(K, S, NO):
                draw(K, S)
    attacking = attackers.sum()
    if attacking > 0:  # Glowcap Lantern: the first attacker carries it
        first = 0
        for kind in range(n_kinds):
            if attackers[kind] > 0:
                first = kind
                break
        for _ in range(min(S.slots[EQUIPPED], attacking)):
            explore_instruction(K, S, first, ONE, NO, YES, no_pending(S), NO)
    for kind in group_ids(K, G_DAMAGE_EXPLORER):  # Emperor's Vanguard, unblocked
        for _ in range(min(attackers[kind], S.zones[BF, kind])):
            explore_instruction(K, S, kind, ONE, NO, YES, no_pending(S), NO)
    S.pool[:] = 0  # mana empties


@njit(cache=True)
def parley(K, S):
    """Storm Fleet Negotiator: each player reveals the top card, a Map per nonland, then
    each player draws."""
    mine = peek(K, S)
    theirs = 1 if uniform(S.play) >= K.fdims[1] else 0
    create_maps(K, S, K.card[mine, C_IS_NONLAND] + theirs)
    draw(K, S)


# --------------------------------------------------------------------------------------
# Phases and turns


@njit(cache=True)
def record_main_phase(K, S):
    """``mana_available``, ``colour_screwed`` and ``castable:CARD`` after the land drop,
    before any spell."""
    plain, filtered = S.work[R_RECORD_PLAIN], S.work[R_RECORD_FILTERED]
    n_sets = unit_sets(K, S, plain, filtered, NONE, ZERO)
    total = total_of(K, filtered if n_sets > 1 else plain)
    main = S.main
    main[0] = total
    screwed = 0
    for kind in range(1, K.dims[N_KINDS]):
        if S.zones[HAND, kind] > 0 and K.card[kind, C_IS_CAST] and K.card[kind, C_CHEAPEST] <= total:
            if not castable_kind(K, plain, filtered, n_sets, kind, NO):
                screwed = 1
                break
    main[1] = screwed
    for j in range(K.dims[N_CASTABLE]):
        ok = 0
        for i in range(K.castable_modes[j, 0]):
            if payable_any(K, plain, filtered, n_sets, K.castable_modes[j, 1 + i]):
                ok = 1
                break
        main[2 + j] = ok


@njit(cache=True)
def main_phase(K, S, second):
    """Play lands and cast until nothing changes; in the second, Maps and abilities too.
    The first main phase takes its metrics after the land drop."""
    for step in range(MAX_ACTIONS):
        progressed = play_land(K, S)
        if step == 0 and not second:
            record_main_phase(K, S)
        if cast_pass(K, S):
            progressed = True
        if not progressed:
            progressed = equip(K, S)
        if second:
            if not progressed:
                progressed = activate_map(K, S)
            if not progressed:
                progressed = activate_explore_ability(K, S)
            if not progressed:
                progressed = activate_search(K, S)
        if not progressed:
            break
    S.pool[:] = 0  # mana empties at the end of the phase


@njit(cache=True)
def untap_and_draw(K, S):
    s = S.slots
    s[TURN] += 1
    S.zones[SICK, :] = 0
    S.zones[TAPPED, :] = 0
    S.pool[:] = 0
    extra = count(K, S, G_EACH_TURN_LAND)  # Janeway: an additional land each turn
    s[LAND_DROPS] = 1 + extra
    S.totals[E_EXTRA_LAND_DROPS] += extra
    s[PLAYED_LAND] = 0
    if s[TURN] == 1:  # commanders start in the command zone
        for slot in range(K.dims[N_COMMANDERS]):
            S.zones[COMMAND, group_ids(K, G_COMMANDER_IDS)[slot]] = 1
    # The player on the play skips the first draw, except in a multiplayer Commander game.
    if s[TURN] > 1 or not K.dims[ON_PLAY] or K.dims[IS_COMMANDER]:
        draw(K, S)


@njit(cache=True)
def cleanup(K, S, discard_order):
    """Discard down to the hand limit: the most expensive spells first (of two that cost the
    same, not a mana source), lands last, then by id."""
    excess = S.zones[HAND].sum() - K.dims[HAND_LIMIT]
    if excess <= 0:
        return
    for kind in discard_order:
        dropping = min(excess, S.zones[HAND, kind])
        if dropping > 0:
            to_hand(K, S, kind, -dropping)
            S.slots[GRAVEYARD] += dropping
            excess -= dropping
        if excess <= 0:
            return


@njit(cache=True)
def turn_metrics(K, S, out):
    """This turn's metrics in :data:`~.pack.METRICS` order (then the castable cards)."""
    totals, main, s = S.totals, S.main, S.slots
    lands = count(K, S, G_LAND)
    for m in range(len(METRIC_EVENT)):  # event counters, cumulative from the start
        if METRIC_EVENT[m] >= 0:
            out[m] = totals[METRIC_EVENT[m]]
    out[M_LANDS_PLAYED] = lands
    out[M_ON_CURVE] = 1 if lands >= s[TURN] else 0
    out[M_LAND_DROP] = s[PLAYED_LAND]
    out[M_COUNTERS] = totals[E_EXPLORE_COUNTERS] + totals[E_TRIGGER_COUNTERS]
    out[M_CREATURES] = count(K, S, G_CREATURE)
    out[M_HAND_SIZE] = S.zones[HAND].sum()
    out[M_MANA_AVAILABLE] = main[0]
    out[M_COLOUR_SCREWED] = main[1]
    for j in range(K.dims[N_CASTABLE]):
        out[len(METRIC_EVENT) + j] = main[2 + j]


@njit(cache=True, inline="always")
def play_turn(K, S, discard_order, attackers, crewers):
    untap_and_draw(K, S)
    main_phase(K, S, NO)
    combat(K, S, attackers, crewers)
    main_phase(K, S, YES)
    cleanup(K, S, discard_order)


# --------------------------------------------------------------------------------------
# Opening hands (the London mulligan with Karsten's keep and bottom rule) and whole games

HAND_SIZE = 7


@njit(cache=True)
def bottom(K, hand, bottoms, out):
    """Karsten's bottom rule on ``hand`` (counts, changed): ``bottoms`` cards into ``out``,
    spells first, the most expensive (of two that cost the same, not a mana source), else
    the land kind held most; for mulligans a spell // land card counts as a land."""
    n_kinds = K.dims[N_KINDS]
    lands = 0
    total = 0
    for kind in range(n_kinds):
        total += hand[kind]
        if K.card[kind, C_IS_LAND] or K.card[kind, C_IS_LAND_LIKE]:
            lands += hand[kind]
    spells = total - lands
    if bottoms == 0:
        return
    if bottoms == 1:
        spell_bottoms = 1 if spells >= 3 else 0
    elif bottoms == 2:
        spell_bottoms = 2 if spells >= 4 else (1 if spells == 3 else 0)
    else:  # toward 3 lands and 1 spell in the kept hand
        keep = total - bottoms
        lands_kept = min(lands, 3)
        spells_kept = min(keep - lands_kept, spells)
        spell_bottoms = spells - spells_kept
    for j in range(bottoms):
        choice, best = 0, -(1 << 30)
        for kind in range(n_kinds):
            as_land = K.card[kind, C_IS_LAND] or K.card[kind, C_IS_LAND_LIKE]
            if j < spell_bottoms:
                if hand[kind] > 0 and kind > 0:
                    value = -1 if as_land else 2 * K.card[kind, C_COST] + (0 if K.card[kind, C_IS_SOURCE] else 1)
                else:
                    value = -2
            else:
                value = hand[kind] if (as_land and hand[kind] > 0) else -1
            if value > best:
                choice, best = kind, value
        if hand[choice] > 0:
            hand[choice] -= 1
            out[j] = choice


@njit(cache=True)
def _splitmix(x):
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def seed_stream(rng, key, game, tag):
    """Seed ``rng`` for stream ``tag`` of game ``game`` of the chunk keyed ``key``: every
    game and stream gets its own numbers, so games are independent and a game's deal does
    not depend on how far earlier games read."""
    mix = _splitmix(np.uint64(game) * np.uint64(0x100000001B3) + np.uint64(tag))
    for i in range(4):
        rng[i] = _splitmix(key[i] ^ mix ^ np.uint64(i))
    if rng[0] == 0 and rng[1] == 0 and rng[2] == 0 and rng[3] == 0:
        rng[0] = np.uint64(1)


@njit(cache=True)
def start_game(K, S, deck, counts):
    """An empty game with the whole deck in the library (not yet dealt)."""
    s = S.slots
    for i in range(len(s)):
        if i != SIZE and i != SEARCH_REVERSES:
            s[i] = 0
    S.zones[HAND, :] = 0
    S.zones[BF, :] = 0
    S.zones[SICK, :] = 0
    S.zones[TAPPED, :] = 0
    S.zones[COMMAND, :] = 0
    S.zones[CASTS, :] = 0
    S.perm[:] = 0
    S.pool[:] = 0
    S.totals[:] = 0
    S.main[:] = 0
    size = s[SIZE]
    for p in range(size):
        S.lib[p] = deck[p]
    S.lib[size] = 0
    s[END] = size
    for kind in range(K.dims[N_KINDS]):
        S.zones[LIB_COUNT, kind] = counts[kind]


@njit(cache=True)
def keep_hand(K, S, deck, counts, key, game, kind, free_first, max_mulligans, bottomed):
    """Deal and mulligan until a hand is kept; returns the mulligans taken. Every attempt
    is a fresh shuffle of the whole deck from its own stream."""
    s, lib = S.slots, S.lib
    size = s[SIZE]
    drawn = min(HAND_SIZE, size)
    if size < HAND_SIZE:
        kind = 0
    for attempt in range(max_mulligans + 1):
        for p in range(size):
            lib[p] = deck[p]
        s[DEALT] = 0
        seed_stream(S.deal, key, game, 2 * attempt + 2)
        deal_to(S, drawn - 1)
        S.zones[HAND, :] = 0
        for p in range(drawn):
            S.zones[HAND, lib[p]] += 1
        bottoms = max(0, attempt - (1 if free_first and attempt > 0 else 0))
        bottomed[:] = 0
        bottom(K, S.zones[HAND], bottoms, bottomed)
        if attempt == max_mulligans or kind == 0:
            keep = True
        else:
            lands = 0
            for c in range(K.dims[N_KINDS]):
                if K.card[c, C_IS_LAND] or K.card[c, C_IS_LAND_LIKE]:
                    lands += S.zones[HAND, c]
            most = 5 if drawn - bottoms >= HAND_SIZE else 4
            keep = 2 <= lands <= most
        if keep:
            width = size + 1
            for j in range(bottoms):  # bottomed cards go under the library, in order
                lib[(size + j) % width] = bottomed[j]
            s[TOP] = drawn
            s[END] = size + bottoms
            return attempt
    return max_mulligans


@njit(cache=True)
def settle_library(K, S, counts):
    """The library's composition from the deck less the hand."""
    s = S.slots
    s[LIB_LANDS] = 0
    s[HAND_LANDS] = 0
    S.lib_pips[:] = 0
    for kind in range(K.dims[N_KINDS]):
        left = counts[kind] - S.zones[HAND, kind]
        S.zones[LIB_COUNT, kind] = left
        s[LIB_LANDS] += left * K.card[kind, C_IS_LAND]
        s[HAND_LANDS] += S.zones[HAND, kind] * K.card[kind, C_IS_LAND]
        for k in range(5):
            S.lib_pips[k] += left * K.pips[kind, k]


@njit(cache=True)
def play_chunk(tables, programs, arrays, deck, key, mulligan, discard_order, out, opening,
               given):
    """Play ``len(out)`` games: ``out[game, turn - 1, metric]`` and ``opening[game]``
    (mulligans, hand size, lands in the opening hand) are written.

    ``tables`` is the packed :class:`~.pack.KernelTables`, ``programs`` the policies'
    bytecode (:mod:`.bytecode`), ``arrays`` the state's (:func:`~.state.new_state`); they
    are read as the records of :mod:`.structs`. ``mulligan`` is (kind: 0 none,
    1 London; free first; most mulligans). ``given`` is
    empty, or (as in the tests) the opening hands of the vectorised engine for every game:
    ``(library (games, size + 1), top, end, hand (games, n_kinds), mulligans)``, played as
    they are, a search then reversing the library instead of shuffling it.
    """
    K, S = as_tables(tables, programs), as_state(arrays)
    n_kinds, size, turns = K.dims[N_KINDS], len(deck), K.dims[TURNS]
    games = out.shape[0]
    counts = S.work[R_COUNTS]
    counts[:] = 0
    for card in deck:
        counts[card] += 1
    S.slots[SEARCH_REVERSES] = 1 if len(given[0]) else 0
    attackers, crewers, bottomed = S.work[R_ATTACKERS], S.work[R_CREWERS], S.work[R_BOTTOMED]
    row = S.work[R_METRICS_ROW]
    for game in range(games):
        start_game(K, S, deck, counts)
        seed_stream(S.play, key, game, ONE)
        if len(given[0]):
            libs, tops, ends, hands, mulls = given
            for p in range(size + 1):
                S.lib[p] = libs[game, p]
            S.slots[TOP], S.slots[END], S.slots[DEALT] = tops[game], ends[game], size
            for kind in range(n_kinds):
                S.zones[HAND, kind] = hands[game, kind]
            taken = mulls[game]
        else:
            taken = keep_hand(K, S, deck, counts, key, game, mulligan[0], mulligan[1] != 0,
                              mulligan[2], bottomed)
        settle_library(K, S, counts)
        opening[game, 0] = taken
        opening[game, 1] = S.zones[HAND].sum()
        lands = 0
        for kind in group_ids(K, G_LAND_IDS):
            lands += S.zones[HAND, kind]
        opening[game, 2] = lands
        for turn in range(turns):
            play_turn(K, S, discard_order, attackers, crewers)
            turn_metrics(K, S, row)
            for m in range(out.shape[2]):
                out[game, turn, m] = row[m]
