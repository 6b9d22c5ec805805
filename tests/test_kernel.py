"""The compiled game (explore_sim.engine.kernel) against the vectorised engine.

Two implementations of the rules: on the same libraries and opening hands (a search reverses
the library instead of shuffling it in both, the tests' stand-in) they must play every game
the same way, metric by metric and turn by turn; dealt by their own shuffles their averages
must agree within a few standard errors.
"""

from __future__ import annotations

import importlib
import weakref

import numpy as np
import pytest
from conftest import DECKS as SHIPPED_DECKS

from explore_sim.analysis.game_setup import game_mulligan
from explore_sim.cards.decklist import load_deck, parse_deck
from explore_sim.engine import threads as threads_module
from explore_sim.engine.buffers import reusing_chunk_arrays
from explore_sim.engine.goldfish import GameConfig, GameState, Goldfish, deck_tables
from explore_sim.engine.kernel import kernel_problem, play_games_kernel, play_openings
from explore_sim.engine.mulligan import MulliganRule, deal_opening_hands
from explore_sim.engine.policies import as_policy

pytestmark = pytest.mark.slow  # the compiled game: a compilation, then every deck in both engines

DECKS = sorted(SHIPPED_DECKS.glob("*.txt"))


class ReversingSearch:
    """The ``"search"`` stream of the vectorised engine as the tests' stand-in: shuffle keys
    that put a library in reverse order."""

    def random(self, shape):
        return np.broadcast_to(-np.arange(shape[-1], dtype=np.float64), shape).copy()


def numpy_games(tables_deck, config, policy, rule, opening):
    """The vectorised engine's games from given opening hands: metrics by turn."""
    features = tables_deck.features()
    rngs = {name: np.random.default_rng(0) for name in ("policy", "removal", "parley")}
    rngs["search"] = ReversingSearch()
    game = Goldfish(features, config, policy, None, rngs)
    state = GameState.from_opening_hands(opening, features)
    out = {}
    for turn in range(1, config.turns + 1):
        game.play_turn(state)
        out[turn] = game.turn_metrics(state)
    return out


def disagreements(deck, config, policy, mulligan=None, trials=400, seed=0):
    """Metric-turn pairs where the two engines play any game of the same deal differently,
    with the first such game."""
    features = deck.features()
    tables = deck_tables(features, config)
    mulligan = {"kind": "london"} if mulligan is None else mulligan
    rule = game_mulligan(MulliganRule(**mulligan), config, features)
    assert kernel_problem(tables, policy, None, rule, config) is None
    ids = deck.card_ids()
    opening = deal_opening_hands(ids, features, trials, rule,
                                 lambda attempt: np.random.default_rng([seed, attempt]))
    got = play_openings(tables, config, policy, opening, ids)
    expected = numpy_games(deck, config, policy, rule, opening)  # plays on opening's arrays
    bad = {}
    for turn in range(1, config.turns + 1):
        for name, values in expected[turn].items():
            differ = np.flatnonzero(np.asarray(values) != got[turn][name])
            if differ.size:
                bad[(turn, name)] = int(differ[0])
    return bad


@pytest.mark.parametrize("path", DECKS, ids=[p.stem for p in DECKS])
@pytest.mark.parametrize("policy", ["forge", "mill", "keep", "xmage",
                                    "lands_in_hand == 0 or counters >= 2",
                                    "not (mana_value > 3 and lands_in_hand >= 1) "
                                    "or (lands_in_play <= 3 and counters + 1 >= 2)"])
def test_every_shipped_deck_plays_the_same_games_in_both_engines(path, policy):
    deck = load_deck(path)
    # Parley's coin (is the opponent's top card a land?) comes from each engine's own stream:
    # sure either way, it plays the same in both.
    config = GameConfig(turns=7, castable=(), opponent_land_fraction=float(len(policy) % 2))
    assert disagreements(deck, config, as_policy(policy), trials=300) == {}


