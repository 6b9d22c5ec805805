"""No result depends on the order of a decklist's lines: the cards of a deck are kept in a
canonical order (by name), and every tie of the play choices is broken by card properties,
then by that order."""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest
from conftest import DECKS, both_engines, fixture_cards, scripted_game

import explore_sim
from explore_sim.engine.config import GameConfig

CARD_LINE = re.compile(r"^\s*\d+x?\s+\S")


def permuted_lines(text: str, seed: int) -> str:
    """The decklist with each run of consecutive card lines in a random order."""
    rng = np.random.default_rng(seed)
    lines, out, run = text.splitlines(), [], []
    for line in [*lines, ""]:
        if CARD_LINE.match(line):
            run.append(line)
            continue
        out += [run[i] for i in rng.permutation(len(run))]
        run = []
        out.append(line)
    return "\n".join(out[:-1]) + "\n"


@pytest.mark.parametrize("path", sorted(DECKS.glob("*.txt")), ids=lambda p: p.stem)
@pytest.mark.slow
def test_shuffling_a_decklists_lines_changes_no_number(path, tmp_path):
    text = path.read_text()
    shuffled = permuted_lines(text, seed=11)
    assert sorted(shuffled.splitlines()) == sorted(text.splitlines())
    assert shuffled != text
    copy = tmp_path / path.name
    copy.write_text(shuffled)
    sidecar = path.with_suffix(".cards.toml")
    if sidecar.exists():
        shutil.copy(sidecar, tmp_path / sidecar.name)
    runs = [explore_sim.simulate(explore_sim.load_deck(p), turns=5, trials=3_000, seed=4)
            for p in (path, copy)]
    frames = [run.summary().drop(columns=[c for c in ("deck",) if c in run.summary()])
              for run in runs]
    assert frames[0].equals(frames[1])
    explores = [explore_sim.explore(explore_sim.load_deck(p), drawn=9, trials=3_000, seed=4)
                for p in (path, copy)]
    assert explores[0].summary().equals(explores[1].summary())


def _mind_stone_deck(first: str, second: str):
    counts = {"Forest": 24, first: 4 if first == "Mind Stone" else 32,
              second: 4 if second == "Mind Stone" else 32}
    return explore_sim.deck_from_counts(counts, catalog=fixture_cards())


def test_a_mana_rock_listed_after_a_spell_of_its_cost_gives_the_same_mana():
    """Mind Stone and Grizzly Bears both cost 2: the mana source is cast first whichever is
    listed first, and the numbers are the same."""
    frames = [explore_sim.simulate(_mind_stone_deck(a, b), turns=3, trials=4_000, seed=2)
              .summary() for a, b in (("Mind Stone", "Grizzly Bears"),
                                      ("Grizzly Bears", "Mind Stone"))]
    assert frames[0].equals(frames[1])


@pytest.mark.parametrize("hand", [["Mind Stone", "Grizzly Bears"],
                                  ["Grizzly Bears", "Mind Stone"]])
def test_of_two_spells_of_one_cost_the_mana_source_is_cast_first(hand):
    game, state, ids = scripted_game(["Grizzly Bears"] * 3, hand=hand,
                                     battlefield=["Forest", "Forest"])
    game.play_turn(state)
    assert state.battlefield[0, ids["Mind Stone"]] == 1
    assert state.hand[0, ids["Grizzly Bears"]] == 1


@pytest.mark.parametrize("names", [["Grizzly Bears", "Mind Stone", "Forest"],
                                   ["Forest", "Mind Stone", "Grizzly Bears"]])
def test_mulligan_bottoms_and_discards_keep_the_mana_source(names):
    """Bottoming after a mulligan and discarding at cleanup take, of two cards of one cost,
    the one that is not a mana source, whichever comes first."""
    from explore_sim.cards import FeatureTable
    from explore_sim.engine.mulligan import _bottom

    catalog = fixture_cards()
    features = FeatureTable.from_cards([catalog.get(name) for name in names])
    ids = {name: i for i, name in enumerate(names, start=1)}
    seven = np.zeros((1, len(features)), dtype=np.int16)
    for name, copies in (("Forest", 2), ("Mind Stone", 2), ("Grizzly Bears", 3)):
        seven[0, ids[name]] = copies
    counts_as_land = features.is_land | features.is_land_like
    hand, bottomed = _bottom(seven, 1, features, counts_as_land)
    assert bottomed[0, 0] == ids["Grizzly Bears"]
    game, state, _ = scripted_game(["Forest"] * 3, hand=["Mind Stone"] * 4 + ["Grizzly Bears"] * 4
                                   + ["Island"] * 2, battlefield=[], extra=names)
    game.cleanup(state)
    assert state.hand[0, game.f.id_of(catalog.get("Mind Stone"))] == 4


