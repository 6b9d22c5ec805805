"""Plotting helpers: each returns the axes it was given and draws the values of the frame it
was given (read back from the artists)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from conftest import DECKS  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402
from matplotlib.container import BarContainer, ErrorbarContainer  # noqa: E402
from matplotlib.image import AxesImage  # noqa: E402

import explore_sim  # noqa: E402
from explore_sim import plotting  # noqa: E402

DECK = DECKS / "lci_merfolk_explore.txt"


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def compared():
    return explore_sim.compare(DECK, ["keep", "mill"], turns=4, trials=3000, seed=1)


def band_edges(collection):
    """{x: (lowest y, highest y)} of a fill_between polygon."""
    edges = {}
    for x, y in collection.get_paths()[0].vertices:
        low, high = edges.get(x, (y, y))
        edges[x] = (min(low, y), max(high, y))
    return edges


def check_error_bars(container, x, low, high):
    """The error bar segments of an ErrorbarContainer run from (x, low) to (x, high)."""
    (bars,) = container.lines[2]
    got = np.array([(a[0], min(a[1], b[1]), max(a[1], b[1])) for a, b in bars.get_segments()])
    np.testing.assert_allclose(got, np.column_stack([x, low, high]), rtol=1e-12)


def test_plot_turns_draws_a_line_and_band_per_variant(compared):
    fig, ax = plt.subplots()
    summary = compared.summary()
    out = plotting.plot_turns(summary, "on_curve", ax=ax)
    assert out is ax
    assert len(ax.lines) == 2 and [line.get_label() for line in ax.lines] == ["keep", "mill"]
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 2
    for line, band, variant in zip(ax.lines, bands, ["keep", "mill"]):
        rows = summary[(summary["variant"] == variant) & (summary["metric"] == "on_curve")
                       & (summary["turn"] > 0)].sort_values("turn")
        assert line.get_xdata().tolist() == rows["turn"].tolist()
        assert line.get_ydata().tolist() == rows["mean"].tolist()
        assert band_edges(band) == {t: (lo, hi) for t, lo, hi in
                                    zip(rows["turn"], rows["ci_low"], rows["ci_high"])}
    assert ax.get_xlabel() == "turn" and "on curve" in ax.get_ylabel()
    assert ax.lines[0].get_linestyle() != ax.lines[1].get_linestyle()  # black and white
    assert ax.get_legend() is not None


def test_plot_turns_on_a_single_simulation_uses_the_current_axes():
    result = explore_sim.simulate(DECK, turns=3, trials=2000, seed=1)
    fig, ax = plt.subplots()
    summary = result.summary()
    out = plotting.plot_turns(summary, "counters", band=False)
    assert out is ax and len(ax.lines) == 1 and not ax.collections
    rows = summary[(summary["metric"] == "counters") & (summary["turn"] > 0)]
    assert ax.lines[0].get_xydata().tolist() == rows[["turn", "mean"]].to_numpy().tolist()


def test_plot_distribution_draws_bars_with_error_bars():
    result = explore_sim.explore(DECK, explores=2, trials=3000, seed=1)
    dist = result.distribution("counters")
    fig, ax = plt.subplots()
    out = plotting.plot_distribution(dist, ax=ax)
    assert out is ax
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert len(bars) == 1 and len(bars[0]) == 3  # 0, 1, 2 counters
    assert [bar.get_height() for bar in bars[0]] == dist["probability"].tolist()
    assert ([bar.get_x() + bar.get_width() / 2 for bar in bars[0]]
            == pytest.approx(dist["value"].tolist()))
    (errors,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    check_error_bars(errors, dist["value"], dist["ci_low"], dist["ci_high"])
    assert ax.get_ylabel() == "probability"


def test_plot_distribution_side_by_side_with_hatches():
    frames = []
    for policy in ("keep", "mill"):
        frame = explore_sim.explore(DECK, explores=2, policy=policy, trials=2000,
                                    seed=1).distribution()
        frames.append(frame.assign(policy=policy))
    import pandas as pd

    fig, ax = plt.subplots()
    plotting.plot_distribution(pd.concat(frames), hue="policy", ax=ax)
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert len(bars) == 2 and bars[0][0].get_hatch() != bars[1][0].get_hatch()
    for container, frame, shift in zip(bars, frames, (-0.2, 0.2)):
        assert [bar.get_height() for bar in container] == frame["probability"].tolist()
        centres = [bar.get_x() + bar.get_width() / 2 for bar in container]
        assert centres == pytest.approx((frame["value"] + shift).tolist())


def test_plot_differences_draws_error_bars_around_zero(compared):
    fig, ax = plt.subplots()
    diffs = compared.paired_differences()
    out = plotting.plot_differences(diffs, "counters", ax=ax)
    assert out is ax
    (errors,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    rows = diffs[(diffs["metric"] == "counters") & (diffs["turn"] > 0)].sort_values("turn")
    data_line = errors.lines[0]
    assert data_line.get_xdata().tolist() == rows["turn"].tolist()  # one variant: no offset
    assert data_line.get_ydata().tolist() == rows["mean"].tolist()
    check_error_bars(errors, rows["turn"], rows["ci_low"], rows["ci_high"])
    assert any(line.get_ydata()[0] == 0 for line in ax.lines)  # the zero line
    assert "keep" in ax.get_title()


def test_plot_heatmap_draws_an_image_with_annotations():
    deck = explore_sim.deck_from_counts([("Forest", 24), ("Grizzly Bears", 36)])
    frame = explore_sim.sweep(deck, {"lands": [22, 24], "Cenote Scout": [0, 4, 8]}, turns=3,
                              trials=1000, seed=1, metrics=["on_curve"]).summary()
    fig, ax = plt.subplots()
    out = plotting.plot_heatmap(frame, "lands", "Cenote Scout", "on_curve", ax=ax)
    assert out is ax
    images = [i for i in ax.get_images() if isinstance(i, AxesImage)]
    assert len(images) == 1 and images[0].get_array().shape == (3, 2)
    assert images[0].origin == "lower"  # row 0 (no Cenote Scout) at the bottom
    last = frame[frame["turn"] == 3]
    for row, scouts in enumerate([0, 4, 8]):
        for col, lands in enumerate([22, 24]):
            (mean,) = last[(last["lands"] == lands) & (last["Cenote Scout"] == scouts)]["mean"]
            assert images[0].get_array()[row, col] == mean
            (text,) = [t for t in ax.texts if t.get_position() == (col, row)]
            assert text.get_text() == f"{mean:.2f}"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["22", "24"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["0", "4", "8"]
    assert ax.get_xlabel() == "lands" and ax.get_ylabel() == "Cenote Scout"


def test_helpers_refuse_frames_without_their_columns():
    fig, ax = plt.subplots()
    import pandas as pd

    with pytest.raises(ValueError, match="needs columns"):
        plotting.plot_turns(pd.DataFrame({"x": [1]}), ax=ax)
    with pytest.raises(ValueError, match="no rows"):
        plotting.plot_turns(pd.DataFrame(columns=["turn", "metric", "mean", "ci_low", "ci_high"]),
                            ax=ax)


def test_no_global_style_changes(compared):
    before = dict(matplotlib.rcParams)
    fig, ax = plt.subplots()
    plotting.plot_turns(compared.summary(), ax=ax)
    assert dict(matplotlib.rcParams) == before


@pytest.fixture(scope="module")
def two_decks():
    return explore_sim.compare([DECK, DECKS / "lci_merfolk_vanilla.txt"], ["keep", "mill"],
                               turns=3, trials=1000, seed=1)


def test_plot_turns_refuses_two_decks_drawn_as_one_line_per_policy(two_decks):
    fig, ax = plt.subplots()
    with pytest.raises(explore_sim.OptionError,
                       match=r"plot_turns: several rows for one point \(policy, turn\): "
                             r"they differ in variant, deck; .*hue= and style="):
        plotting.plot_turns(two_decks.summary(), "on_curve", hue="policy", ax=ax)
    assert not ax.lines  # nothing drawn


def test_hue_and_style_tell_deck_and_policy_apart(two_decks):
    fig, ax = plt.subplots()
    plotting.plot_turns(two_decks.summary(), "on_curve", hue="policy", style="deck", ax=ax)
    assert len(ax.lines) == 4
    looks = {line.get_label(): (line.get_color(), line.get_linestyle()) for line in ax.lines}
    keep_a = looks["keep, Lost Caverns Merfolk Explore"]
    keep_b = looks["keep, Lost Caverns Merfolk Vanilla Control"]
    mill_a = looks["mill, Lost Caverns Merfolk Explore"]
    assert keep_a[0] == keep_b[0] == plotting.PALETTE[0] != mill_a[0] == plotting.PALETTE[1]
    assert keep_a[1] == mill_a[1] != keep_b[1]
    assert ax.get_legend().get_title().get_text() == "policy, deck"


def test_plot_differences_by_deck_with_hue_and_style(two_decks):
    fig, ax = plt.subplots()
    diffs = two_decks.paired_differences(by="deck")
    plotting.plot_differences(diffs, "lands_played", hue="policy", style="deck", ax=ax)
    assert len([c for c in ax.containers if isinstance(c, ErrorbarContainer)]) == 2
    assert "each baseline" in ax.get_title()
    with pytest.raises(explore_sim.OptionError, match="they differ in variant, deck, baseline"):
        plotting.plot_differences(diffs, "lands_played", hue="policy", ax=ax)


def test_plot_heatmap_refuses_two_policies_unless_told_how_to_combine():
    deck = explore_sim.deck_from_counts({"Forest": 24, "Grizzly Bears": 36})
    frame = explore_sim.sweep(deck, {"lands": [22, 24], "Cenote Scout": [0, 4]},
                              ["keep", "mill"], turns=3, trials=1000, seed=1,
                              metrics=["on_curve"]).summary()
    fig, ax = plt.subplots()
    with pytest.raises(explore_sim.OptionError,
                       match=r"plot_heatmap: several rows for one point \(lands, Cenote Scout\): "
                             r"they differ in policy; .*estimator="):
        plotting.plot_heatmap(frame, "lands", "Cenote Scout", "on_curve", ax=ax)
    plotting.plot_heatmap(frame[frame["policy"] == "mill"], "lands", "Cenote Scout", "on_curve",
                          ax=ax)
    mill = ax.get_images()[0].get_array()
    fig, ax = plt.subplots()
    plotting.plot_heatmap(frame, "lands", "Cenote Scout", "on_curve", estimator="max", ax=ax)
    combined = ax.get_images()[0].get_array()
    keep = frame[(frame["policy"] == "keep") & (frame["turn"] == 3)].pivot(
        index="Cenote Scout", columns="lands", values="mean").to_numpy()
    assert np.allclose(combined, np.maximum(mill, keep))
    assert "max of rows" in ax.get_title()


def test_plot_distribution_refuses_two_unlabelled_distributions():
    frames = [explore_sim.explore(DECK, explores=2, policy=p, trials=500, seed=1)
              .distribution().assign(policy=p) for p in ("keep", "mill")]
    import pandas as pd

    fig, ax = plt.subplots()
    with pytest.raises(explore_sim.OptionError, match="they differ in policy"):
        plotting.plot_distribution(pd.concat(frames), ax=ax)
    plotting.plot_distribution(pd.concat(frames), style="policy", ax=ax)
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert bars[0][0].get_facecolor() == bars[1][0].get_facecolor()  # one colour ...
    assert bars[0][0].get_hatch() != bars[1][0].get_hatch()  # ... two hatches


LONG = "lands_in_hand == 0 or mana_value >= lands_in_play + lands_in_hand + 3"


@pytest.fixture(scope="module")
def with_expression():
    return explore_sim.compare(DECK, ["keep", "mill", LONG], turns=3, trials=1000, seed=1)


def line_looks(ax):
    return {line.get_label(): (line.get_color(), line.get_marker()) for line in ax.lines
            if not line.get_label().startswith("_")}


def test_plot_metrics_draws_one_panel_per_metric_of_a_simulation():
    result = explore_sim.simulate(DECK, turns=3, trials=1000, seed=1)
    figure = plotting.plot_metrics(result, ["on_curve", "counters", "mana_spent", "explores"])
    panels = [ax for ax in figure.axes if ax.get_visible()]
    assert [ax.get_title() for ax in panels] == ["on_curve", "counters", "mana_spent", "explores"]
    summary = result.summary()
    for ax in panels:
        rows = summary[(summary["metric"] == ax.get_title()) & (summary["turn"] > 0)]
        assert ax.lines[0].get_ydata().tolist() == rows["mean"].tolist()
    title = figure._suptitle.get_text().replace("\n", " ")
    assert title == ("Lost Caverns Merfolk Explore · policy: forge · 3 turns on the play · "
                     "1,000 trials, seed 1")


@pytest.mark.slow
def test_plot_metrics_keeps_one_colour_per_variant_in_every_panel(with_expression):
    figure = plotting.plot_metrics(with_expression, ["on_curve", "counters", "lands_played"])
    panels = [ax for ax in figure.axes if ax.get_visible()]
    assert len(panels) == 6  # each metric and its paired differences
    labels, caption = plotting.short_labels(["keep", "mill", LONG])
    short = labels[LONG]
    assert short.endswith("[1]") and len(short) <= plotting.LABEL_WIDTH
    looks = line_looks(panels[0])
    assert list(looks) == ["keep", "mill", short]
    for ax in panels[2::2]:
        assert line_looks(ax) == looks
    for ax in panels[1::2]:  # the differences: the baseline is not drawn, the others keep theirs
        drawn = {c.get_label(): (c.lines[0].get_color(), c.lines[0].get_marker())
                 for c in ax.containers}
        assert drawn == {"mill": looks["mill"], short: looks[short]}
    (legend,) = figure.legends
    assert [t.get_text() for t in legend.get_texts()] == ["keep", "mill", short]
    assert not any(ax.get_legend() for ax in panels)  # one legend, beside the panels
    assert LONG in figure._supxlabel.get_text().replace("\n", " ")  # the full text, in the caption
    assert "[1] " + LONG == caption
    title = figure._suptitle.get_text().replace("\n", " ")
    assert title.startswith(f"Lost Caverns Merfolk Explore · policies: keep, mill, {short} · ")
    assert title.endswith("1,000 trials, seed 1")


def test_plot_differences_gives_each_variant_its_plot_turns_colour(compared):
    fig, (left, right) = plt.subplots(1, 2)
    plotting.plot_turns(compared.summary(), "counters", ax=left)
    plotting.plot_differences(compared.paired_differences(), "counters", ax=right)
    (errors,) = [c for c in right.containers if isinstance(c, ErrorbarContainer)]
    assert errors.lines[0].get_color() == line_looks(left)["mill"][0] == plotting.PALETTE[1]


def test_legends_sit_beside_the_data_by_default(with_expression):
    fig, ax = plt.subplots(layout="constrained")
    plotting.plot_turns(with_expression.summary(), "on_curve", ax=ax)
    fig.canvas.draw()
    assert ax.get_legend().get_window_extent().x0 >= ax.get_window_extent().x1
    fig, ax = plt.subplots()
    plotting.plot_turns(with_expression.summary(), "on_curve", ax=ax, legend=False)
    assert ax.get_legend() is None
    with pytest.raises(explore_sim.OptionError, match="legend must be"):
        plotting.plot_turns(with_expression.summary(), "on_curve", ax=ax, legend="left")


@pytest.mark.parametrize("draw", [
    lambda compared: plotting.plot_turns(compared.summary(), "on_curve"),
    lambda compared: plotting.plot_differences(compared.paired_differences(), "on_curve"),
], ids=["plot_turns", "plot_differences"])
def test_a_legend_beside_the_axes_is_inside_the_figure_pyplot_made(compared, draw, tmp_path):
    """With ``ax=None`` and no figure yet, the figure made lays itself out: saved as it is, its
    legend beside the axes is not cut off at the figure's edge."""
    ax = draw(compared)
    ax.figure.savefig(tmp_path / "plot.png")
    legend, figure = ax.get_legend().get_window_extent(), ax.figure.bbox
    assert figure.x0 <= legend.x0 and legend.x1 <= figure.x1
    assert ax.get_window_extent().x1 <= legend.x0


