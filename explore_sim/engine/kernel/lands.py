"""Lands: which land to play toward the spells' colours (docs/mana.md) and how it enters.

Part of the compiled game (:mod:`explore_sim.engine.kernel`); every function reads the
packed deck tables ``K`` and changes the game state ``S``.
"""

from __future__ import annotations

from .bits import meet
from .codes import (
    E_LANDS_PUT,
    E_LIFE_PAID,
    E_TAPPED_LANDS,
    G_LAND,
    G_LAND_IDS,
    L_BOUNCE,
    L_SCRY,
    N_CASTABLE,
    N_CLASSES,
    N_COMMANDERS,
    N_OPTIONS,
    NO,
    NONE,
    ONE,
    SPELL_FACES,
    T_FAST,
    T_LIFE,
    T_SLOW,
    T_UNLESS,
    T_YES,
    W_SACRIFICE,
    YES,
    ZERO,
)
from .colours import colour_keys
from .decisions import (
    castable_commander,
    castable_in_hand,
    castable_target,
    scry,
    will_use_mana,
)
from .mana import total_of, unit_sets
from .pack import (
    C_FACE_OF,
    C_FETCH_WHEN,
    C_LAND_COLOURS,
    C_LAND_ENTERS,
    C_TAPPED_ARG,
    C_TAPPED_RULE,
    LO_ARG,
    LO_BOUNCE,
    LO_CARD,
    LO_COLOURS,
    LO_FETCH,
    LO_KIND,
    LO_PASSAGE,
    LO_RULE,
    LO_SPELL_FACE,
    LO_TIEBREAK,
    OPTION_CARD_IDS,
)
from .records import compiled
from .search import enters_land, sacrifice_to_search
from .state import (
    BF,
    HAND,
    HELD_IDS,
    LAND_DROPS,
    PLAYED_LAND,
    R_CHOOSE_FILTERED,
    R_CHOOSE_PLAIN,
    R_ENTER_FILTERED,
    R_ENTER_PLAIN,
    R_MORE_FILTERED,
    R_MORE_PLAIN,
    R_OPTION_HELD,
    R_OPTION_KEYS,
    TAPPED,
)
from .trace import T_LAND, T_LAND_LEAVES, T_LAND_PUT, note
from .zones import (
    count,
    group_ids,
    land_types,
    leave,
    makes_plain_mana,
    tap_copies,
    to_hand,
    usable,
)


@compiled
def enters_untapped(K, S, rule, arg, will_use):
    if rule == 0:
        return True
    if rule == T_UNLESS:
        return (land_types(K, S) & arg) != 0
    if rule == T_FAST:
        return count(K, S, G_LAND) <= 2
    if rule == T_SLOW:
        return count(K, S, G_LAND) >= 2
    if rule == T_LIFE:
        return will_use
    return False


@compiled
def choose_land(K, S, land_drop, tapped):
    """The land option to play (an index of the options), -1 if none. A land drop: steps 1-5;
    a land an effect puts onto the battlefield is a land card, chosen like a land drop when
    its mana may be used this turn (Hakbal), else a land that would enter tapped anyway
    first (Nicanzil)."""
    n_options = K.dims[N_OPTIONS]
    if not meet(S.sets[HELD_IDS], K.id_sets[OPTION_CARD_IDS]):
        return -1  # no land card in hand
    held = S.work[R_OPTION_HELD]
    any_land_card = False
    for o in range(n_options):
        held[o] = S.zones[HAND, K.options[o, LO_CARD]] > 0
        if held[o] and not K.options[o, LO_SPELL_FACE]:
            any_land_card = True
    no_land = count(K, S, G_LAND) == 0
    n_held = 0
    last = -1
    for o in range(n_options):
        if K.options[o, LO_SPELL_FACE] and (not land_drop or (K.dims[SPELL_FACES] == 0
                                                      and any_land_card)):
            held[o] = False
        if K.options[o, LO_BOUNCE] and no_land:  # a bounce land would return itself
            held[o] = False
        if held[o]:
            n_held += 1
            last = o
    if n_held <= 1:
        return last
    may_use = land_drop or not tapped
    n_classes = K.dims[N_CLASSES]
    plain, filtered = S.work[R_CHOOSE_PLAIN], S.work[R_CHOOSE_FILTERED]
    n_sets = 1
    will_use = False
    before = target_before = commander_before = False
    if may_use:
        n_sets = unit_sets(K, S, plain, filtered, NONE, ZERO)
        will_use = will_use_mana(K, S, total_of(K, filtered if n_sets > 1 else plain))
        before = castable_in_hand(K, S, plain, filtered, n_sets)
        # Step 1 counts the cards named by castable as held, and a commander in the
        # command zone.
        target_before = castable_target(K, plain, filtered, n_sets) if K.dims[N_CASTABLE] \
            else before
        commander_before = castable_commander(K, S, plain, filtered, n_sets) \
            if K.dims[N_COMMANDERS] else before
    lands = count(K, S, G_LAND)
    keys = S.work[R_OPTION_KEYS]
    keys[:n_options] = 0
    more_plain, more_filtered = S.work[R_MORE_PLAIN], S.work[R_MORE_FILTERED]
    for o in range(n_options):
        if not held[o]:
            continue
        if K.options[o, LO_FETCH]:  # the land it finds enters tapped (a Passage's from the 4th land)
            untapped = K.options[o, LO_PASSAGE] != 0 and lands >= 3
        else:
            untapped = enters_untapped(K, S, K.options[o, LO_RULE], K.options[o, LO_ARG], will_use)
        if may_use and untapped and not (before and target_before and commander_before):
            for c in range(n_classes):
                more_plain[c] = plain[c] + K.opt_units[o, c]
                more_filtered[c] = filtered[c] + K.opt_units[o, c]
            if (not before and castable_in_hand(K, S, more_plain, more_filtered, n_sets)) or \
                    (K.dims[N_CASTABLE] and not target_before
                     and castable_target(K, more_plain, more_filtered, n_sets)) or \
                    (K.dims[N_COMMANDERS] and not commander_before
                     and castable_commander(K, S, more_plain, more_filtered, n_sets)):
                keys[o] += 1 << 50
        if untapped == will_use:
            keys[o] += 1 << 49
    colour_keys(K, S, K.opt_cover, K.options[:, LO_COLOURS], K.options[:, LO_FETCH], held,
                keys)
    best, best_key = -1, -1
    for o in range(n_options):
        if held[o]:
            key = keys[o] + K.options[o, LO_TIEBREAK] + (1 << 20)
            if key > best_key:
                best, best_key = o, key
    return best


