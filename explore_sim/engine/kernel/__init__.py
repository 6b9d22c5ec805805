"""The compiled game: whole goldfish games, one at a time, in numba.

The vectorised turn loop (:mod:`explore_sim.engine.goldfish`) plays every game of a chunk
at once with NumPy; this engine plays them one after another in compiled scalar code
(:mod:`.game` and the modules it builds on: :mod:`.zones`, :mod:`.decisions`,
:mod:`.colours`, :mod:`.search`, :mod:`.lands`, :mod:`~explore_sim.engine.kernel.explore`, :mod:`.spells`,
:mod:`.actions`, :mod:`.turn`; their numbering in :mod:`.codes`; sets of card ids as bits
in :mod:`.bits`; a game's log, written only when asked for, in :mod:`.trace`), reading the same frozen :class:`~explore_sim.engine.tables.DeckTables`
(packed by :mod:`.pack`; the game's records and how it is compiled in :mod:`.records`; the
chunks' output arrays, reused, in :mod:`explore_sim.engine.buffers`) and
playing the same rules: the two implementations agree game by
game on the same libraries, which the tests check for every shipped deck. Policies run as a
small bytecode (:mod:`.bytecode`): the presets and every policy expression; a Python
callable policy (or mulligan keep rule) needs the vectorised engine.

Randomness: every chunk has one key, drawn from its :class:`numpy.random.SeedSequence`;
each game's deal (the library, dealt lazily: a partial Fisher-Yates shuffle of only the
cards the game reaches, every mulligan a fresh shuffle, and the shuffle after a search
leaves the library undealt again) and its play (removal, parley) have streams of their own
derived from the key and the game's index, so the same seed gives the same numbers however
the chunks are spread over workers, and decks that share positions of their starting order
see the same cards there; one game of a chunk can be played alone, with its log
(:func:`play_game_kernel`). For the same reason the games of a chunk can be cut into parts
played by threads at once, each with a game state of its own, into the same output arrays
(:func:`play_games_kernel`, on every core by default: :mod:`explore_sim.engine.threads`);
the numbers do not depend on how many.
"""

from __future__ import annotations

import contextlib
import logging
import threading

import numba
import numpy as np
from numba import config as numba_config
from numba.core import event as numba_event
from numba.np import arrayobj as _arrayobj

from ..buffers import chunk_array
from ..config import GameConfig
from ..metrics import CASTABLE_LANDS_PREFIX, CASTABLE_PREFIX, MAIN_LANDS
from ..mulligan import MulliganRule
from ..policies import Policy
from ..state import OpeningHands
from ..tables import DeckTables
from ..threads import kernel_threads, thread_parts
from .bytecode import compile_policy
from .game import play_chunk
from .pack import DIMS, EVENTS, GROUPS, METRICS, KernelTables, pack
from .records import CACHE, Tables, as_tables
from .state import R_NO_PENDING, SIZE, State, new_state

__all__ = [
    "COMPILE_NOTICE",
    "NOTICES",
    "KernelTables",
    "KernelUnsupported",
    "compile_policy",
    "compiling",
    "kernel_problem",
    "loaded",
    "pack",
    "play_game_kernel",
    "play_games_kernel",
    "play_openings",
]


class KernelUnsupported(ValueError):
    """What the compiled game cannot play (a Python callable policy, a custom keep rule)."""


def kernel_problem(tables: DeckTables, policy: Policy, scry_policy: Policy | None,
                   mulligan: MulliganRule) -> str | None:
    """Why the compiled game cannot play these games (None when it can)."""
    for name, value in (("policy", policy), ("scry policy", scry_policy)):
        if value is not None and compile_policy(value) is None:
            return f"the {name} is a Python callable"
    if mulligan.keep is not None:
        return "the mulligan keep rule is a Python callable"
    unknown = [g for g in tables.groups if g not in GROUPS and tables.ids[g].size]
    if unknown:
        return f"abilities the compiled game does not play: {', '.join(unknown)}"
    # The compiled game never recurses: no land's entering starts an explore or a search.
    f = tables.features
    for group in ("each_turn_land_on_enter", "explores_on_enter", "target_explores_on_enter",
                  "basic_to_hand_on_enter"):
        if f.is_land[tables.ids[group]].any():
            return "a land with an enter trigger that explores or searches"
    if tables.ids["enters_explorer"].size and (f.is_land & f.is_creature).any():
        return "a land creature with a 'whenever a creature enters, it explores' permanent"
    basics = tables.basic_ids
    if (f.fetch_when[basics].any() or f.land_enters[basics].any()
            or f.is_creature[basics].any()):
        return "a basic land with an ability of its own"
    return None


