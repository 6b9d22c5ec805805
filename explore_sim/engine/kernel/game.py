"""Opening hands (the London mulligan with Karsten's keep and bottom rule) and whole games.

Part of the compiled game (:mod:`explore_sim.engine.kernel`); every function reads the
packed deck tables ``K`` and changes the game state ``S``.
"""

from __future__ import annotations

import numpy as np

from .codes import NEVER_CAST_FIRST, ONE, ZERO
from .layout import CardCol, Dim, Group, Slot, Trace, Work, Zone
from .records import borrow, compiled
from .state import BLOCK
from .trace import (
    note,
    tracing,
)
from .turn import play_turn, turn_metrics
from .zones import count, deal_to, group_id, group_size, to_hand

#: Cards in an opening hand before mulligans.
HAND_SIZE = 7

@compiled
def bottom(K, hand, bottoms, out):
    """Karsten's bottom rule on ``hand`` (counts, changed): ``bottoms`` cards into ``out``,
    spells first, one never cast first, then the most expensive (of two that cost the same,
    neither a mana source nor ramp), else the land kind held most; for mulligans a spell //
    land card counts as a land."""
    n_kinds = K.dims[Dim.N_KINDS]
    lands = 0
    total = 0
    for kind in range(n_kinds):
        total += hand[kind]
        if K.card[kind, CardCol.IS_LAND] or K.card[kind, CardCol.IS_LAND_LIKE]:
            lands += hand[kind]
    spells = total - lands
    if bottoms == 0:
        return
    if bottoms == 1:
        spell_bottoms = 1 if spells >= 3 else 0
    elif bottoms == 2:
        spell_bottoms = 2 if spells >= 4 else (1 if spells == 3 else 0)
    else:  # toward 3 lands and 1 spell in the kept hand
        keep = total - bottoms
        lands_kept = min(lands, 3)
        spells_kept = min(keep - lands_kept, spells)
        spell_bottoms = spells - spells_kept
    for j in range(bottoms):
        choice, best = 0, -(1 << 30)
        for kind in range(n_kinds):
            as_land = K.card[kind, CardCol.IS_LAND] or K.card[kind, CardCol.IS_LAND_LIKE]
            if j < spell_bottoms:
                if hand[kind] > 0 and kind > 0:  # a spell never cast first
                    value = -1 if as_land else (2 * K.card[kind, CardCol.COST]
                                                + (0 if K.card[kind, CardCol.RAMPS] else 1)
                                                + (NEVER_CAST_FIRST if K.card[
                                                    kind, CardCol.NEEDS_TARGET] == 2 else 0))
                else:
                    value = -2
            else:
                value = hand[kind] if (as_land and hand[kind] > 0) else -1
            if value > best:
                choice, best = kind, value
        if hand[choice] > 0:
            hand[choice] -= 1
            out[j] = choice


@compiled
def splitmix(x):
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@compiled
def seed_stream(rng, key, game, tag):
    """Seed ``rng`` for stream ``tag`` of game ``game`` of the chunk keyed ``key``: every
    game and stream gets its own numbers, so games are independent and a game's deal does
    not depend on how far earlier games read."""
    mix = splitmix(np.uint64(game) * np.uint64(0x100000001B3) + np.uint64(tag))
    for i in range(4):
        rng[i] = splitmix(key[i] ^ mix ^ np.uint64(i))
    if rng[0] == 0 and rng[1] == 0 and rng[2] == 0 and rng[3] == 0:
        rng[0] = np.uint64(1)


@compiled
def start_game(K, S):
    """An empty game; the library is laid out by the deal (:func:`keep_hand`) or given."""
    s = S.slots
    for i in range(len(s)):
        if i != Slot.SIZE and i != Slot.SEARCH_REVERSES:
            s[i] = 0
    S.zones[Zone.HAND, :] = 0
    S.zones[Zone.BF, :] = 0
    S.zones[Zone.SICK, :] = 0
    S.zones[Zone.TAPPED, :] = 0
    S.zones[Zone.COMMAND, :] = 0
    S.zones[Zone.CASTS, :] = 0
    S.zones[Zone.CTR, :] = 0
    S.zones[Zone.SICK_CTR, :] = 0
    S.perm[:] = 0
    S.pool[:] = 0
    S.units[:, :] = 0
    S.cover[:] = 0
    S.made[:] = 0
    S.totals[:] = 0
    S.main[:] = 0
    if tracing(S):  # the log holds the game being played
        S.trace[0, :] = 0
    size = s[Slot.SIZE]
    S.lib[size] = 0
    s[Slot.END] = size


