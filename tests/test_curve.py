"""curve: castable on curve against exact hypergeometric values, Karsten's 2022 table, the
command's output and its one-line errors."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from conftest import DECKS

import explore_sim
from explore_sim import Card, Deck, OptionError
from explore_sim.analysis.curve import curve_runs
from explore_sim.cards.costs import cost_modes
from explore_sim.cards.karsten import (
    coloured_sources,
    karsten_column,
    karsten_column_text,
    karsten_row,
    karsten_sources,
)
from explore_sim.cli import main

TRIALS = 20_000

#: Karsten's 2022 recommendations, by deck size (60, 80, 99, 40 cards).
KARSTEN = {
    "C": (14, 19, 19, 9), "CC": (21, 28, 30, 14), "CCC": (23, 32, 36, 16),
    "1C": (13, 18, 19, 9), "1CC": (18, 25, 28, 12), "1CCC": (21, 29, 33, 14),
    "2C": (12, 16, 18, 8), "2CC": (16, 23, 26, 11), "3C": (10, 15, 16, 7), "4C": (9, 14, 15, 6),
}


def basic(name: str) -> Card:
    return explore_sim.parse_deck(f"1 {name}").main[0][0]


def vanilla(name: str, cost: str) -> Card:
    return Card(name=name, mana_cost=cost, type_line="Creature — Bear", power=2, toughness=2)


def hypergeometric_at_least(k: int, draws: int, successes: int, size: int) -> float:
    """P(at least k successes in ``draws`` cards from ``size`` holding ``successes``)."""
    return sum(math.comb(successes, i) * math.comb(size - successes, draws - i)
               for i in range(k, min(draws, successes) + 1)) / math.comb(size, draws)


def within(simulated: float, exact: float, n: int) -> bool:
    """Within 4 standard errors of the exact value."""
    return abs(simulated - exact) <= 4 * math.sqrt(exact * (1 - exact) / n) + 1e-12


@pytest.mark.parametrize("key", sorted(KARSTEN))
def test_the_karsten_column_is_karstens_2022_table(key):
    generic = int(key[0]) if key[0].isdigit() else 0
    mode = cost_modes((f"{{{generic}}}" if generic else "") + "{G}" * key.count("C"))[0]
    got = tuple(karsten_sources(mode, "G", size) for size in (60, 80, 99, 40))
    assert got == KARSTEN[key]


def test_costs_out_of_the_table_gold_cards_and_deck_sizes():
    assert karsten_sources(cost_modes("{5}{G}")[0], "G", 60) == 9  # reads 4C
    assert karsten_sources(cost_modes("{3}{G}{G}")[0], "G", 60) == 16  # reads 2CC
    # Gold: the other colour counts as generic, and one more source per colour.
    assert karsten_sources(cost_modes("{1}{G}{U}")[0], "G", 60) == 12 + 1
    assert karsten_sources(cost_modes("{G}{U}")[0], "U", 60) == 13 + 1
    # The row read is shown beside the cost: {3}{G}{G} (Vivien Reid) on the 2CC row.
    assert karsten_row(cost_modes("{3}{G}{G}")[0], "G") == "2CC"
    assert karsten_row(cost_modes("{5}{G}")[0], "G") == "4C"
    assert karsten_row(cost_modes("{2}{B}{B}{B}")[0], "B") == "1CCC"
    assert karsten_row(cost_modes("{G}")[0], "G") == "C"
    assert karsten_row(cost_modes("{1}{G}{U}")[0], "U") == "2C+1"
    assert [karsten_column(n) for n in (40, 45, 50, 60, 69, 70, 90, 100)] == \
        [40, 40, 60, 60, 60, 80, 99, 99]
    # A deck of a size the table has no column for is told which column it is judged by.
    assert karsten_column_text(60) == "60-card column"
    assert karsten_column_text(56) == "60-card column, the nearest to this 56-card deck"
    assert karsten_column_text(45) == "40-card column, the nearest to this 45-card deck"


#: A held-out deck: 17 Forests and 23 vanilla green creatures (40 cards).
MONO = Deck("mono green", main=((basic("Forest"), 17), (vanilla("One", "{G}"), 6),
                                (vanilla("Two", "{1}{G}"), 6), (vanilla("Double", "{G}{G}"), 6),
                                (vanilla("Four", "{2}{G}{G}"), 5)))


@pytest.mark.slow
def test_castable_on_curve_is_hypergeometric_without_mulligans():
    # On the play with no mulligan, turn T has seen 7 + T - 1 cards and has played
    # min(T, Forests seen) Forests (one land drop a turn); with only Forests a cost of mana
    # value k is payable on turn k exactly when at least k of those cards are Forests.
    result = explore_sim.curve(MONO, trials=TRIALS, seed=3, mulligan="none")
    rows = result.summary().set_index("card")
    assert result.meta["turns"] == 4
    for name, k in (("One", 1), ("Two", 2), ("Double", 2), ("Four", 4)):
        row = rows.loc[name]
        exact = hypergeometric_at_least(k, 6 + k, 17, 40)
        assert row["turn"] == k and row["mana_value"] == k
        assert within(row["probability"], exact, TRIALS), (name, row["probability"], exact)
        assert within(row["lands_probability"], exact, TRIALS)
        # Forests only: enough lands is enough mana.
        assert row["given_lands"] == 1.0 and row["given_lands_se"] == 0.0
        assert row["sources"] == "G 17" and row["short"] == ""
    assert rows.loc["Double", "karsten"] == "G 14" and rows.loc["Four", "karsten"] == "G 11"


@pytest.mark.slow
def test_a_two_colour_cost_is_exact_too():
    # {G}{U} on turn 2 (8 cards seen): castable exactly when a Forest and an Island are among
    # them (the land drops close the colour deficit); given two lands, divided by P(>= 2).
    deck = Deck("simic", main=((basic("Forest"), 9), (basic("Island"), 8),
                               (vanilla("Gold", "{G}{U}"), 23)))
    result = explore_sim.curve(deck, trials=TRIALS, seed=5, mulligan="none")
    row = result.summary().iloc[0]
    seen, size = 8, 40
    no_forest = math.comb(31, seen) / math.comb(size, seen)
    no_island = math.comb(32, seen) / math.comb(size, seen)
    no_land = math.comb(23, seen) / math.comb(size, seen)
    both = 1 - no_forest - no_island + no_land
    two_lands = hypergeometric_at_least(2, seen, 17, size)
    assert row["turn"] == 2
    assert within(row["probability"], both, TRIALS), (row["probability"], both)
    exact_given = both / two_lands
    n_given = round(row["lands_probability"] * TRIALS)
    assert within(row["given_lands"], exact_given, n_given), (row["given_lands"], exact_given)
    assert row["sources"] == "U 8, G 9" and row["karsten"] == "U 10, G 10"
    assert row["short"] == "UG"
    assert coloured_sources(deck) == {"W": 0, "U": 8, "B": 0, "R": 0, "G": 9}


def test_a_mana_creature_is_a_source_only_for_cards_of_a_later_turn():
    # Golgari: 20 lands make green, and 4 Llanowar Elves ({G}, mana value 1). The Elves
    # cannot make mana for a card cast on turn 1 (themselves included: they are summoning
    # sick); cast on turn 1, they can for a turn-2 card.
    deck = explore_sim.load_deck(DECKS / "golgari_explore.txt")
    assert coloured_sources(deck)["G"] == 24
    assert coloured_sources(deck, 1)["G"] == 20 and coloured_sources(deck, 2)["G"] == 24
    result = explore_sim.curve(deck, trials=200, seed=1, turns=2)
    rows = result.summary().set_index("card")
    assert rows.loc["Llanowar Elves", "sources"] == "G 20"
    assert rows.loc["Enter the Unknown", "sources"] == "G 20"
    assert rows.loc["Wildgrowth Walker", "sources"] == "G 24"


def test_bad_options_are_one_line_errors(capsys):
    with pytest.raises(OptionError, match="castable is not an option of curve"):
        explore_sim.curve(MONO, castable=["One"], trials=100)
    with pytest.raises(OptionError, match="no nonland card"):
        explore_sim.curve(Deck("lands", main=((basic("Forest"), 40),)), trials=100)
    assert main(["curve", str(DECKS / "golgari_explore.txt"), "--trials", "100",
                 "--removal", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "removal must be a probability" in err


@pytest.mark.slow
def test_the_command_prints_the_header_and_a_row_per_card(capsys, tmp_path):
    deck = str(DECKS / "golgari_explore.txt")
    assert main(["curve", deck, "--trials", "2000", "--seed", "1", "--mulligan", "none",
                 "--on-draw", "--quiet"]) == 0
    out = capsys.readouterr().out
    for line in ("curve: each nonland card on its turn (mana value, at least 1), on the draw",
                 "  deck: Golgari Explore (60 cards, 23 lands)", "  mulligan: none",
                 "  trials: 2000", "  seed: 1", "  sources recommended: Karsten 2022, "
                 "60-card column"):
        assert line in out.splitlines()
    assert "  engine: " in out and "Jadelight Ranger" in out and "B 16 (23)*" in out
    header, = [line for line in out.splitlines() if line.strip().startswith("card")]
    assert header.split()[:5] == ["card", "n", "cost", "Karsten", "row"]
    tyrant, = [line for line in out.splitlines() if line.strip().startswith("Carnage Tyrant")]
    assert tyrant.split()[3:6] == ["{4}{G}{G}", "G", "2CC"]
    short = tmp_path / "short.txt"  # four cards fewer: judged by the 60-card column, and told
    short.write_text(Path(deck).read_text().replace("4 Llanowar Elves (DOM) 168", ""))
    assert main(["curve", str(short), "--cards", str(DECKS / "golgari_explore.cards.toml"),
                 "--trials", "200", "--seed", "1", "--quiet"]) == 0
    assert ("  sources recommended: Karsten 2022, 60-card column, the nearest to this 56-card "
            "deck") in capsys.readouterr().out.splitlines()
    assert main(["curve", deck, "--trials", "2000", "--seed", "1", "--format", "json",
                 "--quiet", "--turns", "3"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["meta"]["command"] == "curve" and data["meta"]["turns"] == 3
    rows = {row["card"]: row for row in data["rows"]}
    assert rows["Carnage Tyrant"]["turn"] == 3 and rows["Llanowar Elves"]["turn"] == 1
    assert rows["Carnage Tyrant"]["karsten_row"] == "G 2CC"
    assert rows["Find // Finality"]["karsten_row"] == ""  # hybrid pips only
    assert len(rows) == 12


def test_a_split_card_is_judged_on_its_cheaper_halfs_turn():
    """Find // Finality ({B/G}{B/G} // {4}{B}{G}, mana value 8 in hand) is a two-drop."""
    from explore_sim.analysis.curve import curve_mana_value

    golgari = explore_sim.load_deck(DECKS / "golgari_explore.txt")
    find = next(card for card, _ in golgari.main if card.name == "Find // Finality")
    assert find.mana_value == 8 and curve_mana_value(find) == 2
    ranger = next(card for card, _ in golgari.main if card.name == "Jadelight Ranger")
    assert curve_mana_value(ranger) == 3


