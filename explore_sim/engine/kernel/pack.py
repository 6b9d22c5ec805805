"""The deck tables as flat arrays for the compiled game, and the game's options as numbers.

:func:`pack` turns a :class:`~explore_sim.engine.tables.DeckTables` (and the game's
:class:`~explore_sim.engine.config.GameConfig`) into :class:`KernelTables`, a named tuple of
NumPy arrays that the compiled functions of :mod:`.game` read: ragged Python lists become
padded arrays with a count beside them, codes become small integers. Nothing here is
compiled; it runs once per deck and options (the result is cached).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from ...cards.features import (
    FETCH_CODES,
    FETCH_WHEN_CODES,
    LAND_ENTERS_CODES,
    TAPPED_RULES,
)
from ..config import GameConfig, starting_life
from ..metrics import EVENT_METRICS, TURN_METRICS
from ..tables import DeckTables

__all__ = [
    "DIMS",
    "EVENTS",
    "FETCH",
    "FETCH_WHEN",
    "GROUPS",
    "LAND_ENTERS",
    "MAIN_METRICS",
    "METRICS",
    "TAPPED",
    "KernelTables",
    "pack",
]

#: The ability groups the compiled game reads, by slot (``K.gi[slot]`` is the group's column in
#: ``K.members``, -1 when the deck's tables have no such group).
GROUPS = ("land", "creature", "source", "tracker", "twists", "helm", "each_turn_land",
          "each_turn_land_on_enter", "maps_on_enter", "explores_on_enter",
          "target_explores_on_enter", "enters_explorer", "basic_to_hand_on_enter",
          "spell_explores", "extra_land_this_turn", "draws", "ramp", "lantern", "seeker",
          "activated_search", "combat_explorer", "hakbal", "anchorage", "schooner",
          "attack_map", "attack_explorer", "parley", "attack_land", "damage_explorer",
          "walker", "caravel", "cave_diver", "chupacabra", "nicanzil")
#: Event counters (:data:`~explore_sim.engine.metrics.EVENT_METRICS`), by slot.
EVENTS = EVENT_METRICS
#: The per-turn metrics, in :data:`~explore_sim.engine.metrics.TURN_METRICS` order.
METRICS = tuple(TURN_METRICS)
#: Metrics taken in the first main phase (then one per castable card; with
#: ``castable_lands``, then ``main_lands`` and one ``castable_lands:CARD`` per castable card).
MAIN_METRICS = ("mana_available", "colour_screwed")
#: Slots of ``K.dims`` (the deck's sizes and the game's options as integers).
DIMS = ("n_kinds", "n_classes", "n_masks", "n_modes", "n_deck", "n_options", "n_basics",
        "n_profiles", "n_castable", "has_filters", "has_generic_ties", "use_lookup", "cap",
        "map_mode", "hand_limit", "turns", "on_play", "is_commander", "twists_first",
        "use_maps", "n_groups", "n_sources", "n_commanders", "max_taxed", "spell_faces",
        "castable_lands", "life", "castable_cheapest", "castable_keys", "total_key_cap",
        "total_key_stride")
#: Codes of the fetch, land-entering and enters-tapped arrays, as the cards layer numbers them.
FETCH, FETCH_WHEN, TAPPED, LAND_ENTERS = FETCH_CODES, FETCH_WHEN_CODES, TAPPED_RULES, \
    LAND_ENTERS_CODES

_FIELDS = ("dims", "fdims", "card", "pips", "source_units", "source_cover", "source_colours",
           "members", "kind_groups", "card_modes", "gi",
           "group_ids", "group_n", "classes", "intersects", "modes", "req", "pips_of",
           "rest_req", "cand", "sources", "s_units", "lookup", "taxed", "commanders",
           "castable_modes", "options", "opt_units", "basic_units", "opt_cover",
           "basic_cover", "profiles", "id_sets", "castable_by_key")
#: The deck's tables for the compiled game (see :func:`pack` for every field). Few arrays,
#: with named columns, so that compiled functions taking them compile quickly.
KernelTables = namedtuple("KernelTables", _FIELDS)

#: Columns of ``K.card`` (one row per card id).
CARD_COLUMNS = ("is_land", "is_creature", "is_permanent", "is_nonland", "is_card", "is_source",
                "has_haste", "is_land_like", "cost", "explores", "is_x", "maps", "fetch",
                "fetch_when", "land_enters", "tapped_rule", "tapped_arg", "basic_types",
                "face_of", "power", "toughness", "source_cost", "cheapest", "n_card_modes",
                "needs_target", "ability_cost_mode", "is_cast", "commander_slot",
                "land_colours", "hand_profile", "n_groups", "pass_rank")
#: Columns of ``K.classes`` (one row per unit class), then its colours W U B R G.
CLASS_COLUMNS = ("class_mask", "class_pain", "generic_order", "flexibility", "generic_rank",
                 "strides", "key_cap", "key_stride", "colours")
#: Columns of ``K.modes`` (one row per way to pay), of ``K.pips_of`` (per mode and pip),
#: ``K.options`` (per land option, then its units in ``K.opt_units``), ``K.sources`` (in
#: tapping order), ``K.commanders`` and ``K.profiles`` (then the pips W U B R G, then the
#: mode indices).
MODE_COLUMNS = ("total", "life", "generic", "n_pips", "mode_card")
PIP_COLUMNS = ("pip_mask", "rest_total", "n_cand")
OPTION_COLUMNS = ("card", "kind", "spell_face", "bounce", "fetch", "passage", "colours",
                  "tiebreak", "rule", "arg")
SOURCE_COLUMNS = ("kind", "cost")
COMMANDER_COLUMNS = ("n_taxed", "commander_profile")
PROFILE_COLUMNS = ("prof_n", "castable_profiles", "pips")
#: Rows of ``K.id_sets``: fixed sets of card ids, as bits (:mod:`.bits`): creatures, creatures
#: that attack (not mana sources: attacking would tap them), spells the casting order casts,
#: cast spells whose colours the land choice weighs (a hand profile) and the cards of the
#: land options.
ID_SETS = ("creature_ids", "attacker_ids", "cast_ids", "profiled_ids", "option_card_ids")
#: Rows of ``K.group_ids`` after the ability groups' (their slots follow :data:`GROUPS`).
ID_LISTS = ("merfolk_ids", "land_ids", "basic_ids", "commander_ids", "pass_ids")


def words_for(n: int) -> int:
    """uint64 words in a row of bits holding ``n`` members (:mod:`.bits`; at least one)."""
    return max(1, -(-n // 64))


def as_rows(sets: list[np.ndarray], n: int) -> np.ndarray:
    """Boolean arrays of length ``n`` as rows of bits (:mod:`.bits`): (len(sets),
    words_for(n)) uint64."""
    return _bit_rows(np.array([np.asarray(members, dtype=bool) for members in sets],
                              dtype=bool).reshape(len(sets), n))


def _bit_rows(members: np.ndarray) -> np.ndarray:
    """A (rows, n) boolean array as rows of bits: (rows, words_for(n)) uint64."""
    rows, n = members.shape
    padded = np.zeros((rows, words_for(n) * 64), dtype=bool)
    padded[:, :n] = members
    return np.ascontiguousarray(
        np.packbits(padded, axis=1, bitorder="little").view("<u8").astype(np.uint64))


def _padded(rows: list[list[int]], dtype: type = np.int32, fill: int = -1,
            width: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Ragged lists as a (len(rows), width) array padded with ``fill``, and their lengths."""
    width = max([len(r) for r in rows] + [1]) if width is None else width
    out = np.full((max(len(rows), 1), width), fill, dtype=dtype)
    for i, row in enumerate(rows):
        out[i, : len(row)] = row
    return out, np.array([len(r) for r in rows] or [0], dtype=np.int32)


