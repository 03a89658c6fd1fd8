// Acceptance records: one per controller serial number and run, newest first; each as
// JSON and as a printable page; the hash chain checked on request (as rtbox control verify).
import { api, session, h, $, clear, say, sayError, param, fmtTime, runLink, verdictBadge, pager } from "/ui/app.js";

await session("records");
const page = $("#page");
const form = h("form", { class: "filters", id: "records-form" },
  h("label", {}, "serial", h("input", { name: "serial", id: "serial", value: param("serial") || "" })),
  h("label", {}, "model", h("input", { name: "model", id: "model", value: param("model") || "" })),
  h("button", { type: "submit" }, "filter"),
  h("button", { type: "button", id: "verify" }, "verify the chain"));
const verdict = h("div", { id: "verify-result" });
const out = h("div", { id: "records" });
page.append(form, verdict, out);
let offset = 0;

$("#verify", form).addEventListener("click", async () => {
  clear(verdict);
  try {
    const v = await api.get("/records/verify");
    verdict.append(h("p", { class: "msg " + (v.ok ? "ok" : "error") }, v.ok
      ? `the chain of ${v.records} records is intact`
      : `the chain is broken: record ${v.first_changed} was changed (${v.problem})`));
  } catch (e) {
    sayError(e);
  }
});

async function load() {
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(form).entries()) if (v) q.set(k, v);
  history.replaceState(null, "", "?" + q);
  q.set("offset", offset);
  try {
    const answer = await api.get("/records?" + q);
    clear(out).append(pager(answer, (o) => { offset = o; load(); }), h("table", { id: "records-table" },
      h("thead", {}, h("tr", {}, ["record", "issued", "serial", "model", "verdict", "run", "signed by", ""].map((x) => h("th", {}, x)))),
      h("tbody", {}, answer.records.map((r) => h("tr", { class: r.verdict, "data-record": r.id },
        h("td", { class: "num" }, String(r.id)), h("td", {}, fmtTime(r.issued)), h("td", {}, r.serial), h("td", {}, r.model || "-"),
        h("td", { class: "v" }, verdictBadge(r.verdict)), h("td", {}, r.appliance && r.run ? runLink(r.appliance, r.run) : "-"),
        h("td", {}, r.signed_by || "-"),
        h("td", {}, h("a", { href: "/api/v1/records/" + r.id + ".html", target: "_blank" }, "printable"), " · ",
          h("a", { href: "/api/v1/records/" + r.id, download: "record-" + r.id + ".json" }, "JSON")))))));
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
