"""The game optimised by LLVM once, not once per level of its calls.

numba compiles every function of the game into a code library of its own, links into it the
libraries of the functions it calls, and optimises the whole at LLVM's full level. A function
deep in the game (a card's castability, a payment) is thus optimised again in the library of
every function above it: about as many times as the game's calls are deep, which was most of
the cold compile. While the game compiles (:func:`optimised_once`, in the compiling thread
only), every library but the entry point's is left as numba's function passes made it; the
entry point's library, which links every function of the game, gets the full optimisation
once, so the machine code that plays is as fast (``benchmarks/compile_time.py`` measures the
compile; alternating processes measure the games).

Before that optimisation, every function linked into the entry point's library but the entry
point's own is made internal to it. numba links callees under weak names, and the JIT binds a
weak name to the first definition it holds: in the process that compiled the game, that was
the callee's own unoptimised library, and the game played 2.4 times slower there than where
it was loaded from numba's cache. Internal, each call binds to the copy optimised with the
entry point, which LLVM may also inline where it is called once (13-16% faster games than
the weak names gave even from the cache).

Nor is any of those libraries compiled to machine code of its own: numba adds every library
to its JIT and emits its machine code, though only the entry point's is ever called (the other
functions have no Python wrapper, :func:`~.records.compiled`, and the entry point holds its
own copies of them). Within :func:`optimised_once` they are finalised without joining the JIT,
as in a process that loads the game from the cache, where they do not exist at all; that was
a third of the cold compile (28-30 s of CPU before, 20 s after, on the 2-core machine of
``docs/guide/performance.md``).

This reaches into numba's code generator (``CPUCodeLibrary._optimize_final_module`` and
``_finalize_final_module``, ``JITCPUCodegen.set_env``), the one place it can be done; where
a numba release has no such methods, the game compiles as numba does by default (the same
games, a slower compile). ``tests/test_kernel_parts.py`` checks that it still takes effect.

One more cost of the cold compile is numba's alone: typing each call of an overloaded
function (every ``getitem`` of the game) looks up a cache keyed by the compiler's flags,
and hashing or comparing the flags reads each of their forty-odd options through its
property (``TargetConfig.values``), about 250,000 times. :func:`faster_flag_values` gives
``values`` the same dictionary read directly from the flags' own values and their options'
defaults, as numba's properties read them (a median 10% of the cold compile's CPU in six
alternating pairs of fresh processes). It also gives the flags numba's hash worked out once
per class (numba hashes the options' names, the same for every instance) and an equality
that compares only the options either side sets (the rest are both their defaults): about
90,000 comparisons and 70,000 hashes a compile, each of which built ``values()`` once or
twice (a further median 10% in ten alternating pairs). A flags class that reads an option
otherwise than through numba's own property (one's own subclass that replaces it, or
``values``) keeps numba's own answers.
"""

from __future__ import annotations

import contextlib
import inspect
import threading
from collections.abc import Iterator
from typing import Any

from numba.core import codegen, targetconfig

__all__ = ["optimised_once", "cheap_libraries", "faster_flag_values"]

#: The compiling thread's entry point (None: numba's default) and the libraries it gave only
#: the cheap pass.
_STATE = threading.local()
_INSTALLED: list[bool] = []
_LOCK = threading.Lock()


def cheap_libraries() -> int:
    """How many libraries the current (or last) :func:`optimised_once` of this thread left
    to be optimised where they are linked into the entry point.

    Returns
    -------
    int
    """
    return getattr(_STATE, "cheap", 0)


def _internalise(module: Any, entry: str) -> None:
    """Give every function ``module`` defines, but the entry point's own, internal linkage."""
    for function in module.functions:
        if not function.is_declaration and entry not in function.name:
            function.linkage = "internal"


def _linked_only(library: str) -> bool:
    """Whether the library named ``library`` is one this thread's :func:`optimised_once`
    leaves to live only where the entry point links it."""
    entry = getattr(_STATE, "entry", None)
    return entry is not None and entry not in library


def _install() -> bool:
    """Wrap numba's module optimisation and finalisation, and its setting of a library's
    environment, once per process: the wrappers defer to numba's own in every thread but one
    inside :func:`optimised_once`. Returns whether they are in place."""
    library = getattr(codegen, "CPUCodeLibrary", None)
    original = getattr(library, "_optimize_final_module", None)
    finalise_module = getattr(library, "_finalize_final_module", None)
    jit = getattr(codegen, "JITCPUCodegen", None)
    original_set_env = getattr(jit, "set_env", None)
    if (library is None or original is None or finalise_module is None or jit is None
            or original_set_env is None):
        return False
    with _LOCK:
        if _INSTALLED:
            return True

        def optimise(self: Any) -> Any:
            if not _linked_only(self.name):
                entry = getattr(_STATE, "entry", None)
                if entry is not None:  # the entry point's own library
                    _internalise(self._final_module, entry)
                return original(self)
            _STATE.cheap = getattr(_STATE, "cheap", 0) + 1
            return None  # optimised where it is linked into the entry point

        def finalise(self: Any) -> Any:
            if not _linked_only(self.name):
                return finalise_module(self)
            # Linked into the entry point, whose machine code holds it: its own machine code
            # would never run, so it is neither added to the JIT nor compiled.
            self._finalize_dynamic_globals()
            self._verify_declare_only_symbols()
            self._finalized = True
            return None

        def set_env(self: Any, env_name: str, env: Any) -> Any:
            if getattr(_STATE, "entry", None) is not None and \
                    not self._engine.is_symbol_defined(env_name):
                return None  # a library left out of the JIT (as in a process loading the cache)
            return original_set_env(self, env_name, env)

        library._optimize_final_module = optimise
        library._finalize_final_module = finalise
        jit.set_env = set_env
        _INSTALLED.append(True)
    return True


