"""Make the documentation's figures from the shipped decks (the gallery, docs/gallery.md).

    python docs/make_figures.py            # writes docs/figures/*.png
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

import explore_sim
from explore_sim import plotting

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "figures"
MERFOLK = "merfolk"  # shipped decks, by name (explore_sim/decks/)
SULTAI = "xln-sultai"


def save(figure: Figure, name: str) -> None:
    figure.savefig(OUT / name, dpi=110)
    print("wrote", OUT / name)


def on_curve_by_policy() -> None:
    result = explore_sim.compare(MERFOLK, ["keep", "mill", "forge"], turns=6, trials=200_000,
                                 seed=1)
    figure = plotting.plot_metrics(result, ["on_curve", "counters"],
                                   figure=Figure(layout="constrained"))
    save(figure, "on_curve_by_policy.png")


def jadelight_counters() -> None:
    frames = [
        explore_sim.explore(SULTAI, explorer="Jadelight Ranger", drawn=9, policy=policy,
                            trials=200_000, seed=1).distribution("counters").assign(policy=policy)
        for policy in ("keep", "mill", "forge")
    ]
    figure = Figure(figsize=(6, 4), layout="constrained")
    plotting.plot_distribution(pd.concat(frames), hue="policy", ax=figure.subplots())
    save(figure, "jadelight_counters.png")


def lands_and_explorers() -> None:
    shell = explore_sim.deck_from_counts([("Forest", 24), ("Grizzly Bears", 36)], name="shell")
    grid = explore_sim.sweep(shell, {"lands": list(range(20, 29)),
                                     "Cenote Scout": [0, 4, 8, 12]},
                             turns=7, trials=50_000, seed=3,
                             metrics=["compounded_mana"]).summary()
    figure = Figure(figsize=(8, 4.2), layout="constrained")
    plotting.plot_heatmap(grid, "lands", "Cenote Scout", "compounded_mana", best="max",
                          fmt="{:.1f}", ax=figure.subplots())
    save(figure, "lands_explorers_heatmap.png")


def land_equivalents() -> None:
    result = explore_sim.value(SULTAI, ["Jadelight Ranger", "Merfolk Branchwalker",
                                        "Seekers' Squire"], metric="on_curve", turn=4,
                               trials=100_000, seed=1, workers=0, full_curve=True)
    figure = Figure(figsize=(8, 4.5), layout="constrained")
    plotting.plot_land_equivalent(result.curve(), result.land_equivalents(),
                                  ax=figure.subplots())
    save(figure, "land_equivalents.png")


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    on_curve_by_policy()
    jadelight_counters()
    lands_and_explorers()
    land_equivalents()
