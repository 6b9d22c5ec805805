"""Opening hands and mulligans, vectorised over trials.

Rules
-----
``none``
    Draw seven cards and keep them.
``london``
    The London mulligan with Frank Karsten's published keep / bottom rule. Each mulligan is a
    fresh shuffle of the whole deck and a new seven cards, of which ``k`` go to the bottom
    after the ``k``-th mulligan:

    * 7 cards: keep with 2-5 lands;
    * to 6: bottom the most expensive spell if 3+ spells were drawn, else a land; keep with
      2-4 lands;
    * to 5: bottom two spells if 4+ spells were drawn, a spell and a land with 3, two lands
      with 2 or fewer; keep with 2-4 lands;
    * to 4: bottom toward 3 lands and 1 spell; always keep.

    ``free_first=True`` makes the first mulligan free (seven cards kept, nothing bottomed).
    ``keep=callable`` replaces the keep test: ``keep(hand, hand_size, features) -> bool mask``,
    where ``hand`` is a ``(trials, n_cards + 1)`` count matrix after bottoming.

For mulligan decisions a spell // land modal double-faced card counts as a land
(``is_land_like``), as deckbuilders count it. Bottomed spells are those a goldfish game never
casts first, then the most expensive;
a bottomed land is one of the kind the hand holds most of.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np

from ..cards import FeatureTable
from ..errors import OptionError, clip
from .rowwise import row_sum
from .state import OpeningHands, card_dtype, shuffled_libraries

__all__ = ["MulliganRule", "OpeningHands", "deal_opening_hands", "as_mulligan_rule", "HAND_SIZE",
           "MULLIGAN_RULES", "NEVER_CAST_FIRST"]

#: The mulligan rules by name (``mulligan=`` and ``--mulligan``).
MULLIGAN_RULES = ("none", "london", "london-free")
#: Cards in an opening hand.
HAND_SIZE = 7
#: What a spell a goldfish game never casts adds to its bottoming value: it goes first.
NEVER_CAST_FIRST = 1000
#: Mulligans stop at a hand of this many cards (always kept).
_SMALLEST_HAND = 4

KeepRule = Callable[[np.ndarray, int, FeatureTable], np.ndarray]


@dataclasses.dataclass(frozen=True)
class MulliganRule:
    """How opening hands are kept.

    Parameters
    ----------
    kind : {"none", "london"}
    free_first : bool
        The first mulligan is free: draw seven, keep seven.
    keep : callable, optional
        ``keep(hand, hand_size, features)`` returning a ``(trials,)`` bool mask; replaces
        Karsten's land-count test (hands of 4 are always kept).
    """

    kind: str = "london"
    free_first: bool = False
    keep: KeepRule | None = None

    def __post_init__(self) -> None:
        if self.kind not in {"none", "london"}:
            raise OptionError(f"mulligan kind must be 'none' or 'london' ('london-free' is "
                              f"'london' with free_first=True), got {clip(self.kind)!r}")
        if self.keep is not None and not callable(self.keep):
            raise OptionError("mulligan keep rule must be callable")

    @property
    def name(self) -> str:
        """Short description for metadata."""
        if self.kind == "none":
            return "none"
        parts = ["london"]
        if self.free_first:
            parts.append("free-first")
        if self.keep is not None:
            parts.append(f"keep={getattr(self.keep, '__name__', 'custom')}")
        return "+".join(parts)

    def bottoms(self, mulligans: int) -> int:
        """Cards put on the bottom after some mulligans.

        Parameters
        ----------
        mulligans : int

        Returns
        -------
        int
        """
        return max(0, mulligans - (1 if self.free_first and mulligans > 0 else 0))

    @property
    def max_mulligans(self) -> int:
        """Mulligans until the hand is down to the smallest size."""
        if self.kind == "none":
            return 0
        return HAND_SIZE - _SMALLEST_HAND + (1 if self.free_first else 0)


def as_mulligan_rule(spec: str | MulliganRule | None, *, free_first: bool = False,
                     keep: KeepRule | None = None) -> MulliganRule:
    """``"none"``, ``"london"``, ``"london-free"`` or a :class:`MulliganRule`."""
    if isinstance(spec, MulliganRule):
        return spec
    if spec is None:
        spec = "none"
    if not isinstance(spec, str):
        raise OptionError(f"mulligan must be a rule name, got {type(spec).__name__}")
    key = spec.strip().casefold()
    if key not in MULLIGAN_RULES:
        raise OptionError(f"mulligan must be one of {', '.join(MULLIGAN_RULES)}, got "
                          f"{clip(spec)!r}")
    if key == "london-free":
        return MulliganRule("london", free_first=True, keep=keep)
    return MulliganRule(key, free_first=free_first, keep=keep)


def deal_opening_hands(
    deck: np.ndarray,
    features: FeatureTable,
    trials: int,
    rule: MulliganRule,
    shuffle_rng: Callable[[int], np.random.Generator],
    never_cast: Sequence[int] = (),
) -> OpeningHands:
    """Shuffle, draw seven, mulligan by ``rule``; vectorised over trials.

    Parameters
    ----------
    deck : ndarray, shape (size,), int16
        The main deck's card ids.
    features : FeatureTable
    trials : int
    rule : MulliganRule
    shuffle_rng : callable
        ``shuffle_rng(attempt)`` returns the generator for the shuffles of the
        ``attempt``-th deal (0: the first), so every attempt has its own stream.
    never_cast : sequence of int
        Card ids a goldfish game never casts (:attr:`~.tables.DeckTables.held_ids`): they
        are bottomed before the other spells.

    Returns
    -------
    OpeningHands
    """
    size = len(deck)
    width = size + 1
    n_kinds = len(features)
    drawn = min(HAND_SIZE, size)
    library: np.ndarray = np.empty((trials, width), dtype=card_dtype(deck))
    hand = np.zeros((trials, n_kinds), dtype=np.int16)
    end = np.full(trials, size, dtype=np.int32)
    mulligans = np.zeros(trials, dtype=np.int32)
    pending = np.arange(trials)
    counts_as_land = features.is_land | features.is_land_like
    if size < HAND_SIZE:  # too small a deck to mulligan: keep what there is
        rule = MulliganRule("none")
    for attempt in range(rule.max_mulligans + 1):
        rows = len(pending)
        libs = shuffled_libraries(deck, rows, shuffle_rng(attempt))
        seven = _hand_counts(libs[:, :drawn], n_kinds)
        bottoms = rule.bottoms(attempt)
        kept_hand, bottomed = _bottom(seven, bottoms, features, counts_as_land, never_cast)
        hand_size = drawn - bottoms
        if attempt == rule.max_mulligans or rule.kind == "none":
            keep = np.ones(rows, dtype=bool)
        elif rule.keep is not None:
            keep = np.asarray(rule.keep(kept_hand, hand_size, features), dtype=bool)
            if keep.shape != (rows,):
                raise OptionError(f"mulligan keep rule returned shape {keep.shape}, "
                                  f"expected ({rows},)")
        else:
            lands = row_sum(kept_hand * counts_as_land)
            most = 5 if hand_size >= HAND_SIZE else 4
            keep = (lands >= 2) & (lands <= most)
        done = pending[keep]
        library[done] = libs[keep]
        hand[done] = kept_hand[keep]
        mulligans[done] = attempt
        # Bottomed cards go under the library, in the order chosen (circular buffer).
        for j in range(bottomed.shape[1]):
            library[done, (size + j) % width] = bottomed[keep, j]
        end[done] = size + bottoms
        pending = pending[~keep]
        if pending.size == 0:
            break
    top = np.full(trials, drawn, dtype=np.int32)
    return OpeningHands(library=library, top=top, end=end, hand=hand, mulligans=mulligans)


def _hand_counts(cards: np.ndarray, n_kinds: int) -> np.ndarray:
    """Count matrix ``(rows, n_kinds)`` of the card ids in ``cards`` ``(rows, k)``."""
    rows = cards.shape[0]
    flat = (np.arange(rows)[:, None] * n_kinds + cards).ravel()
    return np.bincount(flat, minlength=rows * n_kinds).reshape(rows, n_kinds).astype(np.int16)


def _bottom(
    seven: np.ndarray, bottoms: int, features: FeatureTable, counts_as_land: np.ndarray,
    never_cast: Sequence[int] = (),
) -> tuple[np.ndarray, np.ndarray]:
    """Karsten's bottom rule: returns (hand after bottoming, bottomed card ids (rows, b));
    the spells ``never_cast`` (card ids a goldfish game never casts) go first."""
    hand = seven.copy()
    rows = hand.shape[0]
    bottomed = np.zeros((rows, bottoms), dtype=np.intp)
    if bottoms == 0:
        return hand, bottomed
    lands = row_sum(hand * counts_as_land)
    spells = row_sum(hand) - lands
    if bottoms == 1:
        spell_bottoms = (spells >= 3).astype(int)
    elif bottoms == 2:
        spell_bottoms = np.select([spells >= 4, spells == 3], [2, 1], 0)
    else:  # toward 3 lands and 1 spell in the kept hand
        keep_size = row_sum(hand) - bottoms
        lands_kept = np.minimum(lands, 3)
        spells_kept = np.minimum(keep_size - lands_kept, spells)
        lands_kept = keep_size - spells_kept
        spell_bottoms = spells - spells_kept
    all_rows = np.arange(rows)
    # A spell the game never casts goes first (:func:`~.abilities.held_reason`), then the most
    # expensive; of two that cost the same, the one that is neither a mana source nor ramp
    # (Cultivate; ties after
    # that: the lower id, by name).
    held = np.zeros(len(features), dtype=np.int32)
    held[list(never_cast)] = 1
    spell_value = np.where(counts_as_land, -1,
                           2 * features.mana_value.astype(np.int32) + ~features.ramps
                           + NEVER_CAST_FIRST * held)
    spell_value[0] = -1  # EMPTY
    # The rule above always leaves enough spells and lands in a seven-card hand.
    for j in range(bottoms):
        is_spell_turn = j < spell_bottoms
        # The most expensive spell left in hand, or the land kind held most.
        spell_choice = np.argmax(np.where(hand > 0, spell_value, -2), axis=1)
        land_choice = np.argmax(np.where(counts_as_land & (hand > 0), hand, -1), axis=1)
        choice = np.where(is_spell_turn, spell_choice, land_choice)
        valid = hand[all_rows, choice] > 0
        hand[all_rows[valid], choice[valid]] -= 1
        bottomed[valid, j] = choice[valid]
    return hand, bottomed
