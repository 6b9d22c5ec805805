"""Worker processes end with the run that started them: every command that takes
``--workers``, killed with SIGKILL or SIGTERM while its workers play, leaves no process
behind, under every start method.

Real processes throughout: the command runs in a subprocess, its pool's processes are found
through ``/proc``, the command is killed, and the test polls until every one of them is gone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import DECKS, ROOT, wait_until

pytestmark = [
    pytest.mark.slow,  # worker processes started and killed
    pytest.mark.timeout(120),
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc"),
]

DECK = str(DECKS / "lci_merfolk_explore.txt")
SULTAI = str(DECKS / "xln_sultai_explore.txt")
BIG = "1e9"  # trials of a run that is killed long before it could end
#: Each command that takes --workers, with arguments for a run that lasts.
COMMANDS = {
    "explore": ["explore", DECK, "--trials", BIG],
    "simulate": ["simulate", DECK, "--trials", BIG],
    "compare": ["compare", DECK, str(DECKS / "lci_merfolk_vanilla.txt"), "--trials", BIG],
    "sweep": ["sweep", DECK, "--vary", "lands=23,24", "--trials", BIG],
    "value": ["value", DECK, "--trials", BIG],
    "advise": ["advise", SULTAI, "--turn", "3", "--battlefield",
               "Forest, Swamp, Woodland Cemetery, Jadelight Ranger", "--hand",
               "Wildgrowth Walker, Lurking Chupacabra, Path of Discovery", "--revealed",
               "Tishana's Wayfinder", "--explores-left", "2", "--trials", BIG],
    "tune": ["tune", DECK, "--objective", "on_curve@4", "--budget", BIG],
}
#: Seconds the workers may take to notice their parent is gone.
GONE_WITHIN = 15.0
START_METHOD_SCRIPT = textwrap.dedent("""
    import multiprocessing
    import sys

    from explore_sim.cli import main

    if __name__ == "__main__":
        multiprocessing.set_start_method(sys.argv[1])
        sys.exit(main(sys.argv[2:]))
""")


def _stat(pid: int) -> tuple[int, str, str] | None:
    """(parent pid, state, start time) of a process, or None if there is none."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()
    return int(fields[1]), fields[0], fields[19]


def _descendants(pid: int) -> dict[int, str]:
    """Every live process below ``pid``: pid -> start time (to tell a reused pid)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = _stat(int(entry))
            if stat is not None and stat[1] != "Z":
                parents[int(entry)] = stat
    found, frontier = {}, [pid]
    while frontier:
        parent = frontier.pop()
        for child, (ppid, _, start) in parents.items():
            if ppid == parent and child not in found:
                found[child] = start
                frontier.append(child)
    return found


def _alive(processes: dict[int, str]) -> list[int]:
    alive = []
    for pid, start in processes.items():
        stat = _stat(pid)
        if stat is not None and stat[1] != "Z" and stat[2] == start:
            alive.append(pid)
    return alive


def _kill_and_watch(command: list[str], sig: signal.Signals, workers: int = 2) -> None:
    """Start ``command``, wait for its worker processes, kill it with ``sig`` and require
    every process it started to be gone within :data:`GONE_WITHIN` seconds."""
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    children: dict[int, str] = {}
    try:
        def started() -> bool:
            assert process.poll() is None, process.stderr.read()
            children.update(_descendants(process.pid))
            return len(children) >= workers

        wait_until(started, "the run's worker processes", 90)
        time.sleep(0.5)  # the workers are playing
        children = _descendants(process.pid)
        os.kill(process.pid, sig)
        process.wait(timeout=30)
        wait_until(lambda: not _alive(children),
                   f"the {len(children)} processes the run started to end", GONE_WITHIN)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for pid in _alive(children):  # whatever failed above, leave nothing running
            os.kill(pid, signal.SIGKILL)
        process.stderr.close()


@pytest.mark.parametrize("name", list(COMMANDS))
def test_workers_end_when_their_command_is_killed(name):
    _kill_and_watch([sys.executable, "-m", "explore_sim", *COMMANDS[name], "--workers", "2",
                     "--quiet"], signal.SIGKILL)


def test_workers_end_when_their_command_is_terminated():
    _kill_and_watch([sys.executable, "-m", "explore_sim", *COMMANDS["sweep"], "--workers", "2",
                     "--quiet"], signal.SIGTERM)


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_workers_of_every_start_method_end_with_their_command(tmp_path, method):
    script = tmp_path / "started.py"
    script.write_text(START_METHOD_SCRIPT)
    _kill_and_watch([sys.executable, str(script), method, *COMMANDS["simulate"], "--workers",
                     "2", "--quiet"], signal.SIGKILL)


def test_the_watch_thread_alone_ends_the_workers(tmp_path):
    """Where the kernel sends no signal when a parent ends (not Linux), the thread does."""
    script = tmp_path / "unsignalled.py"
    script.write_text(START_METHOD_SCRIPT.replace(
        "from explore_sim.cli import main\n",
        "from explore_sim.cli import main\n"
        "from explore_sim.analysis import parent_watch\n\n"
        "parent_watch._parent_death_signal = lambda: None  # in spawned workers too\n"))
    _kill_and_watch([sys.executable, str(script), "fork", *COMMANDS["simulate"], "--workers",
                     "2", "--quiet"], signal.SIGKILL)


def test_workers_of_a_finished_run_are_gone_and_the_numbers_unchanged():
    args = [sys.executable, "-m", "explore_sim", "simulate", DECK, "--trials", "140000",
            "--seed", "1", "--quiet", "--format", "csv"]
    one = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=120)
    two = subprocess.run([*args, "--workers", "2"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert one.returncode == two.returncode == 0 and two.stderr == "", two.stderr
    assert one.stdout == two.stdout
