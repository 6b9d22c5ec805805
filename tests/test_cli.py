"""The command line: documented outputs, reproducibility, one-line errors with status 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import DECKS, ROOT

from explore_sim.cli import main

DECK = str(DECKS / "lci_merfolk_explore.txt")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "explore_sim", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


@pytest.mark.slow
def test_done_when_command_prints_the_documented_json():
    out = run("explore", "merfolk", "--explores", "2", "--drawn", "8",
              "--policy", "keep", "--trials", "200000", "--seed", "1", "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) == {"meta", "rows"}
    metrics = [row["metric"] for row in data["rows"]]
    for metric in ("counters", "lands_to_hand", "nonlands_revealed", "milled", "explores"):
        assert metric in metrics
    assert all(set(row) == {"metric", "mean", "se", "ci_low", "ci_high"} for row in data["rows"])
    meta = data["meta"]
    assert meta["trials"] == 200_000 and meta["seed"] == 1 and meta["policy"] == ["keep"]
    assert meta["deck"][0]["name"] == "Lost Caverns Merfolk Explore"
    assert {"explore_sim", "numpy"} <= set(meta["versions"])
    rows = {row["metric"]: row for row in data["rows"]}
    # 60 cards / 24 lands, explore twice, keep: E[counters] = 2(36/60) + (24/60)(36/59) = 1.44407.
    assert abs(rows["counters"]["mean"] - 1.444068) < 4 * rows["counters"]["se"]
    assert rows["counters"]["ci_low"] < rows["counters"]["mean"] < rows["counters"]["ci_high"]


@pytest.mark.slow
def test_same_seed_is_byte_identical_and_another_seed_differs():
    args = ["explore", DECK, "--explores", "2", "--policy", "forge", "--trials", "70000",
            "--format", "json"]
    first, second = run(*args, "--seed", "7"), run(*args, "--seed", "7")
    other = run(*args, "--seed", "8")
    assert first.returncode == 0
    assert first.stdout == second.stdout
    assert json.loads(first.stdout)["rows"] != json.loads(other.stdout)["rows"]


def test_csv_and_table_formats(capsys):
    assert main(["explore", DECK, "--trials", "1000", "--seed", "1", "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "metric,mean,se,ci_low,ci_high"
    assert lines[1] == "explores,1.0,0.0,1.0,1.0"
    assert main(["explore", DECK, "--trials", "1000", "--seed", "1"]) == 0
    table = capsys.readouterr().out
    assert "counters" in table and "Lost Caverns Merfolk Explore" in table


def test_csv_numbers_are_the_shortest_text_that_reads_back_exactly(capsys):
    import csv
    import io

    import explore_sim

    args = dict(turns=3, trials=3000, seed=1)
    expected = explore_sim.simulate(DECK, **args).summary()
    assert main(["simulate", DECK, "--turns", "3", "--trials", "3000", "--seed", "1",
                 "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == len(expected)
    for row, (_, want) in zip(rows, expected.iterrows()):
        assert row["metric"] == want["metric"] and int(row["turn"]) == want["turn"]
        for column in ("mean", "se", "ci_low", "ci_high"):
            value = float(want[column])
            assert float(row[column]) == value  # reads back exactly
            assert row[column] == repr(value)  # in the shortest form: no 0.64124000000000003
    assert any(len(row["se"]) > 12 for row in rows)  # full precision where it is needed
    assert main(["explore", DECK, "--trials", "1000", "--seed", "1", "--format", "csv",
                 "--distribution", "counters"]) == 0
    lines = capsys.readouterr().out.splitlines()
    value, count, probability = lines[1].split(",")[:3]
    assert value == "0" and count.isdigit() and probability == repr(int(count) / 1000)


def test_distribution_output(capsys):
    assert main(["explore", DECK, "--explores", "2", "--trials", "5000", "--seed", "1",
                 "--format", "csv", "--distribution", "counters"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "value,count,probability,se,ci_low,ci_high"
    assert [line.split(",")[0] for line in lines[1:]] == ["0", "1", "2"]
    assert sum(int(line.split(",")[1]) for line in lines[1:]) == 5000


def test_explorer_known_and_turn_options(capsys):
    assert main(["explore", DECK, "--explorer", "Jadelight Spelunker", "--explores", "3",
                 "--known", "Forest, Cenote Scout", "--turn", "3", "--trials", "1000",
                 "--seed", "2", "--format", "json"]) == 0
    meta = json.loads(capsys.readouterr().out)["meta"]
    assert meta["explorer"] == "Jadelight Spelunker"
    assert meta["known"] == ["Forest", "Cenote Scout"]
    assert meta["library_size"] == 57 and meta["turn"] == 3
    # The title says the known cards are out of the library besides the cards drawn.
    assert main(["explore", DECK, "--explorer", "Jadelight Spelunker", "--explores", "2",
                 "--known", "Forest, Cenote Scout", "--trials", "100", "--seed", "2"]) == 0
    assert capsys.readouterr().out.startswith(
        "explore: 2 explores by Jadelight Spelunker after 8 cards drawn, besides 2 known out of "
        "the library (Forest, Cenote Scout): 49 cards left, turn 2")
    # Copies counted as advise's --hand counts them: "2 Forest" is two cards.
    assert main(["explore", DECK, "--known", "2 Forest, Cenote Scout", "--trials", "100",
                 "--format", "json"]) == 0
    meta = json.loads(capsys.readouterr().out)["meta"]
    assert meta["known"] == ["Forest", "Forest", "Cenote Scout"] and meta["library_size"] == 57
    assert main(["explore", DECK, "--explorer-gone", "--targeted", "--trials", "100"]) == 0
    assert "explorer gone and targeted (nothing happens, E9)" in capsys.readouterr().out
    assert main(["explore", DECK, "--drawn", "10", "--trials", "1000", "--seed", "2",
                 "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["meta"]["turn"] == 4  # 7-card hand, 3 draws


@pytest.mark.slow
def test_an_explorer_outside_the_deck_is_refused_unless_said_so(capsys):
    out = run("explore", DECK, "--explorer", "Jadelight Ranger", "--trials", "100")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == (
        "explore-sim: error: explorer 'Jadelight Ranger' is not in the main deck of 'Lost "
        "Caverns Merfolk Explore'; if it comes from "
        "elsewhere (a token, the sideboard), say so with --explorer-outside\n")
    assert main(["explore", DECK, "--explorer", "Jadelight Ranger", "--explorer-outside",
                 "--trials", "1000", "--seed", "1", "--format", "json"]) == 0
    meta = json.loads(capsys.readouterr().out)["meta"]
    assert meta["explorer"] == "Jadelight Ranger" and meta["explorer_outside"] is True
    assert meta["library_size"] == 60 and meta["explores"] == 2  # no copy left the library
    assert main(["explore", DECK, "--explorer", "Cenote Scout", "--explorer-outside",
                 "--trials", "1000", "--seed", "1", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["meta"]["library_size"] == 60
    import explore_sim

    with pytest.raises(explore_sim.DeckError, match="not in the main deck"):
        explore_sim.explore(DECK, explorer="Jadelight Ranger", trials=100)
    with pytest.raises(explore_sim.OptionError, match="needs the explorer's name"):
        explore_sim.explore(DECK, explorer_outside=True, trials=100)


def test_an_explorer_from_outside_may_come_from_a_card_file(tmp_path, capsys):
    token = tmp_path / "token.toml"
    token.write_text('[[card]]\nname = "Gnome Scout Token"\ntype_line = "Token Creature — '
                     'Gnome Scout"\npower = 1\ntoughness = 1\nexplores = 3\n'
                     'explores_when = "enter"\n')
    args = ["explore", DECK, "--cards", str(token), "--explorer", "Gnome Scout Token",
            "--trials", "1000", "--seed", "1", "--format", "json"]
    assert main(args) == 2
    assert "is not in the main deck" in capsys.readouterr().err
    assert main([*args, "--explorer-outside"]) == 0
    meta = json.loads(capsys.readouterr().out)["meta"]
    assert meta["explorer"] == "Gnome Scout Token" and meta["explores"] == 3
    assert meta["library_size"] == 60


def test_a_card_that_does_not_explore_by_itself_says_its_one_explore_is_assumed(tmp_path,
                                                                                  capsys):
    import explore_sim

    deck = tmp_path / "walkers.txt"
    deck.write_text("20 Forest\n4 Wildgrowth Walker\n4 Jadelight Ranger\n32 Grizzly Bears\n")
    args = ["explore", str(deck), "--trials", "1000", "--seed", "1"]
    for extra, explores, assumed in ((["--explorer", "Wildgrowth Walker"], 1, True),
                                     (["--explorer", "Wildgrowth Walker", "--explores", "1"], 1,
                                      False),
                                     (["--explorer", "Jadelight Ranger"], 2, False),
                                     ([], 1, False)):
        assert main([*args, *extra]) == 0
        title = capsys.readouterr().out.splitlines()[0]
        assert title.endswith("(the card does not explore by itself: one explore assumed, as "
                              "from a Map token)") is assumed
        meta = explore_sim.explore(deck, explorer=extra[1] if extra else None,
                                   explores=1 if "--explores" in extra else None,
                                   trials=100, seed=1).meta
        assert meta["explores"] == explores and meta["explores_assumed"] is assumed
    # A land can explore too (E5), but no Map makes it: the title does not say one does.
    assert main([*args, "--explorer", "Forest"]) == 0
    title = capsys.readouterr().out.splitlines()[0]
    assert "Map token" not in title and "any permanent explore (E5)" in title
    assert explore_sim.explore(deck, explorer="Forest", trials=100,
                               seed=1).meta["explorer_is_creature"] is False


def test_cards_command(capsys):
    assert main(["cards"]) == 0
    assert "Jadelight Ranger" in capsys.readouterr().out
    assert main(["cards", "jadelight", "ranger"]) == 0
    shown = capsys.readouterr().out
    assert "2 (enter)" in shown and "{1}{G}{G}" in shown
    assert main(["cards", "Twists and Turns", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["land"] is False


def test_policies_command(capsys):
    assert main(["policies"]) == 0
    out = capsys.readouterr().out
    assert "forge-experimental" in out and "lands_in_play" in out


@pytest.mark.parametrize(
    "content, args, message",
    [
        ("4 Cenote Scot\n20 Forest\n", [], "unknown card: line 1 'Cenote Scot' (did you mean"),
        ("4 Forest\nfour Cenote Scout\n", [], ":2: malformed line"),
        ("", [], "the main deck is empty"),
        ("40 Forest\n", ["--policy", "mana_value >= "], "policy expression"),
        ("40 Forest\n", ["--policy", "open('x')"], "function calls are not allowed"),
        ("40 Forest\n", ["--trials", "ten"], "expected a whole number"),
        ("40 Forest\n", ["--trials", "1"], "trials must be between"),
        ("40 Forest\n", ["--drawn", "41"], "--drawn: the library has 40 cards, so 41 cannot"),
        ("40 Forest\n", ["--known", "41 Forest"], "--known: no copy of 'Forest' is left"),
        ("4 Jadelight Spelunker\n36 Forest\n", ["--explorer", "Jadelight Spelunker"],
         "--explores: Jadelight Spelunker explores X times"),
        ("40 Forest\n", ["--format", "xml"], "invalid choice"),
        ("40 Forest\n", ["--known", "Island"], "--known: 'Island' is not in the deck"),
        ("40 Forest\n", ["--explorer", "Over the Edge"], "not a permanent"),
        ("40 Forest\n", ["--bogus"], "unrecognized arguments"),
    ],
)
@pytest.mark.slow
def test_bad_input_is_one_line_with_status_2(tmp_path, content, args, message):
    deck = tmp_path / "deck.txt"
    deck.write_text(content)
    out = run("explore", str(deck), "--trials", "100", *args) if "--trials" not in args else \
        run("explore", str(deck), *args)
    assert out.returncode == 2
    assert out.stdout == ""
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert out.stderr.startswith("explore-sim: error: ")
    assert message in out.stderr


@pytest.mark.slow
def test_missing_file_and_unknown_card_name():
    out = run("explore", "no/such/deck.txt")
    assert out.returncode == 2 and "no such decklist file" in out.stderr
    out = run("cards", "Cenote Scot")
    assert out.returncode == 2 and "did you mean 'Cenote Scout'" in out.stderr
    out = run()
    assert out.returncode == 2 and len(out.stderr.splitlines()) == 1


@pytest.mark.slow
def test_deck_warnings_go_to_stderr(tmp_path):
    deck = tmp_path / "deck.txt"
    deck.write_text("20 Forest\n20 Cenote Scout\n\n2 Get Lost\n")
    out = run("explore", str(deck), "--trials", "100", "--seed", "1", "--format", "csv")
    assert out.returncode == 0
    assert out.stderr.startswith("explore-sim: warning: ") and "sideboard" in out.stderr


def test_simulate_command_formats(capsys):
    assert main(["simulate", DECK, "--turns", "3", "--trials", "2000", "--seed", "1",
                 "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "turn,metric,mean,se,ci_low,ci_high"
    assert any(line.startswith("3,on_curve,") for line in lines)
    assert main(["simulate", DECK, "--turns", "3", "--trials", "2000", "--seed", "1",
                 "--format", "json", "--metrics", "counters,on_curve"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {row["metric"] for row in data["rows"]} == {"counters", "on_curve"}
    assert data["meta"]["turns"] == 3 and data["meta"]["mulligan"] == "london"
    assert main(["simulate", DECK, "--turns", "2", "--trials", "2000", "--seed", "1",
                 "--on-draw", "--mulligan", "none", "--removal", "0.2", "--no-maps"]) == 0
    table = capsys.readouterr().out
    assert "on the draw" in table and "turn 2" in table


def test_compare_command(capsys):
    assert main(["compare", DECK, "--policy", "keep", "--policy", "mill", "--turns", "3",
                 "--trials", "3000", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "paired differences to 'keep'" in out and "mill" in out
    assert main(["compare", DECK, str(DECKS / "lci_merfolk_vanilla.txt"), "--turns", "2",
                 "--trials", "2000", "--seed", "2", "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("variant,deck,policy,baseline,turn,metric,mean,se,ci_low,ci_high,"
                        "se_unpaired")
    assert any(",Lost Caverns Merfolk Vanilla Control,forge,Lost Caverns Merfolk Explore," in line
               for line in lines)
    assert main(["compare", DECK, "--policy", "keep", "--policy", "forge", "--turns", "2",
                 "--trials", "2000", "--seed", "2", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"meta", "rows", "differences"} <= set(data)
    assert all("se_unpaired" in row for row in data["differences"])


@pytest.mark.parametrize("args, message", [
    (["simulate", DECK, "--removal", "2"], "removal must be a probability"),
    (["simulate", DECK, "--mulligan", "paris"], "mulligan must be"),
    (["simulate", DECK, "--metrics", "bogus"], "--metrics: unknown bogus"),
    (["simulate", DECK, "--turns", "0"], "turns must be between"),
    (["simulate", DECK, "--cast-first", "Forest"], "is a land"),
    (["simulate", DECK, "--policy", "mana_value >"], "policy expression"),
    (["compare", DECK], "at least two variants"),
    (["compare", DECK, "--policy", "keep", "--policy", "nope nope"], "policy expression"),
])
@pytest.mark.slow
def test_game_command_errors(args, message):
    out = run(*args, "--trials", "100")
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
    assert message in out.stderr


@pytest.mark.parametrize("command", [
    ["explore", DECK, "--explores", "2"],
    ["simulate", DECK, "--turns", "3"],
    ["compare", DECK, "--policy", "keep", "--policy", "mill", "--turns", "3"],
])
@pytest.mark.slow
def test_plot_option_writes_a_figure(tmp_path, command, capsys):
    for suffix in (".png", ".svg"):
        path = tmp_path / f"figure{suffix}"
        assert main([*command, "--trials", "2000", "--seed", "1", "--plot", str(path)]) == 0
        assert path.stat().st_size > 1000
        assert capsys.readouterr().err == f"explore-sim: wrote {path}\n"
    assert main([*command, "--trials", "200", "--plot", str(tmp_path / "f.gif")]) == 2
    assert "--plot" in capsys.readouterr().err


@pytest.mark.slow
def test_no_progress_bar_when_not_a_terminal():
    out = run("simulate", DECK, "--turns", "2", "--trials", "70000", "--seed", "1")
    assert out.returncode == 0 and out.stderr == ""


@pytest.fixture
def drawn_figures(monkeypatch):
    """The figures ``--plot`` writes, kept for inspection."""
    from matplotlib.figure import Figure

    figures = []
    save = Figure.savefig

    def keep(figure, *args, **kwargs):
        figures.append(figure)
        return save(figure, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", keep)
    return figures


def panel_titles(figure):
    return [ax.get_title() for ax in figure.axes if ax.get_visible()]


@pytest.mark.slow
def test_plot_draws_every_requested_metric_titled_with_what_ran(tmp_path, capsys,
                                                               drawn_figures):
    path = tmp_path / "games.png"
    assert main(["simulate", DECK, "--turns", "3", "--trials", "2000", "--seed", "1",
                 "--metrics", "on_curve,counters,mana_spent", "--plot", str(path)]) == 0
    (figure,) = drawn_figures
    assert panel_titles(figure) == ["on_curve", "counters", "mana_spent"]
    assert figure._suptitle.get_text().replace("\n", " ") == (
        "Lost Caverns Merfolk Explore · policy: forge · 3 turns on the play · 2,000 trials, "
        "seed 1")
    assert main(["compare", DECK, "--policy", "keep", "--policy", "mill", "--turns", "3",
                 "--trials", "2000", "--seed", "1", "--metrics", "lands_played,milled",
                 "--plot", str(tmp_path / "versus.png")]) == 0
    figure = drawn_figures[1]
    assert panel_titles(figure) == ["lands_played", "lands_played: paired difference",
                                    "milled", "milled: paired difference"]
    title = figure._suptitle.get_text().replace("\n", " ")
    assert "policies: keep, mill" in title and "2,000 trials" in title
    colours = [{line.get_label(): line.get_color() for line in ax.lines
                if not line.get_label().startswith("_")} for ax in figure.axes[::2]]
    assert colours[0] == colours[1] and colours[0]["keep"] != colours[0]["mill"]
    assert [t.get_text() for t in figure.legends[0].get_texts()] == ["keep", "mill"]
    assert main(["simulate", DECK, "--turns", "3", "--trials", "2000", "--seed", "1",
                 "--plot", str(tmp_path / "default.png")]) == 0
    assert len(panel_titles(drawn_figures[2])) == 11  # the metrics the table shows
    capsys.readouterr()


@pytest.mark.slow
def test_simulate_distribution_of_a_metric_at_a_turn(capsys, tmp_path, drawn_figures):
    import explore_sim

    args = ["simulate", DECK, "--turns", "4", "--trials", "3000", "--seed", "2"]
    expected = explore_sim.simulate(DECK, turns=4, trials=3000, seed=2)
    assert main([*args, "--distribution", "counters", "--turn", "3", "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "value,count,probability,se,ci_low,ci_high"
    want = expected.distribution("counters", turn=3)
    assert [int(line.split(",")[1]) for line in lines[1:]] == want["count"].tolist()
    assert main([*args, "--distribution", "lands_played"]) == 0  # the last turn by default
    out = capsys.readouterr().out
    assert out.startswith("simulate: distribution of lands_played at the end of turn 4\n")
    assert main([*args, "--distribution", "mulligans", "--turn", "0", "--format", "json",
                 "--plot", str(tmp_path / "mulligans.png")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sum(row["count"] for row in data["rows"]) == 3000
    assert data["meta"]["turns"] == 4
    assert drawn_figures[0].axes[0].get_title() == "distribution of mulligans in the opening hand"
    with pytest.raises(explore_sim.OptionError, match=r"distribution: unknown bogus"):
        expected.distribution("bogus", turn=2)  # the same checks in Python, not a KeyError
    with pytest.raises(explore_sim.OptionError, match=r"turn must be between 0 .* and 4"):
        expected.distribution("counters", turn=5)


@pytest.mark.parametrize("args, message", [
    (["--distribution", "countres"], "--distribution: unknown countres (did you mean 'counters'"),
    (["--distribution", "counters", "--turn", "7"], "--turn: must be between 0 (the opening "
                                                    "hand) and 4 (--turns), got 7"),
    (["--distribution", "counters", "--turn", "0"], "counters is counted on turns 1 to 4"),
    (["--distribution", "opening_lands", "--turn", "2"], "opening_lands describes the opening"),
    (["--turn", "2"], "--turn goes with --distribution METRIC"),
])
@pytest.mark.slow
def test_simulate_distribution_is_checked_before_the_games(args, message):
    out = run("simulate", DECK, "--turns", "4", "--trials", "100000000", *args)
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.splitlines()) == 1 and message in out.stderr, out.stderr


@pytest.mark.parametrize("command", ["curve", "advise", "tune"])
def test_commands_that_draw_no_figure_take_no_plot(command, capsys):
    """--plot is offered only where a figure is drawn: not in the help of curve, advise and
    tune, and refused there in one line with status 2."""
    with pytest.raises(SystemExit) as shown:
        main([command, "--help"])
    assert shown.value.code == 0
    assert "--plot" not in capsys.readouterr().out
    required = ["--turn", "3", "--revealed", "Island"] if command == "advise" else []
    assert main([command, DECK, *required, "--plot", "figure.png"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.endswith("unrecognized arguments: --plot figure.png")
    assert "\n" not in error


@pytest.mark.parametrize("command", ["value", "simulate", "compare", "explore", "sweep"])
def test_commands_that_draw_a_figure_offer_plot(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert "--plot FILE" in capsys.readouterr().out


class _Terminal:
    """Standard error as a terminal (``isatty``), its text kept."""

    def __init__(self):
        self.text = ""

    def write(self, text):
        self.text += text

    def flush(self):
        pass

    def isatty(self):
        return True


def test_the_first_compilation_is_announced_on_a_terminal_and_in_a_log(monkeypatch, capsys):
    """Even with --quiet, a terminal is told why the first game waits (numba announces that
    it compiles the kernel), and so is a pipe or a file (a log read later); a kernel loaded
    from the cache is not announced."""
    import logging

    from conftest import game_compile_event

    import explore_sim.engine.kernel as kernel

    player = kernel._play_chunk

    def compiling_player(*args):  # what numba does when its cache misses
        with game_compile_event():
            pass
        return player(*args)

    notices = logging.getLogger("explore_sim.notices")
    argv = ["simulate", DECK, "--turns", "2", "--trials", "200", "--seed", "1", "--quiet"]
    notice = "explore-sim: compiling the game kernel (once per installation"
    try:
        for compiles, terminal, said in ((True, True, True), (True, False, True),
                                         (False, True, False)):
            stream = _Terminal()
            with monkeypatch.context() as patch:
                patch.setattr(kernel, "_SAID", [])
                if compiles:
                    patch.setattr(kernel, "_play_chunk", compiling_player)
                if terminal:
                    patch.setattr(sys, "stderr", stream)
                assert main(argv) == 0
            text = stream.text if terminal else capsys.readouterr().err
            assert (notice in text) == said, (compiles, terminal, text)
            assert len(text.splitlines()) == (1 if said else 0)
    finally:  # the command line's handler, left on the logger by main()
        notices.handlers.clear()
        notices.propagate = True


@pytest.mark.parametrize("command", [["simulate", "golgari"],
                                     ["compare", "golgari", "--policy", "keep",
                                      "--policy", "forge"]])
def test_castable_names_a_card_of_the_deck_s_own_card_file(command, capsys):
    """Carnage Tyrant is known from golgari's own card file (golgari_explore.cards.toml), as
    sweep, curve and Python already read it."""
    assert main([*command, "--castable", "Carnage Tyrant", "--turns", "2", "--trials", "300",
                 "--seed", "1", "--format", "csv"]) == 0
    assert "castable:Carnage Tyrant" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["simulate", "merfolk", "--turns", "-1"], "turns must be between 1 and 50, got -1"),
    (["simulate", "merfolk", "--turns", "0"], "turns must be between 1 and 50, got 0"),
    (["simulate", "merfolk", "--trials", "-5"], "trials must be between 2 and 10,000,000,000, "
                                                "got -5"),
    (["value", "merfolk", "--turn", "-1"], "turn must be a whole number from 1 to 50, got -1"),
    (["simulate", "merfolk", "--turns", "1.5"], "argument --turns: expected a whole number, got "
                                                "'1.5'"),
])
def test_a_value_out_of_range_gets_one_message_whichever_side_it_falls(capsys, argv, message):
    """A negative number reaches the function's own range check, so -1 and 0 are told the
    same range (not "a whole number >= 0" for one of them)."""
    assert main([*argv, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.strip().endswith(message) and err.count("\n") == 1


@pytest.mark.parametrize("argv, message", [
    (["simulate", "merfolk", "--cast-first", "Cenote Scot"],
     "explore-sim: error: --cast-first: 'Cenote Scot' is not in the deck (did you mean 'Cenote "
     "Scout'?)"),
    (["value", "merfolk", "--card", "Cenote Scout", "--max-lands", "99"],
     "explore-sim: error: --max-lands must be a whole number from 1 to 60, got 99"),
    (["simulate", "merfolk", "--trials", "-5"],
     "explore-sim: error: --trials must be between 2 and 10,000,000,000, got -5"),
    (["simulate", "merfolk", "--removal", "2"],
     "explore-sim: error: --removal must be a probability between 0 and 1, got 2.0"),
    # a message naming an option both ways keeps the flag only
    (["explore", "merfolk", "--explorer", "Grizzly Bears"],
     "explore-sim: error: explorer 'Grizzly Bears' is not in the main deck of 'Lost Caverns "
     "Merfolk Explore'; if it comes from elsewhere (a token, the sideboard), say so with "
     "--explorer-outside"),
    (["advise", "merfolk", "--turn", "3", "--battlefield", "Forest, Island, Forest, Jadelight "
      "Spelunker", "--hand", "Cenote Scout", "--revealed", "Deepfathom Echo",
      "--explores-left", "3"],
     "explore-sim: error: --battlefield: your sources cannot have paid Jadelight Spelunker's "
     "{X}{G} with X = 3 this turn; list the lands that cast it, or say it was already in play "
     "(--explorer-in-play)"),
])
def test_an_error_names_the_option_by_its_flag_not_the_python_keyword(capsys, argv, message):
    """The functions' checks name their keywords (``cast_order``, ``max_lands``); on the
    command line the same error names the option typed (``--cast-first``, ``--max-lands``)."""
    assert main([*argv, "--quiet"]) == 2
    assert capsys.readouterr().err == message + "\n"


def test_an_unknown_card_shown_points_to_card_files(capsys):
    """A card only a deck's card file holds is not in the catalog ``cards NAME`` reads: the
    error says how to show it."""
    assert main(["cards", "Ravenous Chupacabra"]) == 2
    assert capsys.readouterr().err == ("explore-sim: error: unknown card 'Ravenous Chupacabra'; a "
                                       "card of a card file is shown with --cards FILE\n")
    assert main(["cards", "Cenote Scot"]) == 2
    assert "did you mean 'Cenote Scout'" in capsys.readouterr().err


@pytest.mark.parametrize("args, status, shown", [
    (["decks"], 0, "merfolk"),
    (["--help"], 0, "usage"),
    (["value", "/nonexistent.txt"], 2, "no such decklist file"),
])
def test_the_command_ends_after_its_exit_handlers_with_its_status(tmp_path, args, status, shown):
    """``explore-sim`` skips the interpreter's teardown, not the exit handlers (pools, logs,
    temporary files), and flushes its output first."""
    marker = tmp_path / "handler-ran"
    script = (f"import atexit, sys\n"
              f"atexit.register(lambda: open({str(marker)!r}, 'w').write('yes'))\n"
              f"sys.argv = ['explore-sim', *{args!r}]\n"
              f"from explore_sim.cli import run\n"
              f"run()\n"
              f"raise AssertionError('run() returned')\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert out.returncode == status, out.stderr
    assert shown in out.stdout + out.stderr
    assert marker.read_text() == "yes"
    assert "Traceback" not in out.stderr


def test_a_profiled_command_exits_the_usual_way_and_its_profile_is_written(tmp_path):
    profile = tmp_path / "decks.prof"
    out = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(profile), "-m",
                          "explore_sim", "decks"], capture_output=True, text=True, cwd=ROOT,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "merfolk" in out.stdout and profile.stat().st_size > 0


def test_every_deck_argument_says_a_shipped_deck_name_will_do():
    """A command's deck argument takes a decklist file or a shipped deck's name: its help
    names both, and every shipped deck."""
    import argparse

    from explore_sim.cards.shipped import shipped_deck_files
    from explore_sim.cli.parser import build_parser

    commands = next(action for action in build_parser()._actions
                    if isinstance(action, argparse._SubParsersAction))
    seen = 0
    for name, command in commands.choices.items():
        for action in command._actions:
            if action.dest in ("deck", "decks") and not action.option_strings:
                seen += 1
                assert action.help.startswith("decklist file"), name
                assert f": {', '.join(shipped_deck_files())}" in action.help, name
    assert seen >= 10
