"""The API reference documents every public name: autosummary, run with the documentation's
own configuration and templates (docs/conf.py, docs/_templates), writes a page for every
public module, and every name of each public module's ``__all__`` appears on its module's
page (documented there, or listed there and documented where it is defined).

Only the pages are generated here (no HTML); CI builds the whole site with warnings as
errors."""

from __future__ import annotations

import importlib
import io
import re
import shutil

import pytest
from conftest import ROOT

import explore_sim

sphinx_application = pytest.importorskip("sphinx.application")

PACKAGE = ROOT / "explore_sim"


def public_modules() -> list[str]:
    """Every module whose path has no ``_`` part and that declares ``__all__``."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if any(part.startswith("_") for part in parts):
            continue
        if re.search(r"^__all__ = ", path.read_text(encoding="utf-8"), flags=re.MULTILINE):
            found.append(".".join(parts))
    return found


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """The API pages autosummary writes for a copy of docs/ (sources and templates only)."""
    source = tmp_path_factory.mktemp("docs")
    shutil.copytree(ROOT / "docs", source, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("_build", "generated", "figures"))
    warnings = io.StringIO()
    sphinx_application.Sphinx(str(source), str(source), str(source / "_build"),
                              str(source / "_build" / "doctrees"), "dummy", status=None,
                              warning=warnings, freshenv=True)
    pages = {page.stem: page.read_text(encoding="utf-8")
             for page in (source / "api" / "generated").glob("*.rst")}
    return pages, warnings.getvalue()


def test_there_are_public_modules():
    modules = public_modules()
    assert "explore_sim" in modules and "explore_sim.engine.metrics" in modules
    assert len(modules) > 80


@pytest.mark.slow
def test_every_public_module_has_a_page(generated):
    pages, warnings = generated
    missing = [module for module in public_modules()
               if module not in pages and f"{module}-module" not in pages]
    assert not missing, f"no API page for: {missing}"
    assert "autosummary" not in warnings, warnings


@pytest.mark.slow
def test_every_name_of_every_all_is_on_its_modules_page(generated):
    pages, _ = generated
    missing = []
    for module in public_modules():
        page = pages.get(f"{module}-module") or pages.get(module, "")
        for name in importlib.import_module(module).__all__:
            value = getattr(importlib.import_module(module), name)
            home = getattr(value, "__module__", None)
            documented = re.search(rf"^\.\. (auto\w+|py:data):: {re.escape(name)}$", page,
                                   re.MULTILINE)
            listed = re.search(rf"^   (\S+\.)?{re.escape(getattr(value, '__qualname__', name))}$"
                               if isinstance(home, str) and home != module else
                               rf"^   {re.escape(name)}$", page, re.MULTILINE)
            if not (documented or listed):
                missing.append(f"{module}.{name}")
    assert not missing, f"public names missing from the API pages: {missing}"


@pytest.mark.slow
def test_a_reexported_name_is_documented_once_where_it_is_defined(generated):
    pages, _ = generated
    top = pages["explore_sim"]
    assert "   analysis.simulate.simulate" in top  # listed, linked to its definition
    assert ".. autofunction:: simulate" not in top
    assert ".. autofunction:: simulate" in pages["explore_sim.analysis.simulate"]
    assert "\n   plotting\n" in top and "\n   analysis\n" in top  # its modules
    assert explore_sim.simulate.__module__ == "explore_sim.analysis.simulate"
