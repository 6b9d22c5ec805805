"""The cards layer's mana model under the name the engine imports it by: everything here is
:mod:`explore_sim.cards.costs` (colour masks, costs and the ways to pay them)."""

from .costs import *  # noqa: F401, F403
from .costs import __all__  # noqa: F401