#: A held-out two-colour deck for the London mulligan check (40 cards).
SIMIC = Deck("simic curve", main=((basic("Forest"), 9), (basic("Island"), 8),
                                  (vanilla("Green", "{G}"), 6), (vanilla("Blue", "{1}{U}"), 6),
                                  (vanilla("Gold", "{G}{U}"), 11)))


def london_opening(rng: random.Random, library: list[str]) -> tuple[list[str], list[str]]:
    """One London mulligan, written from the documented rule: a new shuffle and seven
    cards per attempt; after the k-th mulligan k cards go to the bottom (the most expensive
    spells, or lands of the kind held most, as many of each as the rule says); keep 7 cards
    with 2-5 lands, 6 or 5 cards with 2-4 lands, always 4. Returns (hand, rest of the
    library from its top, the bottomed cards excluded)."""
    value = {"Green": 1, "Blue": 2, "Gold": 2}
    for mulligans in range(4):
        deck = library[:]
        rng.shuffle(deck)
        hand, rest = deck[:7], deck[7:]
        spells = [card for card in hand if card in value]
        lands = [card for card in hand if card not in value]
        if mulligans == 1:
            spell_bottoms = 1 if len(spells) >= 3 else 0
        elif mulligans == 2:
            spell_bottoms = 2 if len(spells) >= 4 else 1 if len(spells) == 3 else 0
        else:  # to four: three lands and a spell as far as the hand allows
            spell_bottoms = len(spells) - min(4 - min(len(lands), 3), len(spells))
        for j in range(mulligans):
            if j < spell_bottoms:
                spells.remove(max(spells, key=value.__getitem__))
            else:  # the kind held most; a tie leaves one of each either way
                lands.remove(max(sorted(set(lands), key=lambda _: rng.random()),
                                 key=lands.count))
        most = 5 if mulligans == 0 else 4
        if mulligans == 3 or 2 <= len(lands) <= most:
            return spells + lands, rest
    raise AssertionError("unreachable")