def test_a_zero_divisor_in_a_game_divides_alike_in_both_engines():
    """x / 0 is infinite and 0 / 0 not a number (every comparison with it false), on both
    engines: this rule mills what ``mana_value > 0`` mills."""
    deck = load_deck(SHIPPED_DECKS / "lci_merfolk_explore.txt")
    config = GameConfig(turns=6)
    for text in ("mana_value / (turn - turn) > 1", "mana_value // (turn - turn) > 1",
                 "not (mana_value % (turn - turn) > -1)"):
        assert disagreements(deck, config, as_policy(text), trials=200) == {}
    features = deck.features()
    rule = game_mulligan(MulliganRule(kind="london"), config, features)
    opening = deal_opening_hands(deck.card_ids(), features, 200, rule,
                                 lambda attempt: np.random.default_rng([5, attempt]))
    tables = deck_tables(features, config)
    divided = play_openings(tables, config, as_policy("mana_value / (turn - turn) > 1"),
                            opening, deck.card_ids())
    plain = play_openings(tables, config, as_policy("mana_value > 0"), opening, deck.card_ids())
    assert all(np.array_equal(divided[t][name], plain[t][name])
               for t in range(1, 7) for name in plain[t])


@pytest.mark.parametrize("options", [
    {"on_play": False}, {"hand_limit": 7, "turns": 9}, {"use_maps": False},
    {"replacement_order": "twists-first"}, {"land_faces": "always"}, {"land_faces": "never"},
    {"opponent_land_fraction": 0.0}, {"opponent_land_fraction": 1.0}, {"life": 9},
    {"removal": 1.0},  # sure removal: each engine's own stream decides it the same way
])
def test_game_options_play_the_same_games_in_both_engines(options):
    deck = load_deck(SHIPPED_DECKS / "lci_merfolk_explore.txt")
    config = GameConfig(**{"turns": 7, **options})
    assert disagreements(deck, config, as_policy("forge"), trials=300) == {}


def test_a_removed_commander_is_recast_with_its_tax_in_both_engines():
    """Sure removal sends Hakbal home in response to its first explore (CR 903.9), so the
    games recast it with {2} of tax per earlier cast (CR 903.8): both engines alike."""
    deck = load_deck(SHIPPED_DECKS / "hakbal_merfolk_commander.txt")
    # Parley's coin comes from each engine's own stream: sure, it plays the same in both.
    config = GameConfig(turns=8, removal=1.0, opponent_land_fraction=1.0)
    assert disagreements(deck, config, as_policy("forge"), trials=300) == {}
    tables = deck_tables(deck.features(), config)
    rule = game_mulligan(MulliganRule(kind="london"), config, deck.features())
    opening = deal_opening_hands(deck.card_ids(), deck.features(), 300, rule,
                                 lambda attempt: np.random.default_rng([0, attempt]))
    got = play_openings(tables, config, as_policy("forge"), opening, deck.card_ids())
    assert got[8]["commander_tax_paid"].max() >= 2  # the tax is played, not only agreed on
    # spell_mana (compounded_mana's) leaves the tax out: it is part of mana_spent only
    assert (got[8]["spell_mana"] <= got[8]["mana_spent"] - got[8]["commander_tax_paid"]).all()


@pytest.mark.parametrize("mulligan", [{"kind": "none"}, {"kind": "london"},
                                      {"kind": "london", "free_first": True}])
def test_mulligan_rules_play_the_same_games_in_both_engines(mulligan):
    deck = load_deck(SHIPPED_DECKS / "golgari_explore.txt")
    assert disagreements(deck, GameConfig(turns=6), as_policy("forge"), mulligan) == {}


#: Catalog cards of every colour for random decks (no card file needed).
SPELLS = ["Jadelight Ranger", "Merfolk Branchwalker", "Wildgrowth Walker", "Grizzly Bears",
          "Seekers' Squire", "Emissary of Sunrise", "Brazen Buccaneers", "Deadeye Tracker",
          "Cenote Scout", "Tishana's Wayfinder", "Jadelight Spelunker", "Path of Discovery",
          "River Herald Scout", "Sunrise Seeker", "Queen's Agent", "Lurking Chupacabra",
          "Topography Tracker", "Cartographer's Companion", "Spyglass Siren", "Explore",
          "Merfolk Cave-Diver", "Twists and Turns // Mycoid Maze", "Worldwalker Helm"]
LANDS = ["Plains", "Island", "Swamp", "Mountain", "Forest", "Wastes", "Dryad Arbor",
         "Restless Anchorage", "Snow-Covered Forest"]


