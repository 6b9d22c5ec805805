"""Result objects for analysts: tidy variables, baselines, metadata in attrs, reprs."""

from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from conftest import DECKS  # noqa: E402

import explore_sim  # noqa: E402
from explore_sim import OptionError  # noqa: E402
from explore_sim.analysis.runner import child_seed, seed_sequence  # noqa: E402
from explore_sim.analysis.simulate import play_games  # noqa: E402
from explore_sim.engine.goldfish import GameConfig  # noqa: E402
from explore_sim.engine.mulligan import MulliganRule  # noqa: E402

MERFOLK = DECKS / "lci_merfolk_explore.txt"
SULTAI = DECKS / "xln_sultai_explore.txt"
POLICIES = ["keep", "mill", "forge"]


@pytest.fixture(scope="module")
def two_by_three():
    """Two decks x three policies on the same shuffles."""
    return explore_sim.compare([MERFOLK, SULTAI], POLICIES, turns=3, trials=3000, seed=11)


@pytest.fixture(scope="module")
def small_sweep():
    return explore_sim.sweep(MERFOLK, {"lands": [24, 22], "Cenote Scout": [4, 2, 6]},
                             ["forge", "keep"], turns=3, trials=1000, seed=2)


def categories(series: pd.Series) -> list:
    assert isinstance(series.dtype, pd.CategoricalDtype) and series.cat.ordered
    return list(series.cat.categories)


# --- tidy variables ---------------------------------------------------------------------

def test_compare_summary_has_one_ordered_column_per_variable(two_by_three):
    frame = two_by_three.summary()
    assert list(frame.columns[:5]) == ["variant", "deck", "policy", "turn", "metric"]
    assert categories(frame["deck"]) == ["Lost Caverns Merfolk Explore", "xln_sultai_explore"]
    assert categories(frame["policy"]) == POLICIES  # in the order given, baseline first
    assert categories(frame["variant"])[0] == "Lost Caverns Merfolk Explore / keep"
    # Facets need no string splitting, and a pivot keeps the baseline first.
    wide = frame[(frame["metric"] == "on_curve") & (frame["turn"] == 3)].pivot(
        index="deck", columns="policy", values="mean")
    assert list(wide.columns) == POLICIES
    assert wide.loc["xln_sultai_explore", "mill"] == frame.loc[
        (frame["variant"] == "xln_sultai_explore / mill") & (frame["metric"] == "on_curve")
        & (frame["turn"] == 3), "mean"].item()


def test_policies_given_in_another_order_keep_that_order():
    frame = explore_sim.compare(MERFOLK, ["mill", "keep"], turns=2, trials=500, seed=1).summary()
    assert categories(frame["policy"]) == ["mill", "keep"]
    assert categories(frame["variant"]) == ["mill", "keep"]
    assert categories(frame["deck"]) == ["Lost Caverns Merfolk Explore"]


def test_sweep_summary_has_ordered_grid_columns(small_sweep):
    frame = small_sweep.summary()
    assert list(frame.columns[:4]) == ["lands", "Cenote Scout", "policy", "turn"]
    assert categories(frame["lands"]) == [24, 22]  # as given: the first is the baseline
    assert categories(frame["Cenote Scout"]) == [4, 2, 6]
    assert categories(frame["policy"]) == ["forge", "keep"]
    assert len(frame.groupby(["lands", "Cenote Scout", "policy"], observed=True)) == 12


# --- paired differences -----------------------------------------------------------------

def means(result):
    frame = result.summary()
    return frame.set_index(["deck", "policy", "turn", "metric"])["mean"]


def test_default_baseline_is_the_first_deck_and_policy(two_by_three):
    diffs = two_by_three.paired_differences()
    assert set(diffs["baseline"]) == {"Lost Caverns Merfolk Explore / keep"}
    assert len(set(diffs["variant"])) == 5
    m = means(two_by_three)
    base = m.xs(("Lost Caverns Merfolk Explore", "keep"), level=(0, 1))
    for (deck, policy, turn, metric), row in diffs.set_index(
            ["deck", "policy", "turn", "metric"]).iterrows():
        assert row["mean"] == pytest.approx(m[(deck, policy, turn, metric)]
                                            - base[(turn, metric)], abs=1e-12)