def independent_simic_curve(games: int, seed: int) -> dict[str, tuple[float, float]]:
    """Castable on curve on the play with London mulligans, one game at a time: Green ({G})
    on turn 1 needs a Forest in hand; Blue ({1}{U}) and Gold ({G}{U}) on turn 2 need two lands
    among the hand and the first draw (one land drop a turn), an Island among them, and for
    Gold a Forest too (with basic lands the land choice plays to close the colours both
    want). Returns each card's (probability, probability given enough lands)."""
    rng = random.Random(seed)
    library = [card for card, copies in (("Forest", 9), ("Island", 8), ("Green", 6),
                                         ("Blue", 6), ("Gold", 11)) for _ in range(copies)]
    hits = dict.fromkeys(("Green", "Blue", "Gold"), 0)
    enough = {1: 0, 2: 0}
    for _ in range(games):
        hand, rest = london_opening(rng, library)
        by_turn = {1: hand, 2: hand + rest[:1]}
        forests = {t: cards.count("Forest") for t, cards in by_turn.items()}
        islands = {t: cards.count("Island") for t, cards in by_turn.items()}
        for turn in (1, 2):
            enough[turn] += forests[turn] + islands[turn] >= turn
        hits["Green"] += forests[1] >= 1
        two = forests[2] + islands[2] >= 2
        hits["Blue"] += two and islands[2] >= 1
        hits["Gold"] += two and islands[2] >= 1 and forests[2] >= 1
    turn = {"Green": 1, "Blue": 2, "Gold": 2}
    return {name: (count / games, count / enough[turn[name]]) for name, count in hits.items()}


