"""Positions for :func:`~explore_sim.analysis.advise.advise`: the moment an explore has
revealed a nonland card, checked, with the library behind the revealed card and the game
state the goldfish engine plays on from.

What a position assumes (recorded in the advice's metadata):

- the explore happens in the first main phase (``phase="main1"``, the default: an explorer
  cast or a Map used then) or the second (``"main2"``); the turn goes on from there;
- every permanent listed was there before this turn (no summoning sickness) except the
  explorer when it was cast this turn (``explorer_cast=True``, the default): its cost is
  then paid from your sources the engine's way (the least flexible first);
- ``mana_used`` more mana was paid from your sources this turn (a Map's {1}, a spell cast
  before the explore), as generic mana, the engine's way;
- ``maps`` Map tokens you control (a token is no card of the deck, so it is never named in a
  zone); the game uses them as it does its own (M1-M6: {1}, a creature to target, sorcery
  speed);
- the turn's land has been played when you control at least ``turn`` lands, else not yet;
- nothing else is tapped; event metrics (mana spent, counters, ...) count from the position
  on; a commander not on the battlefield is in the command zone, one on the battlefield was
  cast once.

Positions that cannot happen are refused: a card not in the deck, more copies than the deck
holds, a revealed land (it goes to your hand: nothing to choose), a commander in hand, more
mana paid than the sources make; so are positions the engine cannot take up mid-explore
(Topography Tracker or Twists and Turns on the battlefield replace explores that have begun).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from ..cards import Card, Catalog, FeatureTable
from ..cards.card_index import card_sources
from ..cards.decklist import Deck
from ..cards.name_lists import card_counts
from ..engine.goldfish import GameConfig, GameState, Goldfish
from ..engine.options import as_flag
from ..engine.policies import Policy
from ..engine.state import shuffled_libraries
from ..errors import DeckError, OptionError, OptionWarning, clip

__all__ = ["PHASES", "Position", "check_paid", "position"]

#: Where in the turn the explore happens.
PHASES = ("main1", "main2")
_MAX_EXPLORES_LEFT = 20
_MAX_MANA_USED = 99
_MAX_MAPS = 20
#: What a player may write for a Map token among their cards.
_MAP_NAMES = frozenset({"map", "maps", "map token", "map tokens"})


@dataclasses.dataclass(frozen=True, eq=False)
class Position:
    """A checked position: an explore has just revealed a nonland card.

    Attributes
    ----------
    deck : Deck
    turn : int
    on_play : bool
    hand, battlefield, graveyard : dict of Card to int
        Known cards (the explorer is on the battlefield).
    explorer, revealed : Card
    explores_left : int
        Explores left in this sequence, this one included.
    explorer_cast : bool
        The explorer was cast this turn (its cost paid, summoning sick).
    mana_used : int
        Mana paid from your sources this turn besides the explorer's cost (a Map's {1}, a
        spell cast before the explore), as generic mana.
    maps : int
        Map tokens you control.
    phase : {"main1", "main2"}
    library : ndarray, shape (size,), int16
        The card ids of the library under the revealed card (in deck order, before shuffling).
    features : FeatureTable
        The deck's feature table (commanders after the main deck's cards).
    """

    deck: Deck
    turn: int
    on_play: bool
    hand: dict[Card, int]
    battlefield: dict[Card, int]
    graveyard: dict[Card, int]
    explorer: Card
    revealed: Card
    explores_left: int
    explorer_cast: bool
    mana_used: int
    maps: int
    phase: str
    library: np.ndarray
    features: FeatureTable

    def _vector(self, counts: Mapping[Card, int]) -> np.ndarray:
        features = self.features
        vector = np.zeros(len(features), dtype=np.int16)
        for card, n in counts.items():
            vector[features.id_of(card)] += n
        return vector

    def libraries(self, trials: int, rng: np.random.Generator) -> np.ndarray:
        """One library per trial: the revealed card on top, the rest shuffled.

        Parameters
        ----------
        trials : int
        rng : numpy.random.Generator

        Returns
        -------
        ndarray, shape (trials, size + 2)
            Card ids, top first; the last column is ``EMPTY`` padding.
        """
        rest = shuffled_libraries(self.library, trials, rng)
        library = np.empty((trials, rest.shape[1] + 1), dtype=np.int16)
        library[:, 0] = self.features.id_of(self.revealed)
        library[:, 1:] = rest
        return library

    def start(self, game: Goldfish, library: np.ndarray) -> GameState:
        """The game at the position, in every trial, before the keep-or-mill choice.

        Parameters
        ----------
        game : Goldfish
            The engine the branch is played with (its mana rules pay for the explorer).
        library : ndarray, shape (trials, size + 2)
            From :meth:`libraries` (not modified).

        Returns
        -------
        GameState
        """
        features = self.features
        explorer = features.id_of(self.explorer)
        commanders = features.commander_ids if game.is_commander else np.zeros(0, np.intp)
        battlefield = self._vector(self.battlefield)
        sick = np.zeros_like(battlefield)
        if self.explorer_cast:
            sick[explorer] = 1
        command = np.zeros_like(battlefield)
        casts = np.zeros_like(battlefield)
        for kind in commanders.tolist():
            on_battlefield = battlefield[kind] > 0
            command[kind] = 0 if on_battlefield else 1
            casts[kind] = 1 if on_battlefield else 0
        lands = int(battlefield[features.is_land].sum())
        state = GameState.from_position(
            library.copy(), features, turn=self.turn, hand=self._vector(self.hand),
            battlefield=battlefield, sick=sick, command=command, command_casts=casts,
            graveyard=sum(self.graveyard.values()),
            land_drops=0 if lands >= self.turn else 1,  # one land a turn (CR 305.2)
        )
        game.attach(state)
        state.units[:] = game.mana.expected_units(state)
        rows = np.arange(state.trials)
        if self.explorer_cast:  # the explorer's cost, paid the engine's way
            game.pay(state, rows, game.kind_modes[explorer])
            if self.explorer.explores_x:  # X: the explores left (the least it can have been)
                for _ in range(self.explores_left):
                    game.pay(state, rows, [game.mana.cost_mode["{1}"]])
        for _ in range(self.mana_used):  # a Map's {1}, a spell before: generic mana
            game.pay(state, rows, [game.mana.cost_mode["{1}"]])
        state.maps[:] = self.maps  # Map tokens you control (M1)
        for total in state.totals.values():
            total[:] = 0  # events count from the position on
        return state

    def describe(self) -> dict[str, Any]:
        """The position in words, for result metadata.

        Returns
        -------
        dict
            ``turn, on_play, phase, hand, battlefield, graveyard, explorer, revealed,
            explores_left, explorer_cast, mana_used, library`` (cards left, the revealed one
            included).
        """
        def names(counts: Mapping[Card, int]) -> list[str]:
            return [f"{n} {card.name}" if n > 1 else card.name for card, n in counts.items()]

        return {"turn": self.turn, "on_play": self.on_play, "phase": self.phase,
                "hand": names(self.hand), "battlefield": names(self.battlefield),
                "graveyard": names(self.graveyard), "explorer": self.explorer.name,
                "revealed": self.revealed.name, "explores_left": self.explores_left,
                "explorer_cast": self.explorer_cast, "mana_used": self.mana_used,
                "maps": self.maps, "library": int(self.library.size) + 1}


def position(
    deck: Deck,
    *,
    turn: int,
    revealed: str,
    hand: str | Iterable[str] | Mapping[str, int] = (),
    battlefield: str | Iterable[str] | Mapping[str, int] = (),
    graveyard: str | Iterable[str] | Mapping[str, int] = (),
    explorer: str | None = None,
    explores_left: int = 1,
    explorer_cast: bool = True,
    mana_used: int = 0,
    maps: int = 0,
    on_play: bool = True,
    phase: str = "main1",
) -> Position:
    """Check a position and work out the library behind the revealed card.

    Parameters
    ----------
    deck : Deck
    turn : int
        The turn being played (1-50).
    revealed : str
        The nonland card the explore revealed.
    hand, battlefield, graveyard : str, iterable of str or dict
        Known cards: ``"Forest, 2 Swamp, Jadelight Ranger"`` (separated by commas or
        line breaks; a name with commas, ``Sheoldred, the Apocalypse``, is read whole, see
        :func:`~explore_sim.cards.name_lists.split_card_names`), a list of names or
        ``{name: copies}``. A commander may be on the battlefield.
    explorer : str, optional
        The exploring permanent (added to the battlefield if not listed there). Default:
        the only card on the battlefield with an explore ability.
    explores_left : int
        Explores left in this sequence, this one included (1-20).
    explorer_cast : bool
        The explorer was cast this turn: its cost is paid and it is summoning sick.
    mana_used : int
        Mana paid from your sources this turn besides the explorer's cost: a Map's {1}
        (the explorer in play then, ``explorer_cast=False``), a spell cast before the
        explore. It is paid as generic mana, the engine's way, and stays tapped.
    maps : int
        Map tokens you control (0-20), untapped: the game goes on to use them (a Map used
        for this explore is gone: do not count it).
    on_play : bool
        On the play (no draw on turn 1).
    phase : {"main1", "main2"}
        Where in the turn the explore happens.

    Returns
    -------
    Position

    Raises
    ------
    OptionError
        A bad turn, phase or count, a revealed land, a position the engine cannot take up.
    DeckError
        A card not in the deck, more copies than the deck holds, a commander in hand or in
        the graveyard.
    """
    turn = _whole("turn", turn, 1, 50)
    explores_left = _whole("explores_left", explores_left, 1, _MAX_EXPLORES_LEFT)
    mana_used = _whole("mana_used", mana_used, 0, _MAX_MANA_USED)
    maps = _whole("maps", maps, 0, _MAX_MAPS)
    on_play, explorer_cast = as_flag("on_play", on_play), as_flag("explorer_cast", explorer_cast)
    if phase not in PHASES:
        raise OptionError(f"phase must be one of {', '.join(PHASES)}, got {clip(repr(phase))}")
    commanders = [card for card, _ in deck.commander]
    catalog = Catalog([*deck.cards, *(c for c in commanders if c not in deck.cards)])

    def card_of(name: str, label: str) -> Card:
        card = catalog.find(name)
        if card is None:
            _not_a_token(name, label)
            raise DeckError(f"{label}: {clip(name)!r} is not in the deck {clip(deck.name)}"
                            f"{catalog.suggestion_text(name)}")
        return card

    zones = {label: _zone(cards, label, catalog, card_of)
             for label, cards in (("hand", hand), ("battlefield", battlefield),
                                  ("graveyard", graveyard))}
    revealed_card = _revealed(revealed, commanders, card_of)
    explorer_card = _explorer(zones["battlefield"], explorer, card_of)
    if not explorer_card.is_permanent:
        raise OptionError(f"explorer: {explorer_card.name} is not a permanent; name the "
                          "creature that explores")
    _check_explores_left(explorer_card, explores_left, explorer_cast)
    zones["battlefield"].setdefault(explorer_card, 1)
    _check_zones(zones, commanders)
    remaining = _library(deck, zones, commanders, revealed_card)
    _tell_many_lands(zones["battlefield"], turn)
    ids = [i + 1 for i, card in enumerate(deck.cards) for _ in range(remaining[card])]
    return Position(
        deck=deck, turn=turn, on_play=on_play, hand=zones["hand"],
        battlefield=zones["battlefield"], graveyard=zones["graveyard"], explorer=explorer_card,
        revealed=revealed_card, explores_left=explores_left, explorer_cast=explorer_cast,
        mana_used=mana_used, maps=maps, phase=phase, library=np.array(ids, dtype=np.int16),
        features=deck.features(),
    )


def _tell_many_lands(battlefield: dict[Card, int], turn: int) -> None:
    """An OptionWarning where the battlefield holds more lands than one land drop a turn
    gives (a typo, or a ramp spell or an extra land drop): the position is taken as given."""
    lands = sum(count for card, count in battlefield.items() if card.is_land)
    if lands > turn:
        warnings.warn(f"battlefield: {lands} lands on turn {turn}, more than one land drop a "
                      "turn gives; the position is taken as given (a ramp spell or an extra "
                      "land drop can do it)", OptionWarning, stacklevel=4)


def _not_a_token(name: str, label: str) -> None:
    """Refuse a Map token named among the cards with a pointer to ``maps``."""
    if name.strip().lower() in _MAP_NAMES:
        raise OptionError(f"{label}: a Map is a token, not a card of the deck: give the Map "
                          "tokens you control as maps=N (--maps N)")


def _revealed(revealed: str, commanders: list[Card],
              card_of: Callable[[str, str], Card]) -> Card:
    """The card revealed: a nonland card of the library (never a commander)."""
    if not isinstance(revealed, str) or not revealed.strip():
        raise OptionError("revealed: name the card the explore revealed")
    card = card_of(revealed.strip(), "revealed")
    if card.is_land:
        raise OptionError(f"revealed: {card.name} is a land: explore puts it into your hand, "
                          "there is nothing to choose")
    if card in commanders:
        raise DeckError(f"revealed: {card.name} is the commander; it is never in the library")
    return card


def _zone(cards: str | Iterable[str] | Mapping[str, int], label: str, catalog: Catalog,
          card_of: Callable[[str, str], Card]) -> dict[Card, int]:
    """The copies of each card named in one zone (``label``: hand, battlefield, graveyard)."""
    zone: dict[Card, int] = {}
    for name, count in card_counts(cards, label, catalog, card_sources):
        card = card_of(name, label)
        zone[card] = zone.get(card, 0) + int(count)
    return zone


def _check_explores_left(explorer: Card, explores_left: int, cast: bool) -> None:
    """Refuse more explores left than an explorer cast this turn makes as it enters (Cenote
    Scout: one; Jadelight Ranger: two; an X explorer: any)."""
    made = explorer.explores
    if cast and explorer.explores_when == "enter" and not explorer.explores_x and \
            0 < made < explores_left:
        raise OptionError(f"explores_left: {explorer.name} explores {made} time"
                          f"{'s' if made > 1 else ''} as it enters, so {explores_left} explores "
                          "cannot be left (--explorer-in-play if something else made it explore)")


def _check_zones(zones: dict[str, dict[Card, int]], commanders: list[Card]) -> None:
    """Refuse a commander in hand or in the graveyard (or twice on the battlefield), and
    replacements of an explore that has begun."""
    for card in commanders:
        for label in ("hand", "graveyard"):
            if zones[label].get(card):
                raise DeckError(f"{label}: {card.name} is the commander; it is in the command "
                                "zone or on the battlefield")
        if zones["battlefield"].get(card, 0) > 1:
            raise DeckError(f"battlefield: one {card.name} at most (it is the commander)")
    blocking = [card.name for card in zones["battlefield"]
                if card.explore_replacement in {"tracker", "twists"}]
    if blocking:
        raise OptionError(f"battlefield: {', '.join(blocking)} would replace an explore that "
                          "has already begun; advise cannot take up such a position")


def _library(deck: Deck, zones: dict[str, dict[Card, int]], commanders: list[Card],
             revealed: Card) -> dict[Card, int]:
    """The copies of each card left in the library (the revealed one is on top, not in it)."""
    remaining = dict(deck.main)
    used: dict[Card, int] = {}
    for zone in zones.values():
        for card, count in zone.items():
            if card not in commanders:
                used[card] = used.get(card, 0) + count
    used[revealed] = used.get(revealed, 0) + 1
    for card, count in used.items():
        if count > remaining.get(card, 0):
            raise DeckError(f"{card.name}: {count} cop{'y' if count == 1 else 'ies'} in hand, "
                            f"on the battlefield, in the graveyard and revealed, but the deck "
                            f"has {remaining.get(card, 0)}")
        remaining[card] -= count
    return remaining


def _whole(label: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or \
            not low <= value <= high:
        raise OptionError(f"{label} must be a whole number from {low} to {high}, got "
                          f"{clip(repr(value))}")
    return int(value)


def _explorer(battlefield: dict[Card, int], name: str | None,
              card_of: Callable[[str, str], Card]) -> Card:
    if name is not None:
        if not isinstance(name, str) or not name.strip():
            raise OptionError("explorer: expected a card name")
        return card_of(name.strip(), "explorer")
    explorers = [card for card in battlefield if card.explores > 0 or card.explores_x]
    if len(explorers) != 1:
        listed = ", ".join(card.name for card in explorers) or "none"
        raise OptionError(f"explorer: name the card that explores (--explorer NAME); explore "
                          f"cards on the battlefield: {listed}")
    return explorers[0]


def check_paid(pos: Position, config: GameConfig, policy: Policy) -> None:
    """Refuse a position whose sources cannot have paid what was paid this turn: the cost of
    an explorer cast this turn (a commander's only where its tax is known: never here) and
    ``mana_used``."""
    if not pos.explorer_cast and not pos.mana_used:
        return
    game = Goldfish(pos.features, config, policy, None, {})
    state = GameState.from_position(
        pos.libraries(1, np.random.default_rng(0)), pos.features, turn=pos.turn,
        hand=pos._vector(pos.hand), battlefield=pos._vector(pos.battlefield))
    state.units[:] = game.mana.expected_units(state)
    unit_sets = game.mana.unit_sets(state, np.arange(1))
    total = int(unit_sets[-1][0].sum())  # the mana the sources make
    if pos.explorer_cast and pos.explorer not in dict(pos.deck.commander):
        explorer = np.array([pos.features.id_of(pos.explorer)])
        x = pos.explores_left if pos.explorer.explores_x else 0  # X: at least the explores left
        cost = f"{pos.explorer.mana_cost} with X = {x}" if x else pos.explorer.mana_cost
        more = f" and {pos.mana_used} mana more" if pos.mana_used else ""
        if (not game.castable_card(explorer, unit_sets)[0]
                or total < (pos.explorer.mana_value or 0) + x + pos.mana_used):
            raise OptionError(
                f"battlefield: your sources cannot have paid {pos.explorer.name}'s "
                f"{cost}{more} this turn; list the lands that cast it, or say it was "
                "already in play (explorer_cast=False, --explorer-in-play)")
    elif total < pos.mana_used:
        raise OptionError(f"mana_used: your sources make {total} mana, less than the "
                          f"{pos.mana_used} used this turn")
