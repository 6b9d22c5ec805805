"""The compiled game's two records: the deck's tables and one game's state, as numba
structure references.

A compiled function that takes a tuple of arrays receives every array's fields as
arguments (a few hundred words for the tables); a structure reference is one pointer. The
packed tables (:class:`~.pack.KernelTables`, with the policy's bytecode) and the state's
arrays (:func:`~.state.new_state`) are made into these records once per chunk, by
:func:`as_tables` and :func:`as_state`, and every compiled function reads them by field name:
``K.card[kind, C_COST]``, ``S.zones[HAND, kind]``.

With numba's JIT disabled (``NUMBA_DISABLE_JIT=1``: the compiled game runs as plain Python,
slowly, for a debugger or a print), the records are plain namespaces of the same fields.
"""

from __future__ import annotations

from types import SimpleNamespace

from numba import config, njit, types
from numba.experimental import structref

__all__ = ["STATE", "TABLES", "as_state", "as_tables"]


def _array(dtype, ndim: int) -> types.Array:
    return types.Array(dtype, ndim, "C")


@structref.register
class TablesType(types.StructRef):
    """numba type of the deck's tables (the fields of :class:`~.pack.KernelTables`, then the
    policy's and the scry policy's bytecode)."""


@structref.register
class StateType(types.StructRef):
    """numba type of one game's state (:mod:`explore_sim.engine.kernel.state`)."""


_I64, _F64, _I32 = types.int64, types.float64, types.int32
#: The tables' fields and their types, in :class:`~.pack.KernelTables` order.
TABLE_FIELDS = (
    ("dims", _array(_I64, 1)), ("fdims", _array(_F64, 1)), ("card", _array(_I64, 2)),
    ("pips", _array(_I64, 2)), ("source_units", _array(_I64, 2)),
    ("members", _array(_I64, 2)), ("card_modes", _array(_I64, 2)), ("gi", _array(_I64, 1)),
    ("group_ids", _array(_I64, 2)), ("group_n", _array(_I64, 1)),
    ("classes", _array(_I64, 2)), ("intersects", _array(_I64, 2)),
    ("modes", _array(_I64, 2)), ("req", _array(_I64, 2)), ("pips_of", _array(_I64, 3)),
    ("rest_req", _array(_I64, 3)), ("cand", _array(_I64, 3)), ("sources", _array(_I64, 2)),
    ("s_units", _array(_I64, 2)), ("lookup", _array(types.uint8, 2)),
    ("taxed", _array(_I64, 3)), ("commanders", _array(_I64, 2)),
    ("castable_modes", _array(_I64, 2)), ("options", _array(_I64, 2)),
    ("opt_units", _array(_I64, 2)), ("basic_units", _array(_I64, 2)),
    ("profiles", _array(_I64, 2)),
    ("policy_code", _array(_I64, 1)), ("policy_consts", _array(_F64, 1)),
    ("scry_code", _array(_I64, 1)), ("scry_consts", _array(_F64, 1)),
)
#: The state's fields and their types (see :mod:`.state`).
STATE_FIELDS = (
    ("slots", _array(_I64, 1)), ("lib", _array(_I32, 1)), ("zones", _array(_I32, 2)),
    ("perm", _array(_I32, 1)), ("pool", _array(_I32, 1)), ("lib_pips", _array(_I32, 1)),
    ("totals", _array(_I64, 1)), ("main", _array(_I64, 1)),
    ("deal", _array(types.uint64, 1)), ("play", _array(types.uint64, 1)),
    ("work", _array(_I64, 2)), ("stack", _array(_F64, 1)), ("trace", _array(_I32, 2)),
)
TABLES = TablesType(list(TABLE_FIELDS))
STATE = StateType(list(STATE_FIELDS))


@njit(cache=True)
def as_tables(K, programs):
    """The record of the packed tables ``K`` and the policies' ``programs`` (policy code and
    constants, then the scry policy's)."""
    T = structref.new(TABLES)
    T.dims, T.fdims, T.card, T.pips = K.dims, K.fdims, K.card, K.pips
    T.source_units, T.members, T.card_modes, T.gi = K.source_units, K.members, K.card_modes, K.gi
    T.group_ids, T.group_n, T.classes, T.intersects = K.group_ids, K.group_n, K.classes, \
        K.intersects
    T.modes, T.req, T.pips_of, T.rest_req, T.cand = K.modes, K.req, K.pips_of, K.rest_req, K.cand
    T.sources, T.s_units, T.lookup, T.taxed = K.sources, K.s_units, K.lookup, K.taxed
    T.commanders, T.castable_modes, T.options = K.commanders, K.castable_modes, K.options
    T.opt_units, T.basic_units, T.profiles = K.opt_units, K.basic_units, K.profiles
    T.policy_code, T.policy_consts, T.scry_code, T.scry_consts = programs
    return T


@njit(cache=True)
def as_state(arrays):
    """The record of a game's state arrays (:func:`~.state.new_state`)."""
    S = structref.new(STATE)
    S.slots, S.lib, S.zones, S.perm, S.pool, S.lib_pips = arrays[:6]
    S.totals, S.main, S.deal, S.play, S.work, S.stack, S.trace = arrays[6:]
    return S


if config.DISABLE_JIT:  # plain Python: the records as namespaces of the same fields

    def as_tables(K, programs):  # the uncompiled stand-in
        """The packed tables ``K`` and the policies' ``programs`` as one namespace."""
        return SimpleNamespace(**K._asdict(), **dict(zip(
            ("policy_code", "policy_consts", "scry_code", "scry_consts"), programs)))

    def as_state(arrays):  # the uncompiled stand-in
        """A game's state arrays as one namespace."""
        return SimpleNamespace(**{name: a for (name, _), a in zip(STATE_FIELDS, arrays)})
