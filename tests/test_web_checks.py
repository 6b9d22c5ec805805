"""What the web page refuses before a run is queued: options a run would fail on (an unknown
explorer, known card or card to cast first, more cards drawn than the library has) come back
beside their field with status 400 and take no queue place; a server whose card directory or
shipped decks cannot be read does not start; the server's paths are shortened in messages."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("multipart")

from conftest import DECKS  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from web_helpers import deck_text, job_of, wait_for  # noqa: E402

from explore_sim.errors import CardError  # noqa: E402
from explore_sim.web import Settings, create_app  # noqa: E402

SULTAI = deck_text("xln_sultai_explore.txt")
SMALL = "24 Forest\n36 Grizzly Bears"


def field_error(html: str, name: str) -> str:
    match = re.search(rf'name="{name}".*?<p class="field-error"[^>]*>(.*?)</p>', html,
                      flags=re.S)
    assert match, f"no error beside {name}"
    return unescape(match.group(1))


@pytest.fixture
def client():
    with TestClient(create_app(Settings()), raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize("analysis, deck, fields, name, message", [
    ("explore", SULTAI, {"explorer": "Jadelight Rangr"}, "explorer",
     "unknown explorer 'Jadelight Rangr' (did you mean 'Jadelight Ranger'?)"),
    ("explore", SULTAI, {"explorer": "Grizzly Bears"}, "explorer",
     "explorer 'Grizzly Bears' is not in the main deck of 'xln_sultai_explore'"),
    ("explore", SULTAI, {"known": "Forest, Jadelight Rangr"}, "known",
     "known cards: 'Jadelight Rangr' is not in the deck 'xln_sultai_explore' (did you mean "
     "'Jadelight Ranger'?)"),
    ("explore", SMALL, {"known": "Forest, " * 25 + "Forest"}, "known",
     "known cards: no copy of 'Forest' is left in the deck to remove (the deck has 24)"),
    ("explore", SMALL, {"drawn": "61"}, "drawn",
     "cards drawn: the library has 60 cards, so 61 cannot be drawn"),
    ("explore", SULTAI, {"explorer": "Jadelight Ranger", "drawn": "60"}, "drawn",
     "cards drawn: the library has 59 cards, so 60 cannot be drawn"),
    ("simulate", SULTAI, {"cast_first": "Jadelight Ranger\nJadelight Rangr"}, "cast_first",
     "cast first: 'Jadelight Rangr' is not in the deck (did you mean 'Jadelight Ranger'?)"),
    ("simulate", SULTAI, {"cast_first": "Forest"}, "cast_first",
     "cast first: 'Forest' is a land, not a spell"),
    ("simulate", SULTAI, {"castable": "Forest"}, "castable",
     "castable: 'Forest' is a land; name a spell"),
    ("compare", SULTAI, {"castable": "Island", "deck2": SMALL, "policies": "keep"}, "castable",
     "castable: 'Island' is a land; name a spell"),
    ("simulate", SULTAI, {"castable": "Jadelight Rangr"}, "castable",
     "castable: unknown card 'Jadelight Rangr' (did you mean 'Jadelight Ranger'?)"),
    ("compare", SULTAI, {"cast_first": "Jadelight Ranger", "deck2": SMALL,
                         "policies": "keep"}, "cast_first",
     "cast first: 'Jadelight Ranger' is not in the second deck"),
])
def test_what_a_run_would_fail_on_is_refused_beside_its_field(client, analysis, deck, fields,
                                                              name, message):
    response = client.post("/", data={"action": "run", "analysis": analysis, "deck": deck,
                                      "trials": "1000", **fields}, follow_redirects=False)
    assert response.status_code == 400, response.text[:300]
    assert field_error(response.text, name) == message
    assert "--explorer-outside" not in response.text
    assert not client.app.state.web.jobs._jobs  # no queue place taken


@pytest.mark.slow
def test_the_same_fields_run_when_they_are_right(client):
    for analysis, fields in (("explore", {"explorer": "Jadelight Ranger", "known": "Forest",
                                          "drawn": "58"}),
                             ("simulate", {"cast_first": "Jadelight Ranger"})):
        response = client.post("/", data={"action": "run", "analysis": analysis,
                                          "deck": SULTAI, "trials": "500", **fields},
                               follow_redirects=False)
        assert wait_for(job_of(client, response)).state == "done", analysis


def _decks_with_a_fifo(tmp_path: Path) -> Path:
    decks = tmp_path / "decks"
    decks.mkdir()
    (decks / "brew.txt").write_text(SMALL, encoding="utf-8")
    os.mkfifo(decks / "brew.cards.toml")  # nobody ever writes to it
    return decks


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.slow
def test_a_fifo_beside_a_deck_is_named_not_skipped(tmp_path):
    decks = _decks_with_a_fifo(tmp_path)
    with pytest.raises(CardError, match=r"brew\.cards\.toml: is a FIFO \(named pipe\), not a "
                                        r"card file"):
        create_app(Settings(decks_dir=decks))
    for argv in (["serve", "--port", "0", "--decks", str(decks)],
                 ["explore", str(decks / "brew.txt"), "--trials", "100"]):
        done = subprocess.run([sys.executable, "-m", "explore_sim", *argv], capture_output=True,
                              text=True, timeout=120, stdin=subprocess.DEVNULL)
        assert done.returncode == 2, (argv, done.stderr)
        assert done.stderr.count("\n") == 1 and "is a FIFO (named pipe)" in done.stderr, argv
        assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_a_card_directory_that_is_none_stops_the_server(tmp_path, monkeypatch):
    with pytest.raises(CardError, match="/dev/zero: not a directory"):
        create_app(Settings(cards_dir=Path("/dev/zero")))
    monkeypatch.setenv("EXPLORE_SIM_CARDS_DIR", "/dev/zero")
    with pytest.raises(CardError, match="not a directory"):
        create_app(Settings())
    monkeypatch.delenv("EXPLORE_SIM_CARDS_DIR")
    done = subprocess.run([sys.executable, "-m", "explore_sim", "serve", "--port", "0",
                           "--cards-dir", "/dev/zero"], capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stderr == "explore-sim: error: --cards-dir: /dev/zero is not a directory\n"
    index_dir = tmp_path / "cards"
    index_dir.mkdir()
    (index_dir / "cards.sqlite").symlink_to("/dev/zero")
    with pytest.raises(CardError, match="is a device, not a card index"):
        create_app(Settings(cards_dir=index_dir))


def test_the_servers_paths_are_shortened_in_messages(tmp_path):
    decks = tmp_path / "decks"
    decks.mkdir()
    (decks / "brew.txt").write_text(SMALL, encoding="utf-8")
    (decks / "brew.cards.toml").write_text('[[card]]\nname = "Brew"\ntype_line = "Creature"\n'
                                           'explores = "two"\n', encoding="utf-8")
    with TestClient(create_app(Settings(decks_dir=decks))) as client:
        response = client.post("/", data={"action": "run", "analysis": "explore",
                                          "deck": SMALL, "base": "brew"})
        assert response.status_code == 400
        text = unescape(response.text)
        assert "decks/brew.cards.toml:1:" in text and str(tmp_path) not in text


@pytest.mark.slow
def test_shipped_decks_still_read_their_card_files(client):
    response = client.post("/", data={"action": "run", "analysis": "simulate",
                                      "deck": deck_text("golgari_explore.txt"),
                                      "trials": "200"}, follow_redirects=False)
    assert wait_for(job_of(client, response)).state == "done"
    assert (DECKS / "golgari_explore.cards.toml").is_file()


@pytest.mark.slow
def test_a_pasted_deck_starting_with_a_byte_order_mark_runs_as_the_command_line_reads_it(
        client):
    """A list copied from a file saved with a byte-order mark keeps it at its start."""
    response = client.post("/", data={"action": "run", "analysis": "simulate",
                                      "deck": "\ufeff" + SMALL, "trials": "500", "seed": "3",
                                      "turns": "2"}, follow_redirects=False)
    job = wait_for(job_of(client, response))
    assert job.state == "done", job.error
    assert job.context["options"]["seed"] == 3


@pytest.mark.slow
def test_a_seed_of_129_bits_runs_and_one_of_41_digits_says_so(client):
    seed = 2**128 + 1
    response = client.post("/", data={"action": "run", "analysis": "explore", "deck": SULTAI,
                                      "trials": "500", "seed": str(seed)},
                           follow_redirects=False)
    job = wait_for(job_of(client, response))
    assert job.state == "done", job.error
    assert job.context["options"]["seed"] == seed
    refused = client.post("/", data={"action": "run", "analysis": "explore", "deck": SULTAI,
                                     "trials": "500", "seed": "9" * 41})
    assert refused.status_code == 400
    assert field_error(refused.text, "seed") == ("seed: expected a whole number of at most 40 "
                                                 f"digits, got '{'9' * 41}'")


def test_a_small_standard_error_is_not_rounded_to_zero_in_the_sentences():
    """The result sentences give a probability's se in percent with one decimal, and a
    standard error below that with two significant digits: never "se 0.0%"."""
    import pandas as pd

    from explore_sim.web.answers import _said

    row = pd.Series({"mean": 0.103, "se": 0.0003, "ci_low": 0.1024, "ci_high": 0.1036})
    assert _said("on_curve", row) == "is on curve in 10.3% of games (se 0.03%, 10.2% to 10.4%)"
    row = pd.Series({"mean": 0.612, "se": 0.011, "ci_low": 0.590, "ci_high": 0.634})
    assert _said("on_curve", row) == "is on curve in 61.2% of games (se 1.1%, 59.0% to 63.4%)"
    row = pd.Series({"mean": 5.25, "se": 0.0002, "ci_low": 5.2496, "ci_high": 5.2504})
    assert "(se 0.0002, 5.250 to 5.250)" in _said("counters", row)
