"""Keep-or-mill policies as a small bytecode for the compiled game.

The presets (``keep``, ``mill``, ``xmage``, ``forge`` and its variants) and every checked
policy expression (:class:`~explore_sim.engine.policies.ExpressionPolicy`, tuned ones
included) compile to a postfix program over the observation's fields: ``LOAD field``,
``CONST index``, ``NOT``, ``NEG``, ``AND``, ``OR``, the six comparisons and the six
arithmetic operators, on float64 values (conditions are 0 and 1), exactly as the vectorised
evaluation computes them. A chain of ``and`` (``or``) parts stops at the first false (true)
one: ``JUMP_UNLESS target`` (``JUMP_IF target``) leaves 0 (1) as the chain's value and jumps
past it, else drops the part; the last part's truth (``TRUTH``) is the chain's value. The
parts are observations and arithmetic, which change nothing, so the value is the one the
whole chain has. A field compared with a constant is one operation, ``COMPARE_FIELD field
index comparison`` (``LOAD field``, ``CONST index`` and the comparison in one step).
:func:`compile_policy` returns None for a Python callable, which only the vectorised engine
can call; :func:`policy_problem` says why the kernel cannot play a policy (a callable, or an
expression reading a field or using an operator the kernel does not compute: see the
``kernel`` flags of :data:`~explore_sim.engine.observations.OBSERVATIONS` and
:data:`~explore_sim.engine.policy_expressions.OPERATIONS`).
"""

from __future__ import annotations

import numpy as np

from ..observations import OBSERVATIONS
from ..policies import (
    ExpressionPolicy,
    ForgePolicy,
    KeepPolicy,
    MillPolicy,
    NamedPolicy,
    Policy,
)
from ..policy_expressions import operation_of
from .layout import Field, Op

__all__ = ["compile_policy", "policy_problem", "policy_tree"]

_KERNEL_FIELDS = frozenset(field.name for field in OBSERVATIONS if field.kernel)


def policy_tree(policy: Policy) -> tuple | None:
    """The checked expression tree of a preset or expression policy (the one source both
    engines play), None for a Python callable."""
    while isinstance(policy, NamedPolicy):
        policy = policy.policy
    if isinstance(policy, (KeepPolicy, MillPolicy, ForgePolicy, ExpressionPolicy)):
        return policy.tree
    return None


def policy_problem(policy: Policy) -> str | None:
    """Why the compiled game cannot play ``policy`` (None when it can): a Python callable,
    or an expression reading an observation field or using an operator the kernel does not
    compute."""
    tree = policy_tree(policy)
    if tree is None:
        return "a Python callable"
    names: set[str] = set()
    operations: set[str] = set()
    _walk(tree, names, operations)
    fields = sorted(names - _KERNEL_FIELDS)
    if fields:
        return f"reads {', '.join(fields)}, which the compiled game does not compute"
    if operations:
        return f"uses {', '.join(sorted(operations))}, which the compiled game does not compute"
    return None


def _walk(node: tuple, names: set[str], operations: set[str]) -> None:
    """Gather the names and the operators the kernel lacks (their text) of a tree."""
    kind = node[0]
    if kind == "name":
        names.add(node[1])
    elif kind in ("not", "neg"):
        operation = operation_of(np.logical_not if kind == "not" else np.negative)
        if not operation.kernel:
            operations.add(repr(operation.text))
        _walk(node[1], names, operations)
    elif kind in ("bool", "compare", "arith"):
        if not operation_of(node[1]).kernel:
            operations.add(repr(operation_of(node[1]).text))
        for part in (node[2] if kind == "bool" else node[2:]):
            _walk(part, names, operations)


def compile_policy(policy: Policy) -> tuple[np.ndarray, np.ndarray] | None:
    """The bytecode of ``policy``: (operations, int64; constants, float64), or None when the
    kernel cannot play it (:func:`policy_problem`)."""
    if policy_problem(policy) is not None:
        return None
    tree = policy_tree(policy)
    assert tree is not None  # policy_problem says so otherwise
    return _program([tree])


def _program(trees: list[tuple]) -> tuple[np.ndarray, np.ndarray]:
    code: list[int] = []
    consts: list[float] = []

    def emit(node: tuple) -> None:
        kind = node[0]
        if kind == "name":
            code.extend((Op.LOAD, Field[node[1].upper()]))
        elif kind == "const":
            consts.append(float(node[1]))
            code.extend((Op.CONST, len(consts) - 1))
        elif kind == "not":
            emit(node[1])
            code.append(Op.NOT)
        elif kind == "neg":
            emit(node[1])
            code.append(Op.NEG)
        elif kind == "bool":
            parts = node[2]
            emit(parts[0])
            if len(parts) > 1:  # a chain that stops at its first deciding part
                jump = Op.JUMP_UNLESS if node[1] is np.logical_and else Op.JUMP_IF
                ends = []
                for part in parts[1:]:
                    code.extend((jump, -1))
                    ends.append(len(code) - 1)
                    emit(part)
                code.append(Op.TRUTH)
                for at in ends:
                    code[at] = len(code)
        elif kind == "compare" and node[2][0] == "name" and node[3][0] == "const":
            consts.append(float(node[3][1]))
            code.extend((Op.COMPARE_FIELD, Field[node[2][1].upper()], len(consts) - 1,
                         Op[operation_of(node[1]).name]))
        elif kind == "compare":
            emit(node[2])
            emit(node[3])
            code.append(Op[operation_of(node[1]).name])
        elif kind == "arith":
            emit(node[2])
            emit(node[3])
            code.append(Op[operation_of(node[1]).name])
        else:  # "at": objectives only, never in a policy
            raise ValueError(f"cannot compile {kind!r}")

    for tree in trees:
        emit(tree)
    return np.array(code, dtype=np.int64), np.array(consts or [0.0], dtype=np.float64)
