"""The compiled game: whole goldfish games, one at a time, in numba.

The vectorised turn loop (:mod:`explore_sim.engine.goldfish`) plays every game of a chunk
at once with NumPy; this engine plays them one after another in compiled scalar code
(:mod:`.game` and the modules it builds on: :mod:`.zones`, :mod:`.decisions`,
:mod:`.colours`, :mod:`.search`, :mod:`~explore_sim.engine.kernel.lands`,
:mod:`~explore_sim.engine.kernel.explore`, :mod:`.spells`, :mod:`.actions`, :mod:`.turn`;
their numbering in :mod:`.layout` and :mod:`.codes`; sets of card ids as bits in
:mod:`.bits`; a game's log, written only when asked for, in :mod:`.trace`), reading the same
frozen :class:`~explore_sim.engine.tables.DeckTables`
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
the numbers do not depend on how many. Where only each turn's distribution of every metric
is wanted (``simulate``), each thread counts its games' metrics by value as they are played
and no game's metrics are written out (:func:`count_games_kernel`).
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
import warnings

import numba
import numpy as np
from numba import config as numba_config
from numba.core import event as numba_event

from ...errors import CompileNotice
from ...progress import compile_listeners, terminal_shows_notices
from .. import abilities
from ..buffers import chunk_array
from ..config import GameConfig
from ..coupled import SameGames, Watch
from ..metrics import CASTABLE_LANDS_PREFIX, CASTABLE_PREFIX, MAIN_LANDS
from ..mulligan import MulliganRule
from ..options import config_options
from ..policies import Policy
from ..state import OpeningHands
from ..tables import DeckTables
from ..threads import kernel_threads, thread_parts
from .bytecode import compile_policy, policy_problem
from .game import play_chunk
from .layout import N_EVENTS, N_TURN_METRICS, Dim, Slot, TurnMetric, Work, columns
from .optimise import optimised_once
from .pack import KernelTables, pack
from .records import CACHE, Tables, as_tables
from .state import State, new_state

__all__ = [
    "COMPILE_NOTICE",
    "NOTICES",
    "KernelTables",
    "KernelUnsupported",
    "SameGames",
    "Watch",
    "compile_policy",
    "compiling",
    "count_games_kernel",
    "kernel_problem",
    "loaded",
    "pack",
    "play_game_kernel",
    "play_games_kernel",
    "play_opening_log",
    "play_openings",
]


class KernelUnsupported(ValueError):
    """What the compiled game cannot play (a Python callable policy, a custom keep rule)."""


def kernel_problem(tables: DeckTables, policy: Policy, scry_policy: Policy | None,
                   mulligan: MulliganRule, config: GameConfig) -> str | None:
    """Why the compiled game cannot play these games (None when it can).

    The registries say what the kernel plays: an ability of the deck, a game option's value
    other than its default, a metric asked for or a policy's field or operator whose entry
    has ``kernel=False`` is named here, as are Python callables (policies, the keep rule).
    """
    for name, value in (("policy", policy), ("scry policy", scry_policy)):
        problem = policy_problem(value) if value is not None else None
        if problem is not None:
            return f"the {name} {problem}" if problem != "a Python callable" \
                else f"the {name} is a Python callable"
    if mulligan.keep is not None:
        return "the mulligan keep rule is a Python callable"
    plays = {ability.name: ability.kernel for ability in abilities.ABILITIES}  # as registered
    unknown = [g for g in tables.groups if tables.ids[g].size and not plays.get(g, True)]
    if unknown:
        return f"abilities the compiled game does not play: {', '.join(unknown)}"
    options = [entry.name for entry in config_options()
               if not entry.kernel and getattr(config, entry.name) != entry.default]
    if options:
        return f"game options the compiled game does not play: {', '.join(options)}"
    rows = set(_metric_rows(config))
    metrics = [name for name in config.metric_names if name not in rows]
    if metrics:
        return f"metrics the compiled game does not record: {', '.join(metrics)}"
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


#: Policies' bytecode already compiled (a run's chunks play the same policies).
_COMPILED: dict[object, tuple[np.ndarray, np.ndarray] | None] = {}


def _compiled(policy: Policy) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`compile_policy`, once per policy (presets and expressions are hashable)."""
    try:
        if policy in _COMPILED:
            return _COMPILED[policy]
    except TypeError:  # an unhashable callable: not compiled anyway
        return compile_policy(policy)
    if len(_COMPILED) >= 64:
        _COMPILED.clear()
    _COMPILED[policy] = code = compile_policy(policy)
    return code


