"""The library, the hand and the battlefield: dealing, drawing, entering and leaving.

Part of the compiled game (:mod:`explore_sim.engine.kernel`); every function reads the
packed deck tables ``K`` and changes the game state ``S``.
"""

from __future__ import annotations

from .bits import next_common, put
from .codes import NO, ONE, YES
from .layout import (
    CardCol,
    Dim,
    Event,
    Group,
    IdSet,
    SetRow,
    Slot,
    Trace,
    UnitRow,
    Work,
    Zone,
)
from .records import compiled
from .state import below
from .trace import note


@compiled
def count(K, S, slot):
    """Permanents of group ``slot`` on the battlefield."""
    g = K.gi[slot]
    return S.perm[g] if g >= 0 else 0


@compiled
def member(K, slot, kind):
    g = K.gi[slot]
    return g >= 0 and K.members[kind, g] != 0


@compiled
def group_size(K, slot):
    """How many card ids group ``slot`` has (0 when the deck has no such group)."""
    g = K.gi[slot]
    return K.group_n[g] if g >= 0 else 0


@compiled
def group_id(K, slot, index):
    """Card id ``index`` (below :func:`group_size`) of group ``slot``; a loop over a group::

        for index in range(group_size(K, Group.SEEKER)):
            kind = group_id(K, Group.SEEKER, index)
    """
    return K.group_ids[K.gi[slot], index]


@compiled
def first_present(K, S, slot):
    """The first card id of group ``slot`` with a copy on the battlefield (0: none)."""
    for index in range(group_size(K, slot)):
        kind = group_id(K, slot, index)
        if S.zones[Zone.BF, kind] > 0:
            return kind
    return 0


@compiled
def deal_to(S, position):
    """Deal the library up to logical ``position``: each undealt position takes a uniform
    choice among the cards not dealt yet (a partial Fisher-Yates shuffle). Each card dealt
    adds its watch bits to ``s[Slot.SEEN]`` (:func:`~.game.play_chunk`'s ``watch``): a card
    the game never deals is one it never sees."""
    s, lib, rng = S.slots, S.lib, S.deal
    size = s[Slot.SIZE]
    watch = S.work[Work.WATCH]
    while s[Slot.DEALT] <= position and s[Slot.DEALT] < size:
        d = s[Slot.DEALT]
        j = d + below(rng, size - d, S.recip)
        lib[d], lib[j] = lib[j], lib[d]
        s[Slot.SEEN] |= watch[lib[d]]
        s[Slot.DEALT] = d + 1


@compiled
def deal_all(S):
    deal_to(S, S.slots[Slot.SIZE])


@compiled
def at(S, position):
    """The index in ``S.lib`` of the library's logical ``position`` (>= 0): ``position``
    modulo the buffer's width, by subtraction (a position passes the width only after cards
    went to the bottom)."""
    width = S.slots[Slot.SIZE] + 1
    while position >= width:
        position -= width
    return position


@compiled
def peek(K, S):
    """The top card of the library, 0 where it is empty."""
    s = S.slots
    if s[Slot.TOP] >= s[Slot.END]:
        return 0
    deal_to(S, s[Slot.TOP])
    return S.lib[at(S, s[Slot.TOP])]


@compiled
def to_hand(K, S, card, n):
    """``n`` copies of ``card`` join the hand (leave it where ``n`` is negative); the hand's
    size, lands, spells waiting for a target and pips (of the cards a game casts) are
    counted as they do."""
    S.zones[Zone.HAND, card] += n
    S.slots[Slot.HELD] += n
    S.slots[Slot.HAND_LANDS] += n * K.card[card, CardCol.IS_LAND]
    if K.card[card, CardCol.NEEDS_TARGET] == 2:
        S.slots[Slot.HAND_WAITING] += n
    else:  # the pips generic mana spares: a card never cast asks for none
        for k in range(5):
            S.hand_pips[k] += n * K.pips[card, k]
    put(S.sets[SetRow.HELD_IDS], card, S.zones[Zone.HAND, card] > 0)
    mark_castable(K, S, card)


