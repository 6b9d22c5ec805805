"""The compiled game's numbering: slots of the packed tables, groups, event counters, metrics,
the cards layer's codes and the policy bytecode's fields and operations, as typed constants."""

from __future__ import annotations

import numpy as np

from ...cards.features import TAPPED_RULES
from .pack import DIMS, EVENTS, FETCH, FETCH_WHEN, GROUPS, LAND_ENTERS, METRICS
from .pack import G_BASIC_IDS as BASIC_IDS_SLOT
from .pack import G_COMMANDER_IDS as COMMANDER_IDS_SLOT
from .pack import G_LAND_IDS as LAND_IDS_SLOT
from .pack import G_MERFOLK_IDS as MERFOLK_IDS_SLOT
from .pack import G_PASS_IDS as PASS_IDS_SLOT

# Slots of K.dims.
(N_KINDS, N_CLASSES, N_MASKS, N_MODES, N_DECK, N_OPTIONS, N_BASICS, N_PROFILES, N_CASTABLE,
 HAS_FILTERS, TIES, USE_LOOKUP, CAP, MAP_MODE, HAND_LIMIT, TURNS, ON_PLAY, IS_COMMANDER,
 TWISTS_FIRST, USE_MAPS, N_GROUPS, N_SOURCES, N_COMMANDERS, MAX_TAXED, SPELL_FACES,
 CASTABLE_LANDS, LIFE, CASTABLE_CHEAPEST, CASTABLE_KEYS, TOTAL_KEY_CAP,
 TOTAL_KEY_STRIDE) = range(len(DIMS))
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
 E_LIFE_PAID, E_TAPPED_LANDS, E_COMMANDER_CAST, E_COMMANDER_TAX, E_DAMAGE) = (
    EVENTS.index(e) for e in (
    "explores", "explore_counters", "trigger_counters", "explore_lands", "milled", "scries",
    "maps_created", "maps_used", "mana_spent", "cards_cast", "life_gained", "cave_diver_pumps",
    "chupacabra_triggers", "nicanzil_lands", "lands_put", "explorers_removed",
    "extra_land_drops", "decked", "life_paid", "tapped_lands_played", "commander_cast",
    "commander_tax_paid", "damage"))
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
 M_MANA_AVAILABLE, M_COLOUR_SCREWED, M_OPPONENT_DEAD, M_DAMAGE) = (METRICS.index(m) for m in (
    "lands_played", "on_curve", "land_drop", "counters", "creatures", "hand_size",
    "mana_available", "colour_screwed", "opponent_dead", "damage"))
G_MERFOLK_IDS, G_LAND_IDS, G_BASIC_IDS, G_COMMANDER_IDS, G_PASS_IDS = (np.int64(slot) for slot in (
    MERFOLK_IDS_SLOT, LAND_IDS_SLOT, BASIC_IDS_SLOT, COMMANDER_IDS_SLOT, PASS_IDS_SLOT))
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
 OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_JUMP_UNLESS, OP_JUMP_IF,
 OP_TRUTH, OP_COMPARE_FIELD) = range(22)
