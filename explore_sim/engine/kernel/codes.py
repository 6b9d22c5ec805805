"""The compiled game's constants beside its enumerations (:mod:`.layout`): the cards layer's
codes, each looked up by its name, the typed values passed to compiled functions, and bounds.
"""

from __future__ import annotations

import numpy as np

from ...cards.features import (
    FETCH_BASIC,
    FETCH_CODES,
    FETCH_WHEN_CODES,
    LAND_ENTERS_CODES,
    TAPPED_RULES,
)
from ..config import MAX_ACTIONS
from ..explore_effects import MAX_TRACKER_DOUBLINGS
from ..mulligan import NEVER_CAST_FIRST
from ..paying import MAX_TAXED_CASTS
from ..tables import COLOUR_BITS, NO_LIFE_TIEBREAK

__all__ = [
    "F_BASIC_TAPPED", "F_PASSAGE", "F_BASIC_HAND", "F_TAPPED_AND_HAND", "F_TWO_BASICS",
    "F_LAND_UNTAPPED", "F_LAND_TAPPED", "F_LAND_HAND", "FETCH_BASIC",
    "W_SACRIFICE", "TAPS_YES", "TAPS_UNLESS", "TAPS_FAST", "TAPS_SLOW", "TAPS_LIFE", "L_SCRY",
    "L_BOUNCE", "YES", "NO", "NONE", "ZERO", "ONE", "MAX_TAXED_CASTS",
    "MAX_TRACKER_DOUBLINGS",
    "MAX_ACTIONS", "COLOUR_BITS", "NO_LIFE_TIEBREAK", "NEVER_CAST_FIRST",
]

# What a land search finds (:data:`~explore_sim.cards.features.FETCH_CODES`).
F_BASIC_TAPPED = FETCH_CODES.index("basic_tapped")
F_PASSAGE = FETCH_CODES.index("basic_passage")
F_BASIC_HAND = FETCH_CODES.index("basic_hand")
F_TAPPED_AND_HAND = FETCH_CODES.index("basic_tapped_and_hand")
F_TWO_BASICS = FETCH_CODES.index("two_basics_tapped")
F_LAND_UNTAPPED = FETCH_CODES.index("land_untapped")
F_LAND_TAPPED = FETCH_CODES.index("land_tapped")
F_LAND_HAND = FETCH_CODES.index("land_hand")
# When it searches (:data:`~explore_sim.cards.features.FETCH_WHEN_CODES`).
W_SACRIFICE = FETCH_WHEN_CODES.index("sacrifice")
# How a land enters (:data:`~explore_sim.cards.features.TAPPED_RULES`).
TAPS_YES = TAPPED_RULES.index("yes")
TAPS_UNLESS = TAPPED_RULES.index("unless")
TAPS_FAST = TAPPED_RULES.index("fast")
TAPS_SLOW = TAPPED_RULES.index("slow")
TAPS_LIFE = TAPPED_RULES.index("life")
# What it does as it enters (:data:`~explore_sim.cards.features.LAND_ENTERS_CODES`).
L_SCRY = LAND_ENTERS_CODES.index("scry")
L_BOUNCE = LAND_ENTERS_CODES.index("bounce")

# Constants passed to compiled functions as typed values (numba types a global's value as a
# literal: the game's functions are compiled for plain types whatever they are called with,
# records._one_signature).
YES, NO = np.bool_(True), np.bool_(False)
NONE, ZERO, ONE = np.int64(-1), np.int64(0), np.int64(1)