def test_by_deck_differences_policies_within_each_deck(two_by_three):
    diffs = two_by_three.paired_differences(by="deck")
    assert len(diffs.groupby(["deck", "policy"], observed=True)) == 4  # 2 decks x 2 policies
    assert categories(diffs["policy"]) == ["mill", "forge"]
    pairs = diffs[["variant", "baseline"]].drop_duplicates().astype(str)
    assert pairs.values.tolist() == [
        ["Lost Caverns Merfolk Explore / mill", "Lost Caverns Merfolk Explore / keep"],
        ["Lost Caverns Merfolk Explore / forge", "Lost Caverns Merfolk Explore / keep"],
        ["xln_sultai_explore / mill", "xln_sultai_explore / keep"],
        ["xln_sultai_explore / forge", "xln_sultai_explore / keep"],
    ]
    m = means(two_by_three)
    row = diffs.set_index(["deck", "policy", "turn", "metric"]).loc[
        ("xln_sultai_explore", "mill", 3, "lands_played")]
    expected = (m[("xln_sultai_explore", "mill", 3, "lands_played")]
                - m[("xln_sultai_explore", "keep", 3, "lands_played")])
    assert row["mean"] == pytest.approx(expected, abs=1e-12)
    assert row["se"] < row["se_unpaired"]
    assert diffs.equals(two_by_three.paired_differences(baseline="keep"))


def test_policy_baseline_and_deck_baseline(two_by_three):
    by_mill = two_by_three.paired_differences(baseline="mill")
    assert categories(by_mill["policy"]) == ["keep", "forge"]
    assert set(by_mill["baseline"].astype(str)) == {
        "Lost Caverns Merfolk Explore / mill", "xln_sultai_explore / mill"}
    by_deck = two_by_three.paired_differences(baseline="xln_sultai_explore")
    assert categories(by_deck["deck"]) == ["Lost Caverns Merfolk Explore"]
    assert categories(by_deck["policy"]) == POLICIES
    assert by_deck.equals(two_by_three.paired_differences(baseline=1))
    assert by_deck.equals(two_by_three.paired_differences(by="policy", baseline=1))
    m = means(two_by_three)
    row = by_deck.set_index(["deck", "policy", "turn", "metric"]).loc[
        ("Lost Caverns Merfolk Explore", "forge", 2, "counters")]
    expected = (m[("Lost Caverns Merfolk Explore", "forge", 2, "counters")]
                - m[("xln_sultai_explore", "forge", 2, "counters")])
    assert row["mean"] == pytest.approx(expected, abs=1e-12)


def test_pair_baseline_differences_every_variant_against_one(two_by_three):
    diffs = two_by_three.paired_differences(baseline=("xln_sultai_explore", "forge"))
    assert set(diffs["baseline"]) == {"xln_sultai_explore / forge"}
    assert len(set(diffs["variant"])) == 5
    assert diffs.equals(two_by_three.paired_differences(baseline="xln_sultai_explore / forge"))


@pytest.mark.slow
def test_a_chosen_baseline_equals_the_two_variant_comparison():
    """Variants play the same random streams whatever else is compared, so keep - mill
    from a three-policy run equals the default difference of a two-policy run exactly."""
    three = explore_sim.compare(MERFOLK, POLICIES, turns=3, trials=70_000, seed=5)
    two = explore_sim.compare(MERFOLK, ["mill", "keep"], turns=3, trials=70_000, seed=5)
    chosen = three.paired_differences(baseline="mill")
    chosen = chosen[chosen["variant"] == "keep"].reset_index(drop=True)
    direct = two.paired_differences()
    columns = ["turn", "metric", "mean", "se", "ci_low", "ci_high", "se_unpaired"]
    pd.testing.assert_frame_equal(chosen[columns], direct[columns], check_exact=True)


