"""Small parts of the compiled game checked alone: the sets of card ids as bits, the
remainder the deal divides by, the shuffle after a search and the castability keys, against
plain Python and the NumPy engine's exact test."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import DECKS as SHIPPED_DECKS
from numba import njit

import explore_sim
from explore_sim.engine.config import GameConfig
from explore_sim.engine.goldfish import deck_tables
from explore_sim.engine.kernel.bits import is_member, meet, next_common, next_member, put
from explore_sim.engine.kernel.game import bottom
from explore_sim.engine.kernel.layout import ClassCol, Dim, KeyRow, Slot, Zone
from explore_sim.engine.kernel.mana import castable_key
from explore_sim.engine.kernel.pack import as_rows, pack, words_for
from explore_sim.engine.kernel.records import as_tables
from explore_sim.engine.kernel.search import shuffle_library
from explore_sim.engine.kernel.state import reciprocals, remainder
from explore_sim.engine.kernel.zones import at, deal_all, peek
from explore_sim.engine.mulligan import _bottom

DECKS = sorted(SHIPPED_DECKS.glob("*.txt"))


@njit
def _members(row, start):
    out = []
    i = next_member(row, start)
    while i >= 0:
        out.append(i)
        i = next_member(row, i + 1)
    return out


@njit
def _common(a, b, start):
    out = []
    i = next_common(a, b, start)
    while i >= 0:
        out.append(i)
        i = next_common(a, b, i + 1)
    return out


@njit
def _build(members, n, words):
    row = np.zeros(words, dtype=np.uint64)
    for i in members:
        put(row, i, True)
    for i in range(n):  # taking out what is not there changes nothing
        if not is_member(row, i):
            put(row, i, False)
    return row


@pytest.mark.parametrize("n", [1, 5, 63, 64, 65, 130, 200])
@pytest.mark.slow
def test_sets_of_card_ids_visit_their_members_in_order(n):
    rng = np.random.default_rng(n)
    for _ in range(20):
        a, b = rng.random(n) < 0.3, rng.random(n) < 0.5
        rows = as_rows([a, b], n)
        assert rows.shape == (2, words_for(n))
        built = _build(np.flatnonzero(a).astype(np.int64), n, words_for(n))
        assert (built == rows[0]).all()
        start = int(rng.integers(0, n))
        assert _members(rows[0], start) == [i for i in np.flatnonzero(a) if i >= start]
        assert _common(rows[0], rows[1], start) == [i for i in np.flatnonzero(a & b)
                                                     if i >= start]
        assert _meet(rows[0], rows[1]) == bool((a & b).any())


@njit
def _meet(a, b):
    return meet(a, b)


@njit
def _mismatches(xs, table, most):
    bad = 0
    for b in range(1, most + 1):
        for x in xs:
            if remainder(x, b, table) != x % np.uint64(b):
                bad += 1
    return bad


@pytest.mark.slow
def test_the_remainder_by_multiplication_is_exact():
    """The deal's draws divide by the cards left (at most a deck's size) with
    multiplications only; every remainder is the one ``%`` gives, the extremes included."""
    rng = np.random.default_rng(7)
    xs = rng.integers(0, 1 << 63, 20_000, dtype=np.uint64) * np.uint64(2) + rng.integers(
        0, 2, 20_000, dtype=np.uint64)
    edges = [0, 1, 2, (1 << 32) - 1, 1 << 32, (1 << 32) + 1, (1 << 63), (1 << 64) - 1,
             (1 << 64) - 2]
    xs = np.concatenate([xs, np.array(edges, dtype=np.uint64)])
    assert _mismatches(xs, reciprocals(300), 300) == 0


def test_the_remainder_refuses_a_library_too_large_for_it():
    """The remainder's sum of partial remainders stays below 2**32 only for divisors below
    2**16; decks are far smaller (at most 1,000 cards), and a larger library is refused."""
    assert reciprocals(1000).shape == (1001, 2)
    with pytest.raises(ValueError, match="more than the deal can divide by"):
        reciprocals(1 << 16)


@njit
def _shuffled_tops(K, S, top, end, dealt, games):
    """How often each card id is on top of the library after a search's shuffle, over
    ``games`` shuffles of the same library; and the library of the last one, dealt out."""
    s = S.slots
    tops = np.zeros(len(S.zones[0]), np.int64)
    for _ in range(games):
        s[Slot.TOP], s[Slot.END], s[Slot.DEALT] = top, end, dealt
        shuffle_library(K, S)
        tops[peek(K, S)] += 1
    deal_all(S)
    cards = np.zeros(s[Slot.END] - s[Slot.TOP], np.int64)
    for p in range(s[Slot.TOP], s[Slot.END]):
        cards[p - s[Slot.TOP]] = S.lib[at(S, p)]
    return tops, cards


@pytest.mark.parametrize("top, end, dealt", [(4, 10, 7), (7, 13, 13)],
                         ids=["library-in-place", "cards-put-under-it"])
@pytest.mark.slow
def test_the_shuffle_after_a_search_deals_the_library_anew(top, end, dealt):
    """The library after a search's shuffle holds exactly the cards it counts, whatever was
    dealt or put under it before, and each copy is as likely as any other to be on top."""
    from collections import namedtuple

    from explore_sim.engine.kernel.state import new_state

    counts = {1: 3, 2: 2, 3: 1}  # six cards left of a 12-card deck
    dims = np.zeros(len(Dim), np.int64)
    dims[Dim.N_KINDS] = 4
    K = namedtuple("Tables", ["dims"])(dims)
    S = new_state(4, 1, 1, 1, 12, 1, 1, 8, 1, 1)
    S.slots[Slot.SIZE] = 12
    S.lib[:] = 9  # stale ids: none may be read
    for kind, n in counts.items():
        S.zones[Zone.LIB_COUNT, kind] = n
    S.deal[:] = np.random.SeedSequence(5).generate_state(4, np.uint64)
    games = 6000
    tops, cards = _shuffled_tops(K, S, top, end, dealt, games)
    assert sorted(cards.tolist()) == [1, 1, 1, 2, 2, 3]
    for kind, n in counts.items():
        p = n / 6
        z = (tops[kind] - games * p) / np.sqrt(games * p * (1 - p))
        assert abs(z) < 4.5, (kind, tops[kind])


@njit
def _castable_keys(K, units):
    keys = np.empty(len(units), dtype=np.int64)
    for i in range(len(units)):
        keys[i] = castable_key(K, units[i])
    return keys


def _bits(rows, n):
    """Rows of bits as booleans: (len(rows), n)."""
    return np.unpackbits(rows.view(np.uint8), axis=1, bitorder="little")[:, :n].astype(bool)


@pytest.mark.parametrize("path", DECKS, ids=lambda p: p.stem)
@pytest.mark.slow
def test_castability_keys_read_the_exact_test_of_every_way_to_pay(path):
    """The spells a row of ``castable_by_key`` says some mana pays are those the NumPy
    engine's exact test (Hall's condition over the masks, and the total) says it pays in
    one of their ways, for amounts of units from none to well past every cap."""
    deck = explore_sim.load_deck(path)
    spells = tuple(card for card, _ in deck.main if not card.is_land)[:5]
    config = GameConfig(turns=8, castable=spells)  # castable: the KeyRow.WATCHED rows
    tables = deck_tables(deck.features(), config)
    K = pack(tables, config)
    mana, casting = tables.mana, tables.casting
    assert len(tables.castable_card_modes) == len(spells)
    if not K.castable_by_key.shape[1] > 1:
        pytest.skip("the deck has too many castability keys for a table")
    rng = np.random.default_rng(len(path.stem))
    units = np.concatenate([rng.integers(0, 3, (300, mana.n_classes)),
                            rng.integers(0, 12, (300, mana.n_classes)),
                            np.zeros((1, mana.n_classes), dtype=np.int64)]).astype(np.int64)
    keys = _castable_keys(as_tables(K, (np.zeros(1, np.int64),) * 4), units)
    assert keys.min() >= 0 and keys.max() < K.castable_by_key.shape[1]

    def pays(modes):
        return np.any([mana.payable(units.astype(np.int32), m) for m in modes], axis=0) \
            if modes else np.zeros(len(units), dtype=bool)

    n = tables.n_kinds
    by_kind, by_rank = (_bits(K.castable_by_key[row, keys], n)
                        for row in (KeyRow.KINDS, KeyRow.RANKS))
    watched = _bits(K.castable_by_key[KeyRow.WATCHED, keys], n)
    commanders = {j for j, _ in casting.pass_commanders}
    for kind in casting.cast_ids.tolist():
        assert np.array_equal(by_kind[:, kind], pays(casting.kind_modes[kind])), kind
    for j, kind in enumerate(casting.pass_ids.tolist()):
        expected = np.ones(len(units), bool) if j in commanders else pays(casting.kind_modes[kind])
        assert np.array_equal(by_rank[:, j], expected), kind
    for j, modes in enumerate(tables.castable_card_modes):
        assert np.array_equal(watched[:, j], pays(modes)), j
    assert by_kind.any() and not by_kind.all()  # the units tried both pay and fall short
    assert watched[:, :len(spells)].any() and not watched[:, :len(spells)].all()


def test_a_deck_without_mana_sources_packs_with_no_castability_keys():
    config = GameConfig(turns=4)
    deck = explore_sim.parse_deck("30 Grizzly Bears\n30 Merfolk Cave-Diver")
    tables = deck_tables(deck.features(), config)
    assert tables.mana.n_classes == 0
    K = pack(tables, config)
    assert K.castable_by_key.shape[1] == 1  # one row of zeros: spells are tested one by one


def test_castability_keys_too_many_to_count_in_int64_leave_the_table_out(tmp_path):
    """25 classes of mana (every basic, dual and triple land) and a spell of 40 pips: 41 to
    the 25th keys, more than int64 holds. The count does not overflow: no table, and the
    spells are tested one by one."""
    lands = ["".join(c) for k in (1, 2, 3) for c in itertools.combinations("WUBRG", k)]
    cards = [f'[[card]]\nname = "Land {c}"\nmana_cost = ""\ntype_line = "Land"\n'
             f'produces = "{c}"\n' for c in lands]
    cards.append('[[card]]\nname = "Huge Thing"\nmana_cost = "' + "{G}{U}{B}{R}{W}" * 8
                 + '"\ntype_line = "Creature"\npower = 1\ntoughness = 1\n')
    path = tmp_path / "cards.toml"
    path.write_text("\n".join(cards), encoding="utf-8")
    text = "4 Huge Thing\n4 Jadelight Ranger\n" + "".join(f"2 Land {c}\n" for c in lands)
    deck = explore_sim.load_deck(text, cards=[path])
    config = GameConfig(turns=4)
    tables = deck_tables(deck.features(), config)
    assert tables.mana.n_classes == 25
    K = pack(tables, config)
    assert K.castable_by_key.shape[1] == 1
    assert not K.classes[:, ClassCol.KEY_STRIDE].any()


def test_the_game_compiles_without_reference_counting(monkeypatch):
    """The one private numba option the kernel keeps (``_nrt=False``, see
    explore_sim/engine/kernel/records.py) takes effect: a function compiled the kernel's way
    holds no reference counting, where numba's default would. (Compiled in memory: code
    loaded from numba's cache cannot be inspected.)"""
    from numba import njit

    from explore_sim.engine.kernel import records
    from explore_sim.engine.kernel.records import compiled

    monkeypatch.setattr(records.CACHE, "directory", None)

    def body(a):
        b = a[1:]
        return b[0] + a[0]

    kernel_way = compiled(body, entry=True)
    default = njit(body, cache=False)
    a = np.arange(3)
    assert kernel_way(a) == default(a) == 1
    assert "NRT_decref" in next(iter(default.inspect_llvm().values()))
    assert "NRT_" not in next(iter(kernel_way.inspect_llvm().values()))


