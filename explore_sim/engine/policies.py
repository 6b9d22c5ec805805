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

The observation lives in :mod:`.observations` and the expression language in
:mod:`.policy_expressions`; this module holds the presets and turns any policy given
(a preset, an expression, a callable, a named one) into a callable, and re-exports the names
of both.

Results label a policy by its ``name`` attribute (presets and expressions have one), else by
the function's ``__name__``. Name a lambda or any callable with ``as_policy(fn, name="greedy")``,
with a dict ``{"greedy": fn}`` wherever policies are passed, or with ``fn.name = "greedy"``;
an unnamed lambda is labelled ``<lambda>`` with a :class:`~explore_sim.errors.PolicyWarning`.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Protocol

import numpy as np

from ..errors import PolicyError, PolicyWarning, clip
from .observations import OBSERVATION_NAMES, Observation
from .policy_expressions import (
    POLICY_GRAMMAR,
    ExpressionPolicy,
    Grammar,
    compile_expression,
    evaluate_expression,
)

# isort: split
# The names this module always offered, under them (the code now lives beside it).
from ..errors import close_matches  # noqa: F401
from .observations import (  # noqa: F401
    BOOL_NAMES as _BOOL_NAMES,
    CARD_FIELDS as _CARD_FIELDS,
    close_names as _close_names,
    read_only as _read_only,
)
from .policy_expressions import (  # noqa: F401
    ARITHMETIC_OPS as _ARITHMETIC,
    COMPARE_OPS as _COMPARE,
    MAX_CONSTANT as _MAX_CONSTANT,
    MAX_DEPTH as _MAX_DEPTH,
    MAX_EXPRESSION_LENGTH as _MAX_EXPRESSION_LENGTH,
    OPERATOR_TEXT as _OPERATOR_TEXT,
    SAME_AS_AT as _SAME_AS_AT,
    Node as _Node,
    check_node as _check,
    compile_condition as _compile,
    evaluate_tree as _evaluate,
)

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

class Policy(Protocol):
    """The policy protocol: ``policy(obs, rng)`` returns a ``(trials,)`` bool mill mask."""

    def __call__(self, obs: Observation, rng: np.random.Generator) -> np.ndarray: ...


@dataclasses.dataclass(frozen=True)
class KeepPolicy:
    """Always leave a revealed nonland card on top."""

    name: str = "keep"

    @property
    def tree(self) -> tuple:
        """The policy as a checked expression tree (the compiled game's bytecode is made
        from it): the constant False."""
        return ("const", False)

    def __call__(self, obs: Observation, rng: np.random.Generator) -> np.ndarray:
        return np.zeros(obs.trials, dtype=bool)


@dataclasses.dataclass(frozen=True)
class MillPolicy:
    """Always put a revealed nonland card into the graveyard (also the ``xmage`` preset)."""

    name: str = "mill"

    @property
    def tree(self) -> tuple:
        """The policy as a checked expression tree: the constant True."""
        return ("const", True)

    def __call__(self, obs: Observation, rng: np.random.Generator) -> np.ndarray:
        return np.ones(obs.trials, dtype=bool)


@dataclasses.dataclass(frozen=True)
class ForgePolicy:
    """Forge's explore AI (docs/rules.md, policy presets).

    Mill when there is no land card in hand and at most ``need_lands`` lands on the
    battlefield (dig for lands), or when the card's mana value is at least the predicted
    mana (``predicted_mana``: the permanents you control with a mana ability, that is lands,
    mana creatures and mana rocks, tapped or not, plus the land cards in hand) plus
    ``max_mv_diff`` (it will not be cast soon); otherwise keep.
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

    @property
    def expression(self) -> str:
        """The rule as a policy expression, the one source of both engines' decisions."""
        return (f"lands_in_hand == 0 and lands_in_play <= {self.need_lands} "
                f"or mana_value >= predicted_mana + {self.max_mv_diff}")

    @property
    def tree(self) -> tuple:
        """:attr:`expression` checked (the tree both engines evaluate: the NumPy engine over
        arrays, the compiled game as bytecode)."""
        return _forge_tree(self.expression)

    def __call__(self, obs: Observation, rng: np.random.Generator) -> np.ndarray:
        value = evaluate_expression(self.tree, obs)
        return np.broadcast_to(np.asarray(value, dtype=bool), (obs.trials,)).copy()


@functools.lru_cache(maxsize=64)
def _forge_tree(expression: str) -> tuple:
    """The checked tree of a Forge rule's expression (made once per rule)."""
    return compile_expression(expression, POLICY_GRAMMAR)[0]


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
        try:
            return ExpressionPolicy(spec)
        except PolicyError:
            close = close_matches(key, PRESETS) if re.fullmatch(r"[\w-]+", key) else ""
            if not close:
                raise
            raise PolicyError(f"unknown policy {clip(spec.strip())!r} (did you mean {close}?); "
                              f"presets: {', '.join(PRESETS)}, or an expression (see "
                              "'explore-sim policies')") from None
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
                f"policy {clip(spec)!r}: expected need_lands=N and/or max_mv_diff=N, "
                f"got {clip(part)!r}"
            )
        if not re.fullmatch(r"-?\d{1,3}", value.strip()):
            raise PolicyError(f"policy {clip(spec)!r}: {clip(key)} must be a whole number, "
                              f"got {clip(value)!r}")
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
