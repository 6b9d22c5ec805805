"""The package's wings import only downward, and no module imports itself in a cycle.

Layers, lowest first: the shared basics (``errors``, ``progress``, ``_version``), ``cards``,
``engine``, ``analysis``, and the faces (``cli``, ``plotting``, ``testing``, ``web``, the
package's ``__init__`` and ``__main__``). A module may import its own layer or a lower one.
Imports under ``if TYPE_CHECKING:`` are annotations only: they are held to the direction
rule but not counted as cycles.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import explore_sim

PACKAGE = Path(explore_sim.__file__).parent
BASICS = {"errors", "progress", "_version"}
WINGS = {"cards": 1, "engine": 2, "analysis": 3}
FACE = 4


def module_name(path: Path) -> str:
    parts = ["explore_sim", *path.relative_to(PACKAGE).with_suffix("").parts]
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


def _type_checking_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def imports_of(path: Path, known: set[str]) -> list[tuple[str, int, bool]]:
    """``(imported explore_sim module, line, runtime)`` for every import in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = module_name(path)
    package = here if is_package(path) else here.rpartition(".")[0]
    type_only = _type_checking_lines(tree)
    found = []
    for node in ast.walk(tree):
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


def import_graph() -> dict[str, list[tuple[str, int, bool]]]:
    files = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    return {name: imports_of(path, set(files)) for name, path in files.items()}


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


def test_no_import_cycles():
    graph = {module: sorted({t for t, _, runtime in targets if runtime and t != module})
             for module, targets in import_graph().items()}
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
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


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