@compiled
def play_land(K, S):
    """Play a land if a land drop is left and one can be played."""
    s = S.slots
    if s[LAND_DROPS] <= 0:
        return False
    o = choose_land(K, S, YES, NO)
    if o < 0:
        return False
    s[LAND_DROPS] -= 1
    s[PLAYED_LAND] = 1
    to_hand(K, S, K.options[o, LO_CARD], NONE)
    land_enters(K, S, K.options[o, LO_KIND], NO, YES)
    return True


@compiled
def put_land(K, S, tapped):
    """Put a land card from hand onto the battlefield (not a land drop): tapped (Nicanzil),
    or as its own text says (Hakbal)."""
    o = choose_land(K, S, NO, tapped)
    if o < 0:
        return False
    to_hand(K, S, K.options[o, LO_CARD], NONE)
    land_enters(K, S, K.options[o, LO_KIND], tapped, NO)
    return True


@compiled
def land_enters(K, S, kind, tapped, land_drop):
    """Land ``kind`` enters (its card already left the hand or library): tapped by the
    effect or by its own rule; then scry, bounce, a sacrifice to search, enter triggers."""
    totals = S.totals
    rule, arg = K.card[kind, C_TAPPED_RULE], K.card[kind, C_TAPPED_ARG]
    if tapped or rule == T_YES:
        enters_tapped = True
    elif rule == 0:
        enters_tapped = False
    else:
        plain, filtered = S.work[R_ENTER_PLAIN], S.work[R_ENTER_FILTERED]
        n_sets = unit_sets(K, S, plain, filtered, NONE, ZERO)
        will_use = will_use_mana(K, S, total_of(K, filtered if n_sets > 1 else plain))
        untapped = enters_untapped(K, S, rule, arg, will_use)
        enters_tapped = not untapped
        if rule == T_LIFE and untapped:  # paid the life to have it untapped
            totals[E_LIFE_PAID] += arg
    if not land_drop:
        totals[E_LANDS_PUT] += 1
    note(S, T_LAND if land_drop else T_LAND_PUT, kind, 1 if enters_tapped else 0, 0)
    enters_land(K, S, kind, enters_tapped)
    if land_drop and enters_tapped:
        totals[E_TAPPED_LANDS] += 1
    effect = K.card[kind, C_LAND_ENTERS]
    if effect == L_SCRY:
        scry(K, S, ZERO, ZERO, YES)
    elif effect == L_BOUNCE:
        bounce(K, S, kind)
    if K.card[kind, C_FETCH_WHEN] == W_SACRIFICE:
        sacrifice_to_search(K, S, kind, land_drop)


@compiled
def bounce(K, S, bounce_land):
    """Return a land you control to hand: the least flexible other land, tapped ones first,
    tapped for mana beforehand if it is untapped; else the bounce land itself."""
    chosen, best_key = bounce_land, -1
    land_ids = group_ids(K, G_LAND_IDS)
    for n in range(len(land_ids)):
        land = land_ids[n]
        present = S.zones[BF, land] - (1 if land == bounce_land else 0)
        if present <= 0:
            continue
        colours = 0
        mask = K.card[land, C_LAND_COLOURS]
        while mask:
            colours += mask & 1
            mask >>= 1
        key = ((1 if S.zones[TAPPED, land] > 0 else 0) << 20) + ((8 - colours) << 12) + 4095 - n
        if key > best_key:
            chosen, best_key = land, key
    if makes_plain_mana(K, chosen) and usable(K, S, chosen) > 0:
        tap_copies(K, S, chosen, ONE)  # its mana stays in the pool
        for c in range(K.dims[N_CLASSES]):
            S.pool[c] += K.source_units[chosen, c]
    leave(K, S, chosen)
    note(S, T_LAND_LEAVES, chosen, 1, 0)
    card = K.card[chosen, C_FACE_OF] if K.card[chosen, C_FACE_OF] else chosen
    to_hand(K, S, card, ONE)