def _programs(policy: Policy, scry_policy: Policy | None) -> tuple[np.ndarray, ...]:
    code = _compiled(policy)
    scry_code = _compiled(scry_policy) if scry_policy is not None else code
    if code is None or scry_code is None:
        raise KernelUnsupported("a Python callable policy needs the vectorised engine")
    return (*code, *scry_code)


def _recorded(config: GameConfig) -> tuple[list[str], np.ndarray]:
    """The metrics a game of ``config`` records (:attr:`GameConfig.metric_names`), in the
    kernel's order, and their rows of :func:`~.turn.turn_metrics`' values (int64)."""
    names = _metric_rows(config)
    wanted = config.metric_names
    missing = [name for name in wanted if name not in names]
    if missing:  # the engine's choice refuses these runs first (kernel_problem)
        raise KernelUnsupported(f"metrics the compiled game does not record: "
                                f"{', '.join(missing)}")
    rows = [m for m, name in enumerate(names) if name in wanted]
    return [names[m] for m in rows], np.array(rows, dtype=np.int64)


def _results(config: GameConfig, out: np.ndarray, opening: np.ndarray
             ) -> dict[int, dict[str, np.ndarray]]:
    """The metrics by turn from ``out`` (turns, metrics recorded, games): each a contiguous
    row of it, no copy; and the opening hand's from ``opening`` (games, 3)."""
    names, _ = _recorded(config)
    result = {0: {"mulligans": opening[:, 0].copy(), "hand_size": opening[:, 1].copy(),
                  "opening_lands": opening[:, 2].copy()}}
    for turn in range(1, config.turns + 1):
        result[turn] = {name: out[turn - 1, k] for k, name in enumerate(names)}
    return result


def _metric_rows(config: GameConfig) -> list[str]:
    """The metrics the compiled game writes for a game of ``config``, in its rows' order: the
    per-turn metrics by :class:`~.layout.TurnMetric`, then ``castable:CARD`` per card named by
    ``castable``; with ``castable_lands``, then ``main_lands`` and one ``castable_lands:CARD``
    per card."""
    names = [*columns(TurnMetric), *(CASTABLE_PREFIX + card.name for card in config.castable)]
    if config.castable_lands:
        names += [MAIN_LANDS, *(CASTABLE_LANDS_PREFIX + card.name for card in config.castable)]
    return names


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
    d = {dim: int(K.dims[dim]) for dim in Dim}
    width = max(d[Dim.N_KINDS], d[Dim.N_CLASSES], d[Dim.N_MASKS], d[Dim.N_OPTIONS],
                d[Dim.N_BASICS], d[Dim.N_PROFILES], N_TURN_METRICS + 1 + 2 * d[Dim.N_CASTABLE],
                8)
    S = new_state(d[Dim.N_KINDS], d[Dim.N_GROUPS], d[Dim.N_CLASSES], d[Dim.N_MASKS], size,
                  N_EVENTS, 3 + 2 * d[Dim.N_CASTABLE], width,
                  max(len(programs[0]), len(programs[2])), d[Dim.TURNS], trace_rows)
    S.slots[Slot.SIZE] = size
    S.work[Work.NO_PENDING, 0] = -1
    return S


def _empty_given(size: int, n_kinds: int) -> tuple[np.ndarray, ...]:
    return (np.zeros((0, size + 1), np.int32), np.zeros(0, np.int64), np.zeros(0, np.int64),
            np.zeros((0, n_kinds), np.int32), np.zeros(0, np.int64))