def test_plot_metrics_refuses_an_unknown_metric(with_expression):
    with pytest.raises(explore_sim.OptionError, match=r"unknown on_curv \(did you mean 'on_curve'"):
        plotting.plot_metrics(with_expression, ["on_curv"])


@pytest.mark.slow
def test_result_figure_is_the_figure_of_plot_and_of_the_web_page(with_expression):
    explored = explore_sim.explore(DECK, explores=2, trials=500, seed=1)
    figure = plotting.result_figure(explored)
    assert [ax.get_title() for ax in figure.axes] == ["distribution of +1/+1 counters"]
    assert figure._suptitle.get_text().replace("\n", " ").endswith("500 trials, seed 1")
    assert tuple(figure.get_size_inches()) == (7, 4.5)
    titles = [ax.get_title() for ax in plotting.result_figure(
        explored, distribution="milled").axes]
    assert titles == ["distribution of cards milled"]
    games = explore_sim.simulate(DECK, turns=3, trials=500, seed=1)
    figure = plotting.result_figure(games, ["counters", "on_curve"])
    assert [ax.get_title() for ax in figure.axes if ax.get_visible()] == ["counters", "on_curve"]
    assert figure._suptitle.get_text() == plotting.plot_metrics(
        games, ["counters", "on_curve"])._suptitle.get_text()
    figure = plotting.result_figure(games)  # the metrics the table shows
    assert len([ax for ax in figure.axes if ax.get_visible()]) == 11
    figure = plotting.result_figure(games, distribution="hand_size", turn=0)
    assert [ax.get_title() for ax in figure.axes] == ["distribution of cards in hand in the "
                                                      "opening hand"]
    figure = plotting.result_figure(games, distribution="counters")  # the last turn
    assert figure.axes[0].get_title().endswith(" at the end of turn 3")
    figure = plotting.result_figure(with_expression, ["on_curve"])
    assert [ax.get_title() for ax in figure.axes] == ["on_curve", "on_curve: paired difference"]
    assert len(figure.legends) == 1
    with pytest.raises(explore_sim.OptionError,
                       match="draws explore, simulate, compare, value, sweep and lands results"):
        plotting.result_figure(object())
    with pytest.raises(explore_sim.OptionError, match="name its metric with distribution="):
        plotting.result_figure(explored, ["milled"])
    with pytest.raises(explore_sim.OptionError, match="distribution= is for explore and simul"):
        plotting.result_figure(with_expression, distribution="counters")
    with pytest.raises(explore_sim.OptionError, match="turn= goes with"):
        plotting.result_figure(games, turn=2)
    with pytest.raises(explore_sim.OptionError, match=r"unknown on_curv \(did you mean"):
        plotting.result_figure(games, ["on_curv"])


