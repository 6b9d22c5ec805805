"""What a run costs, counted before anything is played: one model for every way in.

A run plays ``trials`` games of each deck variant (a compare's decks x policies, a sweep's
grid points, a value card's explorer deck, vanilla deck and land variants, a tune's
candidate rules), each for some turns. Its cost is counted in *game turns*: trials x
variants x turns. The Python functions check it before they allocate anything for the
games, so the command line, the web page and a Dask cluster are held to it alike:

- the whole run: at most :data:`MAX_GAME_TURNS` game turns (about a day of games on one
  core);
- paired sums: variants played on the same shuffles keep the sums of every two variants'
  per-game products (a compare's, for each turn and metric), at most :data:`MAX_PAIRED_SUMS`
  of them (about 320 MB);
- at once: the variants played together on one chunk of at most 65,536 trials are in memory
  together (about :data:`BYTES_PER_GAME_TURN` bytes a game turn), so ``min(trials, 65,536)
  x variants played together x turns`` is at most :data:`MAX_AT_ONCE` (about 4 GB).

A run over a cap is refused in one line that names the cap and what fits (so many trials,
or so many variants). ``compare``, ``value``, ``curve``, ``sweep`` and ``tune`` check their
cost before they play; ``explore``, ``simulate`` and ``advise`` (one or two variants, at most
10^10 trials of at most 50 turns) are within the caps by their own limits. The web page holds
its runs to lower caps of its own (:class:`Caps`, set by ``explore-sim serve``) with the same
model.
"""

from __future__ import annotations

import dataclasses
import math

from ..errors import OptionError
from .runner import CHUNK_TRIALS

__all__ = ["Cost", "Caps", "check_cost", "cost_problem", "MAX_GAME_TURNS", "MAX_AT_ONCE",
           "MAX_PAIRED_SUMS", "BYTES_PER_GAME_TURN"]

#: The most game turns (trials x variants x turns) of one run.
MAX_GAME_TURNS = 10**12
#: The most game turns of one chunk of trials, every variant played together included.
MAX_AT_ONCE = 32_000_000
#: The most sums of paired products a run keeps.
MAX_PAIRED_SUMS = 4_000_000
#: About what one game turn of one variant holds in memory while its chunk is played.
BYTES_PER_GAME_TURN = 125


@dataclasses.dataclass(frozen=True)
class Cost:
    """The size of a run.

    Attributes
    ----------
    trials : int
        Games (shuffles) of each variant.
    variants : int
        Deck variants played in all.
    together : int
        The most variants played on the same chunk at once.
    turns : int
        Turns each game plays (1 for an explore sequence).
    pair_sums : int
        Sums kept for each pair of variants played on the same shuffles (a compare's:
        turns, the opening hand included, x metrics); 0 when the run keeps none.
    groups : int
        Groups of variants played on the same shuffles, each keeping its pairs' sums (a
        value run's cards).
    paired : int or None
        The variants of a group (default: ``together``; a tune's rules share their shuffles
        but are played one at a time).
    """

    trials: int
    variants: int
    together: int
    turns: int
    pair_sums: int = 0
    groups: int = 1
    paired: int | None = None

    @property
    def total(self) -> int:
        """Game turns of the whole run."""
        return self.trials * self.variants * self.turns

    @property
    def at_once(self) -> int:
        """Game turns of the largest chunk."""
        return min(self.trials, CHUNK_TRIALS) * self.together * self.turns

    @property
    def paired_sums(self) -> int:
        """Sums of paired products the run keeps."""
        return self.groups * _pairs(self.group_size) * self.pair_sums

    @property
    def group_size(self) -> int:
        """The variants of a group that keeps its pairs' sums."""
        return self.together if self.paired is None else self.paired


@dataclasses.dataclass(frozen=True)
class Caps:
    """The most a run may cost (the defaults: the Python functions' and command line's).

    Attributes
    ----------
    game_turns : int
        Game turns of the whole run.
    at_once : int
        Game turns of one chunk.
    paired_sums : int
        Sums of paired products.
    """

    game_turns: int = MAX_GAME_TURNS
    at_once: int = MAX_AT_ONCE
    paired_sums: int = MAX_PAIRED_SUMS


def _pairs(variants: int) -> int:
    return variants * (variants - 1) // 2


def _shape(cost: Cost) -> str:
    parts = [f"{cost.trials:,} trials"]
    if cost.variants > 1:
        parts.append(f"{cost.variants:,} deck variants")
    if cost.turns > 1:
        parts.append(f"{cost.turns:,} turns")
    return " x ".join(parts)


def _most_paired(cost: Cost, caps: Caps) -> int:
    """The most variants of a group whose pairs' sums the cap allows."""
    per_pair = max(1, cost.groups * cost.pair_sums)  # pairs(v) * per_pair <= cap
    return int((1 + math.isqrt(1 + 8 * (caps.paired_sums // per_pair))) // 2)


def _most_together(cost: Cost, caps: Caps) -> int:
    """The most variants played together that every cap allows at these trials and turns."""
    most = caps.at_once // max(1, min(cost.trials, CHUNK_TRIALS) * cost.turns)
    if cost.pair_sums and cost.paired is None:
        most = min(most, _most_paired(cost, caps))
    return most


def _hint(trials: int) -> str:
    return (f"at most {trials:,} trials, or fewer" if trials >= 2 else "fewer") + \
        " variants or turns"


def cost_problem(cost: Cost, caps: Caps = Caps(), where: str = "") -> str | None:
    """Why a run costs more than ``caps`` allow, in one line that says what fits; None
    when it does not.

    Parameters
    ----------
    cost : Cost
    caps : Caps
    where : str
        Whose caps they are, after ``per run`` / ``at once`` (``" on this server"``).

    Returns
    -------
    str or None
    """
    if cost.total > caps.game_turns:
        fewer = caps.game_turns // max(1, cost.variants * cost.turns)
        return (f"this run plays {_shape(cost)} = {cost.total:,} game turns; at most "
                f"{caps.game_turns:,} per run{where}: {_hint(fewer)}")
    if cost.paired_sums > caps.paired_sums:
        most = _most_together(cost, caps) if cost.paired is None else \
            _most_paired(cost, caps)
        return (f"this run plays {cost.group_size:,} deck variants on the same shuffles and "
                f"keeps {cost.paired_sums:,} sums of their pairs' products; at most "
                f"{caps.paired_sums:,}{where}: at most {most:,} variants on the same "
                "shuffles at these trials and turns")
    if cost.at_once > caps.at_once:
        fewer = caps.at_once // max(1, cost.together * cost.turns)
        variants = _most_together(cost, caps)
        also = (f" (or at most {variants:,} variants played together)"
                if cost.together > 1 and variants >= 1 else "")
        return (f"this run plays {min(cost.trials, CHUNK_TRIALS):,} games of "
                f"{cost.together:,} deck variant(s) x {cost.turns:,} turns at once (a chunk of "
                f"trials) = {cost.at_once:,} game turns, about "
                f"{cost.at_once * BYTES_PER_GAME_TURN / 1e9:.1f} GB; at most "
                f"{caps.at_once:,} at once{where}: {_hint(fewer)}{also}")
    return None


def check_cost(cost: Cost, caps: Caps = Caps()) -> None:
    """Refuse a run over ``caps`` before anything is played.

    Parameters
    ----------
    cost : Cost
    caps : Caps

    Raises
    ------
    OptionError
        What the run costs, the cap, and what fits, in one line.
    """
    problem = cost_problem(cost, caps)
    if problem is not None:
        raise OptionError(problem)
