// Audit: every action that changed something (start, stop, sign-off, swap, reference,
// user, ...) and every refused request (counted per source and minute), newest first, as
// the control room's append-only log has it; filtered by user, action and time, and as CSV.
import { api, session, h, $, clear, sayError, param, timeOf, pager } from "/ui/app.js";

await session("audit");
const page = $("#page");
const form = h("form", { class: "filters", id: "audit-form" },
  h("label", {}, "user", h("input", { name: "user", id: "audit-user", size: 12, value: param("user") || "" })),
  h("label", {}, "action", h("input", { name: "action", id: "audit-action", size: 14, value: param("action") || "" })),
  h("label", {}, "from", h("input", { name: "from", id: "audit-from", type: "datetime-local", value: param("from") || "" })),
  h("label", {}, "to", h("input", { name: "to", id: "audit-to", type: "datetime-local", value: param("to") || "" })),
  h("button", { type: "submit" }, "filter"),
  h("a", { id: "audit-csv", href: "/api/v1/audit?format=csv" }, "export CSV"));
const out = h("div", { id: "audit" });
page.append(form, out);
let offset = 0;

/** The form as the API's query: datetime-local (the browser's local time) as an ISO instant. */
function query() {
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(form).entries()) {
    if (!v) continue;
    q.set(k, k === "from" || k === "to" ? new Date(v).toISOString() : v);
  }
  return q;
}

async function load() {
  const q = query();
  const csv = new URLSearchParams(q);
  csv.set("format", "csv");
  $("#audit-csv").href = "/api/v1/audit?" + csv;
  q.set("offset", offset);
  try {
    const answer = await api.get("/audit?" + q);
    clear(out).append(pager(answer, (o) => { offset = o; load(); }), h("table", { id: "audit-table" },
      h("thead", {}, h("tr", {}, ["#", "at", "user", "action", "target", "detail"].map((x) => h("th", {}, x)))),
      h("tbody", {}, answer.entries.map((e) => h("tr", { "data-action": e.action },
        h("td", { class: "num" }, String(e.id)), h("td", {}, timeOf(e.at)), h("td", {}, e.user || "-"), h("td", {}, e.action),
        h("td", {}, e.target || "-"),
        h("td", { class: "small" }, e.detail == null ? "" : typeof e.detail === "string" ? e.detail : JSON.stringify(e.detail)))))));
  } catch (e) {
    sayError(e);
  }
}
form.addEventListener("submit", (ev) => {
  ev.preventDefault();
  offset = 0;
  load();
});
load();