def _array(values, dtype=np.int32) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(values), dtype=dtype)


def _pip_arrays(mana) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every way to pay: its pips in paying order and the candidate classes of each pip.

    Returns ``pips_of`` of shape (n_modes, max_pips, 3) (:data:`PIP_COLUMNS`), ``rest_req``
    of shape (n_modes, max_pips, n_masks) and ``cand`` of shape (n_modes, max_pips,
    n_classes): each candidate class shifted left by one, its low bit set when it is safe.
    """
    modes, n_masks, n_classes = mana.modes, len(mana.masks), mana.n_classes
    n_modes, max_pips = len(modes), max([len(m.pips) for m in modes] + [1])
    pip_mask = np.zeros((n_modes, max_pips), dtype=np.int64)
    rest_req = np.zeros((n_modes, max_pips, max(n_masks, 1)), dtype=np.int64)
    rest_total = np.zeros((n_modes, max_pips), dtype=np.int64)
    n_cand = np.zeros((n_modes, max_pips), dtype=np.int64)
    cand = np.zeros((n_modes, max_pips, max(n_classes, 1)), dtype=np.int64)
    for m, mode in enumerate(modes):
        for i, pip in enumerate(mode.pips):
            pip_mask[m, i] = pip
            req, total = mana.rest[m][i]
            rest_req[m, i, :n_masks] = req
            rest_total[m, i] = total
            for k, (c, safe) in enumerate(mana.pip_candidates[pip]):
                cand[m, i, k] = (c << 1) | int(safe)
            n_cand[m, i] = len(mana.pip_candidates[pip])
    return np.stack([pip_mask, rest_total, n_cand], axis=2), rest_req, cand


def _class_table(mana, keys: tuple) -> np.ndarray:
    """Per mana class (:data:`CLASS_COLUMNS`, the key caps and strides from ``keys``:
    :func:`castability_keys`), then its five colours: (n_classes, 13)."""
    n = len(CLASS_COLUMNS) - 1
    classes = np.zeros((max(mana.n_classes, 1), n + 5), dtype=np.int64)
    if mana.n_classes:
        key_cap, key_stride, _, _ = keys
        classes[:mana.n_classes, :n] = np.stack([
            mana.class_mask, mana.class_pain, np.asarray(mana.generic_order), mana.flexibility,
            mana.generic_rank, mana.strides, key_cap, key_stride], axis=1)
        classes[:mana.n_classes, n:] = mana.class_colours
    return classes


#: The most rows ``K.castable_by_key`` may have; a deck whose castability keys are more
#: tests its spells' ways to pay one by one.
CASTABLE_KEY_LIMIT = 1 << 18


def castability_keys(mana) -> tuple[np.ndarray, np.ndarray, int, int]:
    """How an amount of units maps to its row of ``K.castable_by_key``
    (:func:`~.mana.castable_key`): each class capped at the most pips that any way to pay
    asks of a mask the class meets, the total capped at the largest mana value of a way to
    pay, as one mixed-radix number (class 0 fastest, the total slowest).

    Capping changes no answer of the exact test: a class holding at least its cap covers by
    itself every mask it meets, so the masks' cover is met with or without the excess, and
    the total is only compared with mana values.

    Returns
    -------
    key_cap, key_stride : ndarray of int64, shape (n_classes,)
    total_cap, total_stride : int
        The strides are 0 when there would be more than :data:`CASTABLE_KEY_LIMIT` keys
        (their number is counted in Python integers, which do not overflow).
    """
    n_classes, n_masks = mana.n_classes, len(mana.masks)
    req = np.asarray(mana.req, dtype=np.int64).reshape(len(mana.modes), n_masks)
    meets = np.asarray(mana.intersects, dtype=np.int64).reshape(n_classes, n_masks) > 0
    most = req.max(axis=0, initial=0)  # the most pips a way to pay asks of each mask
    key_cap = [int(most[meets[c]].max(initial=0)) for c in range(n_classes)]
    total_cap = int(np.asarray(mana.total).max(initial=0))
    key_stride = [math.prod(cap + 1 for cap in key_cap[:c]) for c in range(n_classes)]
    total_stride = math.prod(cap + 1 for cap in key_cap)
    if total_stride * (total_cap + 1) > CASTABLE_KEY_LIMIT:
        key_stride, total_stride = [0] * n_classes, 0
    return (np.array(key_cap, dtype=np.int64), np.array(key_stride, dtype=np.int64),
            total_cap, total_stride)


def _taxed_modes(tables: DeckTables) -> tuple[np.ndarray, np.ndarray]:
    """A commander's ways to pay by times cast: ``taxed`` of shape (n_commanders, max_taxed,
    max_options) (-1 past the end) and the number of ways at the first cast, (n_commanders,)."""
    taxed_rows = [tables.mana.taxed_modes[k] for k in tables.commander_ids.tolist()]
    max_taxed = max([len(levels) for levels in taxed_rows] + [1])
    max_opts = max([len(level) for levels in taxed_rows for level in levels] + [1])
    taxed = np.full((max(len(taxed_rows), 1), max_taxed, max_opts), -1, dtype=np.int64)
    n_taxed = np.zeros(max(len(taxed_rows), 1), dtype=np.int64)
    for slot, levels in enumerate(taxed_rows):
        for level, options in enumerate(levels):
            taxed[slot, level, : len(options)] = options
        n_taxed[slot] = len(levels[0])
    return taxed, n_taxed


def _colour_profiles(tables: DeckTables) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The land choice's colour needs: each card's profile (n_kinds,), each commander's
    (n_commanders,), -1 for none, and the profiles' table (n_profiles, 7 + max_modes)."""
    needs, casting = tables.colour_needs, tables.casting
    prof_modes, prof_n = _padded([list(m) for m in needs.profile_modes])
    hand_profile = np.full(tables.n_kinds, -1, dtype=np.int64)
    for row, kind in enumerate(casting.cast_ids.tolist()):
        hot = np.flatnonzero(needs.hand_profiles[row])
        hand_profile[kind] = hot[0] if hot.size else -1
    commander_profile = np.full(max(len(tables.commander_ids), 1), -1, dtype=np.int64)
    for slot in range(len(tables.commander_ids)):
        hot = np.flatnonzero(needs.commander_profiles[slot])
        commander_profile[slot] = hot[0] if hot.size else -1
    profiles = np.zeros((max(needs.n_profiles, 1), 2 + 5 + prof_modes.shape[1]), dtype=np.int64)
    if needs.n_profiles:
        profiles[:, 0] = prof_n
        profiles[:, 1] = needs.castable_profiles
        profiles[:, 2:7] = needs.pips
        profiles[:, 7:] = prof_modes
    return hand_profile, commander_profile, profiles


