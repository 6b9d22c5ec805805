"""Form fields of the web page: what each option is called, its default, its help text, and
how the text a browser sends is turned into a value (or a one-line error naming the field).

A form value arrives as text, from a POSTed form or from a permalink's query string, and leaves
as text again (:meth:`Field.to_query`), so a run can be written into a link and read back to
the same options. A form refused for its problems lists them at its top
(:func:`problem_summary`), each linked to its field. Nothing here evaluates user text: policies
are only parsed by the whitelist parser of :mod:`explore_sim.engine.policies` (see
:mod:`explore_sim.web.analyses`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import clip, count_wanted, parse_count

__all__ = ["Field", "FieldError", "parse_fields", "problem_summary", "query_pairs", "MAX_TEXT"]

#: The longest one-line text field, in characters (a policy expression, a metric list).
MAX_TEXT = 2000
#: The most items of a one-per-line field.
MAX_LINES = 20
_KINDS = ("int", "number", "text", "lines", "choice", "flag")


class FieldError(ValueError):
    """A form value that cannot be used; ``field`` names the form field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclasses.dataclass(frozen=True)
class Field:
    """One option of an analysis, as a form field.

    Attributes
    ----------
    name : str
        The form and query-string key, and the option's name.
    label : str
        What the page calls it.
    kind : {"int", "number", "text", "lines", "choice", "flag"}
        ``lines`` is a list, one item per line; ``flag`` a checkbox.
    default : object
        The value when the field is left out (None: blank allowed, meaning "not set").
    help : str
        One sentence under the field.
    choices : tuple of str
        The values of a ``choice``.
    low, high : float, optional
        Bounds of a number, inclusive.
    wide : bool
        Drawn across the whole form row.
    """

    name: str
    label: str
    kind: str
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    wide: bool = False

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"field {self.name}: unknown kind {self.kind!r}")
        if self.kind == "choice" and self.default not in self.choices:
            raise ValueError(f"field {self.name}: default {self.default!r} is not a choice")

    @property
    def optional(self) -> bool:
        """A blank value means "not set" (None)."""
        return self.default is None

    def parse(self, raw: str | None) -> Any:
        """The value of the text a browser sent.

        Parameters
        ----------
        raw : str or None
            None when the field was not sent (an unticked checkbox, a short permalink).

        Returns
        -------
        object
            int, float, str, list of str, bool, or None for a blank optional field.

        Raises
        ------
        FieldError
            A value of the wrong kind or out of bounds, naming the field.
        """
        if self.kind == "flag":
            return raw is not None and raw.strip().casefold() in {"1", "on", "true", "yes"}
        if raw is None or not raw.strip():
            if self.kind == "lines":
                return list(self.default or [])
            if raw is not None and not self.optional and self.kind in {"int", "number"}:
                raise FieldError(self.name, f"{self.label}: enter a number")
            return self.default
        text = raw.strip()
        if self.kind == "lines":
            items = [line.strip() for line in text.splitlines() if line.strip()]
            if len(items) > MAX_LINES:
                raise FieldError(self.name, f"{self.label}: at most {MAX_LINES} lines, "
                                            f"got {len(items)}")
            too_long = [item for item in items if len(item) > MAX_TEXT]
            if too_long:
                raise FieldError(self.name, f"{self.label}: a line of at most {MAX_TEXT} "
                                            f"characters, got {len(too_long[0]):,}")
            return items
        if len(text) > MAX_TEXT:
            raise FieldError(self.name, f"{self.label}: at most {MAX_TEXT} characters, got "
                                        f"{len(text):,}")
        if self.kind == "choice":
            if text not in self.choices:
                raise FieldError(self.name, f"{self.label}: choose one of "
                                            f"{', '.join(self.choices)}; got {clip(text)!r}")
            return text
        if self.kind == "text":
            return text
        if self.kind == "int":
            value: float | None = parse_count(text)
            if value is None:
                bounded = self.low is not None or self.high is not None
                wanted = "a whole number" + (f" ({self._bounds()})" if bounded else " >= 0")
                if count_wanted(text) != "a whole number >= 0":  # digits, too many of them
                    wanted = count_wanted(text)
                raise FieldError(self.name, f"{self.label}: expected {wanted}, got "
                                            f"{clip(text)!r}")
        else:
            try:
                value = float(text)
            except ValueError:
                value = math.nan
            if not math.isfinite(value):
                raise FieldError(self.name, f"{self.label}: expected a number, got "
                                            f"{clip(text)!r}")
        if self.low is not None and value < self.low or self.high is not None and value > self.high:
            raise FieldError(self.name, f"{self.label}: expected {self._bounds()}, got "
                                        f"{clip(text)}")
        return value

    def _bounds(self) -> str:
        low, high = (None if b is None else f"{b:,g}" if self.kind == "number" else f"{int(b):,}"
                     for b in (self.low, self.high))
        if low is not None and high is not None:
            return f"a value from {low} to {high}"
        return f"at least {low}" if low is not None else f"at most {high}"

    def to_query(self, value: Any) -> str | None:
        """The text that :meth:`parse` reads back to ``value``; None leaves the field out.

        Parameters
        ----------
        value : object

        Returns
        -------
        str or None
        """
        if self.kind == "flag":
            return "1" if value else None
        if value is None:
            return None
        if self.kind == "lines":
            return "\n".join(value) if value else None
        if self.kind == "number":
            return repr(float(value))
        return str(value)

    def to_form(self, value: Any) -> str:
        """The text shown in the form for ``value``.

        Parameters
        ----------
        value : object

        Returns
        -------
        str
        """
        if self.kind == "lines":
            return "\n".join(value or [])
        if self.kind == "number" and value is not None:
            return f"{float(value):g}"
        return "" if value is None or self.kind == "flag" else str(value)


