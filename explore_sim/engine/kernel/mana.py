"""Mana in the compiled game: what the sources in play can pay, exactly, and paying.

The same rules as :mod:`explore_sim.engine.paying` (docs/mana.md), one game at a time:
units of mana by class; a mode of a cost is payable when Hall's condition holds over the
masks of the exact test and the units are at least its mana value (read from the lookup
table where the deck has one); pips are paid one at a time, the most demanding first, each
by the least flexible class that leaves the rest payable, of those first the one that leaves
the spells the mana left could still cast together short of the fewest pips; generic mana one
unit at a time, each from the class whose unit leaves those spells short of the fewest pips,
then the least flexible, of equally flexible ones the colour the rest of the hand (then the
library) needs least; units come from the pool first, then sources are tapped in tapping
order.
``K`` is the packed :class:`~.pack.KernelTables`, ``S`` the game :mod:`.state`.
"""

from __future__ import annotations

from .bits import next_common
from .codes import ONE
from .layout import (
    CardCol,
    ClassCol,
    Dim,
    Event,
    Group,
    IdSet,
    ModeCol,
    PipCol,
    SetRow,
    Slot,
    SourceCol,
    UnitRow,
    Work,
    Zone,
)
from .records import compiled
from .zones import (
    count,
    makes_plain_mana,
    member,
    sacrifice_tapped,
    tap_copies,
    usable,
    wanted_copies,
)

_ANY_COLOUR, _ALL_MANA = 31, 127


@compiled
def plain_units(K, S, out, skip_kind, skip_copies):
    """The pool plus the units of every untapped plain source (no filter) into ``out``,
    less ``skip_copies`` of ``skip_kind`` (a source that pays part of a cost by tapping):
    the running counts (:data:`~.state.READY`) kept as sources enter, leave, tap and untap."""
    n_classes = K.dims[Dim.N_CLASSES]
    pool, ready = S.pool, S.units[UnitRow.READY]
    for c in range(n_classes):
        out[c] = pool[c] + ready[c]
    if skip_copies > 0 and skip_kind >= 0 and makes_plain_mana(K, skip_kind):
        skipped = min(usable(K, S, skip_kind), skip_copies)
        for c in range(n_classes):
            out[c] -= skipped * K.source_units[skip_kind, c]


@compiled
def _take_least_flexible(K, units):
    for j in range(K.dims[Dim.N_CLASSES]):
        c = K.classes[j, ClassCol.GENERIC_ORDER]
        if units[c] > 0:
            units[c] -= 1
            return c
    return -1


@compiled
def _take_for_filter(K, base, units):
    """One unit of ``units`` for a filter's cost: of the least flexible class that ``base``
    (the mana not made by a filter, left) still holds, else the least flexible; its class.
    A filter is paid with other mana before the mana another filter made: two Simic Signets
    fed by two Forests make {G}{U}{G}{U}; feeding the second with the first's {U} would
    leave one {U}."""
    for j in range(K.dims[Dim.N_CLASSES]):
        c = K.classes[j, ClassCol.GENERIC_ORDER]
        if base[c] > 0 and units[c] > 0:
            base[c] -= 1
            units[c] -= 1
            return c
    return _take_least_flexible(K, units)


@compiled
def filtered_units(K, S, plain, out):
    """``plain`` with every untapped Signet-style filter activated from the least flexible
    other mana (:func:`_take_for_filter`), into ``out``."""
    n_classes = K.dims[Dim.N_CLASSES]
    base = S.work[Work.FILTER_BASE]
    for c in range(n_classes):
        out[c] = plain[c]
        base[c] = plain[c]
    for si in range(K.dims[Dim.N_SOURCES]):
        cost = K.sources[si, SourceCol.COST]
        if cost == 0:
            continue
        copies = usable(K, S, K.sources[si, SourceCol.KIND])
        for _ in range(copies):
            if total_of(K, out) < cost:
                continue
            for _ in range(cost):
                _take_for_filter(K, base, out)
            for c in range(n_classes):
                out[c] += K.s_units[si, c]


@compiled
def unit_sets(K, S, plain, filtered, skip_kind, skip_copies):
    """The mana available now in the ways it can be made: ``plain`` (no filter activated)
    and, when the deck has filters, ``filtered`` (every filter activated). Returns how many
    sets there are (1 or 2)."""
    plain_units(K, S, plain, skip_kind, skip_copies)
    if not K.dims[Dim.HAS_FILTERS]:
        return 1
    filtered_units(K, S, plain, filtered)
    return 2