_PACKED: dict[tuple, tuple[KernelTables, np.ndarray, DeckTables]] = {}


def _packed(tables: DeckTables, config: GameConfig) -> tuple[KernelTables, np.ndarray]:
    """The packed tables and the cleanup's discard order, built once per tables and
    options."""
    key = (id(tables), config)
    entry = _PACKED.get(key)
    if entry is None or entry[2] is not tables:
        entry = (pack(tables, config), tables.discard_order, tables)
        if len(_PACKED) >= 32:
            _PACKED.clear()
        _PACKED[key] = entry
    return entry[0], entry[1]


def _programs(policy: Policy, scry_policy: Policy | None) -> tuple[np.ndarray, ...]:
    code = compile_policy(policy)
    scry_code = compile_policy(scry_policy) if scry_policy is not None else code
    if code is None or scry_code is None:
        raise KernelUnsupported("a Python callable policy needs the vectorised engine")
    return (*code, *scry_code)


def _results(config: GameConfig, out: np.ndarray, opening: np.ndarray
             ) -> dict[int, dict[str, np.ndarray]]:
    """The metrics by turn from ``out`` (turns, metrics, games): each a contiguous row of
    it, no copy; and the opening hand's from ``opening`` (games, 3)."""
    names = [*METRICS, *(CASTABLE_PREFIX + card.name for card in config.castable)]
    if config.castable_lands:
        names += [MAIN_LANDS, *(CASTABLE_LANDS_PREFIX + card.name for card in config.castable)]
    taken = [(m, name) for m, name in enumerate(names) if name in config.metric_names]
    result = {0: {"mulligans": opening[:, 0].copy(), "hand_size": opening[:, 1].copy(),
                  "opening_lands": opening[:, 2].copy()}}
    for turn in range(1, config.turns + 1):
        result[turn] = {name: out[turn - 1, m] for m, name in taken}
    return result


def _mulligan(rule: MulliganRule) -> np.ndarray:
    if rule.keep is not None:
        raise KernelUnsupported("a mulligan keep rule that is a Python callable needs the "
                                "vectorised engine")
    return np.array([0 if rule.kind == "none" else 1, int(rule.free_first), rule.max_mulligans],
                    dtype=np.int64)


def _records(K: KernelTables, policy: Policy, scry_policy: Policy | None, size: int,
             trace_rows: int = 0) -> tuple[Tables, State]:
    """The compiled game's two records for a chunk: the tables with the policies' bytecode
    (:func:`~.records.as_tables`), and a game's state (:mod:`.state`) for a library of
    ``size`` cards, allocated once for the chunk's games (with ``trace_rows`` rows of log:
    :mod:`.trace`)."""
    programs = _programs(policy, scry_policy)
    return as_tables(K, programs), _state(K, programs, size, trace_rows)


def _state(K: KernelTables, programs: tuple[np.ndarray, ...], size: int,
           trace_rows: int = 0) -> State:
    """A game's state for the tables ``K`` and the policies' ``programs``, for a library of
    ``size`` cards (:func:`_records`)."""
    d = dict(zip(DIMS, K.dims.tolist()))
    width = max(d["n_kinds"], d["n_classes"], d["n_masks"], d["n_options"], d["n_basics"],
                d["n_profiles"], len(METRICS) + 1 + 2 * d["n_castable"], 8)
    S = new_state(d["n_kinds"], d["n_groups"], d["n_classes"], d["n_masks"], size, len(EVENTS),
                  3 + 2 * d["n_castable"], width, max(len(programs[0]), len(programs[2])),
                  d["turns"], trace_rows)
    S.slots[SIZE] = size
    S.work[R_NO_PENDING, 0] = -1
    return S


