"""Keep-or-mill policies: what to do with a revealed nonland card (docs/rules.md E2).

A policy is any callable ``policy(obs, rng) -> mill`` where ``obs`` is an
:class:`Observation` (what the player may know; never the library order), ``rng`` is a
:class:`numpy.random.Generator` for policies that randomise, and ``mill`` is a boolean array of
shape ``(trials,)``: True puts the revealed card into the graveyard, False leaves it on top.
The engine asks for a decision in every trial and uses it only where a nonland card was
revealed (``obs.is_nonland``).

Presets (by name): ``keep``, ``mill``, ``xmage`` (always mill, as that engine's AI does),
``forge`` (Forge's Default AI, ``need_lands=2, max_mv_diff=2``), ``forge-reckless``
(``max_mv_diff=1``), ``forge-experimental`` (``need_lands=3``); ``forge:need_lands=3,
max_mv_diff=1`` sets both. Any other text is read as an expression over the observation
names in :data:`OBSERVATION_NAMES`, for example
``lands_in_hand == 0 and lands_in_play <= 2 or mana_value >= mana_sources + 2``. Expressions
are parsed with :mod:`ast` and checked against a whitelist of names and operators; nothing
is evaluated by Python's ``eval``.

Results label a policy by its ``name`` attribute (presets and expressions have one), else by
the function's ``__name__``. Name a lambda or any callable with ``as_policy(fn, name="greedy")``,
with a dict ``{"greedy": fn}`` wherever policies are passed, or with ``fn.name = "greedy"``;
an unnamed lambda is labelled ``<lambda>`` with a :class:`~explore_sim.errors.PolicyWarning`.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

import numpy as np

from ..cards import FeatureTable
from ..errors import PolicyError, PolicyWarning, clip, close_matches

__all__ = [
    "Observation",
    "Policy",
    "KeepPolicy",
    "MillPolicy",
    "ForgePolicy",
    "ExpressionPolicy",
    "NamedPolicy",
    "PRESETS",
    "OBSERVATION_NAMES",
    "as_policy",
    "as_policies",
    "one_policy",
    "policy_name",
    "decide",
    "Grammar",
    "POLICY_GRAMMAR",
    "compile_expression",
    "evaluate_expression",
]

#: Observation fields usable in policy expressions, with their meaning. Booleans can be
#: combined with ``and``/``or``/``not``; numbers with ``+ - * / // %`` and comparisons.
OBSERVATION_NAMES: dict[str, str] = {
    "card": "deck-local id of the revealed card (0: nothing revealed)",
    "is_land": "the revealed card is a land card (bool)",
    "is_nonland": "the revealed card is a nonland card (bool)",
    "is_empty": "the library was empty, nothing was revealed (bool)",
    "is_creature": "the revealed card is a creature card (bool)",
    "is_land_like": "the revealed card is a spell // land double-faced card (bool)",
    "makes_explores": "the revealed card has an explore ability (bool)",
    "makes_maps": "the revealed card makes Map tokens (bool)",
    "mana_value": "mana value of the revealed card (X = 0)",
    "power": "printed power of the revealed card (0 if none)",
    "toughness": "printed toughness of the revealed card (0 if none)",
    "cards_in_hand": "cards in hand",
    "lands_in_hand": "land cards in hand",
    "lands_in_play": "lands on the battlefield",
    "mana_sources": "permanents you control with a mana ability (lands, mana creatures, "
                    "mana rocks)",
    "predicted_mana": "mana sources plus land cards in hand (Forge's estimate)",
    "castable_now": "your untapped sources can pay the revealed card's cost now, colours "
                    "included (bool)",
    "castable_next_turn": "all your sources, untapped, plus one land from your hand could "
                          "pay the revealed card's cost (bool)",
    "turn": "the current turn number",
    "explores_left": "explores left in this sequence, this one included",
    "counters": "+1/+1 counters the explorer has received in this sequence",
    "explorer_present": "the explorer is still on the battlefield (bool)",
    "library_size": "cards left in the library, the revealed one included",
    "lands_in_library": "land cards left in the library, the revealed one included",
}
_BOOL_NAMES = frozenset(
    name for name, text in OBSERVATION_NAMES.items() if text.endswith("(bool)")
)


#: Observation fields looked up from the revealed card, computed on first use.
_CARD_FIELDS: dict[str, Callable[[FeatureTable, np.ndarray], np.ndarray]] = {
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
    array = np.asarray(value, dtype=bool if name in _BOOL_NAMES else np.int32)
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

    def __init__(self, features: FeatureTable, card: np.ndarray, values: dict[str, np.ndarray]) -> None:
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
        if name in _CARD_FIELDS:
            array = _CARD_FIELDS[name](self.features, self.card)
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
            if name not in OBSERVATION_NAMES or name == "card" or name in _CARD_FIELDS:
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
                   and n not in _CARD_FIELDS]
        if missing:
            raise TypeError(f"missing observation fields: {', '.join(missing)}")
        return observation


class Policy(Protocol):
    """The policy protocol: ``policy(obs, rng)`` returns a ``(trials,)`` bool mill mask."""

    def __call__(self, obs: Observation, rng: np.random.Generator) -> np.ndarray: ...


@dataclasses.dataclass(frozen=True)
class KeepPolicy:
    """Always leave a revealed nonland card on top."""

    name: str = "keep"

    def __call__(self, obs: Observation, rng: np.random.Generator) -> np.ndarray:
        return np.zeros(obs.trials, dtype=bool)


@dataclasses.dataclass(frozen=True)
class MillPolicy:
    """Always put a revealed nonland card into the graveyard (also the ``xmage`` preset)."""

    name: str = "mill"

    def __call__(self, obs: Observation, rng: np.random.Generator) -> np.ndarray:
        return np.ones(obs.trials, dtype=bool)


@dataclasses.dataclass(frozen=True)
class ForgePolicy:
    """Forge's explore AI (docs/rules.md, policy presets).

    Mill when there is no land card in hand and at most ``need_lands`` lands on the
    battlefield (dig for lands), or when the card's mana value is at least the predicted
    mana (mana sources on the battlefield plus land cards in hand) plus ``max_mv_diff``
    (it will not be cast soon); otherwise keep.
    """

    need_lands: int = 2
    max_mv_diff: int = 2
    name: str = "forge"

    def __post_init__(self) -> None:
        for field in ("need_lands", "max_mv_diff"):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise PolicyError(f"forge: {field} must be a whole number, got {clip(repr(value))}")
            if not -100 <= value <= 100:
                raise PolicyError(f"forge: {field} must be between -100 and 100, got {value}")

    def __call__(self, obs: Observation, rng: np.random.Generator) -> np.ndarray:
        dig_for_lands = (obs.lands_in_hand == 0) & (obs.lands_in_play <= self.need_lands)
        too_expensive = obs.mana_value >= obs.predicted_mana + self.max_mv_diff
        return dig_for_lands | too_expensive


#: Named policies accepted wherever a policy is expected.
PRESETS: dict[str, Callable[[], Policy]] = {
    "keep": KeepPolicy,
    "mill": MillPolicy,
    "xmage": lambda: MillPolicy(name="xmage"),
    "forge": ForgePolicy,
    "forge-reckless": lambda: ForgePolicy(max_mv_diff=1, name="forge-reckless"),
    "forge-experimental": lambda: ForgePolicy(need_lands=3, name="forge-experimental"),
}


# ---------------------------------------------------------------------------------------
# Expressions

_MAX_EXPRESSION_LENGTH = 2000
_MAX_DEPTH = 40
_MAX_CONSTANT = 1_000_000
_COMPARE = {
    ast.Eq: np.equal,
    ast.NotEq: np.not_equal,
    ast.Lt: np.less,
    ast.LtE: np.less_equal,
    ast.Gt: np.greater,
    ast.GtE: np.greater_equal,
}
_ARITHMETIC = {
    ast.Add: np.add,
    ast.Sub: np.subtract,
    ast.Mult: np.multiply,
    ast.Div: np.true_divide,
    ast.FloorDiv: np.floor_divide,
    ast.Mod: np.mod,
}
_OPERATOR_TEXT = {
    ast.Pow: "**",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.MatMult: "@",
    ast.Invert: "~",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}

# A checked expression is a tree of these small tuples, evaluated over arrays.
_Node = tuple
#: Operators Python reads with the precedence of '@' (see name@turn in :func:`_check`).
_SAME_AS_AT = (ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.MatMult)


@dataclasses.dataclass(frozen=True)
class Grammar:
    """What an expression may name: the whitelist shared by policies and objectives.

    Parameters
    ----------
    label : str
        Starts every error message (``"policy expression"``, ``"objective"``).
    names : mapping of str to str
        The allowed names and their meaning.
    bool_names : frozenset of str
        Names that are conditions (the rest are numbers).
    at_turns : bool
        Names must be given a turn with ``@`` (``on_curve@4``), as objectives do; a bare
        name is refused, and ``@`` is allowed only between a name and a whole number.
    max_turn : int
        The largest turn after ``@``.
    error : type
        The exception raised for a bad expression.
    """

    label: str
    names: Mapping[str, str]
    bool_names: frozenset[str] = frozenset()
    at_turns: bool = False
    max_turn: int = 50
    error: type[Exception] = PolicyError


#: The policy expressions' grammar: observation names, mill where true.
POLICY_GRAMMAR = Grammar("policy expression", OBSERVATION_NAMES, _BOOL_NAMES)


class ExpressionPolicy:
    """A policy written as a condition over observation names (mill where it is true).

    Parameters
    ----------
    text : str
        For example ``"lands_in_hand == 0 and lands_in_play <= 2"``. Allowed: the names in
        :data:`OBSERVATION_NAMES`, whole and decimal numbers, ``True``/``False``,
        ``+ - * / // %``, comparisons (chained too), ``and``, ``or``, ``not``, parentheses.

    Raises
    ------
    PolicyError
        If the text is not such a condition; the message says what and where.
    """

    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            raise PolicyError(f"a policy expression must be text, got {type(text).__name__}")
        self.text = text
        self.name = text
        self._tree = _compile(text)

    def __call__(self, obs: Observation, rng: np.random.Generator) -> np.ndarray:
        with np.errstate(all="ignore"):
            value = _evaluate(self._tree, obs)
        return np.broadcast_to(np.asarray(value, dtype=bool), (obs.trials,)).copy()

    def __repr__(self) -> str:
        return f"ExpressionPolicy({self.text!r})"

    def __reduce__(self) -> tuple[type, tuple[str]]:
        # Pickled as its text and checked again when unpickled (worker processes, Dask).
        return ExpressionPolicy, (self.text,)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExpressionPolicy) and other.text == self.text

    def __hash__(self) -> int:
        return hash(("ExpressionPolicy", self.text))


def _compile(text: str) -> _Node:
    node, kind = compile_expression(text, POLICY_GRAMMAR)
    if kind != "bool":
        raise PolicyError(
            f"policy expression {clip(text)!r} is a number, not a condition "
            "(compare it, for example 'mana_value >= 4')"
        )
    return node


def compile_expression(text: str, grammar: Grammar) -> tuple[_Node, str]:
    """Parse and check an expression against a grammar's whitelist (nothing is evaluated).

    Parameters
    ----------
    text : str
        One line, at most 2,000 characters: names of the grammar, numbers, ``True`` and
        ``False``, ``+ - * / // %``, comparisons, ``and``, ``or``, ``not``, parentheses
        and, with :attr:`Grammar.at_turns`, ``name@turn``.
    grammar : Grammar
        What may be named (:data:`POLICY_GRAMMAR` for policies).

    Returns
    -------
    (tuple, str)
        The checked tree for :func:`evaluate_expression`, and its kind: ``"bool"`` (a
        condition) or ``"number"``.

    Raises
    ------
    Exception
        ``grammar.error`` (:class:`~explore_sim.errors.PolicyError` by default), saying
        what is wrong and where.
    """
    label, error_type = grammar.label, grammar.error
    if not isinstance(text, str):
        raise error_type(f"{label} must be text, got {type(text).__name__}")
    if not text.strip():
        raise error_type(f"{label} is empty")
    if len(text) > _MAX_EXPRESSION_LENGTH:
        raise error_type(
            f"{label} is too long ({len(text)} characters, at most {_MAX_EXPRESSION_LENGTH})"
        )
    if "\n" in text or "\r" in text:
        raise error_type(f"{label} must be on one line")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as error:
        column = f" at column {error.offset}" if error.offset else ""
        raise error_type(f"{label} {clip(text)!r} is not valid{column}: {error.msg}") from None
    except (ValueError, RecursionError, MemoryError):
        raise error_type(f"{label} {clip(text)!r} cannot be parsed") from None
    try:
        return _check(tree.body, text, 0, grammar)
    except RecursionError:
        raise error_type(f"{label} is nested too deeply") from None


def evaluate_expression(tree: _Node, values: Any) -> Any:
    """Evaluate a tree from :func:`compile_expression` over arrays.

    Parameters
    ----------
    tree : tuple
        A checked tree.
    values : object
        Gives each name as an attribute (an :class:`Observation`), and with ``name@turn``
        terms ``values.at(name, turn)``; arrays of shape ``(trials,)``.

    Returns
    -------
    ndarray or scalar
        The expression's value per trial (a scalar for a constant expression).
    """
    with np.errstate(all="ignore"):
        return _evaluate(tree, values)


def _check(node: ast.AST, text: str, depth: int,
           grammar: Grammar = POLICY_GRAMMAR) -> tuple[_Node, str]:
    """Check one syntax node against the whitelist; return (compiled node, 'bool'|'number')."""
    if depth > _MAX_DEPTH:
        raise grammar.error(f"{grammar.label} is nested too deeply")
    where = f" at column {node.col_offset + 1}" if hasattr(node, "col_offset") else ""

    def fail(message: str, then: str = "") -> Exception:
        return grammar.error(f"{grammar.label} {clip(text)!r}: {message}{where}{then}")

    def check(child: ast.AST) -> tuple[_Node, str]:
        return _check(child, text, depth + 1, grammar)

    if isinstance(node, ast.Name):
        if node.id not in grammar.names:
            close = close_matches(node.id, grammar.names)
            hint = f" (did you mean {close}?)" if close else ""
            see = "; see 'explore-sim policies'" if grammar is POLICY_GRAMMAR else ""
            raise fail(f"unknown name {clip(node.id)!r}{hint}", see)
        if grammar.at_turns:
            raise fail(f"{node.id!r} needs a turn, as in {node.id}@4")
        return ("name", node.id), "bool" if node.id in grammar.bool_names else "number"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult) and grammar.at_turns:
        # name@turn: a metric at the end of a turn (objectives). Python reads '@' like '*'
        # (and after a sign), so "0.1*counters@6" parses as "(0.1*counters)@6": the '@' is
        # moved onto the name it follows, "0.1*(counters@6)".
        turn = node.right
        left = node.left
        if isinstance(left, ast.BinOp) and isinstance(left.op, _SAME_AS_AT):
            moved = ast.BinOp(left.right, ast.MatMult(), turn)
            return check(ast.copy_location(
                ast.BinOp(left.left, left.op, ast.copy_location(moved, left.right)), node))
        if isinstance(left, ast.UnaryOp):
            moved = ast.BinOp(left.operand, ast.MatMult(), turn)
            return check(ast.copy_location(
                ast.UnaryOp(left.op, ast.copy_location(moved, left.operand)), node))
        if not isinstance(left, ast.Name):
            raise fail(f"'@' needs a name on its left, got {clip(ast.unparse(left))!r}")
        if left.id not in grammar.names:
            close = close_matches(left.id, grammar.names)
            hint = f" (did you mean {close}?)" if close else ""
            raise fail(f"unknown name {clip(left.id)!r}{hint}")
        if (not isinstance(turn, ast.Constant) or isinstance(turn.value, bool)
                or not isinstance(turn.value, int) or not 1 <= turn.value <= grammar.max_turn):
            raise fail(f"'@' needs a turn from 1 to {grammar.max_turn} on its right, got "
                       f"{clip(ast.unparse(turn))!r}")
        kind = "bool" if left.id in grammar.bool_names else "number"
        return ("at", left.id, turn.value), kind
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool):
            return ("const", value), "bool"
        if isinstance(value, (int, float)) and not isinstance(value, complex):
            if not abs(value) <= _MAX_CONSTANT:  # also false for inf and nan
                raise fail(f"number {clip(repr(value))} is out of range (at most {_MAX_CONSTANT})")
            return ("const", value), "number"
        raise fail(f"{type(value).__name__} values are not allowed")
    if isinstance(node, ast.BoolOp):
        parts = [check(v) for v in node.values]
        if any(kind != "bool" for _, kind in parts):
            raise fail(f"'{'and' if isinstance(node.op, ast.And) else 'or'}' needs conditions on both sides")
        op = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
        return ("bool", op, [compiled for compiled, _ in parts]), "bool"
    if isinstance(node, ast.UnaryOp):
        operand, kind = check(node.operand)
        if isinstance(node.op, ast.Not):
            if kind != "bool":
                raise fail("'not' needs a condition")
            return ("not", operand), "bool"
        if isinstance(node.op, (ast.USub, ast.UAdd)):
            if kind != "number":
                raise fail("a sign needs a number")
            return ("neg", operand) if isinstance(node.op, ast.USub) else operand, "number"
        raise fail(f"operator {_OPERATOR_TEXT.get(type(node.op), type(node.op).__name__)!r} is not allowed")
    if isinstance(node, ast.BinOp):
        op = _ARITHMETIC.get(type(node.op))
        if op is None:
            raise fail(f"operator {_OPERATOR_TEXT.get(type(node.op), type(node.op).__name__)!r} is not allowed")
        left, left_kind = check(node.left)
        right, right_kind = check(node.right)
        if left_kind != "number" or right_kind != "number":
            raise fail("arithmetic needs numbers on both sides")
        return ("arith", op, left, right), "number"
    if isinstance(node, ast.Compare):
        for op_node in node.ops:
            if type(op_node) not in _COMPARE:
                raise fail(f"comparison {_OPERATOR_TEXT.get(type(op_node), '?')!r} is not allowed")
        operands = [check(node.left)]
        operands += [check(c) for c in node.comparators]
        compiled = []
        for op_node, (left, left_kind), (right, right_kind) in zip(
            node.ops, operands, operands[1:]
        ):
            op = _COMPARE[type(op_node)]
            if left_kind != right_kind:
                raise fail("a comparison needs two numbers or two conditions")
            compiled.append(("compare", op, left, right))
        if len(compiled) == 1:
            return compiled[0], "bool"
        return ("bool", np.logical_and, compiled), "bool"
    if isinstance(node, ast.Call):
        raise fail("function calls are not allowed")
    if isinstance(node, ast.Attribute):
        raise fail("attribute access is not allowed")
    if isinstance(node, ast.IfExp):
        raise fail("'x if c else y' is not allowed; use 'and'/'or'")
    raise fail(f"{type(node).__name__} is not allowed")


def _evaluate(node: _Node, obs: Observation) -> Any:
    kind = node[0]
    if kind == "name":
        return getattr(obs, node[1])
    if kind == "const":
        return node[1]
    if kind == "at":
        return obs.at(node[1], node[2])
    if kind == "not":
        return np.logical_not(_evaluate(node[1], obs))
    if kind == "neg":
        return np.negative(_evaluate(node[1], obs))
    if kind == "bool":
        values = [_evaluate(part, obs) for part in node[2]]
        result = values[0]
        for value in values[1:]:
            result = node[1](result, value)
        return result
    if kind in {"arith", "compare"}:
        left = np.asarray(_evaluate(node[2], obs), dtype=np.float64)
        right = np.asarray(_evaluate(node[3], obs), dtype=np.float64)
        return node[1](left, right)
    raise AssertionError(f"unknown node {kind!r}")  # unreachable: _check builds the nodes


def _close_names(name: str) -> str:
    return close_matches(name, OBSERVATION_NAMES)


# ---------------------------------------------------------------------------------------
# Resolution and validation

_FORGE_ARGS = re.compile(r"^forge\s*:\s*(?P<args>.*)$", flags=re.IGNORECASE)


@dataclasses.dataclass(frozen=True, repr=False)
class NamedPolicy:
    """A policy under a name of the caller's choosing.

    Made by ``as_policy(fn, name="greedy")`` or by a ``{"greedy": fn}`` dict of policies;
    results label the policy by :attr:`name`.

    Attributes
    ----------
    policy : callable
        The policy called.
    name : str
        Its label in results.
    """

    policy: Policy
    name: str

    def __call__(self, obs: Observation, rng: np.random.Generator) -> np.ndarray:
        return self.policy(obs, rng)

    def __repr__(self) -> str:
        return f"NamedPolicy({self.name!r})"


def as_policy(spec: str | Policy, name: str | None = None) -> Policy:
    """Turn a preset name, ``forge:key=value,...``, an expression or a callable into a policy.

    Parameters
    ----------
    spec : str or callable
        A preset name (:data:`PRESETS`), ``forge:need_lands=N,max_mv_diff=M``, an expression
        over :data:`OBSERVATION_NAMES`, or a callable ``policy(obs, rng)`` returning a bool
        array of shape ``(trials,)``.
    name : str, optional
        The label results give the policy (default: its ``name`` attribute, else the
        function's name).

    Returns
    -------
    callable
        The policy; a :class:`NamedPolicy` when ``name`` is given.

    Raises
    ------
    PolicyError
        For text that is none of these, an object that is not callable, or an empty name.
    """
    policy = _as_policy(spec)
    if name is None:
        return policy
    if not isinstance(name, str) or not name.strip():
        raise PolicyError(f"a policy name must be non-empty text, got {name!r}")
    return NamedPolicy(policy.policy if isinstance(policy, NamedPolicy) else policy, name.strip())


def _as_policy(spec: str | Policy) -> Policy:
    if isinstance(spec, str):
        key = spec.strip().casefold()
        if key in PRESETS:
            return PRESETS[key]()
        match = _FORGE_ARGS.match(spec.strip())
        if match:
            return _forge_with_arguments(match.group("args"), spec)
        return ExpressionPolicy(spec)
    if callable(spec):
        return spec
    raise PolicyError(
        f"a policy must be a preset name, an expression or a callable, got {type(spec).__name__}"
    )


def as_policies(
    spec: str | Policy | Mapping[str, str | Policy] | Iterable[str | Policy],
) -> list[Policy]:
    """One or several policies, as given to :func:`explore_sim.compare` and friends.

    Parameters
    ----------
    spec : str, callable, dict or sequence
        One policy (see :func:`as_policy`); a dict ``{name: policy}``, whose keys name the
        policies; or a sequence of policies.

    Returns
    -------
    list of callable
        The policies in the order given. An unnamed lambda gives a :class:`PolicyWarning`
        (its label would be ``<lambda>``).

    Raises
    ------
    PolicyError
        For an empty collection, a non-text dict key, or a policy :func:`as_policy` refuses.
    """
    if isinstance(spec, str) or callable(spec):
        policies = [as_policy(spec)]
    elif isinstance(spec, Mapping):
        for key in spec:
            if not isinstance(key, str):
                raise PolicyError(f"policy names (the dict keys) must be text, got {key!r}")
        policies = [as_policy(policy, name=key) for key, policy in spec.items()]
    elif isinstance(spec, Iterable):
        policies = [as_policy(policy) for policy in spec]
    else:
        raise PolicyError(
            "policies must be a policy, a list of policies or a {name: policy} dict, "
            f"got {type(spec).__name__}"
        )
    if not policies:
        raise PolicyError("no policy given")
    _warn_unnamed(policies)
    return policies


def one_policy(spec: str | Policy | Mapping[str, str | Policy], command: str) -> Policy:
    """The single policy of ``spec`` (a policy, or a one-entry ``{name: policy}`` dict).

    Parameters
    ----------
    spec : str, callable or dict
    command : str
        Names the function in the error message.

    Returns
    -------
    callable

    Raises
    ------
    PolicyError
        If ``spec`` holds several policies.
    """
    policies = as_policies(spec)
    if len(policies) != 1:
        raise PolicyError(
            f"{command} plays one policy, got {len(policies)}; "
            "compare several with explore_sim.compare"
        )
    return policies[0]


def _warn_unnamed(policies: list[Policy]) -> None:
    for policy in policies:
        if policy_name(policy) == "<lambda>":
            warnings.warn(
                "a lambda policy is labelled '<lambda>'; name it with a dict "
                "{'name': policy}, as_policy(policy, name='name') or policy.name = 'name'",
                PolicyWarning, stacklevel=4,
            )


def _forge_with_arguments(args: str, spec: str) -> ForgePolicy:
    values: dict[str, int] = {}
    for part in filter(None, (p.strip() for p in args.split(","))):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in {"need_lands", "max_mv_diff"}:
            raise PolicyError(
                f"policy {clip(spec)!r}: expected need_lands=N and/or max_mv_diff=N, got {clip(part)!r}"
            )
        if not re.fullmatch(r"-?\d{1,3}", value.strip()):
            raise PolicyError(f"policy {clip(spec)!r}: {clip(key)} must be a whole number, got {clip(value)!r}")
        values[key] = int(value)
    return ForgePolicy(**values, name=f"forge:{','.join(f'{k}={v}' for k, v in values.items())}")


def policy_name(policy: Policy) -> str:
    """A short name for a policy, for results and their metadata.

    Parameters
    ----------
    policy : callable

    Returns
    -------
    str
        Its ``name`` attribute if that is text, else the function's ``__name__``, else the
        class name.
    """
    name = getattr(policy, "name", None)
    if isinstance(name, str):
        return name
    return getattr(policy, "__name__", None) or type(policy).__name__


def decide(policy: Policy, obs: Observation, rng: np.random.Generator) -> np.ndarray:
    """Call ``policy`` and check its answer: a NumPy bool array of shape ``(trials,)``.

    Parameters
    ----------
    policy : callable
    obs : Observation
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (trials,), bool
        True: mill the revealed card.

    Raises
    ------
    PolicyError
        If the policy answered with something other than a NumPy array (a list, a pandas
        Series), or with the wrong shape or dtype.
    """
    mill = policy(obs, rng)
    name = policy_name(policy)
    if not isinstance(mill, np.ndarray):
        raise PolicyError(
            f"policy {name!r} returned a {type(mill).__name__}, expected a numpy bool array "
            f"of shape ({obs.trials},) (use np.asarray)"
        )
    if mill.shape != (obs.trials,):
        raise PolicyError(
            f"policy {name!r} returned shape {mill.shape}, expected ({obs.trials},)"
        )
    if mill.dtype != np.bool_:
        raise PolicyError(f"policy {name!r} returned dtype {mill.dtype}, expected bool")
    return mill
