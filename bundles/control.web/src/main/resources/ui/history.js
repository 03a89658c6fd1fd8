// History: per appliance (?appliance=) or per controller serial (?serial=), the worst
// latency and p99.9 of each cell over time (OSADL's long-term plot) and the verdicts.
import { api, session, h, $, clear, sayError, param, fmtUs, timeOf, runLink, verdictBadge } from "/ui/app.js";
import { historyPlot } from "/ui/lib/plots.js";

await session("history");
const page = $("#page");
const form = h("form", { class: "filters", id: "history-form" },
  h("label", {}, "appliance", h("input", { name: "appliance", id: "appliance", value: param("appliance") || "" })),
  h("label", {}, "or controller serial", h("input", { name: "serial", id: "serial", value: param("serial") || "" })),
  h("label", {}, "plan (optional)", h("input", { name: "plan", id: "plan", value: param("plan") || "", size: 12 })),
  h("button", { type: "submit" }, "show"));
const out = h("div", { id: "history" });
page.append(form, out);

form.addEventListener("submit", (ev) => {
  ev.preventDefault();
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(form).entries()) if (v) q.set(k, v);
  history.replaceState(null, "", "?" + q);
  load(q);
});

async function load(q) {
  clear(out);
  if (!q.get("appliance") && !q.get("serial")) return;
  try {
    const { points } = await api.get("/history?" + q);
    if (!points.length) {
      out.append(h("p", { class: "msg note" }, "no results yet"));
      return;
    }
    historyPlot(out, points, { width: 1000 });
    out.append(h("table", { id: "history-table" }, h("thead", {}, h("tr", {},
      ["started", "appliance", "run", "plan", "cell", "verdict", "max (us)", "p99.9 (us)", "p99 (us)", "missed"].map((x) => h("th", {}, x)))),
    h("tbody", {}, [...points].reverse().map((p) => h("tr", { class: p.verdict },
      h("td", {}, timeOf(p.started)), h("td", {}, p.appliance), h("td", {}, runLink(p.appliance, p.run)),
      h("td", {}, p.plan || "-"), h("td", {}, p.name || String(p.cell)), h("td", { class: "v" }, verdictBadge(p.verdict)),
      ...[p.max_us, p.p999_us, p.p99_us].map((v) => h("td", { class: "num" }, fmtUs(v))),
      h("td", { class: "num" }, String(p.missed_deadlines ?? "-")))))));
  } catch (e) {
    sayError(e);
  }
}

load(new URLSearchParams(location.search));