def test_of_two_spells_of_one_cost_the_ramp_spell_is_cast_first():
    """Rampant Growth and Grizzly Bears both cost 2: with two Forests on turn 2 the ramp
    spell is cast (its Forest enters tapped), not the Bears the name order would take first
    (ramp is cast first). Both engines, game by game."""
    names = ("creatures", "lands_put", "lands_played", "cards_cast")
    games = both_engines(["Forest"] * 6, ["Forest", "Forest", "Grizzly Bears", "Rampant Growth"],
                         names, turns=3)
    assert games["kernel"] == games["numpy"]
    turn_2 = games["numpy"][2]
    assert (turn_2["lands_put"], turn_2["creatures"], turn_2["cards_cast"]) == (1, 0, 1)
    assert games["numpy"][3]["lands_played"] == 4  # 2 drops, the ramp's Forest, turn 3's drop


def test_ramp_is_cast_before_an_explorer_but_a_mana_creature_is_not():
    """Turn 2, two Forests: Rampant Growth (ramp) is cast before Merfolk Branchwalker (an
    explorer of the same cost), and so is Mind Stone (a mana rock); the explorer comes a
    turn later. Llanowar Elves, a mana creature (no mana the turn it comes), waits behind
    Cenote Scout on turn 1, but goes before a vanilla creature of its cost (Blue Test Card,
    first by name): its mana is there on turn 2. Both engines, game by game."""
    names = ("lands_put", "explores", "creatures", "mana_available")
    for ramp in ("Rampant Growth", "Mind Stone"):
        games = both_engines(["Forest"] * 6, ["Forest", "Forest", "Merfolk Branchwalker", ramp],
                             names, turns=3)
        assert games["kernel"] == games["numpy"]
        assert (games["numpy"][2]["explores"], games["numpy"][3]["explores"]) == (0, 1), ramp
    assert games["numpy"][3]["mana_available"] == 4  # three lands and Mind Stone
    games = both_engines(["Forest"] * 6, ["Forest", "Cenote Scout", "Llanowar Elves"], names,
                         turns=2)
    assert games["kernel"] == games["numpy"]
    assert games["numpy"][1]["explores"] == 1
    games = both_engines(["Island"] * 6, ["Breeding Pool", "Blue Test Card", "Llanowar Elves"],
                         names, turns=2)
    assert games["kernel"] == games["numpy"]
    assert games["numpy"][2]["mana_available"] == 3  # two lands and the Elves


def _bottom_one_of(hand_names, features, tables, catalog):
    """The card each engine bottoms first from ``hand_names``: (kernel, NumPy)."""
    from numba import njit

    from explore_sim.engine.kernel.game import bottom
    from explore_sim.engine.kernel.pack import pack
    from explore_sim.engine.kernel.records import as_tables
    from explore_sim.engine.mulligan import _bottom

    @njit
    def kernel_bottom(K, hand, bottoms, out):
        bottom(K, hand, bottoms, out)

    counts = np.zeros(len(features), dtype=np.int64)
    for name in hand_names:
        counts[features.id_of(catalog.get(name))] += 1
    K = as_tables(pack(tables, GameConfig()), (np.zeros(1, np.int64),) * 4)
    out = np.zeros(8, dtype=np.int64)
    kernel_bottom(K, counts.copy(), 1, out)
    _, numpy_out = _bottom(counts[None, :].astype(np.int16), 1, features,
                           features.is_land | features.is_land_like)
    return int(out[0]), int(numpy_out[0, 0])


def test_bottoming_and_discarding_keep_the_ramp_spell():
    """Of Cultivate and Kitchen Finks (both cost 3), bottoming after a mulligan and
    discarding at cleanup take the Finks, in both engines, though Cultivate comes first by
    name."""
    from explore_sim.cards import FeatureTable
    from explore_sim.engine.goldfish import deck_tables

    catalog = fixture_cards()
    names = ["Cultivate", "Forest", "Grizzly Bears", "Kitchen Finks"]
    features = FeatureTable.from_cards([catalog.get(name) for name in names])
    finks = features.id_of(catalog.get("Kitchen Finks"))
    hand = ["Forest"] * 3 + ["Cultivate", "Kitchen Finks", "Grizzly Bears", "Grizzly Bears"]
    assert _bottom_one_of(hand, features, deck_tables(features, GameConfig()), catalog) \
        == (finks, finks)
    # Turn 1 on the play: a Forest down, eight cards left, one discarded; one land in play and
    # one held are no surplus against a 3-drop, so the most expensive spell goes. Cultivate,
    # kept, is cast on turn 3 and puts a Forest onto the battlefield.
    games = both_engines(["Forest"] * 8, ["Forest", "Forest", "Cultivate", "Kitchen Finks"]
                         + ["Grizzly Bears"] * 5, ("hand_size", "lands_put", "cards_cast"),
                         turns=3)
    assert games["kernel"] == games["numpy"]
    assert games["numpy"][1]["hand_size"] == 7
    assert games["numpy"][3]["lands_put"] == 1
