"""The README is short, and its two commands are the ones CI runs, printing what it shows.

Its other commands, its Python example and its links are checked with the documentation's
pages (tests/test_doc_pages.py)."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
#: What ends a line of .ci/run holding an `a && b` list: a failing step fails the run.
MUST_PASS = " || exit 1"


def two_commands():
    """The shell commands of the README's "Two commands" section, and the output it shows."""
    section = README.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```sh\n(.*?)\n```", section, flags=re.S)
    (printed,) = re.findall(r"The first command prints:\n\n```\n(.*?)```", section, flags=re.S)
    return commands, printed


@pytest.mark.slow
def test_the_first_command_prints_what_the_readme_shows():
    import shlex
    import subprocess
    import sys

    (setup, _), printed = two_commands()
    words = shlex.split(setup.split("&& explore-sim ", 1)[1])
    assert words[0] == "explore" and "--explorer" in words and "--drawn" in words
    out = subprocess.run([sys.executable, "-m", "explore_sim", *words], capture_output=True,
                         text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout == printed


def test_ci_runs_the_readme_commands_as_written():
    commands, _ = two_commands()
    setup, tests = commands
    assert "pip install -e . &&" in setup and "[dev]" not in setup  # running needs no dev extra
    assert tests == "pip install -e '.[dev]' && python -m pytest"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert setup + MUST_PASS in ci and tests + MUST_PASS in ci
    assert ci.index(setup + MUST_PASS) < ci.index(tests + MUST_PASS)


def test_a_failing_step_of_an_and_list_fails_ci():
    """``set -e`` does not stop at a failing command of an ``a && b`` list but the last, so
    every such list of ``.ci/run`` ends in ``|| exit 1`` (or, for a step allowed to fail, in
    ``|| echo`` saying so)."""
    text = (ROOT / ".ci" / "run").read_text(encoding="utf-8").replace("\\\n", " ")
    lists = [line.strip() for line in text.splitlines()  # an if's condition may fail
             if "&&" in line and not line.lstrip().startswith(("#", "if ", "elif "))]
    assert len(lists) >= 4
    assert [line for line in lists
            if not (line.endswith(MUST_PASS) or re.search(r"\|\| echo \"[^\"]*\"$", line))] == []


def test_ci_runs_the_linter_and_the_type_checker_after_the_tests():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    _, tests = two_commands()[0]
    assert "ruff check" in ci and "mypy" in ci
    assert ci.index(tests + MUST_PASS) < ci.index("ruff check") < ci.index("mypy")


def test_the_readme_is_short():
    lines = README.splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; the rest belongs in docs/"


def test_ci_builds_the_docs_with_warnings_as_errors():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    _, tests = two_commands()[0]
    build = [line for line in ci if "-m sphinx" in line]
    assert build and "-W" in build[0] and "--keep-going" in build[0], build
    assert ci.index(tests + MUST_PASS) < ci.index(build[0])
    assert any("'.[docs]'" in line for line in ci)
    assert "python -m sphinx -W --keep-going -b html docs docs/_build/html" in README
