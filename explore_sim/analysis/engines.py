"""Which engine plays a run's goldfish games: the compiled kernel or the vectorised NumPy engine.

Both engines play the same rules (:mod:`explore_sim.engine.kernel` is checked game by game
against :mod:`explore_sim.engine.goldfish` on the same libraries), but they draw their
randomness differently, so the same seed gives other (equally valid) numbers on each. The
``engine`` game option says which plays:

- ``"numpy"``: the vectorised engine, every game of a chunk at once;
- ``"kernel"``: the compiled kernel, whole games one at a time; a run it cannot play (a
  Python callable as policy, scry policy or keep rule, an ability it does not play) or a
  machine where numba cannot be imported is refused with one line naming why;
- ``"auto"`` (the default): the kernel when numba imports and the kernel can play every
  game of the run, else the NumPy engine, the reason recorded as ``engine_fallback``. When
  numba cannot be imported a one-line :class:`~explore_sim.errors.OptionWarning` says so,
  once per process.

One engine plays every variant of a run (a comparison, a sweep, a valuation, a tune), so
that variants played on the same seed keep sharing their shuffles (common random numbers).
"""

from __future__ import annotations

import dataclasses
import sys
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..cards import FeatureTable
from ..engine.config import GameConfig
from ..engine.goldfish import deck_tables
from ..engine.mulligan import MulliganRule
from ..engine.options import option
from ..engine.policies import Policy
from ..errors import OptionError, OptionWarning

__all__ = ["EngineChoice", "EnginePlay", "choose_engine", "position_engine",
           "kernel_unavailable", "kernel_compiling", "numba_requirement", "POSITION_FALLBACK"]

#: Why a game played on from a position (advise) is the NumPy engine's: the kernel plays
#: whole games from the deal.
POSITION_FALLBACK = "the compiled kernel plays whole games from the deal, not on from a position"

_STATE: dict[str, Any] = {}


@dataclasses.dataclass(frozen=True)
class EngineChoice:
    """The engine that plays a run, and why ``auto`` did not choose the kernel.

    Attributes
    ----------
    engine : {"kernel", "numpy"}
    fallback : str or None
        Why ``auto`` chose the NumPy engine (None: it was asked for, or the kernel plays).
    """

    engine: str
    fallback: str | None = None

    def meta(self) -> dict[str, str]:
        """The choice in a result's metadata.

        Returns
        -------
        dict of str to str
            ``{"engine": ...}``, with ``"engine_fallback"`` when ``auto`` fell back.
        """
        out = {"engine": self.engine}
        if self.fallback is not None:
            out["engine_fallback"] = self.fallback
        return out


@dataclasses.dataclass(frozen=True)
class EnginePlay:
    """One deck and policy of a run, as the engine choice looks at it.

    Attributes
    ----------
    features : FeatureTable
        The deck's cards.
    policy : callable
        The keep-or-mill policy.
    mulligan : MulliganRule
        The mulligan rule as played (:func:`~.game_setup.game_mulligan`).
    label : str
        The variant's name, for messages when a run has several.
    card_ids : ndarray of shape (size,), optional
        The deck's library (:meth:`~explore_sim.cards.decklist.Deck.card_ids`): given, the
        choice of the kernel loads it in this process once (one game), so that worker
        processes forked from it start with it loaded.
    """

    features: FeatureTable
    policy: Policy
    mulligan: MulliganRule
    label: str = ""
    card_ids: np.ndarray | None = None


def kernel_unavailable() -> str | None:
    """Why the compiled kernel cannot run in this process (None: numba imports).

    Returns
    -------
    str or None
        One line, such as ``"numba cannot be imported (No module named 'numba')"``.
    """
    if "unavailable" not in _STATE:
        try:
            import numba  # noqa: F401

            from ..engine import kernel  # noqa: F401
        except ImportError as error:
            _STATE["unavailable"] = (f"numba cannot be imported ({' '.join(str(error).split())}"
                                     f"; pip install '{numba_requirement()}' adds it)")
        else:
            _STATE["unavailable"] = None
    return _STATE["unavailable"]