@compiled
def keep_hand(K, S, deck, counts, key, game, kind, free_first, max_mulligans, bottomed):
    """Deal and mulligan until a hand is kept; returns the mulligans taken. Every attempt
    is a fresh shuffle of the whole deck from its own stream."""
    s, lib = S.slots, S.lib
    size = s[Slot.SIZE]
    drawn = min(HAND_SIZE, size)
    if size < HAND_SIZE:
        kind = 0
    for attempt in range(max_mulligans + 1):
        for p in range(size):
            lib[p] = deck[p]
        s[Slot.DEALT] = 0
        seed_stream(S.deal, key, game, 2 * attempt + 2)
        deal_to(S, drawn - 1)
        S.zones[Zone.HAND, :] = 0
        for p in range(drawn):
            S.zones[Zone.HAND, lib[p]] += 1
        if tracing(S):
            note(S, Trace.DEAL, 0, attempt, drawn)
            for p in range(drawn):
                note(S, Trace.DEALT, lib[p], 0, 0)
        bottoms = max(0, attempt - (1 if free_first and attempt > 0 else 0))
        bottomed[:] = 0
        bottom(K, S.zones[Zone.HAND], bottoms, bottomed)
        if attempt == max_mulligans or kind == 0:
            keep = True
        else:
            lands = 0
            for c in range(K.dims[Dim.N_KINDS]):
                if K.card[c, CardCol.IS_LAND] or K.card[c, CardCol.IS_LAND_LIKE]:
                    lands += S.zones[Zone.HAND, c]
            most = 5 if drawn - bottoms >= HAND_SIZE else 4
            keep = 2 <= lands <= most
            if not keep:
                note(S, Trace.MULLIGAN, 0, attempt, lands)
        if keep:
            for j in range(bottoms):
                note(S, Trace.BOTTOM, bottomed[j], attempt, 0)
            note(S, Trace.KEEP, 0, attempt, 0)
            width = size + 1
            for j in range(bottoms):  # bottomed cards go under the library, in order
                lib[(size + j) % width] = bottomed[j]
            s[Slot.TOP] = drawn
            s[Slot.END] = size + bottoms
            return attempt
    return max_mulligans


@compiled
def settle_library(K, S, counts, deck_lands, deck_pips):
    """The library's composition from the deck (``counts`` by card id; ``deck_lands`` land
    cards; ``deck_pips`` pips by colour) less the hand; the hand's size, lands, pips and
    card ids (nothing is on the battlefield or in the command zone yet)."""
    s = S.slots
    s[Slot.HAND_LANDS] = 0
    s[Slot.HAND_WAITING] = 0
    s[Slot.HELD] = 0
    S.hand_pips[:] = 0
    S.sets[:, :] = 0
    for k in range(5):
        S.lib_pips[k] = deck_pips[k]
    for kind in range(K.dims[Dim.N_KINDS]):
        held = S.zones[Zone.HAND, kind]
        S.zones[Zone.LIB_COUNT, kind] = counts[kind] - held
        if held:  # counted into the hand as any card joining it
            S.zones[Zone.HAND, kind] = 0
            to_hand(K, S, kind, held)
            for k in range(5):
                S.lib_pips[k] -= held * K.pips[kind, k]
    s[Slot.LIB_LANDS] = deck_lands - s[Slot.HAND_LANDS]


@compiled
def lay_given(K, S, given, j):
    """Game ``j``'s given library and opening hand (:func:`play_chunk`'s ``given``); returns
    its mulligans."""
    libs, tops, ends, hands, mulls = given
    for p in range(len(libs[j])):
        S.lib[p] = libs[j, p]
    S.slots[Slot.TOP], S.slots[Slot.END] = tops[j], ends[j]
    S.slots[Slot.DEALT] = S.slots[Slot.SIZE]
    S.slots[Slot.SEEN] = -1  # a given library is not dealt: it saw every card
    for kind in range(K.dims[Dim.N_KINDS]):
        S.zones[Zone.HAND, kind] = hands[j, kind]
    return mulls[j]


@compiled
def count_values(hist, spill, tally, values, rows, turn):
    """Count one game's metrics of turn ``turn + 1`` (``values[rows[k]]``) by value:
    ``hist[turn, k, value] += 1``, but for a value of 0, the commonest, which is not counted:
    the games with 0 are the games less those counted and written apart (the caller's sum).
    A value outside the bins is written to ``spill`` as ``(turn, k, value)`` while there is
    room (``tally[0]`` of its rows used), else ``tally[1]`` is set (the chunk's games are then
    played again and written out)."""
    bins = hist.shape[2]
    for k in range(len(rows)):
        value = values[rows[k]]
        if value == 0:
            continue  # counted by the caller: what the other values leave
        if 0 < value < bins:
            hist[turn, k, value] += 1
        elif tally[0] < len(spill):
            n = tally[0]
            spill[n, 0], spill[n, 1], spill[n, 2] = turn, k, value
            tally[0] = n + 1
        else:
            tally[1] = 1


