// Run: the verdict table of its cells, all cells overlaid, per cell the latency
// histograms per CPU and the spikes over time by cause (rtbox.report's plots.js: the
// same plots as the HTML report), the system info, downloads, and the next steps:
// compare with the golden reference, sign off (the acceptance record), make it the reference.
import { api, session, h, $, clear, say, sayError, param, can, verdictBadge, fmtUs, timeOf, path, table } from "/ui/app.js";
import { cellFromApi, histogramPlot, spikePlot, overlayPlot, pwcetPlot, pwcetEstimate } from "/ui/lib/plots.js";

const s = await session("runs");
const page = $("#page");
const appliance = param("appliance"), runId = param("run");
const base = path`/runs/${appliance}/${runId}`;

let run;
try {
  if (!appliance || !runId) throw Object.assign(new Error("no run named"), { status: 0 });
  run = await api.get(base);
} catch (e) {
  // An unknown run (a mistyped link, a run of another control room): say so plainly, with the ways on.
  if (e.status === 404 || e.status === 0 || e.status === 400) {
    $("h1").textContent = "No such run";
    document.title = "No such run · rtbox control room";
    const m = say(!appliance || !runId ? "This page shows one run: run.html?appliance=APPLIANCE&run=RUN."
      : "The control room has no run '" + runId + "' of appliance '" + appliance + "'. ");
    m.id = "no-run";
    m.append(h("a", { href: "/ui/runs.html" + (appliance ? "?appliance=" + encodeURIComponent(appliance) : "") },
      appliance ? "the runs of " + appliance : "every run"), " lists what there is.");
  } else {
    sayError(e);
  }
  throw e;
}
document.title = "Run " + run.run + " · rtbox control room";
$("h1").textContent = "Run " + run.run + " on " + run.appliance;

const missing = (run.messages && run.messages.missing) || [];
page.append(h("dl", { class: "kv", id: "run-head" },
  h("dt", {}, "verdict"), h("dd", { id: "run-verdict" }, verdictBadge(run.verdict), " ", run.reason || ""),
  h("dt", {}, "plan"), h("dd", {}, (run.plan || "-") + (run.plan_sha256 ? " (SHA-256 " + run.plan_sha256.slice(0, 16) + "...)" : "")),
  h("dt", {}, "controller"), h("dd", {}, (run.serial || "no serial") + (run.model ? " · " + run.model : "")),
  h("dt", {}, "started"), h("dd", {}, timeOf(run.started), run.started_by ? " by " + run.started_by : ""),
  h("dt", {}, "ended"), h("dd", {}, timeOf(run.ended), run.state ? " (" + run.state + ")" : ""),
  h("dt", {}, "messages"), h("dd", { id: "run-messages" }, run.messages
    ? `${run.messages.received} of ${run.messages.expected} received` + (missing.length ? "; MISSING: " + missing.join(", ") : "")
      + (run.messages.duplicates ? `; ${run.messages.duplicates} repeats dropped` : "")
    : "-")));
if (missing.length) say("messages " + missing.join(", ") + " of this run never arrived: their cells are shown as missing, not passed");
// The instrument's self-test the start ran just before the plan (a stall injected, found, attributed): what a record carries.
const st = run.selftest;
const stBody = (st && st.body) || {};
$("#run-head").append(h("dt", {}, "instrument self-test"), h("dd", { id: "run-selftest", class: st && st.ok ? "ok" : "changed" },
  !st ? "did not run (a start for a record runs it): a record needs an admin's override"
    : (st.ok ? "passed" : "FAILED") + (stBody.found !== undefined
      ? `: ${stBody.found} of ${stBody.expected} injected stalls of ${stBody.injected_us} us found, error ${stBody.error_us >= 0 ? "+" : ""}${stBody.error_us} us`
      : ": " + (st.message || "")), st && st.at ? [" (", timeOf(st.at), ")"] : ""));
// The run's acceptance record, checked against what is stored now (signature, body, the run's messages and rows).
const check = run.record_check;
if (check) {
  $("#run-head").append(h("dt", {}, "record"), h("dd", { id: "run-record", class: check.ok ? "ok" : "changed" },
    h("a", { href: "/api/v1/records/" + check.record + ".html" }, "record " + check.record),
    check.ok ? " (signed with key " + check.key_id + "; this run's stored data matches it)"
      : " DOES NOT MATCH what is stored"));
  if (!check.ok) {
    const m = say("This run's stored data no longer matches its signed acceptance record " + check.record
      + ": what this page shows is not what was signed.", "error");
    m.id = "record-mismatch";
    m.append(h("ul", {}, check.problems.map((p) => h("li", {}, p.problem))));
  }
}