def test_the_game_compiles_with_numpys_error_model(monkeypatch):
    """The kernel's functions are compiled with numba's NumPy error model (see
    explore_sim/engine/kernel/records.py): a division has no zero-divisor test and no path
    that raises, which numba's default keeps (a division by zero there raises; here it gives
    0, a case the game never reaches: every divisor in it is positive)."""
    from explore_sim.engine.kernel import records
    from explore_sim.engine.kernel.records import compiled

    monkeypatch.setattr(records.CACHE, "directory", None)

    def body(a, b):
        return a // b

    kernel_way = compiled(body, entry=True)
    default = njit(body, cache=False)
    assert kernel_way(7, 2) == default(7, 2) == 3
    assert kernel_way(7, 0) == 0
    with pytest.raises(ZeroDivisionError):
        default(7, 0)


def test_a_borrowed_records_fields_are_loaded_as_invariant():
    """A field of a borrowed record (an array's header: data pointer, shape, strides) is read
    with LLVM's ``!invariant.load``: the record is written once, when it is borrowed, so the
    optimiser may keep a header in registers across the game's stores to the arrays (5-8%
    of a game) instead of reading it again after every one of them."""
    from collections import namedtuple

    from explore_sim.engine.kernel.records import borrow

    Pair = namedtuple("Pair", ["counts", "slots"])

    @njit(cache=False)
    def probe_bump(P, n):
        for i in range(n):
            P.counts[i % 3] += P.slots[i % 2]
        return P.counts[0]

    @njit(cache=False)
    def probe_borrowing(counts, slots, n):
        return probe_bump(borrow(Pair(counts, slots)), n)

    counts = np.zeros(3, np.int64)
    assert probe_borrowing(counts, np.array([1, 2]), 6) == 3 and counts.tolist() == [3, 3, 3]
    (ir,) = probe_bump.inspect_llvm().values()
    header_loads = [line for line in ir.splitlines()
                    if " = load ptr" in line and "NumbaEnv" not in line]
    assert header_loads and all("!invariant.load" in line for line in header_loads)


