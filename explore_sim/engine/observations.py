"""What a keep-or-mill policy sees: the :class:`Observation` of a revealed card and the
player's position (never the library order), and the names policy expressions may use."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from ..cards import FeatureTable
from ..errors import close_matches

__all__ = ["Observation", "ObservationField", "OBSERVATIONS", "OBSERVATION_NAMES", "BOOL_NAMES",
           "CARD_FIELDS"]

@dataclasses.dataclass(frozen=True)
class ObservationField:
    """One field of the observation a keep-or-mill policy sees.

    Attributes
    ----------
    name : str
        What a policy expression calls it, and the :class:`Observation` attribute.
    text : str
        Its meaning; ``(bool)`` at the end marks a condition.
    kernel : bool
        The compiled kernel computes it for its policies' bytecode
        (:class:`~explore_sim.engine.kernel.layout.Field` has a member of its name); a policy
        reading a field the kernel does not compute is played by the NumPy engine.
    """

    name: str
    text: str
    kernel: bool = False


#: The observation's fields, usable in policy expressions. Booleans can be combined with
#: ``and``/``or``/``not``; numbers with ``+ - * / // %`` and comparisons.
OBSERVATIONS: tuple[ObservationField, ...] = (
    ObservationField("card",
                     "deck-local id of the revealed card (0: nothing revealed)", kernel=True),
    ObservationField("is_land", "the revealed card is a land card (bool)", kernel=True),
    ObservationField("is_nonland", "the revealed card is a nonland card (bool)", kernel=True),
    ObservationField("is_empty", "the library was empty, nothing was revealed (bool)", kernel=True),
    ObservationField("is_creature", "the revealed card is a creature card (bool)", kernel=True),
    ObservationField("is_land_like",
                     "the revealed card is a spell // land double-faced card (bool)", kernel=True),
    ObservationField("makes_explores",
                     "the revealed card has an explore ability (bool)", kernel=True),
    ObservationField("makes_maps", "the revealed card makes Map tokens (bool)", kernel=True),
    ObservationField("mana_value", "mana value of the revealed card (X = 0)", kernel=True),
    ObservationField("power", "printed power of the revealed card (0 if none)", kernel=True),
    ObservationField("toughness",
                     "printed toughness of the revealed card (0 if none)", kernel=True),
    ObservationField("cards_in_hand", "cards in hand", kernel=True),
    ObservationField("lands_in_hand", "land cards in hand", kernel=True),
    ObservationField("lands_in_play", "lands on the battlefield", kernel=True),
    ObservationField("mana_sources",
                     "permanents you control with a mana ability (lands, mana creatures, mana "
                     "rocks; tapped or not)", kernel=True),
    ObservationField("predicted_mana",
                     "mana sources plus land cards in hand (Forge's estimate, the forge "
                     "policy's)", kernel=True),
    ObservationField("castable_now",
                     "your untapped sources can pay the revealed card's cost now, colours included "
                     "(bool)", kernel=True),
    ObservationField("castable_next_turn",
                     "all your sources, untapped, plus one land from your hand could pay the "
                     "revealed card's cost (bool)", kernel=True),
    ObservationField("turn", "the current turn number", kernel=True),
    ObservationField("explores_left",
                     "explores left in this sequence, this one included", kernel=True),
    ObservationField("counters",
                     "+1/+1 counters the explorer has received in this sequence", kernel=True),
    ObservationField("explorer_present",
                     "the explorer is still on the battlefield (bool)", kernel=True),
    ObservationField("library_size",
                     "cards left in the library, the revealed one included", kernel=True),
    ObservationField("lands_in_library",
                     "land cards left in the library, the revealed one included", kernel=True),
)
#: Observation fields usable in policy expressions, with their meaning.
OBSERVATION_NAMES: dict[str, str] = {field.name: field.text for field in OBSERVATIONS}
#: The observation names that are conditions.
BOOL_NAMES = frozenset(
    name for name, text in OBSERVATION_NAMES.items() if text.endswith("(bool)")
)


#: Observation fields looked up from the revealed card, computed on first use.
CARD_FIELDS: dict[str, Callable[[FeatureTable, np.ndarray], np.ndarray]] = {
    "is_land": lambda f, card: f.is_land[card],
    "is_nonland": lambda f, card: f.is_nonland[card],
    "is_empty": lambda f, card: ~f.is_card[card],
    "is_creature": lambda f, card: f.is_creature[card],
    "is_land_like": lambda f, card: f.is_land_like[card],
    "makes_explores": lambda f, card: f.explores[card] > 0,
    "makes_maps": lambda f, card: f.maps[card] > 0,
    "mana_value": lambda f, card: f.mana_value[card],
    "power": lambda f, card: f.power[card],
    "toughness": lambda f, card: f.toughness[card],
}


def _read_only(value: Any, trials: int, name: str) -> np.ndarray:
    """``value`` as a read-only ``(trials,)`` array of the field's dtype (a view, no copy)."""
    array = np.asarray(value, dtype=bool if name in BOOL_NAMES else np.int32)
    array = np.broadcast_to(array, (trials,)) if array.shape != (trials,) else array.view()
    array.flags.writeable = False
    return array


