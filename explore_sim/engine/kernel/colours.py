"""The colours a land option brings toward the spells' remaining colour deficit (docs/mana.md).

Part of the compiled game (:mod:`explore_sim.engine.kernel`); every function reads the
packed deck tables ``K`` and changes the game state ``S``.
"""

from __future__ import annotations

from .bits import next_common
from .codes import COLOUR_BITS
from .layout import (
    CardCol,
    CommanderCol,
    Dim,
    Group,
    IdSet,
    ProfileCol,
    SetRow,
    Work,
    Zone,
)
from .records import compiled
from .zones import group_id


@compiled
def colour_deficit(K, covered, p):
    """Profile ``p``'s colour deficit: the fewest pips, over its ways to pay, that no
    distinct unit can pay (Hall's theorem with deficiency)."""
    best = 1 << 30
    for i in range(K.profiles[p, ProfileCol.PROF_N]):
        mode = K.profiles[p, ProfileCol.MODES + i]
        short = -(1 << 30)
        for m in range(K.dims[Dim.N_MASKS]):
            short = max(short, K.req[mode, m] - covered[m])
        best = min(best, short)
    return max(best, 0)


@compiled
def colour_keys(K, S, cover, colours, is_fetch, held, keys):
    """Steps 3 and 4 of the land choice for options bringing ``cover`` (options, masks: the
    units meeting each mask of the exact test that the option makes) of ``colours``, added
    to ``keys``: the remaining colour deficit of the wanted cards the option closes, then
    the colour with the largest remaining deficit, then the library's most demanded colour.
    A fetch option closes what the deck's best basic land would. Only the options that
    are ``held`` get keys."""
    n_masks, n_profiles = K.dims[Dim.N_MASKS], K.dims[Dim.N_PROFILES]
    n_options = len(colours)
    if n_profiles:
        wanted = S.work[Work.WANTED]
        wanted[:n_profiles] = 0
        in_hand, profiled = S.sets[SetRow.HELD_IDS], K.id_sets[IdSet.PROFILED_IDS]
        kind = next_common(in_hand, profiled, 1)
        while kind >= 0:
            wanted[K.card[kind, CardCol.HAND_PROFILE]] += 1
            kind = next_common(in_hand, profiled, kind + 1)
        for p in range(n_profiles):
            wanted[p] += K.profiles[p, ProfileCol.CASTABLE_PROFILES]
        for slot in range(K.dims[Dim.N_COMMANDERS]):
            profile = K.commanders[slot, CommanderCol.COMMANDER_PROFILE]
            if S.zones[Zone.COMMAND, group_id(K, Group.COMMANDER_IDS, slot)] > 0 and profile >= 0:
                wanted[profile] += 1
        covered = S.cover  # by the units in play, kept as sources enter and leave
        # Only the profiles some card wants count below (one no card wants adds nothing to
        # a key): their numbers in ``some``.
        some = S.work[Work.SOME_PROFILES]
        n_some = 0
        for p in range(n_profiles):
            if wanted[p]:
                some[n_some] = p
                n_some += 1
        more = S.work[Work.MORE_COVERED]
        demand = S.work[Work.DEMAND]
        for k in range(5):
            demand[k] = 0
            made = S.made[k]
            for i in range(n_some):
                p = some[i]
                demand[k] += wanted[p] * max(0, K.profiles[p, ProfileCol.PIPS + k] - made)
        # Of those, an option can close only the deficits there are: more units never
        # raise a deficit, and none is below 0. The profiles short of colours now stay in
        # ``some`` (their deficits in ``before``).
        before = S.work[Work.BEFORE]
        n_short = 0
        for i in range(n_some):
            deficit = colour_deficit(K, covered, some[i])
            if deficit > 0:
                some[n_short] = some[i]
                before[n_short] = deficit
                n_short += 1
        n_some = n_short
        for o in range(n_options):
            if not held[o]:
                continue
            gain = 0
            tries = (K.dims[Dim.N_BASICS] if is_fetch[o] else 1) if n_some else 0
            for t in range(tries):
                option_cover = K.basic_cover[t] if is_fetch[o] else cover[o]
                for m in range(n_masks):
                    more[m] = covered[m] + option_cover[m]
                closed = 0
                for i in range(n_some):
                    p = some[i]
                    closed += wanted[p] * (before[i] - colour_deficit(K, more, p))
                gain = max(gain, closed)
            keys[o] += min(gain, 255) << 41
            best = 0
            for k in range(5):
                if colours[o] & COLOUR_BITS[k]:
                    best = max(best, demand[k])
            keys[o] += min(best, 255) << 33
    lib_pips = S.lib_pips
    for o in range(n_options):
        if not held[o]:
            continue
        best = 0
        for k in range(5):
            if colours[o] & COLOUR_BITS[k]:
                best = max(best, lib_pips[k])
        keys[o] += min(best, 4095) << 21