def _empty_given(size: int, n_kinds: int) -> tuple[np.ndarray, ...]:
    return (np.zeros((0, size + 1), np.int32), np.zeros(0, np.int64), np.zeros(0, np.int64),
            np.zeros((0, n_kinds), np.int32), np.zeros(0, np.int64))


#: One-line notices for the person waiting (the command line prints them on a terminal).
NOTICES = logging.getLogger("explore_sim.notices")
#: What the first game after an install waits for (said once per process).
COMPILE_NOTICE = ("compiling the game kernel (once per installation, a minute or two); "
                  "later runs load it at once")
_SAID: list[bool] = []


class _GameCompilation(numba_event.Listener):
    """Follows numba's compilations of the game's functions (this package's modules): numba
    announces a compilation only when its cache holds no machine code for the function, so
    the first game after an install or an edit waits for it. Says so once per process
    (:data:`NOTICES`), and counts the compilations under way for :func:`compiling`
    (numba compiles one function at a time, the game's nested inside ``play_chunk``'s)."""

    def __init__(self) -> None:
        self.open = 0
        self._lock = threading.Lock()

    def on_start(self, event):
        if not _is_game(event):
            return
        with self._lock:
            self.open += 1
        if not _SAID:
            _SAID.append(True)
            NOTICES.info(CACHE.notice(COMPILE_NOTICE))

    def on_end(self, event):
        if _is_game(event):
            with self._lock:
                self.open -= 1


def _is_game(event) -> bool:
    """Whether a numba compile event is for one of the game's functions."""
    dispatcher = (event.data or {}).get("dispatcher")
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
    return module == __name__ or module.startswith(__name__ + ".")


_COMPILATIONS = _GameCompilation()
numba_event.register("numba:compile", _COMPILATIONS)


def compiling() -> bool:
    """Whether this process is compiling the game now (numba's cache held no machine code for
    it: the first run after an install waits a minute or two), for a page to say why its
    run has not started.

    Returns
    -------
    bool
    """
    return _COMPILATIONS.open > 0


def loaded() -> bool:
    """Whether the game's machine code is in this process (compiled, or loaded from numba's
    cache), so that a run starts at once.

    Returns
    -------
    bool
    """
    return bool(play_chunk.signatures)


_COMPILING = threading.Lock()


#: Set in the thread compiling the game (:func:`_game_compile_settings`).
_UNWRAPPED = threading.local()


def _index_fixer(wrapping):
    """numba's integer index fixer ``wrapping`` (``fix_integer_index``), leaving a negative
    index as it is (no wrap to the end of the array) in the thread compiling the game only:
    anything else numba compiles meanwhile, in another thread, keeps Python's meaning of
    ``a[-1]``."""

    def fix(context, builder, index_type, index, size):
        if getattr(_UNWRAPPED, "on", False):
            return context.cast(builder, index, index_type, numba.types.intp)
        return wrapping(context, builder, index_type, index, size)

    fix.wrapping = wrapping
    return fix


@contextlib.contextmanager
def _game_compile_settings():
    """numba's settings while the game compiles; they are put back at once, and a game
    loaded from numba's cache is not compiled again.

    - LLVM's loop and SLP vectorisers are off. The game's loops run over a few card ids,
      unit classes or masks at a time, so vectorised copies of them (with their run-time
      checks and scalar remainders) only make the code larger and slower: the game plays
      about 7% faster without them. numba reads these settings at each compilation (for
      every thread: something else compiled meanwhile is only not vectorised).
    - An array index is not wrapped around when negative (Cython's ``wraparound=False``;
      numba has no option for it, so its index fixer is wrapped by :func:`_index_fixer`,
      which leaves the index alone in this thread). Every index the game computes is a count
      or an id, never negative: the wrap was a comparison and a select on every array read
      and write, and the game plays 5-8% faster without it. Where this numba has no such
      fixer, the game compiles with the wrap (the same numbers, a little slower).
    """
    saved = numba_config.LOOP_VECTORIZE, numba_config.SLP_VECTORIZE
    numba_config.LOOP_VECTORIZE = numba_config.SLP_VECTORIZE = False
    wrapping = getattr(_arrayobj, "fix_integer_index", None)
    if wrapping is not None:
        _arrayobj.fix_integer_index = _index_fixer(wrapping)
    _UNWRAPPED.on = True
    try:
        yield
    finally:
        _UNWRAPPED.on = False
        numba_config.LOOP_VECTORIZE, numba_config.SLP_VECTORIZE = saved
        if wrapping is not None:
            _arrayobj.fix_integer_index = wrapping