def test_paired_standard_error_matches_numpy_on_the_games():
    """One chunk of games replayed by hand: the per-game differences' mean and se."""
    trials, seed = 3000, 17
    result = explore_sim.compare(MERFOLK, ["keep", "forge", "mill"], turns=2, trials=trials,
                                 seed=seed)
    rows = result.paired_differences(baseline="mill").set_index(["policy", "turn", "metric"])
    deck = explore_sim.load_deck(MERFOLK)
    chunk = child_seed(seed_sequence(seed), 0)
    games = {name: play_games(deck, GameConfig(turns=2), explore_sim.as_policy(name),
                              MulliganRule("london"), trials, chunk)
             for name in ("keep", "mill")}
    for metric in ("counters", "lands_played", "milled", "explores"):
        d = (games["keep"][2][metric].astype(np.int64)
             - games["mill"][2][metric].astype(np.int64))
        row = rows.loc[("keep", 2, metric)]
        assert row["mean"] == pytest.approx(d.mean(), rel=1e-12, abs=1e-15)
        assert row["se"] == pytest.approx(d.std(ddof=1) / np.sqrt(trials), rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("kwargs, message", [
    ({"baseline": "forg"}, "did you mean 'forge'"),
    ({"baseline": "sultai"}, "not a deck, policy or variant"),
    ({"baseline": 2}, "deck index must be 0 to 1"),
    ({"baseline": ("xln_sultai_explore", "keepp")}, "baseline policy 'keepp'"),
    ({"baseline": 1.5}, "must be a deck, a policy"),
    ({"by": "turn"}, "by must be 'deck', 'policy'"),
    ({"by": "deck", "baseline": "xln_sultai_explore"}, "must be a policy"),
    ({"by": "policy", "baseline": "mill"}, "must be a deck"),
])
def test_bad_baselines_are_one_line_option_errors(two_by_three, kwargs, message):
    with pytest.raises(OptionError, match=message) as error:
        two_by_three.paired_differences(**kwargs)
    assert "\n" not in str(error.value)


def test_a_close_name_is_suggested_once():
    """With one deck, a variant's label is its policy: 'forge' is suggested once."""
    one_deck = explore_sim.compare(MERFOLK, ["keep", "forge"], turns=1, trials=100, seed=1)
    with pytest.raises(OptionError, match="\\(did you mean 'forge'\\?\\)"):
        one_deck.paired_differences(baseline="forg")


def test_an_unknown_metric_of_an_explore_distribution_is_an_option_error():
    result = explore_sim.explore(MERFOLK, explores=2, trials=100, seed=1)
    with pytest.raises(OptionError, match="unknown metric 'counter' \\(did you mean 'counters'"):
        result.distribution("counter")


# --- metadata that travels ---------------------------------------------------------------

@pytest.fixture(scope="module")
def every_result(two_by_three, small_sweep):
    return {
        "explore": explore_sim.explore(MERFOLK, explores=2, trials=1000, seed=1),
        "simulate": explore_sim.simulate(MERFOLK, turns=2, trials=1000, seed=1),
        "compare": two_by_three,
        "sweep": small_sweep,
    }


def frames_of(result):
    frames = {"summary": result.summary()}
    if isinstance(result, explore_sim.ExploreResult):
        frames["distribution"] = result.distribution("counters")
    if isinstance(result, explore_sim.SimulationResult):
        frames["distribution"] = result.distribution("counters", turn=2)
    if isinstance(result, explore_sim.CompareResult):
        frames["paired_differences"] = result.paired_differences(by="deck")
    return frames


@pytest.mark.parametrize("command", ["explore", "simulate", "compare", "sweep"])
def test_every_frame_carries_json_safe_meta_of_one_shape(every_result, command):
    result = every_result[command]
    meta = result.meta
    assert json.loads(json.dumps(meta, allow_nan=False)) == meta  # plain JSON values only
    assert meta["command"] == command
    assert isinstance(meta["deck"], list) and all(isinstance(d, dict) for d in meta["deck"])
    assert {"name", "size", "lands", "digest"} <= set(meta["deck"][0])
    assert isinstance(meta["policy"], list) and all(isinstance(p, str) for p in meta["policy"])
    for key in ("trials", "seed", "versions", "assumptions", "interval"):
        assert key in meta
    for name, frame in frames_of(result).items():
        attrs = frame.attrs["explore_sim"]
        assert {k: v for k, v in attrs.items() if k != "baseline"} == meta, name
        assert attrs is not meta  # a copy: editing the frame's attrs leaves the result alone


def test_parquet_round_trip_keeps_meta_and_categories(tmp_path, every_result):
    pytest.importorskip("pyarrow")
    for command in ("compare", "simulate", "explore"):
        frame = every_result[command].summary()
        path = tmp_path / f"{command}.parquet"
        frame.to_parquet(path)
        back = pd.read_parquet(path)
        assert back.attrs["explore_sim"] == every_result[command].meta
        pd.testing.assert_frame_equal(back, frame, check_exact=True)
    back = pd.read_parquet(tmp_path / "compare.parquet")
    assert categories(back["policy"]) == POLICIES
    diffs = every_result["compare"].paired_differences(baseline="mill")
    diffs.to_parquet(tmp_path / "diffs.parquet")
    back = pd.read_parquet(tmp_path / "diffs.parquet")
    assert back.attrs["explore_sim"]["baseline"] == [
        "Lost Caverns Merfolk Explore / mill", "xln_sultai_explore / mill"]
    pd.testing.assert_frame_equal(back, diffs, check_exact=True)


def test_parquet_round_trip_of_a_sweep_keeps_the_grid_order_in_meta(tmp_path, small_sweep):
    """Parquet stores integer categoricals as plain integers; the order given stays in meta."""
    pytest.importorskip("pyarrow")
    frame = small_sweep.summary()
    frame.to_parquet(tmp_path / "sweep.parquet")
    back = pd.read_parquet(tmp_path / "sweep.parquet")
    meta = back.attrs["explore_sim"]
    assert meta == small_sweep.meta
    assert meta["grid"] == {"lands": [24, 22], "Cenote Scout": [4, 2, 6]}
    assert categories(back["policy"]) == ["forge", "keep"]
    for key, values in meta["grid"].items():
        back[key] = pd.Categorical(back[key], categories=values, ordered=True)
    pd.testing.assert_frame_equal(back, frame, check_exact=True)


def test_fresh_seed_is_recorded_everywhere():
    for run in (lambda: explore_sim.explore(MERFOLK, trials=200),
                lambda: explore_sim.simulate(MERFOLK, turns=1, trials=200),
                lambda: explore_sim.compare(MERFOLK, ["keep", "mill"], turns=1, trials=200),
                lambda: explore_sim.sweep(MERFOLK, {"lands": [24]}, turns=1, trials=200)):
        result = run()
        assert isinstance(result.meta["seed"], int) and result.meta["seed"] > 2**64
        assert result.summary().attrs["explore_sim"]["seed"] == result.meta["seed"]


# --- reprs ---------------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["explore", "simulate", "compare", "sweep"])
def test_reprs_are_short_and_say_what_ran(every_result, command):
    result = every_result[command]
    text = repr(result)
    assert "0x" not in text and "\n" not in text and len(text) <= 300, text
    assert text.startswith(type(result).__name__ + "(")
    assert "Lost Caverns Merfolk Explore" in text
    assert f"trials={result.meta['trials']}" in text and f"seed={result.meta['seed']}" in text
    for policy in result.meta["policy"]:
        assert policy in text


@pytest.mark.parametrize("command", ["explore", "simulate", "compare", "sweep"])
def test_print_shows_the_table_the_command_line_prints(every_result, command):
    result = every_result[command]
    assert str(result) == result.render()
    assert str(result).count("\n") >= 3 and "\n" not in repr(result)


def test_compare_repr_names_decks_policies_and_turns(two_by_three):
    assert repr(two_by_three) == (
        "CompareResult(decks=['Lost Caverns Merfolk Explore', 'xln_sultai_explore'], "
        "policies=['keep', 'mill', 'forge'], turns=3, trials=3000, seed=11)")


def test_long_names_and_many_policies_keep_the_repr_short():
    deck = explore_sim.deck_from_counts({"Forest": 24, "Grizzly Bears": 36}, name="x" * 500)
    policies = {f"policy number {i} " + "y" * 80: "keep" for i in range(20)}
    result = explore_sim.compare(deck, policies, turns=1, trials=100, seed=1)
    assert len(repr(result)) <= 400 and "more" in repr(result)
    assert len(repr(deck)) <= 300 and "0x" not in repr(deck)


@pytest.mark.parametrize("command", ["explore", "simulate", "compare", "sweep"])
def test_html_reprs_show_the_summary_table(every_result, command):
    html = every_result[command]._repr_html_()
    assert html.startswith("<div>") and "<table" in html and "0x" not in html
    assert "Lost Caverns Merfolk Explore" in html
    metric = "counters"
    assert metric in html


def test_deck_repr_and_html_are_compact():
    deck = explore_sim.load_deck(MERFOLK)
    text = repr(deck)
    assert len(text) <= 300 and "0x" not in text and "Card(" not in text
    assert text.startswith("Deck('Lost Caverns Merfolk Explore', size=60, lands=24")
    assert "filler='Merfolk Cave-Diver'" in text
    html = deck._repr_html_()
    rows = 1 + len(deck.main) + len(deck.sideboard)  # the header, one row per card
    assert "<table" in html and "Cenote Scout" in html and html.count("<tr") == rows


# --- seaborn straight from the summary ---------------------------------------------------

@pytest.mark.slow
def test_seaborn_relplot_straight_from_the_compare_summary(two_by_three):
    sns = pytest.importorskip("seaborn")
    import matplotlib.pyplot as plt

    summary = two_by_three.summary()
    grid = sns.relplot(data=summary[summary["metric"] == "on_curve"], x="turn", y="mean",
                       hue="policy", col="deck", kind="line")
    try:
        assert grid.axes.shape == (1, 2)
        assert [ax.get_title() for ax in grid.axes.flat] == [
            "deck = Lost Caverns Merfolk Explore", "deck = xln_sultai_explore"]
        assert all(len(ax.lines) >= 3 for ax in grid.axes.flat)  # one line per policy
        legend = [t.get_text() for t in grid.legend.get_texts()]
        assert legend == POLICIES
    finally:
        plt.close("all")


# --- one set of defaults ---------------------------------------------------------------------

def test_defaults_agree_across_functions_and_commands():
    import inspect

    from explore_sim.cli.parser import build_parser as _build_parser

    functions = [explore_sim.explore, explore_sim.simulate, explore_sim.compare,
                 explore_sim.sweep]
    for function in functions:
        parameters = inspect.signature(function).parameters
        assert parameters["trials"].default == 100_000, function.__name__
        assert parameters["seed"].default is None, function.__name__
        policy = parameters.get("policy") or parameters["policies"]
        assert policy.default == "forge", function.__name__
    commands = _build_parser()._subparsers._group_actions[0].choices
    for name in ("explore", "simulate", "compare", "sweep"):
        defaults = {a.dest: a.default for a in commands[name]._actions}
        assert defaults["trials"] == 100_000 and defaults["seed"] is None, name
        assert defaults.get("policy", "forge") == "forge", name


def test_a_baseline_that_leaves_nothing_to_difference_is_refused():
    one_deck = explore_sim.compare(MERFOLK, ["keep", "mill"], turns=1, trials=200, seed=1)
    with pytest.raises(OptionError, match="leaves no variant to difference"):
        one_deck.paired_differences(by="policy")