@compiled
def mark_castable(K, S, kind):
    """Keep ``kind``'s rank in the set of spells the casting pass may cast (held, or a
    commander in the command zone) after its copies in hand or in the command zone changed."""
    rank = K.card[kind, CardCol.PASS_RANK]
    if rank >= 0:
        held = S.zones[Zone.HAND, kind] > 0 or S.zones[Zone.COMMAND, kind] > 0
        put(S.sets[SetRow.CAST_RANKS], rank, held)


@compiled
def leave_library(K, S, card):
    """The top card ``card`` leaves the library (drawn, explored into hand, milled)."""
    s = S.slots
    s[Slot.TOP] += 1
    S.zones[Zone.LIB_COUNT, card] -= 1
    s[Slot.LIB_LANDS] -= K.card[card, CardCol.IS_LAND]
    for k in range(5):
        S.lib_pips[k] -= K.pips[card, k]


@compiled
def draw(K, S):
    """Draw a card; drawing from an empty library is recorded (``decked``)."""
    card = peek(K, S)
    if card == 0:
        if not S.totals[Event.DECKED]:  # the log says it once
            note(S, Trace.DECKED, 0, 0, 0)
        S.totals[Event.DECKED] = 1
        return
    leave_library(K, S, card)
    to_hand(K, S, card, ONE)
    S.totals[Event.CARDS_DRAWN] += 1
    note(S, Trace.DRAW, card, 0, 0)


@compiled
def usable(K, S, kind):
    """Untapped copies of source ``kind`` able to make mana now (a creature's only once it
    has been under your control since the turn began, CR 302.6)."""
    n = S.zones[Zone.BF, kind] - S.zones[Zone.TAPPED, kind]
    if K.card[kind, CardCol.IS_CREATURE] and not K.card[kind, CardCol.HAS_HASTE]:
        n -= S.zones[Zone.SICK, kind]
    return max(n, 0)


@compiled
def makes_plain_mana(K, kind):
    """Whether ``kind`` is a mana source with no activation cost (not a filter)."""
    return K.card[kind, CardCol.IS_SOURCE] != 0 and K.card[kind, CardCol.SOURCE_COST] == 0


@compiled
def untap_units(K, S):
    """The running mana counts at the untap step: with nothing tapped or summoning sick,
    every plain source you control can make its mana (:data:`~.state.READY` becomes
    :data:`~.state.IN_PLAY`)."""
    for c in range(K.dims[Dim.N_CLASSES]):
        S.units[UnitRow.READY, c] = S.units[UnitRow.IN_PLAY, c]


@compiled
def units_moved(K, S, kind, ready_before, on_before):
    """Keep the running mana counts in step after copies of ``kind`` entered, left, were
    tapped or untapped: ``ready_before`` and ``on_before`` are its usable copies and its
    copies on the battlefield before the change."""
    if makes_plain_mana(K, kind):
        ready, on = usable(K, S, kind) - ready_before, S.zones[Zone.BF, kind] - on_before
        if ready or on:
            for c in range(K.dims[Dim.N_CLASSES]):
                S.units[UnitRow.READY, c] += ready * K.source_units[kind, c]
                S.units[UnitRow.IN_PLAY, c] += on * K.source_units[kind, c]
        if on:
            for m in range(K.dims[Dim.N_MASKS]):
                S.cover[m] += on * K.source_cover[kind, m]
            for k in range(5):
                S.made[k] += on * K.source_colours[kind, k]


@compiled
def tap_copies(K, S, kind, n):
    """Tap ``n`` copies of permanent ``kind`` (untap them where ``n`` is negative)."""
    ready, on = usable(K, S, kind), S.zones[Zone.BF, kind]
    S.zones[Zone.TAPPED, kind] += n
    units_moved(K, S, kind, ready, on)