def _land_curve():
    import pandas as pd

    rows = [("Scout", "explorer deck", np.nan, 0.52), ("Scout", "vanilla", 0, 0.50),
            ("Scout", "vanilla +1 land", 1, 0.54), ("Scout", "vanilla +2 lands", 2, 0.58)]
    curve = pd.DataFrame(rows, columns=["card", "variant", "lands", "mean"]).assign(
        metric="on_curve", turn=4)
    curve["ci_low"], curve["ci_high"] = curve["mean"] - 0.01, curve["mean"] + 0.01
    found = pd.DataFrame({"card": ["Scout"], "mean": [0.5], "ci_low": [0.3], "ci_high": [0.7]})
    return curve, found


def test_plot_land_equivalent_draws_the_curve_the_level_and_the_estimate():
    curve, found = _land_curve()
    fig, ax = plt.subplots()
    assert plotting.plot_land_equivalent(curve, found, ax=ax) is ax
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    line, star = bars
    np.testing.assert_allclose(line.lines[0].get_xydata(), [[0, 0.50], [1, 0.54], [2, 0.58]])
    check_error_bars(line, [0, 1, 2], [0.49, 0.53, 0.57], [0.51, 0.55, 0.59])
    np.testing.assert_allclose(star.lines[0].get_xydata(), [[0.5, 0.52]])
    (segment,) = star.lines[2][0].get_segments()
    np.testing.assert_allclose(segment, [[0.3, 0.52], [0.7, 0.52]])
    assert [line.get_ydata()[0] for line in ax.lines if line.get_linestyle() == ":"] == [0.52]


