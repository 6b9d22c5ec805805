"""Sphinx configuration of explore_sim's documentation.

Build it with warnings as errors (the docs extra installs what it needs)::

    pip install -e '.[docs]'
    python -m sphinx -W --keep-going -b html docs docs/_build/html
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLBACKEND", "Agg")

import explore_sim  # noqa: E402 - from this checkout: sys.path first
from explore_sim import __version__  # noqa: E402

#: The package documented: the one imported (from this checkout when it is not installed).
PACKAGE = Path(explore_sim.__file__).resolve().parent

project = "explore_sim"
author = "explore_sim's authors"
copyright = "explore_sim's authors"
version = release = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_templates", "figures/README.md"]
templates_path = ["_templates"]

myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

autosummary_generate = True
autosummary_ignore_module_all = False
autosummary_imported_members = False
autodoc_default_options = {"members": False}
autodoc_typehints = "none"
autodoc_inherit_docstrings = False
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()



def _public_modules() -> list[str]:
    """Every module of the package that declares ``__all__`` (none under a ``_`` name), and
    the packages that hold them: the modules the API reference documents."""
    import ast

    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if any(part.startswith("_") for part in parts):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(node, ast.Assign)
               and any(getattr(t, "id", None) == "__all__" for t in node.targets)
               for node in tree.body):
            for end in range(1, len(parts) + 1):
                found.add(".".join(parts[:end]))
    return sorted(found)


def _entry(module: str, name: str) -> tuple[str, str, str]:
    """``(name, kind, target)`` of one name of a module's ``__all__``: its kind (``class``,
    ``function``, ``data``, ``alias`` (a type alias) or ``module``) and where it is
    documented (``module.name`` for the module's own names and data, else where the function
    or class it re-exports is defined)."""
    import importlib
    import inspect
    import types

    value = getattr(importlib.import_module(module), name)
    if inspect.ismodule(value):
        return name, "module", value.__name__
    if isinstance(value, types.GenericAlias):
        return name, "alias", f"{module}.{name}"
    if inspect.isclass(value):
        kind = "class"
    elif inspect.isroutine(value) or hasattr(value, "py_func"):  # numba's dispatchers too
        kind = "function"
    else:
        return name, "data", f"{module}.{name}"
    home, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", name)
    if isinstance(home, str) and home.startswith("explore_sim") and home != module:
        return name, kind, f"{home}.{qualname}"
    return name, kind, f"{module}.{name}"


def _shadowed(module: str) -> bool:
    """A submodule hidden by a name of its package (``kernel.pack``, the module, behind
    ``kernel.pack``, its function): autosummary would find the name, not the module."""
    import importlib
    import inspect

    parent, _, child = module.rpartition(".")
    if not parent:
        return False
    missing = object()
    value = getattr(importlib.import_module(parent), child, missing)
    return value is not missing and not inspect.ismodule(value)


def api_context() -> dict[str, dict[str, list]]:
    """What the module template reads (plain data, so Sphinx can cache the configuration):
    ``children``, each public module's public submodules (``hidden``: those a name of the
    package hides, documented on pages of their own, :func:`write_hidden_modules`), and
    ``entries``, each module's ``__all__`` as :func:`_entry` describes it."""
    import importlib

    modules = _public_modules()
    children, hidden = {}, {}
    for module in modules:
        kids = [child for child in modules if child.rpartition(".")[0] == module]
        children[module] = [kid.rpartition(".")[2] for kid in kids if not _shadowed(kid)]
        hidden[module] = [kid for kid in kids if _shadowed(kid)]
    entries = {}
    for module in modules:
        names = getattr(importlib.import_module(module), "__all__", [])
        entries[module] = [list(_entry(module, name)) for name in names]
    return {"children": children, "hidden": hidden, "entries": entries}


#: The directive that documents each kind of name.
DIRECTIVES = {"class": "autoclass", "function": "autofunction", "data": "autodata",
              "alias": "py:data"}


def write_hidden_modules(app) -> None:
    """Write the page of every hidden submodule (``api/generated/NAME-module.rst``), as the
    module template writes the others: the module's docstring, then each name of its
    ``__all__``."""
    context = app.config.autosummary_context
    out = Path(app.srcdir) / "api" / "generated"
    out.mkdir(parents=True, exist_ok=True)
    for module in (kid for kids in context["hidden"].values() for kid in kids):
        lines = [module.replace("_", "\\_"), "=" * (len(module) + module.count("_")), "",
                 f".. automodule:: {module}", "   :no-members:", ""]
        for name, kind, target in context["entries"][module]:
            if kind == "module" or target != f"{module}.{name}":
                lines += [f"- :py:obj:`{target}`", ""]
                continue
            lines += [f".. {DIRECTIVES[kind]}:: {name}"]
            lines += ["   :members:", "   :show-inheritance:"] if kind == "class" else []
            lines += ["   :no-value:"] if kind == "data" else []
            lines += ["", "   A type alias (its definition is in the module's source).", ""] \
                if kind == "alias" else [""]
        page = out / f"{module}-module.rst"
        text = "\n".join(lines) + "\n"
        if not page.exists() or page.read_text(encoding="utf-8") != text:
            page.write_text(text, encoding="utf-8")


def setup(app) -> None:
    """Write the hidden submodules' pages once autosummary has written the others."""
    app.connect("builder-inited", write_hidden_modules)


autosummary_context = api_context()

html_theme = "pydata_sphinx_theme"
html_title = f"explore_sim {version}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_static_path: list[str] = []
highlight_language = "text"
