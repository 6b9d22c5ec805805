"""Vanilla stand-ins: a deck's explore cards without their abilities, the same deck with
some of the stand-ins traded for basic lands, and how many lands the cards are worth.

A :class:`StandInPlan` holds the variants :func:`~explore_sim.analysis.value.value` and
:func:`~explore_sim.analysis.lands.lands` play on the same shuffles (common random numbers):

- the deck as it is (the *explorer deck*);
- the *vanilla deck*: every copy of the cards replaced by its vanilla stand-in
  (:func:`vanilla_stand_in`), a commander too (in the command zone);
- for ``k = 1, 2, ...`` up to the copies in the library (at most ``max_lands``), the vanilla
  deck with ``k`` stand-ins replaced by basic lands of the deck's colours
  (:func:`added_basics`), the last stand-ins of the plan's order first.

Every variant's library is shuffled from an order (:func:`coupled_ids`) that puts the
cards' copies (or stand-ins) last among the spells and the lands added in their place right
after them, the last added first: the variants differ only at the positions where they
differ in cards. :func:`land_equivalent` reads how many lands the cards are worth from the
paired variants.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from ..cards import Card, Catalog
from ..cards.costs import ANY_COLOUR
from ..cards.decklist import Deck
from ..cards.features import pip_demand
from ..engine.policies import Policy, policy_name
from ..errors import DeckError, OptionError, clip
from .compare import CompareResult
from .game_setup import GameSetup
from .games import play_paired
from .report import deck_meta
from .stats import z_value

__all__ = ["named_spells", "vanilla_stand_in", "added_basics", "StandInPlan", "stand_in_plan",
           "coupled_ids", "land_equivalent", "crossing_lands", "first_reaching", "play_plan"]

_BASIC_NAMES = ("Plains", "Island", "Swamp", "Mountain", "Forest")  # W U B R G


def named_spells(names: Iterable[str | Card], own: Catalog, deck: Deck, label: str,
                 why_not_land: str) -> list[Card]:
    """The spells a user names to swap for stand-ins or lands (``value``'s cards, ``lands``'
    trade), each once, in the order named.

    Parameters
    ----------
    names : iterable of str or Card
        Names looked up in ``own`` (ignoring case and accents).
    own : Catalog
        The cards that may be named: the deck's own.
    deck : Deck
        The deck, named in the errors.
    label : str
        The option the names came from, which starts every error (``"card"``, ``"trade"``).
    why_not_land : str
        What to name instead of a land, the end of a land's error.

    Returns
    -------
    list of Card

    Raises
    ------
    OptionError
        An item that is not a name.
    DeckError
        A name ``own`` does not hold (with the nearest names), or a land.
    """
    chosen: list[Card] = []
    for item in names:
        name = item.name if isinstance(item, Card) else item
        if not isinstance(name, str) or not name.strip():
            raise OptionError(f"{label}: expected a card name, got {clip(repr(item))}")
        card = own.find(name)
        if card is None:
            raise DeckError(f"{label}: {clip(name)!r} is not in the main deck of "
                            f"{clip(deck.name)}{own.suggestion_text(name)}")
        if card.is_land:
            raise DeckError(f"{label}: {card.name} is a land; {why_not_land}")
        if card not in chosen:
            chosen.append(card)
    return chosen


def vanilla_stand_in(card: Card) -> Card:
    """The card without its explore and Map abilities: its vanilla stand-in.

    Parameters
    ----------
    card : Card

    Returns
    -------
    Card
        Named ``"NAME (vanilla)"``, with the same cost, colours, types, power, toughness and
        other abilities, and no ``explores``, ``maps``, explore trigger or explore
        replacement: a creature with nothing else is a vanilla creature (Jadelight Ranger: a
        2/1 for {1}{G}{G}); a noncreature card is cast and does nothing else.
    """
    faces = card.name.split(" // ")
    faces[0] = f"{faces[0]} (vanilla)"
    return dataclasses.replace(
        card, name=" // ".join(faces), explores=0, explores_x=False, explores_when="",
        explore_targets=False, maps=0, maps_when="", explore_trigger="",
        explore_replacement="", source="stand-in", mana_value=card.mana_value,
        note=f"{card.name} without its explore and Map abilities",
    )


def added_basics(deck: Deck, count: int) -> list[Card]:
    """The basic lands that replace stand-ins, in the order they are added.

    The ``j``-th land is the colour furthest below its share ``j * w / total`` of the
    deck's coloured mana symbols (ties: W, U, B, R, G), so the first ``k`` lands of the list
    are the ``k`` lands of every variant: the proportion of the deck's colours, kept at each
    ``k``. A Commander deck counts its commander's symbols and keeps to its colour identity.

    Parameters
    ----------
    deck : Deck
    count : int
        How many lands.

    Returns
    -------
    list of Card
        ``count`` basic lands (the deck's own basic land cards where it has them).

    Raises
    ------
    DeckError
        A deck whose spells have no coloured mana symbol.
    """
    weights = np.zeros(5)
    for card, copies in (*deck.main, *deck.commander):
        if not card.is_land:
            weights += copies * np.array(pip_demand(card), dtype=float)
    if deck.commander:
        identity = 0
        for card, _ in deck.commander:
            identity |= card.identity
        weights *= [(identity >> i) & 1 for i in range(5)] if identity & ANY_COLOUR else 1
    total = weights.sum()
    if total <= 0:
        raise DeckError(f"{clip(deck.name)}: its spells have no coloured mana symbol, so no "
                        "basic land type to add")
    own = Catalog(deck.cards)
    lands = [own.find(name) or Catalog.builtin().get(name) for name in _BASIC_NAMES]
    assigned = np.zeros(5)
    chosen = []
    for j in range(1, count + 1):
        colour = int(np.argmax(weights * j / total - assigned - (weights == 0) * 1e9))
        assigned[colour] += 1
        chosen.append(lands[colour])
    return chosen


@dataclasses.dataclass(frozen=True)
class StandInPlan:
    """Some cards' variants: the explorer deck, the vanilla deck, then ``k`` more lands.

    Attributes
    ----------
    cards : tuple of Card
        The cards replaced by their stand-ins, in the plan's order.
    copies : int
        Their copies in the library (a commander is in the command zone: not counted).
    stand_ins : tuple of Card
        Their vanilla stand-ins, in the same order.
    decks : list of Deck
        The explorer deck, the vanilla deck, then the vanilla deck with ``k`` lands.
    card_ids : list of ndarray
        Per variant, the order its library is shuffled from (:func:`coupled_ids`).
    labels : list of str
        ``"explorer deck"``, ``"vanilla"``, ``"vanilla +1 land"``, ...
    lands_added : list of Card
        The basic lands added, in order (the first ``k`` are variant ``k``'s).
    """

    cards: tuple[Card, ...]
    copies: int
    stand_ins: tuple[Card, ...]
    decks: list[Deck]
    card_ids: list[np.ndarray]
    labels: list[str]
    lands_added: list[Card]


def coupled_ids(deck: Deck, block: Sequence[Card], added: Sequence[Card],
                after: Sequence[Card] = ()) -> np.ndarray:
    """The order a variant's library is shuffled from.

    Parameters
    ----------
    deck : Deck
        The variant.
    block : sequence of Card
        The cards whose copies come last among the spells, in this order (the cards valued,
        or their stand-ins).
    added : sequence of Card
        The lands added in place of the block's last copies, in the order they were added.
    after : sequence of Card
        Spells whose copies come after the lands added, in this order (cards valued in other
        plans that share the explorer deck's order, :func:`stand_in_plan`).

    Returns
    -------
    ndarray of shape (size,), int16
        The other spells in deck order, the block's copies, the lands added (last added
        first), the copies of ``after``, then the deck's other lands: a variant with one
        more land added differs from this one at one position.
    """
    ids = {card: i + 1 for i, card in enumerate(deck.cards)}
    counts = dict(deck.main)
    extra = {card: list(added).count(card) for card in set(added)}
    order = [ids[card] for card, n in deck.main
             if not card.is_land and card not in block and card not in after
             for _ in range(n)]
    for card in block:
        if counts.get(card, 0):
            order += [ids[card]] * counts[card]
    order += [ids[card] for card in reversed(added)]
    for card in after:
        order += [ids[card]] * counts.get(card, 0)
    order += [ids[card] for card, n in deck.main if card.is_land
              for _ in range(n - extra.get(card, 0))]
    array = np.array(order, dtype=np.int16)
    if len(array) != deck.size:  # the order must hold the deck exactly
        raise AssertionError(f"coupled order of {deck.name} has {len(array)} cards, "
                             f"not {deck.size}")
    return array


def stand_in_plan(deck: Deck, cards: Sequence[Card], max_lands: int,
                  label: str | None = None, order: Sequence[Card] | None = None) -> StandInPlan:
    """The variants that weigh ``cards`` against their stand-ins and against basic lands.

    Parameters
    ----------
    deck : Deck
    cards : sequence of Card
        Spells of the main deck, or the commander (each once).
    max_lands : int
        The most stand-ins replaced by lands.
    label : str, optional
        How the variants' names call the cards (default: their names).
    order : sequence of Card, optional
        The cards whose copies come last among the explorer deck's spells, in this order,
        ``cards`` among them one after the other (default: ``cards``). Plans made with the
        same ``order`` share the explorer deck's games: each card's variants differ from it
        only at its copies' positions.

    Returns
    -------
    StandInPlan
    """
    cards = tuple(cards)
    order = tuple(order) if order is not None else cards
    main_cards = dict(deck.main)
    in_library = [card for card in order if card in main_cards]
    valued = [i for i, card in enumerate(in_library) if card in cards]
    if valued and valued[-1] - valued[0] != len(valued) - 1:
        raise ValueError("the cards valued must follow one another in order")
    split = valued[-1] + 1 if valued else len(in_library)
    stand_ins = tuple(vanilla_stand_in(card) for card in cards)
    swap = dict(zip(cards, stand_ins))
    what = label or ", ".join(card.name for card in cards)
    vanilla = dataclasses.replace(
        deck, name=f"{deck.name} [{what} -> vanilla]",
        main=tuple((swap.get(c, c), n) for c, n in deck.main),
        commander=tuple((swap.get(c, c), n) for c, n in deck.commander))
    swapped = [(swap[c], n) for c, n in deck.main if c in swap]
    block = [stand_in for stand_in in stand_ins if stand_in in dict(swapped)]
    copies = sum(n for _, n in swapped)
    added = added_basics(deck, min(copies, max_lands)) if copies else []
    decks, labels = [deck, vanilla], ["explorer deck", "vanilla"]
    before = [swap.get(card, card) for card in in_library[:split]]
    after = in_library[split:]
    ids = [coupled_ids(deck, in_library, []), coupled_ids(vanilla, before, [], after)]
    for k in range(1, len(added) + 1):
        main = dict(vanilla.main)
        left = k
        for stand_in in reversed(block):  # the block's last copies first
            taken = min(left, main[stand_in])
            main[stand_in] -= taken
            left -= taken
        for land in added[:k]:
            main[land] = main.get(land, 0) + 1
        variant = dataclasses.replace(
            vanilla, name=f"{deck.name} [{what} -> vanilla, {k} as lands]",
            main=tuple((c, n) for c, n in main.items() if n > 0))
        decks.append(variant)
        ids.append(coupled_ids(variant, before, added[:k], after))
        labels.append(f"vanilla +{k} land{'s' if k > 1 else ''}")
    return StandInPlan(cards, copies, stand_ins, decks, ids, labels, added)


def play_plan(plan: StandInPlan, policy: Policy, setup: GameSetup, seed_seq: Any,
              step: Callable[[int, int], None] | None, executor: Any) -> CompareResult:
    """A plan's variants played on the same shuffles, as a comparison.

    Parameters
    ----------
    plan : StandInPlan
    policy : callable
        Keep-or-mill policy of every variant.
    setup : GameSetup
        The game options (:func:`~explore_sim.analysis.game_setup.game_setup`), with the
        engine chosen for the plan's decks.
    seed_seq : numpy.random.SeedSequence
    step : callable or None
        ``progress(games done, games)`` after every chunk.
    executor : Executor
        Where the chunks run (:func:`~explore_sim.analysis.executors.executing`).

    Returns
    -------
    CompareResult
        Decks and variants labelled as :attr:`StandInPlan.labels`.
    """
    config, rule, trials = setup.config, setup.rule, setup.trials
    if setup.engine is None:
        raise RuntimeError("no engine chosen yet: with_engine chooses it")
    stats, pairs = play_paired([(d, policy) for d in plan.decks], config, rule, None,
                               trials, seed_seq, card_ids=plan.card_ids, progress=step,
                               scheduler=executor, engine=setup.engine.engine)
    compare_meta = {"command": "value", "turns": config.turns, "trials": trials,
                    "seed": seed_seq.entropy, "mulligan": rule.name,
                    "deck": [deck_meta(d) for d in plan.decks],
                    "policy": [policy_name(policy)], "variants": plan.labels,
                    **setup.engine.meta()}
    return CompareResult(meta=compare_meta, decks=plan.labels, policies=[policy_name(policy)],
                         labels=plan.labels, variants=stats, pairs=pairs)


#: The land-equivalent of a commander, which has none.
_COMMANDER = {"mean": math.nan, "se": math.nan, "ci_low": math.nan, "ci_high": math.nan,
              "note": "the commander is in the command zone, not the library: no copy of it "
                      "can be traded for a land, so no land-equivalent; explorer - vanilla is "
                      "what its abilities add"}


def land_equivalent(compared: CompareResult, copies: int, metric: str, turn: int,
                    level: float = 0.95) -> dict[str, Any]:
    """How many lands the stand-ins' cards are worth, from their paired variants.

    Parameters
    ----------
    compared : CompareResult
        The variants of a :class:`StandInPlan` played on the same shuffles: the explorer
        deck, the vanilla deck, then the vanilla deck with ``k = 1, 2, ...`` more lands.
    copies : int
        The cards' copies in the library (named in the notes).
    metric : str
        The per-turn metric matched.
    turn : int
        The turn it is matched at.
    level : float
        Confidence level of the interval.

    Returns
    -------
    dict
        As :func:`crossing_lands`, every variant played.
    """
    by_turn = [stats.by_turn[turn] for stats in compared.variants]
    products = compared.pairs.by_turn[turn].products
    tried = len(by_turn) - 2  # the most lands tried: the copies, at most max_lands

    def total(i: int) -> int:
        return by_turn[i].total[metric]

    def product(i: int, j: int) -> int:
        return by_turn[i].total_sq[metric] if i == j else products[(min(i, j), max(i, j))][metric]

    return crossing_lands(by_turn[0].n, total, product, tried, tried, copies, metric, turn,
                          level)


def first_reaching(total: Callable[[int], int], played: int) -> int | None:
    """The fewest more lands ``k`` (0 to ``played``) with which the vanilla deck reaches the
    explorer deck (``total(k + 1) >= total(0)``, ``total`` as for :func:`crossing_lands`),
    None when none played does."""
    return next((k for k in range(played + 1) if total(k + 1) >= total(0)), None)


def _above_note(copies: int, tried: int, reached: float, explorer_mean: float,
                difference: float, se: float) -> str:
    """The note of cards worth more than every count of lands ``tried`` (which ``reached``
    its mean; its ``difference`` to the explorer deck's, and the ``se`` of that)
    (:func:`crossing_lands`)."""
    what = (f"all {copies} copies" if tried == copies else
            f"{tried} lands (the most tried, of its {copies} copies)")
    return (f"worth more than {what}: with {tried} more land{'s' if tried > 1 else ''} the "
            f"deck reaches {reached:.4f}, the explorer deck {explorer_mean:.4f} (difference "
            f"{difference:+.4f}, se {se:.4f})")


def _beyond_note(explorer_mean: float, ceiling: float, metric: str, turn: int, played: int,
                 reached: float) -> str:
    """The note of cards worth more than any count of lands: the explorer deck's mean above
    the ``ceiling`` (:func:`crossing_lands`), and what ``played`` more lands ``reached``."""
    more = f"{played} more land{'s' if played != 1 else ''}"
    return (f"worth more than any count of lands: the explorer deck's {explorer_mean:.4f} is "
            f"above {ceiling:g}, the most {metric} at turn {turn} can be without these cards "
            f"(with {more} the deck reaches {reached:.4f})")


def crossing_lands(n: int, total: Callable[[int], int], product: Callable[[int, int], int],
                   played: int, tried: int, copies: int, metric: str, turn: int,
                   level: float = 0.95, ceiling: float | None = None) -> dict[str, Any]:
    """How many lands the stand-ins' cards are worth, from exact sums of paired variants.

    Variant 0 is the explorer deck, variant 1 the vanilla deck and variant ``k + 1`` the
    vanilla deck with ``k`` more lands, each played on the same ``n`` shuffles.

    Parameters
    ----------
    n : int
        Games of each variant.
    total : callable
        ``total(i)``: the sum over games of variant ``i``'s metric.
    product : callable
        ``product(i, j)``: the sum over games of the product of variants ``i`` and ``j``'s
        metric (``i == j``: of its square). Only the pairs read are asked for: the explorer
        deck with each variant, and the two variants around the crossing.
    played : int
        The land variants played (``k = 1`` to ``played``): at least up to the crossing, or
        all ``tried`` of them.
    tried : int
        The most lands tried (the copies, at most ``max_lands``; 0 for a commander).
    copies, metric, turn, level
        As for :func:`land_equivalent`.
    ceiling : float, optional
        The most the metric's mean can be without the cards, given only when the explorer
        deck is above it (:meth:`~.land_curves.LandCurve.beyond`): worth more than any count.

    Returns
    -------
    dict
        ``mean, se, ci_low, ci_high, note``: the fractional ``k`` at which the vanilla deck
        with ``k`` more lands matches the explorer deck, by linear interpolation between the
        two whole ``k`` around the crossing (se by the delta method, from exact integer sums
        until the last step); NaN, with the reason in ``note``, when there is none (a
        commander, worth more than the lands tried, or no better than the stand-ins).

    Raises
    ------
    ValueError
        Fewer variants played than the crossing needs.
    """
    if tried == 0:  # a commander: no copy in the library to trade for a land
        return dict(_COMMANDER)

    def d_total(k: int) -> int:  # sum over games of (vanilla + k) - explorer
        return total(k + 1) - total(0)

    def d_product(a: int, b: int) -> int:  # sum of d_a * d_b
        return product(a + 1, b + 1) - product(a + 1, 0) - product(b + 1, 0) + product(0, 0)

    def cov(a: int, b: int) -> float:  # covariance of the mean differences
        return (n * d_product(a, b) - d_total(a) * d_total(b)) / (n * n * (n - 1))

    gaps = [d_total(k) / n for k in range(played + 1)]
    explorer_mean = total(0) / n
    crossing = first_reaching(total, played)
    out: dict[str, Any] = dict.fromkeys(("mean", "se", "ci_low", "ci_high"), math.nan)
    if ceiling is not None:  # no count of lands reaches it
        out.update(above=True, beyond=True, note=_beyond_note(
            explorer_mean, ceiling, metric, turn, played, total(played + 1) / n))
        return out
    if crossing is None and played < tried:
        raise ValueError(f"{played} of {tried} land variants played, none reaching the "
                         "explorer deck: play on to the crossing")
    if crossing is None:
        se = math.sqrt(max(cov(tried, tried), 0.0))
        out.update(above=True, note=_above_note(copies, tried, total(tried + 1) / n,
                                                explorer_mean, gaps[-1], se))
        return out
    if crossing == 0 and d_total(0) == 0 and cov(0, 0) == 0:
        out.update(mean=0.0, se=0.0, ci_low=0.0, ci_high=0.0,
                   note=f"no difference: {metric} at turn {turn} is the same as with the "
                        "vanilla stand-in in every game")
        return out
    a, b = (0, 1) if crossing == 0 else (crossing - 1, crossing)
    slope = gaps[b] - gaps[a]
    if slope <= 0:  # only when the explorer deck is no better than the vanilla deck
        out["note"] = (f"no better than its vanilla stand-in on {metric} at turn {turn} "
                       f"(explorer - vanilla {-gaps[0]:+.4f}), and one more land does not "
                       "raise it here: no land-equivalent")
        return out
    # k = a - g_a / (g_b - g_a); d k / d g_a = -g_b / D^2, d k / d g_b = g_a / D^2
    estimate = a - gaps[a] / slope
    ga, gb = -gaps[b] / slope**2, gaps[a] / slope**2
    variance = ga * ga * cov(a, a) + 2 * ga * gb * cov(a, b) + gb * gb * cov(b, b)
    se = math.sqrt(max(variance, 0.0))
    z = z_value(level)
    out.update(mean=estimate, se=se, ci_low=estimate - z * se, ci_high=estimate + z * se)
    if gaps[0] > 0:
        out["note"] = (("worth less than its vanilla stand-in" if out["ci_high"] < 0 else
                        "not told apart from its vanilla stand-in (the interval holds 0)")
                       + ": extrapolated below 0 from the decks with 0 and 1 more land (the "
                       "stand-in is also cast where the casting priority puts a card that "
                       "neither explores nor makes Maps, so the difference includes that "
                       "change of casting order)")
    else:
        out["note"] = f"interpolated between {a} and {b} more lands"
    return out


