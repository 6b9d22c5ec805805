"""Sweeps: goldfish metrics over a grid of deck variants and policies, as one tidy frame."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from os import PathLike
from typing import Any

import pandas as pd

from ..cards.decklist import Deck, load_deck
from ..engine.policies import Policy, as_policy, policy_name
from ..errors import OptionError
from .simulate import simulate

__all__ = ["sweep"]


def sweep(
    deck: Deck | str | PathLike[str],
    grid: Mapping[str, Sequence[int]],
    policies: str | Policy | Sequence[str | Policy] = "forge",
    *,
    filler: str = "Grizzly Bears",
    metrics: Iterable[str] | None = None,
    trials: int = 20_000,
    seed: Any = 0,
    **options: Any,
) -> pd.DataFrame:
    """Simulate every combination of deck counts and policies.

    Parameters
    ----------
    deck : Deck, path or decklist text
        The base deck.
    grid : mapping of str to list of int
        For each key, the values to try: ``"lands"`` (total land cards, changing the deck's
        most numerous land) or a card name (its copies). The deck size is kept by adding or
        removing ``filler`` cards.
    policies : policy or list of policies
    metrics : list of str, optional
        Keep only these metrics.
    trials, seed, **options
        Passed to :func:`explore_sim.simulate`; every grid point uses the same seed, so
        neighbouring points see the same shuffles where their decks agree.

    Returns
    -------
    DataFrame
        One row per grid point x policy x turn x metric: the grid keys, ``policy``,
        ``turn``, ``metric``, ``mean``, ``se``, ``ci_low``, ``ci_high``.
    """
    deck = deck if isinstance(deck, Deck) else load_deck(deck)
    if not grid:
        raise OptionError("sweep needs at least one grid key")
    if isinstance(policies, str) or callable(policies):
        policies = [policies]
    policies = [as_policy(p) for p in policies]
    keys = list(grid)
    frames = []
    for values in itertools.product(*(grid[key] for key in keys)):
        variant = deck.with_counts(dict(zip(keys, values)), filler=filler)
        for policy in policies:
            frame = simulate(variant, policy=policy, trials=trials, seed=seed, **options).summary()
            if metrics is not None:
                frame = frame[frame["metric"].isin(list(metrics))]
            frame.insert(0, "policy", policy_name(policy))
            for key, value in reversed(list(zip(keys, values))):
                frame.insert(0, key, value)
            frames.append(frame)
    return pd.concat(frames, ignore_index=True)