#: One-line notices for the person waiting (the command line prints them on a terminal).
NOTICES = logging.getLogger("explore_sim.notices")
#: What the first game after an install waits for (said once per process).
COMPILE_NOTICE = ("compiling the game kernel (once per installation, about half a minute); "
                  "later runs load it at once")
_SAID: list[bool] = []

def _announce() -> None:
    """Say once per process that the game compiles: the notices' log record (the command line
    prints it on its terminal) and, unless the command line shows it, a
    :class:`CompileNotice` (Python, Jupyter)."""
    if _SAID:
        return
    _SAID.append(True)
    notice = CACHE.notice(COMPILE_NOTICE)  # or why it compiles in memory
    NOTICES.info(notice)
    if not terminal_shows_notices():
        warnings.warn(notice, CompileNotice, stacklevel=2)


class _GameCompilation(numba_event.Listener):
    """Follows numba's compilations of the game's functions (this package's modules): numba
    announces a compilation only when its cache holds no machine code for the function, so
    the first game after an install or an edit waits for it. Says so once per process
    (:data:`NOTICES`), and counts the compilations under way for :func:`compiling`
    (numba compiles one function at a time, the game's nested inside ``play_chunk``'s)."""

    def __init__(self) -> None:
        self.open = 0
        self._lock = threading.Lock()

    def on_start(self, event: numba_event.Event) -> None:
        if not _is_game(event):
            return
        with self._lock:
            self.open += 1
        _announce()

    def on_end(self, event: numba_event.Event) -> None:
        if _is_game(event):
            with self._lock:
                self.open -= 1


def _is_game(event: numba_event.Event) -> bool:
    """Whether a numba compile event is for one of the game's functions."""
    dispatcher = (event.data or {}).get("dispatcher")
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
    return module == __name__ or module.startswith(__name__ + ".")


_COMPILATIONS = _GameCompilation()
numba_event.register("numba:compile", _COMPILATIONS)