def _dims(tables: DeckTables, config: GameConfig, max_taxed: int, keys: tuple) -> np.ndarray:
    """The deck's sizes and the game's options as integers, in :data:`DIMS` order (``keys``:
    :func:`castability_keys`)."""
    mana, options = tables.mana, tables.lands
    _, _, total_cap, total_stride = keys
    dims = {
        "n_kinds": tables.n_kinds, "n_classes": mana.n_classes, "n_masks": len(mana.masks),
        "n_modes": len(mana.modes), "n_deck": int(tables.features.n_deck),
        "n_options": len(options.card), "n_basics": len(tables.basic_ids),
        "n_profiles": tables.colour_needs.n_profiles, "n_castable": len(tables.castable_cards),
        "has_filters": int(mana.has_filters), "has_generic_ties": int(mana.has_generic_ties),
        "use_lookup": int(mana.lookup is not None), "cap": int(mana.cap),
        "map_mode": int(mana.cost_mode["{1}"]), "hand_limit": int(config.hand_limit),
        "turns": int(config.turns), "on_play": int(config.on_play),
        "is_commander": int(tables.is_commander),
        "twists_first": int(config.replacement_order == "twists-first"),
        "use_maps": int(config.use_maps), "n_groups": len(tables.groups),
        "n_sources": len(mana.source_ids), "n_commanders": len(tables.commander_ids),
        "max_taxed": max_taxed,
        "spell_faces": {"when-needed": 0, "always": 1, "never": 2}[config.land_faces],
        "castable_lands": int(config.castable_lands),
        "life": starting_life(config, tables.is_commander),
        "castable_cheapest": int(tables.castable_cheapest),
        "castable_keys": int(_n_castable_keys(tables, keys) > 0),
        "total_key_cap": total_cap, "total_key_stride": total_stride,
    }
    return np.array([dims[d] for d in DIMS], dtype=np.int64)


