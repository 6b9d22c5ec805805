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
        titles = [ax.get_title() for ax in plt.gcf().axes]
        assert titles == ["deck = Lost Caverns Merfolk Explore", "deck = xln_sultai_explore"]
    finally:
        plt.close("all")