@pytest.mark.slow
def test_with_london_mulligans_curve_agrees_with_an_independent_simulation():
    games = 40_000
    expected = independent_simic_curve(games, seed=11)
    rows = explore_sim.curve(SIMIC, trials=games, seed=7, mulligan="london",
                             engine="kernel").summary().set_index("card")
    for name, (probability, given) in expected.items():
        row = rows.loc[name]
        # Two independent estimates: 4 standard errors of their difference.
        se = math.sqrt(2 * probability * (1 - probability) / games)
        assert abs(row["probability"] - probability) <= 4 * se, (name, row["probability"],
                                                                  probability)
        given_se = math.hypot(row["given_lands_se"], row["given_lands_se"])
        assert abs(row["given_lands"] - given) <= 4 * given_se + 1e-12, (name, row["given_lands"],
                                                                         given)


def two_colour_exact(seen: int, forests: int, islands: int, size: int, lands_needed: int,
                     need_forest: bool, need_island: bool) -> float:
    """P(at least ``lands_needed`` lands among ``seen`` cards, with a Forest and/or an Island
    as asked), a multivariate hypergeometric sum."""
    total, p = math.comb(size, seen), 0.0
    others = size - forests - islands
    for f in range(min(forests, seen) + 1):
        for i in range(min(islands, seen - f) + 1):
            if f + i >= lands_needed and (f or not need_forest) and (i or not need_island):
                p += math.comb(forests, f) * math.comb(islands, i) * \
                    math.comb(others, seen - f - i) / total
    return p