def parse_fields(fields: Sequence[Field], data: Mapping[str, str]) -> tuple[dict[str, Any],
                                                                          dict[str, str]]:
    """Every field's value, and every field's error.

    Parameters
    ----------
    fields : sequence of Field
    data : mapping of str to str
        What the browser sent (a form or a query string).

    Returns
    -------
    (dict, dict)
        ``{name: value}`` for the fields that parsed, and ``{name: message}`` for the others.
    """
    values: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for field in fields:
        try:
            values[field.name] = field.parse(data.get(field.name))
        except FieldError as error:
            errors[field.name] = str(error)
    return values, errors


def query_pairs(fields: Sequence[Field], values: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(name, text)`` of every field whose value is not its default (``trials`` and
    ``seed`` always), for a permalink.

    Parameters
    ----------
    fields : sequence of Field
    values : mapping of str to object

    Returns
    -------
    list of (str, str)
    """
    pairs = []
    for field in fields:
        value = values.get(field.name, field.default)
        default = list(field.default) if field.kind == "lines" and field.default else field.default
        if value == default and field.name not in {"trials", "seed"}:
            continue
        text = field.to_query(value)
        if text is not None:
            pairs.append((field.name, text))
    return pairs


def problem_summary(fields: list[dict[str, Any]], slots: list[dict[str, Any]],
                    errors: dict[str, str]) -> list[dict[str, str]]:
    """The form's problems for the summary at its top, each with the anchor of the part it
    concerns (a page refused with a problem opens at its top, the field maybe far below):
    the decks' first, then the card file's, then the options' in the form's order.

    Parameters
    ----------
    fields : list of dict
        The options as :meth:`~explore_sim.web.app.WebApp.render` gives them to the page
        (``field``, ``error``).
    slots : list of dict
        The decklists as it gives them (``slot``, ``label``, ``problems``, ``error``,
        ``base_key``).
    errors : dict of str to str
        The form's errors by field name.

    Returns
    -------
    list of dict
        ``{"href": "#id", "text": "label: problem"}`` each.
    """
    summary = []
    for slot in slots:
        problems = len(slot["problems"])
        if problems:
            noun = "problem" if problems == 1 else "problems"
            summary.append({"href": f"#{slot['slot']}-problems",
                            "text": f"{slot['label']}: {problems} {noun} reading it"})
        if slot["error"]:
            summary.append({"href": f"#{slot['slot']}", "text": slot["error"]})
        if errors.get(slot["base_key"]):
            summary.append({"href": f"#{slot['slot']}-slot", "text": errors[slot["base_key"]]})
    if errors.get("cards_file"):
        summary.append({"href": "#cards-file", "text": errors["cards_file"]})
    summary += [{"href": f"#f-{item['field'].name}", "text": item["error"]}
                for item in fields if item["error"]]
    return summary