def _kind_groups(members: np.ndarray) -> np.ndarray:
    """Each card id's groups (the nonzero columns of its row of ``members``), padded with
    -1: (n_kinds, most groups of a card), so that a permanent entering or leaving counts
    only its own groups."""
    rows = [np.flatnonzero(row).tolist() for row in members]
    return _padded(rows, np.int64)[0]


def _card_table(tables: DeckTables, hand_profile: np.ndarray, n_card_modes: np.ndarray
                ) -> np.ndarray:
    """One row per card id, :data:`CARD_COLUMNS`: (n_kinds, len(CARD_COLUMNS))."""
    f, casting, n = tables.features, tables.casting, tables.n_kinds
    is_cast = np.zeros(n, dtype=np.int64)
    is_cast[casting.cast_ids] = 1
    commander_slot = np.full(n, -1, dtype=np.int64)
    for slot, kind in enumerate(tables.commander_ids.tolist()):
        commander_slot[kind] = slot
    pass_rank = np.full(n, -1, dtype=np.int64)  # place in the casting order, -1: never cast
    pass_rank[casting.pass_ids] = np.arange(len(casting.pass_ids))
    return np.ascontiguousarray(np.stack([_array(v, np.int64) for v in (
        f.is_land, f.is_creature, f.is_permanent, f.is_nonland, f.is_card, f.is_source,
        f.has_haste, f.is_land_like, tables.cost, f.explores,
        np.isin(np.arange(n), tables.x_ids), f.maps, f.fetch, f.fetch_when, f.land_enters,
        f.tapped_rule, f.tapped_arg, f.basic_types, f.face_of, f.power, f.toughness,
        f.source_cost, casting.cheapest, n_card_modes, _needs_target(tables),
        tables.ability_cost_mode, is_cast, commander_slot, tables.land_colours, hand_profile,
        (tables.members != 0).sum(axis=1), pass_rank)],
        axis=1))


