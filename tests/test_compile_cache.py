"""numba's on-disk cache of the compiled game: keyed on the kernel's sources wherever it is
(``NUMBA_CACHE_DIR`` included), a damaged entry removed and compiled again with one notice,
compiled in memory where nothing can be written; never a traceback.

The module tests compile a one-line function of a throwaway package; the kernel's own tests
run a copy of the package (an edited source) or the real kernel with a damaged cache in a
folder of its own, never the cache of this checkout.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from conftest import DECKS, ROOT

numba = pytest.importorskip("numba")

from explore_sim.engine.compile_cache import KEEP_FOLDERS, CompileCache, sources_digest  # noqa: E402

DECK = DECKS / "lci_merfolk_explore.txt"
DAMAGE = {
    "random bytes": lambda data: np.random.default_rng(1).bytes(100_000),
    "nothing": lambda data: b"",
    "a truncated file": lambda data: data[: len(data) // 2],
}


def _package(folder: Path, answer: int = 1) -> Path:
    """A throwaway package of two modules: ``caller.answer(x)`` calls ``callee.step(x)``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "callee.py").write_text(f"def step(x):\n    return x + {answer}\n")
    (folder / "caller.py").write_text("def answer(x):\n    return x * 10\n")
    return folder


def _compiled(cache: CompileCache, folder: Path, name: str = "answer"):
    """``caller.answer`` compiled with ``cache`` (a fresh dispatcher: a new process's)."""
    spec = importlib.util.spec_from_file_location(f"probe_{id(cache)}", folder / "caller.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return cache.attach(numba.njit(getattr(module, name), cache=False))


@pytest.fixture
def notices(caplog):
    """The notices about this test's own caches (named ``probe``): the game kernel may be
    compiling meanwhile in this process (a fresh clone's first run), and says so too."""
    caplog.set_level(logging.INFO, logger="explore_sim.notices")
    return lambda: [r.getMessage() for r in caplog.records
                    if r.name == "explore_sim.notices" and "probe" in r.getMessage()]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "numba-cache"
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(folder))
    return folder


# ------------------------------------------------------------------------------------------
# Keyed on the sources


def test_the_cache_folder_is_named_by_every_source_of_the_package(tmp_path, cache_dir):
    package = _package(tmp_path / "pkg")
    first = CompileCache(package, "probe")
    assert first.directory.parent == cache_dir
    assert first.directory.name == f"explore-sim-probe-{sources_digest(package)[:20]}"
    (package / "callee.py").write_text("def step(x):\n    return x + 2\n")  # not the caller
    second = CompileCache(package, "probe")
    assert second.directory != first.directory and first.directory.exists()
    (package / "sub").mkdir()
    (package / "sub" / "deep.py").write_text("X = 1\n")  # a sub-package counts too
    assert CompileCache(package, "probe").directory != second.directory
    also = tmp_path / "constants.py"
    also.write_text("N = 1\n")
    one = CompileCache(package, "probe", also=[also]).directory
    also.write_text("N = 2\n")
    assert CompileCache(package, "probe", also=[also]).directory != one


def test_folders_of_older_sources_are_removed_beyond_the_most_recent(tmp_path, cache_dir):
    package = _package(tmp_path / "pkg")
    folders = []
    for answer in range(KEEP_FOLDERS + 2):
        (package / "callee.py").write_text(f"def step(x):\n    return x + {answer}\n")
        folders.append(CompileCache(package, "probe").directory)
        os.utime(folders[-1], (1e9 + answer, 1e9 + answer))  # one a second, oldest first
    assert len(set(folders)) == len(folders)
    CompileCache(package, "probe")  # the newest sources again
    kept = sorted(path.name for path in cache_dir.iterdir())
    assert kept == sorted(folder.name for folder in folders[-KEEP_FOLDERS:])


