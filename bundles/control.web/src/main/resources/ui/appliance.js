// One appliance (?id=A): its state and last status, kernel and rtbox, bundles with their
// SHA-256, probes and workloads, the starts waiting in its queue, its last runs, the last
// answers of its readiness check and of the measuring chain's self-test, with a button that
// runs the self-test now (operator; MQTT "selftest": a 2 ms stall injected every 100 ms for
// 2 s, which the timer probe must find). Site and line are editable by an admin (audited).
import { api, path, session, h, $, clear, say, sayError, param, can, stateBadge, verdictBadge, agoOf, timeOf, runLink,
  events } from "/ui/app.js";

const s = await session("fleet");
const page = $("#page");
const id = param("id");
if (!id) {
  say("Which appliance? This page is appliance.html?id=APPLIANCE; the fleet page links every appliance here.");
  throw new Error("no id");
}
const base = path`/appliances/${id}`;
const head = h("div", { id: "appliance-head" });
const place = h("div", { id: "appliance-place" });
const checks = h("div", { id: "appliance-checks" });
const queue = h("div", { id: "appliance-queue" });
const runs = h("div", { id: "appliance-runs" });
const parts = h("div", { id: "appliance-parts" });
page.append(head, place, h("h2", {}, "Checks"), checks, h("h2", {}, "Queue"), queue, h("h2", {}, "Last runs"), runs,
  h("h2", {}, "Software"), parts);

let a;
let pending = null; // a self-test sent from here: {before: the last answer's time, note: the "waiting" message}

async function load() {
  try {
    a = await api.get(base);
  } catch (e) {
    if (e.status === 404) {
      $("h1").textContent = "No appliance " + id;
      const m = say("The control room has never heard of an appliance '" + id + "'. ");
      m.id = "no-appliance";
      m.append(h("a", { href: "/ui/fleet.html" }, "the fleet"), " lists every appliance it knows.");
      return false;
    }
    sayError(e);
    return false;
  }
  document.title = "Appliance " + a.id + " · rtbox control room";
  $("h1").textContent = "Appliance " + a.id;
  drawHead();
  drawPlace();
  drawChecks();
  drawRuns();
  drawParts();
  await drawQueue();
  return true;
}

function drawHead() {
  const st = a.status || {};
  clear(head).append(h("dl", { class: "kv" },
    h("dt", {}, "state"), h("dd", { id: "appliance-state" }, a.registered === false ? stateBadge("unregistered") : "",
      " ", stateBadge(a.state), " since ", timeOf(a.since)),
    h("dt", {}, "last seen"), h("dd", {}, agoOf(a.last_seen)),
    h("dt", {}, "run under way"), h("dd", {}, a.state === "busy" && a.run
      ? h("a", { href: "/ui/live.html?runs=" + encodeURIComponent(a.id + "/" + a.run) }, (a.plan || a.run)
        + (a.cells ? ` cell ${a.cell}/${a.cells}` : "") + " (follow it live)") : "none"),
    h("dt", {}, "last verdict"), h("dd", {}, a.last_run ? runLink(a.id, a.last_run, verdictBadge(a.last_verdict)) : "-"),
    h("dt", {}, "kernel"), h("dd", { id: "appliance-kernel" }, a.kernel || st.kernel || "-"),
    h("dt", {}, "rtbox"), h("dd", {}, a.rtbox_version || st.version || "-"),
    h("dt", {}, "outbox"), h("dd", {}, a.outbox_messages == null ? "-" : a.outbox_messages + " messages not yet sent"),
    h("dt", {}, "history"), h("dd", {}, h("a", { href: "/ui/history.html?appliance=" + encodeURIComponent(a.id) },
      "latency over time (OSADL's long-term plot)")),
    a.refused ? [h("dt", {}, "refused messages"), h("dd", { class: "changed" }, a.refused.refused + " since the control"
      + " room started; last: " + (a.refused.last_reason || "") + " " + (a.refused.last_detail || ""))] : ""));
}

function drawPlace() {
  if (place.contains(document.activeElement)) return; // an admin is typing: a status event does not undo it
  const site = h("input", { id: "appliance-site", value: a.site || "", size: 16, maxlength: 64, disabled: !can(s, "admin") });
  const line = h("input", { id: "appliance-line", value: a.line || "", size: 16, maxlength: 64, disabled: !can(s, "admin") });
  const form = h("form", { class: "filters", id: "place-form" }, h("label", {}, "site", site), h("label", {}, "line", line),
    can(s, "admin") ? h("button", { type: "submit", id: "place-save" }, "save") : h("span", { class: "small" }, "an admin changes these"));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      a = await api.put(base, { site: site.value.trim(), line: line.value.trim() });
      say("site and line of " + a.id + " saved", "ok").id = "place-saved";
    } catch (e) {
      sayError(e);
    }
  });
  clear(place).append(form);
}

function checkLine(what, c, figures) {
  if (!c) return h("p", { class: "small" }, what + ": never run since the control room knew this appliance");
  return h("p", { class: "msg " + (c.ok ? "ok" : "error") }, what + ": " + (c.ok ? "passed" : "FAILED")
    + (figures ? " (" + figures + ")" : "") + ": " + (c.message || "") + " · ", timeOf(c.at));
}

