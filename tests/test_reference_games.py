"""The vectorised goldfish agrees exactly, game by game and turn by turn, with the compiled
game (the scalar implementation), on opening hands the scalar reference deals and mulligans
itself from the same shuffles."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import reference
from conftest import DECKS

import explore_sim
from explore_sim.analysis.game_setup import game_mulligan
from explore_sim.engine.goldfish import GameConfig, GameState, Goldfish, deck_tables
from explore_sim.engine.kernel import kernel_problem, play_openings
from explore_sim.engine.mulligan import MulliganRule, deal_opening_hands
from explore_sim.engine.policies import ForgePolicy, KeepPolicy, MillPolicy
from explore_sim.engine.state import shuffled_libraries

pytestmark = pytest.mark.slow  # reference games: every shipped deck and policy, one game at a time

POLICIES = {"keep": (KeepPolicy(), reference.keep), "mill": (MillPolicy(), reference.mill),
            "forge": (ForgePolicy(), reference.forge())}
KITCHEN_SINK = explore_sim.deck_from_counts([
    ("Forest", 17), ("Island", 4), ("Restless Anchorage", 2),
    ("Jadelight Ranger", 3), ("Jadelight Spelunker", 2), ("Topography Tracker", 2),
    ("Twists and Turns", 2), ("Wildgrowth Walker", 2), ("Nicanzil, Current Conductor", 2),
    ("Path of Discovery", 1), ("Captain Kathryn Janeway", 1), ("Spyglass Siren", 2),
    ("Sentinel of the Nameless City", 2), ("Worldwalker Helm", 1), ("Enter the Unknown", 2),
    ("Over the Edge", 1), ("Explore", 1), ("Hakbal of the Surging Soul", 1),
    ("Deepfathom Echo", 1), ("Emperor's Vanguard", 1), ("Glowcap Lantern", 1),
    ("Subterranean Schooner", 1), ("Seeker of Sunlight", 1), ("Storm Fleet Negotiator", 1),
    ("Brazen Buccaneers", 1), ("Shadowed Caravel", 1), ("Merfolk Cave-Diver", 1),
    ("Lurking Chupacabra", 1), ("Get Lost", 1),
], name="kitchen sink")


class ReversingShuffle:
    """A stand-in for the search stream: sort keys that reverse every library, which the
    reference does too (shuffles themselves are tested for uniformity elsewhere)."""

    def random(self, shape):
        return np.broadcast_to(-np.arange(shape[1], dtype=float), shape)


def engine_hands(opening):
    """The engine's opening hands as ``(hand counts, library top first, mulligans)``."""
    width = opening.library.shape[1]
    return [({i: int(n) for i, n in enumerate(opening.hand[row]) if i and n},
             [int(opening.library[row, p % width])
              for p in range(opening.top[row], opening.end[row])],
             int(opening.mulligans[row]))
            for row in range(len(opening.hand))]


def deal_both(deck, trials, seed, rule=MulliganRule("london")):  # noqa: B008 - a frozen value
    """Deal with the engine and with the reference, from the same shuffles; both checked equal.

    Each attempt's shuffles come from its own generator, one library per game still to deal
    in game order, as ``deal_opening_hands`` documents for ``shuffle_rng``; the reference
    draws them the same way but decides who keeps by itself, so a different decision
    anywhere changes every later hand."""
    features = deck.features()
    ids = deck.card_ids()
    never_cast = deck_tables(features, GameConfig()).held_ids.tolist()
    opening = deal_opening_hands(ids, features, trials, rule,
                                 lambda a: np.random.default_rng([seed, a]), never_cast)

    def shuffles(attempt, games):
        libraries = shuffled_libraries(ids, games, np.random.default_rng([seed, attempt]))
        return [row[:len(ids)].tolist() for row in libraries]

    dealt = reference.deal_hands(trials, shuffles, reference.Cards.from_features(features),
                                 mulligan=rule.kind, free_first=rule.free_first)
    for row, (got, expected) in enumerate(zip(engine_hands(opening), dealt)):
        assert got == expected, (row, got, expected)
    return opening, dealt


def play_both(deck, policy_name, config, trials=300, seed=0):
    """Play the same deal in the vectorised engine and in the compiled game (the scalar one,
    one game at a time): every metric of every game on every turn must be equal."""
    policy, _ = POLICIES[policy_name]
    features = deck.features()
    assert config.opponent_land_fraction in (0.0, 1.0), "each engine draws parley's coin itself"
    rule = game_mulligan(MulliganRule("london"), config, features)
    opening, _ = deal_both(deck, trials, seed, rule)
    tables = deck_tables(features, config)
    problem = kernel_problem(tables, policy, None, rule, config)
    if problem is not None:  # the vectorised engine plays it alone (engine "auto" falls back)
        pytest.skip(f"the compiled game does not play {problem}")
    compiled = play_openings(tables, config, policy, opening, deck.card_ids())
    state = GameState.from_opening_hands(opening, features)  # plays on opening's arrays
    rngs = {n: np.random.default_rng([seed, 7, i])
            for i, n in enumerate(("policy", "removal", "parley"))}
    rngs["search"] = ReversingShuffle()
    engine = Goldfish(features, config, policy, None, rngs)
    for turn in range(1, config.turns + 1):
        engine.play_turn(state)
        vectorised = engine.turn_metrics(state)
        for name in engine.metric_names:
            differ = np.flatnonzero(np.asarray(vectorised[name]) != compiled[turn][name])
            assert not differ.size, f"turn {turn}, {name}: game {differ[0]} of {differ.size}"


