"""The deck tables as flat arrays for the compiled game, and the game's options as numbers.

:func:`pack` turns a :class:`~explore_sim.engine.tables.DeckTables` (and the game's
:class:`~explore_sim.engine.config.GameConfig`) into :class:`KernelTables`, a named tuple of
NumPy arrays that the compiled functions of :mod:`.game` read: ragged Python lists become
padded arrays with a count beside them, codes become small integers. Nothing here is
compiled; it runs once per deck and options (the result is cached).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import IntEnum
from typing import Any, NamedTuple

import numpy as np

from ..config import GameConfig, starting_life
from ..metrics import CASTABLE_LANDS_PREFIX, CASTABLE_PREFIX, MAIN_LANDS, MAIN_PHASE_METRICS
from ..paying import ManaTables
from ..tables import DeckTables
from .layout import (
    CardCol,
    ClassCol,
    CommanderCol,
    Dim,
    Group,
    IdSet,
    KeyRow,
    ModeCol,
    OptionCol,
    PipCol,
    ProfileCol,
    SourceCol,
    columns,
)

__all__ = ["GROUPS", "ID_LISTS", "MAIN_METRICS", "KernelTables", "pack", "words_for"]

#: The ability groups the compiled game reads (``K.gi[Group.X]`` is group ``x``'s column in
#: ``K.members``, -1 when the deck's tables have no such group), then the deck's lists of
#: card ids (their rows of ``K.group_ids`` follow the groups').
GROUPS = tuple(name for name in columns(Group) if not name.endswith("_ids"))
ID_LISTS = tuple(name for name in columns(Group) if name.endswith("_ids"))
#: Metrics taken in the first main phase (then one per castable card; with
#: ``castable_lands``, then ``main_lands`` and one ``castable_lands:CARD`` per castable card).
MAIN_METRICS = ("mana_available", "colour_screwed")

class KernelTables(NamedTuple):
    """The deck's tables for the compiled game (:func:`pack` says what each holds): few
    arrays, with named columns (:mod:`.layout`), so that compiled functions taking them
    compile quickly."""

    dims: np.ndarray
    fdims: np.ndarray
    card: np.ndarray
    pips: np.ndarray
    source_units: np.ndarray
    source_cover: np.ndarray
    source_colours: np.ndarray
    members: np.ndarray
    kind_groups: np.ndarray
    card_modes: np.ndarray
    gi: np.ndarray
    group_ids: np.ndarray
    group_n: np.ndarray
    classes: np.ndarray
    intersects: np.ndarray
    modes: np.ndarray
    req: np.ndarray
    pips_of: np.ndarray
    rest_req: np.ndarray
    cand: np.ndarray
    sources: np.ndarray
    s_units: np.ndarray
    lookup: np.ndarray
    taxed: np.ndarray
    commanders: np.ndarray
    castable_modes: np.ndarray
    options: np.ndarray
    opt_units: np.ndarray
    basic_units: np.ndarray
    opt_cover: np.ndarray
    basic_cover: np.ndarray
    profiles: np.ndarray
    id_sets: np.ndarray
    castable_by_key: np.ndarray
    option_colours: np.ndarray
    option_fetch: np.ndarray


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
    out: np.ndarray = np.full((max(len(rows), 1), width), fill, dtype=dtype)
    for i, row in enumerate(rows):
        out[i, : len(row)] = row
    return out, np.array([len(r) for r in rows] or [0], dtype=np.int32)


def _array(values: Any, dtype: Any = np.int32) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(values), dtype=dtype)


def _table(rows: int, numbering: type[IntEnum], values: dict[Any, Any]) -> np.ndarray:
    """An int64 table of ``rows`` rows (at least one) whose columns are the members of the
    enumeration ``numbering``, each filled from ``values[member]`` (a scalar or an array
    of ``rows`` values)."""
    table = np.zeros((max(rows, 1), len(numbering)), dtype=np.int64)
    for column in numbering:
        table[:rows, column] = np.asarray(values[column], dtype=np.int64)
    return table


def _pip_arrays(mana: ManaTables) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every way to pay: its pips in paying order and the candidate classes of each pip.

    Returns ``pips_of`` of shape (n_modes, max_pips, 3) (:class:`~.layout.PipCol`), ``rest_req``
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
    pips_of = np.zeros((n_modes, max_pips, len(PipCol)), dtype=np.int64)
    pips_of[:, :, PipCol.PIP_MASK] = pip_mask
    pips_of[:, :, PipCol.REST_TOTAL] = rest_total
    pips_of[:, :, PipCol.N_CAND] = n_cand
    return pips_of, rest_req, cand


def _class_table(mana: ManaTables, keys: tuple) -> np.ndarray:
    """Per mana class, the columns of :class:`~.layout.ClassCol` (the key caps and strides
    from ``keys``: :func:`castability_keys`), its five colours from ``ClassCol.COLOURS`` on:
    (n_classes, 13)."""
    classes = np.zeros((max(mana.n_classes, 1), ClassCol.COLOURS + 5), dtype=np.int64)
    n = mana.n_classes
    if n:
        key_cap, key_stride, _, _ = keys
        for column, values in ((ClassCol.CLASS_MASK, mana.class_mask),
                               (ClassCol.CLASS_PAIN, mana.class_pain),
                               (ClassCol.GENERIC_ORDER, mana.generic_order),
                               (ClassCol.FLEXIBILITY, mana.flexibility),
                               (ClassCol.GENERIC_RANK, mana.generic_rank),
                               (ClassCol.STRIDES, mana.strides),
                               (ClassCol.KEY_CAP, key_cap), (ClassCol.KEY_STRIDE, key_stride)):
            classes[:n, column] = np.asarray(values)
        classes[:n, ClassCol.COLOURS:] = mana.class_colours
    return classes


#: The most rows ``K.castable_by_key`` may have; a deck whose castability keys are more
#: tests its spells' ways to pay one by one.
CASTABLE_KEY_LIMIT = 1 << 18


def castability_keys(mana: ManaTables) -> tuple[np.ndarray, np.ndarray, int, int]:
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
        profiles[:, ProfileCol.PROF_N] = prof_n
        profiles[:, ProfileCol.CASTABLE_PROFILES] = needs.castable_profiles
        profiles[:, ProfileCol.PIPS:ProfileCol.PIPS + 5] = needs.pips
        profiles[:, ProfileCol.MODES:] = prof_modes
    return hand_profile, commander_profile, profiles


def _dims(tables: DeckTables, config: GameConfig, max_taxed: int, keys: tuple) -> np.ndarray:
    """The deck's sizes and the game's options as integers, by :class:`~.layout.Dim`
    (``keys``: :func:`castability_keys`)."""
    mana, options = tables.mana, tables.lands
    _, _, total_cap, total_stride = keys
    dims = {
        Dim.N_KINDS: tables.n_kinds, Dim.N_CLASSES: mana.n_classes,
        Dim.N_MASKS: len(mana.masks), Dim.N_MODES: len(mana.modes),
        Dim.N_DECK: int(tables.features.n_deck), Dim.N_OPTIONS: len(options.card),
        Dim.N_BASICS: len(tables.basic_ids), Dim.N_PROFILES: tables.colour_needs.n_profiles,
        Dim.N_CASTABLE: len(tables.castable_cards), Dim.HAS_FILTERS: int(mana.has_filters),
        Dim.TIES: int(mana.has_generic_ties), Dim.USE_LOOKUP: int(mana.lookup is not None),
        Dim.CAP: int(mana.cap), Dim.MAP_MODE: int(mana.cost_mode["{1}"]),
        Dim.HAND_LIMIT: int(config.hand_limit), Dim.TURNS: int(config.turns),
        Dim.ON_PLAY: int(config.on_play), Dim.IS_COMMANDER: int(tables.is_commander),
        Dim.TWISTS_FIRST: int(config.replacement_order == "twists-first"),
        Dim.USE_MAPS: int(config.use_maps), Dim.N_GROUPS: len(tables.groups),
        Dim.N_SOURCES: len(mana.source_ids), Dim.N_COMMANDERS: len(tables.commander_ids),
        Dim.MAX_TAXED: max_taxed,
        Dim.SPELL_FACES: {"when-needed": 0, "always": 1, "never": 2}[config.land_faces],
        Dim.CASTABLE_LANDS: int(config.castable_lands),
        Dim.MAIN_PHASE_METRICS: int(any(
            name in MAIN_PHASE_METRICS or name.startswith((CASTABLE_PREFIX, MAIN_LANDS,
                                                           CASTABLE_LANDS_PREFIX))
            for name in config.metric_names)),
        Dim.LIFE: starting_life(config, tables.is_commander),
        Dim.CASTABLE_CHEAPEST: int(tables.castable_cheapest),
        Dim.CASTABLE_KEYS: int(_n_castable_keys(tables, keys) > 0),
        Dim.TOTAL_KEY_CAP: total_cap, Dim.TOTAL_KEY_STRIDE: total_stride,
        Dim.HAS_DRAWS: int(bool((tables.features.draws[tables.casting.pass_ids] > 0).any())),
    }
    out = np.zeros(len(Dim), dtype=np.int64)
    for slot, value in dims.items():
        out[slot] = value
    return out


def _kind_groups(members: np.ndarray) -> np.ndarray:
    """Each card id's groups (the nonzero columns of its row of ``members``), padded with
    -1: (n_kinds, most groups of a card), so that a permanent entering or leaving counts
    only its own groups."""
    rows = [np.flatnonzero(row).tolist() for row in members]
    return _padded(rows, np.int64)[0]


def _card_table(tables: DeckTables, hand_profile: np.ndarray, n_card_modes: np.ndarray
                ) -> np.ndarray:
    """One row per card id, the columns of :class:`~.layout.CardCol`: (n_kinds,
    len(CardCol))."""
    f, casting, n = tables.features, tables.casting, tables.n_kinds
    is_cast = np.zeros(n, dtype=np.int64)
    is_cast[casting.cast_ids] = 1
    commander_slot = np.full(n, -1, dtype=np.int64)
    for slot, kind in enumerate(tables.commander_ids.tolist()):
        commander_slot[kind] = slot
    pass_rank = np.full(n, -1, dtype=np.int64)  # place in the casting order, -1: never cast
    pass_rank[casting.pass_ids] = np.arange(len(casting.pass_ids))
    values = {
        CardCol.IS_LAND: f.is_land, CardCol.IS_CREATURE: f.is_creature,
        CardCol.IS_PERMANENT: f.is_permanent, CardCol.IS_NONLAND: f.is_nonland,
        CardCol.IS_CARD: f.is_card, CardCol.IS_SOURCE: f.is_source,
        CardCol.RAMPS: f.ramps,
        CardCol.HAS_HASTE: f.has_haste, CardCol.IS_LAND_LIKE: f.is_land_like,
        CardCol.COST: tables.cost, CardCol.EXPLORES: f.explores,
        CardCol.IS_X: np.isin(np.arange(n), tables.x_ids), CardCol.MAPS: f.maps,
        CardCol.FETCH: f.fetch, CardCol.FETCH_WHEN: f.fetch_when,
        CardCol.LAND_ENTERS: f.land_enters, CardCol.TAPPED_RULE: f.tapped_rule,
        CardCol.TAPPED_ARG: f.tapped_arg, CardCol.BASIC_TYPES: f.basic_types,
        CardCol.FACE_OF: f.face_of, CardCol.POWER: f.power, CardCol.TOUGHNESS: f.toughness,
        CardCol.SOURCE_COST: f.source_cost, CardCol.CHEAPEST: casting.cheapest,
        CardCol.N_CARD_MODES: n_card_modes, CardCol.NEEDS_TARGET: _needs_target(tables),
        CardCol.ABILITY_COST_MODE: tables.ability_cost_mode, CardCol.IS_CAST: is_cast,
        CardCol.COMMANDER_SLOT: commander_slot, CardCol.LAND_COLOURS: tables.land_colours,
        CardCol.HAND_PROFILE: hand_profile,
        CardCol.N_GROUPS: (tables.members != 0).sum(axis=1), CardCol.PASS_RANK: pass_rank,
        CardCol.FETCH_TYPES: f.fetch_types, CardCol.IS_BASIC: f.is_basic,
        CardCol.IS_LEGENDARY: np.isin(np.arange(n), casting.pass_ids[casting.pass_legendary]),
        CardCol.IS_PAYOFF: np.isin(np.arange(n), casting.pass_ids[casting.pass_payoff]),
        CardCol.BASE_RANK: casting.base_rank, CardCol.DRAWS: f.draws,
    }
    table = np.zeros((n, len(CardCol)), dtype=np.int64)
    for column, column_values in values.items():
        table[:, column] = _array(column_values, np.int64)
    return table


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
        sizes and options (:class:`~.layout.Dim`; ``fdims`` holds removal and the parley
        fraction).
    """
    f, mana, casting, options = tables.features, tables.mana, tables.casting, tables.lands
    n_modes, n_masks, n_classes = len(mana.modes), len(mana.masks), mana.n_classes
    card_modes, n_card_modes = _padded([list(m) for m in casting.kind_modes])
    pips_of, rest_req, cand = _pip_arrays(mana)
    taxed, n_taxed = _taxed_modes(tables)
    hand_profile, commander_profile, profiles = _colour_profiles(tables)
    castable_modes, n_castable_modes = _padded([list(m) for m in tables.castable_card_modes])
    id_lists = {"merfolk_ids": tables.merfolk_ids, "land_ids": tables.land_ids,
                "basic_ids": tables.basic_ids, "commander_ids": tables.commander_ids,
                "pass_ids": casting.pass_ids}
    lists = [id_lists[name] for name in ID_LISTS]
    rows = [tables.ids[g].tolist() for g in tables.groups] + [ids.tolist() for ids in lists]
    group_ids, group_n = _padded(rows)
    gi = np.full(len(Group), -1, dtype=np.int64)
    for group in Group:
        name = group.name.lower()
        if name in ID_LISTS:
            gi[group] = len(tables.groups) + ID_LISTS.index(name)
        elif name in tables.groups:
            gi[group] = tables.groups.index(name)
    _check_tiebreak(options.tiebreak)
    option_columns = {
        OptionCol.CARD: options.card, OptionCol.KIND: options.kind,
        OptionCol.SPELL_FACE: options.is_spell_face, OptionCol.BOUNCE: options.is_bounce,
        OptionCol.FETCH: options.is_fetch, OptionCol.PASSAGE: options.is_passage,
        OptionCol.COLOURS: options.colours, OptionCol.TIEBREAK: options.tiebreak,
        OptionCol.RULE: options.tapped_rule, OptionCol.ARG: options.tapped_arg}
    modes = mana.modes
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
            units_by_kind @ classes[:n_classes, ClassCol.COLOURS:]),
        members=_array(tables.members, np.int64),
        kind_groups=_kind_groups(tables.members),
        card_modes=card_modes.astype(np.int64), gi=gi, group_ids=group_ids.astype(np.int64),
        group_n=group_n.astype(np.int64), classes=classes,
        intersects=intersects,
        modes=_table(n_modes, ModeCol, {
            ModeCol.TOTAL: [m.mana for m in modes], ModeCol.LIFE: [m.life for m in modes],
            ModeCol.GENERIC: [m.generic for m in modes],
            ModeCol.N_PIPS: [len(m.pips) for m in modes],
            ModeCol.MODE_CARD: np.asarray(mana.mode_card)[:n_modes]})[:n_modes],
        req=_array(mana.req, np.int64).reshape(n_modes, n_masks),
        pips_of=np.ascontiguousarray(pips_of), rest_req=rest_req, cand=cand,
        sources=_table(len(mana.source_ids), SourceCol, {
            SourceCol.KIND: mana.source_ids, SourceCol.COST: mana.source_cost,
        })[:len(mana.source_ids)],
        s_units=_array(mana.source_units, np.int64).reshape(len(mana.source_ids), n_classes),
        lookup=np.ascontiguousarray(lookup, dtype=np.uint8), taxed=taxed,
        commanders=_table(len(n_taxed), CommanderCol, {
            CommanderCol.N_TAXED: n_taxed, CommanderCol.COMMANDER_PROFILE: commander_profile}),
        castable_modes=np.ascontiguousarray(np.concatenate(
            [n_castable_modes[:, None], castable_modes], axis=1).astype(np.int64)),
        options=_table(len(options.card), OptionCol, option_columns)[:len(options.card)],
        opt_units=opt_units, basic_units=basic_units,
        # The units meeting each mask of the exact test that a land option (a basic land)
        # brings: (n_options, n_masks) and (n_basics, n_masks).
        opt_cover=np.ascontiguousarray(opt_units @ intersects),
        basic_cover=np.ascontiguousarray(basic_units @ intersects),
        profiles=profiles,
        id_sets=_id_sets(tables, hand_profile),
        castable_by_key=_castable_by_key(tables, keys),
        # The options' colours and whether each is a fetch land, contiguous (the land
        # choice's colour keys read them as it reads a search's basic lands).
        option_colours=_array(options.colours, np.int64),
        option_fetch=_array(options.is_fetch, np.int64),
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
    ``[KeyRow.RANKS, key]`` by the casting order's ranks (a commander's always set: its tax is
    checked as it is cast), ``[KeyRow.KINDS, key]`` by card id, of the spells the casting order
    casts, and ``[KeyRow.WATCHED, key]`` by the index of each card named by ``castable``; shape
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

    def any_way(modes: Sequence[int]) -> np.ndarray:
        if not len(modes):
            return np.zeros(n_keys, bool)
        return np.asarray(pays[:, list(modes)].any(axis=1), dtype=bool)

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
    rows = {KeyRow.RANKS: by_rank, KeyRow.KINDS: by_kind, KeyRow.WATCHED: watched}
    return np.stack([_bit_rows(rows[row]) for row in KeyRow])