@compiled
def enter(K, S, kind):
    """A permanent enters the battlefield (summoning sick); its groups count it."""
    ready, on = usable(K, S, kind), S.zones[Zone.BF, kind]
    S.zones[Zone.BF, kind] += 1
    S.zones[Zone.SICK, kind] += 1
    for i in range(K.card[kind, CardCol.N_GROUPS]):
        S.perm[K.kind_groups[kind, i]] += 1
    put(S.sets[SetRow.ON_IDS], kind, True)
    units_moved(K, S, kind, ready, on)


@compiled
def leave(K, S, kind, tapped):
    """A permanent leaves the battlefield: a tapped copy where ``tapped`` and one is tapped
    (a land a bounce land returns, a one-shot source sacrificed for its mana), else an
    untapped one where one is; its sick and tapped counts stay within what is left."""
    ready, on = usable(K, S, kind), S.zones[Zone.BF, kind]
    S.zones[Zone.BF, kind] -= 1
    if tapped and S.zones[Zone.TAPPED, kind] > 0:
        S.zones[Zone.TAPPED, kind] -= 1
    for i in range(K.card[kind, CardCol.N_GROUPS]):
        S.perm[K.kind_groups[kind, i]] -= 1
    put(S.sets[SetRow.ON_IDS], kind, S.zones[Zone.BF, kind] > 0)
    S.zones[Zone.SICK, kind] = min(S.zones[Zone.SICK, kind], S.zones[Zone.BF, kind])
    S.zones[Zone.TAPPED, kind] = min(S.zones[Zone.TAPPED, kind], S.zones[Zone.BF, kind])
    units_moved(K, S, kind, ready, on)


@compiled
def wanted_copies(K, S, kind, card, no_creature):
    """Copies of the held spell ``kind`` the casting pass could cast, one copy of ``card``
    (being cast) aside: of a legendary permanent one, none while one is in play or being cast
    (the legend rule, CR 704.5j); none of a spell that targets a creature you control while
    there is none (``no_creature``)."""
    copies = S.zones[Zone.HAND, kind] - (1 if kind == card else 0)
    if K.card[kind, CardCol.IS_LEGENDARY]:  # the legend rule (CR 704.5j)
        copies = 0 if S.zones[Zone.BF, kind] > 0 or kind == card else min(copies, 1)
    if no_creature and K.card[kind, CardCol.NEEDS_TARGET]:
        copies = 0  # it waits for a creature you control
    return copies


@compiled
def is_game_commander(K, kind):
    return K.dims[Dim.IS_COMMANDER] and K.card[kind, CardCol.COMMANDER_SLOT] >= 0


@compiled
def countered_copy_is_sick(S, kind, just_entered):
    """Whether the copy of ``kind`` an effect puts counters on, or that leaves, is summoning
    sick: the one that just entered when ``just_entered`` and one is sick, else one that is
    not sick if there is one (the copy :func:`remove` removes)."""
    sick = S.zones[Zone.SICK, kind]
    return (just_entered and sick > 0) or S.zones[Zone.BF, kind] - sick <= 0


@compiled
def counters_on_copies(counters, copies, chosen):
    """The counters on ``chosen`` of ``copies`` permanents that carry ``counters`` between
    them: all when every copy is chosen, else their even share, rounded down."""
    if chosen <= 0:
        return 0
    if chosen >= copies:
        return counters
    return counters * chosen // max(copies, 1)


@compiled
def add_counters(K, S, kind, added, just_entered):
    """Put ``added`` +1/+1 counters on one copy of ``kind`` (sick or not, as
    :func:`countered_copy_is_sick` says)."""
    if added <= 0 or kind == 0:
        return
    if countered_copy_is_sick(S, kind, just_entered):
        S.zones[Zone.SICK_CTR, kind] += added
    else:
        S.zones[Zone.CTR, kind] += added
    note(S, Trace.COUNTERS, kind, added, 1)