def test_plot_land_equivalent_says_a_valuations_lines_stop_at_the_crossing():
    """A valuation plays each card's land variants only as far as the first that reaches
    the explorer deck: its figure says the lines stop there, unless every count was played
    (full_curve) or the frame does not come from a valuation."""
    curve, found = _land_curve()
    fig, ax = plt.subplots()
    plotting.plot_land_equivalent(curve, found, ax=ax)
    assert "stops" not in ax.get_title()
    for full, says in ((False, True), (True, False)):
        curve.attrs["explore_sim"] = {"land_equivalent": {"full_curve": full}}
        fig, ax = plt.subplots()
        plotting.plot_land_equivalent(curve, found, ax=ax)
        assert ("each line stops at the first count of lands that reaches the explorer deck"
                in ax.get_title()) == says


def test_plot_land_equivalent_names_each_cards_turn_when_they_differ():
    import pandas as pd

    curve, found = _land_curve()
    fig, ax = plt.subplots()
    plotting.plot_land_equivalent(curve, found, ax=ax)
    assert ax.get_ylabel().endswith(", turn 4")
    later = curve.assign(card="Guide", turn=5)
    fig, ax = plt.subplots()
    plotting.plot_land_equivalent(pd.concat([curve, later]), ax=ax)
    assert ax.get_ylabel().endswith(", at each card's turn")
    labels = ax.get_legend_handles_labels()[1]
    assert labels == ["Scout (turn 4): vanilla + lands", "Guide (turn 5): vanilla + lands"]