def pack(tables: DeckTables, config: GameConfig) -> KernelTables:
    """The arrays of ``tables`` and the options of ``config`` for the compiled game.

    Parameters
    ----------
    tables : DeckTables
    config : GameConfig

    Returns
    -------
    KernelTables
        Per-card arrays indexed by card id, the mana model (every way to pay, its exact
        test and lookup table, the payment rule's orders, the sources in tapping order), the
        land options, the colour needs of the land choice and ``dims`` / ``fdims``: the
        sizes and options (:data:`DIMS`; ``fdims`` holds removal and the parley fraction).
    """
    f, mana, casting, options = tables.features, tables.mana, tables.casting, tables.lands
    n_modes, n_masks, n_classes = len(mana.modes), len(mana.masks), mana.n_classes
    card_modes, n_card_modes = _padded([list(m) for m in casting.kind_modes])
    pips_of, rest_req, cand = _pip_arrays(mana)
    taxed, n_taxed = _taxed_modes(tables)
    hand_profile, commander_profile, profiles = _colour_profiles(tables)
    castable_modes, n_castable_modes = _padded([list(m) for m in tables.castable_card_modes])
    lists = [tables.merfolk_ids, tables.land_ids, tables.basic_ids, tables.commander_ids,
             casting.pass_ids]
    rows = [tables.ids[g].tolist() for g in tables.groups] + [ids.tolist() for ids in lists]
    group_ids, group_n = _padded(rows)
    gi = np.array([tables.groups.index(g) if g in tables.groups else -1 for g in GROUPS]
                  + list(range(len(tables.groups), len(tables.groups) + len(lists))),
                  dtype=np.int64)
    option_columns = (options.card, options.kind, options.is_spell_face, options.is_bounce,
                      options.is_fetch, options.is_passage, options.colours, options.tiebreak,
                      options.tapped_rule, options.tapped_arg)
    lookup = mana.lookup if mana.lookup is not None else np.zeros((1, 1), dtype=bool)
    intersects = _array(mana.intersects, np.int64).reshape(n_classes, n_masks)
    opt_units = _array(options.units, np.int64).reshape(len(options.card), n_classes)
    basic_units = _array(options.basic_units, np.int64).reshape(len(tables.basic_ids), n_classes)
    keys = castability_keys(mana)
    source_units, classes = _array(f.source_units, np.int64), _class_table(mana, keys)
    units_by_kind = source_units.reshape(tables.n_kinds, n_classes)
    return KernelTables(
        dims=_dims(tables, config, taxed.shape[1], keys),
        fdims=np.array([config.removal, config.opponent_land_fraction], dtype=np.float64),
        card=_card_table(tables, hand_profile, n_card_modes), pips=_array(f.pips, np.int64),
        source_units=source_units,
        # What each card id's mana brings to the land choice's colour keys: the units meeting
        # each mask of the exact test (n_kinds, n_masks), and the units of each colour W U B
        # R G (n_kinds, 5).
        source_cover=np.ascontiguousarray(units_by_kind @ intersects),
        source_colours=np.ascontiguousarray(
            units_by_kind @ classes[:n_classes, len(CLASS_COLUMNS) - 1:]),
        members=_array(tables.members, np.int64),
        kind_groups=_kind_groups(tables.members),
        card_modes=card_modes.astype(np.int64), gi=gi, group_ids=group_ids.astype(np.int64),
        group_n=group_n.astype(np.int64), classes=classes,
        intersects=intersects,
        modes=np.array([[m.mana, m.life, m.generic, len(m.pips), mana.mode_card[i]]
                        for i, m in enumerate(mana.modes)], dtype=np.int64).reshape(n_modes, 5),
        req=_array(mana.req, np.int64).reshape(n_modes, n_masks),
        pips_of=np.ascontiguousarray(pips_of), rest_req=rest_req, cand=cand,
        sources=np.ascontiguousarray(np.stack(
            [_array(mana.source_ids, np.int64), _array(mana.source_cost, np.int64)],
            axis=1).reshape(len(mana.source_ids), 2)),
        s_units=_array(mana.source_units, np.int64).reshape(len(mana.source_ids), n_classes),
        lookup=np.ascontiguousarray(lookup, dtype=np.uint8), taxed=taxed,
        commanders=np.ascontiguousarray(np.stack([n_taxed, commander_profile], axis=1)),
        castable_modes=np.ascontiguousarray(np.concatenate(
            [n_castable_modes[:, None], castable_modes], axis=1).astype(np.int64)),
        options=np.ascontiguousarray(np.stack([_array(v, np.int64) for v in option_columns],
                                              axis=1).reshape(len(options.card),
                                                              len(OPTION_COLUMNS))),
        opt_units=opt_units, basic_units=basic_units,
        # The units meeting each mask of the exact test that a land option (a basic land)
        # brings: (n_options, n_masks) and (n_basics, n_masks).
        opt_cover=np.ascontiguousarray(opt_units @ intersects),
        basic_cover=np.ascontiguousarray(basic_units @ intersects),
        profiles=profiles,
        id_sets=_id_sets(tables, hand_profile),
        castable_by_key=_castable_by_key(tables, keys),
    )


