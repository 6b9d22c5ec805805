"""Conformance checks that any keep-or-mill policy must pass.

Use :func:`check_policy` on a custom policy before trusting numbers made with it::

    from explore_sim.policy_conformance import check_policy
    check_policy(my_policy)
"""

from __future__ import annotations

import numpy as np

from .cards import Catalog, FeatureTable
from .engine.policies import (
    OBSERVATION_NAMES,
    Observation,
    Policy,
    as_policy,
    decide,
    policy_name,
)
from .errors import PolicyError

__all__ = ["check_policy", "random_observation"]


def random_observation(trials: int = 257, seed: int = 0) -> Observation:
    """A varied observation over the built-in catalog, for exercising policies.

    Revealed cards cover lands, nonlands and empty libraries; counts cover empty hands,
    flooded hands and late turns.

    Parameters
    ----------
    trials : int
        Rows of the observation.
    seed : int
        Seed of its random values.

    Returns
    -------
    Observation
    """
    rng = np.random.default_rng(seed)
    features = FeatureTable.from_cards(Catalog.builtin())
    card = rng.integers(0, len(features), size=trials).astype(np.int16)
    lands_in_hand = rng.integers(0, 5, size=trials)
    cards_in_hand = lands_in_hand + rng.integers(0, 6, size=trials)
    turn = rng.integers(1, 12, size=trials)
    library_size = rng.integers(0, 54, size=trials)
    return Observation.build(
        features,
        card,
        cards_in_hand=cards_in_hand,
        lands_in_hand=lands_in_hand,
        lands_in_play=np.minimum(turn, rng.integers(0, 9, size=trials)),
        turn=turn,
        explores_left=rng.integers(1, 4, size=trials),
        counters=rng.integers(0, 3, size=trials),
        explorer_present=rng.random(trials) < 0.8,
        library_size=library_size,
        lands_in_library=rng.integers(0, 25, size=trials) % (library_size + 1),
    )


def check_policy(policy: str | Policy, obs: Observation | None = None, seed: int = 0) -> None:
    """Check that ``policy`` behaves as the engine requires.

    Checks: it returns a NumPy array (not a list or a pandas Series) of shape ``(trials,)``
    and dtype bool; it gives the same answer twice for generators seeded alike
    (deterministic for a given rng); it does not modify the observation (whose arrays are
    read-only, so an in-place write fails loudly).

    Parameters
    ----------
    policy : str or callable
        A preset, an expression or a callable ``policy(obs, rng)``.
    obs : Observation, optional
        What to decide on (default: :func:`random_observation`).
    seed : int
        Seed of the generators passed to the policy.

    Raises
    ------
    PolicyError
        Naming the first failed check.
    """
    policy = as_policy(policy)
    obs = obs if obs is not None else random_observation()
    name = policy_name(policy)
    before = {field: np.array(getattr(obs, field), copy=True) for field in OBSERVATION_NAMES}
    try:
        first = decide(policy, obs, np.random.default_rng(seed))
        second = decide(policy, obs, np.random.default_rng(seed))
    except PolicyError:
        raise
    except ValueError as error:
        if "read-only" in str(error):
            raise PolicyError(f"policy {name!r} tried to modify the observation") from None
        raise
    if not np.array_equal(first, second):
        raise PolicyError(f"policy {name!r} is not deterministic for a given rng")
    for field, value in before.items():
        if not np.array_equal(value, getattr(obs, field)):
            raise PolicyError(f"policy {name!r} modified observation field {field!r}")
    if any(np.shares_memory(first, getattr(obs, field)) for field in OBSERVATION_NAMES):
        raise PolicyError(
            f"policy {name!r} returned an observation array itself; return a new array"
        )
