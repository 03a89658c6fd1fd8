// Live run: one card per run (?runs=APPLIANCE/RUN,...), each cell's progress as it runs
// and its verdict as it arrives (Server-Sent Events), the run's verdict at the end, and a
// stop button. The REST state is loaded first and again after a reconnect (no replay).
// While a cell runs, the appliance's live figures (event "live", about twice a second, never
// stored) fill a per-thread table (min, act, avg, max, samples as cyclictest's T: lines), a
// latency-over-time strip (act per thread) and the progress within the cell. An appliance
// that goes offline (its last will) turns its card to "offline since T".
import { api, session, h, $, clear, say, sayError, param, can, verdictBadge, runLink, events, fmtUs, timeOf, path } from "/ui/app.js";

const s = await session("live");
const page = $("#page");
const runs = (param("runs") || "").split(",").filter(Boolean).map((x) => {
  const i = x.indexOf("/");
  return { appliance: x.slice(0, Math.max(0, i)), run: x.slice(i + 1), text: x };
}).filter((r) => {
  // "garbage" made a card "garbag ... running": a run is named APPLIANCE/RUN
  if (r.appliance && r.run && !r.run.includes("/")) return true;
  say("'" + r.text + "' is not a run: this page follows runs named APPLIANCE/RUN (?runs=a1/20261206-120000-ab12,...)");
  return false;
});
// Starts waiting in an appliance's queue (?queued=ID,... from the Start page, ?queue=APPLIANCE,... from the fleet).
const queuedIds = (param("queued") || "").split(",").filter(Boolean).map(Number).filter((n) => n > 0);
const queueOf = (param("queue") || "").split(",").filter(Boolean);
const waiting = new Map(); // queue id -> card
if (!runs.length && !queuedIds.length && !queueOf.length) {
  say("no run chosen: start one (Start) or follow a busy appliance from the fleet", "note");
}

const cards = new Map(); // "appliance/run" -> {card, cells: Map(cell -> tr), ...}

function key(appliance, run) {
  return appliance + "/" + run;
}

function cellRow(c, name) {
  return h("tr", { "data-cell": c },
    h("td", { class: "num" }, String(c)), h("td", { class: "name" }, name || "cell " + c),
    h("td", {}, h("span", { class: "progress" }, h("div", { style: "width:0%" })), h("span", { class: "pct small" }, "")),
    h("td", { class: "verdict-cell" }, "waiting"), h("td", { class: "num max" }, "-"), h("td", { class: "num p99" }, "-"));
}

function ensureCell(entry, c, name) {
  let tr = entry.cells.get(c);
  if (!tr) {
    tr = cellRow(c, name);
    entry.cells.set(c, tr);
    const after = [...entry.cells.keys()].filter((k) => k > c).sort((a, b) => a - b)[0];
    if (after != null) entry.cells.get(after).before(tr);
    else entry.body.append(tr);
  } else if (name) {
    tr.querySelector(".name").textContent = name;
  }
  return tr;
}

function setProgress(entry, c, pct, name) {
  const tr = ensureCell(entry, c, name);
  tr.querySelector(".progress > div").style.width = Math.min(100, pct) + "%";
  tr.querySelector(".pct").textContent = " " + Math.round(pct) + " %";
  if (tr.querySelector(".verdict-cell").textContent === "waiting") tr.querySelector(".verdict-cell").textContent = "running";
  for (const [k, other] of entry.cells) {
    // the cells before a running one are over, even if their message is still on its way
    if (k < c && other.querySelector(".verdict-cell").textContent === "waiting") other.querySelector(".verdict-cell").textContent = "ended";
  }
}

function setCell(entry, c) {
  const tr = ensureCell(entry, c.cell, c.name);
  tr.querySelector(".progress > div").style.width = "100%";
  tr.querySelector(".pct").textContent = " 100 %";
  clear(tr.querySelector(".verdict-cell")).append(verdictBadge(c.verdict));
  tr.querySelector(".max").textContent = fmtUs(c.max_us);
  tr.querySelector(".p99").textContent = fmtUs(c.p99_us);
  tr.dataset.verdict = c.verdict;
}

function setResult(entry, r) {
  clear(entry.verdict).append(verdictBadge(r.verdict), " ", r.reason || "", r.state && r.state !== "complete" ? " (" + r.state + ")" : "");
  entry.card.dataset.verdict = r.verdict;
  entry.stop.disabled = true;
  entry.card.querySelector(".offline-line").hidden = true;
  entry.card.classList.remove("offline");
  if (r.verdict === "ABORTED" || r.verdict === "ERROR") {
    // What was lost: the cells without a result were cut short or never ran.
    for (const tr of entry.cells.values()) {
      if (!tr.dataset.verdict) {
        tr.querySelector(".verdict-cell").textContent = "lost (no result)";
        tr.dataset.lost = "true";
      }
    }
  }
  entry.card.querySelector(".run-link").hidden = false;
}

