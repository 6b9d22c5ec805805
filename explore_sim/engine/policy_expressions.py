"""Policy expressions: conditions over the observation names, such as ``lands_in_hand == 0
and mana_value >= 3``, parsed with :mod:`ast`, checked against a whitelist of names and
operators (the :class:`Grammar` that objectives share) and evaluated over arrays; nothing is
evaluated by Python's ``eval``."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..errors import PolicyError, clip, close_matches
from .observations import BOOL_NAMES, OBSERVATION_NAMES, Observation

__all__ = ["Grammar", "POLICY_GRAMMAR", "ExpressionPolicy", "compile_expression",
           "evaluate_expression", "Node", "compile_condition", "evaluate_tree", "check_node",
           "Operation", "OPERATIONS", "operation_of"]

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


@dataclasses.dataclass(frozen=True)
class Operation:
    """One operator of the expression language, as a checked tree holds it.

    Attributes
    ----------
    name : str
        Its name (``"EQ"``, ``"ADD"``), the compiled kernel's bytecode operation of that
        name (:class:`~explore_sim.engine.kernel.layout.Op`).
    text : str
        How an expression writes it.
    function : callable
        The NumPy function a tree node holds and applies.
    kernel : bool
        The compiled kernel's bytecode computes it; a policy using an operator it does not
        is played by the NumPy engine.
    """

    name: str
    text: str
    function: Callable[..., Any]
    kernel: bool = False


#: Every operator a checked tree may hold: comparisons, arithmetic, connectives and signs.
OPERATIONS: tuple[Operation, ...] = (
    Operation("EQ", "==", np.equal, kernel=True),
    Operation("NE", "!=", np.not_equal, kernel=True),
    Operation("LT", "<", np.less, kernel=True),
    Operation("LE", "<=", np.less_equal, kernel=True),
    Operation("GT", ">", np.greater, kernel=True),
    Operation("GE", ">=", np.greater_equal, kernel=True),
    Operation("ADD", "+", np.add, kernel=True),
    Operation("SUB", "-", np.subtract, kernel=True),
    Operation("MUL", "*", np.multiply, kernel=True),
    Operation("DIV", "/", np.true_divide, kernel=True),
    Operation("FLOORDIV", "//", np.floor_divide, kernel=True),
    Operation("MOD", "%", np.mod, kernel=True),
    Operation("AND", "and", np.logical_and, kernel=True),
    Operation("OR", "or", np.logical_or, kernel=True),
    Operation("NOT", "not", np.logical_not, kernel=True),
    Operation("NEG", "-", np.negative, kernel=True),
)
_BY_FUNCTION = {operation.function: operation for operation in OPERATIONS}


def operation_of(function: Callable[..., Any]) -> Operation:
    """The :class:`Operation` whose NumPy function a tree node holds.

    Parameters
    ----------
    function : callable

    Returns
    -------
    Operation
    """
    return _BY_FUNCTION[function]


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

#: A checked expression is a tree of these small tuples, evaluated over arrays.
Node = tuple
_Node = Node
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
POLICY_GRAMMAR = Grammar("policy expression", OBSERVATION_NAMES, BOOL_NAMES)


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

    @property
    def tree(self) -> tuple:
        """The checked expression as nested tuples (``("name", n)``, ``("const", v)``,
        ``("compare", ...)``, ...), which the compiled game's bytecode is made from."""
        return self._tree

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
    return _Checker(text, grammar).check(node, depth)


