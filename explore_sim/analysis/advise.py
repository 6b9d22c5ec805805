"""Keep or mill, now: both choices played on from a position, on the same libraries.

A *position* is a moment of your game: the turn, your hand, your battlefield and graveyard,
and the nonland card an explore has just revealed. :func:`advise` shuffles the rest of the
deck (every card not known to be elsewhere) once per trial, puts the revealed card on top,
and plays two branches on that same library: *keep* (the card stays on top) and *mill* (it
goes to the graveyard). Everything after that first choice (the explores left, the rest of
the turn, later turns, later keep-or-mill decisions by a policy) is played by the goldfish
engine with the same random streams in both branches, so the per-trial difference
mill - keep measures the choice alone (common random numbers). For each objective
(:mod:`explore_sim.analysis.objectives`) it reports the mean paired difference, its paired
standard error and 95% interval, and a verdict: ``mill`` or ``keep`` when the interval is
on one side of 0, else ``no clear difference``.

What a position assumes, and which positions are refused, is in
:mod:`~explore_sim.analysis.advise_position` (and in the result's metadata).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from os import PathLike
from typing import Any

import numpy as np
import pandas as pd

from ..cards.decklist import Deck, load_deck
from ..engine.castability import record_main_phase
from ..engine.explore_effects import explore_instruction
from ..engine.goldfish import GameConfig, GameState, Goldfish, is_commander_game
from ..engine.policies import Observation, Policy, one_policy, policy_name
from ..errors import OptionError
from ..progress import callback, shows_progress
from .advise_position import PHASES, Position, check_paid, position
from .engines import position_engine
from .objectives import KILL_TURN, Objective, PairedValues, parse_objectives
from .report import deck_meta, meta_text, text_table, versions
from .results import Result
from .runner import CHUNK_TRIALS, check_trials, child_seed, run_chunks, seed_sequence, stopped_meta

__all__ = ["advise", "AdviceResult", "Position", "position", "ADVICE_COLUMNS", "PHASES",
           "maps_text", "advice_cells"]

#: Columns of :meth:`AdviceResult.summary`.
ADVICE_COLUMNS = ("objective", "keep", "keep_se", "mill", "mill_se", "difference", "se",
                  "ci_low", "ci_high", "verdict")
_STREAMS = ("policy", "removal", "parley", "search")


class _FirstChoice:
    """A policy whose first decision is given (keep or mill the revealed card); every later
    decision is ``then``'s. One object per branch and chunk: the first call is the explore
    of the position, asked for every trial at once."""

    def __init__(self, mill: bool, then: Policy) -> None:
        self.mill = mill
        self.then = then
        self.name = policy_name(then)
        self.pending = True

    def __call__(self, obs: Observation, rng: np.random.Generator) -> np.ndarray:
        if self.pending:
            self.pending = False
            return np.full(obs.trials, self.mill, dtype=bool)
        return self.then(obs, rng)


def play_branch(pos: Position, config: GameConfig, policy: Policy, mill: bool,
                library: np.ndarray, chunk_seed: np.random.SeedSequence,
                last_turn: int) -> tuple[dict[int, dict[str, np.ndarray]], GameState]:
    """Play one branch from the position: the first choice, then the game to ``last_turn``.

    Parameters
    ----------
    pos : Position
    config : GameConfig
    policy : callable
        Later keep-or-mill decisions (and scries).
    mill : bool
        The first choice: mill the revealed card (True) or keep it on top.
    library : ndarray, shape (trials, size + 2)
        :meth:`Position.libraries` (copied, not modified): both branches get the same one.
    chunk_seed : numpy.random.SeedSequence
        The streams of the policy, parley and searches (the same in both branches).
    last_turn : int

    Returns
    -------
    (dict of int to dict of str to ndarray, GameState)
        Per-trial metrics at the end of each turn from the position's to ``last_turn``, and
        the final state.
    """
    rngs = {name: np.random.default_rng(child_seed(chunk_seed, i + 1))
            for i, name in enumerate(_STREAMS)}
    game = Goldfish(pos.features, config, _FirstChoice(mill, policy), policy, rngs)
    state = pos.start(game, library)
    everyone = np.arange(state.trials)
    explorer = pos.features.id_of(pos.explorer)
    explore_instruction(game.play, state, everyone, explorer, pos.explores_left,
                        targeted=False, just_entered=pos.explorer_cast)
    # The rest of the turn (docs: the turn structure of a goldfish game).
    if pos.phase == "main1":
        game.main_phase(state, second=False)
        game.combat(state)
    else:
        record_main_phase(game.play, state)  # the turn's main-phase metrics, at the position
    game.main_phase(state, second=True)
    game.cleanup(state)
    out = {pos.turn: game.turn_metrics(state)}
    for turn in range(pos.turn + 1, last_turn + 1):
        game.play_turn(state)
        out[turn] = game.turn_metrics(state)
    return out, state


def _verdict(found: Mapping[str, float]) -> str:
    if found["ci_low"] > 0:
        return "mill"
    if found["ci_high"] < 0:
        return "keep"
    return "no clear difference"


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class AdviceResult(Result):
    """The outcome of :func:`advise`: per objective, keep, mill, and mill - keep.

    Attributes
    ----------
    meta : dict
        What was run and assumed (JSON-safe): ``command`` (``"advise"``), ``deck``,
        ``position`` (:meth:`Position.describe`), ``policy`` (later decisions),
        ``objectives``, ``trials``, ``seed``, ``assumptions``, ``versions``.
    sums : list of PairedValues
        Per objective, the sums of the keep (0) and mill (1) branches' values.
    """

    meta: dict[str, Any]
    sums: list[PairedValues]

    def summary(self, level: float = 0.95) -> pd.DataFrame:
        """One row per objective.

        Parameters
        ----------
        level : float
            Confidence level of the intervals.

        Returns
        -------
        DataFrame
            :data:`ADVICE_COLUMNS`: the mean objective with keep and with mill (and their
            standard errors), the paired difference mill - keep with its standard error and
            interval, and the verdict (``mill``, ``keep`` or ``no clear difference``: the
            interval covers 0). ``attrs["explore_sim"]`` holds :attr:`meta`.
        """
        rows = []
        for text, sums in zip(self.meta["objectives"], self.sums):
            keep, mill = sums.mean(0, level), sums.mean(1, level)
            diff = sums.difference(1, 0, level)
            rows.append({"objective": text, "keep": keep["mean"], "keep_se": keep["se"],
                         "mill": mill["mean"], "mill_se": mill["se"],
                         "difference": diff["mean"], "se": diff["se"],
                         "ci_low": diff["ci_low"], "ci_high": diff["ci_high"],
                         "verdict": _verdict(diff)})
        return self._with_meta(pd.DataFrame(rows, columns=list(ADVICE_COLUMNS)))

    def render(self, fmt: str = "table") -> str:
        """The advice as text, as the command line prints it.

        Parameters
        ----------
        fmt : {"table", "csv", "json"}

        Returns
        -------
        str
        """
        return super().render(fmt)

    def _table(self, rows: pd.DataFrame) -> str:
        where = self.meta["position"]
        lines = [
            f"advise: keep or mill {where['revealed']}, revealed by {where['explorer']} "
            f"({where['explores_left']} explore{'s' if where['explores_left'] > 1 else ''} "
            "left, this one included)",
            f"  deck: {self.meta['deck'][0]['name']}",
            f"  position: turn {where['turn']} "
            f"{'on the play' if where['on_play'] else 'on the draw'}"
            f", {'first' if where['phase'] == 'main1' else 'second'} main phase; "
            + (f"{where['mana_used']} mana used before the explore; "
               if where.get("mana_used") else "")
            + (f"{maps_text(where['maps'])} in play; " if where.get("maps") else "")
            + f"{where['library']} cards in the library",
            f"  hand: {meta_text(where['hand']) or '-'}",
            f"  battlefield: {meta_text(where['battlefield'])}",
            f"  graveyard: {meta_text(where['graveyard']) or '-'}",
            f"  later decisions: {self.meta['policy'][0]}",
            f"  trials: {self.meta['trials']}  seed: {self.meta['seed']}",
            "",
        ]
        lines += [line.rstrip() for line in text_table(advice_cells(rows)).splitlines()]
        lines.append("")
        lines.append("  cells: mean (standard error); mill - keep is paired: both branches "
                     "play the same library in every trial")
        return "\n".join(lines) + "\n"

    def _facts(self) -> dict[str, Any]:
        where = self.meta["position"]
        return {"deck": self.meta["deck"][0]["name"], "turn": where["turn"],
                "revealed": where["revealed"], "objectives": self.meta["objectives"],
                "trials": self.meta["trials"], "seed": self.meta["seed"]}

    def _html(self) -> tuple[list[str], pd.DataFrame, bool]:
        table = self.summary()[["objective", "difference", "se", "ci_low", "ci_high",
                                "verdict"]].round(4)
        return [self._facts_line(), "difference: mill - keep, paired on the same libraries"], \
            table, False


def advice_cells(rows: pd.DataFrame,
                 interval: Callable[[float, float], str] = lambda lo, hi:
                 f"[{lo:+.4f}, {hi:+.4f}]") -> pd.DataFrame:
    """The advice as people read it: ``mean (se)`` cells, the interval and the verdict.

    Parameters
    ----------
    rows : DataFrame
        :meth:`AdviceResult.summary`.
    interval : callable
        ``interval(ci_low, ci_high)``: the text of an interval (default ``[+a, +b]``).

    Returns
    -------
    DataFrame
        ``objective, keep, mill, mill - keep, 95% interval, verdict``, text cells.
    """
    return pd.DataFrame({
        "objective": rows["objective"],
        "keep": [f"{m:.4f} ({s:.4f})" for m, s in zip(rows["keep"], rows["keep_se"])],
        "mill": [f"{m:.4f} ({s:.4f})" for m, s in zip(rows["mill"], rows["mill_se"])],
        "mill - keep": [f"{m:+.4f} ({s:.4f})" for m, s in zip(rows["difference"], rows["se"])],
        "95% interval": [interval(lo, hi) for lo, hi in zip(rows["ci_low"], rows["ci_high"])],
        "verdict": rows["verdict"],
    })


@dataclasses.dataclass(frozen=True)
class _BranchTask:
    """Both choices played on from a position over one chunk's libraries: the paired sums of
    every objective (a picklable chunk task for :mod:`.executors`)."""

    pos: Position
    config: GameConfig
    policy: Policy
    objectives: tuple[Objective, ...]
    last_turn: int

    def __call__(self, size: int, child: np.random.SeedSequence) -> list[PairedValues]:
        library = self.pos.libraries(size, np.random.default_rng(child_seed(child, 0)))
        branches = [play_branch(self.pos, self.config, self.policy, mill, library, child,
                                self.last_turn)[0]
                    for mill in (False, True)]
        found = [PairedValues(2) for _ in self.objectives]
        for objective, part in zip(self.objectives, found):
            part.add([objective.values(games) for games in branches])
        return found


#: What advise assumes, for its metadata.
_ASSUMPTIONS = [
    "goldfish: no opponent; attacks are unblocked",
    "both branches play the same library in every trial (common random numbers); "
    "only the first choice differs",
    "the explore happens in the phase given; the turn goes on from there",
    "listed permanents were there before this turn, except an explorer cast this turn "
    "(its cost paid, least flexible sources first; summoning sick)",
    "mana_used more mana was paid this turn from your sources as generic mana, the engine's "
    "way (a Map's {1}, a spell before the explore); nothing else is tapped",
    "maps: Map tokens you control, used as the game uses its own (M1-M6)",
    "the turn's land has been played when you control at least as many lands as the "
    "turn number",
    "event metrics count from the position on",
    "objectives are maximised; the verdict is mill or keep when the 95% interval of "
    "mill - keep excludes 0",
]


def _advise_meta(deck: Deck, pos: Position, policy: Policy, chosen: list[Objective],
                 config: GameConfig, trials: int, seed_seq: Any) -> dict[str, Any]:
    """The metadata of an advice (JSON-safe)."""
    features = deck.features()
    meta = {
        "command": "advise",
        "deck": [deck_meta(deck)],
        "position": pos.describe(),
        "policy": [policy_name(policy)],
        "objectives": [objective.text for objective in chosen],
        "game": "commander" if is_commander_game(config, features) else "normal",
        "turns": config.turns,
        "trials": trials,
        "seed": seed_seq.entropy,
        "chunk_trials": CHUNK_TRIALS,
        "interval": "95%: mean +/- 1.96 se (paired for mill - keep)",
        "assumptions": _ASSUMPTIONS,
        "versions": versions(),
    }
    return meta


def maps_text(maps: int) -> str:
    """The Map tokens of a position in words.

    Parameters
    ----------
    maps : int

    Returns
    -------
    str
        ``1 Map token``, ``2 Map tokens``.
    """
    return f"{maps} Map token{'' if maps == 1 else 's'}"


def _objectives(objectives: Any, turn: int) -> list[Objective]:
    """The objectives of an advice (default: on_curve next turn, mana_spent three turns on),
    none looking at a turn before the position's."""
    if objectives is None:
        objectives = f"on_curve@{turn + 1},mana_spent@{turn + 3}"
    chosen = parse_objectives(objectives)
    for objective in chosen:
        dead = [m for m, _ in objective.terms if m == "opponent_dead" or m == KILL_TURN]
        if dead:  # they add the damage done before the position, which it does not say
            raise OptionError(f"objective {objective.text!r}: advise cannot use {dead[0]}, a "
                              "position does not say how much damage the opponent has taken "
                              "(damage@T counts it from the position on)")
        if objective.first_turn < turn:
            raise OptionError(f"objective {objective.text!r} looks at turn "
                              f"{objective.first_turn}, before the position's turn {turn}")
    return chosen


