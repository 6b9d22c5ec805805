"""One game, batched over trials: the arrays and the rules that move them.

- :mod:`.state`: the batched library (card ids plus a top pointer) and vectorised shuffles;
- :mod:`.rules`: the pure explore rule (E1-E9) and drawing;
- :mod:`.policies`: keep-or-mill policies, the :class:`Observation` they see, expressions;
- :mod:`.mulligan`: opening hands and mulligans;
- :mod:`.goldfish`: the goldfish turn loop (untap, draw, main, combat, main, cleanup);
- :mod:`.abilities`: what cards do (enter, attack and combat-damage triggers, Map tokens,
  parley, activated explores, equipment and vehicles);
- :mod:`.explore_effects`: explore instructions with their replacements (R1-R3) and
  "whenever a creature you control explores" triggers (E8).

This wing uses :mod:`explore_sim.cards` and nothing of :mod:`explore_sim.analysis`.
"""

from .goldfish import GameConfig, GameState, Goldfish
from .mulligan import MulliganRule
from .policies import Observation, as_policy

__all__ = ["GameConfig", "GameState", "Goldfish", "MulliganRule", "Observation", "as_policy"]