def _compile_for(args: tuple) -> None:
    """Compile :func:`.game.play_chunk` (or load it from numba's cache) for the types of
    ``args``, with the game's settings (:func:`_game_compile_settings`), unless it is."""
    if not numba_config.DISABLE_JIT and not play_chunk.signatures:
        with _COMPILING, _game_compile_settings():
            if not play_chunk.signatures:
                play_chunk.compile(tuple(numba.typeof(a) for a in args))


def _play_chunk(*args) -> None:
    """:func:`.game.play_chunk` on ``args``, compiled first (:func:`_compile_for`). It
    releases the GIL while a chunk plays (so that in a thread, a web page's run or a Dask
    worker's task, the thread answering requests goes on meanwhile, and threads can play
    the parts of a chunk at once: :func:`_play_parts`)."""
    _compile_for(args)
    play_chunk(*args)


def _play_parts(tables: Tables, K: KernelTables, programs: tuple[np.ndarray, ...],
                state: State, args: tuple, threads: int, games: int) -> None:
    """Play ``games`` games (:func:`_play_chunk` on ``args``, which end with the chunk's
    output arrays and the first game's index) cut into parts (:func:`.threads.thread_parts`):
    the first in this thread with ``state``, each other in a thread of its own with a state
    of its own. Every game's numbers are its own, so they do not depend on ``threads``."""
    parts = thread_parts(games, threads)
    first = (tables, state, *args, *map(np.int64, parts[0]))
    if len(parts) == 1:
        _play_chunk(*first)
        return
    _compile_for(first)  # before the threads start
    errors: list[BaseException] = []

    def play(start: int, stop: int) -> None:
        try:
            _play_chunk(tables, _state(K, programs, len(args[0])), *args, np.int64(start),
                        np.int64(stop))
        except BaseException as error:  # re-raised in the calling thread
            errors.append(error)

    helpers = [threading.Thread(target=play, args=part, name="explore-kernel")
               for part in parts[1:]]
    for helper in helpers:
        helper.start()
    try:
        play_chunk(*first)
    finally:
        for helper in helpers:
            helper.join()
    if errors:
        raise errors[0]


def play_games_kernel(tables: DeckTables, config: GameConfig, policy: Policy,
                      mulligan: MulliganRule, trials: int, chunk_seed: np.random.SeedSequence,
                      card_ids: np.ndarray, scry_policy: Policy | None = None,
                      threads: int | None = None) -> dict[int, dict[str, np.ndarray]]:
    """Play ``trials`` goldfish games of the deck of ``tables`` in compiled code.

    Parameters
    ----------
    tables : DeckTables
    config : GameConfig
    policy, scry_policy : Policy
        Presets or expressions (:func:`compile_policy`); the scry policy defaults to the
        keep-or-mill policy.
    mulligan : MulliganRule
        As played (a Commander game's free first mulligan already applied).
    trials : int
    chunk_seed : numpy.random.SeedSequence
        The chunk's seed: its first four 64-bit words key every game's streams.
    card_ids : ndarray of shape (size,)
        The library's starting order (the deal shuffles it).
    threads : int, optional
        Threads that play the games at once (default :func:`~explore_sim.engine.threads.
        kernel_threads`: every core, or one in a worker); the numbers do not depend on it.

    Returns
    -------
    dict of int to dict of str to ndarray of shape (trials,)
        Per-trial metrics by turn (0: the opening hand), as the vectorised engine gives them;
        a turn's metrics are rows of one array of the chunk, not copies.
    """
    K, discard = _packed(tables, config)
    n_metrics = len(config.metric_names)
    out = chunk_array((config.turns, n_metrics, trials))  # every element is written
    opening = chunk_array((trials, 3))
    key = chunk_seed.generate_state(4, dtype=np.uint64)
    deck = np.ascontiguousarray(card_ids, dtype=np.int32)
    programs = _programs(policy, scry_policy)
    args = (deck, key, _mulligan(mulligan), discard, out, opening,
            _empty_given(len(deck), tables.n_kinds), np.int64(0))
    _play_parts(as_tables(K, programs), K, programs, _state(K, programs, len(deck)), args,
                kernel_threads() if threads is None else threads, trials)
    return _results(config, out, opening)


