"""One game's state in the compiled engine: a few small arrays, reused from game to game.

A game's state is the named tuple :class:`State` ``S = (slots, lib, zones, perm, pool,
units, cover, made, lib_pips, hand_pips, sets, totals, main, deal, play, recip, work, stack,
trace, block)``:

- ``slots``: int64 scalars at the slots of :class:`~.layout.Slot` (the library's top and
  end, land drops, Maps, ...);
- ``lib``: the library, card ids in a circular buffer of ``size + 1`` positions, exactly as
  the vectorised engine's (logical positions ``top .. end - 1``, a card put on the bottom
  written at ``end``); positions from ``s[Slot.DEALT]`` to ``size`` are not dealt yet: the first
  read of one swaps in a uniform choice among them (a partial Fisher-Yates shuffle, so only
  the cards a game reaches are shuffled);
- ``zones``: counts per card id, one row each (:class:`~.layout.Zone`): ``Zone.HAND``,
  ``Zone.BF`` (on the battlefield), ``Zone.SICK`` (of those, summoning sick),
  ``Zone.TAPPED``, ``Zone.COMMAND`` (in the command zone), ``Zone.CASTS`` (cast from there),
  ``Zone.LIB_COUNT`` (in the library), ``Zone.CTR`` and ``Zone.SICK_CTR`` (+1/+1 counters
  on the copies not summoning sick, and on the sick ones);
- ``perm``: permanents on the battlefield per group of ``K.members``;
- ``pool``: mana made and not spent, per unit class; ``units``: running counts of the
  units the plain sources you control make (no filter), per unit class: row ``UnitRow.READY``
  those able to make mana now (untapped, and a creature's not summoning sick), row
  ``UnitRow.IN_PLAY`` all of them, tapped or not (kept as permanents enter, leave, tap and
  untap: :func:`~.zones.enter`, :func:`~.zones.leave`, :func:`~.zones.tap_copies`,
  :func:`~.mana.tap`, :func:`~.zones.untap_units`);
  ``cover`` and ``made``: what the units in play bring to the land choice's colour keys,
  kept with them: the units meeting each mask of the exact test, and the units of each
  colour W U B R G;
  ``lib_pips`` and ``hand_pips``: the library's pips per colour, and those of the cards
  in hand a game casts (generic mana spares their colours);
- ``sets``: sets of card ids as bits (:mod:`.bits`), kept as cards move: row
  ``SetRow.HELD_IDS`` the card ids in hand, ``SetRow.ON_IDS`` those on the battlefield,
  ``SetRow.CAST_RANKS`` the casting order's ranks (``K.card[kind, CardCol.PASS_RANK]``) of
  the spells the casting pass may cast (held, or a commander in the command zone); the rows
  after them are workspace for the spells the mana pays;
- ``totals``: the event counters (:class:`~.layout.Event`); ``main``: the first main phase's
  metrics (:data:`~.pack.MAIN_METRICS`, then one per castable card);
- ``deal`` and ``play``: the game's random streams, xoshiro256** states (uint64[4]): one deals
  the library (so games that read the same positions of the same deck see the same cards,
  whatever else differs, until a search shuffles the library: it is then dealt anew), the
  other decides removal and parley coins; ``recip``: what their draws divide by without a
  division (:func:`reciprocals`);
- ``work`` and ``stack``: scratch space (:class:`~.layout.Work`) and a policy's bytecode stack;
- ``trace``: the game's log (:mod:`.trace`), empty (no rows) unless one is asked for;
- ``block``: the metrics of the last :data:`BLOCK` games by turn, (turns, metrics, games),
  copied into the chunk's output a block at a time, each (turn, metric) a run of adjacent
  games (one game's metrics lie a chunk apart there, on a page each: written a game at a
  time, most writes would miss the TLB).

The functions here are compiled (:func:`~.records.compiled`).
"""

from __future__ import annotations

import functools
from collections import namedtuple

import numpy as np

from .layout import SetRow, Slot, Work, Zone
from .pack import words_for
from .records import compiled

__all__ = ["BLOCK", "State", "below", "new_state", "next_u64", "uniform"]


#: One game's state (the arrays above).
State = namedtuple("State", ("slots", "lib", "zones", "perm", "pool", "units", "cover",
                             "made", "lib_pips", "hand_pips", "sets", "totals", "main",
                             "deal", "play", "recip", "work", "stack", "trace", "block"))

#: Games whose metrics are gathered in ``S.block`` before they are copied out: each copy
#: then writes a kilobyte of adjacent games per (turn, metric), which the processor streams
#: (blocks of 32 games cost 4-10% more of a game, of 1,024 games 5%: measured on the merfolk
#: and the cheapest deck), and a block of 8 turns of 36 metrics stays in the L2 cache.
BLOCK = 256


