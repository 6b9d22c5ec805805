"""Hostile and careless inputs: every input path is bounded in time, memory and reach.

One section per kind of input: line patterns, special files, ``cards update`` against a
local server, numbers, close-name suggestions, plots, workers, malformed records and files,
silent acceptance, and messages. Every case runs under a short time limit (pytest-timeout: a
pattern that backtracks on 100 KB of text never ends within it) and no case asserts how long
anything took: work is bounded by counts instead (bytes served, names looked up, games
played); cases that used to eat memory run the command in a process whose address space is
capped. Command-line cases check exit status 2, one line on standard error starting
``explore-sim: error:`` and no traceback.
"""

from __future__ import annotations

import gc
import gzip
import http.server
import json
import os
import random
import re
import resource
import sqlite3
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import DECKS, ROOT, TESTS

from explore_sim.analysis.runner import available_cores, check_workers
from explore_sim.cards import Card, CardSources, Catalog, FeatureTable, parse_deck
from explore_sim.cards.card import normalize_name
from explore_sim.cards.card_files import load_card_file
from explore_sim.cards.card_index import import_cards, index_path
from explore_sim.cards.decklist import load_deck
from explore_sim.cards.decklists.lines import (
    card_line as _card_line,
    section_of as _section_of,
    words as _words,
)
from explore_sim.cards.oracle import abilities_from_text
from explore_sim.cards.update import DOWNLOAD_NAME, update_cards
from explore_sim.cli import BROKEN_PIPE_STATUS, main
from explore_sim.errors import CardError, DeckError, OptionError, OptionWarning, printable
from explore_sim.plotting import plot_distribution

#: Every case here is bounded in time; the slow ones set a limit of their own.
pytestmark = pytest.mark.timeout(30)

FIXTURES = TESTS / "fixtures" / "cards"
SCRYFALL = FIXTURES / "scryfall_oracle.json"
ORACLE = SCRYFALL.read_bytes()
DECK = str(DECKS / "lci_merfolk_explore.txt")
#: Address space of a command run with a memory cap (a normal run needs about 300 MB).
MEMORY_CAP = 700 << 20


# ------------------------------------------------------------------------------------------
# Helpers


def cli(*args: str, timeout: float = 30, memory: int | None = MEMORY_CAP,
        close_stdout: bool = False, **popen) -> subprocess.CompletedProcess:
    """Run ``explore-sim`` in a fresh process with a time limit and an address-space cap."""

    def limit() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        if close_stdout:
            os.close(1)

    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    popen.setdefault("capture_output", True)
    return subprocess.run([sys.executable, "-m", "explore_sim", *args], text=True, cwd=ROOT,
                          timeout=timeout, preexec_fn=limit, env=env, **popen)