def _n_castable_keys(tables: DeckTables, keys: tuple) -> int:
    """Rows of ``K.castable_by_key`` (``keys``: :func:`castability_keys`): 0 when there would
    be more than :data:`CASTABLE_KEY_LIMIT`, or more castable cards than a row of card ids
    holds bits."""
    mana = tables.mana
    _, _, total_cap, total_stride = keys  # no stride: too many keys
    n_keys = total_stride * (total_cap + 1)
    fits = len(tables.castable_cards) <= 64 * words_for(tables.n_kinds)
    return n_keys if mana.n_classes and fits else 0


#: Castability tables already built, by what they are built from (every chunk of a run,
#: and every variant of a comparison that shares its ways to pay, reads the same one).
_CASTABLE: dict[tuple, np.ndarray] = {}


def _castable_by_key(tables: DeckTables, keys: tuple) -> np.ndarray:
    """For each castability key (:func:`castability_keys`: an amount of units by class and in
    all, capped), the spells those units pay in any of their ways, as bits (:mod:`.bits`):
    ``[CK_RANKS, key]`` by the casting order's ranks (a commander's always set: its tax is
    checked as it is cast), ``[CK_KINDS, key]`` by card id, of the spells the casting order
    casts, and ``[CK_WATCHED, key]`` by the index of each card named by ``castable``; shape
    (3, n_keys, words_for(n_kinds)). One row of zeros where there are too many keys.
    ``keys`` is :func:`castability_keys` of the tables' mana."""
    casting, mana = tables.casting, tables.mana
    arrays = (mana.req, mana.intersects, mana.total, casting.pass_ids, casting.cast_ids)
    key = (CASTABLE_KEY_LIMIT, tables.n_kinds, mana.n_classes, casting.kind_modes,
           casting.pass_commanders, tables.castable_card_modes,
           *((np.asarray(a).shape, np.asarray(a).dtype.str, np.asarray(a).tobytes())
             for a in arrays))
    table = _CASTABLE.get(key)
    if table is None:
        table = _build_castable_by_key(tables, keys)  # the games only read it
        if len(_CASTABLE) >= 32:
            _CASTABLE.clear()
        _CASTABLE[key] = table
    return table


