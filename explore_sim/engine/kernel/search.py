"""Searches for basic lands (fetches, Map-free ramp, activated searches) and the shuffle after one.

Part of the compiled game (:mod:`explore_sim.engine.kernel`); every function reads the
packed deck tables ``K`` and changes the game state ``S``.
"""

from __future__ import annotations

from .codes import (
    F_BASIC_HAND,
    F_BASIC_TAPPED,
    F_PASSAGE,
    F_TAPPED_AND_HAND,
    F_TWO_BASICS,
    FETCH_BASIC,
    NO,
    NONE,
    ONE,
    TAPS_YES,
    YES,
)
from .colours import colour_keys
from .layout import CardCol, Dim, Event, Group, Slot, Trace, Work, Zone
from .records import compiled
from .trace import note
from .zones import (
    at,
    basics_left,
    count,
    create_maps,
    enter,
    group_id,
    member,
    sacrifice,
    tap_copies,
    to_hand,
)


@compiled
def sacrifice_to_search(K, S, kind, land_drop):
    """A land's "{T}, Sacrifice this land: search ..." used at once, where it is untapped and
    the library holds a basic; played as the land drop, a land found tapped is a tapped
    land played."""
    if S.zones[Zone.BF, kind] - S.zones[Zone.TAPPED, kind] <= 0 or basics_left(K, S) == 0:
        return
    sacrifice(K, S, kind)
    how = K.card[kind, CardCol.FETCH]
    search_basics(K, S, how)
    if land_drop and (how != F_PASSAGE or count(K, S, Group.LAND) < 4):
        S.totals[Event.TAPPED_LANDS_PLAYED] += 1


@compiled
def take_basic(K, S, same_type_as):
    """Choose a basic land in the library (steps 3-5 of the land choice) and take it out;
    its id, 0 if there is none. Only a search calls this, and it shuffles the library next
    (:func:`shuffle_library`)."""
    n_basics = K.dims[Dim.N_BASICS]
    if n_basics == 0:
        return 0
    held = S.work[Work.BASIC_HELD]
    anything = False
    for b in range(n_basics):
        kind = group_id(K, Group.BASIC_IDS, b)
        held[b] = S.zones[Zone.LIB_COUNT, kind] > 0
        if same_type_as >= 0:
            types = K.card[same_type_as, CardCol.BASIC_TYPES]
            held[b] = held[b] and (K.card[kind, CardCol.BASIC_TYPES] & types) != 0
        anything = anything or held[b]
    if not anything:
        return 0
    keys, colours = S.work[Work.BASIC_KEYS], S.work[Work.BASIC_COLOURS]
    no_fetch = S.work[Work.BASIC_FETCH]
    for b in range(n_basics):
        keys[b] = 0
        no_fetch[b] = 0
        colours[b] = K.card[group_id(K, Group.BASIC_IDS, b), CardCol.LAND_COLOURS]
    colour_keys(K, S, K.basic_cover, colours[:n_basics], no_fetch[:n_basics], held, keys)
    best, best_key = -1, -1
    for b in range(n_basics):
        if held[b]:
            key = keys[b] + (1 << 20) - b
            if key > best_key:
                best, best_key = b, key
    card = group_id(K, Group.BASIC_IDS, best)
    take_out(S, card)
    return card


@compiled
def take_out(S, card):
    """Take a copy of land ``card`` out of the library for a search (which shuffles it
    next)."""
    s, lib = S.slots, S.lib
    if s[Slot.SEARCH_REVERSES]:  # the tests' given library: one copy swaps places with the top card
        first = at(S, s[Slot.TOP])
        for p in range(s[Slot.TOP], s[Slot.END]):
            if lib[at(S, p)] == card:
                lib[at(S, p)] = lib[first]
                lib[first] = card
                break
    # Else the library is shuffled next (every search ends so) and laid out anew from its
    # counts (:func:`shuffle_library`): only the counts need to lose the copy.
    s[Slot.TOP] += 1
    s[Slot.LIB_LANDS] -= 1
    S.zones[Zone.LIB_COUNT, card] -= 1


@compiled
def finds(K, kind, types):
    """Whether a typed search for ``types`` (land types as colour bits, ``FETCH_BASIC`` for
    a basic land card) finds land ``kind``."""
    if K.card[kind, CardCol.FACE_OF]:
        return False  # a land face is never in the library
    if K.card[kind, CardCol.BASIC_TYPES] & types & 31:
        return True
    return (types & FETCH_BASIC) != 0 and K.card[kind, CardCol.IS_BASIC] != 0