class Observation:
    """What the player knows when choosing keep or mill; never the library order.

    Every name in :data:`OBSERVATION_NAMES` is an attribute holding a read-only array of
    shape ``(trials,)``; the revealed card's features (``mana_value``, ``is_creature``, ...)
    are looked up on first use. ``features`` gives the per-card arrays (indexed by ``card``)
    for policies that need more. Observations are immutable. Counts may be computed on
    first use, from the game as it is while the policy decides: read them inside the call.
    """

    __slots__ = ("features", "card", "_values")
    features: FeatureTable
    card: np.ndarray

    def __init__(self, features: FeatureTable, card: np.ndarray,
                 values: dict[str, np.ndarray]) -> None:
        object.__setattr__(self, "features", features)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "_values", values)

    def __getattr__(self, name: str) -> np.ndarray:
        values = object.__getattribute__(self, "_values")
        if name in values:
            value = values[name]
            if callable(value):  # a count computed on first use
                value = values[name] = _read_only(value(), self.trials, name)
            return value
        if name in CARD_FIELDS:
            array = CARD_FIELDS[name](self.features, self.card)
            array.flags.writeable = False
            values[name] = array
            return array
        close = _close_names(name)
        hint = f"; did you mean {close}?" if close else "; see explore_sim.OBSERVATION_NAMES"
        raise AttributeError(f"Observation has no field {name!r}{hint}")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("observations are read-only")

    def __dir__(self) -> list[str]:
        return sorted({*OBSERVATION_NAMES, "features", "trials"})

    @property
    def trials(self) -> int:
        """Number of trials."""
        return self.card.shape[0]

    @classmethod
    def build(cls, features: FeatureTable, card: np.ndarray, **counts: Any) -> Observation:
        """An observation of revealed ``card`` ids.

        Parameters
        ----------
        features : FeatureTable
            Per-card arrays of the deck.
        card : ndarray of shape (trials,)
            Revealed card ids (0: nothing revealed).
        **counts
            Every field that does not describe the card (``cards_in_hand``,
            ``lands_in_hand``, ...): arrays of shape ``(trials,)``, scalars (broadcast) or
            functions of no argument that compute the array when a policy first asks for
            it. ``mana_sources`` defaults to ``lands_in_play``, ``predicted_mana`` to
            ``mana_sources + lands_in_hand``, and without colour information
            ``castable_now`` to ``mana_value <= mana_sources`` (a nonland card) and
            ``castable_next_turn`` to ``mana_value <= mana_sources + (lands_in_hand > 0)``.

        Returns
        -------
        Observation
        """
        card = np.asarray(card).view()
        card.flags.writeable = False
        trials = card.shape[0]
        values: dict[str, Any] = {}
        for name, value in counts.items():
            if name not in OBSERVATION_NAMES or name == "card" or name in CARD_FIELDS:
                raise TypeError(f"unknown observation field {name!r}")
            values[name] = value if callable(value) else _read_only(value, trials, name)
        observation = cls(features, card, values)
        values.setdefault("mana_sources", lambda: observation.lands_in_play)
        values.setdefault("predicted_mana",
                          lambda: observation.mana_sources + observation.lands_in_hand)
        values.setdefault("castable_now", lambda: observation.is_nonland & (
            observation.mana_value <= observation.mana_sources))
        values.setdefault("castable_next_turn", lambda: observation.is_nonland & (
            observation.mana_value <= observation.mana_sources + (observation.lands_in_hand > 0)))
        missing = [n for n in OBSERVATION_NAMES if n not in values and n != "card"
                   and n not in CARD_FIELDS]
        if missing:
            raise TypeError(f"missing observation fields: {', '.join(missing)}")
        return observation


def _close_names(name: str) -> str:
    return close_matches(name, OBSERVATION_NAMES)


#: Public names of the helpers (:mod:`explore_sim.engine.policies` offers them as it always
#: did).
read_only = _read_only
close_names = _close_names
