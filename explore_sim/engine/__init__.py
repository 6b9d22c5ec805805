"""One game, batched over trials: the arrays and the rules that move them.

- :mod:`.state`: the batched library (card ids plus a top pointer) and vectorised shuffles;
- :mod:`.rules`: the pure explore rule (E1-E9) and drawing;
- :mod:`.policies`: keep-or-mill policies, the :class:`Observation` they see, expressions;
- :mod:`.mulligan`: opening hands and mulligans;
- :mod:`.config`: the options of a goldfish game;
- :mod:`.tables`: the frozen per-deck tables every game reads (:class:`DeckTables`);
- :mod:`.paying`: the mana model: the exact test of castability and paying;
- :mod:`.context`: what every step is played with (tables, options, policies, streams);
- :mod:`.zones`, :mod:`.castability`, :mod:`.casting`, :mod:`.lands`,
  :mod:`.explore_effects`: the steps of a game (cards moving, paying, casting, land drops,
  explore instructions with their replacements R1-R3);
- :mod:`.abilities`: the ability registry, one entry per modelled ability, with the
  handlers of each step of the turn;
- :mod:`.goldfish`: the goldfish turn loop (untap, draw, main, combat, main, cleanup).

This wing uses :mod:`explore_sim.cards` and nothing of :mod:`explore_sim.analysis`.
"""

from .goldfish import GameConfig, GameState, Goldfish
from .mulligan import MulliganRule
from .policies import Observation, as_policy

__all__ = ["GameConfig", "GameState", "Goldfish", "MulliganRule", "Observation", "as_policy"]
