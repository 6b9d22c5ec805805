"""``cards update`` against a local fixture server on 127.0.0.1: success and every failure
leaves the previous index intact."""

from __future__ import annotations

import http.server
import json
import threading
import time

import pytest
from conftest import TESTS

from explore_sim.cards.card_index import CardIndex, import_cards, index_path
from explore_sim.cards.update import DOWNLOAD_NAME, update_cards
from explore_sim.cli import main
from explore_sim.errors import CardError

FIXTURES = TESTS / "fixtures" / "cards"
ORACLE = (FIXTURES / "scryfall_oracle.json").read_bytes()


class _Handler(http.server.BaseHTTPRequestHandler):
    download = "/oracle.json"

    def log_message(self, *args):  # keep test output quiet
        pass

    def do_GET(self):
        port = self.server.server_address[1]
        if self.path == "/bulk-data":
            body = json.dumps({"object": "list", "data": [
                {"object": "bulk_data", "type": "default_cards",
                 "download_uri": f"http://127.0.0.1:{port}/wrong.json"},
                {"object": "bulk_data", "type": "oracle_cards",
                 "download_uri": f"http://127.0.0.1:{port}{self.server.download}"},
            ]}).encode()
            return self._send(200, body)
        if self.path == "/oracle.json":
            return self._send(200, ORACLE)
        if self.path == "/truncated.json":
            self.send_response(200)
            self.send_header("Content-Length", str(len(ORACLE)))
            self.end_headers()
            self.wfile.write(ORACLE[: len(ORACLE) // 2])
            self.wfile.flush()
            self.close_connection = True
            return None
        if self.path == "/broken.json":
            return self._send(200, ORACLE[: len(ORACLE) // 2])  # complete but malformed
        if self.path == "/error.json":
            return self._send(500, b"internal error")
        if self.path == "/slow.json":
            time.sleep(2.0)
            return self._send(200, ORACLE)
        return self._send(404, b"not found")

    def _send(self, status, body):
        try:
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (the slow-server test)


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def base(server):
    return f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def old_index(tmp_path):
    """An index imported earlier from a smaller file."""
    small = tmp_path / "small.json"
    small.write_text(json.dumps([json.loads(line.rstrip(",")) for line in
                                 ORACLE.decode().splitlines()[1:3]]))
    import_cards(small, tmp_path / "cards")
    return index_path(tmp_path / "cards").read_bytes()


def test_update_downloads_and_imports(server, tmp_path):
    server.download = "/oracle.json"
    report = update_cards(tmp_path / "cards", base(server), timeout=5)
    # every card object of the fixture file but its token, emblem and art card
    cards = [c for c in json.loads(ORACLE)
             if c.get("layout") not in ("token", "art_series", "emblem")]
    assert report.cards == len(cards) == 29
    assert (tmp_path / "cards" / DOWNLOAD_NAME).read_bytes() == ORACLE
    assert CardIndex(index_path(tmp_path / "cards")).find("Fire // Ice") is not None


@pytest.mark.parametrize("download, message", [
    ("/truncated.json", "download"),
    ("/broken.json", "malformed JSON"),
    ("/error.json", "answered 500"),
    ("/slow.json", "timed out"),
    ("/missing.json", "answered 404"),
])
@pytest.mark.slow
def test_failed_updates_leave_the_old_index_intact(server, tmp_path, old_index, download, message):
    server.download = download
    with pytest.raises(CardError, match=message):
        update_cards(tmp_path / "cards", base(server), timeout=0.5)
    assert index_path(tmp_path / "cards").read_bytes() == old_index
    leftovers = [p.name for p in (tmp_path / "cards").iterdir() if p.name.startswith(".")]
    assert leftovers == []


def test_update_command_and_bad_base_url(server, tmp_path, capsys):
    server.download = "/oracle.json"
    assert main(["cards", "update", "--base-url", base(server), "--cards-dir",
                 str(tmp_path / "cards"), "--quiet"]) == 0
    assert "imported 29 cards" in capsys.readouterr().out
    assert main(["cards", "update", "--base-url", "ftp://example.invalid",
                 "--cards-dir", str(tmp_path / "cards")]) == 2
    assert "must start with http" in capsys.readouterr().err
    server.download = "/error.json"
    assert main(["cards", "update", "--base-url", base(server), "--cards-dir",
                 str(tmp_path / "cards"), "--timeout", "2"]) == 2
    err = capsys.readouterr().err
    assert "answered 500" in err and len(err.strip().splitlines()) == 1


def test_unreachable_server(tmp_path):
    with pytest.raises(CardError, match="cannot connect|refused|timed out"):
        update_cards(tmp_path / "cards", "http://127.0.0.1:9", timeout=2)