@compiled(entry=True, nogil=True)
def play_chunk(tables, state, deck, key, mulligan, discard_order, out, rows, opening, given,
               watch, skip, first, counted, part, start, stop):
    """Play games ``first + start`` to ``first + stop - 1`` of the chunk keyed ``key``:
    ``out[turn - 1, k, j]`` (the metric of row ``rows[k]`` of the turn's metrics:
    :func:`~.turn.turn_metrics`, only the metrics asked for) and ``opening[j]`` (mulligans,
    hand size, lands in the
    opening hand) are written for game ``first + j``, ``start <= j < stop``, which plays with
    its own streams whatever the games before it (so one game of a chunk can be played
    alone, and threads, each with a state of its own, can play the parts of a chunk and
    write them into the same arrays).

    ``counted`` is ``(histograms (parts, turns, metrics, bins), spill (parts, room, 3),
    tally (parts, 2))``: with bins, the turns' metrics are not written to ``out`` but
    counted by value into part ``part``'s histograms (:func:`count_values`: all but the value
    0, which the caller counts as the games left).

    ``watch`` (per card id, or empty) gives each card id bits that a game sets in
    ``opening[j, 3]`` (where ``opening`` has a fourth column) when it deals a copy of that card
    (:func:`~.zones.deal_to`; every bit for a given library): a game whose bits miss a card
    never saw it. ``skip`` (per game of the chunk, or empty) marks games not to
    play: their metrics and opening are written as 0 (a caller that knows them, a coupled
    deck's same games, fills them in); only where the metrics are written out.

    ``tables`` is the record of the deck's tables and the policies' bytecode
    (:func:`~.records.as_tables`), ``state`` the game's (:func:`~.state.new_state`), reused
    from game to game; both are read by reference (:func:`~.records.borrow`). ``mulligan``
    is (kind: 0 none, 1 London; free first; most mulligans). ``given`` is empty, or (as in
    the tests) the opening hands of the vectorised engine for every game:
    ``(library (games, size + 1), top, end, hand (games, n_kinds), mulligans)``, played as
    they are, a search then reversing the library instead of shuffling it.
    """
    K, S = borrow(tables), borrow(state)
    n_kinds, turns = K.dims[Dim.N_KINDS], K.dims[Dim.TURNS]
    counts = S.work[Work.COUNTS]
    counts[:] = 0
    for card in deck:
        counts[card] += 1
    deck_lands = ZERO
    deck_pips = S.work[Work.DECK_PIPS]
    deck_pips[:5] = 0
    for kind in range(n_kinds):
        deck_lands += counts[kind] * K.card[kind, CardCol.IS_LAND]
        for k in range(5):
            deck_pips[k] += counts[kind] * K.pips[kind, k]
    S.slots[Slot.SEARCH_REVERSES] = 1 if len(given[0]) else 0
    attackers, crewers = S.work[Work.ATTACKERS], S.work[Work.CREWERS]
    bottomed = S.work[Work.BOTTOMED]
    hist, spill, tally = counted[0][part], counted[1][part], counted[2][part]
    by_value = hist.shape[2] > 0
    watched = S.work[Work.WATCH]
    watched[:] = 0
    for kind in range(len(watch)):
        watched[kind] = watch[kind]
    for j in range(start, stop):
        game = first + j
        b = (j - start) % BLOCK
        if len(skip) and skip[j] and not by_value:
            opening[j, :] = 0
            for turn in range(turns):
                for k in range(len(rows)):
                    S.block[turn, k, b] = 0
        else:
            start_game(K, S)
            seed_stream(S.play, key, game, ONE)
            if len(given[0]):
                taken = lay_given(K, S, given, j)
            else:
                taken = keep_hand(K, S, deck, counts, key, game, mulligan[0], mulligan[1] != 0,
                                  mulligan[2], bottomed)
            settle_library(K, S, counts, deck_lands, deck_pips)
            opening[j, 0] = taken
            opening[j, 1] = S.slots[Slot.HELD]
            lands = 0
            for index in range(group_size(K, Group.LAND_IDS)):
                kind = group_id(K, Group.LAND_IDS, index)
                lands += S.zones[Zone.HAND, kind]
            opening[j, 2] = lands
            for turn in range(turns):
                play_turn(K, S, discard_order, attackers, crewers)
                values = S.work[Work.TURN_VALUES]
                turn_metrics(K, S, values)
                if by_value:
                    count_values(hist, spill, tally, values, rows, turn)
                else:
                    for k in range(len(rows)):
                        S.block[turn, k, b] = values[rows[k]]
                if tracing(S):
                    note(S, Trace.END_TURN, 0, count(K, S, Group.LAND), S.slots[Slot.HELD])
            if opening.shape[1] > 3:
                opening[j, 3] = S.slots[Slot.SEEN]
        if not by_value and (b == BLOCK - 1 or j == stop - 1):  # the block into the output
            block_start = j - b
            for turn in range(turns):
                for m in range(out.shape[1]):
                    games_of, into = S.block[turn, m], out[turn, m]  # adjacent games
                    for g in range(b + 1):
                        into[block_start + g] = games_of[g]
