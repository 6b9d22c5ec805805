"""A game you can watch: :func:`replay` plays one trial of a :func:`~explore_sim.simulate`
run again, on the compiled kernel, with its log.

A run's trials are cut into chunks of :data:`~.runner.CHUNK_TRIALS` games; chunk ``i``
plays from the ``i``-th child of the run's seed, and the kernel keys each game's streams
from its chunk's key and its index in the chunk (:mod:`explore_sim.engine.kernel`). Trial
``K`` is therefore game ``K % CHUNK_TRIALS`` of chunk ``K // CHUNK_TRIALS``, and it can be
played alone: the replay is exactly that game, its metrics the run's values for it.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Callable, Mapping, Sequence
from os import PathLike
from typing import Any

import numpy as np
import pandas as pd

from ..cards.card import Card
from ..cards.decklist import Deck, load_deck
from ..engine.goldfish import Goldfish, deck_tables
from ..engine.metrics import OPENING_METRICS
from ..engine.mulligan import MulliganRule
from ..engine.policies import Policy, one_policy, policy_name
from ..errors import OptionError
from .engines import kernel_unavailable
from .game_setup import game_mulligan, game_setup, run_meta, with_engine, with_game_options
from .report import start_text
from .runner import CHUNK_TRIALS, child_seed, seed_sequence

__all__ = ["replay", "find_trial", "GameReplay", "EVENT_COLUMNS", "SEARCH_TRIALS", "log_text"]

#: The columns of :attr:`GameReplay.events`.
EVENT_COLUMNS = ("turn", "step", "event", "card", "detail")
#: What an explore did with the revealed card (the kernel's numbering, :mod:`.trace`).
_EXPLORED = ("a +1/+1 counter", "to hand", "kept on top", "milled")


@dataclasses.dataclass(frozen=True, eq=False)
class GameReplay:
    """One game of a :func:`~explore_sim.simulate` run, as :func:`replay` plays it again.

    Attributes
    ----------
    meta : dict
        What was run (JSON-safe), as :func:`~explore_sim.simulate` records it (``command``
        is ``replay``), with ``trial`` (the game's index in the run), ``chunk`` and
        ``chunk_game`` (its chunk and its index there).
    events : DataFrame
        The game's log, one row per event: ``turn`` (0: the opening hand), ``step`` (the
        event's order in its turn, from 1), ``event`` (``deal``, ``bottom``, ``mulligan``,
        ``keep``, ``draw``, ``decked``, ``land``, ``land_put``, ``land_leaves``,
        ``searched`` (a land a search put into the hand), ``sacrificed``, ``cast`` (with the
        life its mana cost, as a Map's use and an ability's explore), ``life_paid`` (life
        another payment cost), ``explore_effect`` (what makes a creature explore: ``card``
        is the card whose trigger, ability or spell it is; a Map's is ``map_used``),
        ``explore`` (one card
        revealed), ``counters`` (+1/+1 counters put on ``card``), ``life_gained`` and
        ``pumped`` (what ``card``'s explore trigger gave: Wildgrowth Walker's life, Merfolk
        Cave-Diver's +1/+0), ``scry``, ``removed``,
        ``maps_made``, ``map_used``, ``combat`` (the beginning of a combat in which something
        happened), ``attack``, ``damage``, ``held`` (a spell in hand held at the end of the
        second main phase, and why: no target, or no effect a goldfish game plays),
        ``discard``, ``end_turn``),
        ``card`` (a card's name, or empty) and ``detail``.
    metrics : DataFrame
        The game's per-turn metric values: one row per turn (index ``turn``, from 1), one
        column per metric.
    opening : dict of str to int
        The opening hand's metrics: ``mulligans``, ``hand_size``, ``opening_lands``.
    """

    meta: dict[str, Any]
    events: pd.DataFrame
    metrics: pd.DataFrame
    opening: dict[str, int]

    def text(self) -> str:
        """The game as a readable log, turn by turn.

        Returns
        -------
        str
        """
        meta = self.meta
        play = start_text(meta)
        lines = [f"replay: trial {meta['trial']} (seed {meta['seed']}, "
                 f"{meta['turns']} turn{'s' if meta['turns'] != 1 else ''}, {play})",
                 f"  deck: {meta['deck'][0]['name']}",
                 f"  policy: {meta['policy'][0]}",
                 f"  mulligan: {meta['mulligan']}",
                 f"  chunk {meta['chunk']}, game {meta['chunk_game']}; engine: kernel"]
        held: dict[str, str] = {}
        for turn, rows in self.events.groupby("turn", sort=True):
            lines.append("")
            lines.append("opening hand" if turn == 0 else f"turn {turn}")
            lines.extend(_turn_lines(rows, held))
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        return (f"GameReplay(trial={self.meta['trial']}, seed={self.meta['seed']}, "
                f"turns={self.meta['turns']}, events={len(self.events)})")


def _turn_lines(rows: pd.DataFrame, held: dict[str, str]) -> list[str]:
    """One turn's events as lines: a dealt hand on one line, the others one each. ``held``:
    the spells held at the end of the turn before (card: detail), updated to this turn's; a
    spell held as it was then is not said again."""
    lines: list[str] = []
    dealt: list[str] = []
    before = dict(held)
    held.clear()
    row: Any  # the log's columns hold text and whole numbers (pandas' stubs name neither)
    for row in rows.itertuples():
        if row.event == "held":
            held[row.card] = row.detail
            if before.get(row.card) == row.detail:
                continue  # held as on the turn before
        if row.event == "combat":
            lines.append("  combat")
            continue
        if row.event == "deal":
            dealt.append(row.card)
            continue
        if dealt:
            lines.append(f"  dealt {len(dealt)}: {', '.join(dealt)}")
            dealt = []
        words = f"  {row.event.replace('_', ' ')}"
        if row.event == "counters":
            lines.append(f"  +1/+1 counters: {row.detail}")
            continue
        if row.event == "explore_effect":
            lines.append(f"  {row.detail}")
            continue
        if row.event in ("life_gained", "pumped"):  # an explore trigger's
            lines.append(f"  {row.card}: {row.detail}")
            continue
        if row.event in ("explore", "damage"):
            lines.append(f"{words}: {row.detail}")
            continue
        if row.card:
            words += f" {row.card}"
        if row.detail:
            words += f" ({row.detail})" if row.card else f": {row.detail}"
        lines.append(words)
    if dealt:
        lines.append(f"  dealt {len(dealt)}: {', '.join(dealt)}")
    return lines


def _detail(event: str, card: int, a: int, b: int, name: Callable[[int], str]) -> str:
    """What an event's numbers say (:data:`~explore_sim.engine.kernel.trace.TRACE_EVENTS`)."""
    if event in ("land", "land_put"):  # b: the life paid to have it untapped
        return "tapped" if a else f"untapped, {b} life paid" if b else "untapped"
    if event == "land_leaves":
        return "returned to hand" if a == 1 else "sacrificed"
    if event == "sacrificed":
        return "for its mana"
    if event == "searched":
        return "into the hand"
    if event == "cast":
        return f"{a} mana" + (f", X = {b}" if b >= 0 else "")
    if event == "explore":
        return f"{name(b) or 'a creature'} reveals {name(card) or 'nothing'}: {_EXPLORED[a]}"
    if event == "maps_made":
        return f"{a} Map{'s' if a != 1 else ''}"
    if event == "explore_effect":
        times = f" {a} times" if a != 1 else ""
        if card == b:
            return f"{name(b)} explores{times}"
        return f"{name(card)} makes {name(b)} explore{times}"
    if event == "map_used":
        return "a Map: it explores" + (", paid with mana left in the pool" if a else "")
    if event == "damage":
        return f"{a} combat damage ({b} in all)"
    if event == "discard":
        return f"{a} cop{'ies' if a != 1 else 'y'} to the hand limit"
    if event == "mulligan":
        return f"{b} land{'s' if b != 1 else ''}: shuffled away"
    if event == "keep":
        return f"after {a} mulligan{'s' if a != 1 else ''}"
    if event == "attack":
        return f"{a} attacking, {b} damage" if a != 1 else f"{b} damage"
    if event == "scry":
        return "to the bottom" if a else "kept on top"
    if event == "counters":
        each = f" ({a // b} on each of {b})" if b > 1 else ""
        return f"{a} on {name(card)}{each}"
    if event == "life_gained":
        each = f" ({a // b} from each of {b})" if b > 1 else ""
        return f"{a} life gained{each}"
    if event == "pumped":
        each = f" on each of {b}" if b > 1 else ""
        return f"+{a // b}/+0 until end of turn{each}"
    if event == "held":
        copies = f"{a} copies, " if a > 1 else ""
        if b == 2:
            return (f"{copies}no target: its target would be an opponent's, and a goldfish "
                    "opponent has none")
        if b == 3:
            return f"{copies}no effect a goldfish game plays: never cast as a spell"
        return f"{copies}no target: no creature you control"
    if event == "end_turn":
        return f"{a} land{'s' if a != 1 else ''} in play, {b} card{'s' if b != 1 else ''} in hand"
    return ""


def log_text(trace: np.ndarray, cards: Sequence[Card]) -> str:
    """A compiled game's log as the turn-by-turn text :meth:`GameReplay.text` shows.

    Parameters
    ----------
    trace : ndarray of shape (n, 5)
        The game's events ``(turn, event, card, a, b)``
        (:func:`~explore_sim.engine.kernel.play_game_kernel`).
    cards : sequence of Card
        The deck's cards, card id ``i`` being ``cards[i - 1]``.

    Returns
    -------
    str
    """
    lines: list[str] = []
    held: dict[str, str] = {}
    for turn, rows in _events(trace, cards).groupby("turn", sort=True):
        lines.append("opening hand" if turn == 0 else f"turn {turn}")
        lines.extend(_turn_lines(rows, held))
    return "\n".join(lines) + "\n"


def _events(trace: np.ndarray, cards: Sequence[Card]) -> pd.DataFrame:
    """The tidy log of a kernel trace (rows ``(turn, event, card, a, b)``)."""
    from ..engine.kernel.trace import TRACE_EVENTS  # numba: only where a replay is played

    def name(card: int) -> str:
        return cards[card - 1].name if card > 0 else ""

    rows: list[tuple[int, int, str, str, str]] = []
    steps: dict[int, int] = {}
    life = 0  # paid for the mana of the payment just made, said with what it paid for
    for turn, code, card, a, b in trace.tolist():
        event = TRACE_EVENTS[code]
        if event == "deal":
            continue  # the attempt starts: its cards follow
        if event == "life_paid":
            life += a
            continue
        event = "deal" if event == "dealt" else event
        if event == "held" and b == 2 and cards[card - 1].target != "opponent":
            b = 3  # held as none of its effects is played (the kernel's code 2 says held)
        detail = _detail(event, card, a, b, name)
        if life and event in _PAID_EVENTS:
            detail += f", {life} life paid for its mana"
        elif life:
            steps[turn] = steps.get(turn, 0) + 1
            rows.append((turn, steps[turn], "life_paid", "", f"{life} for mana"))
        life = 0
        steps[turn] = steps.get(turn, 0) + 1
        rows.append((turn, steps[turn], event, name(card), detail))
    return pd.DataFrame(rows, columns=list(EVENT_COLUMNS))


#: The events noted right after a payment, which say the life it cost (pain lands).
_PAID_EVENTS = ("cast", "map_used", "explore_effect")


def _check_trial(trial: object, trials: int) -> int:
    if isinstance(trial, bool) or not isinstance(trial, numbers.Integral):
        raise OptionError(f"trial must be a whole number, got {trial!r}")
    if not 0 <= int(trial) < trials:
        raise OptionError(f"trial must be from 0 to {trials - 1} (the run's trials less one), "
                          f"got {trial}")
    return int(trial)


@dataclasses.dataclass(frozen=True)
class _KernelGame:
    """What every game of a run played on the kernel shares: the deck, its tables, the
    setup, the policy, the mulligan rule as played and the run's seed."""

    deck: Deck
    tables: Any
    setup: Any
    policy: Policy
    mulligan: MulliganRule
    seed_seq: Any


def _kernel_game(deck: Deck | str | PathLike[str], trials: int, options: dict[str, Any],
                 policy: Any, seed: Any) -> _KernelGame:
    """The run's games as :func:`~explore_sim.simulate` sets them up, on the kernel (or the
    one-line refusal: ``engine="numpy"``, no numba, games the kernel cannot play)."""
    deck = deck if isinstance(deck, Deck) else load_deck(deck)
    if options.get("engine", "auto") == "numpy":
        raise OptionError("engine: a replay plays the compiled kernel's game; use auto or "
                          "kernel")
    missing = kernel_unavailable()
    if missing is not None:
        raise OptionError(f"a replay plays the compiled kernel's game, and {missing}")
    setup = game_setup([deck], trials, dict(options, engine="kernel"))
    config = setup.config
    policy = one_policy(policy, "replay")
    features = deck.features()
    Goldfish(features, config, policy, setup.scry, {})  # validate cast_order up front
    setup = with_engine(setup, [(deck, policy)])
    return _KernelGame(deck, deck_tables(features, config), setup, policy,
                       game_mulligan(setup.rule, config, features), seed_sequence(seed))


@with_game_options(positional=("turns", "on_play", "mulligan", "removal"))
def replay(
    deck: Deck | str | PathLike[str],
    trial: int = 0,
    turns: int = 6,
    on_play: bool = True,
    mulligan: str | MulliganRule | None = "london",
    policy: str | Policy | Mapping[str, str | Policy] = "forge",
    trials: int = 100_000,
    seed: Any = None,
    removal: float = 0.0,
    **options: Any,
) -> GameReplay:
    """Play trial ``trial`` of :func:`~explore_sim.simulate` with the same options again,
    with its log.

    Parameters
    ----------
    deck : Deck, path or decklist text
    trial : int
        The game's index in the run: 0 to ``trials - 1``.
    turns, on_play, mulligan, policy, trials, seed, removal
        As for :func:`~explore_sim.simulate` (``trials`` only bounds ``trial``: a trial's
        game does not depend on how many follow it). With ``seed=None`` the game is one of a
        fresh run's, its seed in ``meta["seed"]``.
    {game_options}
    **options
        The other game options, as for :func:`~explore_sim.simulate`; ``engine`` may only
        be ``auto`` or ``kernel``: the replay is the compiled kernel's game.

    Returns
    -------
    GameReplay

    Raises
    ------
    OptionError
        A trial out of range, ``engine="numpy"``, no numba, or games the kernel cannot
        play.
    """
    game = _kernel_game(deck, trials, dict(options, turns=turns, on_play=on_play,
                                           mulligan=mulligan, removal=removal), policy, seed)
    trial = _check_trial(trial, game.setup.trials)
    chunk, index = divmod(trial, CHUNK_TRIALS)
    from ..engine.kernel import play_game_kernel

    config = game.setup.config
    values, trace = play_game_kernel(
        game.tables, config, game.policy, game.mulligan, child_seed(game.seed_seq, chunk),
        game.deck.card_ids(), index, game.setup.scry)
    meta = dict(run_meta("replay", [game.deck], game.setup, [game.policy], game.seed_seq),
                trial=trial, chunk=chunk, chunk_game=index)
    meta["policy"] = [policy_name(game.policy)]
    metrics = pd.DataFrame({name: [int(values[t][name][0]) for t in range(1, config.turns + 1)]
                            for name in values[1]},
                           index=pd.RangeIndex(1, config.turns + 1, name="turn"))
    opening = {name: int(value[0]) for name, value in values[0].items()}
    return GameReplay(meta, _events(trace, game.deck.features().cards), metrics, opening)


#: The most trials :func:`find_trial` plays to find a game (the first ones of the run).
SEARCH_TRIALS = 8192


@with_game_options(positional=("turns", "on_play", "mulligan", "removal"))
def find_trial(
    deck: Deck | str | PathLike[str],
    metric: str,
    turn: int,
    value: int,
    turns: int = 6,
    on_play: bool = True,
    mulligan: str | MulliganRule | None = "london",
    policy: str | Policy | Mapping[str, str | Policy] = "forge",
    trials: int = 100_000,
    seed: Any = None,
    removal: float = 0.0,
    search: int = SEARCH_TRIALS,
    **options: Any,
) -> int | None:
    """The first trial of a :func:`~explore_sim.simulate` run whose ``metric`` is ``value``
    at the end of ``turn``: a game to watch with :func:`replay`.

    The run's first ``search`` trials (at most its first chunk) are played again, at once, on
    the compiled kernel, without their logs; each is the run's own game (its streams are keyed
    by its index alone), so the trial found is exactly in that bucket of the run's
    distribution.

    Parameters
    ----------
    deck : Deck, path or decklist text
    metric : str
        A per-turn metric the run records (``castable:CARD`` included), or at turn 0 an
        opening hand's metric (``mulligans``, ``hand_size``, ``opening_lands``).
    turn : int
        0 (the opening hand) to ``turns``.
    value : int
        The value looked for.
    turns, on_play, mulligan, policy, trials, seed, removal
        As for :func:`replay`.
    search : int
        The most trials looked at (bounded by ``trials`` and by one chunk's trials).
    {game_options}
    **options
        The other game options, as for :func:`replay`.

    Returns
    -------
    int or None
        The trial, or None when none of the trials looked at has that value.

    Raises
    ------
    OptionError
        A metric the run does not record, a turn out of range, or what :func:`replay`
        refuses.
    """
    game = _kernel_game(deck, trials, dict(options, turns=turns, on_play=on_play,
                                           mulligan=mulligan, removal=removal), policy, seed)
    config = game.setup.config
    if isinstance(turn, bool) or not isinstance(turn, numbers.Integral) \
            or not 0 <= turn <= config.turns:
        raise OptionError(f"turn must be from 0 (the opening hand) to {config.turns} (the "
                          f"turns played), got {turn!r}")
    if turn == 0 and metric not in OPENING_METRICS:
        raise OptionError(f"turn 0 is the opening hand: its metrics are "
                          f"{', '.join(OPENING_METRICS)}, not {metric!r}")
    if turn > 0 and metric not in config.metric_names:
        raise OptionError(f"metric {metric!r} is not recorded by this run")
    from ..engine.kernel import play_games_kernel

    games = max(1, min(int(search), game.setup.trials, CHUNK_TRIALS))
    values = play_games_kernel(game.tables, config, game.policy, game.mulligan, games,
                               child_seed(game.seed_seq, 0), game.deck.card_ids(),
                               game.setup.scry)
    hits = (values[int(turn)][metric] == value).nonzero()[0]
    return int(hits[0]) if len(hits) else None
