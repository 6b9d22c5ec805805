"""The documentation's pages (README.md and docs/**/*.md) show what their commands print,
their Python examples run as written (with fewer trials) and do what they say, and their
links resolve.

A command shown with its output is a shell block of one ``explore-sim`` command followed
(after at most one paragraph) by a plain block: every line of that block must be printed, in
order (an output may be shown in part, with ``...`` where lines are left out); the seeds make
the numbers exact, so a changed digit fails, naming the page and the command. ``serve``
(which runs until stopped) is left out; the line it prints is checked by
:func:`test_getting_started_shows_the_line_serve_prints`.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import tomllib
from pathlib import Path

import pytest
from conftest import ROOT

DOCS = ROOT / "docs"
#: Every page: the README, then the documentation site's pages (built output left out).
PAGES = [ROOT / "README.md", *sorted(p for p in DOCS.rglob("*.md")
                                     if "_build" not in p.parts and "generated" not in p.parts)]
#: Pages whose Python blocks are fragments of the package's own files, not scripts
#: (docs/contributing.md's example is played by tests/test_contributing.py).
FRAGMENTS = {"docs/contributing.md"}
#: Pages whose Python examples go on from another page's (run first, in one namespace).
CONTINUES = {"docs/guide/plots.md": "docs/guide/python.md"}
#: Commands shown without being run here.
NOT_RUN = ("explore-sim serve",)
#: A shell block of one explore-sim command, at most one paragraph, then a plain block.
SHOWN = re.compile(r"```sh\n(explore-sim [^`]*?)\n```\n\n(?:(?:(?!\n\n)[^`])*\n\n)?```\n(.*?)```",
                   flags=re.DOTALL)


def page_name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def text(page: str) -> str:
    return (ROOT / page).read_text(encoding="utf-8")


def shown_outputs(source: str) -> list[tuple[str, str]]:
    """``(command, output)`` of every command a page shows with its output."""
    return [(command.replace("\\\n", " "), output) for command, output in SHOWN.findall(source)
            if not command.startswith(NOT_RUN)]


SHOWN_OUTPUTS = [(page_name(path), command, output) for path in PAGES
                 for command, output in shown_outputs(path.read_text(encoding="utf-8"))]


def printed_in_order(printed: str, shown: str) -> str | None:
    """The first shown line that is not printed (in order), or None."""
    lines = iter(line.rstrip() for line in printed.splitlines())
    for line in shown.splitlines():
        line = line.rstrip()
        if line and line.strip() not in ("...", "…") and line not in lines:
            return line
    return None


def run_command(command: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run ``command`` as ``explore-sim`` runs it, in ``cwd`` (an empty folder: shipped decks
    are named by their short names), in
    this process: :func:`explore_sim.cli.main` with its standard streams captured, which
    spares a process start per command."""
    import contextlib
    import io
    import os

    from explore_sim.cli import main

    words = shlex.split(command)[1:]
    out, err, here = io.StringIO(), io.StringIO(), os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(words)
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(words, status, out.getvalue(), err.getvalue())


@pytest.mark.slow
@pytest.mark.parametrize(("page", "command", "output"), SHOWN_OUTPUTS,
                         ids=[f"{page}: {command[:60]}" for page, command, _ in SHOWN_OUTPUTS])
def test_the_pages_show_what_their_commands_print(page, command, output, tmp_path):
    out = run_command(command, tmp_path)
    assert out.returncode == 0, f"{page}: `{command}` failed: {out.stderr}"
    missing = printed_in_order(out.stdout, output)
    assert missing is None, f"{page}: `{command}` does not print (in order): {missing!r}"


def test_a_changed_digit_is_caught():
    """The comparison the command test makes: one digit changed is a line not printed."""
    printed = "metric mean\ncounters 1.3806\nmilled 0.1719\n"
    assert printed_in_order(printed, "counters 1.3806\n...\nmilled 0.1719\n") is None
    assert printed_in_order(printed, "counters 1.3807\n") == "counters 1.3807"
    assert printed_in_order(printed, "milled 0.1719\ncounters 1.3806\n") == "counters 1.3806"


