"""The web page: a Starlette application over the analyses of :mod:`explore_sim.web.analyses`.

Routes::

    GET  /                      the page; ?shipped=NAME loads a shipped deck; a permalink's
                                query string (…&run=1) fills the form, and the page's own
                                script submits it when the browser says the link was opened
                                from this page or by the user (a GET never starts a run)
    POST /                      the page's form: run, switch analysis, load a shipped deck
    GET  /jobs/ID               a run: its progress, then its result (works without JavaScript)
    GET  /jobs/ID/events        progress as server-sent events; closing it cancels the run
    GET  /jobs/ID/status        progress as JSON
    POST /jobs/ID/cancel        stop the run
    GET  /jobs/ID/result        the result as an HTML fragment
    GET  /jobs/ID/figure.svg    the figure (the package's plotting helpers)
    GET  /jobs/ID/download.csv  the command line's --format csv output (and .json)
    GET  /replay?job=ID&trial=K one game of a goldfish run, played again with its log; or
                                &metric=M&turn=T&value=V: a game of that bucket
                                (:mod:`explore_sim.web.replay_part`)

Every response carries a strict Content-Security-Policy (scripts and styles only from
/static, no inline script) and the other headers of :mod:`explore_sim.web.middleware`,
templates auto-escape, request bodies are capped, a POST from another site's page is refused,
a run's cost is capped before it is queued (:mod:`explore_sim.web.costs`), and no error shows
a traceback or an exception's name.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import logging
import secrets
import tempfile
import threading
import warnings
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jinja2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp

from .._version import __version__
from ..analysis.engines import kernel_compiling, kernel_unavailable
from ..analysis.simulate import simulate
from ..cards.card_index import CardIndex, cards_dir
from ..cards.decklist import MAX_DECK_BYTES
from ..cards.shipped import DECKS_DIR, SHORT_NAMES
from ..cards.template import card_template
from ..errors import CardError, DeckError, ExploreSimError, clip
from .analyses import ANALYSES, Analysis, describe_run
from .costs import cost_errors
from .decks import (
    MAX_CARD_FILE_CHARS,
    MAX_CARD_FILES,
    DeckInput,
    ShippedDeck,
    card_file_keys,
    card_file_text,
    card_sources_for,
    card_texts,
    deck_problems,
    normalised_deck_text,
    read_deck,
    shipped_decks,
    shipped_texts,
    short_paths,
)
from .form_state import SEEN_KEY, LinkStore, pack_decks, saved_fields, switch_tab, unseen_notes
from .forms import parse_fields, problem_summary, query_pairs
from .jobs import Busy, Job, Jobs
from .middleware import BodyLimit, SameOrigin, SecurityHeaders, message_page, own_navigation
from .replay_part import replay_view, sample_games

__all__ = ["Settings", "create_app", "default_decks_dir", "LOOPBACK_HOSTS"]

log = logging.getLogger("explore_sim.web")

HERE = Path(__file__).parent
#: Host names a loopback server answers to (anything else is refused: DNS rebinding).
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
#: The longest permalink with its decks in plain text; longer decks go compressed, else are
#: kept on the server (:mod:`.form_state`).
MAX_LINK = 8000
_FIGURE_LOCK = threading.Lock()  # matplotlib's font cache and text layout are shared state


def default_decks_dir() -> Path | None:
    """The shipped decks: the package's own (:data:`~explore_sim.cards.shipped.DECKS_DIR`,
    package data, so every install has them).

    Returns
    -------
    Path or None
        None if that directory is missing (a damaged install).
    """
    return DECKS_DIR if DECKS_DIR.is_dir() else None


@dataclasses.dataclass(frozen=True)
class Settings:
    """What the server allows.

    Attributes
    ----------
    max_trials : int
        Trials (games, shuffles) one run may ask for.
    max_runs : int
        Runs at once.
    max_queued : int
        Runs waiting beyond those; past that the page says the server is busy.
    max_body : int
        Bytes of one request body (a decklist is at most 1 MB, a card file 512 KB).
    decks_dir : Path or None
        Where the shipped decks are.
    cards_dir : Path or None
        The imported card index's directory (None: the default).
    orphan_seconds : float
        A run no page watches for this long is cancelled.
    reopen_seconds : float
        A run whose page was closed is cancelled unless the page is opened again within this
        long (a reload picks the run up).
    keep : int
        Finished runs kept for their results and downloads.
    allowed_hosts : tuple of str, optional
        Host names the server answers to (None: any).
    max_game_turns : int
        Game turns (trials x deck variants x turns) one run may play.
    max_at_once : int
        Game turns one chunk of a run may play at once: they are in memory together (about
        125 bytes each) and a cancel waits for the chunk.
    max_connections : int
        Connections served at once; a request beyond them is answered 503.
    header_seconds : float
        A connection's request line and headers must arrive within this many seconds (from
        the connection, or from the first byte of a next request).
    body_seconds : float
        A request's body must arrive within this many seconds of its headers.
    """

    max_trials: int = 1_000_000
    max_runs: int = 1
    max_queued: int = 4
    max_body: int = MAX_DECK_BYTES + MAX_CARD_FILE_CHARS + 32 * 1024
    decks_dir: Path | None = dataclasses.field(default_factory=default_decks_dir)
    cards_dir: Path | None = None
    orphan_seconds: float = 20.0
    reopen_seconds: float = 5.0
    keep: int = 32
    allowed_hosts: tuple[str, ...] | None = None
    max_game_turns: int = 100_000_000
    max_at_once: int = 8_000_000
    max_connections: int = 100
    header_seconds: float = 10.0
    body_seconds: float = 60.0


# ------------------------------------------------------------------------------ the page state

@dataclasses.dataclass
class PageState:
    """What one rendering of the page shows: the form as typed, its errors, and the run."""

    analysis: Analysis
    data: dict[str, str]
    errors: dict[str, str] = dataclasses.field(default_factory=dict)
    problems: dict[str, list] = dataclasses.field(default_factory=dict)
    notes: list[str] = dataclasses.field(default_factory=list)
    message: str = ""
    job: Job | None = None


_DECK_KEYS = ("deck", "base", "deck2", "base2",
              *(key for index in range(MAX_CARD_FILES) for key in card_file_keys(index)))
#: Error keys the page shows beside their own part of the form; any other error (one about
#: several fields at once, such as an impossible position) is shown above the form.
_FORM_ERROR_KEYS = ("deck", "deck2", "base", "base2", "cards_file")


def _plain(data: Mapping[str, Any]) -> dict[str, str]:
    """The text values of a form or query string (files left out)."""
    return {key: value for key, value in data.items() if isinstance(value, str)}


class WebApp:
    """The application's state and handlers (one per server)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._directories = (settings.decks_dir, cards_dir(settings.cards_dir))
        CardIndex.open_default(settings.cards_dir)  # a card directory that is none: refused
        self.decks: dict[str, ShippedDeck] = shipped_decks(settings.decks_dir)
        self.jobs = Jobs(settings.max_runs, settings.max_queued, settings.keep,
                         settings.orphan_seconds, settings.reopen_seconds, describe=self.short)
        self._deck_texts = shipped_texts(self.decks)
        env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"),
                                 autoescape=True, undefined=jinja2.StrictUndefined)
        env.filters["thousands"] = lambda n: f"{n:,}"
        self.templates = Jinja2Templates(env=env)
        self._warnings_lock = threading.Lock()
        self.links = LinkStore()

    # -------------------------------------------------------------------- rendering

    def render(self, request: Request, state: PageState, status: int = 200,
               autorun: bool = False) -> Response:
        analysis = state.analysis
        fields = [
            {"field": f, "value": state.data.get(f.name, f.to_form(f.default))
             if f.kind != "flag" else f.parse(state.data.get(f.name)),
             "error": state.errors.get(f.name, "")}
            for f in analysis.fields
        ]
        slots = [{"slot": "deck", "base_key": "base", "label": "Decklist",
                  "text": state.data.get("deck", ""), "base": state.data.get("base", ""),
                  "problems": state.problems.get("deck", []),
                  "error": state.errors.get("deck", "")}]
        if analysis.second_deck:
            slots.append({"slot": "deck2", "base_key": "base2",
                          "label": "Second deck (optional)",
                          "text": state.data.get("deck2", ""), "base": state.data.get("base2", ""),
                          "problems": state.problems.get("deck2", []),
                          "error": state.errors.get("deck2", "")})
        summary = problem_summary(fields, slots, state.errors)
        placed = {f.name for f in analysis.fields} | set(_FORM_ERROR_KEYS)
        stray = [text for key, text in state.errors.items() if key not in placed]
        message = "; ".join([state.message, *stray]) if state.message else "; ".join(stray)
        job = state.job
        more_cards = [dict(zip(("text_key", "format_key", "name_key"), keys),
                           text=state.data[keys[0]], format=state.data.get(keys[1], "toml"),
                           name=state.data.get(keys[2], "") or "cards")
                      for keys in map(card_file_keys, range(1, MAX_CARD_FILES))
                      if state.data.get(keys[0], "").strip()]
        context = {
            "more_cards": more_cards, "max_card_files": MAX_CARD_FILES,
            "analyses": list(ANALYSES.values()), "analysis": analysis, "fields": fields,
            "slots": slots, "shipped": list(self.decks), "data": state.data,
            "shipped_labels": {stem: (f"{SHORT_NAMES[stem]} ({stem})" if stem in SHORT_NAMES
                                      else stem) for stem in self.decks},
            "carried": saved_fields(state.data),
            "errors": state.errors, "notes": state.notes, "message": message,
            "summary": summary,
            "job": job, "view": self.view(job) if job is not None else None,
            "settings": self.settings, "version": __version__, "autorun": autorun,
        }
        return self.templates.TemplateResponse(request, "page.html", context,
                                               status_code=status)

    def view(self, job: Job) -> dict[str, Any]:
        """What the result area shows for ``job``."""
        context = job.context
        view: dict[str, Any] = {
            "id": job.id, "state": job.state, "done": job.done, "total": job.total,
            "percent": round(100 * job.fraction()), "error": job.error,
            "position": self.jobs.position(job), "permalink": context.get("permalink"),
            "link_note": context.get("link_note", ""), "analysis": context["analysis"],
        }
        outcome = job.outcome if job.final else None
        view["has_result"] = outcome is not None  # done, or cancelled with trials finished
        view["notice"] = cancel_notice(job) if job.state == "cancelled" else ""
        view["note"] = running_note(job)
        view["elapsed"], view["left"] = job.timing()
        if outcome is not None:
            view.update(tables=outcome["tables"], facts=outcome["facts"],
                        figure_error=outcome["figure_error"], has_figure=outcome["svg"] is not None,
                        assumptions=outcome["result"].meta.get("assumptions", []),
                        samples=outcome.get("samples", []),
                        seconds=f"{(job.finished or 0) - (job.started or 0):.1f}")
        return view

    def status(self, job: Job) -> dict[str, Any]:
        elapsed, left = job.timing()
        return {"id": job.id, "state": job.state, "done": job.done, "total": job.total,
                "position": self.jobs.position(job), "error": job.error,
                "note": running_note(job), "elapsed": elapsed, "left": left}

    # -------------------------------------------------------------------- handlers

    async def page(self, request: Request) -> Response:
        """The page; a permalink's query string fills its form. A GET never starts a run:
        the page's script submits a permalink's form (a POST from the page itself) when the
        browser says the link was opened from this page or by the user."""
        data = _plain(request.query_params)
        analysis = ANALYSES.get(data.get("analysis", ""), ANALYSES["explore"])
        state = PageState(analysis, data)
        state.message = self.links.unpack(data, _DECK_KEYS, self.settings.max_body)
        autorun = False
        if data.pop("run", None) is not None:
            autorun = own_navigation(request.headers)
            state.notes.append(
                "This permalink's run starts as soon as the page has loaded (without "
                "JavaScript: press Run)." if autorun else
                "This link fills the form with a run: press Run to start it (a link from "
                "another site, or one a browser does not vouch for, never starts a run).")
        for slot, base in (("deck", "base"), ("deck2", "base2")):
            name = data.pop("shipped" if slot == "deck" else "shipped2", None)
            if name:  # a file read: off the event loop, which answers every request
                await run_in_threadpool(self._load_shipped, state, slot, base, name)
        return self.render(request, state, 400 if state.errors or state.message else 200,
                           autorun=autorun and not state.errors and not state.message)

    def _load_shipped(self, state: PageState, slot: str, base: str, name: str) -> None:
        if not name:
            state.errors[slot] = "choose a shipped deck to load"
            return
        deck = self.decks.get(name)
        if deck is None:
            state.errors[slot] = f"no shipped deck called {clip(name)!r}"
            return
        try:
            state.data[slot] = deck.text()
        except DeckError as error:  # changed since the server started
            state.errors[slot] = f"the shipped deck {clip(name)!r} cannot be read: " + \
                self.short(str(error))
            return
        state.data[base] = name

    async def submit(self, request: Request) -> Response:
        try:
            form = await request.form(max_files=2 * MAX_CARD_FILES, max_fields=100,
                                      max_part_size=self.settings.max_body)
        except ClientDisconnect:  # gone (or timed out) before its form arrived: no answer
            return Response(status_code=400)
        except HTTPException as error:
            return HTMLResponse(message_page("Bad request", f"The form could not be read: "
                                              f"{error.detail}"), status_code=400)
        data = _plain(form)
        uploads = [upload for upload in form.getlist("cards_file")
                   if isinstance(upload, UploadFile) and upload.filename]
        action = data.get("action", "run")
        if action.startswith("switch:"):
            analysis = ANALYSES.get(action[7:], ANALYSES["explore"])
            previous = ANALYSES.get(data.get("analysis", ""))
            data = switch_tab(data, previous.name if previous else None,
                              [f.name for f in previous.fields] if previous else [],
                              analysis.name, [f.name for f in analysis.fields])
            data["analysis"] = analysis.name
            return self.render(request, PageState(analysis, data))
        if action.startswith("load:"):
            analysis = ANALYSES.get(data.get("analysis", ""), ANALYSES["explore"])
            state = PageState(analysis, data)
            slot = "deck2" if action == "load:deck2" else "deck"
            base = "base2" if slot == "deck2" else "base"
            await run_in_threadpool(self._load_shipped, state, slot, base,
                                    data.get("shipped2" if slot == "deck2" else "shipped", ""))
            return self.render(request, state, 400 if state.errors else 200)
        if action in ("template:deck", "template:deck2"):
            return await run_in_threadpool(self.card_file_template, data, action[9:])
        return await self.start(request, data, uploads)

    def card_file_template(self, data: Mapping[str, str], slot: str) -> Response:
        """The ``cards template`` skeleton for the unknown cards of the deck in ``slot``, as a
        file to download: the cards the shipped deck's card files, the pasted card file and
        the card index know are left out."""
        base = data.get("base2" if slot == "deck2" else "base", "")
        files: list[Path] = list(self.decks[base].card_files) if base in self.decks else []
        text = data.get(slot, "")
        with tempfile.TemporaryDirectory(prefix="explore-sim-template-") as folder:
            for index, card in enumerate(card_texts(data)):  # the page's card files
                suffix = "csv" if card.format == "csv" else "toml"
                files.append(Path(folder) / f"cards{index}.{suffix}")
                files[-1].write_text(card.text, encoding="utf-8")
            try:
                skeleton = card_template(text if "\n" in text else text + "\n", cards=files,
                                         cards_dir=self.settings.cards_dir)
            except ExploreSimError as error:
                return Response(self.short(str(error)) + "\n", status_code=400,
                                media_type="text/plain; charset=utf-8")
        return Response(skeleton, media_type="text/plain; charset=utf-8", headers={
            "Content-Disposition": 'attachment; filename="cards.toml"'})

    async def start(self, request: Request, data: dict[str, str],
                    uploads: list[UploadFile]) -> Response:
        """Check everything that can be checked, then queue the run and show it."""
        analysis = ANALYSES.get(data.get("analysis", ""))
        if analysis is None:
            state = PageState(ANALYSES["explore"], data)
            state.message = (f"unknown analysis {clip(data.get('analysis', ''))!r}; choose one "
                             f"of {', '.join(ANALYSES)}")
            return self.render(request, state, 400)
        state = PageState(analysis, data)
        if uploads:
            await self._read_uploads(uploads, state)
        options, errors = parse_fields(analysis.fields, data)
        state.errors.update(errors)
        trials = options.get("trials")
        if trials is not None and trials > self.settings.max_trials:
            state.errors["trials"] = (f"trials: at most {self.settings.max_trials:,} per run on "
                                      f"this server, got {trials:,} (explore-sim serve "
                                      "--max-trials raises the cap)")
        if state.errors.get("cards_file"):
            return self.render(request, state, 400)
        decks = await run_in_threadpool(self._check, analysis, state, options)
        if state.errors or state.problems or decks is None:
            return self.render(request, state, 400)
        state.errors.update(cost_errors(analysis.name, options, decks,
                                        self.settings.max_game_turns, self.settings.max_at_once))
        if state.errors:
            return self.render(request, state, 400)
        if options["seed"] is None:  # a fresh one, in the result and the permalink; the
            options["seed"] = secrets.randbelow(2**32)  # form keeps its blank for the next run
        state.notes, data[SEEN_KEY] = unseen_notes(  # each deck's notes once
            state.notes, [data.get("deck", ""), data.get("deck2", "")], data.get(SEEN_KEY, ""))
        context: dict[str, Any] = {"analysis": analysis.name, "options": options,
                                   "form": dict(data), "notes": state.notes}
        context.update(self._permalink(analysis, data, options["seed"]))
        work = self._work(analysis, decks, options)
        try:
            job = self.jobs.submit(options["trials"], work, context)
        except Busy as busy:
            state.message = str(busy)
            response = self.render(request, state, 503)
            response.headers["Retry-After"] = "30"
            return response
        return RedirectResponse(f"/jobs/{job.id}", status_code=303)

    async def _read_uploads(self, uploads: list[UploadFile], state: PageState) -> None:
        """The uploaded card files into the form, in order, replacing its card files (each
        checked by :func:`.decks.card_file_text`; at most ``MAX_CARD_FILES``)."""
        texts, error = [], ""
        for upload in uploads:
            raw = await upload.read(MAX_CARD_FILE_CHARS + 1)
            await upload.close()
            if not error and len(uploads) <= MAX_CARD_FILES:
                try:
                    texts.append(card_file_text(upload.filename or "", raw))
                except CardError as refused:
                    error = str(refused)
        if len(uploads) > MAX_CARD_FILES:
            error = (f"card files: at most {MAX_CARD_FILES} at once on this page, got "
                     f"{len(uploads)}")
        if error:
            state.errors["cards_file"] = error
            return
        for index in range(MAX_CARD_FILES):
            for key in card_file_keys(index):
                state.data.pop(key, None)
        for index, card in enumerate(texts):
            text_key, format_key, name_key = card_file_keys(index)
            state.data.update({text_key: card.text, format_key: card.format,
                               name_key: card.name})

    def _check(self, analysis: Analysis, state: PageState,
               options: dict[str, Any]) -> list | None:
        """Card sources, decks and the analysis's own checks (in a worker thread)."""
        data = state.data
        with self._warnings_lock, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for slot, key in (("deck", "base"), ("deck2", "base2")):
                known = self._deck_texts.get(normalised_deck_text(data.get(slot, "")))
                if known is not None and not data.get(key):  # a shipped deck, pasted as it is
                    data[key] = known
                    state.notes.append(f"The {'second ' if slot == 'deck2' else ''}deck is the "
                                       f"shipped deck {known}: its card file is read with it.")
            bases = [data.get(key) or None for key in ("base", "base2")]
            companions: list[Path] = []
            for key, base in zip(("base", "base2"), bases):
                if base is not None and base not in self.decks:
                    state.errors[key] = f"no shipped deck called {clip(base)!r}"
                elif base is not None:
                    companions.extend(self.decks[base].card_files)
            try:
                sources = card_sources_for(card_texts(data), list(dict.fromkeys(companions)),
                                           self.settings.cards_dir)
            except CardError as error:
                state.errors["cards_file"] = self.short(str(error))
                return None
            decks = []
            shipped = [self._deck_texts.get(normalised_deck_text(data.get(slot, "")))
                       for slot in ("deck", "deck2")]
            inputs = [DeckInput("deck", "deck", data.get("deck", ""), bases[0], shipped[0])]
            if analysis.second_deck and data.get("deck2", "").strip():
                inputs.append(DeckInput("deck2", "second deck", data["deck2"], bases[1],
                                        shipped[1]))
            for deck_input in inputs:
                try:
                    decks.append(read_deck(deck_input, sources))
                except DeckError as error:
                    state.problems[deck_input.slot] = deck_problems(error, deck_input.text)
            if not state.problems and not state.errors:
                state.errors.update(analysis.check(options, decks, sources))
        state.notes.extend(self.short(" ".join(str(w.message).split())) for w in caught)
        state.errors.update({key: self.short(text) for key, text in state.errors.items()})
        return decks

    def short(self, text: str) -> str:
        """A message with the server's paths shortened (:func:`.decks.short_paths`)."""
        return short_paths(text, self._directories)

    def _permalink(self, analysis: Analysis, data: Mapping[str, str],
                   seed: int) -> dict[str, str | None]:
        """The link whose query string runs the same analysis on the same input and seed."""
        values, _ = parse_fields(analysis.fields, data)
        values["seed"] = seed
        decks = [(key, data[key]) for key in _DECK_KEYS if data.get(key)]
        options = query_pairs(analysis.fields, values) + [("run", "1")]
        link = "/?" + urlencode([("analysis", analysis.name), *decks, *options])
        if len(link) > MAX_LINK:  # the decks compressed, else kept here under their digest
            packed = pack_decks(decks)
            link = "/?" + urlencode([("analysis", analysis.name), ("z", packed), *options])
            if len(link) > MAX_LINK:
                link = "/?" + urlencode([("analysis", analysis.name),
                                         ("stored", self.links.put(packed)), *options])
        return {"permalink": link}

    @staticmethod
    def _work(analysis: Analysis, decks: list, options: dict[str, Any]
              ) -> Callable[[Callable[[int, int], None]], dict[str, Any]]:
        def work(progress: Callable[[int, int], None]) -> dict[str, Any]:
            result = analysis.run(decks, options, progress)
            tables = analysis.tables(result, options)
            svg, figure_error = None, ""
            if analysis.figure is not None:  # None: the command draws no figure
                try:
                    with _FIGURE_LOCK:
                        figure = analysis.figure(result, options)
                        buffer = io.BytesIO()
                        figure.savefig(buffer, format="svg")
                    svg = buffer.getvalue()
                except ExploreSimError as error:
                    figure_error = str(error)
            variants = analysis.replays(decks, options, result) if analysis.replays else []
            return {"result": result, "tables": tables, "svg": svg,
                    "figure_error": figure_error, "facts": describe_run(result),
                    "variants": variants, "samples": sample_games(variants, result.meta)}

        return work

    def _job(self, request: Request) -> Job:
        job = self.jobs.get(request.path_params["job_id"])
        if job is None:
            raise HTTPException(404, "This run is not kept any more (or never was): run it "
                                     "again from its permalink or the form.")
        return job

    async def job_page(self, request: Request) -> Response:
        job = self._job(request)
        context = job.context
        analysis = ANALYSES[context["analysis"]]
        state = PageState(analysis, dict(context["form"]), notes=list(context["notes"]),
                          job=job)
        return self.render(request, state)

    async def job_status(self, request: Request) -> Response:
        return JSONResponse(self.status(self._job(request)))

    async def job_cancel(self, request: Request) -> Response:
        job = self._job(request)
        self.jobs.cancel(job, "cancelled")
        if "application/json" in request.headers.get("accept", ""):
            return JSONResponse(self.status(job))
        return RedirectResponse(f"/jobs/{job.id}", status_code=303)

    async def job_events(self, request: Request) -> Response:
        job = self._job(request)
        self.jobs.watch(job)

        async def events() -> AsyncIterator[str]:
            last = None
            beat = 0.0
            try:
                while True:
                    status = self.status(job)
                    if status != last:
                        last = status
                        name = "end" if job.final else "progress"
                        yield f"event: {name}\ndata: {json.dumps(status)}\n\n"
                        if job.final:
                            return
                    elif beat >= 10:
                        yield ": still running\n\n"
                        beat = 0.0
                    await asyncio.sleep(0.2)
                    beat += 0.2
            finally:
                self.jobs.unwatch(job)

        return StreamingResponse(events(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    async def job_result(self, request: Request) -> Response:
        job = self._job(request)
        return self.templates.TemplateResponse(request, "result.html",
                                               {"view": self.view(job), "job": job})

    async def job_figure(self, request: Request) -> Response:
        job = self._job(request)
        if not job.final or job.outcome is None or job.outcome["svg"] is None:
            raise HTTPException(404, "This run has no figure.")
        return Response(job.outcome["svg"], media_type="image/svg+xml", headers={
            "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
            "Cache-Control": "private, max-age=3600"})

    async def replay(self, request: Request) -> Response:
        """One game of a finished goldfish run (:func:`.replay_part.replay_view`)."""
        query = _plain(request.query_params)
        job = self.jobs.get(query.get("job", ""))
        outcome = job.outcome if job is not None and job.state == "done" else None
        view = await run_in_threadpool(replay_view, outcome, query.get("job", ""), query)
        return self.templates.TemplateResponse(request, "replay.html",
                                               {"game": view, "version": __version__})

    async def job_download(self, request: Request) -> Response:
        job = self._job(request)
        fmt = request.path_params["fmt"]
        if fmt not in ("csv", "json"):
            raise HTTPException(404, "Downloads are .csv or .json.")
        if not job.final or job.outcome is None:  # a cancelled run's trials finished: theirs
            raise HTTPException(404, "This run has no result to download.")
        analysis = ANALYSES[job.context["analysis"]]
        text = await run_in_threadpool(analysis.download, job.outcome["result"],
                                       job.context["options"], fmt)
        name = f"explore-sim-{analysis.name}-seed{job.context['options']['seed']}.{fmt}"
        media = "text/csv" if fmt == "csv" else "application/json"
        return Response(text, media_type=f"{media}; charset=utf-8", headers={
            "Content-Disposition": f'attachment; filename="{name}"'})


#: Shown in place of "Running…" while the game kernel compiles (a run on the kernel waits
#: for it before its first chunk).
COMPILING_NOTE = "Compiling the game kernel (once per installation, about half a minute)…"


def running_note(job: Job) -> str:
    """What the page says in place of "Running…" for a running job: :data:`COMPILING_NOTE`
    while the server compiles the game kernel; else nothing."""
    return COMPILING_NOTE if job.state == "running" and kernel_compiling() else ""


#: The deck :func:`warm_kernel` plays two games of (every deck compiles the same machine code).
WARM_DECK = "24 Forest\n36 Grizzly Bears"


def warm_kernel() -> None:
    """Compile the game kernel, or load it from numba's cache, before a run asks for it (the
    server does this in a thread as it starts): two games of a small deck; nothing when
    numba cannot be imported or the kernel is loaded already. A failure is logged (bad
    settings in one line), never raised: the first run compiles the kernel then, and says
    why it fails."""
    try:
        if kernel_unavailable() is not None:
            return
        from ..engine import kernel

        if not kernel.loaded():
            simulate(WARM_DECK, trials=2, turns=1, seed=0, engine="kernel")
    except ExploreSimError as error:  # such as a bad EXPLORE_SIM_THREADS
        log.warning("the game kernel was not compiled at start-up: %s", error)
    except Exception:
        log.exception("compiling the game kernel at start-up failed")


def cancel_notice(job: Job) -> str:
    """What the page says of a cancelled run: the trials it finished, of how many, and
    whether the result shown is theirs.

    A run of one analysis keeps the chunks it finished (the first ``k`` chunks of a run are
    a run of ``k`` chunks, same seed: :class:`~explore_sim.analysis.runner.StopRun`); a run
    cancelled before its first chunk finished has nothing, and one of an analysis made of
    several runs (value, curve) has no complete part.

    Parameters
    ----------
    job : Job
        A cancelled job.

    Returns
    -------
    str
    """
    reason = job.error.removeprefix("cancelled").lstrip(": ")
    why = f" ({reason})" if reason else ""
    if job.outcome is not None:
        meta = job.outcome["result"].meta
        done, asked = meta["trials"], meta.get("trials_asked", job.total)
        return (f"Run cancelled after {done:,} of {asked:,} trials{why}; the figures below "
                f"are from those {done:,} trials, with their standard errors (the same as a "
                f"run of {done:,} trials with this seed).")
    if job.done == 0:
        return (f"Run cancelled before its first chunk of trials finished{why}: nothing "
                "finished, so there is nothing to show.")
    return (f"Run cancelled after {job.done:,} of {job.total:,} trials{why}: "
            f"{job.context.get('analysis', 'this analysis')} is made of several runs and "
            "none of them was complete, so there is nothing complete to show.")


# ------------------------------------------------------------------------------ errors

async def _http_error(request: Request, error: Exception) -> Response:
    status = getattr(error, "status_code", 500)
    detail = getattr(error, "detail", "") or "Not found."
    titles = {404: "Not found", 405: "Method not allowed", 400: "Bad request"}
    return HTMLResponse(message_page(titles.get(status, "Error"), str(detail)),
                        status_code=status, headers=getattr(error, "headers", None))


async def _server_error(request: Request, error: Exception) -> Response:
    """The 500 page: what happened is in the server's log (Starlette logs the traceback),
    never on the page, not even the exception's name."""
    log.error("unexpected error on %s: %s: %s", request.url.path, type(error).__name__, error)
    return HTMLResponse(message_page(
        "Something went wrong", "The server could not answer this request; it keeps "
        "serving. The server's log has the details."), status_code=500)


# ------------------------------------------------------------------------------ the app

class _Page(Starlette):
    """Starlette with :class:`SecurityHeaders` outside its own error layer, so that the
    500 page carries the headers too."""

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(super().build_middleware_stack())


def create_app(settings: Settings | None = None) -> Starlette:
    """The web page's application.

    Parameters
    ----------
    settings : Settings, optional
        Limits and directories (default :class:`Settings`).

    Returns
    -------
    starlette.applications.Starlette
        ``app.state.web`` holds the server's state (its jobs in ``.jobs``).

    Raises
    ------
    CardError
        A card directory that is not one (``--cards-dir /dev/zero``), a card index or a
        shipped deck's card file that cannot be read: the server does not start.
    """
    settings = settings or Settings()
    web = WebApp(settings)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # The game kernel compiled (once per installation) or loaded while nobody waits.
        threading.Thread(target=warm_kernel, name="explore-warm", daemon=True).start()
        yield
        web.jobs.close()

    middleware = [Middleware(SameOrigin), Middleware(BodyLimit, max_body=settings.max_body)]
    if settings.allowed_hosts is not None:
        middleware.insert(0, Middleware(TrustedHostMiddleware,
                                        allowed_hosts=list(settings.allowed_hosts)))
    routes = [
        Route("/", web.page, methods=["GET"]),
        Route("/", web.submit, methods=["POST"]),
        Route("/jobs/{job_id}", web.job_page, methods=["GET"]),
        Route("/jobs/{job_id}/status", web.job_status, methods=["GET"]),
        Route("/jobs/{job_id}/events", web.job_events, methods=["GET"]),
        Route("/jobs/{job_id}/cancel", web.job_cancel, methods=["POST"]),
        Route("/jobs/{job_id}/result", web.job_result, methods=["GET"]),
        Route("/jobs/{job_id}/figure.svg", web.job_figure, methods=["GET"]),
        Route("/jobs/{job_id}/download.{fmt:str}", web.job_download, methods=["GET"]),
        Route("/replay", web.replay, methods=["GET"]),
        Route("/favicon.ico", lambda request: Response(status_code=204), methods=["GET"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = _Page(routes=routes, middleware=middleware, lifespan=lifespan,
                exception_handlers={HTTPException: _http_error, 500: _server_error})
    app.state.web = web
    return app
