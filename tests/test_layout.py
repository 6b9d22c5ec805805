"""The package's wings import only downward, no module imports itself in a cycle, no module
takes another's private names, and every module and function stays small.

Layers, lowest first: the shared basics (``errors``, ``progress``, ``_version``), ``cards``,
``engine``, ``analysis``, and the faces (``cli``, ``plotting``, ``policy_conformance``,
``web``, the package's ``__init__`` and ``__main__``). A module may import its own layer or a
lower one. Imports under ``if TYPE_CHECKING:`` count like any other: a cycle through an
annotation is still a cycle.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

import explore_sim

PACKAGE = Path(explore_sim.__file__).parent
BASICS = {"errors", "progress", "_version"}
WINGS = {"cards": 1, "engine": 2, "analysis": 3}
FACE = 4


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = ["explore_sim", *path.relative_to(root).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer(module: str) -> int:
    parts = module.split(".")
    if len(parts) == 1:  # explore_sim itself
        return FACE
    if parts[1] in BASICS:
        return 0
    return WINGS.get(parts[1], FACE)


def is_package(path: Path) -> bool:
    return path.name == "__init__.py"


@functools.cache
def parsed(path: Path) -> ast.Module:
    """A module's syntax tree (each file is parsed once per test process)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def statements(tree: ast.AST) -> Iterator[ast.AST]:
    """Every statement of ``tree``, nested ones included. Imports, ``if`` blocks and function
    definitions are statements, so this finds them all without visiting the expressions (most
    of a tree: :func:`ast.walk` over every node is what made these tests slow)."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, ast.expr):
            continue
        if isinstance(child, ast.stmt):
            yield child
        yield from statements(child)


def _type_checking_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in statements(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def imports_of(path: Path, known: set[str], root: Path = PACKAGE) -> list[tuple[str, int, bool]]:
    """``(imported explore_sim module, line, runtime)`` for every import in a file."""
    tree = parsed(path)
    here = module_name(path, root)
    package = here if is_package(path) else here.rpartition(".")[0]
    type_only = _type_checking_lines(tree)
    found = []
    for node in statements(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            # "from . import abilities" names a module; "from .x import Name" names a member.
            targets = [f"{prefix}.{alias.name}" if f"{prefix}.{alias.name}" in known else prefix
                       for alias in node.names]
        for target in targets:
            if target == "explore_sim" or target.startswith("explore_sim."):
                while target not in known:
                    target = target.rpartition(".")[0]
                found.append((target, node.lineno, node.lineno not in type_only))
    return found


@functools.cache
def import_graph(root: Path = PACKAGE) -> dict[str, list[tuple[str, int, bool]]]:
    files = {module_name(path, root): path for path in root.rglob("*.py")}
    return {name: imports_of(path, set(files), root) for name, path in files.items()}


def test_the_wings_exist():
    for wing in WINGS:
        assert (PACKAGE / wing / "__init__.py").is_file(), wing


def test_imports_point_down():
    upward = [
        f"{module} line {line} imports {target}"
        for module, targets in import_graph().items()
        for target, line, _ in targets
        if layer(target) > layer(module)
    ]
    assert not upward, "imports pointing up a layer:\n" + "\n".join(upward)


def test_cards_and_engine_do_not_reach_sideways():
    """``cards`` uses nothing of ``engine`` or ``analysis``; ``engine`` nothing of ``analysis``
    (the layer order says it, this names the rule)."""
    graph = import_graph()
    for module, targets in graph.items():
        if layer(module) == WINGS["cards"]:
            assert all(layer(t) <= 1 for t, _, _ in targets), module
        if layer(module) == WINGS["engine"]:
            assert all(layer(t) <= 2 for t, _, _ in targets), module


def import_cycles(root: Path = PACKAGE) -> list[list[str]]:
    """Every cycle of the import graph, ``TYPE_CHECKING`` imports included."""
    graph = {module: sorted({t for t, _, _ in targets if t != module})
             for module, targets in import_graph(root).items()}
    # A package imports its own submodules through its __init__; a submodule importing its
    # package is the only way to close a loop through it, and that is a cycle too.
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for target in graph.get(node, []):
            if state.get(target) == 1:
                cycles.append(stack[stack.index(target):] + [target])
            elif state.get(target) is None:
                visit(target)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return cycles


def test_no_import_cycles():
    cycles = import_cycles()
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def fake_package(tmp_path: Path, modules: dict[str, str]) -> Path:
    """A package called explore_sim under ``tmp_path`` with these modules' text."""
    root = tmp_path / "explore_sim"
    root.mkdir()
    (root / "__init__.py").write_text("")
    for name, text in modules.items():
        (root / f"{name}.py").write_text(text)
    return root


