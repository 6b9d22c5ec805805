// explore_sim web page: progress, cancel, deck fixes and permalinks. The page works without
// it (the run page reloads itself, a permalink waits for Run); nothing here evaluates text
// from the page or the server.
"use strict";

function lineRange(text, line) {
  const lines = text.split("\n");
  let start = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) start += lines[i].length + 1;
  const content = lines[line - 1] || "";
  return [start, start + content.length, content];
}

function bindDeckTools(root) {
  root.querySelectorAll("a.line-link").forEach((link) => {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      const area = document.getElementById(link.dataset.slot);
      const [start, end] = lineRange(area.value, Number(link.dataset.line));
      area.focus();
      area.setSelectionRange(start, end);
    });
  });
  root.querySelectorAll("button.fix").forEach((button) => {
    button.addEventListener("click", () => {
      const area = document.getElementById(button.dataset.slot);
      const [start, end, content] = lineRange(area.value, Number(button.dataset.line));
      const at = content.indexOf(button.dataset.from);
      if (at < 0) return;
      const fixed = content.slice(0, at) + button.dataset.to + content.slice(at + button.dataset.from.length);
      area.value = area.value.slice(0, start) + fixed + area.value.slice(end);
      button.closest("li").classList.add("fixed");
      button.disabled = true;
      button.textContent = "fixed: " + button.dataset.to;
    });
  });
}

function showProgress(status) {
  const bar = document.getElementById("progress");
  const count = document.getElementById("progress-count");
  const text = document.getElementById("progress-text");
  if (bar) { bar.max = status.total; bar.value = status.done; }
  if (count) count.textContent = status.done.toLocaleString("en") + " / " + status.total.toLocaleString("en");
  const time = document.getElementById("progress-time");
  if (time) {
    time.textContent = status.state !== "running" ? ""
      : status.elapsed + " s elapsed" + (status.left === null || status.left === undefined
        ? "" : ", about " + status.left + " s left");
  }
  if (text) {
    text.textContent = status.state === "queued"
      ? "Waiting for a free slot" + (status.position ? ": " + status.position + " run(s) ahead." : ".")
      : status.note || "Running…";
  }
}

async function showResult(id) {
  const response = await fetch("/jobs/" + id + "/result", { headers: { Accept: "text/html" } });
  const results = document.getElementById("results");
  if (!response.ok || !results) return;
  // The fragment comes from the server's auto-escaping templates.
  results.innerHTML = await response.text();
  bindResult(results);
  const run = document.getElementById("run");
  if (run) run.disabled = false;
}

function follow(id) {
  let finished = false;
  const source = new EventSource("/jobs/" + id + "/events");
  source.addEventListener("progress", (event) => showProgress(JSON.parse(event.data)));
  source.addEventListener("end", (event) => {
    finished = true;
    source.close();
    showProgress(JSON.parse(event.data));
    showResult(id);
  });
  source.onerror = () => {
    if (finished) return;
    source.close();
    poll(id);  // the stream broke: ask every second instead
  };
}

async function poll(id) {
  for (;;) {
    const response = await fetch("/jobs/" + id + "/status", { headers: { Accept: "application/json" } });
    if (!response.ok) return;
    const status = await response.json();
    showProgress(status);
    if (!["queued", "running"].includes(status.state)) { showResult(id); return; }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function bindResult(root) {
  const result = root.querySelector("#result");
  if (!result) return;
  const id = result.dataset.job;
  const cancel = root.querySelector("#cancel-form");
  if (cancel) {
    cancel.addEventListener("submit", async (event) => {
      event.preventDefault();
      const button = cancel.querySelector("button");
      button.disabled = true;
      button.textContent = "Cancelling…";
      await fetch(cancel.action, { method: "POST", headers: { Accept: "application/json" } });
    });
  }
  if (["queued", "running"].includes(result.dataset.state)) follow(id);
}

window.addEventListener("pageshow", () => {  // back to a page kept in the cache
  const run = document.getElementById("run");
  if (run) { run.disabled = false; run.textContent = "Run"; }
});

document.addEventListener("DOMContentLoaded", () => {
  bindDeckTools(document);
  bindResult(document);
  const summary = document.getElementById("error-summary");  // a refused form: its problems
  if (summary) summary.focus();
  const result = document.getElementById("result");  // a run's page in one column (a phone):
  if (result && result.getBoundingClientRect().top >= window.innerHeight) {  // the form above it
    document.getElementById("results").scrollIntoView();
  }
  const form = document.getElementById("run-form");
  if (form) {
    form.addEventListener("submit", (event) => {
      const submitter = event.submitter;
      if (submitter && submitter.value === "run") {
        const run = document.getElementById("run");
        run.disabled = true;
        run.textContent = "Starting…";
      }
    });
    if (form.dataset.autorun) runPermalink(form);
  }
});

// A permalink the browser says was opened from this page or by the user: the server filled
// the form (a GET never starts a run) and this submits it, a POST from the page itself.
// "run=1" leaves the address first, so going back shows the form without running it again.
function runPermalink(form) {
  const url = new URL(window.location.href);
  url.searchParams.delete("run");
  history.replaceState(null, "", url.pathname + url.search);
  form.requestSubmit(document.getElementById("run"));
}
