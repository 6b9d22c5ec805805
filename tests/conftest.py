"""Shared helpers: hand-built libraries for scripted rule tests."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")  # no display in tests

import numpy as np
import pytest

from explore_sim.cards import EMPTY, Catalog, FeatureTable
from explore_sim.engine.state import ExploreState

TESTS = Path(__file__).parent
ROOT = TESTS.parent
DECKS = ROOT / "explore_sim" / "decks"
sys.path.insert(0, str(TESTS))

#: Cards of the scripted scenarios, in id order (id = index + 1).
SCRIPT_CARDS = (
    "Forest",
    "Grizzly Bears",
    "Cenote Scout",
    "Dryad Arbor",
    "Twists and Turns",
    "Jadelight Spelunker",
    "Queen's Agent",
)


@pytest.fixture(scope="session")
def features() -> FeatureTable:
    catalog = Catalog.builtin()
    return FeatureTable.from_cards(catalog.get(name) for name in SCRIPT_CARDS)


def card_id(name: str) -> int:
    return SCRIPT_CARDS.index(name) + 1


def library_of(*rows: list[str]) -> np.ndarray:
    """Libraries from card names, top card first, padded with EMPTY to equal width + 1."""
    width = max(len(row) for row in rows) + 1
    library = np.full((len(rows), width), EMPTY, dtype=np.int16)
    for i, row in enumerate(rows):
        library[i, : len(row)] = [card_id(name) for name in row]
    return library


def state_of(features: FeatureTable, *rows: list[str], **counts) -> ExploreState:
    """An ExploreState over hand-built libraries (all rows must have the same length)."""
    if len({len(row) for row in rows}) != 1:
        raise ValueError("scripted libraries must have equal length")
    return ExploreState.start(library_of(*rows), features.is_land, **counts)


#: Mana cards of every kind (lands, mana creatures, rocks, costs) for scripted tests.
MANA_CARDS = TESTS / "fixtures" / "cards" / "mana_cards.toml"


def wait_until(condition, what: str, deadline: float = 120.0) -> None:
    """Poll ``condition()`` until it is true. Past ``deadline`` seconds the test fails as a
    timed-out test does: a bound on how long it may wait, never a measurement (no test
    asserts how long something took; work is bounded by counts).

    Parameters
    ----------
    condition : callable
        Polled every 10 ms; its exceptions propagate.
    what : str
        What is waited for, for the failure.
    deadline : float
    """
    end = time.monotonic() + deadline
    while not condition():
        if time.monotonic() > end:
            pytest.fail(f"timed out after {deadline:g} s waiting for {what}")
        time.sleep(0.01)


def fixture_cards():
    """The built-in catalog plus the mana cards of ``fixtures/cards/mana_cards.toml``."""
    from explore_sim.cards.card_index import card_sources

    return card_sources([MANA_CARDS], use_index=False)


def scripted_game(library=(), hand=(), battlefield=(), *, extra=(), commanders=(), config=None,
                  policy="keep", scry_policy=None, seed=0, cards=()):
    """One goldfish game (trials=1) from a hand-built library (top first), hand and battlefield.

    Permanents on the battlefield are not summoning sick. ``extra`` names more cards for the
    feature table; ``commanders`` names the deck's commanders (a Commander game unless the
    config says otherwise; their colour identity is the commander's colours). ``cards`` are
    more :class:`Card` objects the names may refer to (made-up cards). Returns
    ``(game, state, ids)`` where ``ids[name]`` is a card's id.
    """
    from explore_sim.engine.goldfish import GameConfig, GameState, Goldfish
    from explore_sim.engine.mulligan import OpeningHands
    from explore_sim.engine.policies import as_policy

    catalog = fixture_cards()
    made_up = {card.name: card for card in cards}
    names = list(dict.fromkeys([*library, *hand, *battlefield, *extra]))
    cards = [made_up.get(name) or catalog.get(name) for name in names]
    identity = 0
    for name in commanders:
        identity |= catalog.get(name).identity
    features = FeatureTable.from_cards(cards, identity, [catalog.get(n) for n in commanders])
    names += [name for name in commanders if name not in names]  # ids after the deck's
    ids = {name: i + 1 for i, name in enumerate(names)}
    size = len(library)
    lib = np.full((1, size + 1), EMPTY, dtype=np.int16)
    lib[0, :size] = [ids[name] for name in library]
    hand_counts = np.zeros((1, len(features)), dtype=np.int16)
    for name in hand:
        hand_counts[0, ids[name]] += 1
    opening = OpeningHands(library=lib, top=np.zeros(1, np.int32),
                           end=np.full(1, size, np.int32), hand=hand_counts,
                           mulligans=np.zeros(1, np.int32))
    state = GameState.from_opening_hands(opening, features)
    for name in battlefield:
        state.battlefield[0, ids[name]] += 1
    rngs = {name: np.random.default_rng([seed, i]) for i, name in
            enumerate(("policy", "removal", "parley", "search"))}
    game = Goldfish(features, config or GameConfig(), as_policy(policy),
                    as_policy(scry_policy) if scry_policy else None, rngs)
    return game, state, ids


def both_engines(library, hand, names, *, commander=None, turns=4, on_play=True, policy="keep",
                 castable=()):
    """One game dealt by hand (library top first, the opening hand given, no mulligan),
    played by the compiled kernel and by the vectorised engine: per engine, per turn, the
    metrics ``names`` as ints, ``{"kernel": {turn: {name: value}}, "numpy": ...}``. Cards
    are read from :func:`fixture_cards`; ``castable`` names the cards of ``castable:CARD``."""
    from explore_sim.cards.decklist import Deck
    from explore_sim.engine.goldfish import GameConfig, GameState, Goldfish, deck_tables
    from explore_sim.engine.kernel import play_openings
    from explore_sim.engine.mulligan import OpeningHands
    from explore_sim.engine.policies import as_policy

    catalog = fixture_cards()
    every = [*library, *hand]
    main = tuple((catalog.get(name), every.count(name)) for name in dict.fromkeys(every))
    deck = Deck("scripted", main,
                commander=((catalog.get(commander), 1),) if commander else ())
    features = deck.features()
    lib = np.full((1, len(library) + 1), EMPTY, dtype=np.int16)
    lib[0, :len(library)] = [features.id_of(catalog.get(name)) for name in library]
    counts = np.zeros((1, len(features)), dtype=np.int16)
    for name in hand:
        counts[0, features.id_of(catalog.get(name))] += 1
    config = GameConfig(turns=turns, on_play=on_play,
                        castable=tuple(catalog.get(name) for name in castable))

    def opening():  # the NumPy engine plays on the opening's arrays: one each
        return OpeningHands(library=lib.copy(), top=np.zeros(1, np.int32),
                            end=np.full(1, len(library), np.int32), hand=counts.copy(),
                            mulligans=np.zeros(1, np.int32))

    kernel = play_openings(deck_tables(features, config), config, as_policy(policy), opening(),
                           deck.card_ids())
    rngs = {name: np.random.default_rng(0) for name in ("policy", "removal", "parley",
                                                        "search")}
    game = Goldfish(features, config, as_policy(policy), None, rngs)
    state = GameState.from_opening_hands(opening(), features)
    numpy_games = {}
    for turn in range(1, turns + 1):
        game.play_turn(state)
        numpy_games[turn] = game.turn_metrics(state)
    return {engine: {turn: {name: int(games[turn][name][0]) for name in names}
                     for turn in range(1, turns + 1)}
            for engine, games in (("kernel", kernel), ("numpy", numpy_games))}


@pytest.fixture(autouse=True)
def isolated_card_dir(tmp_path_factory, monkeypatch):
    """No test sees a card index the machine's user imported."""
    monkeypatch.setenv("EXPLORE_SIM_CARDS_DIR", str(tmp_path_factory.mktemp("cards")))


def game_compile_event():
    """numba's event for a compilation of the game kernel's ``play_chunk`` (what numba sends
    when its cache holds no machine code for it), open while the ``with`` block runs."""
    from numba.core import event

    from explore_sim.engine.kernel import play_chunk

    return event.trigger_event("numba:compile", data={"dispatcher": play_chunk, "args": (),
                                                      "return_type": None})
