"""The compiled game's two records, the deck's tables and one game's state, and the decorator
that compiles the game.

Both records are named tuples of NumPy arrays, read by field name in every compiled
function: ``K.card[kind, CardCol.COST]``, ``S.zones[Zone.HAND, kind]``. :func:`as_tables` makes the
packed tables (:class:`~.pack.KernelTables`) and the policies' bytecode into one record;
:func:`~.state.new_state` makes the state's.

Two costs of numba's defaults decide the game's speed, and both are avoided here:

- numba passes a tuple to a compiled function field by field, seven or more machine words
  per array: a call taking both records copied about 400 words. :func:`borrow`, at the top
  of :func:`~.game.play_chunk`, turns each record into a :class:`Borrowed` one: a pointer to
  the tuple, which lives as long as that call, so every other function takes one word per
  record and reads a field with one load.
- numba counts references to arrays with atomic increments and decrements, on every call
  and every read of a field of a heap-allocated record. :func:`compiled` is numba's ``njit``
  with ``_nrt=False``: the game allocates no array while it plays (numba refuses to compile
  a function compiled so that allocates), so nothing needs counting.
- numba's default error model checks every division for a zero divisor and keeps a path
  that raises ``ZeroDivisionError``. :func:`compiled` asks for NumPy's (``error_model=
  "numpy"``), without the checks: every divisor of the game is positive (a cost, a count of
  copies at least 1, a library's size; a policy's own division follows NumPy's rules, as in
  the vectorised engine). Games 3-9% faster in alternating processes, the same games.

A field of a borrowed record is read with LLVM's ``!invariant.load``: the record is written
once, when it is borrowed, and never again, so the optimiser may keep an array's header (its
data pointer, shape and strides) in registers across the game's stores to the arrays, which
it would otherwise have to read again after each of them, not knowing they cannot write the
record (a median 5-8% of a game, in alternating processes before and after).

Every compiled function is cached on disk by :data:`CACHE`
(:mod:`explore_sim.engine.compile_cache`): keyed on this package's sources and the modules
whose values it compiles in as constants, healed when an entry is damaged, compiled in
memory where nothing can be written.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numba import config, njit, types
from numba.core import cgutils
from numba.core.extending import (
    infer_getattr,
    intrinsic,
    lower_getattr_generic,
    models,
    register_model,
)
from numba.core.imputils import impl_ret_borrowed
from numba.core.typing.templates import AttributeTemplate

from ..compile_cache import cache_for
from .pack import KernelTables

__all__ = ["CACHE", "CONSTANT_SOURCES", "TABLE_FIELDS", "Borrowed", "Tables", "as_tables",
           "borrow", "compiled"]

_HERE = Path(__file__).resolve().parent
#: numba's cache of the compiled game: this package's sources, and the modules whose codes
#: and counters the game holds as constants (:mod:`.codes`, :mod:`.pack`).
#: The modules whose values the compiled game holds as constants (:mod:`.codes` reads them).
CONSTANT_SOURCES = (
    *(_HERE.parent / name for name in ("metrics.py", "config.py", "explore_effects.py",
                                        "paying.py", "tables.py")),
    _HERE.parents[1] / "cards" / "features.py", _HERE.parents[1] / "cards" / "card.py")
CACHE = cache_for(_HERE, "game kernel", also=CONSTANT_SOURCES)

#: The policy's and the scry policy's bytecode, after the packed tables' fields.
PROGRAM_FIELDS = ("policy_code", "policy_consts", "scry_code", "scry_consts")
TABLE_FIELDS = (*KernelTables._fields, *PROGRAM_FIELDS)
#: The deck's tables and the policies' bytecode (:func:`as_tables`).
Tables = namedtuple("Tables", TABLE_FIELDS)  # type: ignore[misc]  # KernelTables' fields, more


def _plain(typ: Any) -> Any:
    """The type a compiled function of the game is compiled for, given an argument of type
    ``typ``: a literal as its value's type, a signed integer narrower than 64 bits as int64
    (numba converts the argument at the call)."""
    typ = types.unliteral(typ)
    return types.int64 if typ in (types.int8, types.int16, types.int32) else typ


def _one_signature(dispatcher: Any) -> Any:
    """Compile ``dispatcher`` for plain argument types only (:func:`_plain`).

    numba compiles a function called from compiled code for the exact types of the call's
    arguments: ``note(S, Trace.DEAL, 0, attempt, drawn)`` and ``note(S, Trace.KEEP, kind, 0,
    0)`` are two compilations, one per literal and per integer width, and each compiles
    again what the function calls. Asked for the plain types, it compiles a function once,
    and every call converts its arguments to them (a literal is its value; an int32, the same
    number as an int64): the same machine code, about a fifth less compiling.
    """
    resolve = getattr(dispatcher, "get_call_template", None)
    if resolve is None:  # NUMBA_DISABLE_JIT: the plain Python function
        return dispatcher

    def get_call_template(args: Any, kws: Any) -> Any:
        return resolve(tuple(_plain(a) for a in args), {k: _plain(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


def compiled(function: Callable[..., Any] | None = None, *, entry: bool = False,
             **options: Any) -> Any:
    """Compile ``function`` for the game: ``numba.njit`` with ``_nrt=False`` (no reference
    counting) and NumPy's error model (no zero-divisor checks), cached by :data:`CACHE`,
    and any further numba ``options`` (``nogil=True``);
    with no function, the decorator with those options.

    Only an ``entry`` point (:func:`~.game.play_chunk`) can be called from Python, and only
    entry points are cached on disk: the other functions are called by compiled code alone
    and live in the entry point's machine code, so numba makes no Python wrapper for them
    and writes no cache entry of their own (together, a fifth of the cold compile, and a
    warm start loads one entry). Calling one of them from Python crashes the interpreter; a
    test calls one through a compiled function of its own.
    """
    options = {"_nrt": False, "error_model": "numpy", **options, "cache": False}
    if not entry:
        options.update(no_cpython_wrapper=True, no_cfunc_wrapper=True)
    keep = CACHE.attach if entry else _one_signature
    if function is None:
        return lambda later: keep(njit(later, **options))
    return keep(njit(function, **options))


def as_tables(K: KernelTables, programs: tuple[np.ndarray, ...]) -> Tables:
    """The record of the packed tables ``K`` and the policies' ``programs`` (policy code and
    constants, then the scry policy's), every array C-contiguous, so that the compiled game
    sees one type whatever the deck."""
    return Tables(*(np.ascontiguousarray(a) for a in (*K, *programs)))


class Borrowed(types.Type):
    """numba type of a record passed by reference: a pointer to a named tuple of ``record``
    type, read by field name like the tuple itself."""

    def __init__(self, record: types.BaseNamedTuple):
        self.record: Any = record  # its fields and types, as numba reads them
        super().__init__(name=f"Borrowed({record})")


@register_model(Borrowed)
class BorrowedModel(models.PrimitiveModel):
    """A :class:`Borrowed` record is one pointer to the tuple's native structure."""

    def __init__(self, dmm: Any, fe_type: Borrowed) -> None:
        pointer = dmm.lookup(fe_type.record).get_value_type().as_pointer()
        super().__init__(dmm, fe_type, pointer)