def assert_one_line_error(status: int, err: str, *fragments: str) -> None:
    """Exit status 2, one stderr line ``explore-sim: error: ...`` naming every fragment."""
    assert status == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("explore-sim: error: "), err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def run_main(capsys, *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def scryfall_card(name: str, **fields) -> dict:
    card = {"object": "card", "name": name, "layout": "normal", "cmc": 2.0, "keywords": [],
            "set": "tst", "collector_number": "1", "mana_cost": "{1}{G}",
            "type_line": "Creature — Bear", "oracle_text": "", "power": "2", "toughness": "2"}
    card.update(fields)
    return card


def scryfall_file(path: Path, *cards: dict) -> Path:
    return write(path, json.dumps([scryfall_card("Fixture Bear"), *cards]))


@pytest.fixture
def read_only_dir(tmp_path):
    """A directory nothing can be written to (chmod 555, or /sys for the superuser)."""
    if os.geteuid() != 0:
        folder = tmp_path / "locked"
        folder.mkdir()
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return
    candidate = Path("/sys")
    try:
        (candidate / "explore-sim-probe").touch()
    except OSError:
        yield candidate
        return
    pytest.skip("no read-only directory available to the superuser")


# ------------------------------------------------------------------------------------------
# 1. Line patterns are linear; lines are capped


HOSTILE_LINES = {
    "sideboard and 220 spaces": "24 Forest\nSideboard" + " " * 220 + "x",
    "400 tabs": "24 Forest\n" + "\t" * 400 + "x" + "\t" * 400 + "\nSideboard" + "\t" * 400 + "x",
    "100 KB card line": "24 Forest\n4 " + "ab " * 33_000 + "!",
    "100 KB of markers": "24 Forest\n4 a" + " #a" * 33_000,
    "100 KB of brackets": "24 Forest\n4 a " + "[" * 100_000,
}


@pytest.mark.timeout(10)
@pytest.mark.parametrize("case", list(HOSTILE_LINES))
@pytest.mark.parametrize("fmt", ["auto", "arena", "mtgo", "moxfield", "archidekt", "text"])
def test_hostile_decklist_lines_finish_at_once(case, fmt):
    with pytest.raises(DeckError):
        parse_deck(HOSTILE_LINES[case], format=fmt, source="deck.txt")


@pytest.mark.timeout(10)
@pytest.mark.parametrize("line", [
    "4 a" + " " * 100_000 + "b",
    "Sideboard" + " " * 100_000 + "x",
    "4" + "\t" * 100_000 + "x" + "\t" * 100_000,
    "4 a" + " (ab)" * 20_000 + " !",
    "4 a" + " ^x" * 50_000,
    "4 a" + " #a]" * 25_000,
    "4 a" + " [x]" * 25_000,
    "SB: " * 25_000,
])
def test_line_patterns_are_linear_even_past_the_cap(line):
    _card_line(_words(line)), _section_of(line), normalize_name(line)


@pytest.mark.timeout(10)
def test_long_lines_name_the_file_and_line(tmp_path):
    deck = write(tmp_path / "deck.txt", "24 Forest\n4 " + "x" * 2000 + "\n")
    with pytest.raises(DeckError, match=r"deck\.txt:2: line too long "
                                        r"\(2,002 characters, at most 1,000\)"):
        load_deck(deck)
    cards = write(tmp_path / "mine.toml", '[[card]]\nname = "' + "x" * 100_000 + '"\n')
    with pytest.raises(CardError, match=r"mine\.toml:2: line too long"):
        load_card_file(cards)
    rows = write(tmp_path / "mine.csv", "name,mana_cost,type_line\n" + "x" * 100_000 + ",,Land\n")
    with pytest.raises(CardError, match=r"mine\.csv:2: line too long"):
        load_card_file(rows)


@pytest.mark.timeout(10)
def test_oracle_text_is_capped_and_read_in_linear_time():
    with pytest.raises(CardError, match="oracle text is too long"):
        abilities_from_text("X", "explores " * 20_000)
    for text in ("(" * 9_000, "when ~ enters, " * 600, "explores " * 1_100, " (" * 4_000 + ")"):
        abilities_from_text("X", text)


# ------------------------------------------------------------------------------------------
# 2. Special files: regular files only, bytes capped


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe.txt"
    os.mkfifo(path)
    return path


SPECIAL = ["/dev/zero", "/dev/urandom", "fifo", "fifo with a writer", "directory"]


def special_path(kind: str, fifo: Path, tmp_path: Path,
                 suffix: str) -> tuple[str, subprocess.Popen | None]:
    """A path of the given kind ending in ``suffix`` (a symlink for the devices)."""
    if kind == "directory":
        folder = tmp_path / f"folder{suffix}"
        folder.mkdir()
        return str(folder), None
    if kind.startswith("fifo"):
        target = fifo.rename(tmp_path / f"pipe{suffix}")
        writer = None
        if kind == "fifo with a writer":
            writer = subprocess.Popen(["sh", "-c", f"exec yes > '{target}'"],
                                      stderr=subprocess.DEVNULL)
        return str(target), writer
    link = tmp_path / f"device{suffix}"
    link.symlink_to(kind)
    return str(link), None


def special_command(command: str, path: str, tmp_path: Path) -> list[str]:
    if command == "deck":
        return ["cards", "check", path]
    if command == "--cards":
        return ["cards", "check", DECK, "--cards", path]
    return ["cards", "import", path, "--cards-dir", str(tmp_path / "cards")]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", SPECIAL)
@pytest.mark.parametrize("command", ["deck", "--cards", "cards import"])
@pytest.mark.slow
def test_special_files_are_refused(tmp_path, fifo, capsys, kind, command):
    """Devices run in a process with capped memory; FIFOs and directories in this one, under
    the test's time limit (a FIFO without a writer used to block for ever)."""
    suffix = {"deck": ".txt", "--cards": ".toml", "cards import": ".json"}[command]
    path, writer = special_path(kind, fifo, tmp_path, suffix)
    args = special_command(command, path, tmp_path)
    try:
        if kind.startswith("/dev/"):
            out = cli(*args, timeout=15)
            status, err = out.returncode, out.stderr
        else:
            status, _, err = run_main(capsys, *args)
    finally:
        if writer is not None:
            writer.kill()
            writer.wait()
    assert_one_line_error(status, err, path)
    assert "regular file" in err or "is a directory" in err


@pytest.mark.timeout(30)
@pytest.mark.slow
def test_a_card_index_that_is_a_fifo_is_refused(tmp_path):
    folder = tmp_path / "cards"
    folder.mkdir()
    os.mkfifo(folder / "cards.sqlite")
    out = cli("cards", "check", DECK, "--cards-dir", str(folder), timeout=15)
    assert_one_line_error(out.returncode, out.stderr, "cards.sqlite", "FIFO")


@pytest.mark.timeout(10)
def test_files_past_their_byte_cap_are_refused(tmp_path, monkeypatch):
    big = write(tmp_path / "big.txt", "24 Forest\n" + "# padding\n" * 120_000)
    with pytest.raises(DeckError, match="too large for a decklist file"):
        load_deck(big)
    import explore_sim.cards.jsonstream as jsonstream

    monkeypatch.setattr(jsonstream, "MAX_IMPORT_BYTES", 2000)
    with pytest.raises(CardError, match="too large"):
        import_cards(SCRYFALL, tmp_path / "cards")
    packed = write(tmp_path / "spaces.json.gz", gzip.compress(b"[" + b" " * 10_000 + b"]"))
    assert packed.stat().st_size < 2000
    with pytest.raises(CardError, match="more than 2,000 bytes"):
        import_cards(packed, tmp_path / "cards")


# ------------------------------------------------------------------------------------------
# 3. cards update trusts the server no further than it must


class _Server(http.server.BaseHTTPRequestHandler):
    """Lists ``self.server.link`` as the oracle_cards download and serves hostile bodies."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        port = self.server.server_address[1]
        link = self.server.link.replace("PORT", str(port))
        try:
            if self.path == "/bulk-data":
                listing = {"object": "list", "data": [
                    {"object": "bulk_data", "type": "oracle_cards", "download_uri": link}]}
                return self._send(json.dumps(listing).encode())
            if self.path == "/oracle.json":
                return self._send(ORACLE)
            if self.path == "/broken.json":
                return self._send(ORACLE[: len(ORACLE) // 2])
            if self.path == "/huge.json":
                self.send_response(200)
                self.send_header("Content-Length", str(10**10))
                self.end_headers()
                return self.wfile.write(b"[")
            if self.path == "/endless.json":
                self.send_response(200)
                self.end_headers()
                while True:
                    self.wfile.write(b" " * 65536)
                    self.server.served += 65536
            if self.path == "/drip.json":
                self.send_response(200)
                self.end_headers()
                while True:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    self.server.served += 1
                    time.sleep(0.1)
            if self.path.startswith("/redirect"):
                self.send_response(302)
                self.send_header("Location", self.path.split("?to=", 1)[1])
                self.end_headers()
                return None
            return self._send(b"not found", 404)
        except (BrokenPipeError, ConnectionResetError):
            return None  # the client gave up, as it should

    def _send(self, body: bytes, status: int = 200):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Server)
    httpd.daemon_threads = True
    httpd.link = "http://127.0.0.1:PORT/oracle.json"
    httpd.served = 0  # bytes of the endless and dripping bodies written
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def base_url(server) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def updated(server, tmp_path):
    """A card directory after one good update: (directory, download bytes, index bytes)."""
    folder = tmp_path / "cards"
    update_cards(folder, base_url(server), timeout=5)
    return folder, (folder / DOWNLOAD_NAME).read_bytes(), index_path(folder).read_bytes()


HOSTILE_LINKS = {
    "file": ("file:///etc/passwd", "only http(s) links"),
    "file device": ("file:///dev/zero", "only http(s) links"),
    "data": ("data:application/json,%5B%5D", "only http(s) links"),
    "ftp": ("ftp://127.0.0.1/oracle.json", "only http(s) links"),
    "off-host": ("http://example.invalid/oracle.json", "is not the base URL's"),
    "redirect to file": ("http://127.0.0.1:PORT/redirect?to=file:///etc/passwd", "not allowed"),
    "redirect to ftp": ("http://127.0.0.1:PORT/redirect?to=ftp://127.0.0.1/x", "only http(s)"),
    "redirect off-host": ("http://127.0.0.1:PORT/redirect?to=http://example.invalid/x", "host"),
    "malformed": ("http://127.0.0.1:99999999/oracle.json", "malformed link"),
    "too large": ("http://127.0.0.1:PORT/huge.json", "is more than the 1,000,000 allowed"),
    "endless": ("http://127.0.0.1:PORT/endless.json", "more than the 1,000,000 bytes allowed"),
    "drip": ("http://127.0.0.1:PORT/drip.json", "longer than its deadline of 1.5 s"),
    "broken": ("http://127.0.0.1:PORT/broken.json", "malformed JSON"),
}
#: The most bytes of an endless body taken: the cap and the sockets' buffers, not gigabytes;
#: of a body dripped a byte every 0.1 s: what the 1.5 s deadline lets through, and a margin.
MOST_SERVED = {"endless": 32 << 20, "drip": 60}


@pytest.mark.timeout(20)
@pytest.mark.parametrize("case", list(HOSTILE_LINKS))
@pytest.mark.slow
def test_hostile_downloads_are_refused_within_the_deadline(server, updated, case):
    folder, download, index = updated
    link, message = HOSTILE_LINKS[case]
    server.link = link
    server.served = 0
    with pytest.raises(CardError, match=re.escape(message)):
        update_cards(folder, base_url(server), timeout=1, deadline=1.5, max_bytes=1_000_000)
    assert server.served <= MOST_SERVED.get(case, 0)
    assert (folder / DOWNLOAD_NAME).read_bytes() == download
    assert index_path(folder).read_bytes() == index
    assert not [p.name for p in folder.iterdir() if p.name.startswith(".")]


@pytest.mark.timeout(20)
def test_an_allowed_host_may_serve_the_download(server, tmp_path, monkeypatch):
    server.link = "http://localhost:PORT/oracle.json"
    with pytest.raises(CardError, match="'localhost' is not the base URL's"):
        update_cards(tmp_path / "cards", base_url(server), timeout=5)
    assert update_cards(tmp_path / "cards", base_url(server), timeout=5,
                        download_hosts=["localhost"]).cards == 29
    monkeypatch.setenv("EXPLORE_SIM_DOWNLOAD_HOSTS", "example.invalid, localhost")
    assert update_cards(tmp_path / "cards", base_url(server), timeout=5).cards == 29


@pytest.mark.timeout(20)
def test_stale_temporary_files_are_removed_at_the_next_start(server, tmp_path):
    folder = tmp_path / "cards"
    folder.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    stale = [write(folder / f".download-{dead}-abc.part", "[1"),
             write(folder / f".cards-{dead}-abc.sqlite", "x"),
             write(folder / f".cards-{dead}-abc.sqlite-journal", "x"),
             write(folder / ".cards-old.sqlite", "x")]
    os.utime(stale[-1], (time.time() - 7200, time.time() - 7200))
    alive = write(folder / f".download-{os.getppid()}-abc.part", "[1")  # a running process
    update_cards(folder, base_url(server), timeout=5)
    assert not any(path.exists() for path in stale)
    assert alive.exists()


@pytest.mark.timeout(20)
@pytest.mark.parametrize("args, fragment", [
    (["--timeout", "-1"], "argument --timeout: expected a number of seconds > 0, got '-1'"),
    (["--timeout", "nan"], "argument --timeout"),
    (["--timeout", "inf"], "argument --timeout"),
    (["--timeout", "0"], "argument --timeout"),
    (["--deadline", "0"], "argument --deadline"),
    (["--max-download", "0"], "argument --max-download"),
    (["--base-url", "http://"], "base URL must be http(s)://HOST"),
    (["--base-url", "http://[::1"], "is malformed"),
    (["--base-url", "http://example.com:99999"], "is malformed"),
    (["--base-url", "http://exa mple.com"], "spaces or control characters"),
    (["--base-url", "file:///etc"], "must start with http:// or https://"),
    (["--base-url", "https://example.com/?q=1"], "base URL must be"),
])
def test_bad_update_options_are_one_line_errors(tmp_path, capsys, args, fragment):
    status, out, err = run_main(capsys, "cards", "update", "--cards-dir", str(tmp_path), *args)
    assert_one_line_error(status, err, fragment)
    assert out == "" and not list(tmp_path.iterdir())


def test_update_api_checks_its_numbers(tmp_path):
    for bad in (-1, 0, float("nan"), float("inf"), "5"):
        with pytest.raises(OptionError, match="timeout must be a number of seconds > 0"):
            update_cards(tmp_path, "http://127.0.0.1:9", timeout=bad)
    with pytest.raises(OptionError, match="max_bytes"):
        update_cards(tmp_path, "http://127.0.0.1:9", max_bytes=0)


# ------------------------------------------------------------------------------------------
# 4. Numbers are checked where cards are read; nothing overflows at run time


TOML_CARD = '[[card]]\nname = "Odd Card"\ntype_line = "Creature — Bear"\nmana_cost = "{1}{G}"\n'


@pytest.mark.timeout(10)
@pytest.mark.parametrize("extra, message", [
    ("power = 100000\n", "power must be a whole number from -99 to 999, got 100000"),
    ("toughness = -100\n", "toughness must be a whole number from -99 to 999"),
    ("mana_value = 999999\n", "mana value must be a number from 0 to 1000"),
    ('explores = 100000\nexplores_when = "enter"\n',
     "explores must be a whole number from 0 to 20"),
    ('maps = 100000\nmaps_when = "enter"\n', "maps must be a whole number from 0 to 20"),
    ('explores = -1\nexplores_when = "enter"\n', "explores must be a whole number from 0 to 20"),
    ('maps = -2\nmaps_when = "enter"\n', "maps must be a whole number from 0 to 20"),
    ('ability_cost = "' + "{G}" * 400 + '"\n', "ability_cost is too long"),
    ('note = "' + "n" * 5000 + '"\n', "note is too long"),
])
def test_card_file_numbers_out_of_range_are_refused(tmp_path, capsys, extra, message):
    cards = write(tmp_path / "mine.toml", TOML_CARD + extra)
    with pytest.raises(CardError, match=f"mine.toml:1: card 'Odd Card': {message}"):
        load_card_file(cards)
    deck = write(tmp_path / "deck.txt", "20 Forest\n4 Odd Card\n")
    status, out, err = run_main(capsys, "explore", str(deck), "--cards", str(cards),
                                "--trials", "200")
    assert_one_line_error(status, err, "mine.toml:1")


@pytest.mark.timeout(10)
def test_a_huge_mana_cost_is_refused(tmp_path):
    cards = write(tmp_path / "mine.toml", TOML_CARD.replace('"{1}{G}"', '"' + "{G}" * 3000 + '"'))
    with pytest.raises(CardError, match="mana_cost is too long"):
        load_card_file(cards)
    cards = write(tmp_path / "mine.toml", TOML_CARD.replace('"{1}{G}"', '"{99999}"'))
    with pytest.raises(CardError, match="mana value must be a whole number from 0 to 1000"):
        load_card_file(cards)
    cards = write(tmp_path / "mine.csv", "name,mana_cost,type_line,power\nOdd,{G},Creature,99999\n")
    with pytest.raises(CardError, match=r"mine\.csv:2: card 'Odd': power must be"):
        load_card_file(cards)


@pytest.mark.timeout(20)
@pytest.mark.parametrize("extra", ["power = " + "9" * 5000 + "\n",
                                   "toughness = -" + "1_0" * 2500 + "\n"])
def test_a_number_of_thousands_of_digits_names_its_file_and_line(tmp_path, capsys, extra):
    cards = write(tmp_path / "mine.toml", TOML_CARD + extra)
    with pytest.raises(CardError, match=r"mine\.toml:5: a number of 5,000 digits"):
        load_card_file(cards)
    deck = write(tmp_path / "deck.txt", "20 Forest\n4 Odd Card\n")
    status, out, err = run_main(capsys, "simulate", str(deck), "--cards", str(cards),
                                "--trials", "200")
    assert_one_line_error(status, err, "mine.toml:5: a number of 5,000 digits")


@pytest.mark.timeout(20)
def test_a_number_of_thousands_of_digits_is_a_400_on_the_web_page():
    pytest.importorskip("starlette")
    pytest.importorskip("multipart")
    from starlette.testclient import TestClient

    from explore_sim.web import Settings, create_app

    card = TOML_CARD.replace("Odd Card", "Homebrew") + "power = " + "9" * 5000 + "\n"
    with TestClient(create_app(Settings()), raise_server_exceptions=False) as client:
        response = client.post("/", data={"analysis": "explore", "deck": "24 Forest\n36 Homebrew"},
                               files={"cards_file": ("brew.toml", card.encode(), "text/plain")})
        assert response.status_code == 400
        assert "brew.toml:5: a number of 5,000 digits" in response.text
        assert "Traceback" not in response.text
        assert client.get("/").status_code == 200  # still serving


@pytest.mark.timeout(20)
def test_odd_cards_of_a_bulk_import_are_skipped_with_a_note(tmp_path, capsys):
    path = scryfall_file(
        tmp_path / "oracle.json",
        scryfall_card("Gleemax", cmc=1_000_000.0, mana_cost="{1000000}"),
        scryfall_card("Huge Bear", power="99999"),
        scryfall_card("Forty Thousand", cmc=40000),
        scryfall_card("Negative Mana", cmc=-1),
        scryfall_card("Low Bear", power="-5"),
        scryfall_card("Nines Bear", toughness="9" * 100_000),
        scryfall_card("Star Bear", power="*", toughness="1+*"),
    )
    report = import_cards(path, tmp_path / "cards")
    assert report.cards == 3  # Fixture, Low and Star Bear (negative power exists in print)
    assert len(report.refused) == 5
    assert any("Gleemax" in line and "mana value" in line for line in report.refused)
    assert "card 'Nines Bear': toughness must be a whole number from -99 to 999, got a " \
           "number of 100,000 digits" in report.refused
    assert "skipped 5 cards with data of the wrong type or out of range" in report.summary()
    status, out, err = run_main(capsys, "cards", "import", str(path), "--cards-dir",
                                str(tmp_path / "cards"))
    assert status == 0 and "skipped: card 'Huge Bear': power must be" in out


@pytest.mark.timeout(20)
def test_mtgjson_odd_cards_are_skipped_too(tmp_path):
    data = json.loads((FIXTURES / "mtgjson_atomic.json").read_text())
    data["data"]["Gleemax"] = [{"name": "Gleemax", "layout": "normal", "type": "Artifact",
                                "types": ["Artifact"], "manaValue": 1e6, "manaCost": "{1000000}"}]
    data["data"]["Odd Faces"] = [1, 2]
    report = import_cards(write(tmp_path / "atomic.json", json.dumps(data)), tmp_path / "cards")
    assert report.cards > 10 and len(report.refused) == 2


def test_card_numbers_at_the_limits_fit_the_feature_arrays():
    card = Card(name="Limit", mana_cost="{1000}", type_line="Creature — Bear", power=999,
                toughness=-99, explores=20, explores_when="enter", maps=20, maps_when="enter")
    features = FeatureTable.from_cards([card])
    assert features.mana_value[1] == 1000 and features.explores[1] == 20
    assert features.mana_value.dtype == np.int16


# ------------------------------------------------------------------------------------------
# 5. Close-name suggestions are fast against a large index; the message is capped


class _BigIndex:
    """A card source with 35,000 names that knows none of them (like an imported index)."""

    def __init__(self, names):
        self._names = names

    def find(self, name):
        return None

    def names(self):
        return self._names


@pytest.fixture(scope="module")
def big_sources():
    words = ["Ancient", "Bramble", "Coral", "Dusk", "Ember", "Frost", "Gilded", "Hollow",
             "Iron", "Jade", "Kelp", "Lumen", "Moss", "Night", "Obsidian", "Pale", "Quartz",
             "River", "Stone", "Thorn", "Umbral", "Vine", "Wild", "Yew", "Zephyr"]
    kinds = ["Ranger", "Scout", "Wurm", "Drake", "Shaman", "Sentinel", "Oracle", "Hydra",
             "Elemental", "Golem", "Sprite", "Knight", "Witch", "Giant", "Serpent", "Spirit"]
    rng = random.Random(1)
    names = set()
    while len(names) < 35_000:
        names.add(f"{rng.choice(words)} {rng.choice(words).lower()}{rng.choice(kinds).lower()} "
                  f"of the {rng.choice(words)} {rng.choice(kinds)} {rng.randrange(1000)}")
    sources = CardSources([Catalog.builtin(), _BigIndex(sorted(names))])
    sources.suggest("warm up")  # the name index is built once, here
    return sources


@pytest.mark.timeout(30)
@pytest.mark.slow
def test_150_unknown_names_against_35000_cards(big_sources, monkeypatch):
    names = big_sources.sources[1].names()
    typo = names[100][:-1] + "x"
    lines = [f"1 {typo}"] + [f"1 Unknown Card Number {i}" for i in range(149)] + ["20 Forest"]
    suggested = []
    suggest = big_sources.suggestion_text
    monkeypatch.setattr(big_sources, "suggestion_text",
                        lambda name: suggested.append(name) or suggest(name))
    with pytest.raises(DeckError) as error:
        parse_deck("\n".join(lines), catalog=big_sources, source="deck.txt")
    assert len(suggested) == 20  # the names listed are looked for; the other 130 counted
    message = str(error.value)
    assert message.startswith("deck.txt: unknown cards: line 1 ")
    assert repr(names[100]) in message  # the typo's card is suggested
    assert message.count("line ") == 20 and "; and 130 more; to fix: " in message
    assert len(message) < 4000 and "\n" not in message


# ------------------------------------------------------------------------------------------
# 6. Plots


@pytest.mark.timeout(60)
def test_plot_of_a_constant_distribution(tmp_path, capsys):
    deck = write(tmp_path / "bears.txt", "24 Grizzly Bears\n")
    for trials in ("1000", "2000"):
        figure = tmp_path / f"constant{trials}.png"
        status, out, err = run_main(capsys, "explore", str(deck), "--explores", "2", "--trials",
                                    trials, "--seed", "1", "--plot", str(figure))
        assert status == 0, err
        assert figure.stat().st_size > 1000


def test_plot_error_bars_are_never_negative():
    import matplotlib

    matplotlib.use("Agg")
    import pandas as pd
    from matplotlib.figure import Figure

    rows = pd.DataFrame({"value": [2], "probability": [1.0], "ci_low": [0.99],
                         "ci_high": [1.0 - 1e-12]})
    plot_distribution(rows, ax=Figure().subplots())


@pytest.mark.timeout(30)
@pytest.mark.parametrize("where, message", [
    ("directory", "is a directory"),
    ("missing", "no such directory"),
    ("read-only", "cannot write"),
])
def test_plot_path_is_checked_before_running(tmp_path, read_only_dir, capsys, monkeypatch,
                                              where, message):
    from explore_sim.analysis import simulate as simulate_module

    path = {"directory": tmp_path / "folder.png", "missing": tmp_path / "no" / "f.png",
            "read-only": read_only_dir / "f.png"}[where]
    if where == "directory":
        path.mkdir()
    played = []
    monkeypatch.setattr(simulate_module, "run_chunks", lambda *a, **k: played.append(a))
    status, out, err = run_main(capsys, "simulate", DECK, "--trials", "1e9", "--plot", str(path))
    assert played == []  # refused before a billion games are played
    assert_one_line_error(status, err, "--plot", message)
    assert out == ""


@pytest.mark.timeout(30)
@pytest.mark.parametrize("where, message", [
    ("long name", "File name too long"),
    ("long directory", "File name too long"),
    ("directory", "is a directory"),
    ("missing", "no such directory"),
])
def test_out_path_is_checked_before_running(tmp_path, capsys, where, message):
    path = {"long name": tmp_path / ("r" * 300 + ".parquet"),
            "long directory": tmp_path / ("d" * 300) / "r.parquet",
            "directory": tmp_path, "missing": tmp_path / "no" / "r.parquet"}[where]
    status, out, err = run_main(capsys, "sweep", DECK, "--vary", "lands=23,24", "--trials",
                                "1e9", "--out", str(path))
    assert_one_line_error(status, err, "--out", message)
    assert len(err) < 400 and out == ""  # the path is cut short
    assert list(tmp_path.iterdir()) == []


@pytest.mark.timeout(60)
def test_a_name_too_long_for_the_hidden_neighbours_still_writes(tmp_path, capsys):
    path = tmp_path / ("r" * 240 + ".parquet")  # .NAME.PID.partial would be past 255 bytes
    status, out, err = run_main(capsys, "sweep", DECK, "--vary", "lands=23,24", "--turns", "1",
                                "--trials", "200", "--seed", "1", "--out", str(path))
    assert status == 0, err
    assert list(tmp_path.iterdir()) == [path]


@pytest.mark.timeout(30)
def test_a_failed_plot_write_keeps_the_results(tmp_path, capsys, monkeypatch):
    from matplotlib.figure import Figure

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", full_disk)
    status, out, err = run_main(capsys, "explore", DECK, "--trials", "2000", "--seed", "1",
                                "--plot", str(tmp_path / "f.png"))
    assert "counters" in out and "land_hit" in out  # the results were printed first
    assert_one_line_error(status, err, "--plot: cannot write", "No space left on device")


# ------------------------------------------------------------------------------------------
# 7. --workers


def test_more_workers_than_cores_are_capped_with_a_warning(capsys):
    cores = available_cores()
    with pytest.warns(OptionWarning, match=f"workers: 1000 is more than the {cores} cores"):
        assert check_workers(1000) == cores
    status, out, err = run_main(capsys, "explore", DECK, "--trials", "200", "--seed", "1",
                                "--workers", "1000")
    assert status == 0 and err.startswith("explore-sim: warning: --workers: 1000 is more than")


@pytest.mark.parametrize("engine", ["kernel", "numpy"])
@pytest.mark.parametrize("value, shown", [("many", "'many'"), ("9" * 4301, "'99999"),
                                          ("1000001", "'1000001'")])
def test_a_bad_thread_count_in_the_environment_is_one_line_on_either_engine(
        capsys, monkeypatch, engine, value, shown):
    monkeypatch.setenv("EXPLORE_SIM_THREADS", value)
    status, out, err = run_main(capsys, "simulate", DECK, "--trials", "200", "--seed", "1",
                                "--engine", engine)
    assert_one_line_error(status, err, "EXPLORE_SIM_THREADS must be a whole number from 0 to "
                          "1,000,000 (0: every core), got " + shown)


def test_a_thread_count_with_leading_zeros_is_read_as_written(monkeypatch):
    from explore_sim.engine.threads import kernel_threads

    monkeypatch.setenv("EXPLORE_SIM_THREADS", "0" * 5000 + "3")
    assert kernel_threads() == 3
    monkeypatch.setenv("EXPLORE_SIM_THREADS", "1000000")
    assert kernel_threads() == 1_000_000


# ------------------------------------------------------------------------------------------
# 8. Malformed records and files


@pytest.mark.timeout(20)
@pytest.mark.parametrize("card, message", [
    ('{"object": "card", "name": "N", "cmc": NaN, "type_line": "Creature"}', "finite number"),
    ('{"object": "card", "name": "I", "cmc": Infinity, "type_line": "Creature"}', "finite number"),
    ('{"object": "card", "name": "F", "card_faces": [1, 2], "type_line": "Creature"}',
     "card_faces must be a list of objects"),
    ('{"object": "card", "name": "O", "oracle_text": 5, "type_line": "Creature"}',
     "oracle_text must be text"),
    ('{"object": "card", "name": "K", "keywords": "Flying", "type_line": "Creature"}',
     "keywords must be a list of text"),
    ('{"object": "card", "name": 7, "type_line": "Creature"}', "name must be text"),
    ('{"object": "card", "name": "P", "power": ' + "9" * 5000 + ', "type_line": "Creature"}',
     "malformed JSON"),
])
def test_malformed_records_are_one_line_errors(tmp_path, capsys, card, message):
    path = write(tmp_path / "odd.json", f"[{card}]")
    status, out, err = run_main(capsys, "cards", "import", str(path), "--cards-dir",
                                str(tmp_path / "cards"))
    assert_one_line_error(status, err, message)
    good = write(tmp_path / "mixed.json", f'[{json.dumps(scryfall_card("Fine Bear"))}, {card}]')
    if "malformed JSON" not in message:
        assert len(import_cards(good, tmp_path / "cards").refused) == 1


@pytest.mark.timeout(20)
def test_corrupt_gzip_and_deep_nesting(tmp_path):
    bad_block = bytearray(gzip.compress(ORACLE))
    bad_block[10] = 0xFF  # the first deflate block: zlib.error "invalid block type"
    bad_crc = bytearray(gzip.compress(ORACLE))
    bad_crc[-8:-4] = bytes(a ^ 0xFF for a in bad_crc[-8:-4])  # the trailer's CRC-32
    for packed, message in ((bad_block, "invalid block type"), (bad_crc, "CRC check failed")):
        with pytest.raises(CardError, match=f"corrupt compressed data .*{message}"):
            import_cards(write(tmp_path / "bad.json.gz", bytes(packed)), tmp_path / "cards")
    with pytest.raises(CardError, match="nested too deeply"):
        import_cards(write(tmp_path / "deep.json", "[" * 100_000), tmp_path / "cards")
    toml = write(tmp_path / "deep.toml", "a = " + "[" * 4000 + "]" * 4000 + "\n")
    with pytest.raises(CardError, match="invalid TOML: nested too deeply"):
        load_card_file(toml)


@pytest.mark.timeout(10)
def test_a_csv_field_longer_than_the_csv_limit(tmp_path):
    text = 'name,mana_cost,type_line,note\nBear,{G},Creature,"' + ("x" * 5000 + "\n") * 30 + '"\n'
    with pytest.raises(CardError,
                       match=r"mine\.csv:2: (a field spans several lines|malformed CSV)"):
        load_card_file(write(tmp_path / "mine.csv", text))
    text = 'name,mana_cost,type_line,note\nBear,{G},Creature,"' + ("x" * 9000 + "\n") * 20
    with pytest.raises(CardError, match=r"mine\.csv:2: malformed CSV"):
        load_card_file(write(tmp_path / "mine.csv", text))


@pytest.fixture
def good_index(tmp_path):
    folder = tmp_path / "cards"
    import_cards(SCRYFALL, folder)
    return folder


@pytest.mark.timeout(30)
@pytest.mark.parametrize("damage", ["bit flips", "truncated", "hand-edited power",
                                    "hand-edited mana value", "dropped table", "extra column",
                                    "garbage"])
def test_a_damaged_card_index_is_one_line_error(good_index, capsys, damage):
    path = index_path(good_index)
    if damage == "bit flips":
        data = bytearray(path.read_bytes())
        for offset in range(100, len(data), 997):
            data[offset] ^= 0xFF
        path.write_bytes(bytes(data))
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[:3000])
    elif damage == "garbage":
        path.write_bytes(os.urandom(8192))
    else:
        with sqlite3.connect(path) as connection:
            connection.execute({
                "hand-edited power": "UPDATE cards SET power = 'lots'",
                "hand-edited mana value": "UPDATE cards SET mana_value = '100000'",
                "dropped table": "DROP TABLE aliases",
                "extra column": "ALTER TABLE cards ADD COLUMN extra TEXT",
            }[damage])
        connection.close()
    status, out, err = run_main(capsys, "cards", "show", "Delver of Secrets",
                                "--cards-dir", str(good_index))
    assert_one_line_error(status, err, "cards.sqlite")
    status, out, err = run_main(capsys, "cards", "check", DECK, "--cards-dir", str(good_index))
    assert status in (0, 2) and "Traceback" not in err  # the deck may not need the index


@pytest.mark.timeout(20)
def test_cards_dir_that_is_a_file_or_read_only(tmp_path, read_only_dir, capsys):
    a_file = write(tmp_path / "file", "x")
    for args in (["cards", "import", str(SCRYFALL)], ["cards", "check", DECK],
                 ["cards", "update", "--base-url", "http://127.0.0.1:9"]):
        status, out, err = run_main(capsys, *args, "--cards-dir", str(a_file))
        assert_one_line_error(status, err, "not a directory")
    status, out, err = run_main(capsys, "cards", "import", str(SCRYFALL), "--cards-dir",
                                str(read_only_dir))
    assert_one_line_error(status, err, "cannot write to the card directory")


@pytest.mark.timeout(60)
@pytest.mark.slow
def test_closed_full_and_broken_standard_output(tmp_path):
    with open("/dev/full", "w") as full:
        out = cli("cards", stdout=full, stderr=subprocess.PIPE, capture_output=False)
    assert_one_line_error(out.returncode, out.stderr, "No space left on device")
    out = cli("cards", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, capture_output=False,
              close_stdout=True)
    assert_one_line_error(out.returncode, out.stderr, "standard output is closed")
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    process = subprocess.Popen([sys.executable, "-m", "explore_sim", "cards", "check", DECK],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env)
    process.stdout.close()
    err = process.stderr.read().decode()
    assert process.wait(timeout=30) == BROKEN_PIPE_STATUS
    assert err == ""


# ------------------------------------------------------------------------------------------
# 9. Silent acceptance


@pytest.mark.timeout(10)
@pytest.mark.parametrize("text, message", [
    (TOML_CARD + "keywords = [1, 2]\n", "keywords must be a list of text"),
    (TOML_CARD + 'keywords = "haste"\n', "keywords must be a list"),
    (TOML_CARD + 'keywords = ["' + "k" * 60 + '"]\n', "keywords must be a list of at most"),
    (TOML_CARD + "power = -1000\n", "power must be a whole number from -99 to 999"),
])
def test_wrong_typed_or_negative_card_fields_are_refused(tmp_path, text, message):
    with pytest.raises(CardError, match=message):
        load_card_file(write(tmp_path / "mine.toml", text))


def test_negative_power_within_the_range_is_accepted(tmp_path):
    card = load_card_file(write(tmp_path / "mine.toml", TOML_CARD + "power = -1\n")).get("Odd Card")
    assert card.power == -1  # printed cards such as Char-Rumbler have negative power


@pytest.mark.timeout(10)
@pytest.mark.parametrize("text, message", [
    ("name,mana_cost,type_line,colour\nBear,{G},Creature,green\n", r"mine\.csv:1: unknown column"),
    ("name,mana_cost,type_line\nBear,{G},Creature,extra\n",
     r"mine\.csv:2: 4 fields, but the header has 3"),
    ("name,mana_cost,type_line,note\nBear,{G},Creature,\"open\nElf,{G},Creature,x\nOrc,{R},Creature,\"\n",
     r"mine\.csv:2: a field spans several lines \(an unclosed quote\?\)"),
    ("name,mana_cost,type_line,note\nBear,{G},Creature,\"never closed\nElf,{G},Creature,x\n",
     r"mine\.csv:2: (malformed CSV|a field spans)"),
    ("name,mana_cost,type_line,explores,explores_when\nBear,{G},Creature,-1,enter\n",
     "explores must be a whole number from 0 to 20"),
    ("name,name,mana_cost,type_line\nA,B,{G},Creature\n", "appear twice"),
])
def test_csv_card_files_refuse_what_they_used_to_swallow(tmp_path, text, message):
    with pytest.raises(CardError, match=message):
        load_card_file(write(tmp_path / "mine.csv", text))


@pytest.mark.timeout(10)
@pytest.mark.parametrize("text, message", [
    (ORACLE.decode() + "garbage", "unexpected 'g' after the end of the JSON document"),
    ('{"data": {}} {"data": {}}', "unexpected '{' after the end"),
])
def test_garbage_after_a_json_document_is_refused(tmp_path, text, message):
    with pytest.raises(CardError, match=message):
        import_cards(write(tmp_path / "cards.json", text), tmp_path / "cards")


def test_a_dek_with_an_external_doctype_is_refused(tmp_path):
    dek = write(tmp_path / "deck.dek", '<?xml version="1.0"?>\n<!DOCTYPE Deck SYSTEM "deck.dtd">\n'
                '<Deck><Cards Quantity="20" Sideboard="false" Name="Forest"/></Deck>\n')
    with pytest.raises(DeckError, match="DTDs and entities are not allowed"):
        load_deck(dek)


# ------------------------------------------------------------------------------------------
# 10. Messages


@pytest.mark.timeout(20)
@pytest.mark.parametrize("args, fragment", [
    (["explore", DECK, "--trials", "9" * 5000], "argument --trials: expected a whole number"),
    (["explore", DECK, "--format", "x" * 5000], "argument --format: invalid choice: 'xxx"),
    (["explore", DECK, "--known", "y" * 5000], "known: 'yyy"),
    (["explore", DECK, "--explorer", "z" * 5000], "unknown explorer 'zzz"),
    (["explore", DECK, "--policy", "w" * 500], "policy expression"),
    (["cards", "v" * 5000], "unknown card 'vvv"),
    (["simulate", DECK, "--mulligan", "u" * 5000],
     "mulligan must be one of none, london, london-free"),
    (["explore", DECK, *["--bogus"] * 2000], "unrecognized arguments"),
])
def test_echoed_user_text_is_capped(capsys, args, fragment):
    status, out, err = run_main(capsys, *args)
    assert_one_line_error(status, err, fragment)
    assert "_count" not in err and "..." in err
    assert len(err) < 400


def test_control_characters_never_reach_the_terminal(tmp_path, capsys):
    name = "evil\x1b[31m\x07deck.txt"
    status, out, err = run_main(capsys, "explore", str(tmp_path / name))
    assert_one_line_error(status, err, "no such decklist file")
    assert "\x1b" not in err and "\x07" not in err
    deck = write(tmp_path / "deck.txt", "20 Forest\n4 Bad\x1b]0;title\x07Name\n")
    status, out, err = run_main(capsys, "explore", str(deck))
    assert_one_line_error(status, err, "malformed card name")
    assert "\x1b" not in err and "\x07" not in err
    with pytest.raises(CardError, match="control characters"):
        load_card_file(write(tmp_path / "mine.toml",
                             TOML_CARD.replace("Odd Card", "Odd\\u001bCard")))
    assert printable("a\x1b[2Jb\x9bc\td\n") == "a[2Jbc\td\n"


@pytest.mark.timeout(20)
def test_no_resource_warning_after_a_compressed_import(tmp_path):
    packed = write(tmp_path / "oracle.json.gz", gzip.compress(ORACLE))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import_cards(packed, tmp_path / "cards")
        with pytest.raises(CardError):
            import_cards(write(tmp_path / "bad.json.gz", gzip.compress(b"[{]")), tmp_path / "cards")
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]
