// Regression (issue 35): is set B of runs of a plan worse than set A beyond the runs' own
// spread? Sets by hand (?a=APPLIANCE/RUN,...&b=...) or by a key (?plan=P&key=kernel&a=VALUE
// &b=VALUE&last=5). The numbers are the control room's GET /api/v1/regression, computed by
// rtbox.regression, the code rtbox compare runs; this page only writes them, by rtbox
// compare's rule (ComparisonJson.format): whole at 100 and above or when whole, else one decimal.
import { api, session, h, $, clear, sayError, param, runLink } from "/ui/app.js";
import { cellFromSummary, overlayPlot } from "/ui/lib/plots.js";

await session("regression");
const page = $("#page");
const KEY_LABELS = { "": "runs chosen by hand", kernel: "kernel release", rtbox_version: "rtbox version",
  image: "firmware image", appliance: "appliance", model: "controller model" };

const form = h("form", { class: "filters", id: "regression-form" },
  h("label", {}, "sets by ", h("select", { name: "key", id: "key" },
    Object.entries(KEY_LABELS).map(([k, l]) => h("option", { value: k, selected: (param("key") || "") === k }, l)))),
  h("label", { class: "by-key" }, "plan ", h("input", { name: "plan", id: "plan", size: 16, value: param("plan") || "", list: "plans" })),
  h("datalist", { id: "plans" }),
  h("label", {}, h("span", { class: "a-label" }, "set A "), h("input", { name: "a", id: "a", size: 40, value: param("a") || "", list: "values" })),
  h("label", {}, h("span", { class: "b-label" }, "set B "), h("input", { name: "b", id: "b", size: 40, value: param("b") || "", list: "values" })),
  h("datalist", { id: "values" }),
  h("label", { class: "by-key" }, "last ", h("input", { name: "last", id: "last", type: "number", min: 1, max: 100, size: 4, value: param("last") || "5" }), " runs of each"),
  h("button", { type: "submit" }, "compare"));
const out = h("div", { id: "regression" });
page.append(form, h("p", { class: "hint" }, "By hand: APPLIANCE/RUN of each run, comma-separated (a plan that repeats its cells"
  + " counts one run per repetition). By a key: the value of each set, e.g. two kernel releases; the last N runs of the plan with it."), out);

function byKey() {
  const k = $("#key").value;
  for (const e of form.querySelectorAll(".by-key")) e.style.display = k ? "" : "none";
  $("#a").placeholder = k ? "value, e.g. " + (k === "kernel" ? "6.1.0-28-686-pae" : "...") : "appliance/run, appliance/run, ...";
  $("#b").placeholder = $("#a").placeholder;
  fillValues();
}
async function fillValues() {
  const k = $("#key").value, plan = $("#plan").value, list = clear($("#values"));
  if (!k || !plan) return;
  try {
    const v = await api.get("/regression/values?" + new URLSearchParams({ plan, key: k }));
    for (const x of v.values) list.append(h("option", { value: x.value }, x.runs + " runs"));
  } catch (e) { /* the plan is being typed */ }
}
$("#key").addEventListener("change", byKey);
$("#plan").addEventListener("change", fillValues);
api.get("/regression/plans").then((p) => p.plans.forEach((x) => $("#plans").append(h("option", { value: x }))), () => {});
byKey();

form.addEventListener("submit", (ev) => {
  ev.preventDefault();
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(form).entries()) if (v) q.set(k, v);
  if (!q.get("key")) { q.delete("plan"); q.delete("last"); }
  history.replaceState(null, "", "?" + q);
  load(q);
});

/** rtbox compare's rule (rtbox.regression's ComparisonJson.format). */
function num(v) {
  if (v == null || Number.isNaN(v)) return "-";
  if (Math.abs(v) >= 100 || v === Math.round(v)) return roundHalfUp(v, 0);
  return roundHalfUp(v, 1);
}
// Java's %.0f and %.1f round the shortest decimal that reads back the double half up (away
// from zero); toFixed rounds the binary value (0.15 to "0.1" where Java writes "0.2"), so the
// rounding is done here on the decimal digits, as Java does.
function roundHalfUp(v, d) {
  const digits = Math.abs(v).toString();
  if (digits.includes("e")) return v.toFixed(d);
  const [whole, frac = ""] = digits.split(".");
  let n = BigInt(whole + frac.padEnd(d, "0").slice(0, d));
  if (frac.length > d && frac[d] >= "5") n += 1n;
  let t = n.toString().padStart(d + 1, "0");
  if (d > 0) t = t.slice(0, t.length - d) + "." + t.slice(t.length - d);
  return (v < 0 ? "-" : "") + t; // Java writes -0.0 for -0.04 too
}
function signed(v) {
  return (v > 0 ? "+" : "") + num(v);
}