@infer_getattr
class BorrowedAttributes(AttributeTemplate):
    """A :class:`Borrowed` record's fields have the tuple's field types."""

    key = Borrowed

    def generic_resolve(  # type: ignore[override]  # numba's stub: NotImplemented
            self, typ: Borrowed, attr: str) -> Any:
        record = typ.record
        if attr in record.fields:
            return record.types[record.fields.index(attr)]
        return None


@lower_getattr_generic(Borrowed)
def _borrowed_field(context: Any, builder: Any, typ: Borrowed, pointer: Any, attr: str) -> Any:
    """A field of a :class:`Borrowed` record: one load through its pointer, marked invariant
    (the record is never written after :func:`borrow`)."""
    index = typ.record.fields.index(attr)
    value = builder.load(cgutils.gep_inbounds(builder, pointer, 0, index))
    value.set_metadata("invariant.load", builder.module.add_metadata([]))
    return impl_ret_borrowed(context, builder, typ.record.types[index], value)


@intrinsic
def _borrow(typingctx: Any, record: Any) -> Any:
    """The :class:`Borrowed` record of the named tuple ``record``: a copy on the calling
    function's stack, valid until that function returns. It may be passed down to the
    functions that function calls, never returned or stored (only
    :func:`~.game.play_chunk` borrows, once per chunk)."""
    if not isinstance(record, types.BaseNamedTuple):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        slot = cgutils.alloca_once(builder, context.get_value_type(record))
        builder.store(args[0], slot)
        return slot

    return Borrowed(record)(record), codegen


#: ``borrow(record)`` in compiled code (numba passes the typing context to the intrinsic).
borrow: Any = _borrow

if config.DISABLE_JIT:  # plain Python: a record is read as it is

    def _borrow_record(record: Any) -> Any:  # the uncompiled stand-in
        """The record itself."""
        return record

    borrow = _borrow_record