def test_every_page_section_that_was_checked_is_still_found():
    """The pages that carry commands with outputs are read (a broken pattern finds none)."""
    pages = {page for page, _, _ in SHOWN_OUTPUTS}
    for page in ("docs/getting-started.md", "docs/guide/explore.md",
                 "docs/guide/simulate.md", "docs/guide/casting.md", "docs/guide/commander.md",
                 "docs/guide/compare.md", "docs/guide/value.md", "docs/guide/advise.md",
                 "docs/guide/sweep.md", "docs/guide/metrics.md"):
        assert page in pages, f"{page} shows no command with its output any more"
    assert len(SHOWN_OUTPUTS) >= 16


def python_blocks(page: str) -> str:
    blocks = re.findall(r"```python\n(.*?)```", text(page), flags=re.DOTALL)
    return re.sub(r"trials=\d[\d_]*", "trials=2_000", "\n".join(blocks))


PYTHON_PAGES = [page_name(p) for p in PAGES
                if "```python\n" in p.read_text(encoding="utf-8")
                and page_name(p) not in FRAGMENTS]


def run_page(page: str, namespace: dict) -> dict:
    """Run a page's Python blocks (after the page it continues) in ``namespace``."""
    if page in CONTINUES:
        run_page(CONTINUES[page], namespace)
    try:
        exec(compile(python_blocks(page), page, "exec"), namespace)  # noqa: S102
    except Exception as error:  # the page's name and the failing line, not a bare traceback
        raise AssertionError(f"{page}: its Python example fails: {error!r}") from error
    return namespace


def check_python_page(page: str, namespace: dict) -> None:
    """What each page's example says it does."""
    import matplotlib.pyplot as plt

    if page == "docs/guide/python.md":
        versus, again = namespace["versus"], namespace["again"]
        assert again.attrs["explore_sim"] == versus.meta
        assert again.attrs["explore_sim"]["seed"] == 1
        assert again.attrs["explore_sim"]["policy"] == ["keep", "mill", "forge"]
        assert list(again["policy"].cat.categories) == ["keep", "mill", "forge"]
        titles = [[ax.get_title() for ax in plt.figure(n).axes] for n in plt.get_fignums()]
        assert ["deck = Lost Caverns Merfolk Explore", "deck = xln_sultai_explore"] in titles
        assert namespace["tuned"].winner
    if page == "docs/guide/plots.md":
        assert [ax.get_title() for ax in namespace["figure"].axes] == [
            "on_curve", "on_curve: paired difference", "counters", "counters: paired difference"]
    if page == "docs/getting-started.md":
        fixed = namespace["fixed"]
        assert fixed.features().explores[fixed.features().id_of(fixed.cards[0])] == 2
        assert fixed.table()["source"].iloc[0] == "card file fixes.toml"
    if page == "docs/guide/sweep.md":
        assert (namespace["tmp"] / "lands.parquet").is_file()
    if page == "docs/guide/damage.md":
        clock = namespace["clock"]
        assert clock.median == 6 and 5 < clock.mean < 6.5 and len(clock.by_turn) == 7
    if page == "README.md":
        assert list(namespace["result"].summary()["metric"])[:2] == ["explores", "counters"]


@pytest.mark.slow
@pytest.mark.parametrize("page", PYTHON_PAGES)
def test_the_python_examples_run(page, tmp_path, monkeypatch):
    pytest.importorskip("seaborn")
    pytest.importorskip("pyarrow")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)  # an empty folder: the shipped decks go by their names
    try:
        namespace = run_page(page, {"tmp": tmp_path})
        check_python_page(page, namespace)
    finally:
        plt.close("all")


def test_the_pages_with_python_examples_are_run():
    for page in ("README.md", "docs/guide/python.md", "docs/guide/plots.md",
                 "docs/getting-started.md", "docs/guide/sweep.md", "docs/guide/policies.md"):
        assert page in PYTHON_PAGES, page


@pytest.mark.parametrize("path", PAGES, ids=page_name)
def test_every_code_block_is_closed(path):
    """An unclosed fence would swallow the rest of the page (and the outputs it shows)."""
    fences = [line for line in path.read_text(encoding="utf-8").splitlines()
              if line.startswith("```")]
    assert len(fences) % 2 == 0, f"{page_name(path)}: a code block is not closed"


LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
#: The project's own pages and pictures as the package index shows the README: absolute
#: links into the repository (its Source URL, pyproject.toml), read here as the files they are.
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
SOURCE = PROJECT["urls"]["Source"]
ABSOLUTE = (f"{SOURCE}/blob/main/",
            SOURCE.replace("https://github.com/", "https://raw.githubusercontent.com/")
            + "/main/")


