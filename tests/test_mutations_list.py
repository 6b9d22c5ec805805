"""The deliberate bugs of ``benchmarks/mutations.py`` still match the code: each one's text
occurs exactly once in its file and names test files that exist (a stale mutation would
silently stop checking anything)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load_mutations():
    spec = importlib.util.spec_from_file_location("mutations", ROOT / "benchmarks" / "mutations.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mutations", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module.MUTATIONS


MUTATIONS = load_mutations()


def test_mutation_names_are_unique():
    names = [m.name for m in MUTATIONS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.name)
def test_mutation_text_occurs_once_and_its_tests_exist(mutation):
    text = (ROOT / mutation.file).read_text()
    assert text.count(mutation.old) == 1, f"{mutation.name}: update its text to the code"
    assert mutation.old != mutation.new
    for name in mutation.tests:
        assert (ROOT / "tests" / name).is_file(), name