@compiled
def take_land(K, S, types, untapped):
    """Choose a land card a typed search for ``types`` finds in the library (for one put
    onto the battlefield ``untapped``, a land that always enters tapped last; then steps
    3-4 of the land choice, more colours first, then the lower id) and take it out; its id,
    0 if there is none. The vectorised engine's ``_take_land``."""
    n_kinds = K.dims[Dim.N_KINDS]
    held, keys = S.work[Work.BASIC_HELD], S.work[Work.BASIC_KEYS]
    colours, no_fetch = S.work[Work.BASIC_COLOURS], S.work[Work.BASIC_FETCH]
    anything = False
    for kind in range(n_kinds):
        held[kind] = (K.card[kind, CardCol.IS_LAND] != 0 and S.zones[Zone.LIB_COUNT, kind] > 0
                      and finds(K, kind, types))
        anything = anything or held[kind]
        keys[kind] = 0
        no_fetch[kind] = 0
        colours[kind] = K.card[kind, CardCol.LAND_COLOURS]
    if not anything:
        return 0
    colour_keys(K, S, K.source_cover, colours[:n_kinds], no_fetch[:n_kinds], held[:n_kinds],
                keys)
    best, best_key = 0, -1
    index = 0  # the kind's place among the deck's lands the search may find (its id order)
    for kind in range(n_kinds):
        if K.card[kind, CardCol.IS_LAND] == 0 or not finds(K, kind, types):
            continue
        if held[kind]:
            mask, n_colours = colours[kind], 0
            while mask:
                n_colours += mask & 1
                mask >>= 1
            key = keys[kind] + (n_colours << 16) + 4095 - index
            if untapped and K.card[kind, CardCol.TAPPED_RULE] != TAPS_YES:
                key += 1 << 55
            if key > best_key:
                best, best_key = kind, key
        index += 1
    take_out(S, best)
    return best


@compiled
def shuffle_library(K, S):
    """Shuffle the library (after a search): its cards (``S.zones[Zone.LIB_COUNT]``) are laid
    out at the end of the buffer and are all undealt again, so the deal draws each position
    anew the first time it is read (a lazy Fisher-Yates shuffle from the deal stream, as at
    the start of the game: only the cards the game reaches are shuffled). With
    ``s[Slot.SEARCH_REVERSES]`` (the tests' stand-in, shared with the vectorised engine's) the
    library is reversed instead."""
    s, lib = S.slots, S.lib
    top, end = s[Slot.TOP], s[Slot.END]
    n = end - top
    if s[Slot.SEARCH_REVERSES]:
        width = s[Slot.SIZE] + 1
        for i in range(n // 2):
            a, b = (top + i) % width, (end - 1 - i) % width
            lib[a], lib[b] = lib[b], lib[a]
        return
    start = s[Slot.SIZE] - n
    p = start
    for kind in range(K.dims[Dim.N_KINDS]):
        for _ in range(S.zones[Zone.LIB_COUNT, kind]):
            lib[p] = kind
            p += 1
    s[Slot.TOP], s[Slot.END], s[Slot.DEALT] = start, start + n, start


@compiled
def enters_land(K, S, kind, tapped):
    """A land enters the battlefield (tapped where ``tapped``) with the enter triggers a land
    can have here: Maps. A land that would explore or make a creature explore when it
    enters is played by the vectorised engine (:func:`~explore_sim.engine.kernel.kernel_problem`),
    so no land's entering starts another explore: the compiled game never recurses."""
    enter(K, S, kind)
    if tapped:
        tap_copies(K, S, kind, ONE)
    if member(K, Group.MAPS_ON_ENTER, kind):
        create_maps(K, S, K.card[kind, CardCol.MAPS])


@compiled
def enter_found(K, S, card, untap):
    """A basic land found by a search enters tapped (untapped again with ``untap``); a
    basic land has no ability of its own here
    (:func:`~explore_sim.engine.kernel.kernel_problem`)."""
    if card == 0:
        return
    S.totals[Event.LANDS_PUT] += 1
    note(S, Trace.LAND_PUT, card, 0 if untap else 1, 0)
    enters_land(K, S, card, YES)
    if untap:
        tap_copies(K, S, card, NONE)


@compiled
def search_basics(K, S, how):
    """Search the library for basic lands as ``how`` says (Evolving Wilds, Fabled Passage,
    Rampant Growth, Cultivate, District Guide, Myriad Landscape), then shuffle it."""
    if how == F_BASIC_TAPPED or how == F_PASSAGE:
        found = take_basic(K, S, NONE)
        untap = how == F_PASSAGE and count(K, S, Group.LAND) + 1 >= 4
        enter_found(K, S, found, untap)
    elif how == F_BASIC_HAND:
        found = take_basic(K, S, NONE)
        if found:
            to_hand(K, S, found, ONE)
            note(S, Trace.SEARCHED, found, 0, 0)
    elif how == F_TAPPED_AND_HAND:
        first = take_basic(K, S, NONE)
        second = take_basic(K, S, NONE)
        enter_found(K, S, first, NO)
        if second:
            to_hand(K, S, second, ONE)
            note(S, Trace.SEARCHED, second, 0, 0)
    elif how == F_TWO_BASICS:
        first = take_basic(K, S, NONE)
        second = take_basic(K, S, first if first else 0)
        enter_found(K, S, first, NO)
        enter_found(K, S, second, NO)
    shuffle_library(K, S)
