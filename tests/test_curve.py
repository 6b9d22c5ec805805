"""curve: castable on curve against exact hypergeometric values, Karsten's 2022 table, the
command's output and its one-line errors."""

from __future__ import annotations

import json
import math

import pytest
from conftest import DECKS

import explore_sim
from explore_sim import Card, Deck, OptionError
from explore_sim.cards.costs import cost_modes
from explore_sim.cards.karsten import coloured_sources, karsten_column, karsten_sources
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
    assert [karsten_column(n) for n in (40, 45, 50, 60, 69, 70, 90, 100)] == \
        [40, 40, 60, 60, 60, 80, 99, 99]


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
def test_the_command_prints_the_header_and_a_row_per_card(capsys):
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
    assert main(["curve", deck, "--trials", "2000", "--seed", "1", "--format", "json",
                 "--quiet", "--turns", "3"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["meta"]["command"] == "curve" and data["meta"]["turns"] == 3
    rows = {row["card"]: row for row in data["rows"]}
    assert rows["Carnage Tyrant"]["turn"] == 3 and rows["Llanowar Elves"]["turn"] == 1
    assert len(rows) == 12


def test_a_split_card_is_judged_on_its_cheaper_halfs_turn():
    """Find // Finality ({B/G}{B/G} // {4}{B}{G}, mana value 8 in hand) is a two-drop."""
    from explore_sim.analysis.curve import curve_mana_value

    golgari = explore_sim.load_deck(DECKS / "golgari_explore.txt")
    find = next(card for card, _ in golgari.main if card.name == "Find // Finality")
    assert find.mana_value == 8 and curve_mana_value(find) == 2
    ranger = next(card for card, _ in golgari.main if card.name == "Jadelight Ranger")
    assert curve_mana_value(ranger) == 3
