"""Sweeps: goldfish metrics over a grid of deck variants and policies, as one tidy frame."""

from __future__ import annotations

import dataclasses
import itertools
import numbers
from collections.abc import Iterable, Mapping, Sequence
from os import PathLike
from typing import Any

import pandas as pd

from ..cards.decklist import DEFAULT_FILLER, Deck, load_deck
from ..engine.policies import Policy, as_policies, policy_name
from ..errors import DeckError, OptionError
from .report import (
    deck_meta,
    html_repr,
    ordered_categorical,
    short_repr,
    unique_labels,
    with_meta,
)
from .runner import seed_sequence
from .simulate import DEFAULT_COMPARE_METRICS, SimulationResult, check_metrics, simulate

__all__ = ["sweep", "SweepResult"]


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class SweepResult:
    """The outcome of :func:`sweep`: one goldfish simulation per grid point and policy.

    Attributes
    ----------
    meta : dict
        What was run (JSON-safe): ``command`` (``"sweep"``), ``deck`` (a list holding the
        base deck's record), ``grid`` (each key's values), ``filler``, ``policy`` (a list of
        names), ``metrics``, the game options, ``trials``, ``seed``, ...
    grid : dict of str to list of int
        The swept values, in the order given; the first value of each key is its baseline.
    policies : list of str
        Policy labels, in the order given.
    results : list of SimulationResult
        One per grid point and policy: points in ``itertools.product`` order of the grid,
        policies within each point.
    """

    meta: dict[str, Any]
    grid: dict[str, list[int]]
    policies: list[str]
    results: list[SimulationResult]

    def _runs(self) -> Iterable[tuple[tuple[int, ...], str, SimulationResult]]:
        runs = iter(self.results)
        for values in itertools.product(*self.grid.values()):
            for policy in self.policies:
                yield values, policy, next(runs)

    def summary(self, level: float = 0.95) -> pd.DataFrame:
        """Tidy statistics of every grid point and policy by turn.

        Parameters
        ----------
        level : float
            Confidence level of the intervals.

        Returns
        -------
        DataFrame
            One row per grid point x policy x turn x metric: one column per grid key, then
            ``policy, turn, metric, mean, se, ci_low, ci_high``. The grid keys and
            ``policy`` are ordered categoricals in the order given (the first value is the
            baseline); only ``meta["metrics"]`` are kept when the sweep named some, and
            ``attrs["explore_sim"]`` holds :attr:`meta`.
        """
        metrics = self.meta["metrics"]
        frames = []
        for values, policy, result in self._runs():
            frame = result.stats.summary(level)
            if metrics is not None:
                frame = frame[frame["metric"].isin(metrics)]
            frame.insert(0, "policy", policy)
            for key, value in reversed(list(zip(self.grid, values))):
                frame.insert(0, key, value)
            frames.append(frame)
        frame = pd.concat(frames, ignore_index=True)
        for key, values in self.grid.items():
            frame[key] = pd.Categorical(frame[key], categories=values, ordered=True)
        frame["policy"] = ordered_categorical(frame["policy"].tolist(), self.policies)
        return with_meta(frame, self.meta)

    def _facts(self) -> dict[str, Any]:
        return {"deck": self.meta["deck"][0]["name"], "grid": self.grid,
                "policies": self.policies, "turns": self.meta["turns"],
                "trials": self.meta["trials"], "seed": self.meta["seed"]}

    def __repr__(self) -> str:
        return short_repr("SweepResult", self._facts())

    def _repr_html_(self) -> str:
        rows = self.summary()
        last = self.meta["turns"]
        shown = self.meta["metrics"] or list(DEFAULT_COMPARE_METRICS)
        rows = rows[(rows["turn"] == last) & rows["metric"].isin(shown)]
        table = rows.pivot_table(index=[*self.grid, "policy"], columns="metric",
                                 values="mean", observed=True, sort=False)
        table = table.reindex(columns=[m for m in shown if m in table.columns]).round(3)
        facts = [f"deck: {self.meta['deck'][0]['name']} (filler: {self.meta['filler']})",
                 f"policies: {'; '.join(self.policies)}",
                 f"turns: {last}, trials: {self.meta['trials']}, seed: {self.meta['seed']}",
                 f"cells: mean at turn {last}; summary() gives the tidy rows"]
        return html_repr("SweepResult", facts, table.rename_axis(None, axis=1), index=True)


