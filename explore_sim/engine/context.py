"""What every step of a goldfish game is played with: :class:`Play`.

A :class:`Play` holds the deck's frozen tables, the game's options, the policies, the random
streams and the ability registry's handlers by step. Ability handlers take it as their
first argument (``handler(play, state, rows, ...)``) and act through the functions of
:mod:`explore_sim.engine.zones`, :mod:`explore_sim.engine.casting` and the other step
modules, so no handler imports the turn loop and the turn loop imports no handler but
through the registry (:mod:`explore_sim.engine.abilities`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .config import GameConfig
from .paying import ManaTables
from .policies import Policy
from .tables import DeckTables

__all__ = ["Play"]


@dataclasses.dataclass(eq=False)
class Play:
    """One deck's games with one configuration, policies and random streams.

    Attributes
    ----------
    tables : DeckTables
    config : GameConfig
    policy : callable
        Keep-or-mill policy for explore (E2).
    scry_policy : callable
        Scry 1 (Twists and Turns, temples): True puts a nonland card on the bottom.
    rngs : dict of str to Generator
        ``"policy"``, ``"removal"``, ``"parley"`` and ``"search"`` streams.
    steps : mapping of str to tuple of callable
        The ability registry's handlers of each step of the turn, in order.
    """

    tables: DeckTables
    config: GameConfig
    policy: Policy
    scry_policy: Policy
    rngs: dict[str, np.random.Generator]
    steps: Mapping[str, tuple[Callable[..., Any], ...]]

    @property
    def mana(self) -> ManaTables:
        """The deck's mana model (:attr:`DeckTables.mana`)."""
        return self.tables.mana

    def run(self, step: str, *args: Any) -> None:
        """Call every handler of ``step`` in registry order with ``(self, *args)``."""
        for handler in self.steps.get(step, ()):
            handler(self, *args)