// actions
const actions = h("div", { class: "toolbar", id: "actions" },
  h("a", { href: "/ui/compare.html?a=" + encodeURIComponent(run.appliance + "/" + run.run) + "&reference=golden", id: "compare-golden" },
    "compare with the golden reference"),
  h("a", { href: "/ui/history.html?appliance=" + encodeURIComponent(run.appliance) }, "history of " + run.appliance),
  run.serial ? h("a", { href: "/ui/history.html?serial=" + encodeURIComponent(run.serial) }, "history of " + run.serial) : "");
page.append(actions);
if (can(s, "operator") && run.verdict) {
  const comment = h("input", { id: "signoff-comment", size: 40, placeholder: "comment (optional)" });
  const sign = h("button", { type: "button", class: "primary", id: "sign-off" }, "sign off and issue the acceptance record");
  sign.addEventListener("click", async () => {
    try {
      const rec = await api.post("/records", { appliance: run.appliance, run: run.run, comment: comment.value || undefined });
      say("record " + rec.id + " issued: " + rec.verdict, "ok").append(" ",
        h("a", { href: "/api/v1/records/" + rec.id + ".html", id: "record-html" }, "printable"), " · ",
        h("a", { href: "/api/v1/records/" + rec.id, id: "record-json", download: "record-" + rec.id + ".json" }, "JSON"));
      sign.disabled = true;
    } catch (e) {
      sayError(e);
      // The instrument's self-test failed or did not run: an admin may issue the record anyway, with a reason that
      // is audited and shown on the record (as for a golden reference).
      if (e.status === 409 && can(s, "admin") && /self-test/.test(e.message || "") && !$("#signoff-override-reason")) {
        const reason = h("input", { id: "signoff-override-reason", size: 50, maxlength: 500, placeholder: "why a record without a passed self-test (audited)" });
        const force = h("button", { type: "button", id: "sign-off-override" }, "issue the record anyway");
        force.addEventListener("click", async () => {
          try {
            const rec = await api.post("/records", { appliance: run.appliance, run: run.run, comment: comment.value || undefined,
              override_reason: reason.value });
            say("record " + rec.id + " issued: " + rec.verdict + ", its self-test overridden: " + reason.value, "ok").append(" ",
              h("a", { href: "/api/v1/records/" + rec.id + ".html", id: "record-html" }, "printable"));
            force.disabled = true;
            sign.disabled = true;
          } catch (e2) {
            sayError(e2);
          }
        });
        actions.append(reason, force);
      }
    }
  });
  actions.append(comment, sign);
}
if (can(s, "admin") && run.verdict) {
  const ref = h("button", { type: "button", id: "make-reference" }, "make this run the golden reference");
  ref.addEventListener("click", async () => {
    if (!confirm("Make every cell of this run the golden reference of model " + (run.model || "?") + " and plan " + run.plan + "?")) return;
    try {
      await api.post("/references", { appliance: run.appliance, run: run.run });
      say("golden reference set from this run", "ok");
    } catch (e) {
      sayError(e);
      // Not a complete PASS: an admin may still make it one, with a reason that is audited and shown with it.
      if (e.status === 409 && !$("#override-reason")) {
        const reason = h("input", { id: "override-reason", size: 50, maxlength: 500, placeholder: "why this run anyway (audited)" });
        const force = h("button", { type: "button", id: "make-reference-override" }, "make it the reference anyway");
        force.addEventListener("click", async () => {
          try {
            await api.post("/references", { appliance: run.appliance, run: run.run, override_reason: reason.value });
            say("golden reference set from this run, overriding its verdict: " + reason.value, "ok");
            force.disabled = true;
          } catch (e2) {
            sayError(e2);
          }
        });
        actions.append(reason, force);
      }
    }
  });
  actions.append(ref);
}