@dataclasses.dataclass(frozen=True)
class _Checker:
    """Checks the syntax nodes of one expression against a grammar's whitelist."""

    text: str
    grammar: Grammar

    def fail(self, node: ast.AST, message: str, then: str = "") -> Exception:
        where = f" at column {node.col_offset + 1}" if hasattr(node, "col_offset") else ""
        return self.grammar.error(f"{self.grammar.label} {clip(self.text)!r}: {message}{where}"
                                  f"{then}")

    def check(self, node: ast.AST, depth: int) -> tuple[_Node, str]:
        grammar = self.grammar
        if depth > _MAX_DEPTH:
            raise grammar.error(f"{grammar.label} is nested too deeply")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult) and grammar.at_turns:
            return self.at_turn(node, depth)
        for kind, method in _CHECKS:
            if isinstance(node, kind):
                return method(self, node, depth)
        if isinstance(node, ast.Call):
            raise self.fail(node, "function calls are not allowed")
        if isinstance(node, ast.Attribute):
            raise self.fail(node, "attribute access is not allowed")
        if isinstance(node, ast.IfExp):
            raise self.fail(node, "'x if c else y' is not allowed; use 'and'/'or'")
        raise self.fail(node, f"{type(node).__name__} is not allowed")

    def name(self, node: ast.Name, depth: int) -> tuple[_Node, str]:
        grammar = self.grammar
        if node.id not in grammar.names:
            close = close_matches(node.id, grammar.names)
            hint = f" (did you mean {close}?)" if close else ""
            see = "; see 'explore-sim policies'" if grammar is POLICY_GRAMMAR else ""
            raise self.fail(node, f"unknown name {clip(node.id)!r}{hint}", see)
        if grammar.at_turns:
            raise self.fail(node, f"{node.id!r} needs a turn, as in {node.id}@4")
        return ("name", node.id), "bool" if node.id in grammar.bool_names else "number"

    def at_turn(self, node: ast.BinOp, depth: int) -> tuple[_Node, str]:
        # name@turn: a metric at the end of a turn (objectives). Python reads '@' like '*'
        # (and after a sign), so "0.1*counters@6" parses as "(0.1*counters)@6": the '@' is
        # moved onto the name it follows, "0.1*(counters@6)".
        grammar = self.grammar
        turn = node.right
        left = node.left
        if isinstance(left, ast.BinOp) and isinstance(left.op, _SAME_AS_AT):
            moved = ast.BinOp(left.right, ast.MatMult(), turn)
            return self.check(ast.copy_location(
                ast.BinOp(left.left, left.op, ast.copy_location(moved, left.right)), node),
                depth + 1)
        if isinstance(left, ast.UnaryOp):
            moved = ast.BinOp(left.operand, ast.MatMult(), turn)
            return self.check(ast.copy_location(
                ast.UnaryOp(left.op, ast.copy_location(moved, left.operand)), node), depth + 1)
        if not isinstance(left, ast.Name):
            raise self.fail(node, f"'@' needs a name on its left, got "
                                  f"{clip(ast.unparse(left))!r}")
        if left.id not in grammar.names:
            close = close_matches(left.id, grammar.names)
            hint = f" (did you mean {close}?)" if close else ""
            raise self.fail(left, f"unknown name {clip(left.id)!r}{hint}")
        if (not isinstance(turn, ast.Constant) or isinstance(turn.value, bool)
                or not isinstance(turn.value, int) or not 1 <= turn.value <= grammar.max_turn):
            raise self.fail(turn, f"'@' needs a turn from 1 to {grammar.max_turn} on its right, "
                                  f"got {clip(ast.unparse(turn))!r}")
        kind = "bool" if left.id in grammar.bool_names else "number"
        return ("at", left.id, turn.value), kind

    def constant(self, node: ast.Constant, depth: int) -> tuple[_Node, str]:
        value = node.value
        if isinstance(value, bool):
            return ("const", value), "bool"
        if isinstance(value, (int, float)) and not isinstance(value, complex):
            if not abs(value) <= _MAX_CONSTANT:  # also false for inf and nan
                raise self.fail(node, f"number {clip(repr(value))} is out of range (at most "
                                      f"{_MAX_CONSTANT})")
            return ("const", value), "number"
        raise self.fail(node, f"{type(value).__name__} values are not allowed")

    def bool_op(self, node: ast.BoolOp, depth: int) -> tuple[_Node, str]:
        parts = [self.check(v, depth + 1) for v in node.values]
        if any(kind != "bool" for _, kind in parts):
            word = "and" if isinstance(node.op, ast.And) else "or"
            raise self.fail(node, f"'{word}' needs conditions on both sides")
        op = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
        return ("bool", op, [compiled for compiled, _ in parts]), "bool"

    def unary_op(self, node: ast.UnaryOp, depth: int) -> tuple[_Node, str]:
        operand, kind = self.check(node.operand, depth + 1)
        if isinstance(node.op, ast.Not):
            if kind != "bool":
                raise self.fail(node, "'not' needs a condition")
            return ("not", operand), "bool"
        if isinstance(node.op, (ast.USub, ast.UAdd)):
            if kind != "number":
                raise self.fail(node, "a sign needs a number")
            return ("neg", operand) if isinstance(node.op, ast.USub) else operand, "number"
        raise self.fail(node, f"operator {_operator_text(node.op)!r} is not allowed")

    def bin_op(self, node: ast.BinOp, depth: int) -> tuple[_Node, str]:
        op = _ARITHMETIC.get(type(node.op))
        if op is None:
            raise self.fail(node, f"operator {_operator_text(node.op)!r} is not allowed")
        left, left_kind = self.check(node.left, depth + 1)
        right, right_kind = self.check(node.right, depth + 1)
        if left_kind != "number" or right_kind != "number":
            raise self.fail(node, "arithmetic needs numbers on both sides")
        divisor = right[1] if right[0] == "neg" else right  # -0 is 0
        if (isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)) and divisor[0] == "const"
                and divisor[1] == 0):
            raise self.fail(node.right, "division by zero")  # never what was meant
        return ("arith", op, left, right), "number"

    def compare(self, node: ast.Compare, depth: int) -> tuple[_Node, str]:
        for op_node in node.ops:
            if type(op_node) not in _COMPARE:
                raise self.fail(node, f"comparison {_OPERATOR_TEXT.get(type(op_node), '?')!r} "
                                      "is not allowed")
        operands = [self.check(node.left, depth + 1)]
        operands += [self.check(c, depth + 1) for c in node.comparators]
        compiled = []
        for op_node, (left, left_kind), (right, right_kind) in zip(
            node.ops, operands, operands[1:]
        ):
            op = _COMPARE[type(op_node)]
            if left_kind != right_kind:
                raise self.fail(node, "a comparison needs two numbers or two conditions")
            compiled.append(("compare", op, left, right))
        if len(compiled) == 1:
            return compiled[0], "bool"
        return ("bool", np.logical_and, compiled), "bool"