@shows_progress("advise")
def advise(
    deck: Deck | str | PathLike[str],
    *,
    turn: int,
    revealed: str,
    hand: str | Iterable[str] | Mapping[str, int] = (),
    battlefield: str | Iterable[str] | Mapping[str, int] = (),
    graveyard: str | Iterable[str] | Mapping[str, int] = (),
    explorer: str | None = None,
    explores_left: int = 1,
    objectives: str | Objective | Sequence[str | Objective] | None = None,
    policy: str | Policy = "forge",
    on_play: bool = True,
    explorer_cast: bool = True,
    mana_used: int = 0,
    maps: int = 0,
    phase: str = "main1",
    trials: int = 100_000,
    seed: Any = None,
    game: str = "auto",
    engine: str = "auto",
    progress: Callable[[int, int], None] | bool | None = None,
    workers: int = 1,
    scheduler: Any = None,
) -> AdviceResult:
    """Keep or mill the card an explore just revealed: both choices played on, paired.

    Parameters
    ----------
    deck : Deck, path or decklist text
    turn, revealed, hand, battlefield, graveyard, explorer, explores_left
        The position, as for :func:`~.advise_position.position`: the library is the deck
        less every known card and the revealed one.
    objectives : str, Objective or sequence, optional
        What to compare (:mod:`explore_sim.analysis.objectives`), such as
        ``"on_curve@5,mana_spent@6"``. Default: ``on_curve`` the next turn and
        ``mana_spent`` three turns on.
    policy : str or callable
        Later keep-or-mill decisions (and scries), default ``forge``.
    on_play, explorer_cast, mana_used, maps, phase
        As for :func:`~.advise_position.position` (``explorer_cast=False`` for an explore by
        a Map, an attack or a spell; ``mana_used=1`` for the Map's {1}; ``maps``: the Map
        tokens you still control).
    trials : int
        Libraries played (each by both branches).
    seed : int, SeedSequence, Generator or None
    game : {"auto", "normal", "commander"}
        A Commander game when the deck has a commander (``auto``).
    engine : {"auto", "numpy"}
        The NumPy engine plays on from the position (``"kernel"`` is refused: the compiled
        kernel plays whole games from the deal); recorded in the metadata.
    progress : callable, False or None
        As in :func:`~explore_sim.simulate` (a display by default; False for none).
    workers : int
        Processes (0: every core); the numbers do not depend on it.
    scheduler : str, distributed.Client or Executor, optional
        A Dask scheduler (``tcp://HOST:PORT``) to play on instead of local processes.

    Returns
    -------
    AdviceResult

    Raises
    ------
    OptionError, DeckError
        An impossible or unsupported position, a bad objective or option
        (:func:`position`).
    """
    deck = deck if isinstance(deck, Deck) else load_deck(deck)
    pos = position(deck, turn=turn, revealed=revealed, hand=hand, battlefield=battlefield,
                   graveyard=graveyard, explorer=explorer, explores_left=explores_left,
                   explorer_cast=explorer_cast, mana_used=mana_used, maps=maps,
                   on_play=on_play, phase=phase)
    chosen = _objectives(objectives, pos.turn)
    last_turn = max(objective.last_turn for objective in chosen)
    policy = one_policy(policy, "advise")
    choice = position_engine(engine)
    trials = check_trials(trials)
    config = GameConfig(turns=last_turn, on_play=pos.on_play, game=game)
    check_paid(pos, config, policy)
    seed_seq = seed_sequence(seed)
    sums = [PairedValues(2) for _ in chosen]

    def merge(parts: list[PairedValues]) -> None:
        for total, part in zip(sums, parts):
            total.merge(part)

    task = _BranchTask(pos, config, policy, tuple(chosen), last_turn)
    done = run_chunks(task, merge, trials, seed_seq, progress=callback(progress), workers=workers,
                      scheduler=scheduler, stop_early=True)
    meta = {**_advise_meta(deck, pos, policy, chosen, config, trials, seed_seq), **choice.meta()}
    return AdviceResult(meta=stopped_meta(meta, done, trials), sums=sums)