// verdict table
const planned = run.cells_planned || (run.progress && run.progress.cells) || run.cells.length;
const byNumber = new Map(run.cells.map((c) => [c.cell, c]));
const rows = [];
for (let n = 1; n <= Math.max(planned, ...run.cells.map((c) => c.cell)); n++) {
  const c = byNumber.get(n);
  if (!c) {
    rows.push(h("tr", { class: "MISSING" }, h("td", {}, String(n)), h("td", {}, "-"),
      h("td", {}, verdictBadge(missing.length || run.verdict ? "MISSING" : null)), ...Array(6).fill(0).map(() => h("td", {}, "-"))));
    continue;
  }
  rows.push(h("tr", { class: c.verdict },
    h("td", {}, String(n)), h("td", {}, h("a", { href: "#cell-" + n }, c.name)), h("td", { class: "v" }, verdictBadge(c.verdict)),
    ...[c.max_us, c.p99_us, c.p999_us, c.min_us].map((v) => h("td", { class: "num" }, fmtUs(v))),
    h("td", { class: "num" }, String(c.missed_deadlines ?? "-")), h("td", { class: "small" }, c.reason || "")));
}
page.append(h("h2", {}, "Cells"), h("table", { id: "verdicts" },
  h("thead", {}, h("tr", {}, ["#", "cell", "verdict", "max (us)", "p99 (us)", "p99.9 (us)", "min (us)", "missed", "reason"]
    .map((x) => h("th", {}, x)))), h("tbody", {}, rows)));

// downloads
const dl = (file, label) => h("a", { href: "/api/v1" + base + "/" + file, download: "" }, label);
page.append(h("p", { id: "downloads" }, "downloads: ", dl("result.json", "result JSON"), " · ",
  dl("cyclictest.json", "cyclictest JSON"), " · ", dl("histogram.hlog", "HdrHistogram log"), " · ", dl("junit.xml", "JUnit XML")));

// plots
const models = run.cells.map(cellFromApi);
if (models.length > 1) {
  const holder = h("div", { id: "overlay" });
  page.append(h("h2", {}, "All cells overlaid"), holder);
  overlayPlot(holder, models, { width: 1000 });
}
models.forEach((m, i) => {
  const c = run.cells[i];
  const holder = h("div", { class: "cell-plots" });
  page.append(h("h2", { id: "cell-" + c.cell }, "Cell " + c.cell + ": " + c.name + " ", verdictBadge(c.verdict)),
    h("p", { class: "small" }, [c.probe && "probe " + c.probe, c.policy && "policy " + c.policy,
      c.loads && c.loads.length && "loads " + c.loads.join(" "), c.duration_s && c.duration_s + " s",
      c.samples && c.samples + " samples"].filter(Boolean).join(" · ")), holder);
  histogramPlot(holder, m, { width: 1000, title: "latency histogram per CPU: " + c.name });
  spikePlot(holder, m, { width: 1000, title: "spikes over time, by cause: " + c.name });
  const pw = pwcetEstimate(c.pwcet);
  if (pw) {
    // the probabilistic worst case: the plot when it holds, else why not; each check and level in a table
    holder.append(h("h3", {}, "Probabilistic worst case (pWCET): " + (pw.applicable ? "the checks held" : pw.refusal)));
    if (pw.applicable) pwcetPlot(holder, Object.assign({}, m, { pwcet: c.pwcet }), { width: 1000 });
    const us = (v) => (v / 1000).toFixed(1);
    holder.append(table(["estimate", "check or level", "finding"], c.pwcet.estimates.flatMap((e) => [
      ...e.checks.map((k) => [e.scope, k.name + (k.passed ? "" : " (failed)"), k.detail]),
      ...e.levels.map((l) => [e.scope, "p " + l.probability.toExponential(0) + " per " + l.per,
        us(l.ns) + " us (95 % CI " + us(l.lowNs) + " to " + us(l.highNs) + ")"])])));
  }
  if (c.checks && c.checks.length) {
    holder.append(table(["check", "threshold", "measured", "outcome"],
      c.checks.map((k) => [k.metric, String(k.threshold), String(k.actual), verdictBadge(k.outcome)])));
  }
});

// system info
const sys = run.system || {};
page.append(h("h2", {}, "System"), h("dl", { class: "kv", id: "system" },
  Object.keys(sys).sort().flatMap((k) => [h("dt", {}, k), h("dd", {}, typeof sys[k] === "object" ? JSON.stringify(sys[k]) : String(sys[k]))])));