def test_a_cycle_through_an_annotation_import_is_a_cycle(tmp_path):
    root = fake_package(tmp_path, {
        "loop": "from .helper import helps\n",
        "helper": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                  "    from .loop import Loop\nhelps = 1\n",
    })
    assert import_cycles(root) == [["explore_sim.helper", "explore_sim.loop",
                                    "explore_sim.helper"]]


@pytest.mark.parametrize("source, target, expected", [
    ("explore_sim.cards.decklist", "explore_sim.engine.goldfish", True),
    ("explore_sim.engine.goldfish", "explore_sim.analysis.simulate", True),
    ("explore_sim.analysis.simulate", "explore_sim.cli", True),
    ("explore_sim.errors", "explore_sim.cards", True),
    ("explore_sim.analysis.simulate", "explore_sim.engine.goldfish", False),
    ("explore_sim.cli", "explore_sim.analysis.simulate", False),
])
def test_the_layer_rule_itself(source, target, expected):
    assert (layer(target) > layer(source)) is expected


# --- private names ----------------------------------------------------------------------------

def private_imports(root: Path = PACKAGE) -> list[str]:
    """``module line N imports _name from other`` for every name starting with "_" (dunder
    names aside) that a module imports from another explore_sim module."""
    files = {module_name(path, root): path for path in root.rglob("*.py")}
    found = []
    for module, path in sorted(files.items()):
        tree = parsed(path)
        package = module if is_package(path) else module.rpartition(".")[0]
        for node in statements(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source != "explore_sim" and not source.startswith("explore_sim."):
                continue
            for alias in node.names:
                name = alias.name
                private = name.startswith("_") and not (name.startswith("__")
                                                        and name.endswith("__"))
                if private and source != module:
                    found.append(f"{module} line {node.lineno} imports {name} from {source}")
    return found


def test_no_module_imports_another_s_private_names():
    found = private_imports()
    assert not found, "private names imported from other modules:\n" + "\n".join(found)


def test_the_private_name_rule_itself(tmp_path):
    """A private import is found, a dunder or an aliased public name is not."""
    root = fake_package(tmp_path, {
        "a": "_hidden = shown = 1\n",
        "b": "from .a import _hidden\nfrom .a import __doc__\nfrom .a import shown as _s\n",
    })
    assert private_imports(root) == ["explore_sim.b line 1 imports _hidden from explore_sim.a"]


# --- sizes --------------------------------------------------------------------------------------

#: The longest module, in lines.
MAX_MODULE_LINES = 800
#: The longest function or method, in lines (from ``def`` to its last line, docstring
#: included).
MAX_FUNCTION_LINES = 100
#: Functions still longer than that, each to be split (the list only shrinks: a function on it
#: that is short enough fails the test too).
LONG_FUNCTIONS: set[str] = set()


def long_functions() -> dict[str, int]:
    """``{module.function: lines}`` of every function over :data:`MAX_FUNCTION_LINES`."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in statements(parsed(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    found[f"{module_name(path)}.{node.name}"] = lines
    return found


def test_no_module_is_longer_than_800_lines():
    long = {module_name(path): n for path in PACKAGE.rglob("*.py")
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_no_function_is_longer_than_100_lines():
    found = long_functions()
    new = {name: n for name, n in found.items() if name not in LONG_FUNCTIONS}
    assert not new, f"functions over {MAX_FUNCTION_LINES} lines: {new}"
    assert set(found) == LONG_FUNCTIONS, \
        f"short enough now, take them off LONG_FUNCTIONS: {sorted(LONG_FUNCTIONS - set(found))}"
