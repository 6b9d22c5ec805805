"""Lands: which land to play toward the spells' colours (docs/mana.md) and how it enters.

Part of the compiled game (:mod:`explore_sim.engine.kernel`); every function reads the
packed deck tables ``K`` and changes the game state ``S``.
"""

from __future__ import annotations

from .bits import meet
from .codes import (
    F_LAND_HAND,
    F_LAND_TAPPED,
    L_BOUNCE,
    L_SCRY,
    NO,
    NO_LIFE_TIEBREAK,
    NONE,
    ONE,
    TAPS_FAST,
    TAPS_LIFE,
    TAPS_SLOW,
    TAPS_UNLESS,
    TAPS_YES,
    W_SACRIFICE,
    YES,
    ZERO,
)
from .colours import colour_keys
from .decisions import (
    castable_commander,
    castable_in_hand,
    castable_target,
    land_mana_spent,
    scry,
)
from .layout import (
    CardCol,
    Dim,
    Event,
    Group,
    IdSet,
    OptionCol,
    SetRow,
    Slot,
    Trace,
    Work,
    Zone,
)
from .mana import unit_sets
from .records import compiled
from .search import enters_land, sacrifice_to_search, shuffle_library, take_land
from .trace import note
from .zones import (
    count,
    group_id,
    group_size,
    land_types,
    leave,
    makes_plain_mana,
    tap_copies,
    to_hand,
    usable,
)


@compiled
def enters_untapped(K, S, rule, arg, life_paid):
    """Whether a land with tapped rule ``rule`` would enter untapped now; ``life_paid``:
    whether it would pay the life it asks for (:func:`land_mana_spent`)."""
    if rule == 0:
        return True
    if rule == TAPS_UNLESS:
        return (land_types(K, S) & arg) != 0
    if rule == TAPS_FAST:
        return count(K, S, Group.LAND) <= 2
    if rule == TAPS_SLOW:
        return count(K, S, Group.LAND) >= 2
    if rule == TAPS_LIFE:
        return life_paid
    return False


@compiled
def option_enters(K, S, o, may_use, lands, plain, filtered, n_sets):
    """Whether land option ``o`` would enter untapped now (``lands`` in play; the mana
    ``plain`` and ``filtered``, ``n_sets`` of them), and whether it would pay the life it
    asks for: only when its mana may be used this turn (``may_use``) and can be spent
    (:func:`land_mana_spent`), the test kept in ``S.work[Work.OPTION_LIFE][o]`` (1: no life
    paid, 2: paid) for the land as it enters (:func:`life_tested`)."""
    if K.options[o, OptionCol.FETCH]:  # its land enters tapped (a Passage's: untapped from
        return K.options[o, OptionCol.PASSAGE] != 0 and lands >= 3, False  # the fourth land)
    rule = K.options[o, OptionCol.RULE]
    life_paid = False
    if may_use and rule == TAPS_LIFE:
        life_paid = land_mana_spent(K, S, plain, filtered, n_sets, K.opt_units[o])
        S.work[Work.OPTION_LIFE][o] = 2 if life_paid else 1
    return enters_untapped(K, S, rule, K.options[o, OptionCol.ARG], life_paid), life_paid


