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
:func:`compile_policy` returns None for a Python callable, which only the
vectorised engine can call.
"""

from __future__ import annotations

import numpy as np

from ..policies import (
    OBSERVATION_NAMES,
    ExpressionPolicy,
    ForgePolicy,
    KeepPolicy,
    MillPolicy,
    NamedPolicy,
    Policy,
)

__all__ = ["FIELDS", "OPS", "compile_policy"]

#: Observation fields by number (the compiled game's ``observe``).
FIELDS = tuple(OBSERVATION_NAMES)
#: Operations by number.
OPS = ("LOAD", "CONST", "NOT", "NEG", "AND", "OR", "EQ", "NE", "LT", "LE", "GT", "GE", "ADD",
       "SUB", "MUL", "DIV", "FLOORDIV", "MOD", "JUMP_UNLESS", "JUMP_IF", "TRUTH",
       "COMPARE_FIELD")
_COMPARE = {np.equal: "EQ", np.not_equal: "NE", np.less: "LT", np.less_equal: "LE",
            np.greater: "GT", np.greater_equal: "GE"}
_ARITHMETIC = {np.add: "ADD", np.subtract: "SUB", np.multiply: "MUL", np.true_divide: "DIV",
               np.floor_divide: "FLOORDIV", np.mod: "MOD"}


def compile_policy(policy: Policy) -> tuple[np.ndarray, np.ndarray] | None:
    """The bytecode of ``policy``: (operations, int64; constants, float64), or None when it
    is a Python callable (not a preset or an expression)."""
    while isinstance(policy, NamedPolicy):
        policy = policy.policy
    if isinstance(policy, (KeepPolicy, MillPolicy)):
        return _program([("const", isinstance(policy, MillPolicy))])
    if isinstance(policy, ForgePolicy):  # dig for lands, or it will not be cast soon
        tree = ("bool", np.logical_or, [
            ("bool", np.logical_and, [
                ("compare", np.equal, ("name", "lands_in_hand"), ("const", 0)),
                ("compare", np.less_equal, ("name", "lands_in_play"),
                 ("const", policy.need_lands))]),
            ("compare", np.greater_equal, ("name", "mana_value"),
             ("arith", np.add, ("name", "predicted_mana"), ("const", policy.max_mv_diff)))])
        return _program([tree])
    if isinstance(policy, ExpressionPolicy):
        return _program([policy.tree])
    return None


def _program(trees: list[tuple]) -> tuple[np.ndarray, np.ndarray]:
    code: list[int] = []
    consts: list[float] = []

    def emit(node: tuple) -> None:
        kind = node[0]
        if kind == "name":
            code.extend((OPS.index("LOAD"), FIELDS.index(node[1])))
        elif kind == "const":
            consts.append(float(node[1]))
            code.extend((OPS.index("CONST"), len(consts) - 1))
        elif kind == "not":
            emit(node[1])
            code.append(OPS.index("NOT"))
        elif kind == "neg":
            emit(node[1])
            code.append(OPS.index("NEG"))
        elif kind == "bool":
            parts = node[2]
            emit(parts[0])
            if len(parts) > 1:  # a chain that stops at its first deciding part
                jump = OPS.index("JUMP_UNLESS" if node[1] is np.logical_and else "JUMP_IF")
                ends = []
                for part in parts[1:]:
                    code.extend((jump, -1))
                    ends.append(len(code) - 1)
                    emit(part)
                code.append(OPS.index("TRUTH"))
                for at in ends:
                    code[at] = len(code)
        elif kind == "compare" and node[2][0] == "name" and node[3][0] == "const":
            consts.append(float(node[3][1]))
            code.extend((OPS.index("COMPARE_FIELD"), FIELDS.index(node[2][1]), len(consts) - 1,
                         OPS.index(_COMPARE[node[1]])))
        elif kind == "compare":
            emit(node[2])
            emit(node[3])
            code.append(OPS.index(_COMPARE[node[1]]))
        elif kind == "arith":
            emit(node[2])
            emit(node[3])
            code.append(OPS.index(_ARITHMETIC[node[1]]))
        else:  # "at": objectives only, never in a policy
            raise ValueError(f"cannot compile {kind!r}")

    for tree in trees:
        emit(tree)
    return np.array(code, dtype=np.int64), np.array(consts or [0.0], dtype=np.float64)