def _check_grid(grid: object) -> dict[str, list[int]]:
    """The grid as ``{key: [values]}``; one-line errors for scalars, text and repeats."""
    if not isinstance(grid, Mapping) or not grid:
        raise OptionError(
            "sweep needs a grid such as {'lands': [22, 24], 'Cenote Scout': [0, 4]}, "
            f"got {grid!r}"
        )
    checked = {}
    for key, values in grid.items():
        if not isinstance(key, str):
            raise OptionError(f"grid keys must be 'lands' or card names, got {key!r}")
        if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
            raise OptionError(
                f"grid[{key!r}] must be a list of values, got {values!r} (write [{values!r}])"
            )
        values = list(values)
        if not values:
            raise OptionError(f"grid[{key!r}] has no values")
        for value in values:
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
                raise OptionError(
                    f"grid[{key!r}]: copies must be whole numbers >= 0, got {value!r}"
                )
        values = [int(value) for value in values]
        if len(set(values)) != len(values):
            raise OptionError(f"grid[{key!r}] repeats a value: {values}")
        checked[key] = values
    return checked


def sweep(
    deck: Deck | str | PathLike[str],
    grid: Mapping[str, Sequence[int]],
    policies: str | Policy | Sequence[str | Policy] | Mapping[str, str | Policy] = "forge",
    *,
    filler: str | None = None,
    metrics: Iterable[str] | None = None,
    trials: int = 100_000,
    seed: Any = None,
    **options: Any,
) -> SweepResult:
    """Simulate every combination of deck counts and policies.

    Parameters
    ----------
    deck : Deck, path or decklist text
        The base deck.
    grid : mapping of str to list of int
        For each key, the values to try, the first being its baseline: ``"lands"`` (total
        land cards, changing the deck's most numerous land) or a card name (its copies).
        The deck size is kept by adding or removing copies of the filler card.
    policies : str, callable, sequence or dict
        Keep-or-mill policies; a dict ``{name: policy}`` names them.
    filler : str, optional
        The card traded against to keep the deck size. Default: the deck's declared filler
        (a ``// filler: Card Name`` line), else :data:`~explore_sim.cards.decklist.DEFAULT_FILLER`
        (Grizzly Bears).
    metrics : list of str, optional
        Keep only these metrics in :meth:`SweepResult.summary`.
    trials : int
        Games per grid point and policy.
    seed : int, SeedSequence, Generator or None
        Every grid point uses the same seed, so neighbouring points see the same shuffles
        where their decks agree. None draws fresh entropy, recorded in ``meta["seed"]``.
    **options
        Passed to :func:`explore_sim.simulate` (``turns``, ``mulligan``, ``workers``, ...).

    Returns
    -------
    SweepResult

    Raises
    ------
    OptionError
        A grid that is not ``{key: [values]}`` of whole numbers, or an unknown metric.
    DeckError
        A grid point that cannot be built, naming the point and the card.
    """
    deck = deck if isinstance(deck, Deck) else load_deck(deck)
    grid = _check_grid(grid)
    chosen = None if metrics is None else check_metrics(metrics)
    resolved = as_policies(policies)
    labels = unique_labels([policy_name(policy) for policy in resolved])
    filler_name = filler or deck.filler or DEFAULT_FILLER
    variants = []
    for values in itertools.product(*grid.values()):
        point = dict(zip(grid, values))
        try:
            variants.append(deck.with_counts(point, filler=filler_name))
        except DeckError as error:
            where = ", ".join(f"{key}={value}" for key, value in point.items())
            raise DeckError(f"sweep point {where}: {error}") from None
    seed_seq = seed_sequence(seed)
    results = [simulate(variant, policy={label: policy}, trials=trials, seed=seed_seq, **options)
               for variant in variants for label, policy in zip(labels, resolved)]
    meta = {
        **results[0].meta,
        "command": "sweep",
        "deck": [deck_meta(deck)],
        "grid": grid,
        "filler": variants[0].filler,
        "policy": labels,
        "metrics": chosen,
    }
    return SweepResult(meta=meta, grid=grid, policies=labels, results=results)