def _operator_text(op: ast.AST) -> str:
    return _OPERATOR_TEXT.get(type(op), type(op).__name__)


#: Which check reads which syntax node.
_CHECKS: tuple[tuple[type, Callable[..., tuple[_Node, str]]], ...] = (
    (ast.Name, _Checker.name),
    (ast.Constant, _Checker.constant),
    (ast.BoolOp, _Checker.bool_op),
    (ast.UnaryOp, _Checker.unary_op),
    (ast.BinOp, _Checker.bin_op),
    (ast.Compare, _Checker.compare),
)


def _evaluate(node: _Node, obs: Any) -> Any:  # obs: see evaluate_expression's values
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





#: Public names of the compiled tree's helpers (:mod:`explore_sim.engine.policies` offers
#: them under the names it always had).
compile_condition = _compile
evaluate_tree = _evaluate
check_node = _check
#: The limits and operator tables of the whitelist, by public name.
MAX_EXPRESSION_LENGTH, MAX_DEPTH, MAX_CONSTANT = _MAX_EXPRESSION_LENGTH, _MAX_DEPTH, _MAX_CONSTANT
COMPARE_OPS, ARITHMETIC_OPS, OPERATOR_TEXT = _COMPARE, _ARITHMETIC, _OPERATOR_TEXT
SAME_AS_AT = _SAME_AS_AT