def random_decklist(rng: np.random.Generator, commander: bool) -> str:
    """A random multi-colour list of catalog cards (Hakbal and 99 others, or 60)."""
    size = 99 if commander else 60
    n_lands = int(rng.integers(size * 3 // 10, size // 2))
    spells = rng.choice(SPELLS, size=7, replace=False)
    lands = rng.choice(LANDS, size=4, replace=False)
    counts = dict.fromkeys([*spells, *lands], 0)
    for i in range(size - n_lands):
        counts[spells[i % len(spells)]] += 1
    for i in range(n_lands):
        counts[lands[i % len(lands)]] += 1
    lines = "\n".join(f"{n} {name}" for name, n in counts.items() if n)
    return f"Commander\n1 Hakbal of the Surging Soul\n\nDeck\n{lines}" if commander else lines


@pytest.mark.parametrize("seed", range(8))
def test_random_multicolour_and_commander_decks_play_the_same_games(seed):
    rng = np.random.default_rng(seed)
    deck = parse_deck(random_decklist(rng, commander=seed % 2 == 1), source=f"random {seed}")
    config = GameConfig(turns=6, on_play=bool(seed % 3), opponent_land_fraction=1.0)
    assert disagreements(deck, config, as_policy("forge"), trials=300, seed=seed) == {}


def test_the_castability_table_and_the_spell_by_spell_test_play_the_same_games(monkeypatch):
    """Every shipped deck reads castability from a table; without one (too many keys) the
    kernel tests each spell's ways to pay, and plays the same games."""
    from explore_sim.engine import kernel

    pack = importlib.import_module("explore_sim.engine.kernel.pack")
    monkeypatch.setattr(pack, "CASTABLE_KEY_LIMIT", 0)
    monkeypatch.setattr(kernel, "_PACKED", {})
    rng = np.random.default_rng(5)
    for deck in (load_deck(SHIPPED_DECKS / "sultai_explore.txt"),
                 load_deck(SHIPPED_DECKS / "hakbal_merfolk_commander.txt"),
                 parse_deck(random_decklist(rng, commander=False), source="random")):
        spells = tuple(card for card, _ in deck.main if not card.is_land)[:3]
        # Parley's coin comes from each engine's own stream: sure, it plays the same.
        config = GameConfig(turns=6, castable=spells, opponent_land_fraction=1.0)
        assert pack.pack(deck_tables(deck.features(), config), config).castable_by_key.shape[1] == 1
        assert disagreements(deck, config, as_policy("forge"), trials=200) == {}, deck.name


def test_a_deck_without_mana_sources_plays_the_same_games():
    deck = parse_deck("30 Grizzly Bears\n30 Merfolk Cave-Diver", source="no mana")
    assert disagreements(deck, GameConfig(turns=5), as_policy("forge"), trials=100) == {}


LOSSY_FILTER = """
[[card]]
name = "Leaky Cistern"
mana_cost = "{1}"
type_line = "Artifact"
produces = "G"
mana_ability_cost = "{2}"
"""


@pytest.mark.parametrize("deck_text, lookup", [
    ("4 Leaky Cistern\n4 Cenote Scout\n4 Jadelight Spelunker\n4 River Herald Scout\n"
     "4 Spyglass Siren\n4 Grizzly Bears\n8 Forest\n8 Island", True),
    ("sultai_explore.txt", False),  # its Llanowar Elves for Leaky Cisterns
], ids=["lookup", "no-lookup"])
def test_a_filter_that_makes_less_than_it_costs_plays_the_same_games(tmp_path, deck_text,
                                                                     lookup):
    """Activating such a filter leaves less mana than it took: the mana available (every
    filter activated) is less than the plain mana. Both engines cast what the plain mana
    pays where the deck has a lookup table; without one, a spell costing more than the mana
    available is no candidate, in either engine."""
    cards = [tmp_path / "cistern.toml"]
    cards[0].write_text(LOSSY_FILTER, encoding="utf-8")
    if deck_text.endswith(".txt"):
        path = SHIPPED_DECKS / deck_text
        cards.append(path.with_suffix(".cards.toml"))  # the deck's own card file
        deck_text = path.read_text(encoding="utf-8").replace("4 Llanowar Elves (DOM) 168",
                                                             "4 Leaky Cistern")
    deck = load_deck(deck_text, cards=cards)
    mana = deck_tables(deck.features(), GameConfig()).mana
    assert mana.has_filters and (mana.lookup is not None) == lookup
    assert disagreements(deck, GameConfig(turns=6), as_policy("forge"), trials=300) == {}


TARGET_CARDS = """[[card]]
name = "Dead Weight"
mana_cost = "{B}"
type_line = "Enchantment — Aura"
target = "opponent"

[[card]]
name = "Giant Growth"
mana_cost = "{G}"
type_line = "Instant"
target = "creature"

[[card]]
name = "Rancor"
mana_cost = "{G}"
type_line = "Enchantment — Aura"
target = "creature"
"""


def test_held_spells_and_spells_needing_a_creature_play_the_same_games(tmp_path):
    """Spells whose target only an opponent has (held, discarded first: a hand limit of 5
    makes the cleanup discard) and spells that wait for a creature you control."""
    from explore_sim.cards.card_index import card_sources

    cards = tmp_path / "targets.toml"
    cards.write_text(TARGET_CARDS, encoding="utf-8")
    deck = parse_deck("8 Dead Weight\n6 Giant Growth\n4 Rancor\n4 Get Lost\n"
                      "10 Grizzly Bears\n8 Cenote Scout\n8 Swamp\n9 Forest\n3 Plains\n",
                      card_sources([cards], use_index=False))
    for config in (GameConfig(turns=7), GameConfig(turns=7, hand_limit=5)):
        assert disagreements(deck, config, as_policy("forge"), trials=300) == {}


def test_a_broken_rule_is_seen(monkeypatch):
    """The agreement check can fail: a vectorised engine whose cleanup discards nothing."""
    deck = load_deck(SHIPPED_DECKS / "lci_merfolk_explore.txt")
    config = GameConfig(turns=6, hand_limit=3)
    assert disagreements(deck, config, as_policy("forge"), trials=200) == {}
    monkeypatch.setattr(Goldfish, "cleanup", lambda self, state: None)
    assert (6, "hand_size") in disagreements(deck, config, as_policy("forge"), trials=200)


def z_scores(deck, config, policy, trials):
    """Per metric and turn, (kernel mean - numpy mean) / standard error of the difference."""
    from explore_sim.analysis.games import play_games

    features = deck.features()
    tables = deck_tables(features, config)
    rule = MulliganRule("london")
    played = game_mulligan(rule, config, features)
    a = play_games(deck, config, policy, rule, trials, np.random.SeedSequence(1))
    b = play_games_kernel(tables, config, policy, played, trials, np.random.SeedSequence(2),
                          deck.card_ids())
    z = {}
    for turn in a:
        for name, values in a[turn].items():
            x, y = np.asarray(values, float), np.asarray(b[turn][name], float)
            se = np.sqrt(x.var(ddof=1) / x.size + y.var(ddof=1) / y.size)
            if se > 0:
                z[(turn, name)] = (y.mean() - x.mean()) / se
            else:
                assert x.mean() == y.mean(), (turn, name)
    return z


@pytest.mark.slow
@pytest.mark.parametrize("stem", ["lci_merfolk_explore", "hakbal_merfolk_commander"])
def test_dealt_games_agree_in_distribution(stem):
    deck = load_deck(SHIPPED_DECKS / f"{stem}.txt")
    z = z_scores(deck, GameConfig(turns=6), as_policy("forge"), 20000)
    worst = max(z, key=lambda k: abs(z[k]))
    assert abs(z[worst]) <= 4.5, (worst, z[worst])


def test_the_kernel_compiles_once_for_every_deck_and_option():
    from explore_sim.engine.kernel.game import play_chunk

    for stem, config in (("golgari_explore", GameConfig(turns=3)),
                         ("hakbal_merfolk_commander", GameConfig(turns=4, on_play=False))):
        deck = load_deck(SHIPPED_DECKS / f"{stem}.txt")
        features = deck.features()
        tables = deck_tables(features, config)
        rule = game_mulligan(MulliganRule("london"), config, features)
        for policy in ("forge", "turn >= 3 and lands_in_hand > 1"):
            play_games_kernel(tables, config, as_policy(policy), rule, 50,
                              np.random.SeedSequence(0), deck.card_ids())
    assert len(play_chunk.signatures) == 1


def golgari_chunks(trials, threads=None):
    """A function playing a chunk of ``trials`` 4-turn Golgari games from a seed."""
    deck = load_deck(SHIPPED_DECKS / "golgari_explore.txt")
    config = GameConfig(turns=4)
    features = deck.features()
    tables = deck_tables(features, config)
    rule = game_mulligan(MulliganRule("london"), config, features)

    def play(seed):
        return play_games_kernel(tables, config, as_policy("forge"), rule, trials,
                                 np.random.SeedSequence(seed), deck.card_ids(), threads=threads)

    return play


@pytest.mark.parametrize("threads", [2, 3, 7])
def test_the_games_are_the_same_whatever_the_threads_that_play_them(monkeypatch, threads):
    """Threads play contiguous parts of a chunk (here of 1,000 games, parts not a whole
    number of the kernel's blocks of games) into the same arrays, each game from its own
    streams: every game's metrics are the one-thread run's, and so is the opening hand."""
    monkeypatch.setattr(threads_module, "MIN_GAMES_PER_THREAD", 100)
    one = golgari_chunks(1000, threads=1)(11)
    many = golgari_chunks(1000, threads=threads)(11)
    assert len(threads_module.thread_parts(1000, threads)) == threads
    for turn in one:
        for name in one[turn]:
            assert np.array_equal(one[turn][name], many[turn][name]), (turn, name)


def test_the_same_seed_gives_the_same_games():
    play = golgari_chunks(200)
    runs = [play(seed) for seed in (5, 5, 6)]
    same = all(np.array_equal(runs[0][t][m], runs[1][t][m]) for t in runs[0] for m in runs[0][t])
    assert same
    assert not np.array_equal(runs[0][4]["counters"], runs[2][4]["counters"])


def test_a_chunk_reuses_an_earlier_chunks_array_only_once_nothing_refers_to_it():
    play = golgari_chunks(300)
    with reusing_chunk_arrays():  # as a run's chunks in one process are played
        check_reuse(play)
        kept = weakref.ref(play(7)[4]["counters"].base)
        assert kept() is not None  # free, kept for the run's next chunk
    assert kept() is None  # the run is over: let go
    alone = weakref.ref(play(5)[4]["counters"].base)  # outside a run: kept by nothing
    assert alone() is None


def check_reuse(play):
    """Chunks played one after another reuse an array only once it is free."""
    first = play(5)
    arrays = {id(first[4]["counters"].base)}
    expected = {t: {m: v.copy() for m, v in first[t].items()} for t in first}
    counters = first[4]["counters"]  # a row of the first chunk's array, still in use
    del first
    second = play(6)
    assert not np.shares_memory(counters, second[4]["counters"])
    assert np.array_equal(counters, expected[4]["counters"])  # not written over
    del counters
    arrays.add(id(second[4]["counters"].base))
    del second  # nothing refers to either chunk's array any more
    third = play(5)
    assert id(third[4]["counters"].base) in arrays
    assert all(np.array_equal(third[t][m], expected[t][m]) for t in expected for m in expected[t])


@pytest.mark.parametrize("stem", ["golgari_explore", "lci_merfolk_explore"])
def test_the_curve_metrics_play_the_same_games_in_both_engines(stem):
    # main_lands and castable_lands:CARD (castable_lands=True, what the curve answer plays).
    deck = load_deck(SHIPPED_DECKS / f"{stem}.txt")
    spells = tuple(card for card, _ in deck.main if not card.is_land)[:4]
    config = GameConfig(turns=6, castable=spells, castable_lands=True)
    assert "main_lands" in config.metric_names
    assert all(f"castable_lands:{card.name}" in config.metric_names for card in spells)
    assert disagreements(deck, config, as_policy("forge")) == {}


GAMES_AS_TEXT = r"""
import json, sys
import numpy as np
from explore_sim.analysis.game_setup import game_mulligan
from explore_sim.cards.decklist import load_deck
from explore_sim.engine.goldfish import GameConfig, deck_tables
from explore_sim.engine.kernel import play_games_kernel
from explore_sim.engine.mulligan import MulliganRule
from explore_sim.engine.policies import as_policy
deck = load_deck(sys.argv[1])
config = GameConfig(turns=5)
features = deck.features()
games = play_games_kernel(deck_tables(features, config), config, as_policy("forge"),
                          game_mulligan(MulliganRule("london"), config, features), 40,
                          np.random.SeedSequence(11), deck.card_ids())
print(json.dumps({turn: {name: values.tolist() for name, values in metrics.items()}
                  for turn, metrics in games.items()}))
"""


def test_the_uncompiled_game_plays_the_same_games():
    """With numba's JIT disabled (the game as plain Python, for a debugger) the records are
    read as they are: every game is the one the compiled game plays."""
    import os
    import subprocess
    import sys

    deck = str(SHIPPED_DECKS / "hakbal_merfolk_commander.txt")
    played = []
    for disable in ("0", "1"):
        env = {**os.environ, "NUMBA_DISABLE_JIT": disable}
        done = subprocess.run([sys.executable, "-W", "ignore", "-c", GAMES_AS_TEXT, deck],
                              capture_output=True, text=True, env=env, check=True)
        played.append(done.stdout)
    assert played[0] == played[1]
    assert '"counters"' in played[0]
