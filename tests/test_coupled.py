"""A valuation's vanilla deck copies the explorer deck's games that never dealt the card.

The vanilla deck is the explorer deck with the card swapped in place for its stand-in and is
shuffled from the same order, so the two play the same game until a copy of the card (or of
the stand-in) is dealt. The compiled kernel watches the explorer deck's games for the card
and the vanilla deck copies the games that never dealt it instead of playing them: these
tests play every game of every shipped deck's vanilla decks as well and compare.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import explore_sim
from explore_sim.analysis.game_setup import game_mulligan
from explore_sim.analysis.games import play_games
from explore_sim.analysis.stand_ins import stand_in_plan
from explore_sim.analysis.value import chosen_cards
from explore_sim.analysis.value_games import _watch, watched_bits
from explore_sim.engine.config import GameConfig
from explore_sim.engine.coupled import SameGames, Watch
from explore_sim.engine.mulligan import as_mulligan_rule
from explore_sim.engine.policies import as_policy

DECKS = Path(explore_sim.__file__).parent / "decks"
SHIPPED = sorted(path.name for path in DECKS.glob("*.txt"))


def _plans(deck, cards=None):
    chosen = chosen_cards(deck, cards)
    return [stand_in_plan(deck, [card], 4, order=chosen) for card in chosen]


def _play(deck, config, ids, trials=1000, seed=11, **watching):
    rule = game_mulligan(as_mulligan_rule("london"), config, deck.features())
    return play_games(deck, config, as_policy("forge"), rule, trials,
                      np.random.SeedSequence(seed), card_ids=ids, engine="kernel", chosen=True,
                      **watching)


def _equal(a, b):
    return a.keys() == b.keys() and all(
        a[t].keys() == b[t].keys() and all(np.array_equal(a[t][m], b[t][m]) for m in a[t])
        for t in a)


@pytest.mark.parametrize("name", SHIPPED)
def test_the_vanilla_deck_copies_exactly_the_games_that_never_dealt_the_card(name):
    deck = explore_sim.load_deck(DECKS / name)
    plans = _plans(deck)
    config = GameConfig(turns=6)
    bits = watched_bits(plans, config, "kernel")
    watch = _watch(plans, bits, 1000)
    explorer = _play(plans[0].decks[0], config, plans[0].card_ids[0], watch=watch)
    assert _equal(explorer, _play(plans[0].decks[0], config, plans[0].card_ids[0]))
    for plan, bit in zip(plans, bits):
        if not bit:  # a commander: seen from the first turn
            assert plan.copies == 0
            continue
        same = (watch.seen & bit) == 0
        assert 0 < same.sum() < len(same), plan.cards[0].name  # some copied, some played
        played = _play(plan.decks[1], config, plan.card_ids[1])
        copied = _play(plan.decks[1], config, plan.card_ids[1],
                       same_as=SameGames(explorer, same))
        assert _equal(copied, played), plan.cards[0].name
        # and the games copied are the explorer deck's
        for turn in played:
            for metric in played[turn]:
                assert np.array_equal(played[turn][metric][same], explorer[turn][metric][same])


def test_a_game_sees_a_watched_card_when_it_deals_one():
    """Every opening hand deals seven cards: watching every card, every game sees one; a
    game's bits are those of the cards it dealt, each bit its own card's."""
    deck = explore_sim.load_deck(DECKS / "lci_merfolk_explore.txt")
    ids = {card: i + 1 for i, card in enumerate(deck.cards)}
    lands = {ids[card] for card in deck.cards if card.is_land}
    config = GameConfig(turns=1)
    everything = Watch({kind: 1 for kind in ids.values()}, np.zeros(500, np.int32))
    _play(deck, config, deck.card_ids(), 500, watch=everything)
    assert (everything.seen == 1).all()
    by_kind = Watch({kind: 1 if kind in lands else 2 for kind in ids.values()},
                    np.zeros(500, np.int32))
    result = _play(deck, config, deck.card_ids(), 500, watch=by_kind)
    opening = result[0]
    assert ((by_kind.seen & 1) != 0)[opening["opening_lands"] > 0].all()
    assert ((by_kind.seen & 2) != 0)[opening["hand_size"] > opening["opening_lands"]].all()
    assert (by_kind.seen & ~3 == 0).all()


def test_copied_games_need_the_same_starting_order_and_ids():
    deck = explore_sim.load_deck(DECKS / "lci_merfolk_explore.txt")
    plans = _plans(deck, ["Cenote Scout", "Deepfathom Echo"])
    config = GameConfig(turns=6)
    assert watched_bits(plans, config, "kernel") == [1, 2]
    assert watched_bits(plans, config, "numpy") == [0, 0]
    scout = next(card for card in deck.cards if card.name == "Cenote Scout")
    assert watched_bits(plans, dataclasses.replace(config, castable=(scout,)), "kernel") == [0, 0]
    shuffled = dataclasses.replace(plans[1], card_ids=[plans[1].card_ids[0],
                                                       plans[1].card_ids[1][::-1]])
    assert watched_bits([plans[0], shuffled], config, "kernel") == [1, 0]
    other = dataclasses.replace(plans[1].stand_ins[0], name="Zzz (vanilla)")
    renamed = dataclasses.replace(plans[1], stand_ins=(other,))
    assert watched_bits([plans[0], renamed], config, "kernel") == [1, 0]


@pytest.mark.parametrize("name, with_commander", [("lci_merfolk_explore.txt", False),
                                                   ("hakbal_merfolk_commander.txt", False),
                                                   ("hakbal_merfolk_commander.txt", True)])
def test_a_plan_of_several_cards_copies_only_games_that_dealt_none(name, with_commander):
    """A plan of several cards (``lands`` values the explore cards together) copies the
    games that dealt none of them; one that swaps a commander, seen from the first turn,
    copies none."""
    deck = explore_sim.load_deck(DECKS / name)
    cards = [card for card in chosen_cards(deck, None) if card in deck.cards]
    commander = [card for card in chosen_cards(deck, None) if card not in deck.cards]
    assert bool(commander) == deck.name.startswith("Hakbal")
    chosen = cards[:3] + (commander if with_commander else [])
    plan = stand_in_plan(deck, chosen, 4)
    config = GameConfig(turns=6)
    (bit,) = watched_bits([plan], config, "kernel")
    assert bit == (0 if with_commander else 1)
    if not bit:
        return
    watch = _watch([plan], [bit], 1000)
    explorer = _play(plan.decks[0], config, plan.card_ids[0], watch=watch)
    same = (watch.seen & bit) == 0
    assert 0 < same.sum() < len(same)
    played = _play(plan.decks[1], config, plan.card_ids[1])
    assert _equal(_play(plan.decks[1], config, plan.card_ids[1],
                        same_as=SameGames(explorer, same)), played)


def test_the_vectorised_engine_refuses_to_watch():
    deck = explore_sim.load_deck(DECKS / "lci_merfolk_explore.txt")
    config = GameConfig(turns=2)
    rule = as_mulligan_rule("london")
    with pytest.raises(ValueError, match="only the compiled kernel"):
        play_games(deck, config, as_policy("forge"), rule, 10, np.random.SeedSequence(1),
                   engine="numpy", chosen=True, watch=Watch({1: 1}, np.zeros(10, np.int32)))


def test_same_games_must_be_one_per_game():
    with pytest.raises(ValueError, match="same games for"):
        SameGames({}, np.zeros(3, bool)).skip(4)
