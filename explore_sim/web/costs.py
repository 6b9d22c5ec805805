"""What a run of the page costs, counted before it is queued: game turns in all and at once.

A run plays ``trials`` games of each deck variant (a compare's decks x policies, a value
card's explorer deck, vanilla deck and land variants, advise's keep and mill), each for some
turns. Its cost is counted in *game turns*: trials x variants x turns. Two caps hold:

- the whole run: at most ``max_game_turns`` (how long it keeps a run slot);
- at once: the variants played together on one chunk of at most 65,536 trials are in memory
  together (about 125 bytes per game turn) and a cancel waits for the chunk to end, so
  ``min(trials, 65,536) x variants played together x turns`` is at most ``max_at_once``.

A run over either cap is refused beside its ``trials`` field, with what to lower.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from ..analysis.curve import curve_runs, curve_turns
from ..analysis.objectives import parse_objectives
from ..analysis.runner import CHUNK_TRIALS
from ..analysis.value import chosen_cards
from ..cards.decklist import Deck
from ..errors import ExploreSimError

__all__ = ["Cost", "run_cost", "cost_errors", "BYTES_PER_GAME_TURN"]

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
    """

    trials: int
    variants: int
    together: int
    turns: int

    @property
    def total(self) -> int:
        """Game turns of the whole run."""
        return self.trials * self.variants * self.turns

    @property
    def at_once(self) -> int:
        """Game turns of the largest chunk."""
        return min(self.trials, CHUNK_TRIALS) * self.together * self.turns


def _value_variants(decks: Sequence[Deck], options: Mapping[str, Any]) -> list[int]:
    """Per card to value: the explorer deck, the vanilla deck and one variant per land."""
    deck = decks[0]
    copies = dict(deck.main)
    return [2 + min(copies.get(card, 1), options["max_lands"])
            for card in chosen_cards(deck, options.get("card") or None)]


def _advise_turns(options: Mapping[str, Any]) -> int:
    """Turns played from the position to the last objective's turn."""
    turn = options["turn"]
    text = options.get("objective") or f"on_curve@{turn + 1},mana_spent@{turn + 3}"
    last = max(objective.last_turn for objective in parse_objectives(text))
    return max(1, last - turn + 1)


def run_cost(analysis: str, options: Mapping[str, Any], decks: Sequence[Deck]) -> Cost:
    """The cost of a run whose options and decks have passed the analysis's checks.

    Parameters
    ----------
    analysis : str
        The analysis's name.
    options : mapping
        Its options, as checked.
    decks : sequence of Deck

    Returns
    -------
    Cost
    """
    trials = options["trials"]
    if analysis == "simulate":
        return Cost(trials, 1, 1, options["turns"])
    if analysis == "compare":
        width = len(decks) * len(options["policies"])
        return Cost(trials, width, width, options["turns"])
    if analysis == "value":
        widths = _value_variants(decks, options)
        return Cost(trials, sum(widths), max(widths), options["turns"])
    if analysis == "advise":
        return Cost(trials, 2, 2, _advise_turns(options))
    if analysis == "curve":  # a run per group of cards; turns blank: the largest mana value
        return Cost(trials, len(curve_runs(decks[0])), 1,
                    curve_turns(decks[0], options.get("turns")))
    return Cost(trials, 1, 1, 1)  # explore: one sequence per shuffle


def _shape(cost: Cost) -> str:
    parts = [f"{cost.trials:,} trials"]
    if cost.variants > 1:
        parts.append(f"{cost.variants:,} deck variants")
    if cost.turns > 1:
        parts.append(f"{cost.turns:,} turns")
    return " x ".join(parts)


def cost_errors(analysis: str, options: Mapping[str, Any], decks: Sequence[Deck],
                max_game_turns: int, max_at_once: int) -> dict[str, str]:
    """The ``trials`` field's error when a run is over a cap, else ``{}``.

    Parameters
    ----------
    analysis : str
    options : mapping
    decks : sequence of Deck
    max_game_turns : int
        The most game turns of a run.
    max_at_once : int
        The most game turns of one chunk.

    Returns
    -------
    dict of str to str
    """
    try:
        cost = run_cost(analysis, options, decks)
    except ExploreSimError:  # an option its own check refuses, shown beside its field
        return {}
    if cost.total > max_game_turns:
        fewer = max_game_turns // max(1, cost.variants * cost.turns)
        hint = f"at most {fewer:,} trials, or fewer" if fewer >= 2 else "fewer"
        return {"trials": (
            f"trials: this run plays {_shape(cost)} = {cost.total:,} game turns; at most "
            f"{max_game_turns:,} per run on this server: {hint} variants or turns "
            "(explore-sim serve --max-game-turns raises the cap)")}
    if cost.at_once > max_at_once:
        fewer = max_at_once // max(1, cost.together * cost.turns)
        hint = f"at most {fewer:,} trials, or fewer" if fewer >= 2 else "fewer"
        return {"trials": (
            f"trials: this run plays {min(cost.trials, CHUNK_TRIALS):,} games of "
            f"{cost.together:,} deck variant(s) x {cost.turns:,} turns at once (a chunk of "
            f"trials) = {cost.at_once:,} game turns, about "
            f"{cost.at_once * BYTES_PER_GAME_TURN / 1e9:.1f} GB; at most {max_at_once:,} at "
            f"once on this server: {hint} variants or turns")}
    return {}
