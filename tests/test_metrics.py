"""The metrics catalogue (explore_sim/engine/metrics.py): defined once, it is what the engine
records, what ``explore-sim metrics`` prints, what the help texts and the plots' labels say,
and the table of the documentation's metrics page (docs/guide/metrics.md)."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from conftest import DECKS, ROOT

import explore_sim
from explore_sim.cli import main
from explore_sim.cli.metrics import metrics_text
from explore_sim.engine import metrics
from explore_sim.engine.metrics import (
    CASTABLE_PREFIX,
    CATALOGUE,
    KINDS,
    SCOPES,
    catalogue,
)
from explore_sim.plotting import metric_label

DECK = str(DECKS / "lci_merfolk_explore.txt")
PAGE = ROOT / "docs" / "guide" / "metrics.md"


def names(scope: str) -> list[str]:
    return [m.name for m in catalogue(scope) if not m.name.startswith(CASTABLE_PREFIX)]


def test_each_metric_is_defined_once_with_a_meaning_unit_and_kind():
    keys = [(m.scope, m.name) for m in CATALOGUE]
    assert len(keys) == len(set(keys)), "a metric is defined twice in one scope"
    for m in CATALOGUE:
        assert m.scope in SCOPES and m.kind in KINDS, m
        assert m.meaning and m.unit and m.label, m
        assert not m.main_phase or (m.scope == "turn" and m.kind == "state"), m
    for name in {m.name for m in CATALOGUE}:  # one label per name, whatever the scope
        assert len({m.label for m in CATALOGUE if m.name == name}) == 1, name


def test_the_engine_tables_are_read_from_the_catalogue():
    assert list(metrics.TURN_METRICS) == names("turn")
    assert list(metrics.OPENING_METRICS) == names("opening")
    assert metrics.TURN_METRICS["on_curve"] is True and metrics.TURN_METRICS["counters"] is False
    assert set(metrics.STATE_METRICS) == {m.name for m in catalogue("turn") if m.kind == "state"
                                          and not m.name.startswith(CASTABLE_PREFIX)}
    assert set(metrics.EVENT_METRICS) == {m.name for m in catalogue("turn") if m.kind == "event"}
    assert metrics.MAIN_PHASE_METRICS == ("mana_available", "colour_screwed")
    assert list(explore_sim.analysis.explore.EXPLORE_METRICS) == names("explore")
    with pytest.raises(ValueError, match="scope"):
        catalogue("everywhere")


def test_the_games_report_exactly_the_catalogued_metrics():
    explored = explore_sim.explore(DECK, explores=2, trials=500, seed=1).summary()
    assert list(explored["metric"]) == names("explore")
    games = explore_sim.simulate(DECK, turns=3, trials=500, seed=1).summary()
    assert list(games[games["turn"] == 0]["metric"]) == names("opening")
    assert list(games[games["turn"] == 3]["metric"]) == names("turn")


def test_event_metrics_never_go_down_from_turn_to_turn():
    """An event metric counts what happened since the start of the game, so in every game
    it never decreases; a state metric (lands in play, cards in hand) may."""

    games = explore_sim.simulate(DECK, turns=5, trials=2_000, seed=3, removal=0.3).summary()
    means = games[games["turn"] > 0].pivot(index="turn", columns="metric", values="mean")
    for m in catalogue("turn"):
        if m.kind == "event" and m.name in means:
            assert means[m.name].is_monotonic_increasing, m.name
    assert not means["hand_size"].is_monotonic_increasing  # a state metric goes down


def test_metrics_command_prints_the_catalogue(capsys):
    assert main(["metrics"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["metric", "scope", "kind", "unit", "meaning"]
    assert len(table) == 1 + len(CATALOGUE)
    assert table[1].split()[:4] == ["explores", "explore", "event", "explores"]
    assert all(line == line.rstrip() for line in table)
    assert any(line.startswith("castable:CARD ") for line in table)


@pytest.mark.parametrize("fmt", ["csv", "json", "markdown"])
def test_metrics_command_formats(fmt, capsys):
    assert main(["metrics", "--format", fmt, "--scope", "turn"]) == 0
    out = capsys.readouterr().out
    turn = catalogue("turn")
    if fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(out)))
    elif fmt == "json":
        rows = json.loads(out)
    else:
        lines = out.splitlines()[2:]
        rows = [dict(zip(["metric", "scope", "kind", "unit", "meaning"],
                         [cell.strip().strip("`") for cell in line.strip("|").split(" | ")]))
                for line in lines]
    assert [row["metric"] for row in rows] == [m.name for m in turn]
    assert [(row["kind"], row["unit"], row["meaning"]) for row in rows] == [
        (m.kind, m.unit, m.meaning) for m in turn]


def test_metrics_command_refuses_a_bad_scope_in_one_line(capsys):
    assert main(["metrics", "--scope", "everywhere"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--scope" in err and "Traceback" not in err


def test_the_docs_page_shows_the_catalogue():
    page = PAGE.read_text(encoding="utf-8")
    table = metrics_text("markdown")
    assert table in page, ("docs/guide/metrics.md: its table is not the catalogue; paste "
                           "`explore-sim metrics --format markdown` into it")
    for m in CATALOGUE:
        assert f"| `{m.name}` | {m.scope} | {m.kind} | {m.unit} | {m.meaning} |" in page


def test_the_help_lists_the_metrics(capsys):
    for command, scope in (("simulate", "turn"), ("compare", "turn"), ("sweep", "turn"),
                           ("value", "turn"), ("explore", "explore")):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        usage = re.sub(r"\s+", " ", capsys.readouterr().out)
        for m in catalogue(scope):
            if command == "value" and m.name.startswith("castable:"):
                assert m.name not in usage  # value takes no --castable
                continue
            assert m.name in usage, (command, m.name)
        assert f"explore-sim metrics --scope {scope}" in usage


def test_plot_labels_come_from_the_catalogue():
    for m in CATALOGUE:
        assert metric_label(m.name) == m.label
    assert metric_label("on_curve") == "P(on curve: lands ≥ turn)"
    assert metric_label("not_a_metric") == "not a metric"