@compiled
def take_counters(K, S, kind, just_entered):
    """The copy of ``kind`` about to leave takes its +1/+1 counters with it (its even share
    of its part's)."""
    sick = S.zones[Zone.SICK, kind]
    if countered_copy_is_sick(S, kind, just_entered):
        S.zones[Zone.SICK_CTR, kind] -= counters_on_copies(S.zones[Zone.SICK_CTR, kind], sick, 1)
    else:
        ready = S.zones[Zone.BF, kind] - sick
        S.zones[Zone.CTR, kind] -= counters_on_copies(S.zones[Zone.CTR, kind], ready, 1)


@compiled
def remove(K, S, kind, just_entered):
    """The removal model: a permanent leaves in response to its explore (E3); the copy that
    just entered goes (an older one stays free of summoning sickness), a commander returns
    to the command zone (CR 903.9)."""
    if kind == 0 or S.zones[Zone.BF, kind] <= 0:
        return
    take_counters(K, S, kind, just_entered)
    if just_entered and S.zones[Zone.SICK, kind] > 0:
        ready, on = usable(K, S, kind), S.zones[Zone.BF, kind]
        S.zones[Zone.SICK, kind] -= 1
        units_moved(K, S, kind, ready, on)
    leave(K, S, kind, NO)
    if is_game_commander(K, kind):
        S.zones[Zone.COMMAND, kind] += 1
        mark_castable(K, S, kind)
    else:
        S.slots[Slot.GRAVEYARD] += 1


@compiled
def sacrifice(K, S, kind):
    """Sacrifice a land (a fetch land, Myriad Landscape): an untapped one ({T} is part of
    the cost)."""
    leave(K, S, kind, NO)
    note(S, Trace.LAND_LEAVES, kind, 2, 0)
    S.slots[Slot.GRAVEYARD] += 1


@compiled
def pick_creature(K, S, prefer_sick):
    """A creature you control (a target of Maps and spells): the first by id (by name) of
    those that attack (a mana creature stays back: counters on it deal no damage), else the
    first; or, to crew, a summoning-sick one first."""
    first = 0
    on, creatures = S.sets[SetRow.ON_IDS], K.id_sets[IdSet.CREATURE_IDS]
    if not prefer_sick:
        attacker = next_common(on, K.id_sets[IdSet.ATTACKER_IDS], 1)
        return attacker if attacker >= 0 else max(next_common(on, creatures, 1), 0)
    kind = next_common(on, creatures, 1)
    while kind >= 0:
        if S.zones[Zone.SICK, kind] > 0:
            return kind
        if first == 0:
            first = kind
        kind = next_common(on, creatures, kind + 1)
    return first


@compiled
def create_maps(K, S, n):
    """Create ``n`` Maps; each Worldwalker Helm adds one (M6)."""
    if n <= 0:
        return
    made = n + count(K, S, Group.HELM)
    S.slots[Slot.MAPS] += made
    S.totals[Event.MAPS_CREATED] += made
    note(S, Trace.MAPS_MADE, 0, made, 0)


@compiled
def land_types(K, S):
    types = 0
    for index in range(group_size(K, Group.LAND_IDS)):
        kind = group_id(K, Group.LAND_IDS, index)
        if S.zones[Zone.BF, kind] > 0:
            types |= K.card[kind, CardCol.BASIC_TYPES]
    return types


@compiled
def basics_left(K, S):
    n = 0
    for index in range(group_size(K, Group.BASIC_IDS)):
        b = group_id(K, Group.BASIC_IDS, index)
        n += S.zones[Zone.LIB_COUNT, b]
    return n


@compiled
def sacrifice_tapped(K, S, kind, copies):
    """``copies`` just-tapped copies of a one-shot mana source (Lotus Petal) are sacrificed
    for their mana: the units they made were counted as tapped already, so only the
    battlefield's counts move (its untapped copies stay)."""
    for _ in range(copies):
        leave(K, S, kind, YES)
        note(S, Trace.SACRIFICED, kind, 0, 0)
        S.slots[Slot.GRAVEYARD] += 1