def links(path: Path) -> list[str]:
    """Every relative link and picture of a page (code blocks left out), and every absolute
    link into the repository, as the path of its file from the page."""
    source = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    found = []
    for target in LINK.findall(source):
        prefix = next((p for p in ABSOLUTE if target.startswith(p)), None)
        if prefix is not None:
            found.append(os.path.relpath(ROOT / target[len(prefix):], path.parent))
        elif not re.match(r"[a-z][a-z0-9+.-]*:", target):
            found.append(target)
    return found


def test_the_readme_reads_right_on_the_package_index():
    """The README is the package index's page: its links and its picture are absolute (a
    relative link leads nowhere there), into the repository, and it installs from the index."""
    readme = ROOT / "README.md"
    source = re.sub(r"```.*?```", "", readme.read_text(encoding="utf-8"), flags=re.DOTALL)
    targets = LINK.findall(source)
    relative = [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:|#", t)]
    assert not relative, f"README.md: relative links: {relative}"
    assert sum(t.startswith(ABSOLUTE) for t in targets) >= 20
    assert any(t.startswith(ABSOLUTE[1]) and t.endswith(".png") for t in targets)
    assert "pip install 'explore_sim[fast]'" in readme.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", PAGES, ids=page_name)
def test_every_link_resolves(path):
    for target in links(path):
        file, _, anchor = target.partition("#")
        where = (path.parent / file).resolve() if file else path
        assert where.exists(), f"{page_name(path)}: the link {target!r} leads nowhere"
        if anchor and where.suffix == ".md":
            headings = re.findall(r"^#+ (.*)$", where.read_text(encoding="utf-8"),
                                  flags=re.MULTILINE)
            slugs = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-")
                     for h in headings}
            assert anchor in slugs, f"{page_name(path)}: no heading #{anchor} in {file}"


def test_the_link_check_finds_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("[a](missing.md) and ![b](here.png)\n```\n[c](ignored.md)\n```\n")
    assert links(page) == ["missing.md", "here.png"]
    assert not (tmp_path / "missing.md").exists()


def test_getting_started_shows_the_line_serve_prints(monkeypatch):
    """``serve`` prints one line with its address and limits before serving (stopped at once
    here)."""
    pytest.importorskip("uvicorn")
    import io

    import uvicorn

    from explore_sim.web.server import serve

    shown = re.search(r"^explore-sim: serving .*$", text("docs/getting-started.md"),
                      flags=re.MULTILINE)
    assert shown, "docs/getting-started.md: the line serve prints is not shown"
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    stream = io.StringIO()
    serve("127.0.0.1", 0, stream=stream)
    port = re.search(r"127\.0\.0\.1:(\d+)/", stream.getvalue()).group(1)
    assert stream.getvalue().strip() == shown.group(0).replace(":8765/", f":{port}/")


def gallery_commands() -> list[str]:
    """The commands of docs/gallery.md, each drawing a figure with ``--plot``."""
    blocks = re.findall(r"```sh\n(explore-sim .*?)\n```", text("docs/gallery.md"), flags=re.DOTALL)
    return [block.replace("\\\n", " ") for block in blocks]


@pytest.mark.slow
@pytest.mark.parametrize("command", gallery_commands(), ids=lambda command: command[:50])
def test_the_gallery_commands_draw_their_figures(command, tmp_path):
    """Each runs as written (with fewer trials, on one worker) and writes its figure."""
    (tmp_path / "shell.txt").write_text("24 Forest\n36 Grizzly Bears\n", encoding="utf-8")
    small = re.sub(r"--trials \d+", "--trials 500", command).replace("--workers 0", "")
    out = run_command(small, tmp_path)
    assert out.returncode == 0, f"docs/gallery.md: `{command}` failed: {out.stderr}"
    figure = re.search(r"--plot (\S+)", command).group(1)
    assert (tmp_path / figure).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", command


def test_the_gallery_shows_every_figure():
    gallery = text("docs/gallery.md")
    for figure in sorted((DOCS / "figures").glob("*.png")):
        assert f"(figures/{figure.name})" in gallery, figure.name
    assert len(gallery_commands()) == 4