const STRIP_POINTS = 120; // 60 s at two figures a second
const STRIP_COLOURS = ["#1565c0", "#c62828", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#4e342e", "#ad1457"];

function setLive(entry, e) {
  const box = entry.card.querySelector(".live-figures");
  box.hidden = false;
  const cell = e.cell || 1;
  if (entry.liveCell !== cell) { // a new cell: its own strip
    entry.liveCell = cell;
    entry.points.clear();
  }
  clear(entry.card.querySelector(".live-title")).append("live: " + (e.plan ? "cell " + cell + " of " + e.cells
    + (e.cell_name ? " (" + e.cell_name + ")" : "") : e.probe || "") + " · " + e.percent + " % · ", timeOf(e.timestamp));
  const rows = (e.threads || []).map((t) => h("tr", { "data-thread": t.thread },
    h("td", { class: "num" }, String(t.thread)), h("td", { class: "num" }, String(t.cpu)),
    h("td", { class: "num min" }, t.samples ? fmtUs(t.min_us) : "-"), h("td", { class: "num act" }, t.samples ? fmtUs(t.act_us) : "-"),
    h("td", { class: "num avg" }, fmtUs(t.avg_us)), h("td", { class: "num max" }, t.samples ? fmtUs(t.max_us) : "-"),
    h("td", { class: "num samples" }, String(t.samples))));
  clear(entry.liveBody).append(...rows);
  for (const t of e.threads || []) {
    if (!t.samples) continue;
    const p = entry.points.get(t.thread) || [];
    p.push(t.act_us);
    if (p.length > STRIP_POINTS) p.shift();
    entry.points.set(t.thread, p);
  }
  drawStrip(entry);
  setProgress(entry, cell, e.percent);
}

/** act (us) per thread over the last STRIP_POINTS figures; the scale from 0 to the largest shown. */
function drawStrip(entry) {
  const c = entry.strip, g = c.getContext("2d");
  g.fillStyle = "#fafafa";
  g.fillRect(0, 0, c.width, c.height);
  let top = 1;
  for (const p of entry.points.values()) for (const v of p) top = Math.max(top, v);
  g.strokeStyle = "#cfd8dc";
  g.strokeRect(0.5, 0.5, c.width - 1, c.height - 1);
  g.fillStyle = "#455a64";
  g.font = "11px sans-serif";
  g.fillText(fmtUs(top) + " us", 4, 12);
  for (const [thread, p] of entry.points) {
    g.strokeStyle = STRIP_COLOURS[thread % STRIP_COLOURS.length];
    g.lineWidth = 2;
    g.beginPath();
    p.forEach((v, k) => {
      const x = c.width - 1 - (p.length - 1 - k) * (c.width - 2) / (STRIP_POINTS - 1);
      const y = c.height - 2 - (v / top) * (c.height - 18);
      if (k === 0) g.moveTo(x, y); else g.lineTo(x, y);
    });
    g.stroke();
  }
}

function setOnline(entry, e) {
  if (!entry) return;
  const line = entry.card.querySelector(".offline-line");
  if (e.state === "offline") {
    line.hidden = false;
    clear(line).append("offline since ", timeOf(e.last_seen || e.timestamp),
      ": the run's results come when it is back (a run cut short ends ABORTED)");
    entry.card.classList.add("offline");
  } else if (e.state) {
    line.hidden = true;
    entry.card.classList.remove("offline");
  }
}

function card(r) {
  const body = h("tbody", {});
  const verdict = h("span", { class: "run-verdict" }, verdictBadge(null));
  const stop = h("button", { type: "button", class: "danger stop", disabled: !can(s, "operator") }, "stop");
  const liveBody = h("tbody", {});
  const strip = h("canvas", { class: "live-strip", width: 600, height: 90 });
  const entry = { body, verdict, stop, cells: new Map(), liveBody, strip, points: new Map(), liveCell: null };
  entry.card = h("section", { class: "live-card", "data-run": key(r.appliance, r.run) },
    h("h2", {}, r.appliance, " · ", h("span", { class: "small" }, r.run)),
    h("p", { class: "plan-line small" }, ""),
    h("p", {}, "verdict: ", verdict, " ", h("span", { class: "run-link", hidden: true }, runLink(r.appliance, r.run, "open the run page"))),
    h("p", { class: "offline-line", hidden: true }, ""),
    h("table", {}, h("thead", {}, h("tr", {}, ["cell", "name", "progress", "verdict", "max (us)", "p99 (us)"].map((x) => h("th", {}, x)))), body),
    h("div", { class: "live-figures", hidden: true },
      h("p", { class: "live-title small" }, "live"),
      h("table", { class: "live-threads" }, h("thead", {}, h("tr", {}, ["thread", "CPU", "min (us)", "act (us)", "avg (us)", "max (us)", "samples"].map((x) => h("th", {}, x)))), liveBody),
      strip),
    stop);
  stop.addEventListener("click", async () => {
    if (!confirm("Stop run " + r.run + " on " + r.appliance + "? The cell under way ends with a partial result.")) return;
    try {
      await api.post(path`/runs/${r.appliance}/${r.run}/stop`);
      say("stop sent to " + r.appliance, "note");
    } catch (e) {
      sayError(e);
    }
  });
  cards.set(key(r.appliance, r.run), entry);
  page.append(entry.card);
  return entry;
}

async function loadState(r) {
  const entry = cards.get(key(r.appliance, r.run)) || card(r);
  try {
    const run = await api.get(path`/runs/${r.appliance}/${r.run}`);
    entry.card.querySelector(".plan-line").textContent = "plan " + (run.plan || "?")
      + (run.serial ? " · controller " + run.serial : "") + (run.model ? " (" + run.model + ")" : "")
      + (run.started_by ? " · started by " + run.started_by : "");
    const planned = run.cells_planned || (run.progress && run.progress.cells) || 0;
    for (let c = 1; c <= planned; c++) ensureCell(entry, c);
    // The stored progress is a cell's start (its percent the plan's share); the live figures bring the cell's own.
    if (run.progress && run.progress.cell) setProgress(entry, run.progress.cell, 0);
    for (const c of run.cells || []) setCell(entry, c);
    if (run.verdict) setResult(entry, run);
  } catch (e) {
    if (e.status !== 404) sayError(e); // 404: nothing stored yet; the events will bring it
  }
}

function queuedCard(q) {
  let c = waiting.get(q.id);
  if (!c) {
    const cancel = h("button", { type: "button", class: "cancel", disabled: !(can(s, "admin") || q.queued_by === s.user) },
      "cancel this start");
    cancel.addEventListener("click", async () => {
      if (!confirm("Cancel the queued start of plan " + q.plan + " on " + q.appliance + "?")) return;
      try {
        showQueued(await api.del("/queue/" + q.id));
      } catch (e) {
        sayError(e);
      }
    });
    c = h("section", { class: "live-card queued-card", "data-queued": String(q.id) },
      h("h2", {}, q.appliance, " · ", h("span", { class: "small" }, "queued start " + q.id)),
      h("p", { class: "queue-line" }, ""), cancel);
    waiting.set(q.id, c);
    page.prepend(c);
  }
  return c;
}

function showQueued(q) {
  const c = queuedCard(q);
  c.dataset.state = q.state;
  c.querySelector(".queue-line").textContent = (q.state === "queued" || q.state === "starting"
    ? (q.state === "starting" ? "being sent" : "waiting" + (q.position ? ", position " + q.position : ""))
      + " until " + q.appliance + " is idle" : q.state + (q.ended_by ? " by " + q.ended_by : ""))
    + " · plan " + (q.plan || "?") + (q.version ? " version " + q.version : "") + " · queued by " + q.queued_by
    + (q.serial ? " · controller " + q.serial : "");
  c.querySelector("button.cancel").disabled = q.state !== "queued" || !(can(s, "admin") || q.queued_by === s.user);
  if (q.state === "started" && q.run && !cards.has(key(q.appliance, q.run))) {
    // its run began: follow it here like the others
    const r = { appliance: q.appliance, run: q.run };
    runs.push(r);
    card(r);
    loadState(r);
    c.remove();
    waiting.delete(q.id);
    const u = new URL(location.href);
    u.searchParams.set("runs", runs.map((x) => key(x.appliance, x.run)).join(","));
    history.replaceState(null, "", u);
  }
}

async function loadQueue() {
  for (const id of queuedIds) {
    try {
      showQueued(await api.get("/queue/" + id));
    } catch (e) {
      sayError(e);
    }
  }
  for (const a of queueOf) {
    for (const q of (await api.get("/queue?appliance=" + encodeURIComponent(a))).queue) showQueued(q);
  }
}

for (const r of runs) card(r);
await Promise.all(runs.map(loadState));
await loadQueue().catch(sayError);

const appliances = [...new Set(runs.map((r) => r.appliance).concat(queueOf)
  .concat([...waiting.values()].map((c) => c.querySelector("h2").firstChild.textContent)))].join(",");
events({ appliance: appliances }, {
  queue: (q) => {
    if (waiting.has(q.id) || queuedIds.includes(q.id) || queueOf.includes(q.appliance)) showQueued(q);
  },
  progress: (e) => {
    const entry = cards.get(key(e.appliance, e.run));
    // A plan's progress message marks a cell's start (its percent is the plan's share): the cell is at 0 %.
    if (entry) setProgress(entry, e.cell, e.kind === "plan" ? 0 : e.percent || 0, e.cell_name);
  },
  live: (e) => {
    const entry = cards.get(key(e.appliance, e.run));
    if (entry && !entry.card.dataset.verdict) setLive(entry, e);
  },
  status: (e) => {
    for (const r of runs) if (r.appliance === e.appliance) setOnline(cards.get(key(r.appliance, r.run)), e);
  },
  cell: (e) => {
    const entry = cards.get(key(e.appliance, e.run));
    if (entry) setCell(entry, e);
  },
  result: (e) => {
    const entry = cards.get(key(e.appliance, e.run));
    if (entry) setResult(entry, e);
  },
  reply: (e) => {
    if (e.verb === "stop") say(e.appliance + " answered stop: " + e.code + " " + (e.message || ""), e.code === 200 ? "ok" : "error");
  },
  reconnect: () => Promise.all(runs.map(loadState).concat([loadQueue()])),
});
