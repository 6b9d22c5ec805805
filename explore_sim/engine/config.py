"""The options of a goldfish game (keyword-only, hashable, printable)."""

from __future__ import annotations

import dataclasses

import numpy as np

from ..cards import Card, FeatureTable
from ..errors import OptionError
from .metrics import CASTABLE_LANDS_PREFIX, CASTABLE_PREFIX, MAIN_LANDS, TURN_METRICS
from .options import GAMES, LAND_FACES, config_options

__all__ = ["GameConfig", "GAMES", "LAND_FACES", "MAX_ACTIONS", "is_commander_game",
           "starting_life", "STARTING_LIFE", "COMMANDER_LIFE"]

#: The opponent's starting life in a normal game (CR 119.1) and in a Commander game (CR 903.7).
STARTING_LIFE, COMMANDER_LIFE = 20, 40

#: Safety bound on actions per main phase; every action uses a card, mana or a Map.
MAX_ACTIONS = 60


@dataclasses.dataclass(frozen=True)
class GameConfig:
    """Options of a goldfish game (keyword-only, hashable, printable).

    Each field is an entry of the option schema (:data:`~explore_sim.engine.options.GAME_OPTIONS`),
    whose checks it runs.

    Parameters
    ----------
    turns : int
        Turns to play.
    on_play : bool
        True: no draw on turn 1.
    removal : float
        Probability that an explorer leaves the battlefield in response to its explore
        (E3: no counter, still a trigger; a targeted explore then does nothing, E9).
    replacement_order : {"tracker-first", "twists-first"}
        Which replacement applies first when Topography Tracker and Twists and Turns both
        apply (tracker-first: scry, explore, scry, explore).
    opponent_land_fraction : float
        Chance that the opponent's revealed card is a land in parley (Storm Fleet
        Negotiator); 0.4 is 24 lands in 60 cards.
    use_maps : bool
        Activate every Map token possible with the mana left in the second main phase.
    cast_order : tuple of str
        Card names cast first, in this order, before the default priority.
    hand_limit : int
        Maximum hand size at cleanup.
    land_faces : {"when-needed", "always", "never"}
        When a spell // land modal double-faced card is played as its land face: only when
        no land card can be played (default), like any land, or never.
    castable : tuple of Card
        Cards (in the deck or not) whose ``castable:NAME`` metric is taken each turn: 1
        where the sources in play after the land drop, before any spell, could pay the cost.
    castable_lands : bool
        Also take ``main_lands`` (the lands on the battlefield at that moment) and, per card
        of :attr:`castable`, ``castable_lands:NAME`` (``main_lands`` where ``castable:NAME``
        is 1, else 0): what the ``curve`` answer needs (Python only).
    life : int
        The goldfish opponent's starting life, against which ``opponent_dead`` compares the
        combat damage dealt; 0: :data:`STARTING_LIFE`, or :data:`COMMANDER_LIFE` in a
        Commander game (:func:`starting_life`).
    record : tuple of str
        The per-turn metrics the game records (empty: every one of :attr:`metric_names`); an
        analysis that reports a few metrics records only those.
    game : {"auto", "normal", "commander"}
        A Commander game (CR 903): the commanders start in the command zone and are cast from
        there with {2} of tax per earlier cast, a removed commander returns there, and nobody
        skips the first draw. ``auto``: Commander when the deck has a commander.
    """

    turns: int = 6
    on_play: bool = True
    removal: float = 0.0
    replacement_order: str = "tracker-first"
    opponent_land_fraction: float = 0.4
    life: int = 0
    use_maps: bool = True
    cast_order: tuple[str, ...] = ()
    hand_limit: int = 7
    land_faces: str = "when-needed"
    castable: tuple[Card, ...] = ()
    castable_lands: bool = False
    game: str = "auto"
    record: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for entry in config_options():  # the checks of the option schema
            value = getattr(self, entry.name)
            entry.check(value)
            if isinstance(value, (np.integer, np.bool_)):  # plain values, as JSON holds them
                object.__setattr__(self, entry.name, value.item())
        if self.record:
            known = self._all_metric_names()
            unknown = [name for name in self.record if name not in known]
            if unknown:
                raise OptionError(f"record: unknown metric(s) {', '.join(unknown[:5])}")

    @property
    def metric_names(self) -> dict[str, bool]:
        """Every per-turn metric a game with this configuration records (0/1 indicators
        True): :data:`TURN_METRICS` and one ``castable:NAME`` per card of :attr:`castable`;
        with :attr:`castable_lands`, ``main_lands`` and one ``castable_lands:NAME`` per card;
        only those of :attr:`record` when it names some."""
        names = self._all_metric_names()
        if self.record:
            return {name: names[name] for name in names if name in self.record}
        return names

    def _all_metric_names(self) -> dict[str, bool]:
        names = dict(TURN_METRICS)
        names.update({CASTABLE_PREFIX + card.name: True for card in self.castable})
        if self.castable_lands:
            names[MAIN_LANDS] = False
            names.update({CASTABLE_LANDS_PREFIX + card.name: False for card in self.castable})
        return names


def is_commander_game(config: GameConfig, features: FeatureTable) -> bool:
    """Whether a game of these cards with this configuration is a Commander game."""
    return config.game == "commander" or (config.game == "auto" and features.commander_ids.size > 0)


def starting_life(config: GameConfig, commander: bool) -> int:
    """The goldfish opponent's starting life: ``config.life`` when set, else 20 (CR 119.1),
    or 40 in a Commander game (CR 903.7).

    Parameters
    ----------
    config : GameConfig
    commander : bool
        The game is a Commander game (:func:`is_commander_game`).

    Returns
    -------
    int
    """
    if config.life:
        return int(config.life)
    return COMMANDER_LIFE if commander else STARTING_LIFE