def new_state(n_kinds, n_groups, n_classes, n_masks, size, n_events, n_main, width, stack,
              turns, trace_rows=0):
    """Arrays for one game at a time (the chunk's games reuse them): ``width`` columns of
    workspace (as many as a turn has metrics, at least), ``stack`` entries for a policy's
    bytecode, ``turns`` turns of metrics for :data:`BLOCK` games, ``trace_rows`` rows of the
    game's log (0: no log)."""
    return State(
        np.zeros(len(Slot), np.int64), np.zeros(size + 1, np.int32),
        np.zeros((len(Zone), n_kinds), np.int32), np.zeros(max(n_groups, 1), np.int32),
        np.zeros(max(n_classes, 1), np.int32), np.zeros((2, max(n_classes, 1)), np.int64),
        np.zeros(max(n_masks, 1), np.int64), np.zeros(5, np.int64),
        np.zeros(5, np.int32), np.zeros(5, np.int32),
        np.zeros((len(SetRow), words_for(n_kinds)), np.uint64),
        np.zeros(n_events, np.int64), np.zeros(max(n_main, 1), np.int64),
        np.zeros(4, np.uint64), np.zeros(4, np.uint64), reciprocals(size),
        np.zeros((len(Work), width), np.int64), np.zeros(max(stack, 1), np.float64),
        np.zeros((trace_rows, 5), np.int32), np.zeros((turns, width, BLOCK), np.int32))


# --------------------------------------------------------------------------------------
# The game's random stream: xoshiro256** (Blackman and Vigna), seeded from a SeedSequence.

@compiled
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@compiled
def next_u64(rng):
    """The next 64 random bits of the stream ``rng`` (uint64[4], updated)."""
    s0, s1, s2, s3 = rng[0], rng[1], rng[2], rng[3]
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    rng[0], rng[1], rng[2], rng[3] = s0, s1, s2, s3
    return result


@compiled
def uniform(rng):
    """A float uniform on [0, 1) with 53 random bits."""
    return float(next_u64(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@functools.lru_cache(maxsize=16)
def reciprocals(size: int) -> np.ndarray:
    """For each divisor ``b`` in 1 .. ``size``, ``[b, 0]`` = ``2**64 // b + 1`` (modulo
    ``2**64``) and ``[b, 1]`` = ``2**32 % b``: what :func:`remainder` needs to divide without
    a division instruction; shape (size + 1, 2) uint64, read-only, made once per size (the
    states of every thread share it)."""
    if size >= 1 << 16:  # remainder() needs (h % b) * (2**32 % b) + l % b below 2**32
        raise ValueError(f"a library of {size} cards is more than the deal can divide by")
    table = np.zeros((size + 1, 2), dtype=np.uint64)
    for b in range(1, size + 1):
        table[b, 0] = ((1 << 64) - 1) // b + 1 & ((1 << 64) - 1)
        table[b, 1] = (1 << 32) % b
    table.flags.writeable = False
    return table


@compiled
def _remainder32(a, b, m):
    """``a % b`` for ``a`` and ``b`` below ``2**32``, ``m`` = ``2**64 // b + 1`` (Lemire, Kaser
    and Kurz, 2019: the high bits of ``(m * a mod 2**64) * b``, exact for every such a)."""
    low = m * a
    high, lower = low >> np.uint64(32), low & np.uint64(0xFFFFFFFF)
    return (high * b + ((lower * b) >> np.uint64(32))) >> np.uint64(32)


@compiled
def remainder(x, b, recip):
    """``x % b`` exactly, for a uint64 ``x`` and ``0 < b < 2**16`` (``recip``:
    :func:`reciprocals`): ``x = h * 2**32 + l`` gives ``((h % b) * (2**32 % b) + l % b) % b``,
    each remainder of a number below ``2**32``, by multiplication."""
    bound = np.uint64(b)
    m, shift = recip[b, 0], recip[b, 1]
    h = _remainder32(x >> np.uint64(32), bound, m)
    lo = _remainder32(x & np.uint64(0xFFFFFFFF), bound, m)
    return _remainder32(h * shift + lo, bound, m)


@compiled
def below(rng, n, recip):
    """An integer uniform on 0 .. n - 1 (exactly: bits are redrawn past the largest
    multiple of n). That multiple is more than ``2**64 - 1 - n``, so it is worked out (a
    division) only for the rare draw above that; the remainder is taken by multiplication
    (:func:`remainder`, ``recip``: :func:`reciprocals`)."""
    bound = np.uint64(n)
    most = np.uint64(0xFFFFFFFFFFFFFFFF)
    while True:
        x = next_u64(rng)
        if x <= most - bound or x < most - (most % bound):
            return np.int64(remainder(x, n, recip))
