"""The README's Python examples run as written (with fewer trials) and do what they say."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_python_examples_run(tmp_path, monkeypatch):
    pytest.importorskip("seaborn")
    pytest.importorskip("pyarrow")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    code = re.sub(r"trials=\d[\d_]*", "trials=2_000", "\n".join(blocks))
    (tmp_path / "decks").symlink_to(ROOT / "decks")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    try:
        exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102
        versus, again = namespace["versus"], namespace["again"]
        assert again.attrs["explore_sim"] == versus.meta
        assert again.attrs["explore_sim"]["seed"] == 1
        assert again.attrs["explore_sim"]["policy"] == ["keep", "mill", "forge"]
        assert list(again["policy"].cat.categories) == ["keep", "mill", "forge"]
        titles = [[ax.get_title() for ax in plt.figure(n).axes] for n in plt.get_fignums()]
        assert ["deck = Lost Caverns Merfolk Explore", "deck = xln_sultai_explore"] in titles
        figure = namespace["figure"]
        assert [ax.get_title() for ax in figure.axes] == [
            "on_curve", "on_curve: paired difference", "counters", "counters: paired difference"]
        fixed = namespace["fixed"]
        assert fixed.features().explores[fixed.features().id_of(fixed.cards[0])] == 2
        assert fixed.table()["source"].iloc[0] == "card file fixes.toml"
    finally:
        plt.close("all")


def two_commands():
    """The shell commands of the README's "Two commands" section, and the output it shows."""
    section = README.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```sh\n(.*?)\n```", section, flags=re.S)
    (printed,) = re.findall(r"The first command prints:\n\n```\n(.*?)```", section, flags=re.S)
    return commands, printed


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
    assert setup in ci and tests in ci
    assert ci.index(setup) < ci.index(tests)


def shown_outputs():
    """``(command, output)`` of every ``explore-sim`` command the README shows with its output
    (a shell block, at most one paragraph, then a plain block), but ``tune``, which takes
    minutes."""
    pairs = re.findall(r"```sh\n(explore-sim [^`]*?)\n```\n\n(?:[^`]*?\n\n)?```\n(.*?)```",
                       README, flags=re.S)
    return [(command.replace("\\\n", " "), output) for command, output in pairs
            if not command.startswith("explore-sim tune")]


@pytest.mark.parametrize(("command", "output"), shown_outputs(),
                         ids=[command[:60] for command, _ in shown_outputs()])
def test_the_readme_shows_what_its_commands_print(command, output, tmp_path, monkeypatch,
                                                  capsys):
    """Every line the README shows is printed, in that order (an output may be shown in
    part, with ``...`` where lines are left out); the seeds make the numbers exact. The
    commands run in this process (``main``, as ``explore-sim`` runs it), which spares a
    process start per command; the first command runs in a process of its own above."""
    import shlex

    from explore_sim.cli import main

    (tmp_path / "decks").symlink_to(ROOT / "decks")
    words = shlex.split(command)[1:]
    monkeypatch.chdir(tmp_path)
    status = main(words)
    out = capsys.readouterr()
    assert status == 0, out.err
    printed = iter(line.rstrip() for line in out.out.splitlines())
    for line in output.splitlines():
        line = line.rstrip()
        if line and line.strip() not in ("...", "…"):
            assert line in printed, f"not printed (in order): {line!r}"