def test_more_series_than_colours_still_look_apart():
    import pandas as pd

    from explore_sim.plotting.style import PALETTE, split_series

    frame = pd.DataFrame({"card": [f"card {i}" for i in range(3 * len(PALETTE))]})
    looks = [(look["color"], look["marker"], look["linestyle"])
             for _, _, look in split_series(frame, "card")]
    assert len(set(looks)) == len(looks)


def test_plot_land_equivalent_refuses_two_rows_per_point():
    import pandas as pd

    curve, _ = _land_curve()
    with pytest.raises(explore_sim.OptionError, match="several rows for one point"):
        plotting.plot_land_equivalent(pd.concat([curve, curve.assign(variant="other")]))


def test_result_figure_of_a_value_is_its_land_equivalents():
    worth = explore_sim.value(DECK, ["Jadelight Spelunker"], turns=4, max_lands=2, trials=300,
                              seed=1)
    figure = plotting.result_figure(worth)
    (ax,) = figure.axes
    assert ax.get_title().startswith("land-equivalent: where the line meets the explorer deck")
    found = worth.land_equivalents()
    assert found["note"].iloc[0] == "interpolated between 0 and 1 more lands"
    line, star = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert star.lines[0].get_xdata()[0] == pytest.approx(found["mean"].iloc[0])  # the estimate
    assert tuple(figure.get_size_inches()) == (9, 4.5)
    with pytest.raises(explore_sim.OptionError, match="takes no metrics="):
        plotting.result_figure(worth, ["on_curve"])


