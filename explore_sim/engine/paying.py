"""The vectorised mana model: which costs your untapped sources can pay, exactly, and which
sources to tap.

Terms (:mod:`explore_sim.cards.mana`): a *unit* is one mana, described by the colour mask of
what it can be; units of the same mask (and the same life cost) form a *class*
(:attr:`~explore_sim.cards.features.FeatureTable.unit_classes`). A cost is paid in one of its
:class:`~explore_sim.cards.mana.CostMode`: *pips*, each payable by the units whose mask meets
the pip's mask, and generic mana, payable by any unit.

**Castability (exact).** A mode is payable by a multiset of units iff, for every mask ``M``
in the closure under union of the deck's pip masks, the units that can pay some pip inside
``M`` are at least the pips inside ``M`` (Hall's condition for the bipartite matching of pips
to units), and the units are at least the mode's mana. The masks are few (two to eight for
a real deck), so the test is a small integer matrix product and a comparison, vectorised
over trials.

**Paying (documented rule).** Pips are paid one at a time, the most demanding first; each
by the least flexible class that can pay it (fewest colours; mana that costs life last),
provided the rest of the cost stays payable (checked with the same exact test), so a castable
spell is always paid; of those, first the class that leaves the spells the mana left could
still cast together this turn (:meth:`ManaTables.castable_together`) short of the fewest
pips. Generic mana is paid a unit at a time, by the same count, then the least flexible
units left (docs/mana.md). Units are taken from the mana pool first (mana made earlier this
phase), then sources are tapped in this order: one-shot sources last (Lotus Petal: kept for
a spell the other sources cannot pay), fewest colours first, lands before artifacts before
creatures (so creatures stay free to attack). A source that makes more than is needed (Sol
Ring) leaves the rest in the pool, which empties at the end of the phase. A one-shot source
tapped for mana is sacrificed at once (its ability's cost: "{T}, Sacrifice this artifact:
Add one mana of any color.").

**Sources.** Lands, creatures and artifacts with a mana ability; a creature's needs it to
have been under your control since the turn began (summoning sickness, CR 302.6). A
Signet-style filter (``{1}, {T}: Add {G}{U}``) needs one other mana: the castability test
tries the sources with every untapped filter activated from the least flexible other mana,
and with none activated; a payment activates them first where it would otherwise leave them
idle with no mana to feed them (:meth:`ManaTables.activates_filters`).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterable, Iterator

import numpy as np

from ..cards import FeatureTable
from ..cards.mana import ALL_MANA, ANY_COLOUR, CostMode, cost_modes
from .rowwise import row_all, row_any, row_max, row_sum
from .state import GameState, leave, of_rows

__all__ = ["ManaTables", "Payment", "popcount", "MAX_TAXED_CASTS"]

#: Casts from the command zone with their own tax level; later casts pay this much tax too.
MAX_TAXED_CASTS = 12

#: Largest :attr:`ManaTables.lookup` (amounts of units x ways to pay) built; past it the
#: exact test is computed each time.
LOOKUP_LIMIT = 1 << 21

#: Lookup tables already built, by the tables they were built from (every chunk of a run
#: builds the same game).
_LOOKUPS: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def popcount(mask: int) -> int:
    """Number of set bits."""
    return bin(int(mask)).count("1")


@dataclasses.dataclass(frozen=True, eq=False)
class Payment:
    """What paying a cost took in each of the rows concerned.

    Attributes
    ----------
    used : ndarray, shape (rows, n_classes), int32
        Units of each class spent.
    life : ndarray, shape (rows,), int32
        Life paid (pain lands' coloured mana, Phyrexian pips).
    x : ndarray, shape (rows,), int32
        The value of X (all the mana left, for an ``{X}`` spell that takes it), else 0.
    """

    used: np.ndarray
    life: np.ndarray
    x: np.ndarray


class ManaTables:
    """Per-deck tables of the mana model (built once per deck and game configuration).

    Parameters
    ----------
    features : FeatureTable
    extra_costs : iterable of str
        Costs beyond the cards' own that may be paid (activated abilities); registered so
        their pips are part of the exact test.
    extra_cards : iterable of Card
        Cards outside the deck whose castability is asked (``castable``).
    taxed : iterable of int
        Card ids cast from the command zone: their modes with commander tax are registered
        (:attr:`taxed_modes`).
    never_cast : iterable of int
        Card ids a goldfish game never casts (:func:`~explore_sim.engine.abilities.held_reason`):
        generic mana spares no colour for them.
    waits : (ndarray of intp, ndarray of intp)
        Card ids of legendary permanents, and of spells that need a creature you control as
        their target: generic mana spares the colours of one copy of a legendary permanent
        only while none is in play or being cast (the legend rule), and of a targeting spell
        only while you control a creature or are casting one.
    casting_order : ndarray of intp, optional
        Card ids of the spells a game casts, in the casting order without the payoffs'
        group (:attr:`~.tables.CastingOrder.base_rank`): the order in which the spells the
        mana left could cast together are counted (:meth:`castable_together`). Default:
        every card id, in id order.

    Attributes
    ----------
    modes : list of CostMode
        Every registered way to pay: the deck cards' modes, then extra costs.
    card_modes : dict of int to list of int
        Mode indices of each card id (in the card's order of preference).
    cost_mode : dict of str to int
        The mode index of each extra cost text (its first mode).
    extra_card_modes : list of list of int
        Mode indices of each of ``extra_cards``.
    taxed_modes : dict of int to list of list of int
        For a commander's id, its mode indices with ``{2}`` of tax per earlier cast (index:
        earlier casts, up to :data:`MAX_TAXED_CASTS`).
    cheapest : ndarray, shape (n_cards + 1,), int32
        The least mana each card id can be cast for (a split card's cheaper half; 0 for a
        card with no way to pay).
    source_ids : ndarray of intp
        Card ids with a mana ability, in tapping order.
    cast_pips : ndarray, shape (n_cards + 1, 5), int32
        Each card id's pips per colour (W, U, B, R, G), 0 for the cards never cast: what a
        card in hand asks of the mana when generic mana is paid.
    """

    def __init__(self, features: FeatureTable, extra_costs: Iterable[str] = (),
                 extra_cards: Iterable = (), taxed: Iterable[int] = (),
                 never_cast: Iterable[int] = (),
                 waits: tuple[np.ndarray, np.ndarray] | None = None,
                 casting_order: np.ndarray | None = None) -> None:
        self.f = features
        none = np.zeros(0, dtype=np.intp)
        self.legendary_ids: np.ndarray = none if waits is None else waits[0]
        self.targeting_ids: np.ndarray = none if waits is None else waits[1]
        self.casting_order: np.ndarray = (np.arange(1, len(features.cards) + 1)
                                          if casting_order is None
                                          else np.asarray(casting_order, dtype=np.intp))
        self.creature_ids = np.flatnonzero(features.is_creature)
        # The pips a card in hand asks of the mana: none for a card never cast (its target
        # is an opponent's, or no effect of it is played), which generic mana need not spare.
        self.cast_pips = features.pips.astype(np.int32)
        self.cast_pips[list(never_cast)] = 0
        classes = features.unit_classes
        self.n_classes = len(classes)
        self.class_mask = np.array([mask for mask, _ in classes], dtype=np.int64)
        self.class_pain = np.array([pain for _, pain in classes], dtype=bool)
        # Every way to pay something.
        self.modes: list[CostMode] = []
        self.mode_card: list[int] = []
        self.card_modes: dict[int, list[int]] = {}
        for card_id, card in enumerate(features.cards, start=1):
            if card.is_land:
                continue
            self.card_modes[card_id] = [self._register(mode, card_id) for mode in card.cost_modes]
        self.cost_mode: dict[str, int] = {}
        for cost in extra_costs:
            if cost not in self.cost_mode:
                self.cost_mode[cost] = self._register(cost_modes(cost)[0])
        self.extra_card_modes = [[self._register(mode) for mode in card.cost_modes]
                                 for card in extra_cards]
        self.taxed_modes: dict[int, list[list[int]]] = {}
        for card_id in taxed:
            card = features.cards[card_id - 1]
            self.taxed_modes[int(card_id)] = [
                [self._register(dataclasses.replace(mode, generic=mode.generic + 2 * casts),
                                int(card_id)) for mode in card.cost_modes]
                for casts in range(MAX_TAXED_CASTS + 1)]
        self._build()

    # ----------------------------------------------------------------------------------
    # Registration

    def _register(self, mode: CostMode, card_id: int = 0) -> int:
        self.modes.append(mode)
        self.mode_card.append(card_id)
        return len(self.modes) - 1

    def _build(self) -> None:
        """Masks of the exact test, requirements per mode, class orders, sources."""
        f = self.f
        relevant = 0
        pip_masks = sorted({pip for mode in self.modes for pip in mode.pips})
        for pip in pip_masks:
            relevant |= pip
        closure = {0}
        for pip in pip_masks:
            closure |= {m | pip for m in closure}
        closure.discard(0)
        self.masks = np.array(sorted(closure, key=lambda m: (popcount(m), m)), dtype=np.int64)
        self.relevant = relevant
        # intersects[c, k]: a unit of class c can pay some pip inside mask k.
        self.intersects = ((self.class_mask[:, None] & self.masks[None, :]) != 0).astype(np.int32)
        n_modes = len(self.modes)
        self.req = np.zeros((n_modes, len(self.masks)), dtype=np.int32)
        for i, mode in enumerate(self.modes):
            for k, mask in enumerate(self.masks.tolist()):
                self.req[i, k] = sum(1 for pip in mode.pips if pip & ~mask == 0)
        self.has_pips = np.array([bool(mode.pips) for mode in self.modes])
        self.total = np.array([mode.mana for mode in self.modes], dtype=np.int32)
        self.life = np.array([mode.life for mode in self.modes], dtype=np.int32)
        # After paying pip i of a mode: what the rest still needs (for the exactness check).
        self.rest: list[list[tuple[np.ndarray, int]]] = []
        for mode in self.modes:
            steps = []
            for i in range(len(mode.pips)):
                later = mode.pips[i + 1:]
                req = np.array([sum(1 for pip in later if pip & ~mask == 0)
                                for mask in self.masks.tolist()], dtype=np.int32)
                steps.append((req, len(later) + mode.generic))
            self.rest.append(steps)
        # Class orders: what can pay each pip, least flexible first; which are safe picks.
        effective = self.class_mask & (relevant | 0)
        flexibility = np.array([popcount(m) for m in effective.tolist()])
        self.pip_candidates: dict[int, list[tuple[int, bool]]] = {}
        for pip in pip_masks:
            candidates = [c for c in range(self.n_classes) if self.class_mask[c] & pip]
            candidates.sort(key=lambda c: (bool(self.class_pain[c] and pip & ANY_COLOUR),
                                           flexibility[c], int(self.class_mask[c])))
            # A unit that can pay nothing but this single-kind pip is always a safe pick.
            self.pip_candidates[pip] = [
                (c, popcount(pip) == 1 and int(effective[c]) == pip and not self.class_pain[c])
                for c in candidates
            ]
        # Whether some pip of a mode has a choice of classes (the spells the mana left
        # could cast may then decide it: :meth:`_pay_pips`).
        self._pip_choice = [any(len(self.pip_candidates[pip]) > 1 for pip in mode.pips)
                            for mode in self.modes]
        self.generic_order = sorted(range(self.n_classes),
                                    key=lambda c: (flexibility[c], int(self.class_mask[c])))
        # Generic mana, a unit at a time: first the units that leave the spells the mana
        # left could cast together short of the fewest pips, then the least flexible; among equally
        # flexible ones, the colours the rest of the hand (then the library) needs least
        # (:meth:`generic_keys`).
        self.flexibility = flexibility.astype(np.int64)
        self.class_colours = ((self.class_mask[:, None] & np.array([1, 2, 4, 8, 16])[None, :])
                              != 0).astype(np.int32)  # (n_classes, 5): W U B R G
        self.generic_rank = np.argsort(np.array(self.generic_order)).astype(np.int64)
        self.has_generic_ties = len(set(flexibility.tolist())) < self.n_classes
        # Sources in tapping order.
        ids = np.flatnonzero(f.is_source)
        units = f.source_units.astype(np.int32)

        def tap_key(card_id: int) -> tuple:
            classes_of = np.flatnonzero(units[card_id])
            widest = max(flexibility[c] for c in classes_of) if classes_of.size else 0
            return (bool(f.mana_once[card_id]), widest, bool(f.is_creature[card_id]),
                    not bool(f.is_land[card_id]), int(f.source_cost[card_id]) > 0, card_id)

        self.source_ids = np.array(sorted(ids.tolist(), key=tap_key), dtype=np.intp)
        self.source_units = units[self.source_ids]  # (n_sources, n_classes)
        self.source_makes = [np.flatnonzero(row) for row in self.source_units]
        self.sick_source = (f.is_creature & ~f.has_haste)[self.source_ids]
        self.source_cost = f.source_cost[self.source_ids].astype(np.int32)
        self.source_once = f.mana_once[self.source_ids]
        self.has_filters = bool((self.source_cost > 0).any())
        self.mode_card_array = np.array(self.mode_card, dtype=np.intp)
        # The least mana each card id can be cast for (0 for a card with no way to pay, a
        # land); and the least with which it is cast, an X explorer (Jadelight Spelunker)
        # with X >= 1.
        self.cheapest = np.zeros(len(f.cards) + 1, dtype=np.int32)
        for card_id, card_modes in self.card_modes.items():
            self.cheapest[card_id] = min(int(self.total[m]) for m in card_modes)
        self.x_explorer = np.array([False, *(bool(card.explores_x) for card in f.cards)])
        self.card_cheapest = self.cheapest + self.x_explorer
        self._build_lookup()

    def _build_lookup(self) -> None:
        """:attr:`lookup`: the exact test done ahead for every amount of units a row can
        hold, when the deck's classes and costs are few enough.

        Capping each class at the largest mana value of a mode (:attr:`cap`) changes no
        answer: a class with that many units covers every mask it meets and the total of
        every mode by itself.
        """
        self.cap = int(self.total.max(initial=0))
        self.strides = (self.cap + 1) ** np.arange(self.n_classes, dtype=np.int64)
        n_keys = (self.cap + 1) ** self.n_classes
        self.lookup: np.ndarray | None = None
        self.key_units: np.ndarray | None = None
        self._allocations: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        if not self.n_classes or n_keys * len(self.modes) > LOOKUP_LIMIT:
            return
        key = (self.intersects.tobytes(), self.intersects.shape, self.req.tobytes(),
               self.req.shape, self.total.tobytes())
        entry = _LOOKUPS.get(key)
        if entry is None:
            grid = np.indices((self.cap + 1,) * self.n_classes).reshape(self.n_classes, -1)
            units = grid[::-1].T.astype(np.int32)  # row i holds the units of key i
            covered, total = self.covered(units), units.sum(axis=1)
            table = np.empty((n_keys, len(self.modes)), dtype=bool)
            for m in range(len(self.modes)):
                table[:, m] = (covered >= self.req[m]).all(axis=1) & (total >= self.total[m])
            table.flags.writeable = units.flags.writeable = False  # shared by every game
            entry = table, units
            if len(_LOOKUPS) >= 64:
                _LOOKUPS.clear()
            _LOOKUPS[key] = entry
        self.lookup, self.key_units = entry

    def _allocation(self, mode: int) -> tuple[np.ndarray, np.ndarray]:
        """The pips of ``mode`` paid as :meth:`allocate` pays them, for every row of
        :attr:`lookup`: units used (n_keys, n_classes) and life paid (n_keys,). Capping the
        units changes no payment (no step takes more than the mode's mana from a class)."""
        if mode not in self._allocations:
            assert self.key_units is not None  # called only where there is a lookup (pay)
            units = self.key_units.copy()
            self._allocations[mode] = self._pay_pips(units, mode)
        return self._allocations[mode]

    def generic_keys(self, units: np.ndarray, supply: np.ndarray, now_pips: np.ndarray,
                     base: np.ndarray) -> np.ndarray:
        """The key of each class for the next unit of generic mana, shape (rows, n_classes),
        least first: how many more pips of the spells the mana left could still cast
        together (``now_pips``, (rows, 5)) one unit of it leaves short, given the units left
        by colour (``supply``, (rows, 5)); then ``base`` (:meth:`_generic_base`); classes with
        no unit left (``units`` (rows, n_classes)) last."""
        # One unit of a colour short: max(0, now - supply + 1) - max(0, now - supply) = 1
        # exactly when now >= supply.
        short = (now_pips >= supply).astype(np.int64) @ self.class_colours.T.astype(np.int64)
        key = (short << 52) + base
        return np.where(units > 0, key, np.iinfo(np.int64).max)

    def _generic_base(self, hand_pips: np.ndarray, library_pips: np.ndarray) -> np.ndarray:
        """The part of the generic keys that does not change as units are taken, shape
        (rows, n_classes): the least flexible first; of equally flexible ones, the one whose
        colours the pips of the rest of the hand (``hand_pips``, (rows, 5)) need least, then
        those of the library (``library_pips``), then the static :attr:`generic_order`."""
        hand = np.minimum(hand_pips @ self.class_colours.T, (1 << 15) - 1).astype(np.int64)
        library = np.minimum(library_pips @ self.class_colours.T, (1 << 12) - 1).astype(np.int64)
        return ((self.flexibility[None, :] << 48) + (hand << 24) + (library << 12)
                + self.generic_rank[None, :])

    # ----------------------------------------------------------------------------------
    # Availability. ``state.units`` (trials, n_classes) holds the units of every untapped,
    # usable plain source (not a filter, not a summoning-sick creature), kept up to date as
    # permanents enter, tap and leave (:meth:`track`) and recomputed at each untap step.

    def usable(self, state: GameState, rows: np.ndarray, kind: int) -> np.ndarray:
        """Untapped, usable copies of source ``kind`` in each row, shape (rows,), int32."""
        count = (of_rows(state.battlefield, rows, kind).astype(np.int32)
                 - of_rows(state.tapped, rows, kind))
        if self.f.is_creature[kind] and not self.f.has_haste[kind]:
            count -= of_rows(state.sick, rows, kind)
        return np.maximum(count, 0)

    def is_plain(self, kind: int) -> bool:
        """``kind`` is a source whose units count in ``state.units`` (not a filter)."""
        return bool(self.f.is_source[kind]) and self.f.source_cost[kind] == 0

    @contextlib.contextmanager
    def track(self, state: GameState, rows: np.ndarray, kind: int) -> Iterator[None]:
        """Keep ``state.units`` right while the block changes ``kind``'s battlefield, tapped
        or summoning-sick counts in ``rows``."""
        if not self.is_plain(kind) or not len(rows):
            yield
            return
        before = self.usable(state, rows, kind)
        yield
        change = self.usable(state, rows, kind) - before
        made = self.f.source_units[kind]
        for c in np.flatnonzero(made).tolist():
            state.units[rows, c] += (change * made[c]).astype(state.units.dtype)

    def recount(self, state: GameState) -> None:
        """``state.units`` from scratch (the untap step: nothing tapped, nothing sick)."""
        plain = self.source_ids[self.source_cost == 0]
        counts = state.battlefield[:, plain].astype(np.int32)
        state.units[:] = counts @ self.f.source_units[plain].astype(np.int32)

    def expected_units(self, state: GameState) -> np.ndarray:
        """``state.units`` recomputed from the permanents (for checks)."""
        rows = np.arange(state.trials)
        total = np.zeros((state.trials, self.n_classes), dtype=np.int32)
        for kind in self.source_ids[self.source_cost == 0].tolist():
            total += self.usable(state, rows, kind)[:, None] * self.f.source_units[kind]
        return total

    def units(self, state: GameState, rows: np.ndarray, unavailable: tuple[int, int] | None = None,
              filters: bool = False) -> np.ndarray:
        """Mana units available now by class: pool plus untapped sources, (rows, n_classes).

        ``unavailable``: (card id, copies) of a source that may not pay (it taps as part of
        the cost). ``filters``: count Signet-style filters as activated (each converting one
        unit of the least flexible other mana into its own units); otherwise they count for
        nothing.
        """
        units = of_rows(state.units, rows).astype(np.int32)
        if state.pool_in_use:
            units += of_rows(state.pool, rows)
        if unavailable is not None and self.is_plain(unavailable[0]):
            kind, withheld = unavailable
            held = np.minimum(self.usable(state, rows, kind), withheld)
            units -= held[:, None] * self.f.source_units[kind].astype(np.int32)
        if filters and self.has_filters:
            base = units.copy()  # the mana no filter made, left
            for s in np.flatnonzero(self.source_cost > 0).tolist():
                copies = self.usable(state, rows, int(self.source_ids[s]))
                for k in range(int(copies.max(initial=0))):
                    active = (k < copies) & (row_sum(units) >= self.source_cost[s])
                    for _ in range(int(self.source_cost[s])):
                        self._take_for_filter(units, base, active)
                    units[active] += self.source_units[s]
        return units

    def unit_sets(self, state: GameState, rows: np.ndarray,
                  unavailable: tuple[int, int] | None = None) -> list[np.ndarray]:
        """The mana available now in the ways it can be made: one (rows, n_classes) array
        with no filter activated and, when the deck has filters, one with every filter
        activated (:meth:`units`). A cost is payable if it is payable in one of them."""
        plain = self.units(state, rows, unavailable)
        if not self.has_filters:
            return [plain]
        return [plain, self.units(state, rows, unavailable, filters=True)]

    def payable_any(self, unit_sets: list[np.ndarray], mode: int | np.ndarray) -> np.ndarray:
        """:meth:`payable` in any of ``unit_sets``."""
        ok = self.payable(unit_sets[0], mode)
        for units in unit_sets[1:]:
            ok |= self.payable(units, mode)
        return ok

    def _take_for_filter(self, units: np.ndarray, base: np.ndarray, rows: np.ndarray) -> None:
        """Remove one unit for a filter's cost from each row where ``rows``: of the least
        flexible class that ``base`` (the mana not made by a filter, left; changed too) still
        holds, else the least flexible. A filter is paid with other mana before the mana
        another filter made: two Simic Signets fed by two Forests make {G}{U}{G}{U}; feeding
        the second with the first's {U} would leave one {U}."""
        left = rows.copy()
        for c in self.generic_order:
            taking = left & (base[:, c] > 0) & (units[:, c] > 0)
            units[taking, c] -= 1
            base[taking, c] -= 1
            left &= ~taking
        self._take_least_flexible(units, left)

    def _take_least_flexible(self, units: np.ndarray, rows: np.ndarray) -> None:
        """Remove one unit of the least flexible class from each row where ``rows``."""
        left = rows.copy()
        for c in self.generic_order:
            taking = left & (units[:, c] > 0)
            units[taking, c] -= 1
            left &= ~taking

    def covered(self, units: np.ndarray) -> np.ndarray:
        """Units able to pay some pip inside each of :attr:`masks`, (rows, n_masks), int."""
        return units @ self.intersects

    def keys(self, units: np.ndarray) -> np.ndarray:
        """Each row's row of :attr:`lookup`: its units by class, each capped at
        :attr:`cap`, as one mixed-radix number; shape (rows,), intp."""
        capped = np.minimum(units, self.cap)
        key = capped[:, 0].astype(np.intp)
        for c in range(1, self.n_classes):
            key += capped[:, c] * self.strides[c]
        return key

    def payable(self, units: np.ndarray, mode: int | np.ndarray) -> np.ndarray:
        """Whether each row's ``units`` (rows, n_classes) can pay ``mode`` (an index, or one
        index per row): Hall's condition over :attr:`masks` and the total (read from
        :attr:`lookup` when the deck has one)."""
        if self.lookup is not None:
            return self.lookup[self.keys(units), mode]
        enough = row_sum(units) >= self.total[mode]
        if np.ndim(mode) == 0 and not self.modes[mode].pips:
            return enough  # generic mana only: any units will do
        return row_all(self.covered(units) >= self.req[mode]) & enough

    def payable_rows(self, units: np.ndarray, rows: np.ndarray,
                     mode: int | np.ndarray) -> np.ndarray:
        """:meth:`payable` of ``units[rows]`` (``rows`` may repeat); with many rows, each
        row of ``units`` is summarised once and the summaries gathered."""
        if len(rows) < len(units):
            return self.payable(np.take(units, rows, axis=0), mode)
        if self.lookup is not None:
            return self.lookup[self.keys(units)[rows], mode]
        covered, total = self.covered(units)[rows], row_sum(units)[rows]
        return row_all(covered >= self.req[mode]) & (total >= self.total[mode])

    # ----------------------------------------------------------------------------------
    # Paying

    def allocate(self, units: np.ndarray, mode: int, take_all: bool = False,
                 needs: tuple[np.ndarray, ...] | None = None) -> Payment:
        """Which units pay ``mode`` in each row (every row must be able to pay it).

        ``take_all``: an ``{X}`` spell that takes all the mana left as X. ``needs``: what
        generic mana spares (:meth:`_pay_generic`; default: the static
        :attr:`generic_order`).
        """
        units = units.copy()
        used, life = self._pay_pips(units, mode)
        x = self._pay_generic(units, used, self.modes[mode], take_all, needs)
        return Payment(used=used, life=life, x=x)

    def _pay_pips(self, units: np.ndarray, mode: int, now_pips: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
        """Pay the pips of ``mode`` from ``units`` (changed in place): units used
        (rows, n_classes) and life paid (rows,). Each pip is paid by the first class in its
        order of candidates (:attr:`pip_candidates`) that leaves the rest payable and, of
        those, leaves the pips ``now_pips`` (rows, 5) of the spells the mana left could
        still cast together short of the fewest (:meth:`generic_keys`' count; none given:
        the first)."""
        rows = units.shape[0]
        used = np.zeros_like(units)
        life = np.full(rows, self.life[mode], dtype=np.int32)
        never = np.iinfo(np.int64).max
        for i, pip in enumerate(self.modes[mode].pips):
            rest_req, rest_total = self.rest[mode][i]
            candidates = self.pip_candidates[pip]
            lacking = None if now_pips is None else now_pips >= units @ self.class_colours
            # A candidate's key: the pips it leaves short, then its place in the order;
            # ``never`` where it cannot pay the pip and leave the rest payable.
            key = np.full((rows, len(candidates)), never, dtype=np.int64)
            assigned = np.zeros(rows, dtype=bool)
            for j, (c, safe) in enumerate(candidates):
                ok = units[:, c] > 0
                if lacking is None:  # the first that can pay is the one
                    ok &= ~assigned
                if not safe and ok.any():
                    trial = units[ok]
                    trial[:, c] -= 1
                    ok[ok] = (row_all(self.covered(trial) >= rest_req)
                              & (row_sum(trial) >= rest_total))
                short = 0 if lacking is None else lacking[ok] @ self.class_colours[c]
                key[ok, j] = short * len(candidates) + j
                assigned |= ok
            paying = np.flatnonzero(key.min(axis=1) < never)
            classes = np.array([c for c, _ in candidates], dtype=np.intp)[
                key[paying].argmin(axis=1)]
            units[paying, classes] -= 1
            used[paying, classes] += 1
            if pip & ANY_COLOUR and not pip & ~ANY_COLOUR & ALL_MANA:
                life[paying] += self.class_pain[classes]
        return used, life

    def _pay_generic(self, units: np.ndarray, used: np.ndarray, spec: CostMode,
                     take_all: bool, needs: tuple[np.ndarray, ...] | None) -> np.ndarray:
        """Pay the generic part of ``spec`` from ``units`` into ``used`` (both changed in
        place); returns X (all the mana left, with ``take_all``). Without ``needs``, in the
        static :attr:`generic_order`; with ``needs`` (the pips of the spells the mana left
        could cast, of the rest of the hand and of the library, each (rows, 5)), one unit
        at a time, each from the class of least :meth:`generic_keys`."""
        rows = units.shape[0]
        if take_all:  # X takes everything: the order does not matter
            used += units
            units[:] = 0
            return (row_sum(used) - spec.mana).astype(np.int32)
        if needs is None:
            need = np.full(rows, spec.generic, dtype=np.int32)
            for c in self.generic_order:
                take = np.minimum(units[:, c], need)
                units[:, c] -= take
                used[:, c] += take
                need -= take
            return np.zeros(rows, np.int32)
        now_pips, hand_pips, library_pips = needs
        base = self._generic_base(hand_pips, library_pips)
        supply = units.astype(np.int64) @ self.class_colours
        everyone = np.arange(rows)
        for _ in range(spec.generic):
            c = self.generic_keys(units, supply, now_pips, base).argmin(axis=1)
            paying = everyone[units[everyone, c] > 0]
            c = c[paying]
            units[paying, c] -= 1
            used[paying, c] += 1
            supply[paying] -= self.class_colours[c]
        return np.zeros(rows, np.int32)

    def tap(self, state: GameState, rows: np.ndarray, used: np.ndarray,
            unavailable: tuple[int, int] | None = None) -> None:
        """Take ``used`` (rows, n_classes) from the pool, then tap plain sources in tapping
        order; what a tapped source makes beyond the need goes to the pool."""
        if state.pool_in_use:
            pool = of_rows(state.pool, rows).astype(np.int32)
            from_pool = np.minimum(pool, used)
            pool -= from_pool
            need = used - from_pool
        else:
            pool, need = np.zeros(used.shape, dtype=np.int32), used.astype(np.int32)
        if (need > 0).any():
            tapped_units = np.zeros_like(need)
            for s, kind in enumerate(self.source_ids.tolist()):
                made, makes = self.source_units[s], self.source_makes[s]
                if self.source_cost[s] > 0 or not (need[:, makes] > 0).any():
                    continue
                usable = self.usable(state, rows, kind)
                if unavailable is not None and unavailable[0] == kind:
                    usable = np.maximum(usable - unavailable[1], 0)
                copies = np.minimum(usable, row_max(-(-need[:, makes] // made[makes])))
                produced = copies[:, None] * made[None, :]
                spent = np.minimum(produced, need)
                need -= spent
                pool += produced - spent
                tapped_units += produced
                state.tapped[rows, kind] += copies.astype(state.tapped.dtype)
                if self.source_once[s]:
                    _sacrifice_tapped(state, rows, kind, copies)
            state.units[rows] -= tapped_units.astype(state.units.dtype)
        if state.pool_in_use or pool.any():
            state.pool[rows] = pool
            state.pool_in_use = True

    def activate_filters(self, state: GameState, rows: np.ndarray,
                         unavailable: tuple[int, int] | None = None) -> None:
        """Activate every untapped Signet-style filter in ``rows``, each paid with the least
        flexible other mana (:meth:`_take_for_filter`); their mana goes to the pool (as
        :meth:`units` with ``filters=True`` assumes)."""
        base = self.units(state, rows, unavailable)  # the mana no filter made, left
        for s in np.flatnonzero(self.source_cost > 0).tolist():
            kind = int(self.source_ids[s])
            copies = self.usable(state, rows, kind)
            for k in range(int(copies.max(initial=0))):
                units = self.units(state, rows, unavailable)
                active = np.flatnonzero((k < copies) & (row_sum(units) >= self.source_cost[s]))
                if not active.size:
                    break
                for _ in range(int(self.source_cost[s])):
                    units = self.units(state, rows[active], unavailable)
                    own = base[active]
                    before = units.copy()
                    self._take_for_filter(units, own, np.ones(len(active), dtype=bool))
                    base[active] = own
                    self.tap(state, rows[active], before - units, unavailable)
                state.tapped[rows[active], kind] += 1
                state.pool[rows[active]] += self.source_units[s].astype(state.pool.dtype)
                state.pool_in_use = True

    def pay_from_pool(self, state: GameState, rows: np.ndarray) -> None:
        """One generic mana (a Map's {1}) from the pool of each of ``rows``, which holds one:
        its least flexible unit; recorded as mana spent."""
        pool = state.pool[rows]
        self._take_least_flexible(pool, np.ones(len(rows), dtype=bool))
        state.pool[rows] = pool
        state.totals["mana_spent"][rows] += 1

    def activates_filters(self, state: GameState, rows: np.ndarray, units: np.ndarray,
                          mode: int, take_all: bool,
                          unavailable: tuple[int, int] | None = None) -> np.ndarray:
        """Whether paying ``mode`` from ``units`` (rows, n_classes; no filter activated)
        activates every untapped Signet-style filter first, shape (rows,): where the cost
        cannot be paid without them; or where it can be paid with them, they make more than
        they cost, and paid without them it would leave too little other mana to activate
        them afterwards (with three lands and a Signet, a 3-drop taps a land for the Signet
        and leaves a land, not the three lands and an idle Signet); an X spell (``take_all``),
        which takes all the mana, whenever it can be paid with them."""
        activating = ~self.payable(units, mode)
        costs = np.zeros(len(rows), dtype=np.int32)  # what activating every filter costs
        for s in np.flatnonzero(self.source_cost > 0).tolist():
            costs += self.usable(state, rows, int(self.source_ids[s])) * int(self.source_cost[s])
        have = row_sum(units)
        stranding = costs > 0
        if not take_all:
            stranding &= have - self.total[mode] < costs
        maybe = np.flatnonzero(~activating & stranding)
        if maybe.size:
            filtered = self.units(state, rows[maybe], unavailable, filters=True)
            activating[maybe] = (row_sum(filtered) > have[maybe]) & self.payable(filtered, mode)
        return activating

    def pay(self, state: GameState, rows: np.ndarray, mode: int, take_all: bool = False,
            unavailable: tuple[int, int] | None = None) -> Payment:
        """Pay ``mode`` in every row of ``rows`` (all able to), tapping sources.

        ``unavailable``: (card id, copies) of a source that may not pay (Restless Anchorage
        cannot tap for its own animation).
        """
        units = self.units(state, rows, unavailable)
        if self.has_filters:
            activating = self.activates_filters(state, rows, units, mode, take_all, unavailable)
            if activating.any():
                self.activate_filters(state, rows[activating], unavailable)
                units = self.units(state, rows, unavailable)
        spec, needs = self.modes[mode], None
        if self.n_classes > 1 and not take_all and (spec.generic or self._pip_choice[mode]):
            hand_pips, now_pips = self._rest_of_hand_pips(state, rows, mode, units)
            needs = (now_pips, hand_pips, of_rows(state.library_pips, rows))
        if self.lookup is not None and not take_all:
            pip_used, pip_life = self._allocation(mode)
            keys = self.keys(units)
            used, life = np.take(pip_used, keys, axis=0), pip_life[keys]
            if needs is not None and self._pip_choice[mode]:  # where the hand asks colours
                asked = np.flatnonzero(row_any(needs[0] > 0))
                if asked.size:
                    used[asked], life[asked] = self._pay_pips(units[asked].copy(), mode,
                                                              needs[0][asked])
            left = units - used
        else:
            left = units.copy()
            used, life = self._pay_pips(left, mode, None if needs is None else needs[0])
        x = self._pay_generic(left, used, spec, take_all, needs if spec.generic else None)
        payment = Payment(used=used, life=life, x=x)
        self.tap(state, rows, payment.used, unavailable)
        return payment

    def wanted_copies(self, hand: np.ndarray, battlefield: np.ndarray,
                      no_creature: np.ndarray, card: int = 0) -> np.ndarray:
        """Copies of each held spell the casting pass could cast, one copy of ``card`` (being
        cast; 0: none) aside: of a legendary permanent one, none while one is in play or
        being cast (the legend rule, CR 704.5j); none of a spell that targets a creature you
        control in the rows with none (``no_creature``).

        Parameters
        ----------
        hand, battlefield : ndarray, shape (rows, n_cards + 1)
            Copies of each card id in hand (``card``'s copy still in it) and in play.
        no_creature : ndarray of bool, shape (rows,)
        card : int

        Returns
        -------
        ndarray of int32, shape (rows, n_cards + 1)
        """
        wanted = hand.astype(np.int32)
        if card:
            wanted[:, card] -= wanted[:, card] > 0
        legendary = self.legendary_ids
        if legendary.size:  # the legend rule (CR 704.5j): one, none while one is in play
            gone = (battlefield[:, legendary] > 0) | (legendary == card)[None, :]
            wanted[:, legendary] = np.where(gone, 0, np.minimum(wanted[:, legendary], 1))
        if self.targeting_ids.size:  # they wait for a creature you control
            wanted[np.ix_(no_creature, self.targeting_ids)] = 0
        return wanted

    def _rest_of_hand_pips(self, state: GameState, rows: np.ndarray, mode: int,
                           units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pips of each colour of the cards in hand a game casts (:attr:`cast_pips`), less
        the card ``mode`` casts (it is still in hand while it is paid for); and those of
        them the mana left after ``mode`` (``units``: the units that pay it, (rows,
        n_classes)) could still cast this turn together (:meth:`castable_together`). Both
        shape (rows, 5)."""
        hand = of_rows(state.hand, rows).astype(np.int32)
        card = self.mode_card[mode]
        battlefield = of_rows(state.battlefield, rows)
        no_creature = ((battlefield[:, self.creature_ids] == 0).all(axis=1)
                       if self.targeting_ids.size and not self.f.is_creature[card]
                       else np.zeros(len(rows), dtype=bool))
        wanted = self.wanted_copies(hand, battlefield, no_creature, card)
        if card:
            hand[:, card] -= hand[:, card] > 0
        now = self.castable_together(wanted, row_sum(units) - self.total[mode])
        return hand @ self.cast_pips, now @ self.cast_pips

    def castable_together(self, wanted: np.ndarray, mana_left: np.ndarray) -> np.ndarray:
        """The copies of the spells ``wanted`` (:meth:`wanted_copies`) that ``mana_left``
        could cast together, colours aside: in the casting order, each spell's copies while
        their cheapest ways to pay fit in what is left (an X explorer, at X = 1, takes all of
        it; a spell costing 0 asks for no colour and is left out).

        Parameters
        ----------
        wanted : ndarray, shape (rows, n_cards + 1)
        mana_left : ndarray, shape (rows,)

        Returns
        -------
        ndarray of int32, shape (rows, n_cards + 1)
        """
        now = np.zeros_like(wanted)
        left = mana_left.astype(np.int64)
        order = self.casting_order
        for kind in order[(wanted[:, order] > 0).any(axis=0)].tolist():
            if self.cheapest[kind] <= 0:
                continue
            cost = int(self.card_cheapest[kind])
            if self.x_explorer[kind]:  # X >= 1, and X takes the rest
                take = ((wanted[:, kind] > 0) & (left >= cost)).astype(np.int64)
                left = np.where(take > 0, 0, left)
            else:
                take = np.minimum(wanted[:, kind], np.maximum(left, 0) // cost)
                left = left - take * cost
            now[:, kind] = take
        return now


def _sacrifice_tapped(state: GameState, rows: np.ndarray, kind: int, copies: np.ndarray) -> None:
    """The ``copies`` (aligned with rows) of one-shot source ``kind`` just tapped for mana
    are sacrificed (they go to the graveyard); its untapped copies stay. The units they made
    were taken off ``state.units`` as they tapped, so nothing else changes there."""
    for k in range(int(copies.max(initial=0))):
        gone = rows[copies > k]
        leave(state, gone, kind, tapped=True)
        state.graveyard[gone] += 1