def _build_castable_by_key(tables: DeckTables, keys: tuple) -> np.ndarray:
    """:func:`_castable_by_key`, built."""
    casting, mana, n = tables.casting, tables.mana, tables.n_kinds
    n_keys = _n_castable_keys(tables, keys)
    if not n_keys:
        return np.zeros((3, 1, words_for(n)), dtype=np.uint64)
    key_cap, _, total_cap, _ = keys
    # Every key's units and total: axes from the slowest digit (the total) to class 0.
    digits = np.indices((total_cap + 1, *(key_cap[::-1] + 1))).reshape(len(key_cap) + 1, -1)
    total, units = digits[0], digits[1:][::-1].T  # (n_keys,), (n_keys, n_classes)
    n_masks = len(mana.masks)
    intersects = np.asarray(mana.intersects, dtype=np.int64).reshape(len(key_cap), n_masks)
    req = np.asarray(mana.req, dtype=np.int64).reshape(len(mana.modes), n_masks)
    covered = units @ intersects  # (n_keys, n_masks)
    pays = np.empty((n_keys, len(mana.modes)), dtype=bool)
    for m, mode_total in enumerate(np.asarray(mana.total).tolist()):
        pays[:, m] = (covered >= req[m]).all(axis=1) & (total >= mode_total)

    def any_way(modes) -> np.ndarray:
        return pays[:, list(modes)].any(axis=1) if len(modes) else np.zeros(n_keys, bool)

    by_rank = np.zeros((n_keys, n), dtype=bool)
    for j, kind in enumerate(casting.pass_ids.tolist()):
        by_rank[:, j] = any_way(casting.kind_modes[kind])
    by_rank[:, [j for j, _ in casting.pass_commanders]] = True  # checked with tax
    by_kind = np.zeros((n_keys, n), dtype=bool)
    for kind in casting.cast_ids.tolist():
        by_kind[:, kind] = any_way(casting.kind_modes[kind])
    watched = np.zeros((n_keys, 64 * words_for(n)), dtype=bool)
    for j, modes in enumerate(tables.castable_card_modes):
        watched[:, j] = any_way(modes)
    return np.stack([_bit_rows(by_rank), _bit_rows(by_kind), _bit_rows(watched)])


def _needs_target(tables: DeckTables) -> np.ndarray:
    """The ``needs_target`` column: 1 for a spell that needs a creature you control as its
    target, 2 for one whose target only an opponent has (never cast: it is not in the
    casting order), 0 for the others."""
    codes = np.asarray(tables.needs_creature_target, dtype=np.int64).copy()
    codes[tables.held_ids] = 2
    return codes


def _id_sets(tables: DeckTables, hand_profile: np.ndarray) -> np.ndarray:
    """The rows of ``K.id_sets`` (:data:`ID_SETS`): (len(ID_SETS), words) uint64."""
    f, n = tables.features, tables.n_kinds
    is_cast = np.zeros(n, dtype=bool)
    is_cast[tables.casting.cast_ids] = True
    option_cards = np.zeros(n, dtype=bool)
    option_cards[np.asarray(tables.lands.card, dtype=np.intp)] = True
    creature = np.asarray(f.is_creature, dtype=bool)
    sets = {
        "creature_ids": creature,
        "attacker_ids": creature & ~np.asarray(f.is_source, dtype=bool),
        "cast_ids": is_cast,
        "profiled_ids": is_cast & (hand_profile >= 0),
        "option_card_ids": option_cards,
    }
    return as_rows([sets[name] for name in ID_SETS], n)


def _constants(prefix: str, columns: tuple[str, ...]) -> dict[str, int]:
    return {f"{prefix}_{name.upper()}": i for i, name in enumerate(columns)}


# Column numbers as module constants (C_IS_LAND, CL_STRIDES, MO_TOTAL, ...), for the
# compiled functions.
globals().update(_constants("C", CARD_COLUMNS))
globals().update(_constants("CL", CLASS_COLUMNS))
globals().update(_constants("MO", MODE_COLUMNS))
globals().update(_constants("PI", PIP_COLUMNS))
globals().update(_constants("LO", OPTION_COLUMNS))
globals().update(_constants("SO", SOURCE_COLUMNS))
globals().update(_constants("CM", COMMANDER_COLUMNS))
PR_PROF_N, PR_CASTABLE_PROFILES, PR_PIPS, PR_MODES = 0, 1, 2, 7
globals().update({name.upper(): row for row, name in enumerate(ID_SETS)})
#: Rows of ``K.castable_by_key``.
CK_RANKS, CK_KINDS, CK_WATCHED = 0, 1, 2
#: Slots of ``K.gi`` for the id lists.
G_MERFOLK_IDS, G_LAND_IDS, G_BASIC_IDS, G_COMMANDER_IDS, G_PASS_IDS = range(
    len(GROUPS), len(GROUPS) + len(ID_LISTS))