def compiling() -> bool:
    """Whether this process is compiling the game now (numba's cache held no machine code for
    it: the first run after an install waits about half a minute), for a page to say why its
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


def _compile_for(args: tuple) -> None:
    """Compile :func:`.game.play_chunk` (or load it from numba's cache) for the types of
    ``args``, unless it is; while
    it compiles, the listeners of :func:`explore_sim.progress.compile_listeners` are told
    how long it has taken, every second."""
    if numba_config.DISABLE_JIT or play_chunk.signatures:
        return
    with _COMPILING:
        if play_chunk.signatures:
            return
        done = threading.Event()
        ticker = threading.Thread(target=_tick, args=(done,), daemon=True,
                                  name="explore-compile")
        ticker.start()
        try:
            with optimised_once("play_chunk"):
                play_chunk.compile(tuple(numba.typeof(a) for a in args))
        finally:
            done.set()
            ticker.join()


def _tick(done: threading.Event, every: float = 1.0) -> None:
    """Tell the compile listeners the time taken, ``every`` second while the game compiles
    (numba may instead load it from its cache: then nothing is told), until ``done``."""
    start = time.monotonic()
    told = False
    while not done.wait(every):
        if compiling():
            told = True
            for listener in compile_listeners():
                listener(time.monotonic() - start, False)
    if told:
        for listener in compile_listeners():
            listener(time.monotonic() - start, True)


def _play_chunk(*args: object) -> None:
    """:func:`.game.play_chunk` on ``args``, compiled first (:func:`_compile_for`). It
    releases the GIL while a chunk plays (so that in a thread, a web page's run or a Dask
    worker's task, the thread answering requests goes on meanwhile, and threads can play
    the parts of a chunk at once: :func:`_play_parts`)."""
    _compile_for(args)
    play_chunk(*args)


def _play_parts(tables: Tables, K: KernelTables, programs: tuple[np.ndarray, ...],
                state: State, args: tuple, parts: list[tuple[int, int]],
                threads: int) -> None:
    """Play the games of ``parts`` (contiguous ``(start, stop)`` ranges of the chunk,
    :func:`_parts`) by :func:`_play_chunk` on ``args`` (which end with the chunk's output
    arrays, the first game's index and the counted arrays, one row of them per part) on
    ``threads`` threads: this one with ``state``, each other with a state of its own, every
    thread taking the next part not yet taken as it finishes one (so that a thread slower
    than the others leaves less of the chunk waiting for it). Every game's numbers are its
    own, so they do not depend on the parts or on which thread plays them."""
    first = (tables, state, *args, np.int64(0), *map(np.int64, parts[0]))
    threads = max(1, min(threads, len(parts)))
    taken = itertools.count()  # each next() is one step under the GIL: no part twice

    def play_parts(own: State) -> None:
        part = next(taken)
        while part < len(parts):
            start, stop = parts[part]
            _play_chunk(tables, own, *args, np.int64(part), np.int64(start), np.int64(stop))
            part = next(taken)

    if threads == 1:
        play_parts(state)
        return
    _compile_for(first)  # before the threads start
    errors: list[BaseException] = []

    def helper_plays() -> None:
        try:
            play_parts(_state(K, programs, len(args[0])))
        except BaseException as error:  # re-raised in the calling thread
            errors.append(error)

    helpers = [threading.Thread(target=helper_plays, name="explore-kernel")
               for _ in range(threads - 1)]
    for helper in helpers:
        helper.start()
    try:
        play_parts(state)
    finally:
        for helper in helpers:
            helper.join()
    if errors:
        raise errors[0]


def _not_counted() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The counted arrays of a run that writes every game's metrics out: no bins."""
    return (np.zeros((1, 0, 0, 0), np.int32), np.zeros((1, 0, 3), np.int32),
            np.zeros((1, 2), np.int64))


def play_games_kernel(tables: DeckTables, config: GameConfig, policy: Policy,
                      mulligan: MulliganRule, trials: int, chunk_seed: np.random.SeedSequence,
                      card_ids: np.ndarray, scry_policy: Policy | None = None,
                      threads: int | None = None, *, watch: Watch | None = None,
                      same_as: SameGames | None = None) -> dict[int, dict[str, np.ndarray]]:
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
    watch : Watch, optional
        Cards to watch: each game's bits of the watched cards it dealt (saw) are written to
        ``watch.seen``.
    same_as : SameGames, optional
        Games known to be those of another deck (:class:`SameGames`): they are not played,
        their metrics are copied from it.

    Returns
    -------
    dict of int to dict of str to ndarray of shape (trials,)
        Per-trial metrics by turn (0: the opening hand), as the vectorised engine gives them;
        a turn's metrics are rows of one array of the chunk, not copies.
    """
    rows = _recorded(config)[1]
    out = chunk_array((config.turns, len(rows), trials))  # every element is written
    opening = chunk_array((trials, 3 if watch is None else 4))
    threads = _threads(threads)
    marks = _NO_WATCH if watch is None else watch.bits(tables.n_kinds)
    skip = _NO_SKIP if same_as is None else same_as.skip(trials)
    _play_games(tables, config, policy, mulligan, chunk_seed, card_ids, scry_policy,
                (threads, _parts(trials, threads)), (out, opening, _not_counted()),
                (marks, skip))
    if watch is not None:
        watch.seen[:] = opening[:, 3]
    result = _results(config, out, opening)
    if same_as is not None:
        same_as.fill(result)
    return result


#: No card watched, no game skipped (:func:`~.game.play_chunk`'s ``watch`` and ``skip``).
_NO_WATCH = np.zeros(0, np.int64)
_NO_SKIP = np.zeros(0, np.uint8)


def _play_games(tables: DeckTables, config: GameConfig, policy: Policy,
                mulligan: MulliganRule, chunk_seed: np.random.SeedSequence,
                card_ids: np.ndarray, scry_policy: Policy | None,
                split: tuple[int, list[tuple[int, int]]], into: tuple,
                watching: tuple[np.ndarray, np.ndarray] = (_NO_WATCH, _NO_SKIP)) -> None:
    """:func:`play_games_kernel`'s games into ``into``: ``(out, opening, counted)`` as
    :func:`.game.play_chunk` takes them, ``counted`` with a row per part; ``split`` is
    ``(threads, parts)`` (:func:`_threads`, :func:`_parts`)."""
    K, discard = _packed(tables, config)
    rows = _recorded(config)[1]
    out, opening, counted = into
    key = chunk_seed.generate_state(4, dtype=np.uint64)
    deck = np.ascontiguousarray(card_ids, dtype=np.int32)
    programs = _programs(policy, scry_policy)
    args = (deck, key, _mulligan(mulligan), discard, out, rows, opening,
            _empty_given(len(deck), tables.n_kinds), *watching, np.int64(0), counted)
    threads, parts = split
    _play_parts(as_tables(K, programs), K, programs, _state(K, programs, len(deck)), args,
                parts, threads)


#: Parts a chunk is cut into per thread that plays it (:func:`_play_parts`).
PARTS_PER_THREAD = 4


def _threads(threads: int | None) -> int:
    """The threads that play a chunk: ``threads``, or every core by default."""
    return kernel_threads() if threads is None else threads


def _parts(trials: int, threads: int) -> list[tuple[int, int]]:
    """The parts ``threads`` threads play: :data:`PARTS_PER_THREAD` a thread, each of at
    least :data:`~explore_sim.engine.threads.MIN_GAMES_PER_THREAD` games; one part on one
    thread."""
    return thread_parts(trials, threads * PARTS_PER_THREAD if threads > 1 else 1)


#: Values a histogram of :func:`count_games_kernel` counts in place (0 to 255); a game's
#: larger value is written apart (:data:`SPILL_PER_GAME` of them a game fit).
HISTOGRAM_BINS = 256
SPILL_PER_GAME = 2


def count_games_kernel(tables: DeckTables, config: GameConfig, policy: Policy,
                       mulligan: MulliganRule, trials: int,
                       chunk_seed: np.random.SeedSequence, card_ids: np.ndarray,
                       scry_policy: Policy | None = None, threads: int | None = None
                       ) -> tuple[dict[str, np.ndarray], dict[int, dict[str, np.ndarray]],
                                  dict[int, dict[str, np.ndarray]]] | None:
    """The games of :func:`play_games_kernel`, counted by value inside the compiled game.

    Each part of the chunk counts its games' metrics of every turn by value in histograms
    of its own: no game's metrics are written out (the opening hand's still are). Values
    beyond :data:`HISTOGRAM_BINS` are written apart. Together, the counts and the values
    apart are those of the games :func:`play_games_kernel` plays.

    Parameters
    ----------
    tables, config, policy, mulligan, trials, chunk_seed, card_ids, scry_policy, threads
        As for :func:`play_games_kernel`.

    Returns
    -------
    (opening, counts, apart) or None
        ``opening``: the opening hand's metrics, game by game (dict of str to ndarray of
        shape (trials,)); ``counts``: by turn (from 1) and metric, how many games had the
        value 0, 1, ..., ``HISTOGRAM_BINS - 1`` (ndarray of int64); ``apart``: by turn and
        metric, the games' values beyond those (ndarray, only where there are some). None
        where more came than there is room for (:data:`SPILL_PER_GAME` a game): the caller
        plays the games written out instead.
    """
    names, rows = _recorded(config)
    threads = _threads(threads)
    parts = _parts(trials, threads)
    room = SPILL_PER_GAME * max(stop - start for start, stop in parts) + 1024  # a part's
    counted = (np.zeros((len(parts), config.turns, len(rows), HISTOGRAM_BINS), np.int32),
               np.zeros((len(parts), room, 3), np.int32), np.zeros((len(parts), 2), np.int64))
    out = np.zeros((config.turns, len(rows), 0), np.int32)
    opening = chunk_array((trials, 3))
    _play_games(tables, config, policy, mulligan, chunk_seed, card_ids, scry_policy,
                (threads, parts), (out, opening, counted))
    hist, spill, tally = counted
    if tally[:, 1].any():  # more large values than room
        return None
    totals = hist.sum(axis=0, dtype=np.int64)
    apart = np.concatenate([spill[p, :tally[p, 0]] for p in range(len(parts))])
    # The kernel leaves 0 uncounted: the games less those with another value, in the bins
    # or written apart.
    others = totals.sum(axis=2)
    np.add.at(others, (apart[:, 0], apart[:, 1]), 1)
    totals[:, :, 0] = trials - others
    counts = {turn + 1: {name: totals[turn, k] for k, name in enumerate(names)}
              for turn in range(config.turns)}
    return _results(config, out, opening)[0], counts, _values_apart(names, apart)


def _values_apart(names: list[str], apart: np.ndarray) -> dict[int, dict[str, np.ndarray]]:
    """The values written apart, rows ``(turn - 1, k, value)``, by turn (from 1) and metric
    ``names[k]``."""
    by_turn: dict[int, dict[str, np.ndarray]] = {}
    for turn in np.unique(apart[:, 0]):
        of_turn = apart[apart[:, 0] == turn]
        by_turn[int(turn) + 1] = {names[k]: of_turn[of_turn[:, 1] == k, 2]
                                  for k in np.unique(of_turn[:, 1])}
    return by_turn


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
    rows = _recorded(config)[1]
    out = np.zeros((config.turns, len(rows), 1), dtype=np.int32)
    opening = np.zeros((1, 3), dtype=np.int32)
    key = chunk_seed.generate_state(4, dtype=np.uint64)
    deck = np.ascontiguousarray(card_ids, dtype=np.int32)
    packed, S = _records(K, policy, scry_policy, len(deck), trace_rows)
    _play_chunk(packed, S, deck, key, _mulligan(mulligan), discard, out, rows, opening,
                _empty_given(len(deck), tables.n_kinds), _NO_WATCH, _NO_SKIP, np.int64(game),
                _not_counted(), np.int64(0), np.int64(0), np.int64(1))
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
    return _play_given(tables, config, policy, opening, card_ids, scry_policy, 0)[0]


def play_opening_log(tables: DeckTables, config: GameConfig, policy: Policy,
                     opening: OpeningHands, card_ids: np.ndarray,
                     scry_policy: Policy | None = None, trace_rows: int = 1 << 14
                     ) -> tuple[dict[int, dict[str, np.ndarray]], np.ndarray]:
    """:func:`play_openings` of one game, with its log: ``(metrics, events)`` as
    :func:`play_game_kernel` gives them."""
    if opening.hand.shape[0] != 1:
        raise ValueError("a game's log is written for one game at a time")
    results, S = _play_given(tables, config, policy, opening, card_ids, scry_policy,
                             trace_rows)
    trace = S.trace
    if trace[0, 1]:
        raise RuntimeError(f"the game's log needs more than {trace_rows} rows")
    return results, trace[1:1 + trace[0, 0]].copy()


def _play_given(tables: DeckTables, config: GameConfig, policy: Policy,
                opening: OpeningHands, card_ids: np.ndarray, scry_policy: Policy | None,
                trace_rows: int) -> tuple[dict[int, dict[str, np.ndarray]], State]:
    K, discard = _packed(tables, config)
    trials = opening.hand.shape[0]
    rows = _recorded(config)[1]
    out = np.zeros((config.turns, len(rows), trials), dtype=np.int32)
    first = np.zeros((trials, 3), dtype=np.int32)
    given = (np.ascontiguousarray(opening.library, dtype=np.int32),
             opening.top.astype(np.int64), opening.end.astype(np.int64),
             np.ascontiguousarray(opening.hand, dtype=np.int32),
             opening.mulligans.astype(np.int64))
    deck = np.ascontiguousarray(card_ids, dtype=np.int32)
    key = np.zeros(4, dtype=np.uint64)
    packed, S = _records(K, policy, scry_policy, len(deck), trace_rows)
    _play_chunk(packed, S, deck, key, np.array([0, 0, 0], dtype=np.int64), discard, out, rows,
                first, given, _NO_WATCH, _NO_SKIP, np.int64(0), _not_counted(), np.int64(0),
                np.int64(0), np.int64(trials))
    return _results(config, out, first), S