@compiled
def choose_land(K, S, land_drop, tapped):
    """The land option to play (an index of the options), -1 if none. A land drop: steps 1-5;
    a land an effect puts onto the battlefield is a land card, chosen like a land drop when
    its mana may be used this turn (Hakbal), else a land that would enter tapped anyway
    first (Nicanzil)."""
    n_options = K.dims[Dim.N_OPTIONS]
    if not meet(S.sets[SetRow.HELD_IDS], K.id_sets[IdSet.OPTION_CARD_IDS]):
        return -1  # no land card in hand
    held = S.work[Work.OPTION_HELD]
    life = S.work[Work.OPTION_LIFE]  # a life test made here: 1 no life paid, 2 paid (0: none)
    any_land_card = False
    for o in range(n_options):
        held[o] = S.zones[Zone.HAND, K.options[o, OptionCol.CARD]] > 0
        life[o] = 0
        if held[o] and not K.options[o, OptionCol.SPELL_FACE]:
            any_land_card = True
    no_land = count(K, S, Group.LAND) == 0
    n_held = 0
    last = -1
    for o in range(n_options):
        if K.options[o, OptionCol.SPELL_FACE] and (not land_drop or (K.dims[Dim.SPELL_FACES] == 0
                                                      and any_land_card)):
            held[o] = False
        if K.options[o, OptionCol.BOUNCE] and no_land:  # a bounce land would return itself
            held[o] = False
        if held[o]:
            n_held += 1
            last = o
    if n_held <= 1:
        return last
    may_use = land_drop or not tapped
    n_classes = K.dims[Dim.N_CLASSES]
    plain, filtered = S.work[Work.CHOOSE_PLAIN], S.work[Work.CHOOSE_FILTERED]
    n_sets = 1
    before = target_before = commander_before = False
    if may_use:
        n_sets = unit_sets(K, S, plain, filtered, NONE, ZERO)
        before = castable_in_hand(K, S, plain, filtered, n_sets)
        # Step 1 counts the cards named by castable as held, and a commander in the
        # command zone.
        target_before = castable_target(K, plain, filtered, n_sets) if K.dims[Dim.N_CASTABLE] \
            else before
        commander_before = castable_commander(K, S, plain, filtered, n_sets) \
            if K.dims[Dim.N_COMMANDERS] else before
    # Step 2: mana will be used this turn when a wanted card can be paid now (colours
    # counted); one that an untapped land held would let be paid is step 1's.
    will_use = before or target_before or commander_before
    lands = count(K, S, Group.LAND)
    keys = S.work[Work.OPTION_KEYS]
    keys[:n_options] = 0
    more_plain, more_filtered = S.work[Work.MORE_PLAIN], S.work[Work.MORE_FILTERED]
    for o in range(n_options):
        if not held[o]:
            continue
        untapped, life_paid = option_enters(K, S, o, may_use, lands, plain, filtered, n_sets)
        if not life_paid:  # step 5: no life paid first
            keys[o] += NO_LIFE_TIEBREAK
        if may_use and untapped and not (before and target_before and commander_before):
            for c in range(n_classes):
                more_plain[c] = plain[c] + K.opt_units[o, c]
                more_filtered[c] = filtered[c] + K.opt_units[o, c]
            if (not before and castable_in_hand(K, S, more_plain, more_filtered, n_sets)) or \
                    (K.dims[Dim.N_CASTABLE] and not target_before
                     and castable_target(K, more_plain, more_filtered, n_sets)) or \
                    (K.dims[Dim.N_COMMANDERS] and not commander_before
                     and castable_commander(K, S, more_plain, more_filtered, n_sets)):
                keys[o] += 1 << 50
        if untapped == will_use:
            keys[o] += 1 << 49
    # Steps 3 and 4 and the tiebreak add less than 1 << 49 (colour_keys' three keys are
    # capped below it), so they only order the options tied on steps 1 and 2: a lone
    # leader is the choice, and only the tied options get colour keys.
    top = 0
    for o in range(n_options):
        if held[o]:
            top = max(top, keys[o] >> 49)
    n_top = 0
    for o in range(n_options):
        if held[o]:
            if keys[o] >> 49 == top:
                n_top += 1
                last = o
            else:
                held[o] = False
    if n_top == 1:
        return last
    colour_keys(K, S, K.opt_cover, K.option_colours, K.option_fetch, held, keys)
    best, best_key = -1, -1
    for o in range(n_options):
        if held[o]:
            key = keys[o] + K.options[o, OptionCol.TIEBREAK] + (1 << 20)
            if key > best_key:
                best, best_key = o, key
    return best


@compiled
def play_land(K, S):
    """Play a land if a land drop is left and one can be played."""
    s = S.slots
    if s[Slot.LAND_DROPS] <= 0:
        return False
    o = choose_land(K, S, YES, NO)
    if o < 0:
        return False
    s[Slot.LAND_DROPS] -= 1
    s[Slot.PLAYED_LAND] = 1
    to_hand(K, S, K.options[o, OptionCol.CARD], NONE)
    land_enters(K, S, K.options[o, OptionCol.KIND], NO, YES, life_tested(K, S, o))
    return True


@compiled
def life_tested(K, S, o):
    """The life test :func:`choose_land` made for option ``o`` (1: no life paid, 2: paid; 0:
    none), which holds as the land enters: its card left the hand, which changes no wanted
    card but a spell // land card's own spell face (its test is made again)."""
    return 0 if K.options[o, OptionCol.SPELL_FACE] else S.work[Work.OPTION_LIFE][o]


