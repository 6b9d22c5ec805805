"""Objectives: what a player wants from a game, written as metrics at turns with weights.

An objective is an expression over ``metric@turn`` terms, such as ``on_curve@5`` (the
probability of being on curve at the end of turn 5, per game 0 or 1), ``mana_spent@6`` or
``on_curve@4 + 0.1*counters@6``. It is parsed and checked by the same whitelist parser as
policy expressions (:func:`explore_sim.engine.policies.compile_expression`): the names are
the per-turn metrics of a goldfish game (:data:`~explore_sim.engine.metrics.TURN_METRICS`),
each followed by ``@`` and a turn; numbers, ``+ - * / // %``, comparisons, ``and``, ``or``,
``not`` and parentheses combine them; nothing is passed to Python's ``eval``. A condition
(``lands_played@4 >= 4``) counts 1 where it holds and 0 elsewhere. Objectives are
maximised: write ``-hand_size@6`` to prefer fewer cards in hand.

One more name is not a metric: ``kill_turn@T`` is min(K, T + 1), the turn combat damage
kills the goldfish opponent (``opponent_dead``, docs/guide/damage.md) with a game still
alive after turn T counted as killed on turn T + 1 (censored); its mean over games is the
``mean`` of :meth:`SimulationResult.kill_turn()
<explore_sim.analysis.simulate.SimulationResult.kill_turn>` for games of T turns. It looks
at every turn from 1 to T. An objective that is ``kill_turn@T`` alone is the one objective
minimised (:attr:`Objective.lower_is_better`: an earlier kill is better); inside a longer
expression it is a number of turns like any term, and the expression is maximised (write
``-kill_turn@6 + 0.1*counters@6``).

Two more names look at every turn from 1 to T too: ``screwed_by@T`` and ``flooded_by@T`` are
1 in a game that was ``screwed`` (``flooded``) at the end of at least one of turns 1 to T,
else 0 (docs/guide/metrics.md): ``-screwed_by@7`` prefers games never screwed by turn 7.

Several objectives are given as one text separated by commas (``on_curve@5,mana_spent@6``).

:class:`PairedValues` keeps the running sums of per-game objective values of variants played
on the same shuffles, so every paired difference has its own standard error.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from ..engine.metrics import TURN_METRICS
from ..engine.policies import Grammar, compile_expression, evaluate_expression
from ..errors import OptionError, clip
from .stats import z_value

__all__ = ["Objective", "parse_objective", "parse_objectives", "PairedValues",
           "OBJECTIVE_GRAMMAR", "MAX_OBJECTIVES", "KILL_TURN", "EVER_TERMS"]

#: The objective term that is not a metric: ``kill_turn@T``, min(kill turn, T + 1).
KILL_TURN = "kill_turn"
#: Objective terms that are 1 when a 0/1 metric was 1 at the end of one of turns 1 to T.
EVER_TERMS = {"screwed_by": "screwed", "flooded_by": "flooded"}

#: The objectives' grammar: goldfish metrics, each at a turn, and ``kill_turn@T``.
OBJECTIVE_GRAMMAR = Grammar(
    "objective",
    {**{name: "a per-turn goldfish metric" for name in TURN_METRICS},
     KILL_TURN: "min(kill turn, T + 1), lower is better",
     **{name: f"1 if {metric} at the end of one of turns 1 to T"
        for name, metric in EVER_TERMS.items()}},
    frozenset(),
    at_turns=True,
    error=OptionError,
)
#: The most objectives one run reports.
MAX_OBJECTIVES = 20


@dataclasses.dataclass(frozen=True, eq=False)
class Objective:
    """A checked objective expression.

    Attributes
    ----------
    text : str
        The expression as written (stripped).
    terms : tuple of (str, int)
        The ``(metric, turn)`` terms it uses, in order of first appearance.
    """

    text: str
    terms: tuple[tuple[str, int], ...]
    _tree: tuple = dataclasses.field(repr=False)

    @property
    def last_turn(self) -> int:
        """The latest turn the objective looks at (games are played that long)."""
        return max(turn for _, turn in self.terms)

    @property
    def first_turn(self) -> int:
        """The earliest turn the objective looks at (1 with a ``kill_turn``, ``screwed_by``
        or ``flooded_by`` term)."""
        return min(1 if metric == KILL_TURN or metric in EVER_TERMS else turn
                   for metric, turn in self.terms)

    @property
    def lower_is_better(self) -> bool:
        """True for an objective that is ``kill_turn@T`` alone (minimised); every other
        objective is maximised."""
        return self._tree[0] == "at" and self._tree[1] == KILL_TURN

    @property
    def uses_kill_turn(self) -> bool:
        """Whether a ``kill_turn@T`` term appears."""
        return any(metric == KILL_TURN for metric, _ in self.terms)

    def values(self, games: Mapping[int, Mapping[str, np.ndarray]]) -> np.ndarray:
        """The objective's value in each game.

        Parameters
        ----------
        games : mapping of int to mapping of str to ndarray of shape (trials,)
            Per-turn, per-metric values of a batch of games
            (:func:`explore_sim.analysis.simulate.play_games`).

        Returns
        -------
        ndarray of shape (trials,), float64
            Conditions count 1 or 0; a division by zero gives the values NumPy gives
            (checked by the caller's statistics).
        """
        trials = len(next(iter(games[self.terms[0][1]].values())))
        value = evaluate_expression(self._tree, _Terms(games))
        return np.broadcast_to(np.asarray(value, dtype=np.float64), (trials,)).copy()

    def __str__(self) -> str:
        return self.text


class _Terms:
    """``at(metric, turn)`` over per-turn metric dicts, as float arrays."""

    def __init__(self, games: Mapping[int, Mapping[str, np.ndarray]]) -> None:
        self.games = games

    def at(self, metric: str, turn: int) -> np.ndarray:
        if metric == KILL_TURN:  # min(K, T + 1) = 1 + the turns 1..T ending alive
            alive = [1.0 - np.asarray(self.games[t]["opponent_dead"], dtype=np.float64)
                     for t in range(1, turn + 1)]
            return 1.0 + np.sum(alive, axis=0)
        if metric in EVER_TERMS:  # 1 where the metric was 1 at the end of one of turns 1..T
            name = EVER_TERMS[metric]
            return np.max([np.asarray(self.games[t][name], dtype=np.float64)
                           for t in range(1, turn + 1)], axis=0)
        return np.asarray(self.games[turn][metric], dtype=np.float64)


def _terms(tree: tuple) -> list[tuple[str, int]]:
    """The ``(metric, turn)`` terms of a checked tree, in order."""
    if tree[0] == "at":
        return [(tree[1], tree[2])]
    found: list[tuple[str, int]] = []
    for part in tree[1:]:
        if isinstance(part, tuple):
            found += _terms(part)
        elif isinstance(part, list):
            for item in part:
                found += _terms(item)
    return found


def parse_objective(text: str | Objective) -> Objective:
    """Check one objective expression.

    Parameters
    ----------
    text : str or Objective
        Such as ``"on_curve@5"`` or ``"on_curve@4 + 0.1*counters@6"``.

    Returns
    -------
    Objective

    Raises
    ------
    OptionError
        Saying what is wrong and where: an unknown metric (with suggestions), a metric
        without ``@turn``, a turn outside 1-50, no metric at all, or anything outside the
        whitelist.
    """
    if isinstance(text, Objective):
        return text
    tree, _ = compile_expression(text, OBJECTIVE_GRAMMAR)
    terms = list(dict.fromkeys(_terms(tree)))
    if not terms:
        raise OptionError(f"objective {clip(text)!r} names no metric; write one as "
                          "metric@turn, for example on_curve@4")
    return Objective(text=text.strip(), terms=tuple(terms), _tree=tree)


def parse_objectives(spec: str | Objective | Iterable[str | Objective]) -> list[Objective]:
    """One or several objectives.

    Parameters
    ----------
    spec : str, Objective or iterable of them
        Text with objectives separated by commas (``"on_curve@5,mana_spent@6"``), or a
        sequence of objectives.

    Returns
    -------
    list of Objective
        In the order given, repeats dropped.

    Raises
    ------
    OptionError
        No objective, more than :data:`MAX_OBJECTIVES`, or one :func:`parse_objective`
        refuses.
    """
    if isinstance(spec, (str, Objective)):
        spec = spec.split(",") if isinstance(spec, str) else [spec]
    elif not isinstance(spec, Iterable):
        raise OptionError(f"objectives must be text or a list, got {type(spec).__name__}")
    items = []
    for item in spec:
        if isinstance(item, str) and not item.strip():
            continue
        if not isinstance(item, (str, Objective)):
            raise OptionError(f"an objective must be text such as 'on_curve@5', got {item!r}")
        items.append(item)
    if not items:
        raise OptionError("no objective given; write one as metric@turn, for example on_curve@5")
    if len(items) > MAX_OBJECTIVES:
        raise OptionError(f"at most {MAX_OBJECTIVES} objectives, got {len(items)}")
    objectives = [parse_objective(item) for item in items]
    unique = {objective.text: objective for objective in objectives}
    return list(unique.values())


class PairedValues:
    """Running sums of per-game objective values of variants played on the same shuffles.

    For ``V`` variants it keeps ``n``, each variant's sum and the sums of products of every
    two variants' values (squares on the diagonal), in float64; chunks are merged in chunk
    order, so a seeded run gives the same numbers however it is split across workers.

    Parameters
    ----------
    variants : int
        Number of paired variants.
    """

    def __init__(self, variants: int) -> None:
        self.variants = variants
        self.n = 0
        self.total = np.zeros(variants)
        self.products = np.zeros((variants, variants))

    def add(self, values: Sequence[np.ndarray]) -> None:
        """Add one chunk of paired games.

        Parameters
        ----------
        values : sequence of ndarray of shape (trials,)
            One array per variant, game ``i`` of each on the same shuffle.

        Raises
        ------
        OptionError
            A value that is not finite (an objective dividing by zero).
        """
        if len(values) != self.variants:
            raise ValueError(f"expected {self.variants} variants, got {len(values)}")
        matrix = np.vstack([np.asarray(v, dtype=np.float64) for v in values])
        if not np.isfinite(matrix).all():
            raise OptionError("the objective is not a finite number in some games "
                              "(a division by zero?); rewrite it")
        self.total += matrix.sum(axis=1)
        self.products += matrix @ matrix.T
        self.n += matrix.shape[1]

    def merge(self, other: PairedValues) -> None:
        """Add another chunk's sums.

        Parameters
        ----------
        other : PairedValues
            Sums over other games of the same variants.
        """
        if other.variants != self.variants:
            raise ValueError("cannot merge sums of different variants")
        self.n += other.n
        self.total += other.total
        self.products += other.products

    def mean(self, index: int, level: float = 0.95) -> dict[str, float]:
        """One variant's mean objective.

        Parameters
        ----------
        index : int
            The variant.
        level : float
            Confidence level of the interval.

        Returns
        -------
        dict
            ``mean, se, ci_low, ci_high`` (normal interval).
        """
        return self._summary(self.total[index], self.products[index, index], level)

    def difference(self, index: int, base: int, level: float = 0.95) -> dict[str, float]:
        """Variant ``index`` minus variant ``base``, game by game.

        Parameters
        ----------
        index, base : int
            The two variants.
        level : float
            Confidence level of the interval.

        Returns
        -------
        dict
            ``mean, se, ci_low, ci_high`` of the per-game differences (paired).
        """
        total = self.total[index] - self.total[base]
        squares = (self.products[index, index] + self.products[base, base]
                   - 2 * self.products[index, base])
        return self._summary(total, squares, level)

    def _summary(self, total: float, squares: float, level: float) -> dict[str, float]:
        n = self.n
        if n < 2:
            raise ValueError("at least two games are needed for a standard error")
        mean = total / n
        variance = max((squares - n * mean * mean) / (n - 1), 0.0)
        se = math.sqrt(variance / n)
        if se < 1e-12 * max(1.0, abs(mean)):  # rounding of identical games
            se = 0.0
        z = z_value(level)
        return {"mean": mean, "se": se, "ci_low": mean - z * se, "ci_high": mean + z * se}