def test_the_kernel_is_cached_in_the_folder_of_its_sources():
    import explore_sim.engine.kernel as kernel
    from explore_sim.engine.kernel import records

    cache = records.CACHE
    if cache.directory is None:
        pytest.skip(f"this checkout cannot cache the kernel: {cache.reason}")
    here = Path(kernel.__file__).parent
    assert here.parent / "config.py" in records.CONSTANT_SOURCES  # MAX_ACTIONS
    assert cache.directory.name.endswith(sources_digest(here, records.CONSTANT_SOURCES)[:20])
    assert Path(kernel.game.play_chunk._cache.cache_path).is_relative_to(cache.directory)
    # The functions it calls live in its machine code: no cache entries of their own.
    assert type(kernel.game.keep_hand._cache).__name__ == "NullCache"


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_an_edited_kernel_source_runs_its_new_code_with_numba_cache_dir(tmp_path):
    """A copy of the package, with two modules added to its kernel: the caller is cached, then
    the module it calls is edited. numba checks a cached function against its own file
    only; the cache folder, named by every source of the kernel, must change with it."""
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "explore_sim", copy / "explore_sim",
                    ignore=shutil.ignore_patterns("__pycache__"))
    kernel = copy / "explore_sim" / "engine" / "kernel"
    (kernel / "probe_callee.py").write_text(textwrap.dedent("""\
        from .records import compiled

        @compiled
        def step(x):
            return x + 1
        """))
    (kernel / "probe_caller.py").write_text(textwrap.dedent("""\
        from .probe_callee import step
        from .records import compiled

        @compiled(entry=True)
        def answer(x):
            return step(x) * 10
        """))
    script = ("import sys, explore_sim\n"
              "assert explore_sim.__file__.startswith(sys.argv[1]), explore_sim.__file__\n"
              "from explore_sim.engine.kernel.probe_caller import answer\n"
              "print(answer(1), len(answer.stats.cache_hits))\n")
    env = {**os.environ, "PYTHONPATH": str(copy), "NUMBA_CACHE_DIR": str(tmp_path / "numba")}

    def run() -> str:
        done = subprocess.run([sys.executable, "-c", script, str(copy)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        return done.stdout.split()

    assert run() == ["20", "0"]  # compiled
    assert run() == ["20", "1"]  # loaded from the cache
    (kernel / "probe_callee.py").write_text(
        (kernel / "probe_callee.py").read_text().replace("x + 1", "x + 2"))
    assert run() == ["30", "0"]  # the new code, compiled again


# ------------------------------------------------------------------------------------------
# A damaged entry is removed and compiled again, once said


@pytest.mark.parametrize("damage", list(DAMAGE))
@pytest.mark.parametrize("suffix", [".nbi", ".nbc"])
def test_a_damaged_entry_is_removed_and_compiled_again(tmp_path, cache_dir, notices, damage,
                                                       suffix):
    package = _package(tmp_path / "pkg")
    first = _compiled(CompileCache(package, "probe"), package)
    assert first(4) == 40 and not first.stats.cache_hits
    files = sorted(cache_dir.rglob(f"*{suffix}"))
    assert len(files) == 1
    files[0].write_bytes(DAMAGE[damage](files[0].read_bytes()))

    healed = _compiled(CompileCache(package, "probe"), package)
    assert healed(4) == 40 and not healed.stats.cache_hits
    said = notices()
    assert len(said) == 1 and "probe's cache held a damaged entry" in said[0], said
    assert "removed and is compiled again" in said[0]

    again = _compiled(CompileCache(package, "probe"), package)  # the healed entry loads
    assert again(4) == 40 and again.stats.cache_hits
    assert len(notices()) == 1


def test_an_entry_that_cannot_be_saved_leaves_the_function_compiled(tmp_path, cache_dir,
                                                                    notices, monkeypatch):
    package = _package(tmp_path / "pkg")
    cache = CompileCache(package, "probe")
    function = _compiled(cache, package)

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(type(function._cache).__mro__[1], "save_overload", refuse)
    assert function(2) == 20
    assert len(notices()) == 1 and "cannot be saved in its cache" in notices()[0]


# ------------------------------------------------------------------------------------------
# Nowhere to cache: compiled in memory


def _nowhere(tmp_path: Path, monkeypatch) -> Path:
    """A package whose ``__pycache__`` is a file, with NUMBA_CACHE_DIR and the user's cache
    folder under /dev/null (nothing can be made there, even by the superuser)."""
    package = _package(tmp_path / "pkg")
    (package / "__pycache__").write_text("not a folder")
    monkeypatch.setattr(numba.config, "CACHE_DIR", "/dev/null")
    monkeypatch.setenv("XDG_CACHE_HOME", "/dev/null/cache")
    return package


def test_nowhere_to_cache_compiles_in_memory_and_says_why(tmp_path, monkeypatch):
    package = _nowhere(tmp_path, monkeypatch)
    cache = CompileCache(package, "probe")
    assert cache.directory is None
    for place in ("NUMBA_CACHE_DIR /dev/null", "the package's __pycache__",
                  "the user's cache folder /dev/null/cache"):
        assert place in cache.reason, cache.reason
    function = _compiled(cache, package)
    assert function(3) == 30
    assert type(function._cache).__name__ == "NullCache"
    text = cache.notice("compiled once")
    assert text.startswith("compiling the probe in memory, as every run here will")
    assert "NUMBA_CACHE_DIR=FOLDER" in text and "\n" not in text


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize("numba_cache_dir", ["/dev/null", "", "FILE", "/dev/null/sub"])
def test_the_kernel_imports_with_nowhere_to_cache(tmp_path, numba_cache_dir):
    """A copy of the package that cannot be written beside its modules, a user without a
    home folder, and NUMBA_CACHE_DIR a device, empty, a file or under one: the kernel
    imports (its functions compiled in memory when run), and says why in one line."""
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "explore_sim", copy / "explore_sim",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "explore_sim" / "engine" / "kernel" / "__pycache__").write_text("not a folder")
    cache_dir = str(tmp_path / "a-file") if numba_cache_dir == "FILE" else numba_cache_dir
    Path(tmp_path / "a-file").write_text("x")
    script = ("import sys, explore_sim\n"
              "assert explore_sim.__file__.startswith(sys.argv[1]), explore_sim.__file__\n"
              "import explore_sim.engine.kernel as kernel\n"
              "from explore_sim.engine.kernel.records import CACHE\n"
              "print(CACHE.directory, type(kernel.game.play_chunk._cache).__name__)\n"
              "print(CACHE.notice(kernel.COMPILE_NOTICE))\n")
    env = {**os.environ, "PYTHONPATH": str(copy), "NUMBA_CACHE_DIR": cache_dir,
           "HOME": "/dev/null"}
    env.pop("XDG_CACHE_HOME", None)
    done = subprocess.run([sys.executable, "-c", script, str(copy)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=100)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    first, notice = done.stdout.splitlines()
    assert first == "None NullCache"
    assert notice.startswith("compiling the game kernel in memory"), notice
    assert "the user's cache folder /dev/null/.cache" in notice


# ------------------------------------------------------------------------------------------
# The real kernel: a corrupted cache is healed, with the numbers of a clean one


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_corrupted_kernel_cache_is_healed_with_the_same_numbers(tmp_path):
    """The kernel's cache copied to a NUMBA_CACHE_DIR of its own, then the compiled game's
    machine code replaced by 100,000 random bytes: the next run says so once, compiles the
    game again and gives the clean cache's numbers; the run after loads the healed entry."""
    from explore_sim import simulate
    from explore_sim.engine.kernel.records import CACHE

    if CACHE.directory is None:
        pytest.skip(f"this checkout cannot cache the kernel: {CACHE.reason}")
    simulate(DECK, trials=200, turns=2, seed=1, engine="kernel")  # the kernel is cached
    numba_dir = tmp_path / "numba"
    shutil.copytree(CACHE.directory, numba_dir / CACHE.directory.name)
    script = textwrap.dedent(f"""\
        import logging, sys
        logging.getLogger("explore_sim.notices").addHandler(logging.StreamHandler(sys.stderr))
        logging.getLogger("explore_sim.notices").setLevel(logging.INFO)
        from explore_sim import simulate
        result = simulate({str(DECK)!r}, trials=3000, turns=4, seed=7, engine="kernel")
        print(result.summary().to_csv(index=False))
        """)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(numba_dir)}

    def run() -> subprocess.CompletedProcess:
        done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=400)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        return done

    clean = run()
    assert "damaged" not in clean.stderr and "compiling" not in clean.stderr, clean.stderr
    machine_code = sorted(numba_dir.rglob("game.play_chunk-*.nbc"))
    assert len(machine_code) == 1
    machine_code[0].write_bytes(DAMAGE["random bytes"](b""))
    healed = run()
    assert healed.stdout == clean.stdout
    damaged = [line for line in healed.stderr.splitlines() if "damaged entry" in line]
    assert len(damaged) == 1, healed.stderr
    assert damaged[0].startswith("the game kernel's cache held a damaged entry (game.play_chunk")
    again = run()
    assert again.stdout == clean.stdout and again.stderr == "", again.stderr


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_the_kernel_imports_with_numba_disable_jit(tmp_path):
    """NUMBA_DISABLE_JIT leaves plain Python functions: nothing to cache, nothing refused."""
    script = ("import explore_sim.engine.kernel as kernel\n"
              "print(type(kernel.game.play_chunk).__name__)\n")
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=100)
    assert done.returncode == 0 and done.stdout.strip() == "function", done.stderr
