// Audit: every action that changed something (start, stop, sign-off, swap, reference,
// user, ...), newest first, as the control room's append-only log has it.
import { api, session, h, $, clear, sayError, fmtTime, pager } from "/ui/app.js";

await session("audit");
const page = $("#page");
const out = h("div", { id: "audit" });
page.append(out);
let offset = 0;

async function load() {
  try {
    const answer = await api.get("/audit?offset=" + offset);
    clear(out).append(pager(answer, (o) => { offset = o; load(); }), h("table", { id: "audit-table" },
      h("thead", {}, h("tr", {}, ["#", "at", "user", "action", "target", "detail"].map((x) => h("th", {}, x)))),
      h("tbody", {}, answer.entries.map((e) => h("tr", { "data-action": e.action },
        h("td", { class: "num" }, String(e.id)), h("td", {}, fmtTime(e.at)), h("td", {}, e.user || "-"), h("td", {}, e.action),
        h("td", {}, e.target || "-"),
        h("td", { class: "small" }, e.detail == null ? "" : typeof e.detail === "string" ? e.detail : JSON.stringify(e.detail)))))));
  } catch (e) {
    sayError(e);
  }
}
load();
