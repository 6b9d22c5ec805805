"""Every public function and method documents its parameters and what it returns (numpydoc);
the package ships ``py.typed``."""

from __future__ import annotations

import inspect
import re

import pytest
from conftest import ROOT

import explore_sim
from explore_sim import plotting, policy_conformance
from explore_sim.analysis import (
    advise,
    compare,
    dask_connect,
    executors,
    explore,
    game_setup,
    locking,
    metric_checks,
    objectives,
    parent_watch,
    report,
    results,
    results_file_checks,
    results_files,
    runner,
    simulate,
    stats,
    sweep,
    tune,
    value,
)
from explore_sim.cards import decklist
from explore_sim.cli import metrics as metrics_command
from explore_sim.engine import metrics, options, policies


def web_modules():
    """The web page's modules, when its extra is installed."""
    try:
        from explore_sim.web import analyses, app, decks, forms, jobs, server
    except ImportError:
        return []
    return [analyses, app, decks, forms, jobs, server]


def public_callables():
    modules = [explore_sim, plotting, policy_conformance, explore, simulate, compare,
               game_setup, metric_checks, results, options, sweep, report, stats, runner,
               executors, results_files, results_file_checks, locking, parent_watch, dask_connect,
               decklist, policies, value, advise, tune, objectives, metrics, metrics_command,
               *web_modules()]
    seen = {}
    for module in modules:
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                seen[f"{obj.__module__}.{obj.__qualname__}"] = obj
            elif inspect.isclass(obj) and obj.__module__.startswith("explore_sim"):
                for attr, member in vars(obj).items():
                    if isinstance(member, (classmethod, staticmethod)):
                        member = member.__func__
                    if attr.startswith("_") or not inspect.isfunction(member):
                        continue
                    seen[f"{obj.__module__}.{obj.__qualname__}.{attr}"] = member
    return seen


PUBLIC = public_callables()


def section(doc: str, title: str) -> str | None:
    match = re.search(rf"^\s*{title}\n\s*-{{{len(title)}}}\n(.*?)(?=^\s*\w[\w ]*\n\s*-{{3,}}\n|\Z)",
                      doc, flags=re.M | re.S)
    return match.group(1) if match else None


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_public_callables_have_numpydoc_sections(name):
    function = PUBLIC[name]
    doc = inspect.getdoc(function) or ""
    assert doc, f"{name} has no docstring"
    signature = inspect.signature(function)
    parameters = [p for p in signature.parameters if p not in ("self", "cls")]
    if parameters:
        text = section(doc, "Parameters")
        assert text is not None, f"{name}: no Parameters section"
        documented = set(re.findall(r"^\**(\w+)", text, flags=re.M))
        for line in re.findall(r"^([\w*][\w*, ]*) :", text, flags=re.M) + re.findall(
                r"^([\w*][\w*, ]*)$", text, flags=re.M):
            documented |= {part.strip(" *") for part in line.split(",")}
        missing = [p for p in parameters if p not in documented]
        assert not missing, f"{name}: parameters not documented: {missing}"
    returns = signature.return_annotation
    if returns not in (None, "None", inspect.Signature.empty):
        found = section(doc, "Returns") or section(doc, "Yields")
        assert found is not None, f"{name}: no Returns section"


def test_the_package_is_typed():
    assert (ROOT / "explore_sim" / "py.typed").is_file()
    import tomllib

    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "py.typed" in setup["package-data"]["explore_sim"]