def test_the_entry_point_calls_its_own_optimised_copies_of_the_game():
    """While a game compiles, every function the entry point links in is made internal to
    its library: the process that compiled the game then plays the copies optimised in that
    library, as a process that loads the game from numba's cache does, not the unoptimised
    ones the callees' own libraries left in the JIT under the same (weak) names (the
    compiling process played its games 2.4 times slower)."""
    import re

    from numba import njit

    from explore_sim.engine.kernel.optimise import optimised_once

    @njit(cache=False)
    def probe_inner(a, x):  # too large for LLVM to inline at four call sites
        t = 0
        for i in range(len(a)):
            v = a[i]
            if v % 3 == 0:
                t += v * x
            elif v % 5 == 1:
                t -= v // (x + 1)
            elif v % 7 == 2:
                t ^= v << 3
            else:
                t += (v * 31) % 17
            if t > 1000:
                t = t % 997
            a[i] = t
        return t

    @njit(cache=False)
    def probe_outer(a, x):
        return probe_inner(a, x) + probe_inner(a, x + 2) + probe_inner(a, x + 5) \
            + probe_inner(a, 7)

    @njit(cache=False)
    def probe_linked(a, x):
        return probe_outer(a, x) + 1

    @njit(cache=False)
    def probe_unlinked(a, x):
        return probe_outer(a, x) + 1

    def exported(entry):  # the functions its library defines for other code to bind to
        (ir,) = entry.inspect_llvm().values()
        defined = re.findall(r"^define (.*?)@\"?([^\s(\"]+)", ir, flags=re.MULTILINE)
        return [name for attributes, name in defined
                if entry.__name__ not in name and "internal" not in attributes.split()]

    expected = probe_unlinked(np.arange(9), 1)
    with optimised_once("probe_linked"):
        assert probe_linked(np.arange(9), 1) == expected
    assert exported(probe_linked) == []
    # numba's default, outside the context: the callees stay exported under weak names
    assert any("probe_inner" in name for name in exported(probe_unlinked))