@pytest.mark.slow
def test_every_card_of_a_two_colour_deck_is_exact_without_mulligans():
    # Green {G}, Blue {1}{U} and Gold {G}{U} wanted at once pull the land drop apart (an
    # Island for the two blue cards over the one-drop's Forest); each in its own run, each
    # reaches its own best-choice value.
    assert {frozenset(card.name for card in run) for run in curve_runs(SIMIC)} == \
        {frozenset({"Green"}), frozenset({"Blue"}), frozenset({"Gold"})}
    rows = explore_sim.curve(SIMIC, trials=TRIALS, seed=13,
                             mulligan="none").summary().set_index("card")
    exact = {"Green": two_colour_exact(7, 9, 8, 40, 1, True, False),
             "Blue": two_colour_exact(8, 9, 8, 40, 2, False, True),
             "Gold": two_colour_exact(8, 9, 8, 40, 2, True, True)}
    assert abs(exact["Green"] - 0.858955) < 1e-6
    for name, value in exact.items():
        assert within(rows.loc[name, "probability"], value, TRIALS), (name, value)


def test_cards_share_a_run_when_their_coloured_pips_do():
    deck = Deck("runs", main=((basic("Forest"), 20), (vanilla("Two", "{1}{G}"), 4),
                              (vanilla("Three", "{2}{G}"), 4), (vanilla("Double", "{G}{G}"), 4),
                              (vanilla("Rock", "{2}"), 4), (vanilla("Golem", "{5}"), 4)))
    assert {frozenset(card.name for card in run) for run in curve_runs(deck)} == \
        {frozenset({"Two", "Three"}), frozenset({"Double"}), frozenset({"Rock", "Golem"})}


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["kernel", "numpy"])
def test_a_one_drop_is_judged_as_if_held_beside_tapped_lands(engine):
    # Golgari: 14 lands make {G} untapped on turn 1 (8 Forest, 4 Overgrown Tomb, 2 Llanowar
    # Wastes); a Woodland Cemetery or a guildgate would enter tapped. The land drop plays as
    # if the one-drop were held, so without mulligans Enter the Unknown ({G}) is castable on
    # turn 1 exactly when one of the 14 is among the 7 cards (a tapped land first would make
    # it 0.57).
    rows = explore_sim.curve(DECKS / "golgari_explore.txt", turns=1, trials=TRIALS, seed=17,
                             mulligan="none", engine=engine).summary().set_index("card")
    exact = 1 - math.comb(46, 7) / math.comb(60, 7)
    assert within(rows.loc["Enter the Unknown", "probability"], exact, TRIALS), \
        (rows.loc["Enter the Unknown", "probability"], exact)


def test_the_commander_is_judged_first():
    deck = explore_sim.load_deck(DECKS / "hakbal_merfolk_commander.txt")
    from explore_sim.analysis.curve import curve_cards

    cards = curve_cards(deck)
    assert cards[0][0].name == "Hakbal of the Surging Soul" and cards[0][1] == 1
    assert len(cards) == 1 + sum(1 for card, _ in deck.main if not card.is_land)
    assert any(card.name == "Hakbal of the Surging Soul" for run in curve_runs(deck)
               for card in run)
