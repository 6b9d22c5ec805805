"""What a run of the page costs, counted before it is queued: the package's cost model
(:mod:`explore_sim.analysis.run_costs`: game turns in all and at once) with the server's
caps.

A run plays ``trials`` games of each deck variant (a compare's decks x policies, a value
card's explorer deck, vanilla deck and land variants, a lands run's land counts and its
explore cards' variants, advise's keep and mill), each for some turns. Its cost is counted
in *game turns*: trials x variants x turns. Two caps of the server hold:

- the whole run: at most ``max_game_turns`` (how long it keeps a run slot);
- at once: the variants played together on one chunk of at most 65,536 trials are in memory
  together (about 125 bytes per game turn) and a cancel waits for the chunk to end, so
  ``min(trials, 65,536) x variants played together x turns`` is at most ``max_at_once``.

A run over either cap is refused beside its ``trials`` field, with what to lower. The run
itself is then held to the package's own caps too, which are higher.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..analysis.curve import curve_runs, curve_turns
from ..analysis.lands import default_objective
from ..analysis.objectives import parse_objectives
from ..analysis.run_costs import BYTES_PER_GAME_TURN, MAX_PAIRED_SUMS, Caps, Cost, cost_problem
from ..analysis.value import chosen_cards, explore_cards
from ..cards.decklist import Deck
from ..errors import ExploreSimError
from .lands_tab import lands_counts

__all__ = ["Cost", "run_cost", "cost_errors", "BYTES_PER_GAME_TURN"]


def _value_variants(decks: Sequence[Deck], options: Mapping[str, Any]) -> list[int]:
    """Per card to value: the explorer deck, the vanilla deck and one variant per land."""
    deck = decks[0]
    copies = dict(deck.main)
    return [2 + min(copies.get(card, 1), options["max_lands"])
            for card in chosen_cards(deck, options.get("card") or None)]


def _lands_cost(deck: Deck, options: Mapping[str, Any]) -> Cost:
    """Every land count played together, then the explore cards' variants at the best one,
    each game as long as the objective's last turn."""
    counts = len(lands_counts(deck, options))
    copies = sum(n for card, n in deck.main if card in explore_cards(deck))
    explorers = 0 if options["no_explorers"] or not copies else \
        2 + min(copies, options["max_lands"])
    objective = options.get("objective") or default_objective(bool(deck.commander))
    turns = parse_objectives(objective)[0].last_turn
    return Cost(options["trials"], counts + explorers, max(counts, explorers), turns)


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
        widths = _value_variants(decks, options)  # one explorer deck for every card
        return Cost(trials, 1 + sum(width - 1 for width in widths), max(widths),
                    options["turns"])
    if analysis == "advise":
        return Cost(trials, 2, 2, _advise_turns(options))
    if analysis == "lands":  # every count together, then the explore cards' variants
        return _lands_cost(decks[0], options)
    if analysis == "curve":  # a run per group of cards; turns blank: the largest mana value
        return Cost(trials, len(curve_runs(decks[0])), 1,
                    curve_turns(decks[0], options.get("turns")))
    return Cost(trials, 1, 1, 1)  # explore: one sequence per shuffle


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
    caps = Caps(game_turns=max_game_turns, at_once=max_at_once, paired_sums=MAX_PAIRED_SUMS)
    problem = cost_problem(cost, caps, where=" on this server")
    if problem is None:
        return {}
    if cost.total > max_game_turns:
        problem += " (explore-sim serve --max-game-turns raises the cap)"
    return {"trials": f"trials: {problem}"}