def test_the_game_is_optimised_once_where_it_is_linked():
    """The private hook of explore_sim/engine/kernel/optimise.py still takes effect: while a
    game compiles, the libraries of the functions the entry point calls are left to be
    optimised where the entry point links them (the cold compile's largest saving), in the
    compiling thread only, neither compiled to machine code of their own, and the entry point
    computes what it would have computed."""
    from numba import njit

    from explore_sim.engine.kernel.optimise import cheap_libraries, optimised_once

    @njit(cache=False)
    def probe_leaf(x):
        return x * 3 + 1

    @njit(cache=False)
    def probe_middle(x):
        return probe_leaf(x) + probe_leaf(x + 1)

    @njit(cache=False)
    def probe_entry(x):
        return probe_middle(x) - 2

    with optimised_once("probe_entry"):
        assert probe_entry(4) == (13 + 16) - 2
        left = cheap_libraries()
    assert left >= 2  # probe_middle's and probe_leaf's
    # nor are they compiled to machine code of their own: only the entry point's library,
    # which holds them, is in the JIT (a third of the cold compile)
    (leaf,), (entry,) = probe_leaf.overloads.values(), probe_entry.overloads.values()
    engine = entry.library.codegen._engine
    assert engine.is_symbol_defined(entry.fndesc.mangled_name)
    assert not engine.is_symbol_defined(leaf.fndesc.mangled_name)

    @njit(cache=False)
    def probe_elsewhere(x):
        return probe_middle(x) * 2

    assert probe_elsewhere(1) == 2 * (4 + 7)
    assert cheap_libraries() == left  # outside the context, numba's own optimisation


