// Runs: every stored run, newest first, filtered by appliance, serial, model, plan or verdict.
import { api, session, h, $, clear, sayError, param, timeOf, runLink, verdictBadge, pager } from "/ui/app.js";

await session("runs");
const page = $("#page");
const fields = ["appliance", "serial", "model", "plan"];
const form = h("form", { class: "filters", id: "runs-form" },
  fields.map((f) => h("label", {}, f, h("input", { name: f, id: f, value: param(f) || "", size: 12 }))),
  h("label", {}, "verdict", h("select", { name: "verdict", id: "verdict" },
    ["", "PASS", "FAIL", "INCONCLUSIVE", "ERROR", "MEASURED"].map((v) => h("option", { value: v, selected: v === (param("verdict") || "") }, v || "any")))),
  h("button", { type: "submit" }, "filter"));
const out = h("div", { id: "runs" });
page.append(form, out);
let offset = 0;

async function load() {
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(form).entries()) if (v) q.set(k, v);
  history.replaceState(null, "", "?" + q);
  q.set("offset", offset);
  try {
    const answer = await api.get("/runs?" + q);
    clear(out).append(pager(answer, (o) => { offset = o; load(); }), h("table", { id: "runs-table" },
      h("thead", {}, h("tr", {}, ["started", "appliance", "run", "plan", "controller", "verdict", "cells", "messages", "started by"]
        .map((x) => h("th", {}, x)))),
      h("tbody", {}, answer.runs.map((r) => h("tr", { class: r.verdict || "" },
        h("td", {}, timeOf(r.started)), h("td", {}, r.appliance), h("td", {}, runLink(r.appliance, r.run)),
        h("td", {}, r.plan || r.kind || "-"), h("td", {}, [r.serial, r.model].filter(Boolean).join(" · ") || "-"),
        h("td", { class: "v" }, verdictBadge(r.verdict)), h("td", { class: "num" }, `${r.cells_run ?? "-"}/${r.cells_planned ?? "-"}`),
        h("td", { class: "num" }, r.messages ? `${r.messages.received}/${r.messages.expected}`
          + (r.messages.missing && r.messages.missing.length ? " missing " + r.messages.missing.join(",") : "") : "-"),
        h("td", {}, r.started_by || "-"))))));
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
