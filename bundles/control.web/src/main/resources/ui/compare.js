// Compare: two runs (?a=APPLIANCE/RUN&b=APPLIANCE/RUN) or a run against the golden
// reference of its controller model and plan (?a=...&reference=golden or =ID): per
// cell, both histograms overlaid, the deltas at p99, p99.9, max and missed deadlines,
// and against a reference the "inside the envelope" verdict of its tolerance band.
import { api, session, h, $, clear, say, sayError, param, can, fmtUs, fmtDelta, runLink, verdictBadge } from "/ui/app.js";
import { cellFromSummary, overlayPlot } from "/ui/lib/plots.js";

const s = await session("compare");
const page = $("#page");
const form = h("form", { class: "filters", id: "compare-form" },
  h("label", {}, "run a (appliance/run)", h("input", { name: "a", id: "a", size: 40, value: param("a") || "", required: true })),
  h("label", {}, "against run b (appliance/run)", h("input", { name: "b", id: "b", size: 40, value: param("b") || "" })),
  h("label", {}, "or a reference", h("select", { name: "reference", id: "reference" },
    h("option", { value: "" }, "(run b)"), h("option", { value: "golden", selected: param("reference") === "golden" }, "golden reference"))),
  h("button", { type: "submit" }, "compare"));
const out = h("div", { id: "comparison" });
page.append(form, out);

form.addEventListener("submit", (ev) => {
  ev.preventDefault();
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(form).entries()) if (v) q.set(k, v);
  if (q.get("reference")) q.delete("b");
  history.replaceState(null, "", "?" + q);
  load(q);
});

function side(x) {
  if (!x) return "-";
  if (Array.isArray(x)) {
    // the golden references used, one per cell: say whose run they came from
    const r = x[0] || {};
    const from = [...new Set(x.map((y) => y.appliance + "/" + y.run))];
    return h("span", {}, "golden reference of model " + (r.model || "?") + ", plan " + (r.plan || "?") + " (from ",
      ...from.flatMap((f, i) => [i ? ", " : "", runLink(f.split("/")[0], f.slice(f.indexOf("/") + 1), f)]),
      r.created_by ? ", set by " + r.created_by : "", ")",
      ...x.filter((y) => y.override_reason).slice(0, 1).map((y) => h("span", { class: "override", id: "override" },
        " NOT from a complete PASS run: made the reference by " + y.created_by + " because: " + y.override_reason)));
  }
  if (x.appliance && x.run) return runLink(x.appliance, x.run, x.appliance + "/" + x.run);
  return "reference " + (x.id ?? "") + (x.model ? " of " + x.model : "") + (x.plan ? ", plan " + x.plan : "");
}

