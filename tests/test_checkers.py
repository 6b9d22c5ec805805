"""The linter's and the type checker's settings (``pyproject.toml``) say what the package holds
itself to: a ``# type: ignore`` names its error code and its reason, only the compiled
kernel's errors are left unchecked (for now), and the dev extra installs both checkers
``.ci/run`` runs."""

from __future__ import annotations

import re
import tomllib

from conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
#: ``# type: ignore[code, ...]``, then two spaces and a comment giving the reason.
EXPLAINED_IGNORE = re.compile(r"# type: ignore\[[a-z-]+(, [a-z-]+)*\]  # \S")


def ignores_without_reason(text: str) -> list[int]:
    """The lines of ``text`` with a ``# type: ignore`` that lacks its code or its reason."""
    return [number for number, line in enumerate(text.splitlines(), start=1)
            if "# type: ignore" in line and not EXPLAINED_IGNORE.search(line)]


def test_every_type_ignore_names_its_code_and_its_reason():
    found = [f"{path.relative_to(ROOT)}:{number}"
             for path in sorted((ROOT / "explore_sim").rglob("*.py"))
             for number in ignores_without_reason(path.read_text(encoding="utf-8"))]
    assert not found, f"a type: ignore without its code and reason: {found}"


def test_the_ignore_rule_itself():
    assert ignores_without_reason("x = f()  # type: ignore[arg-type]  # pandas takes it\n") == []
    assert ignores_without_reason("x = f()  # type: ignore[arg-type]\n") == [1]
    assert ignores_without_reason("x = f()  # type: ignore  # no code\n") == [1]


def test_only_the_kernel_is_left_unchecked():
    unchecked = [module for override in PYPROJECT["tool"]["mypy"]["overrides"]
                 if override.get("ignore_errors") for module in override["module"]]
    assert all(module.startswith("explore_sim.engine.kernel") for module in unchecked), unchecked
    assert PYPROJECT["tool"]["mypy"]["disallow_untyped_defs"] is True


def test_the_dev_extra_installs_the_checkers():
    dev = " ".join(PYPROJECT["project"]["optional-dependencies"]["dev"])
    for checker in ("mypy", "ruff", "pandas-stubs"):
        assert f'{checker}==' in dev, checker