#: numba's own ``TargetConfig.values`` and the code of the getter its metaclass gives every
#: option's property, kept when :func:`faster_flag_values` replaces them.
_NUMBA: dict[str, Any] = {}
#: Whether each flags class reads its options as numba's own properties do
#: (:func:`_reads_plainly`), and numba's hash of the classes that do (:func:`_flags_hash`).
_PLAIN: dict[type, bool] = {}
_HASHES: dict[type, int] = {}


def _numba_getter() -> Any:
    """The code of the getter numba's metaclass gives an option's property: the value set,
    else the option's default."""

    class Probe(targetconfig.TargetConfig):
        probe = targetconfig.Option(type=bool, default=False, doc="a probe option")

    return vars(Probe)["probe"].fget.__code__


def _reads_plainly(cls: Any) -> bool:
    """Whether flags of class ``cls`` read every option through numba's own property and keep
    this module's ``values``: only then are their options read from ``_values`` directly (a
    class of one's own that overrides a property or ``values`` gets numba's own methods)."""
    known = _PLAIN.get(cls)
    if known is None:
        getter = _NUMBA["getter"]
        known = getattr(cls, "values", None) is _flag_values and all(
            isinstance(prop := inspect.getattr_static(cls, name, None), property)
            and getattr(prop.fget, "__code__", None) is getter for name in cls.options)
        _PLAIN[cls] = known
    return known


def _flag_values(self: Any) -> dict[str, Any]:
    """``TargetConfig.values``: every option's value, the one set or its default (what
    numba's property for each option returns), without a property call per option."""
    if not _reads_plainly(type(self)):
        return _NUMBA["values"](self)
    values = self._values
    return {name: values.get(name, option.default) for name, option in self.options.items()}


def _flags_hash(self: Any) -> int:
    """``TargetConfig.__hash__``: numba hashes the sorted keys of ``values()``, the names of
    the class's options, the same for every instance of a class: worked out once per class."""
    cls = type(self)
    if not _reads_plainly(cls):
        return hash(tuple(sorted(self.values())))
    known = _HASHES.get(cls)
    if known is None:
        known = _HASHES[cls] = hash(tuple(sorted(self.values())))
    return known


def _flags_equal(self: Any, other: Any) -> Any:
    """``TargetConfig.__eq__``: equal ``values()``. For two instances of one class, only the
    options either sets can differ (the others are both their default): those alone are
    compared (a name that is no option of the class, copied from flags of another, is not
    one of its values)."""
    if not isinstance(other, targetconfig.TargetConfig):
        return NotImplemented
    cls: Any = type(other)
    if type(self) is not cls or not _reads_plainly(cls):
        return self.values() == other.values()
    options, mine, theirs = cls.options, self._values, other._values
    if mine == theirs:
        return True
    for name in mine.keys() | theirs.keys():
        option = options.get(name)
        if option is not None and mine.get(name, option.default) != theirs.get(name,
                                                                               option.default):
            return False
    return True


def faster_flag_values() -> bool:
    """Give numba's ``TargetConfig.values`` the same result read directly, and its
    ``__hash__`` and ``__eq__`` the same answers worked out with less (:func:`_flags_hash`,
    :func:`_flags_equal`), once per process (where a numba release has no such method,
    nothing is changed). Returns whether they are in place.

    Returns
    -------
    bool
    """
    config = getattr(targetconfig, "TargetConfig", None)
    if config is None or not callable(getattr(config, "values", None)):
        return False
    with _LOCK:
        if config.values is not _flag_values:
            _NUMBA.update(values=config.values, getter=_numba_getter())
            config.values = _flag_values
            config.__hash__ = _flags_hash
            config.__eq__ = _flags_equal
    return True


@contextlib.contextmanager
def optimised_once(entry: str) -> Iterator[None]:
    """Within this context, in this thread, numba runs its module optimisation only on the
    code library whose name holds ``entry`` (the game's entry point).

    Parameters
    ----------
    entry : str
        The entry point's function name (``"play_chunk"``).
    """
    faster_flag_values()
    if not _install():
        yield
        return
    _STATE.entry, _STATE.cheap = entry, 0
    try:
        yield
    finally:
        _STATE.entry = None
