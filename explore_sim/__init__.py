"""explore_sim: what the explore mechanic is worth in a Magic: The Gathering deck.

A vectorised NumPy Monte Carlo: decks are shuffled for many trials at once (trials on the
first array axis), explore sequences are played out under keep-or-mill policies, and the
results come back as tidy pandas frames with standard errors and intervals.

>>> import explore_sim
>>> deck = explore_sim.load_deck("merfolk")  # doctest: +SKIP
>>> explore_sim.explore(deck, explores=2, policy="forge", seed=1).summary()  # doctest: +SKIP
"""

from typing import Any

from ._version import __version__
from .analysis.advise import AdviceResult, advise
from .analysis.compare import CompareResult, compare
from .analysis.curve import CurveResult, curve
from .analysis.explore import ExploreResult, explore
from .analysis.lands import LandsResult, lands
from .analysis.objectives import Objective, parse_objective
from .analysis.replay import GameReplay, find_trial, replay
from .analysis.runner import StopRun, notebook_trials
from .analysis.simulate import SimulationResult, simulate
from .analysis.sweep import SweepResult, sweep
from .analysis.tune import TuneResult, tune
from .analysis.value import ValueResult, value
from .cards import (
    Card,
    Catalog,
    Deck,
    FeatureTable,
    deck_from_counts,
    load_deck,
    parse_deck,
)
from .engine.goldfish import GameConfig
from .engine.mulligan import MulliganRule
from .engine.policies import (
    OBSERVATION_NAMES,
    PRESETS,
    ExpressionPolicy,
    ForgePolicy,
    KeepPolicy,
    MillPolicy,
    NamedPolicy,
    Observation,
    as_policy,
)
from .errors import (
    CardError,
    DeckError,
    DeckWarning,
    ExecutorError,
    ExploreSimError,
    OptionError,
    PolicyError,
    PolicyWarning,
)
from .policy_conformance import check_policy


def __getattr__(name: str) -> Any:
    # explore_sim.plotting loads matplotlib: only when asked for, so that worker processes
    # (which unpickle their work and so import this package) start quickly.
    if name == "plotting":
        import importlib

        return importlib.import_module(".plotting", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "__version__",
    "plotting",
    "Card",
    "Catalog",
    "FeatureTable",
    "Deck",
    "load_deck",
    "parse_deck",
    "deck_from_counts",
    "explore",
    "ExploreResult",
    "simulate",
    "curve",
    "CurveResult",
    "replay",
    "find_trial",
    "GameReplay",
    "SimulationResult",
    "compare",
    "CompareResult",
    "sweep",
    "SweepResult",
    "value",
    "ValueResult",
    "lands",
    "LandsResult",
    "advise",
    "AdviceResult",
    "tune",
    "TuneResult",
    "Objective",
    "parse_objective",
    "notebook_trials",
    "StopRun",
    "GameConfig",
    "MulliganRule",
    "Observation",
    "as_policy",
    "NamedPolicy",
    "check_policy",
    "KeepPolicy",
    "MillPolicy",
    "ForgePolicy",
    "ExpressionPolicy",
    "PRESETS",
    "OBSERVATION_NAMES",
    "ExploreSimError",
    "CardError",
    "DeckError",
    "PolicyError",
    "OptionError",
    "ExecutorError",
    "DeckWarning",
    "PolicyWarning",
]