@compiled
def hall(K, units, req, total):
    """Hall's condition: for every mask M, the units meeting M cover the pips inside M
    (``req``), and there are at least ``total`` units."""
    n_classes = K.dims[Dim.N_CLASSES]
    have = 0
    for c in range(n_classes):
        have += units[c]
    if have < total:
        return False
    for m in range(K.dims[Dim.N_MASKS]):
        covered = 0
        for c in range(n_classes):
            covered += units[c] * K.intersects[c, m]
        if covered < req[m]:
            return False
    return True


@compiled
def lookup_key(K, units):
    """The row of the lookup table for ``units``: each class capped at ``cap``, as one
    mixed-radix number."""
    cap = K.dims[Dim.CAP]
    key = 0
    for c in range(K.dims[Dim.N_CLASSES]):
        key += min(units[c], cap) * K.classes[c, ClassCol.STRIDES]
    return key


@compiled
def castable_key(K, units):
    """The row of ``K.castable_by_key`` for ``units``: each class capped at its key cap and
    the total at the largest mana value, as one mixed-radix number
    (:func:`~.pack.castability_keys`)."""
    key = 0
    total = 0
    for c in range(K.dims[Dim.N_CLASSES]):
        total += units[c]
        key += min(units[c], K.classes[c, ClassCol.KEY_CAP]) * K.classes[c, ClassCol.KEY_STRIDE]
    return key + min(total, K.dims[Dim.TOTAL_KEY_CAP]) * K.dims[Dim.TOTAL_KEY_STRIDE]


@compiled
def keyed(K):
    """Whether castability is read from the rows of ``K.castable_by_key`` (the deck's keys
    are few enough), rather than tested way to pay by way to pay."""
    return K.dims[Dim.CASTABLE_KEYS] != 0


@compiled
def paid_row(K, which, plain, filtered, n_sets, out):
    """Row ``which`` of ``K.castable_by_key`` (:data:`~.pack.CK_RANKS`, ...) for the mana
    now: the bits of the spells ``plain`` pays, or, with filters, that ``plain`` or
    ``filtered`` pays (:func:`payable_any`), gathered in ``out``. Only with :func:`keyed`."""
    row = K.castable_by_key[which, castable_key(K, plain)]
    if n_sets == 1:
        for w in range(len(out)):
            out[w] = row[w]
        return out
    other = K.castable_by_key[which, castable_key(K, filtered)]
    for w in range(len(out)):
        out[w] = row[w] | other[w]
    return out


@compiled
def payable(K, units, mode):
    """Whether ``units`` can pay ``mode`` (the exact test; read from the lookup table)."""
    if K.dims[Dim.USE_LOOKUP]:
        return K.lookup[lookup_key(K, units), mode] != 0
    if K.modes[mode, ModeCol.N_PIPS] == 0:
        have = 0
        for c in range(K.dims[Dim.N_CLASSES]):
            have += units[c]
        return have >= K.modes[mode, ModeCol.TOTAL]
    return hall(K, units, K.req[mode], K.modes[mode, ModeCol.TOTAL])


@compiled
def payable_any(K, plain, filtered, n_sets, mode):
    """:func:`payable` with either set of units."""
    if payable(K, plain, mode):
        return True
    return n_sets > 1 and payable(K, filtered, mode)


@compiled
def total_of(K, units):
    t = 0
    for c in range(K.dims[Dim.N_CLASSES]):
        t += units[c]
    return t


@compiled
def _flexibility_ties(K, order, n):
    """Whether two of the classes ``order[:n]`` are equally flexible."""
    for a in range(n):
        for b in range(a + 1, n):
            if (K.classes[order[a], ClassCol.FLEXIBILITY]
                    == K.classes[order[b], ClassCol.FLEXIBILITY]):
                return True
    return False


