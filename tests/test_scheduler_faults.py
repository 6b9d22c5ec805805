"""A Dask scheduler that cannot be used fails fast and in one line: a port that accepts and
never answers, a listener that completes Dask's handshake and then says nothing, addresses
no command can reach, a timeout past an hour, and a scheduler killed in the middle of a
sweep (whose results file stays whole).

Everything is real and on loopback: sockets that accept and never answer, Dask's own
listener, a ``dask scheduler`` and a ``dask worker`` in processes of their own.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import types
from pathlib import Path

import pandas as pd
import pytest
from conftest import DECKS, ROOT, wait_until

import explore_sim
from explore_sim.analysis import executors
from explore_sim.analysis.executors import DaskExecutor, ExecutorError
from explore_sim.errors import OptionError

distributed = pytest.importorskip("distributed")

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]  # real Dask schedulers, killed and hung

DECK = str(DECKS / "lci_merfolk_explore.txt")
SIMULATE = ["simulate", DECK, "--trials", "1000", "--quiet"]
DASK = str(Path(sys.executable).parent / "dask")


def cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """``explore-sim`` in a fresh process, killed past ``timeout`` seconds."""
    return subprocess.run([sys.executable, "-m", "explore_sim", *args], cwd=ROOT, text=True,
                          capture_output=True, timeout=timeout)


def assert_one_line(run: subprocess.CompletedProcess, *fragments: str) -> None:
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("explore-sim: error: "), run.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


@pytest.fixture
def silent_port():
    """A loopback port that accepts every connection and never sends a byte: its number and
    the connections it accepted."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except TimeoutError:
                continue
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield types.SimpleNamespace(port=server.getsockname()[1], accepted=held)
    stop.set()
    thread.join(5)
    for connection in held:
        connection.close()
    server.close()


@pytest.fixture
def mute_listener():
    """Dask's own listener on loopback: it completes the handshake, then never answers. Its
    address, and the connections it took (``listener.taken``)."""
    ready: dict[str, str] = {}
    started, stop = threading.Event(), threading.Event()
    taken: list[object] = []

    async def serve() -> None:
        async def never_answer(comm):
            taken.append(comm)
            while not stop.is_set():
                await asyncio.sleep(0.05)

        listener = distributed.comm.listen("tcp://127.0.0.1:0", never_answer)
        await listener.start()
        ready["address"] = listener.contact_address
        started.set()
        while not stop.is_set():
            await asyncio.sleep(0.05)
        listener.stop()

    thread = threading.Thread(target=lambda: asyncio.run(serve()), daemon=True)
    thread.start()
    assert started.wait(30)
    yield types.SimpleNamespace(address=ready["address"], taken=taken)
    stop.set()
    thread.join(10)


# ------------------------------------------------------------------------------------------
# Connections that never answer


def test_a_port_that_accepts_and_never_answers_fails_within_the_timeout(silent_port):
    run = cli(*SIMULATE, "--scheduler", f"tcp://127.0.0.1:{silent_port.port}",
                    "--scheduler-timeout", "2")
    assert_one_line(run, f"cannot connect to the Dask scheduler at tcp://127.0.0.1:"
                         f"{silent_port.port}: it accepted the connection but did not answer "
                         "within 2 s")
    # The address's probe, then one attempt that waits for the timeout: no retries.
    assert len(silent_port.accepted) == 2


def test_a_listener_that_handshakes_and_then_says_nothing_fails_within_the_timeout(
        mute_listener):
    with pytest.raises(ExecutorError, match="did not answer within 1.5 s"):
        explore_sim.simulate(DECK, turns=1, trials=100, seed=1,
                             scheduler=DaskExecutor(mute_listener.address, timeout=1.5))
    # The address's probe and the client's connections, each waited for once: no retries.
    assert len(mute_listener.taken) <= 3


# ------------------------------------------------------------------------------------------
# Addresses and timeouts no command can use: refused at once