@compiled
def put_land(K, S, tapped):
    """Put a land card from hand onto the battlefield (not a land drop): tapped (Nicanzil),
    or as its own text says (Hakbal)."""
    o = choose_land(K, S, NO, tapped)
    if o < 0:
        return False
    to_hand(K, S, K.options[o, OptionCol.CARD], NONE)
    land_enters(K, S, K.options[o, OptionCol.KIND], tapped, NO, life_tested(K, S, o))
    return True


@compiled
def land_enters(K, S, kind, tapped, land_drop, tested):
    """Land ``kind`` enters (its card already left the hand or library): tapped by the
    effect or by its own rule; then scry, bounce, a sacrifice to search, enter triggers.
    ``tested``: whether a land asking for life pays it, as the land choice found it
    (:func:`life_tested`; 0: not tested, tested here)."""
    totals = S.totals
    rule, arg = K.card[kind, CardCol.TAPPED_RULE], K.card[kind, CardCol.TAPPED_ARG]
    life = 0
    if tapped or rule == TAPS_YES:
        enters_tapped = True
    elif rule == 0:
        enters_tapped = False
    else:
        life_paid = tested == 2
        if rule == TAPS_LIFE and not tested:
            plain, filtered = S.work[Work.ENTER_PLAIN], S.work[Work.ENTER_FILTERED]
            n_sets = unit_sets(K, S, plain, filtered, NONE, ZERO)
            life_paid = land_mana_spent(K, S, plain, filtered, n_sets, K.source_units[kind])
        untapped = enters_untapped(K, S, rule, arg, life_paid)
        enters_tapped = not untapped
        if rule == TAPS_LIFE and untapped:  # paid the life to have it untapped
            life = arg
            totals[Event.LIFE_PAID] += life
    if not land_drop:
        totals[Event.LANDS_PUT] += 1
    note(S, Trace.LAND if land_drop else Trace.LAND_PUT, kind, 1 if enters_tapped else 0, life)
    enters_land(K, S, kind, enters_tapped)
    if land_drop and enters_tapped:
        totals[Event.TAPPED_LANDS_PLAYED] += 1
    effect = K.card[kind, CardCol.LAND_ENTERS]
    if effect == L_SCRY:
        scry(K, S, ZERO, ZERO, YES)
    elif effect == L_BOUNCE:
        bounce(K, S, kind)
    if K.card[kind, CardCol.FETCH_WHEN] == W_SACRIFICE:
        sacrifice_to_search(K, S, kind, land_drop)


@compiled
def bounce(K, S, bounce_land):
    """Return a land you control to hand: the least flexible other land, tapped ones first,
    tapped for mana beforehand if it is untapped; else the bounce land itself."""
    chosen, best_key = bounce_land, -1
    for n in range(group_size(K, Group.LAND_IDS)):
        land = group_id(K, Group.LAND_IDS, n)
        own = 1 if land == bounce_land else 0  # the bounce land itself, just entered tapped
        present = S.zones[Zone.BF, land] - own
        if present <= 0:
            continue
        colours = 0
        mask = K.card[land, CardCol.LAND_COLOURS]
        while mask:
            colours += mask & 1
            mask >>= 1
        tapped = 1 if S.zones[Zone.TAPPED, land] - own > 0 else 0
        key = (tapped << 20) + ((8 - colours) << 12) + 4095 - n
        if key > best_key:
            chosen, best_key = land, key
    if makes_plain_mana(K, chosen) and usable(K, S, chosen) > 0:
        tap_copies(K, S, chosen, ONE)  # its mana stays in the pool
        for c in range(K.dims[Dim.N_CLASSES]):
            S.pool[c] += K.source_units[chosen, c]
    leave(K, S, chosen, YES)  # a tapped copy: tapped for mana, or chosen for being tapped
    note(S, Trace.LAND_LEAVES, chosen, 1, 0)
    card = K.card[chosen, CardCol.FACE_OF] if K.card[chosen, CardCol.FACE_OF] else chosen
    to_hand(K, S, card, ONE)


@compiled
def search_lands(K, S, how, types):
    """A spell's search for a land card of the named types (Nature's Lore, Three Visits,
    Farseek): onto the battlefield untapped (as its own text lets it), tapped, or into the
    hand; then shuffle. The vectorised engine's ``search_lands``."""
    found = take_land(K, S, types, how != F_LAND_HAND and how != F_LAND_TAPPED)
    if found:
        if how == F_LAND_HAND:
            to_hand(K, S, found, ONE)
            note(S, Trace.SEARCHED, found, 0, 0)
        else:
            land_enters(K, S, found, how == F_LAND_TAPPED, NO, ZERO)
    shuffle_library(K, S)