def play_game_kernel(tables: DeckTables, config: GameConfig, policy: Policy,
                     mulligan: MulliganRule, chunk_seed: np.random.SeedSequence,
                     card_ids: np.ndarray, game: int, scry_policy: Policy | None = None,
                     trace_rows: int = 1 << 14
                     ) -> tuple[dict[int, dict[str, np.ndarray]], np.ndarray]:
    """Play game ``game`` of the chunk seeded ``chunk_seed`` alone, with its log.

    The game is the one :func:`play_games_kernel` plays at that index of the chunk (its
    streams are keyed from the chunk's key and the index alone).

    Parameters
    ----------
    tables, config, policy, mulligan, chunk_seed, card_ids, scry_policy
        As for :func:`play_games_kernel`.
    game : int
        The game's index in the chunk.
    trace_rows : int
        Room for the log's events.

    Returns
    -------
    (dict of int to dict of str to ndarray of shape (1,), ndarray of shape (n, 5))
        The game's metrics by turn, as :func:`play_games_kernel` gives them, and its
        events ``(turn, event, card, a, b)`` (:data:`.trace.TRACE_EVENTS`).

    Raises
    ------
    RuntimeError
        A log longer than ``trace_rows``.
    """
    K, discard = _packed(tables, config)
    out = np.zeros((config.turns, len(config.metric_names), 1), dtype=np.int32)
    opening = np.zeros((1, 3), dtype=np.int32)
    key = chunk_seed.generate_state(4, dtype=np.uint64)
    deck = np.ascontiguousarray(card_ids, dtype=np.int32)
    packed, S = _records(K, policy, scry_policy, len(deck), trace_rows)
    _play_chunk(packed, S, deck, key, _mulligan(mulligan), discard, out, opening,
                _empty_given(len(deck), tables.n_kinds), np.int64(game), np.int64(0),
                np.int64(1))
    trace = S.trace
    if trace[0, 1]:
        raise RuntimeError(f"the game's log needs more than {trace_rows} rows")
    return _results(config, out, opening), trace[1:1 + trace[0, 0]].copy()


def play_openings(tables: DeckTables, config: GameConfig, policy: Policy,
                  opening: OpeningHands, card_ids: np.ndarray,
                  scry_policy: Policy | None = None) -> dict[int, dict[str, np.ndarray]]:
    """Play the vectorised engine's opening hands (given libraries, as the tests do), a
    search reversing the library instead of shuffling it (the tests' stand-in for both
    engines); removal and parley coins draw from the compiled game's own stream."""
    K, discard = _packed(tables, config)
    trials = opening.hand.shape[0]
    n_metrics = len(config.metric_names)
    out = np.zeros((config.turns, n_metrics, trials), dtype=np.int32)
    first = np.zeros((trials, 3), dtype=np.int32)
    given = (np.ascontiguousarray(opening.library, dtype=np.int32),
             opening.top.astype(np.int64), opening.end.astype(np.int64),
             np.ascontiguousarray(opening.hand, dtype=np.int32),
             opening.mulligans.astype(np.int64))
    deck = np.ascontiguousarray(card_ids, dtype=np.int32)
    key = np.zeros(4, dtype=np.uint64)
    _play_chunk(*_records(K, policy, scry_policy, len(deck)), deck, key,
                np.array([0, 0, 0], dtype=np.int64), discard, out, first, given, np.int64(0),
                np.int64(0), np.int64(trials))
    return _results(config, out, first)