def playable_by_both(counts, **options):
    """The deck of ``counts``; with Dryad Arbor as a Forest where the deck also holds a
    "whenever a creature enters, it explores" permanent, a combination the compiled game
    leaves to the vectorised engine (its scripted tests cover it)."""
    deck = explore_sim.deck_from_counts(counts, **options)
    tables = deck_tables(deck.features(), GameConfig())
    if tables.ids["enters_explorer"].size:
        counts = [("Forest" if name == "Dryad Arbor" else name, n) for name, n in counts]
        deck = explore_sim.deck_from_counts(counts, **options)
    return deck


@pytest.mark.parametrize("deck_path", sorted(DECKS.glob("*.txt")), ids=lambda p: p.stem)
@pytest.mark.parametrize("policy", ["keep", "mill", "forge"])
def test_shipped_decks_agree_with_the_reference(deck_path, policy):
    play_both(explore_sim.load_deck(deck_path), policy,
              GameConfig(turns=8, opponent_land_fraction=float(policy == "mill")))


@pytest.mark.parametrize("policy", ["keep", "forge"])
@pytest.mark.parametrize("config", [
    GameConfig(turns=8, opponent_land_fraction=1.0),
    GameConfig(turns=8, on_play=False, replacement_order="twists-first",
               opponent_land_fraction=0.0),
    GameConfig(turns=6, use_maps=False, opponent_land_fraction=1.0),
], ids=["play", "draw-twists-first", "no-maps"])
def test_every_modelled_card_agrees_with_the_reference(policy, config):
    play_both(KITCHEN_SINK, policy, config, trials=400, seed=3)


@pytest.mark.parametrize("seed", range(12))
def test_random_decks_agree_with_the_reference(seed):
    """Decks of random catalog cards, random counts: any combination of modelled cards."""
    from explore_sim.cards import Catalog

    rng = np.random.default_rng(seed)
    catalog = [card for card in Catalog.builtin() if not card.is_land]
    lands = ["Forest", "Island", "Restless Anchorage", "Dryad Arbor"]
    picks = rng.choice(len(catalog), size=10, replace=False)
    counts = [(catalog[i].name, int(rng.integers(1, 5))) for i in picks]
    counts += [(name, int(n)) for name, n in zip(lands, rng.integers(0, 8, size=4)) if n]
    counts.append(("Forest", 8))
    deck = playable_by_both(counts, name=f"random {seed}")
    config = GameConfig(turns=7, on_play=bool(seed % 2),
                        replacement_order=("tracker-first", "twists-first")[seed % 3 == 0],
                        opponent_land_fraction=float(seed % 2), use_maps=seed % 5 != 0)
    play_both(deck, ("keep", "mill", "forge")[seed % 3], config, trials=200, seed=seed)


MANA_CARDS = Path(__file__).parent / "fixtures" / "cards" / "mana_cards.toml"


def mana_sources():
    from explore_sim.cards.card_index import card_sources

    return card_sources([MANA_CARDS], use_index=False)


@pytest.mark.parametrize("seed", range(16))
def test_random_multicolour_decks_agree_with_the_reference(seed):
    """Two- and three-colour decks of random mana sources (duals, check, shock, fast, slow,
    pain, bounce and temple lands, Pathways, spell // land cards, fetches, mana creatures,
    rocks, Signets) and random spells, some with hybrid, Phyrexian, {C} and {S} pips."""
    from explore_sim.cards import Catalog
    from explore_sim.cards.card_files import load_card_file

    rng = np.random.default_rng(100 + seed)
    fixture = list(load_card_file(MANA_CARDS))
    spells = [c for c in Catalog.builtin() if not c.is_land] + [c for c in fixture if not c.is_land]
    lands = [c for c in fixture if c.is_land] + [Catalog.builtin().get(n) for n in (
        "Forest", "Swamp", "Island", "Snow-Covered Forest", "Restless Anchorage", "Dryad Arbor")]
    picks = rng.choice(len(spells), size=12, replace=False)
    counts = [(spells[i].name, int(rng.integers(1, 5))) for i in picks]
    land_picks = rng.choice(len(lands), size=7, replace=False)
    counts += [(lands[i].name, int(rng.integers(1, 5))) for i in land_picks]
    counts += [("Forest", 4), ("Swamp", 2), ("Island", 2)]
    deck = playable_by_both(counts, name=f"multicolour {seed}", catalog=mana_sources())
    castable = tuple(mana_sources().get(name) for name in ("Kitchen Finks", "Find // Finality"))
    config = GameConfig(turns=7, on_play=bool(seed % 2), opponent_land_fraction=float(seed % 2),
                        use_maps=seed % 5 != 0,
                        land_faces=("when-needed", "always", "never")[seed % 3],
                        castable=castable)
    play_both(deck, ("keep", "mill", "forge")[seed % 3], config, trials=150, seed=seed)