function runs(side, compared) {
  // A stored run of a plan that repeats its cells is several runs of the set, one per repetition.
  const n = compared.length, stored = side.runs.length;
  return h("span", {}, side.name + ": " + n + (n === 1 ? " run" : " runs") + (n !== stored
    ? " from " + stored + (stored === 1 ? " stored run" : " stored runs") : "") + " (",
    ...side.runs.flatMap((r, i) => [i ? ", " : "", runLink(r.split("/")[0], r.slice(r.indexOf("/") + 1), r)]), ")");
}

async function load(q) {
  clear(out);
  clear($("#messages"));
  if (!q.get("a") || !q.get("b")) return;
  let c;
  try {
    c = await api.get("/regression?" + q);
  } catch (e) {
    return sayError(e);
  }
  const good = c.verdict === "NO CHANGE" || c.verdict === "IMPROVED";
  out.append(h("dl", { class: "kv" }, h("dt", {}, "plan"), h("dd", {}, c.plan || "single runs"),
    h("dt", {}, "set A"), h("dd", { id: "set-a" }, runs(c.a, c.runs_a)), h("dt", {}, "set B"), h("dd", { id: "set-b" }, runs(c.b, c.runs_b))));
  out.append(h("p", { id: "verdict", class: "msg " + (good ? "ok" : "error") },
    h("span", { class: "verdict regression " + c.verdict.replace(/ /g, "_") }, c.verdict), " ", c.b.name, " against ", c.a.name,
    ": ", c.summary));
  const rows = c.changes.map((x) => {
    let verdict = x.verdict;
    if (x.verdict === "TOO FEW RUNS") verdict += " (" + c.min_runs + " per set at least; about " + x.runs_needed + " per set to tell this difference)";
    else if (x.verdict === "NO CHANGE" && x.runs_needed > 0) verdict += " (about " + x.runs_needed + " runs per set would tell a difference this large)";
    return h("tr", { class: "change " + x.verdict.replace(/ /g, "_"), "data-cell": x.cell, "data-figure": x.figure },
      h("td", {}, x.cell), h("td", {}, x.figure + (x.unit ? " (" + x.unit + ")" : "")),
      h("td", { class: "num" }, String(x.n_a)), h("td", { class: "num" }, String(x.n_b)),
      h("td", { class: "num" }, num(x.mean_a)), h("td", { class: "num" }, num(x.mean_b)),
      h("td", { class: "num" }, signed(x.difference)),
      h("td", { class: "num" }, x.low == null ? "-" : "[" + num(x.low) + ", " + num(x.high) + "]"),
      h("td", { class: "num" }, x.relative == null ? "-" : signed(x.relative * 100) + "%"),
      h("td", { class: "num" }, x.effect_size == null ? "-" : "d " + num(x.effect_size)),
      h("td", { class: "v" }, verdict));
  });
  out.append(h("table", { id: "changes" }, h("thead", {}, h("tr", {},
    ["cell", "figure", "nA", "nB", "mean A", "mean B", "B - A", Math.round(c.confidence * 100) + " % interval", "change", "effect", "verdict"]
      .map((x) => h("th", {}, x)))), h("tbody", {}, rows)));
  out.append(h("p", { class: "hint" }, "B - A with its interval from a bootstrap over runs (" + c.resamples.toLocaleString("en-US")
    + " resamples), REGRESSED or IMPROVED only when the interval excludes 0 and Student's t-test agrees at the cell's level;"
    + " effect: Cohen's d. The same numbers as rtbox compare on the same runs."));
  for (const n of c.notes) out.append(h("p", { class: "msg" }, n));
  for (const [cell, both] of Object.entries(c.histograms)) {
    const holder = h("div", { id: "hist-" + cell, class: "regression-histograms" });
    out.append(h("h2", {}, "Cell " + cell), holder);
    const sides = [], labels = [];
    for (const [k, side] of [["a", c.a], ["b", c.b]]) {
      if (!both[k]) continue;
      sides.push(cellFromSummary(cell, both[k]));
      labels.push(k.toUpperCase() + ": " + side.name + " (" + both[k].runs + " runs summed)");
    }
    if (sides.length) overlayPlot(holder, sides, { labels, width: 1000, title: "set A and set B overlaid: " + cell });
  }
}

if (param("a") && param("b")) load(new URLSearchParams(location.search));