def _check_tiebreak(tiebreak: np.ndarray) -> None:
    """The land choice's keys (:func:`~.lands.choose_land`) hold steps 1 and 2 from bit 49,
    the colour keys from bit 21, and the tiebreak plus ``1 << 20`` from 0 to below bit 21:
    the choice gives colour keys only to the options tied on steps 1 and 2, which holds
    while the tiebreak stays in its bits."""
    if len(tiebreak) and not -(1 << 20) <= tiebreak.min() <= tiebreak.max() < 1 << 20:
        raise AssertionError("a land option's tiebreak is outside [-2**20, 2**20)")


def _needs_target(tables: DeckTables) -> np.ndarray:
    """The ``needs_target`` column: 1 for a spell that needs a creature you control as its
    target, 2 for a held one (never cast: it is not in the casting order): its target only an
    opponent has, or none of its effects is played (:attr:`DeckTables.held_ids`); 0 for the
    others."""
    codes = np.asarray(tables.needs_creature_target, dtype=np.int64).copy()
    codes[tables.held_ids] = 2
    return codes


def _id_sets(tables: DeckTables, hand_profile: np.ndarray) -> np.ndarray:
    """The rows of ``K.id_sets`` (:class:`~.layout.IdSet`): (len(IdSet), words) uint64."""
    f, n = tables.features, tables.n_kinds
    is_cast = np.zeros(n, dtype=bool)
    is_cast[tables.casting.cast_ids] = True
    option_cards = np.zeros(n, dtype=bool)
    option_cards[np.asarray(tables.lands.card, dtype=np.intp)] = True
    creature = np.asarray(f.is_creature, dtype=bool)
    sets = {
        IdSet.CREATURE_IDS: creature,
        IdSet.ATTACKER_IDS: creature & ~np.asarray(f.is_source, dtype=bool),
        IdSet.CAST_IDS: is_cast,
        IdSet.PROFILED_IDS: is_cast & (hand_profile >= 0),
        IdSet.OPTION_CARD_IDS: option_cards,
    }
    return as_rows([sets[row] for row in IdSet], n)