def test_numbas_flag_values_are_read_directly_with_the_same_result():
    """The private hook of explore_sim/engine/kernel/optimise.py (``faster_flag_values``)
    still takes effect once a game compiles: numba's ``TargetConfig.values`` gives every
    option's value, set or default, exactly as reading each option's property does, so the
    flags hash and compare as before."""
    from numba.core import targetconfig
    from numba.core.compiler import Flags

    from explore_sim.engine.kernel.optimise import _flag_values, faster_flag_values, optimised_once

    with optimised_once("probe_nothing"):
        pass
    assert targetconfig.TargetConfig.values is _flag_values
    assert faster_flag_values()
    flags = Flags()
    flags.nrt, flags.no_cpython_wrapper, flags.error_model = False, True, "numpy"
    by_property = {name: getattr(flags, name) for name in flags.options}
    assert flags.values() == by_property and list(flags.values()) == list(by_property)
    assert by_property["error_model"] == "numpy" and by_property["nrt"] is False
    same = Flags()
    same.nrt, same.no_cpython_wrapper, same.error_model = False, True, "numpy"
    assert same == flags and hash(same) == hash(flags)
    same.error_model = "python"
    assert same != flags


def test_numbas_flags_hash_and_compare_as_numba_does():
    """The same hook's hash and equality of numba's ``TargetConfig`` (the keys of the cache
    typing looks up at every overloaded call): the hash numba gives (of the options' sorted
    names) worked out once per class; equal flags that set the same options are equal without
    building ``values()``, and otherwise ``values()`` decides, as in numba: an option set to
    its default equals one left unset, and flags of two classes differ."""
    from numba.core import targetconfig
    from numba.core.compiler import Flags

    from explore_sim.engine.kernel.optimise import (
        _flags_equal,
        _flags_hash,
        faster_flag_values,
    )

    assert faster_flag_values()
    assert Flags.__hash__ is _flags_hash and Flags.__eq__ is _flags_equal
    flags = Flags()
    assert hash(flags) == hash(tuple(sorted(flags.options)))  # numba's own hash
    flags.nrt, flags.error_model = False, "numpy"
    explicit = Flags()
    explicit.nrt, explicit.error_model = False, "numpy"
    explicit.boundscheck = Flags.options["boundscheck"].default  # set to its default
    assert explicit == flags and flags == explicit and hash(explicit) == hash(flags)
    explicit.boundscheck = not Flags.options["boundscheck"].default
    assert explicit != flags

    class Other(targetconfig.TargetConfig):
        probe = targetconfig.Option(type=bool, default=False, doc="a probe option")

    assert Other() != Flags() and Flags() != Other()  # both set nothing: other options
    assert (Flags() == 3) is False