@pytest.mark.parametrize("address, message", [
    ("ucx://127.0.0.1:8786", "not ucx://"),
    ("file:///tmp/scheduler.json", "not file://"),
    ("inproc://127.0.0.1/1/1", "not inproc://"),
    ("ws://127.0.0.1:8786", "not ws://"),
    ("", "--scheduler is empty"),
    ("   ", "--scheduler is empty"),
    ("tcp://127.0.0.1", "must look like tcp://HOST:PORT"),
    ("tcp://127.0.0.1:99999", "must look like tcp://HOST:PORT"),
    ("tcp://a..b:1", "'a..b' is not a host name (each part between dots has 1 to 63"),
    ("tcp://" + "a" * 64 + ":1", "is not a host name (each part between dots has 1 to 63"),
    ("a" * 64 + ".example:8786", "is not a host name"),
])
def test_addresses_no_command_can_reach_are_refused_at_once(address, message):
    # A long timeout: nothing may wait for it.
    run = cli(*SIMULATE, "--scheduler", address, "--scheduler-timeout", "600", timeout=30)
    assert_one_line(run, message)


def test_tls_without_tls_settings_is_one_line_at_once(silent_port):
    run = cli(*SIMULATE, "--scheduler", f"tls://127.0.0.1:{silent_port.port}",
                 "--scheduler-timeout", "600", timeout=30)
    assert_one_line(run, "cannot connect to the Dask scheduler at tls://", "TLS")


@pytest.mark.parametrize("timeout", ["1e30", "3601", "inf", "nan", "0", "-1"])
def test_a_timeout_past_an_hour_or_not_a_number_is_one_line(timeout):
    run = cli(*SIMULATE, "--scheduler", "tcp://127.0.0.1:1", "--scheduler-timeout", timeout,
                 timeout=30)
    assert_one_line(run, "timeout")
    with pytest.raises(OptionError, match="at most 3600"):
        DaskExecutor("tcp://127.0.0.1:1", timeout=1e30)


def test_the_environment_variable_left_empty_runs_here(monkeypatch):
    monkeypatch.setenv(executors.SCHEDULER_ENV, " ")
    run = cli(*SIMULATE, "--seed", "1")
    assert run.returncode == 0 and run.stderr == "", run.stderr


# ------------------------------------------------------------------------------------------
# A scheduler killed in the middle of a sweep


@pytest.fixture
def cluster(tmp_path):
    """A ``dask scheduler`` and a ``dask worker`` in processes (sessions) of their own."""
    info = tmp_path / "scheduler.json"
    env = {**os.environ, **executors.WORKER_MALLOC}
    scheduler = subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0",
                                  "--no-dashboard", "--scheduler-file", str(info)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=True, env=env)
    processes = [scheduler]
    try:
        def written() -> bool:
            assert scheduler.poll() is None, "the scheduler ended"
            return info.exists() and bool(info.read_text().strip())

        wait_until(written, "the scheduler's address file", 60)
        address = json.loads(info.read_text())["address"]
        processes.append(subprocess.Popen(
            [DASK, "worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
            env=env))
        client = distributed.Client(address, timeout=30, set_as_default=False)
        try:
            client.wait_for_workers(1, timeout=60)
        finally:
            client.close()
        yield address, scheduler
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def test_a_scheduler_killed_mid_sweep_is_one_line_and_the_file_stays_whole(cluster, tmp_path):
    address, scheduler = cluster
    out = tmp_path / "r.parquet"
    args = [sys.executable, "-m", "explore_sim", "sweep", DECK, "--vary", "lands=22..25",
            "--turns", "3", "--trials", "140000", "--seed", "1", "--quiet", "--format", "csv",
            "--out", str(out)]
    sweep = subprocess.Popen([*args, "--scheduler", address], cwd=ROOT, text=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        def first_point() -> bool:
            assert sweep.poll() is None, sweep.stderr.read()
            return out.exists()

        wait_until(first_point, "the sweep's first point", 90)
        os.killpg(scheduler.pid, signal.SIGKILL)
        _, err = sweep.communicate(timeout=90)
    finally:
        if sweep.poll() is None:
            sweep.kill()
            sweep.wait()
    assert sweep.returncode == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err  # no Dask log, no traceback, no Client.__del__ noise
    assert lines[0].startswith(f"explore-sim: error: the Dask cluster at {address} lost the "
                               "work: "), err
    # What was written is whole: the run carries on here from it.
    points = len(pd.read_parquet(out).groupby("lands"))
    assert 1 <= points < 4
    resumed = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert len(pd.read_parquet(out).groupby("lands")) == 4