async function load(q) {
  clear(out);
  clear($("#messages"));
  if (!q.get("a") || (!q.get("b") && !q.get("reference"))) return;
  let c;
  try {
    c = await api.get("/compare?" + q);
  } catch (e) {
    return sayError(e);
  }
  const other = c.reference ? "reference" : "b";
  const otherSide = c.reference || c.b;
  out.append(h("dl", { class: "kv" }, h("dt", {}, "a"), h("dd", {}, side(c.a)), h("dt", {}, other), h("dd", {}, side(otherSide))));
  if (c.reference || c.inside != null) {
    // The run's verdict first: the envelope is an extra check and never turns a failing run into a pass.
    const good = c.inside && c.verdict === "PASS";
    out.append(h("p", { id: "envelope", class: "msg " + (good ? "ok" : "error") }, c.reading + ": ",
      c.inside ? "every cell of a is within the reference's tolerance band" : "see the cells marked below",
      c.verdict !== "PASS" ? "; a's own verdict is " + (c.verdict || "not in yet") + ", which the envelope does not change" : ""));
  }
  const rows = c.cells.map((cell) => {
    const d = cell.delta || {}, p = cell.delta_pct || {};
    const env = cell.envelope;
    const own = cell.a && cell.a.verdict;
    return h("tr", { class: env ? (env.inside && own === "PASS" ? "PASS" : "FAIL") : "" },
      h("td", {}, h("a", { href: "#cmp-" + encodeURIComponent(cell.name) }, cell.name)),
      ...["p99_us", "p999_us", "max_us"].map((k) => h("td", { class: "num" },
        fmtUs(cell.a && cell.a[k]), " vs ", fmtUs(cell.b && cell.b[k]), " (", fmtDelta(d[k], " us"),
        p[k] != null ? ", " + fmtDelta(p[k], " %") : "", ")")),
      h("td", { class: "num" }, String(cell.a ? cell.a.missed_deadlines ?? "-" : "-"), " vs ",
        String(cell.b ? cell.b.missed_deadlines ?? "-" : "-"), " (", fmtDelta(d.missed_deadlines), ")"),
      h("td", { class: "v" }, env ? h("span", { class: "reading " + (env.inside ? "inside" : "outside") }, env.reading) : "-",
        env && env.outside && env.outside.length ? " " + env.outside.join(", ") : ""));
  });
  out.append(h("table", { id: "deltas" }, h("thead", {}, h("tr", {},
    ["cell", "p99 a vs " + other, "p99.9 a vs " + other, "max a vs " + other, "missed deadlines", "inside the envelope"]
      .map((x) => h("th", {}, x)))), h("tbody", {}, rows)));
  if (c.reference) out.append(tolerances(c.reference, q));
  for (const cell of c.cells) {
    const holder = h("div", { id: "cmp-" + cell.name });
    out.append(h("h2", {}, "Cell " + cell.name), holder);
    const sides = [], labels = [];
    if (cell.a) {
      sides.push(cellFromSummary(cell.name, cell.a));
      labels.push("a: " + (c.a.appliance ? c.a.appliance + "/" + c.a.run : "a"));
    }
    if (cell.b) {
      sides.push(cellFromSummary(cell.name, cell.b));
      labels.push(other === "reference" ? "golden reference" : "b: " + c.b.appliance + "/" + c.b.run);
    }
    if (!cell.a) holder.append(h("p", { class: "msg error" }, "a has no cell " + cell.name + ": missing"));
    if (sides.length) overlayPlot(holder, sides, { labels, width: 1000, title: "histograms overlaid: " + cell.name });
  }
}

// Each reference's tolerance band: shown to all, changed by an admin (audited).
const KEYS = ["p99_pct", "p99_us", "p999_pct", "p999_us", "max_pct", "max_us", "missed"];
function tolerances(refs, q) {
  const admin = can(s, "admin");
  return h("div", { id: "tolerances" }, h("h2", {}, "Tolerance bands"),
    h("p", {}, "A cell is inside the envelope when each figure is at most reference × (1 + pct/100) + us,"
      + " and its missed deadlines at most the reference's + missed."),
    h("table", {}, h("thead", {}, h("tr", {}, ["cell", ...KEYS, ""].map((x) => h("th", {}, x)))),
      h("tbody", {}, refs.map((r) => {
        const inputs = KEYS.map((k) => admin ? h("input", { type: "number", min: 0, step: "any", size: 5, name: k, value: r.tolerance[k] })
          : String(r.tolerance[k]));
        const save = admin ? h("button", { type: "button", class: "save-tolerance" }, "save") : "";
        if (admin) save.addEventListener("click", async () => {
          const t = {};
          inputs.forEach((i) => { t[i.name] = Number(i.value); });
          try {
            await api.put("/references/" + r.id, { tolerance: t });
            say("tolerance of reference " + r.id + " (" + r.cell + ") saved", "ok");
            load(q);
          } catch (e) {
            sayError(e);
          }
        });
        return h("tr", { "data-reference": r.id }, h("td", {}, r.cell), ...inputs.map((i) => h("td", {}, i)), h("td", {}, save));
      }))));
}

load(new URLSearchParams(location.search));
