"""The explore primitive: K explores in a row by one explorer after D cards have been drawn.

:func:`explore` answers "if this creature explores after I have seen D cards, how many
+1/+1 counters and lands do I get, keeping or milling by policy P?" over many shuffles.

The player model behind the policy's observation: the ``drawn`` cards plus the ``known``
cards are the cards seen so far; one land was played each turn while there was one
(``lands_in_play = min(lands seen, turn)``), every other seen card is in hand. The explorer
itself (``explorer=``, a card of the main deck) is on the battlefield, so one copy of it leaves
the library; an explorer from outside the deck (``explorer_outside=True``) leaves it whole.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from os import PathLike
from typing import Any

import numpy as np
import pandas as pd

from ..cards import EMPTY, Card, Catalog, FeatureTable
from ..cards.decklist import Deck, load_deck
from ..cards.name_lists import card_counts
from ..engine.metrics import catalogue
from ..engine.options import as_flag
from ..engine.policies import Observation, Policy, decide, one_policy, policy_name
from ..engine.rules import explore as explore_rule, reveal
from ..engine.state import ExploreState, shuffled_libraries
from ..errors import DeckError, OptionError, clip, close_matches
from ..progress import callback, shows_progress
from .report import INTERVAL, deck_meta, explores_text, meta_text, render, versions
from .results import Result
from .runner import CHUNK_TRIALS, check_trials, run_chunks, seed_sequence, stopped_meta
from .stats import Accumulator

__all__ = ["explore", "check_explore", "ExploreResult", "explore_trials", "EXPLORE_METRICS",
           "ExploreTask", "ASSUMED_EXPLORES", "assumed_explores_text"]

#: Per-trial metrics of an explore sequence (their meanings are in the metrics catalogue,
#: :data:`explore_sim.engine.metrics.CATALOGUE`); True marks 0/1 indicators (probabilities).
EXPLORE_METRICS: dict[str, bool] = {m.name: m.probability for m in catalogue("explore")}
_MAX_EXPLORES = 100


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class ExploreResult(Result):
    """The outcome of :func:`explore`.

    Attributes
    ----------
    meta : dict
        What was run and assumed (JSON-safe): ``command``, ``deck`` (a list of one deck
        record), ``policy`` (a list of one name), the options, ``trials``, ``seed``,
        ``assumptions`` and ``versions``.
    stats : Accumulator
        Exact sums and histograms of every metric in :data:`EXPLORE_METRICS`.
    """

    meta: dict[str, Any]
    stats: Accumulator

    def summary(self, level: float = 0.95) -> pd.DataFrame:
        """Tidy statistics, one row per metric.

        Parameters
        ----------
        level : float
            Confidence level of the intervals.

        Returns
        -------
        DataFrame
            ``metric, mean, se, ci_low, ci_high``, with :attr:`meta` in
            ``attrs["explore_sim"]``.
        """
        return self._with_meta(self.stats.summary(level))

    def distribution(self, metric: str = "counters", level: float = 0.95) -> pd.DataFrame:
        """Full distribution of a metric.

        Parameters
        ----------
        metric : str
            One of :data:`EXPLORE_METRICS`.
        level : float
            Confidence level of the intervals.

        Returns
        -------
        DataFrame
            ``value, count, probability, se, ci_low, ci_high``, with :attr:`meta` in
            ``attrs["explore_sim"]``.

        Raises
        ------
        OptionError
            A metric that is not one of :data:`EXPLORE_METRICS` (with the closest names).
        """
        if metric not in EXPLORE_METRICS:
            close = close_matches(str(metric), EXPLORE_METRICS)
            hint = f" (did you mean {close}?)" if close else ""
            raise OptionError(f"distribution: unknown metric {clip(repr(metric))}{hint}; known: "
                              f"{', '.join(EXPLORE_METRICS)}")
        return self._with_meta(self.stats.distribution(metric, level))

    def render(self, fmt: str = "table") -> str:
        """The summary as text, as the command line prints it.

        Parameters
        ----------
        fmt : {"table", "csv", "json"}

        Returns
        -------
        str
        """
        meta = self.meta
        by = f" by {meta['explorer']}" if meta.get("explorer") else ""
        outside = " (from outside the deck)" if meta.get("explorer_outside") else ""
        named = ", ".join(f"{n} {name}" if n > 1 else name
                          for name, n in Counter(meta.get("known", ())).items())
        known = (f", besides {len(meta['known'])} known out of the library ({named}): "
                 f"{meta['library_size'] - meta['drawn']} cards left" if named else "")
        gone = ", explorer gone" if meta["explorer_gone"] else ""
        title = (
            f"explore: {explores_text(meta['explores'])}{by}{outside} after {meta['drawn']} cards "
            f"drawn{known}, turn {meta['turn']}{gone}"
            + (" and targeted (nothing happens, E9)" if gone and meta.get("targeted") else "")
            + (f" ({assumed_explores_text(meta)})" if meta.get("explores_assumed") else "")
        )
        return render(fmt, self.meta, self.summary(), title)

    def _facts(self) -> dict[str, Any]:
        return {"deck": meta_text([d["name"] for d in self.meta["deck"]]),
                "policy": meta_text(self.meta["policy"]),
                "explores": (f"{self.meta['explores']} ({assumed_explores_text(self.meta)})"
                             if self.meta.get("explores_assumed") else self.meta["explores"]),
                "drawn": self.meta["drawn"], "trials": self.meta["trials"],
                "seed": self.meta["seed"]}

    def _html(self) -> tuple[list[str], pd.DataFrame, bool]:
        return [self._facts_line(), f"ci: {self.meta['interval']}"], self.summary().round(4), False


#: Said of the count of explores of a named creature that does not explore by itself.
ASSUMED_EXPLORES = "the card does not explore by itself: one explore assumed, as from a Map token"
#: The same of a noncreature permanent, which a Map cannot target (M4) but an effect may make
#: explore (E5).
ASSUMED_NONCREATURE_EXPLORES = ("the card does not explore by itself: one explore assumed, as "
                                "from an effect that makes any permanent explore (E5); a Map's "
                                "target is a creature")


def assumed_explores_text(meta: dict[str, Any]) -> str:
    """What an explore result whose count of explores is assumed says of it.

    Parameters
    ----------
    meta : dict
        The result's metadata (``explorer_is_creature``).

    Returns
    -------
    str
        Of a noncreature explorer, that an effect makes it explore; else, a Map token.
    """
    if meta.get("explorer_is_creature") is False:
        return ASSUMED_NONCREATURE_EXPLORES
    return ASSUMED_EXPLORES

#: What an explore sequence assumes, for its metadata.
_ASSUMPTIONS = [
    "goldfish: no opponent",
    "seen cards = known + drawn; one land played per turn while possible, the rest in hand",
    "the player model counts lands, not colours: a policy's mana_sources is the lands "
    "in play and castable_now compares mana value with it (simulate plays colours)",
    "only the explores themselves: other cards' explore triggers (the counter Wildgrowth "
    "Walker or Shadowed Caravel gets) are not counted here (simulate plays them)",
]


@shows_progress("explore")
def explore(
    deck: Deck | str | PathLike[str],
    explores: int | None = None,
    drawn: int = 8,
    policy: str | Policy | Mapping[str, str | Policy] = "forge",
    explorer_gone: bool = False,
    known: Iterable[str] | str = (),
    trials: int = 100_000,
    seed: Any = None,
    *,
    explorer: str | Card | None = None,
    explorer_outside: bool = False,
    targeted: bool = False,
    turn: int | None = None,
    progress: Callable[[int, int], None] | bool | None = None,
    workers: int = 1,
    scheduler: Any = None,
) -> ExploreResult:
    """Simulate one explore sequence over many shuffles of a deck.

    Parameters
    ----------
    deck : Deck, path or decklist text
        The deck; only its main deck is shuffled (a Commander deck's 99: the commander is in
        the command zone, and may be the explorer).
    explores : int, optional
        Explores in a row (E6). Default: the explorer's own count (Jadelight Ranger: 2), else 1
        (``meta["explores_assumed"]``: a named card that does not explore by itself).
    drawn : int
        Cards removed from the top of the shuffled library before the explores (the opening
        hand and draws).
    policy : str, callable or dict
        Keep-or-mill policy: a preset name, an expression, a callable
        (:mod:`explore_sim.engine.policies`), or a one-entry ``{name: policy}`` dict that
        names it.
    explorer_gone : bool
        The explorer left the battlefield before exploring (E3): no counters; lands still go
        to hand. With ``targeted=True`` nothing happens at all (E9).
    known : iterable of str, or str
        Cards out of the library besides the ``drawn`` ones (a hand named here: ``drawn``
        counts the cards not named), one copy each; removed before shuffling, seen, in
        hand. A string holds names separated by commas or line breaks, a name with commas
        read whole (:func:`~explore_sim.cards.name_lists.split_card_names`).
    trials : int
        Number of shuffles (>= 2).
    seed : int, SeedSequence, Generator or None
        Randomness; the same seed gives the same numbers, however the trials are chunked.
        None draws fresh entropy, recorded in ``meta["seed"]``.
    explorer : str or Card, optional
        The exploring card (its name), a card of the main deck: one copy leaves the library (it
        is on the battlefield). Any permanent may explore, creature or not (E5); instants and
        sorceries are refused. A card the deck does not hold is refused unless
        ``explorer_outside`` is True.
    explorer_outside : bool
        The explorer comes from outside the deck (a token, a card from the sideboard or
        another player's card): it may be any known permanent, and no copy of it leaves the
        library.
    targeted : bool
        The explore comes from an effect that targets the explorer (a Map, Over the Edge):
        with ``explorer_gone`` it does nothing (E9).
    turn : int, optional
        The turn of the explore, seen by policies. Default ``max(1, drawn - 6)``: a 7-card
        opening hand and one draw per later turn, on the play.
    progress : callable, False or None
        ``progress(trials done, trials)`` after every chunk (a ``StopRun`` it raises stops the
        run with the shuffles finished, ``meta["trials"]``); None (the default) shows a
        display from a second on (:func:`~explore_sim.progress.shows_progress`); False, none.
    workers : int
        Local processes to run chunks in (0: every core); the numbers do not depend on it.
    scheduler : str, distributed.Client or Executor, optional
        Run the chunks on a Dask cluster instead (:func:`explore_sim.simulate`).

    Returns
    -------
    ExploreResult
    """
    deck = deck if isinstance(deck, Deck) else load_deck(deck)
    features = deck.features()
    explores_given = explores is not None  # else the explorer's own count, or 1
    explorer_card, explores, known_ids, library, drawn, turn = _setup(
        deck, features, explores, drawn, known, explorer, explorer_outside, turn)
    trials = check_trials(trials)
    seed_seq = seed_sequence(seed)
    policy = one_policy(policy, "explore")
    known_lands = int(features.is_land[known_ids].sum()) if known_ids.size else 0
    depth = min(len(library), drawn + explores)
    library_lands = int(features.is_land[library].sum())

    task = ExploreTask(library=library, features=features, drawn=drawn, explores=explores,
                       policy=policy, explorer_gone=explorer_gone, targeted=targeted,
                       turn=turn, known_cards=len(known_ids), known_lands=known_lands,
                       library_lands=library_lands, depth=depth)
    stats = Accumulator(EXPLORE_METRICS)
    done = run_chunks(task, stats.merge, trials, seed_seq, progress=callback(progress),
                      workers=workers, scheduler=scheduler, stop_early=True)
    meta = _explore_meta(deck, features, library, explorer_card, explorer_outside, known_ids,
                         explores, drawn, turn, explorer_gone, targeted, policy, trials,
                         seed_seq, explores_given)
    stopped_meta(meta, done, trials)
    return ExploreResult(meta=meta, stats=stats)


def _explores_assumed(explorer: Card | None, explores_given: bool) -> bool:
    """Whether the count of explores is assumed: a named card without an explore of its own
    explores once only because it was asked to (as a Map token makes it), unless the count
    was given."""
    return bool(not explores_given and explorer is not None and not explorer.explores)


def _explore_meta(deck: Deck, features: FeatureTable, library: np.ndarray,
                  explorer_card: Card | None, explorer_outside: bool, known_ids: np.ndarray,
                  explores: int, drawn: int, turn: int, explorer_gone: bool, targeted: bool,
                  policy: Policy, trials: int, seed_seq: Any, explores_given: bool
                  ) -> dict[str, Any]:
    """The metadata of an explore sequence (JSON-safe)."""
    meta = {
        "command": "explore",
        "deck": [deck_meta(deck)],
        "library_size": len(library),
        "explorer": explorer_card.name if explorer_card else None,
        "explorer_outside": bool(explorer_outside),
        "explorer_is_creature": explorer_card.is_creature if explorer_card else None,
        "known": [features.cards[i - 1].name for i in known_ids.tolist()],
        "explores": explores,
        "explores_assumed": _explores_assumed(explorer_card, explores_given),
        "drawn": drawn,
        "turn": turn,
        "explorer_gone": bool(explorer_gone),
        "targeted": bool(targeted),
        "policy": [policy_name(policy)],
        "trials": trials,
        "seed": seed_seq.entropy,
        "chunk_trials": CHUNK_TRIALS,
        "interval": INTERVAL,
        "assumptions": _ASSUMPTIONS,
        "versions": versions(),
    }
    return meta


@dataclasses.dataclass(frozen=True, eq=False)
class ExploreTask:
    """One explore sequence over shuffles of a library, as a picklable chunk task
    (:mod:`.executors`); its fields are the arguments of :func:`explore_trials`.

    Attributes
    ----------
    library : ndarray of shape (size,), int16
        The library's card ids before shuffling.
    features : FeatureTable
    drawn, explores, turn, known_cards, known_lands, library_lands : int
    policy : callable
    explorer_gone, targeted : bool
    depth : int
        Cards of each shuffle that can be reached.
    """

    library: np.ndarray
    features: FeatureTable
    drawn: int
    explores: int
    policy: Policy
    explorer_gone: bool
    targeted: bool
    turn: int
    known_cards: int
    known_lands: int
    library_lands: int
    depth: int

    def __post_init__(self) -> None:
        for name in ("explorer_gone", "targeted"):  # "no" would be read as True
            object.__setattr__(self, name, as_flag(name, getattr(self, name)))

    def __call__(self, trials: int, chunk_seed: np.random.SeedSequence) -> Accumulator:
        """Shuffle and explore ``trials`` times.

        Parameters
        ----------
        trials : int
        chunk_seed : numpy.random.SeedSequence

        Returns
        -------
        Accumulator
            The chunk's sums of :data:`EXPLORE_METRICS`.
        """
        rng = np.random.default_rng(chunk_seed)
        libraries = shuffled_libraries(self.library, trials, rng, depth=self.depth)
        stats = Accumulator(EXPLORE_METRICS)
        stats.add(explore_trials(
            libraries, self.features, drawn=self.drawn, explores=self.explores,
            policy=self.policy, rng=rng, explorer_gone=self.explorer_gone,
            targeted=self.targeted, turn=self.turn, known_cards=self.known_cards,
            known_lands=self.known_lands, library_lands=self.library_lands,
        ))
        return stats


def explore_trials(
    libraries: np.ndarray,
    features: FeatureTable,
    *,
    drawn: int,
    explores: int,
    policy: Policy,
    rng: np.random.Generator,
    explorer_gone: bool | np.ndarray = False,
    targeted: bool = False,
    turn: int = 1,
    known_cards: int = 0,
    known_lands: int = 0,
    library_lands: int | None = None,
) -> dict[str, np.ndarray]:
    """Play one explore sequence in every row of ``libraries``; the engine's core.

    Parameters
    ----------
    libraries : ndarray, shape (trials, size + 1), int16
        Shuffled libraries with their ``EMPTY`` pad column (:func:`shuffled_libraries`).
    features : FeatureTable
    drawn : int
        Cards drawn from the top before exploring.
    explores : int
        Explores in a row.
    policy : callable
        Keep-or-mill policy, called once per explore with every trial.
    rng : numpy.random.Generator
        Passed to the policy.
    explorer_gone : bool or ndarray of shape (trials,)
        Where the explorer left the battlefield before exploring (E3).
    targeted : bool
        The effect targets the explorer: if it is gone, nothing happens (E9).
    turn, known_cards, known_lands : int
        The player model's turn and the cards (lands) seen outside the library.
    library_lands : int, optional
        Land cards in every full library, when all rows hold the same cards (they do after
        :func:`shuffled_libraries`); saves counting them row by row.

    Returns
    -------
    dict of str to ndarray of shape (trials,)
        One integer array per metric of :data:`EXPLORE_METRICS`.
    """
    trials = libraries.shape[0]
    is_land = features.is_land
    drawn_lands = is_land[libraries[:, :drawn]].sum(axis=1, dtype=np.int32)
    lands_seen = drawn_lands + known_lands
    lands_in_play = np.minimum(lands_seen, turn)
    gone = np.broadcast_to(np.asarray(explorer_gone, dtype=bool), (trials,))
    state = ExploreState.start(
        libraries,
        is_land,
        top=drawn,
        cards_in_hand=known_cards + drawn - lands_in_play,
        lands_in_hand=lands_seen - lands_in_play,
        lands_in_play=lands_in_play,
        explorer_present=~gone,
        library_lands=None if library_lands is None else library_lands - drawn_lands,
    )
    # E9: a targeted explore of a creature that is gone does nothing at all.
    active = ~gone if targeted else np.ones(trials, dtype=bool)
    totals = {name: np.zeros(trials, dtype=np.int32) for name in EXPLORE_METRICS}
    for step in range(explores):  # E6: one complete explore after another
        revealed = np.where(active, reveal(state), EMPTY)
        obs = Observation.build(
            features,
            revealed,
            cards_in_hand=state.cards_in_hand,
            lands_in_hand=state.lands_in_hand,
            lands_in_play=state.lands_in_play,
            turn=turn,
            explores_left=explores - step,
            counters=state.counters,
            explorer_present=state.explorer_present,
            library_size=state.library_size,
            lands_in_library=state.library_lands,
        )
        mill = decide(policy, obs, rng)
        state, events = explore_rule(state, features, mill, active)
        totals["explores"] += events.explored
        totals["lands_to_hand"] += events.land_to_hand
        totals["nonlands_revealed"] += events.nonland
        totals["milled"] += events.milled
        totals["empty_reveals"] += events.empty
    totals["counters"] = state.counters.copy()
    totals["land_hit"] = (totals["lands_to_hand"] > 0).astype(np.int32)
    return totals


def check_explore(
    deck: Deck,
    explores: int | None = None,
    drawn: int = 8,
    known: Iterable[str] | str = (),
    *,
    explorer: str | Card | None = None,
    explorer_outside: bool = False,
    turn: int | None = None,
) -> None:
    """Refuse what :func:`explore` would refuse about a deck's explore sequence, without
    playing it: the explorer, the explores, the known cards, ``drawn`` against the library
    left and the turn (the trials, seed and policy are checked by their own helpers).

    Parameters
    ----------
    deck : Deck
    explores, drawn, known, explorer, explorer_outside, turn
        As for :func:`explore`.

    Raises
    ------
    DeckError, OptionError
        The error :func:`explore` raises for the same arguments.
    """
    _setup(deck, deck.features(), explores, drawn, known, explorer, explorer_outside, turn)


def _setup(deck: Deck, features: FeatureTable, explores: int | None, drawn: object,
           known: Iterable[str] | str, explorer: str | Card | None, explorer_outside: bool,
           turn: object) -> tuple[Card | None, int, np.ndarray, np.ndarray, int, int]:
    """The explorer, explores, known ids, library, drawn and turn of an explore sequence."""
    explorer_outside = as_flag("explorer_outside", explorer_outside)
    explorer_card = _explorer_card(deck, explorer, explorer_outside)
    explores = _check_explores(explores, explorer_card)
    known_ids = _ids_of(deck, features, _known_names(known, deck))
    library = _library_ids(deck, features, known_ids,
                           None if explorer_outside else explorer_card)
    drawn = _check_drawn(drawn, len(library), deck)
    turn = max(1, drawn - 6) if turn is None else _check_int("turn", turn, 1, 1000)
    return explorer_card, explores, known_ids, library, drawn, turn


def _check_int(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise OptionError(f"{name} must be a whole number, got {clip(repr(value))}")
    if not low <= int(value) <= high:
        raise OptionError(f"{name} must be between {low} and {high}, got {value}")
    return int(value)


def _check_drawn(drawn: object, library_size: int, deck: Deck) -> int:
    drawn = _check_int("drawn", drawn, 0, 10**6)
    if drawn > library_size:
        raise OptionError(f"drawn: the library has {library_size} cards, so {drawn} cannot "
                          "be drawn")
    return drawn


def _explorer_card(deck: Deck, explorer: str | Card | None, outside: bool) -> Card | None:
    if explorer is None:
        if outside:
            raise OptionError("explorer_outside needs the explorer's name (explorer=...)")
        return None
    commanders = [card for card, _ in deck.commander]
    in_deck = Catalog([*deck.cards, *(card for card in commanders if card not in deck.cards)])
    card: Card | None
    if isinstance(explorer, Card):  # looked up by the caller (the command line's card sources)
        name, card = explorer.name, in_deck.find(explorer.name) or explorer
    elif isinstance(explorer, str):
        name, card = explorer, in_deck.find(explorer)
    else:
        raise OptionError(f"explorer must be a card name, got {clip(repr(explorer))}")
    if card is None:
        from ..cards.card_index import card_sources

        sources = card_sources()
        card = sources.find(name)
        if card is None:
            hint = sources.suggestion_text(name) or _deck_explorers_text(deck, in_deck)
            raise DeckError(f"unknown explorer {clip(name)!r}{hint}")
    if not card.is_permanent:
        raise OptionError(
            f"explorer {card.name!r} is not a permanent; only permanents explore (E5)"
        )
    if not outside and in_deck.find(name) is None:
        raise DeckError(
            f"explorer {card.name!r} is not in the main deck of {clip(deck.name)!r}"
            f"{in_deck.suggestion_text(name)}; if it comes from elsewhere (a token, the "
            "sideboard), say so with --explorer-outside (explorer_outside=True)"
        )
    return card


def _deck_explorers_text(deck: Deck, in_deck: Catalog) -> str:
    """``; the cards of 'DECK' that explore: A, B`` (the first six), or an empty string."""
    explorers = [card.name for card in in_deck
                 if card.is_permanent and (card.explores or card.explores_x)]
    if not explorers:
        return ""
    more = f" and {len(explorers) - 6} more" if len(explorers) > 6 else ""
    return (f"; the cards of {clip(deck.name)!r} that explore: "
            f"{', '.join(clip(name) for name in explorers[:6])}{more}")


def _check_explores(explores: int | None, explorer: Card | None) -> int:
    if explores is None:
        if explorer is not None and explorer.explores_x:
            raise OptionError(
                f"explores: {explorer.name} explores X times: give the number of explores"
            )
        return explorer.explores if explorer is not None and explorer.explores else 1
    return _check_int("explores", explores, 0, _MAX_EXPLORES)


def _known_names(known: Iterable[str] | str, deck: Deck) -> list[str]:
    """The known cards' names, one per copy (``"Forest, 2 Island"``: three names)."""
    from ..cards.card_index import card_sources

    pairs = card_counts(known, "known", Catalog(deck.cards), card_sources)
    return [name for name, copies in pairs for _ in range(copies)]


def _ids_of(deck: Deck, features: FeatureTable, names: list[str]) -> np.ndarray:
    catalog = Catalog(deck.cards)
    ids = []
    for name in names:
        card = catalog.find(name)
        commander = Catalog([c for c, _ in deck.commander]).find(name)
        if card is None and commander is not None:
            raise DeckError(f"known: {commander.name!r} is the commander: it starts in the "
                            "command zone, never in the library")
        if card is None:
            hint = catalog.suggestion_text(name) or Catalog.builtin().suggestion_text(name)
            raise DeckError(f"known: {clip(name)!r} is not in the deck "
                            f"{clip(deck.name)!r}{hint}")
        ids.append(features.id_of(card))
    return np.array(ids, dtype=np.int16)


def _library_ids(
    deck: Deck, features: FeatureTable, known_ids: np.ndarray, explorer: Card | None
) -> np.ndarray:
    """The deck's card ids minus the known cards (by id) and one copy of the explorer; a
    commander is in the command zone, never in the library (CR 903.6)."""
    remaining = dict(deck.main)
    removed = [features.cards[i - 1] for i in known_ids.tolist()]
    if explorer is not None and explorer in remaining:
        removed.append(explorer)  # on the battlefield (a commander came from the command zone)
    for card in removed:
        if remaining[card] == 0:
            mine = " and one is the explorer, on the battlefield" if card == explorer else ""
            raise DeckError(
                f"known: no copy of {card.name!r} is left in the deck to remove "
                f"(the deck has {dict(deck.main)[card]}{mine})"
            )
        remaining[card] -= 1
    counts = [remaining.get(card, 0) for card in features.cards[: features.n_deck]]
    return np.repeat(np.arange(1, len(counts) + 1, dtype=np.int16), counts)