def test_the_figure_of_a_sweep_is_a_heatmap_of_two_keys_else_lines():
    two_keys = explore_sim.sweep(DECK, {"lands": [23, 24], "Cenote Scout": [4, 5]}, turns=2,
                                 trials=300, seed=1)
    (ax,) = plotting.result_figure(two_keys, ["lands_played"]).axes[:1]
    rows = two_keys.summary().query("metric == 'lands_played' and turn == 2")
    drawn = np.asarray(ax.images[0].get_array() if ax.images else ax.collections[0].get_array())
    assert sorted(np.round(drawn.ravel(), 6)) == sorted(np.round(rows["mean"], 6))
    lines = explore_sim.sweep(DECK, {"lands": [23, 24], "policy": ["keep", "mill"]}, turns=2,
                              trials=300, seed=1)
    ax = plotting.result_figure(lines).axes[0]
    assert ax.get_xlabel() == "lands" and ax.get_title() == "P(on curve: lands ≥ turn), turn 2"
    assert {text.get_text() for text in ax.get_legend().get_texts()} == {"keep", "mill"}
    with pytest.raises(explore_sim.OptionError, match="no distribution= or turn="):
        plotting.result_figure(lines, turn=1)
    with pytest.raises(explore_sim.OptionError, match=r"result_figure: the sweep varies 4"):
        plotting.sweep_dimensions({"lands": [1, 2], "a": [1, 2], "policy": ["keep", "mill"]}, 2)