def numba_requirement() -> str:
    """The numba the package asks for (``numba>=0.60``: its ``fast`` extra), which ``pip
    install`` adds to a wheel's install and a source checkout's alike.

    Returns
    -------
    str
    """
    from importlib import metadata

    try:
        requires = metadata.requires("explore_sim") or []
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        requires = []
    for line in requires:
        requirement, _, marker = line.partition(";")
        if requirement.strip().startswith("numba") and "fast" in marker:
            return requirement.strip()
    return "numba"


def kernel_compiling() -> bool:
    """Whether this process is compiling the game kernel now: the first run after an install
    waits about half a minute for it (False when the kernel was never imported here).

    Returns
    -------
    bool
    """
    # The module is in sys.modules while it is imported, before it defines compiling().
    compiling = getattr(sys.modules.get("explore_sim.engine.kernel"), "compiling", None)
    return compiling is not None and compiling()


def _refusal(reason: str, what: str) -> OptionError:
    """The one-line error of ``engine="kernel"`` where the kernel cannot play: ``reason``,
    then what ``auto`` or ``numpy`` plays instead (``what``)."""
    return OptionError(f"engine 'kernel': {reason}; engine 'auto' or 'numpy' plays {what}")


def _notice(reason: str) -> None:
    """The one-line notice that ``auto`` plays with NumPy for want of numba (once per
    process)."""
    if not _STATE.get("noticed"):
        _STATE["noticed"] = True
        warnings.warn(f"engine auto: {reason}; the games are played by the numpy engine (the "
                      "same rules; a seed draws other games than on the compiled one)",
                      OptionWarning, stacklevel=3)


def choose_engine(requested: str, plays: Sequence[EnginePlay], config: GameConfig,
                  scry: Policy | None = None) -> EngineChoice:
    """The engine that plays ``plays`` (one for all of them).

    Parameters
    ----------
    requested : {"auto", "kernel", "numpy"}
        The ``engine`` option.
    plays : sequence of EnginePlay
        Every deck and policy of the run.
    config : GameConfig
    scry : callable, optional
        Twists and Turns' scry policy (None: each play's policy).

    Returns
    -------
    EngineChoice

    Raises
    ------
    OptionError
        An engine that is not one of the choices, or ``"kernel"`` for games it cannot play
        (naming why) or without numba.
    """
    option("engine").check(requested)
    if requested == "numpy":
        return EngineChoice("numpy")
    missing = kernel_unavailable()
    if missing is not None:
        if requested == "kernel":
            raise _refusal(missing, "the games with NumPy")
        _notice(missing)
        return EngineChoice("numpy", missing)
    from ..engine.kernel import kernel_problem

    for play in plays:
        problem = kernel_problem(deck_tables(play.features, config), play.policy, scry,
                                 play.mulligan, config)
        if problem is None:
            continue
        if len(plays) > 1 and play.label:
            problem = f"{problem} ({play.label})"
        if requested == "kernel":
            raise _refusal(f"the compiled kernel cannot play these games: {problem}", "them")
        return EngineChoice("numpy", problem)
    if plays and plays[0].card_ids is not None:
        _load_kernel(plays[0], plays[0].card_ids, config, scry)
    return EngineChoice("kernel")


def _load_kernel(play: EnginePlay, card_ids: np.ndarray, config: GameConfig,
                 scry: Policy | None) -> None:
    """Load the compiled kernel in this process (once): worker processes forked from it
    then start with it loaded instead of each loading it again."""
    if _STATE.get("loaded"):
        return
    _STATE["loaded"] = True
    from ..engine.kernel import play_games_kernel

    play_games_kernel(deck_tables(play.features, config), config, play.policy, play.mulligan,
                      1, np.random.SeedSequence(0), card_ids, scry)


def position_engine(requested: str) -> EngineChoice:
    """The engine that plays on from a position (:func:`~.advise.advise`): the NumPy engine,
    the only one that starts a game mid-turn.

    Parameters
    ----------
    requested : {"auto", "kernel", "numpy"}

    Returns
    -------
    EngineChoice

    Raises
    ------
    OptionError
        An engine that is not one of the choices, or ``"kernel"``.
    """
    option("engine").check(requested)
    if requested == "kernel":
        raise _refusal(POSITION_FALLBACK, "on from it")
    return EngineChoice("numpy", POSITION_FALLBACK if requested == "auto" else None)
