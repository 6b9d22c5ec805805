"""When a typed card name is a near miss of a known one: the rule behind "did you mean ...?".

A suggestion names another card, so it is made only for a genuine near miss: a name within
:func:`near_miss_limit` edits of the known name's lookup key (its typed form ignoring case,
accents and runs of spaces, as :func:`explore_sim.cards.normalize_name` gives it). An edit
is one letter inserted, deleted or replaced, or two neighbouring letters swapped (the
optimal-string-alignment form of the Damerau-Levenshtein distance, :func:`edit_distance`).
The limit grows with the name: one edit per eight characters of the typed name, at least
one. So ``Cenote Scot`` (one edit from ``Cenote Scout``) and ``Tishanas Wayfindr`` (two, in
17 characters, from ``Tishana's Wayfinder``) get a suggestion, while ``Ravenous
Chupacabra`` (eight edits from ``Lurking Chupacabra``) and ``Golgari Findbroker`` (eight
from ``Golgari Guildgate``) are names of other cards and get none. Two real cards can be
closer than the limit (``Air Elemental`` is two edits from ``Fire Elemental``, in 13
characters: one too many), so the limit is kept small.
"""

from __future__ import annotations

__all__ = ["CHARACTERS_PER_EDIT", "near_miss_limit", "edit_distance"]

#: A typed name may differ from the known one by one edit per this many of its characters.
CHARACTERS_PER_EDIT = 8


def near_miss_limit(key: str) -> int:
    """The most edits a typed name may be from a known name to be called a near miss of it.

    Parameters
    ----------
    key : str
        The typed name's lookup key.

    Returns
    -------
    int
        ``max(1, len(key) // CHARACTERS_PER_EDIT)``.

    Examples
    --------
    >>> near_miss_limit("cenote scot"), near_miss_limit("tishanas wayfindr")
    (1, 2)
    """
    return max(1, len(key) // CHARACTERS_PER_EDIT)


def edit_distance(a: str, b: str, limit: int) -> int:
    """The edits (insert, delete, replace a letter; swap two neighbours) from ``a`` to ``b``.

    The optimal-string-alignment distance, computed only as far as ``limit``: any distance
    above it is returned as ``limit + 1``.

    Parameters
    ----------
    a, b : str
    limit : int
        The largest distance of interest (0 or more).

    Returns
    -------
    int
        The distance, or ``limit + 1`` when it is larger than ``limit``.

    Examples
    --------
    >>> edit_distance("forset", "forest", 2)
    1
    >>> edit_distance("golgari findbroker", "golgari guildgate", 3)
    4
    """
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    if a == b:
        return 0
    too_far = limit + 1
    before: list[int] | None = None
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [too_far] * len(b)
        low, high = max(1, i - limit), min(len(b), i + limit)
        for j in range(low, high + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if (before is not None and j > 1 and a[i - 1] == b[j - 2]
                    and a[i - 2] == b[j - 1]):
                best = min(best, before[j - 2] + 1)
            current[j] = min(best, too_far)
        if min(current[low - 1: high + 1]) > limit:
            return too_far
        before, previous = previous, current
    return min(previous[len(b)], too_far)