@compiled
def _pips_castable_now(K, S, card, left, now):
    """The pips by colour, into ``now``, of the spells held (a game casts them) that the mana
    left after this payment, ``left``, could still cast this turn together, colours aside:
    in the casting order without the payoffs' group (``CardCol.BASE_RANK``: how the casting
    pass orders a payoff and the spell it would cast otherwise), each spell's copies while
    their cheapest ways to pay fit in what is left (an X explorer, at X = 1, takes all of
    it); one copy of ``card`` (being paid for) aside, and neither a second legendary
    permanent nor a spell waiting for a creature you control (:func:`~.zones.wanted_copies`).
    Sources untap next turn, so only those spells are stranded by what generic mana takes
    now. Returns whether any of them asks for a colour."""
    for k in range(5):
        now[k] = 0
    no_creature = count(K, S, Group.CREATURE) == 0 and not K.card[card, CardCol.IS_CREATURE]
    kinds, copies_of = S.work[Work.TOGETHER_KINDS], S.work[Work.TOGETHER_COPIES]
    n = 0  # the spells wanted, by base rank (a hand holds few: insertion)
    held, cast = S.sets[SetRow.HELD_IDS], K.id_sets[IdSet.CAST_IDS]
    kind = next_common(held, cast, 1)
    while kind >= 0:
        copies = wanted_copies(K, S, kind, card, no_creature)
        if copies > 0 and K.card[kind, CardCol.CHEAPEST] > 0:  # a free spell asks no colour
            rank, j = K.card[kind, CardCol.BASE_RANK], n
            while j > 0 and K.card[kinds[j - 1], CardCol.BASE_RANK] > rank:
                kinds[j], copies_of[j] = kinds[j - 1], copies_of[j - 1]
                j -= 1
            kinds[j], copies_of[j] = kind, copies
            n += 1
        kind = next_common(held, cast, kind + 1)
    found = False
    for j in range(n):
        kind, copies = kinds[j], copies_of[j]
        cost = K.card[kind, CardCol.CHEAPEST]
        if K.card[kind, CardCol.IS_X]:  # Jadelight Spelunker: X >= 1, and X takes the rest
            copies = 1 if left >= cost + 1 else 0
            cost = left
        else:
            copies = min(copies, left // cost)
        if copies <= 0:
            continue
        left -= copies * cost
        for k in range(5):
            now[k] += copies * K.pips[kind, k]
            found = found or K.pips[kind, k] > 0
    return found


@compiled
def _generic_key(K, c, now, supply, pips, lib_pips):
    """The key of class ``c`` for the next unit of generic mana, least first: how many
    more of the pips ``now`` one unit of it leaves short, the units left by colour being
    ``supply`` (one unit of a colour short: now >= supply); then the least flexible; then
    the colours the rest of the hand (``pips``), then the library (``lib_pips``), needs
    least; then the static order."""
    short = 0
    need_hand = 0
    need_library = 0
    for k in range(5):
        if K.classes[c, ClassCol.COLOURS + k]:
            short += 1 if now[k] >= supply[k] else 0
            need_hand += pips[k]
            need_library += lib_pips[k]
    return ((short << 52) + (K.classes[c, ClassCol.FLEXIBILITY] << 48)
            + (min(need_hand, 32767) << 24) + (min(need_library, 4095) << 12)
            + K.classes[c, ClassCol.GENERIC_RANK])


@compiled
def pay_generic(K, S, mode, units, used, castable):
    """Pay the generic part of ``mode`` from ``units`` (what is left after its pips; both
    changed) into ``used``: one unit at a time, each from the class of least
    :func:`_generic_key`, so that the spells the mana left could still cast together this
    turn (:func:`_pips_castable_now`) are left short of the fewest pips (docs/mana.md); in
    the static order when no such spell asks for a colour and no two classes that pay are
    equally flexible (the keys then order the classes as it does). ``castable``: whether
    such a spell asks for a colour (its pips in ``S.work[Work.ORDER_NOW]``), -1 when not
    found yet."""
    n_classes = K.dims[Dim.N_CLASSES]
    need = K.modes[mode, ModeCol.GENERIC]
    card = K.modes[mode, ModeCol.MODE_CARD]
    now, supply = S.work[Work.ORDER_NOW], S.work[Work.ORDER_SUPPLY]
    n = 0
    order = S.work[Work.ORDER]
    for c in range(n_classes):
        if units[c] > 0:
            order[n] = c
            n += 1
    ties = False
    if n > 1:
        if castable < 0:  # the pips' mana left is the generic part's
            castable = 1 if _pips_castable_now(K, S, card, total_of(K, units) - need, now) else 0
        ties = K.dims[Dim.TIES] != 0 and _flexibility_ties(K, order, n)
    if n <= 1 or not (castable == 1 or ties):  # the static order
        for j in range(n_classes):
            c = K.classes[j, ClassCol.GENERIC_ORDER]
            take = min(units[c], need)
            units[c] -= take
            used[c] += take
            need -= take
        return
    pips, lib_pips = S.work[Work.ORDER_PIPS], S.lib_pips
    for k in range(5):
        pips[k] = S.hand_pips[k] - (K.pips[card, k] if card and S.zones[Zone.HAND, card] else 0)
        supply[k] = 0
        for c in range(n_classes):
            supply[k] += units[c] * K.classes[c, ClassCol.COLOURS + k]
    for _ in range(need):
        best, best_key = -1, 0
        for c in range(n_classes):
            if units[c] > 0:
                key = _generic_key(K, c, now, supply, pips, lib_pips)
                if best < 0 or key < best_key:
                    best, best_key = c, key
        if best < 0:
            return
        units[best] -= 1
        used[best] += 1
        for k in range(5):
            supply[k] -= K.classes[best, ClassCol.COLOURS + k]


@compiled
def _unit_shortfall(K, c, now, units):
    """How many more of the pips ``now`` one unit of class ``c`` leaves short, the units
    being ``units``: one for each of its colours of which ``now`` asks at least as many as
    the units can give."""
    short = 0
    for k in range(5):
        if K.classes[c, ClassCol.COLOURS + k]:
            supply = 0
            for d in range(K.dims[Dim.N_CLASSES]):
                supply += units[d] * K.classes[d, ClassCol.COLOURS + k]
            short += 1 if now[k] >= supply else 0
    return short


@compiled
def allocate(K, S, units, mode, take_all, used):
    """Which units pay ``mode`` (payable by ``units``, which is changed): into ``used``;
    returns (life paid, X). Each pip is paid by the first class in its order of candidates
    (least flexible, mana costing life last) that leaves the rest payable and, of those,
    leaves the spells the mana left could still cast together this turn short of the fewest
    pips (:func:`_unit_shortfall`; a safe pick, a class making only the pip's colour, is never
    worse and needs no check)."""
    n_classes = K.dims[Dim.N_CLASSES]
    for c in range(n_classes):
        used[c] = 0
    life = K.modes[mode, ModeCol.LIFE]
    trial = S.work[Work.TRIAL]
    now = S.work[Work.ORDER_NOW]
    castable = -1  # whether a spell the mana left could cast asks for a colour (-1: not asked)
    left = total_of(K, units) - K.modes[mode, ModeCol.TOTAL]  # the mana left after paying
    for i in range(K.modes[mode, ModeCol.N_PIPS]):
        pip = K.pips_of[mode, i, PipCol.PIP_MASK]
        best, best_short = -1, 0
        for k in range(K.pips_of[mode, i, PipCol.N_CAND]):
            c = K.cand[mode, i, k] >> 1
            if units[c] <= 0:
                continue
            if not K.cand[mode, i, k] & 1:  # a safe pick needs no check
                for d in range(n_classes):
                    trial[d] = units[d]
                trial[c] -= 1
                if not hall(K, trial, K.rest_req[mode, i], K.pips_of[mode, i, PipCol.REST_TOTAL]):
                    continue
            elif best < 0:
                best = c
                break
            if take_all or n_classes == 1:
                best = c
                break
            if castable < 0:
                castable = 1 if _pips_castable_now(
                    K, S, K.modes[mode, ModeCol.MODE_CARD], left, now) else 0
            short = _unit_shortfall(K, c, now, units) if castable else 0
            if best < 0 or short < best_short:
                best, best_short = c, short
            if best_short == 0:
                break  # no class leaves fewer short
        if best >= 0:
            units[best] -= 1
            used[best] += 1
            coloured = pip & _ANY_COLOUR and not (pip & ~_ANY_COLOUR & _ALL_MANA)
            if K.classes[best, ClassCol.CLASS_PAIN] and coloured:
                life += 1
    if take_all:  # X takes all the mana left
        spent = 0
        for c in range(n_classes):
            used[c] += units[c]
            units[c] = 0
            spent += used[c]
        return life, spent - K.modes[mode, ModeCol.TOTAL]
    if K.modes[mode, ModeCol.GENERIC]:
        pay_generic(K, S, mode, units, used, castable)
    return life, 0


@compiled
def tap(K, S, used, skip_kind, skip_copies):
    """Take ``used`` from the pool, then tap plain sources in tapping order; what a tapped
    source makes beyond the need goes to the pool."""
    n_classes = K.dims[Dim.N_CLASSES]
    pool = S.pool
    need = S.work[Work.NEED]
    remaining = 0
    for c in range(n_classes):
        from_pool = min(pool[c], used[c])
        pool[c] -= from_pool
        need[c] = used[c] - from_pool
        remaining += need[c]
    for si in range(K.dims[Dim.N_SOURCES]):
        if remaining <= 0:
            break  # paid: no later source is tapped
        kind = K.sources[si, SourceCol.KIND]
        if K.sources[si, SourceCol.COST] > 0 or S.zones[Zone.BF, kind] <= 0:
            continue  # a filter, or no copy to tap
        wanted = 0
        for c in range(n_classes):
            made = K.s_units[si, c]
            if made and need[c] > 0:  # copies to tap for the need: ceil(need / made)
                wanted = max(wanted, need[c] if made == 1 else -(-need[c] // made))
        if wanted == 0:
            continue
        copies = usable(K, S, kind)
        if kind == skip_kind:
            copies = max(copies - skip_copies, 0)
        copies = min(copies, wanted)
        if copies <= 0:
            continue
        # At most the usable copies are tapped, so exactly these stop making mana: the
        # running counts lose what they make (tap_copies, without recounting).
        S.zones[Zone.TAPPED, kind] += copies
        ready = S.units[UnitRow.READY]
        for c in range(n_classes):
            produced = copies * K.s_units[si, c]
            spent = min(produced, need[c])
            need[c] -= spent
            remaining -= spent
            pool[c] += produced - spent
            ready[c] -= produced
        if member(K, Group.SACRIFICE_FOR_MANA, kind):  # Lotus Petal: its cost sacrifices it
            sacrifice_tapped(K, S, kind, copies)


@compiled
def activate_filters(K, S, skip_kind, skip_copies):
    """Activate every untapped Signet-style filter, each paid with the least flexible other
    mana (:func:`_take_for_filter`); their mana goes to the pool."""
    n_classes = K.dims[Dim.N_CLASSES]
    units = S.work[Work.FILTER_UNITS]
    one = S.work[Work.FILTER_ONE]
    base = S.work[Work.FILTER_BASE]
    plain_units(K, S, base, skip_kind, skip_copies)  # the mana no filter made
    pool = S.pool
    for si in range(K.dims[Dim.N_SOURCES]):
        cost = K.sources[si, SourceCol.COST]
        if cost == 0:
            continue
        kind = K.sources[si, SourceCol.KIND]
        copies = usable(K, S, kind)
        for _ in range(copies):
            plain_units(K, S, units, skip_kind, skip_copies)
            if total_of(K, units) < cost:
                break
            for _ in range(cost):
                plain_units(K, S, units, skip_kind, skip_copies)
                c = _take_for_filter(K, base, units)
                one[:n_classes] = 0
                one[c] = 1
                tap(K, S, one, skip_kind, skip_copies)
            tap_copies(K, S, kind, ONE)
            for c in range(n_classes):
                pool[c] += K.s_units[si, c]
            S.slots[Slot.POOL_IN_USE] = 1


@compiled
def pay_from_pool(K, S):
    """One generic mana (a Map's {1}) from the pool: its least flexible unit."""
    if _take_least_flexible(K, S.pool) >= 0:
        S.totals[Event.MANA_SPENT] += 1


@compiled
def activates_filters(K, S, units, mode, take_all):
    """Whether paying ``mode`` from ``units`` (no filter activated) activates every untapped
    Signet-style filter first: where the cost cannot be paid without them; or where it can
    be paid with them, they make more than they cost, and paid without them it would leave
    too little other mana to activate them afterwards (with three lands and a Signet, a
    3-drop taps a land for the Signet and leaves a land, not the three lands and an idle
    Signet); an X spell, which takes all the mana, whenever it can be paid with them."""
    if not payable(K, units, mode):
        return True
    costs = 0  # what activating every untapped filter costs
    for si in range(K.dims[Dim.N_SOURCES]):
        cost = K.sources[si, SourceCol.COST]
        if cost > 0:
            costs += cost * usable(K, S, K.sources[si, SourceCol.KIND])
    have = total_of(K, units)
    if costs == 0 or (not take_all and have - K.modes[mode, ModeCol.TOTAL] >= costs):
        return False
    filtered = S.work[Work.FILTER_UNITS]
    filtered_units(K, S, units, filtered)
    return total_of(K, filtered) > have and payable(K, filtered, mode)


@compiled
def pay_mode(K, S, mode, take_all, skip_kind, skip_copies, used):
    """Pay ``mode`` (payable now), tapping sources: units spent into ``used``; returns
    (life paid, X). Filters are activated first where :func:`activates_filters` says."""
    units = S.work[Work.MODE_UNITS]
    plain_units(K, S, units, skip_kind, skip_copies)
    if K.dims[Dim.HAS_FILTERS] and activates_filters(K, S, units, mode, take_all):
        activate_filters(K, S, skip_kind, skip_copies)
        plain_units(K, S, units, skip_kind, skip_copies)
    life, x = allocate(K, S, units, mode, take_all, used)
    tap(K, S, used, skip_kind, skip_copies)
    return life, x