def test_numbas_flags_of_a_class_of_ones_own_read_as_numba_reads_them():
    """Flags classes of one's own get numba's answers from the same hook: one that replaces
    an option's property (its ``values()`` read through the property, as numba's is), and
    flags copied from another class's, which hold a name that is no option of theirs (not
    one of their values: no error)."""
    from numba.core import targetconfig

    from explore_sim.engine.kernel.optimise import faster_flag_values

    def numbas_values(config):  # numba's own definition of TargetConfig.values
        return {name: getattr(config, name) for name in config.options}

    assert faster_flag_values()

    class Gamma(targetconfig.TargetConfig):
        gamma = targetconfig.Option(type=int, default=0, doc="an option")

    class Fixed(Gamma):
        pass

    Fixed.gamma = property(lambda self: 99)  # every Fixed reads 99, whatever is set
    fixed, set_one = Fixed(), Fixed()
    set_one._values["gamma"] = 1
    assert fixed.values() == numbas_values(fixed) == {"gamma": 99}
    assert set_one == fixed and hash(set_one) == hash(fixed) == hash(("gamma",))
    assert Gamma().values() == {"gamma": 0} and Gamma() != fixed

    class Wider(targetconfig.TargetConfig):
        gamma = targetconfig.Option(type=int, default=0, doc="an option")
        delta = targetconfig.Option(type=int, default=0, doc="another option")

    wider = Wider()
    wider.delta = 5
    copied = Gamma(copy_from=wider)  # holds "delta", no option of Gamma's
    assert copied == Gamma() and Gamma() == copied
    assert copied.values() == numbas_values(copied) == {"gamma": 0}
    wider.gamma = 2
    assert Gamma(copy_from=wider) != Gamma()


def test_a_game_function_is_compiled_once_whatever_its_arguments_literal_or_narrow():
    """The private hook of explore_sim/engine/kernel/records.py (``_one_signature``) still
    takes effect: a function of the game called with literals, int32 and int64 values is
    compiled once, for int64, and every call gets the same answer as in Python (numba alone
    compiles it once per literal and integer width: a fifth of the cold compile)."""
    from numba import njit

    from explore_sim.engine.kernel.records import compiled

    def leaf(x, flag):
        return x * 3 + 1 if flag else x - 1

    probe_leaf = compiled(leaf)
    plain = njit(cache=False)(leaf)

    def caller(leaf_fn):
        @njit(cache=False)
        def probe_caller(small):
            return (leaf_fn(0, True) + leaf_fn(-1, False) + leaf_fn(np.int32(small), True)
                    + leaf_fn(np.int64(small) + 2, True))
        return probe_caller

    expected = leaf(0, True) + leaf(-1, False) + leaf(5, True) + leaf(7, True)
    assert caller(probe_leaf)(5) == expected == caller(plain)(5)
    assert [str(sig) for sig in probe_leaf.overloads] == ["(int64, bool)"]
    assert len(plain.overloads) > 1  # numba's own: a signature per literal and width


@njit
def _kernel_bottom(K, hand, bottoms, out):
    bottom(K, hand, bottoms, out)


@pytest.mark.parametrize("stem", ["golgari_explore", "hakbal_merfolk_commander"])
def test_the_kernels_bottom_rule_is_the_numpy_engines(stem):
    """Karsten's bottom rule on random seven-card hands, to 6, 5 and 4 cards: the same cards
    go under, in the same order, in both engines; a spell the game never casts (Vraska's
    Contempt, Counterspell) goes first."""
    deck = explore_sim.load_deck(SHIPPED_DECKS / f"{stem}.txt")
    features, config = deck.features(), GameConfig()
    tables = deck_tables(features, config)
    K = as_tables(pack(tables, config), (np.zeros(1, np.int64),) * 4)
    never = set(tables.held_ids.tolist())
    rng = np.random.default_rng(len(stem))
    never_first = 0
    for _ in range(300):
        counts = np.bincount(rng.choice(deck.card_ids(), 7, replace=False),
                             minlength=len(features)).astype(np.int64)
        for bottoms in (1, 2, 3):
            hand, out = counts.copy(), np.zeros(8, dtype=np.int64)
            _kernel_bottom(K, hand, bottoms, out)
            numpy_hand, numpy_out = _bottom(counts[None, :].astype(np.int16), bottoms, features,
                                            features.is_land | features.is_land_like,
                                            tables.held_ids.tolist())
            assert out[:bottoms].tolist() == numpy_out[0].tolist()
            assert hand.tolist() == numpy_hand[0].tolist()
            held = never & set(np.flatnonzero(counts).tolist())
            if held and int(out[0]) in held:
                never_first += 1
    assert never_first > 0