def test_plot_metrics_leaves_out_and_names_the_default_metrics_zero_on_every_turn():
    """A deck without explorers: its counters and explores panels would be empty lines at
    zero; they are left out and named under the panels. Asked for, they are drawn."""
    vanilla = DECK.parent / "lci_merfolk_vanilla.txt"
    result = explore_sim.simulate(vanilla, turns=3, trials=500, seed=1)
    figure = plotting.plot_metrics(result)
    titles = [ax.get_title() for ax in figure.axes if ax.get_visible()]
    assert "counters" not in titles and "explores" not in titles and "on_curve" in titles
    caption = figure._supxlabel.get_text().replace("\n", " ")
    assert "zero on every turn, not drawn: " in caption and "counters" in caption
    asked = plotting.plot_metrics(result, ["on_curve", "counters"])
    assert [ax.get_title() for ax in asked.axes if ax.get_visible()] == ["on_curve", "counters"]


def test_plot_lands_bars_are_the_paired_differences_and_tied_only_when_some_are():
    """Each count's bar is its paired difference's 95% interval around its mean: it reaches
    the best's level (the dotted line) exactly when the count is tied; the legend names tied
    counts only when there are some (the best is not tied with itself)."""
    import pandas as pd

    rows = pd.DataFrame({
        "lands": [23, 24, 25], "best": [False, True, False], "tied": [True, True, False],
        "mean": [9.0, 10.0, 8.0], "ci_low": [8.0, 9.0, 7.0], "ci_high": [10.0, 11.0, 9.0],
        "difference": [-1.0, 0.0, -2.0], "difference_ci_low": [-1.5, 0.0, -2.5],
        "difference_ci_high": [0.2, 0.0, -1.5], "screwed": [0.3, 0.2, 0.1],
        "flooded": [0.1, 0.2, 0.3]})
    _, ax = plt.subplots()
    plotting.plot_lands(rows, ax=ax)
    (bars,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    segments = bars.lines[2][0].get_segments()
    assert [(seg[0][1], seg[1][1]) for seg in segments] == [(8.5, 10.2), (10.0, 10.0),
                                                            (7.5, 8.5)]
    assert [line.get_ydata()[0] for line in ax.get_lines() if line.get_linestyle() == ":"] \
        == [10.0]
    labels = ax.get_legend_handles_labels()[1]
    assert sorted(labels) == ["best", "objective; 95% interval of the paired difference to the "
                              "best", "tied with the best"]
    _, ax = plt.subplots()  # nothing tied, no difference columns: each count's own interval
    plotting.plot_lands(rows.assign(tied=[False, True, False]).drop(
        columns=["difference", "difference_ci_low", "difference_ci_high"]), ax=ax)
    (bars,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert [(seg[0][1], seg[1][1]) for seg in bars.lines[2][0].get_segments()] == [
        (8.0, 10.0), (9.0, 11.0), (7.0, 9.0)]
    assert sorted(ax.get_legend_handles_labels()[1]) == ["best", "objective, 95% interval"]