function drawChecks() {
  if (pending && a.selftest && a.selftest.at !== pending.before) {
    pending.note.remove(); // its answer is in (an event may bring it before the wait below sees it)
    pending = null;
  }
  const st = a.selftest, b = (st && st.body) || {};
  const figures = b.found !== undefined ? `${b.found} of ${b.expected} injected stalls of ${b.injected_us} us found on CPU ${b.cpu},`
    + ` error ${b.error_us >= 0 ? "+" : ""}${b.error_us} us` : "";
  const button = h("button", { type: "button", class: "primary", id: "selftest-run",
    disabled: a.state !== "online", title: a.state === "online" ? "" : "only an idle, online appliance runs it" },
  "run the self-test now");
  button.addEventListener("click", () => selftest(button));
  clear(checks).append(
    h("div", { id: "appliance-selftest" }, checkLine("measuring chain's self-test", st, figures)),
    h("div", { id: "appliance-readiness" }, checkLine("readiness (disk, outbox, probes)", a.readiness)),
    can(s, "operator") ? h("div", { class: "toolbar" }, button, h("span", { class: "small" },
      "a 2 ms stall injected every 100 ms for 2 s on one CPU, which the timer probe must find and attribute")) : "");
}

/** Sends the self-test and waits for its answer (the appliance's reply, stored by the control room). */
async function selftest(button) {
  const before = a.selftest ? a.selftest.at : null;
  button.disabled = true;
  const waiting = say("self-test sent to " + a.id + ": waiting for its answer (about 3 s)", "note");
  waiting.id = "selftest-waiting";
  pending = { before, note: waiting };
  try {
    await api.post(path`/appliances/${a.id}/selftest`, {});
  } catch (e) {
    waiting.remove();
    pending = null;
    sayError(e);
    button.disabled = false;
    return;
  }
  const deadline = Date.now() + 30000;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    let now;
    try {
      now = await api.get(base);
    } catch (e) {
      continue;
    }
    if (now.selftest && now.selftest.at !== before) {
      a = now;
      drawChecks();
      return;
    }
  }
  pending = null;
  waiting.textContent = "no answer from " + a.id + " within 30 s: is it online? (the answer still shows here when it comes)";
  button.disabled = false;
}

async function drawQueue() {
  try {
    const { queue: waiting } = await api.get("/queue?appliance=" + encodeURIComponent(a.id));
    clear(queue).append(!waiting.length ? h("p", { class: "small", id: "queue-empty" }, "no start waits for this appliance")
      : h("table", { id: "queue-table" }, h("thead", {}, h("tr", {}, ["place", "plan", "queued", "by", "state"].map((x) => h("th", {}, x)))),
        h("tbody", {}, waiting.map((q) => h("tr", { "data-queued": String(q.id) }, h("td", { class: "num" }, String(q.position)),
          h("td", {}, q.plan + (q.version ? " v" + q.version : "")), h("td", {}, timeOf(q.queued)), h("td", {}, q.queued_by || "-"),
          h("td", {}, q.state))))),
      waiting.length ? h("a", { href: "/ui/live.html?queue=" + encodeURIComponent(a.id) }, "follow or cancel them on the live page") : "");
  } catch (e) {
    sayError(e);
  }
}

function drawRuns() {
  const list = a.runs || [];
  clear(runs).append(!list.length ? h("p", { class: "small" }, "no runs yet")
    : h("table", { id: "appliance-runs-table" }, h("thead", {}, h("tr", {},
      ["started", "run", "plan", "controller", "verdict", "cells", "started by"].map((x) => h("th", {}, x)))),
    h("tbody", {}, list.map((r) => h("tr", { class: r.verdict || "" }, h("td", {}, timeOf(r.started)),
      h("td", {}, runLink(r.appliance, r.run)), h("td", {}, r.plan || r.kind || "-"),
      h("td", {}, [r.serial, r.model].filter(Boolean).join(" · ") || "-"), h("td", { class: "v" }, verdictBadge(r.verdict)),
      h("td", { class: "num" }, r.cells_planned == null ? "-" : `${r.cells_run ?? 0}/${r.cells_planned}`),
      h("td", {}, r.started_by || "-"))))),
  h("a", { href: "/ui/runs.html?appliance=" + encodeURIComponent(a.id) }, "every run of " + a.id));
}

function drawParts() {
  const bundles = a.bundles || [];
  clear(parts).append(h("dl", { class: "kv" },
    h("dt", {}, "probes"), h("dd", {}, (a.probes || []).join(", ") || "-"),
    h("dt", {}, "workloads"), h("dd", {}, (a.workloads || []).join(", ") || "-")),
  !bundles.length ? h("p", { class: "small" }, "no bundle list from the appliance yet")
    : h("table", { id: "appliance-bundles" }, h("thead", {}, h("tr", {}, ["bundle", "version", "SHA-256"].map((x) => h("th", {}, x)))),
      h("tbody", {}, bundles.map((b) => h("tr", { "data-bundle": b.symbolicName }, h("td", {}, b.symbolicName), h("td", {}, b.version),
        h("td", { class: "small" }, h("code", {}, b.sha256 || "-")))))));
}

if (await load()) {
  // a status or a reply of this appliance: read its page again
  events({ appliance: id }, { status: () => load(), reply: () => load(), reconnect: () => load() });
}
