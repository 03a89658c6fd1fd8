// Runs: every stored run, newest first, filtered by appliance, serial, model, plan or verdict.
// Tick two runs and "compare" opens the compare page with them (a and b, in the order ticked).
import { api, session, h, $, clear, sayError, param, timeOf, runLink, applianceLink, verdictBadge, pager } from "/ui/app.js";

await session("runs");
const page = $("#page");
const fields = ["appliance", "serial", "model", "plan"];
const form = h("form", { class: "filters", id: "runs-form" },
  fields.map((f) => h("label", {}, f, h("input", { name: f, id: f, value: param(f) || "", size: 12 }))),
  h("label", {}, "verdict", h("select", { name: "verdict", id: "verdict" },
    ["", "PASS", "FAIL", "INCONCLUSIVE", "ERROR", "MEASURED"].map((v) => h("option", { value: v, selected: v === (param("verdict") || "") }, v || "any")))),
  h("button", { type: "submit" }, "filter"));
const out = h("div", { id: "runs" });
const picked = []; // "appliance/run", in the order ticked; kept across pages and filters
const compareBtn = h("button", { type: "button", class: "primary", id: "compare-picked", disabled: true }, "compare the two ticked runs");
const pickedText = h("span", { class: "small", id: "picked" }, "tick two runs to compare them");
compareBtn.addEventListener("click", () => {
  location.href = "/ui/compare.html?a=" + encodeURIComponent(picked[0]) + "&b=" + encodeURIComponent(picked[1]);
});
page.append(form, h("div", { class: "toolbar" }, compareBtn, pickedText), out);
let offset = 0;

function showPicked() {
  compareBtn.disabled = picked.length !== 2;
  pickedText.textContent = picked.length ? "a: " + picked[0] + (picked[1] ? ", b: " + picked[1] : "; tick one more") : "tick two runs to compare them";
  for (const box of out.querySelectorAll("input.pick")) box.checked = picked.includes(box.dataset.run);
}

function pickBox(r) {
  const key = r.appliance + "/" + r.run;
  const box = h("input", { type: "checkbox", class: "pick", "data-run": key, checked: picked.includes(key),
    "aria-label": "compare " + key });
  box.addEventListener("change", () => {
    const i = picked.indexOf(key);
    if (box.checked && i < 0) {
      picked.push(key);
      if (picked.length > 2) picked.shift(); // a third tick replaces the oldest
    } else if (!box.checked && i >= 0) {
      picked.splice(i, 1);
    }
    showPicked();
  });
  return box;
}

async function load() {
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(form).entries()) if (v) q.set(k, v);
  history.replaceState(null, "", "?" + q);
  q.set("offset", offset);
  try {
    const answer = await api.get("/runs?" + q);
    clear(out).append(pager(answer, (o) => { offset = o; load(); }), h("table", { id: "runs-table" },
      h("thead", {}, h("tr", {}, ["", "started", "appliance", "run", "plan", "controller", "verdict", "cells", "messages", "started by"]
        .map((x) => h("th", {}, x)))),
      h("tbody", {}, answer.runs.map((r) => h("tr", { class: r.verdict || "", "data-run": r.appliance + "/" + r.run },
        h("td", {}, pickBox(r)), h("td", {}, timeOf(r.started)), h("td", {}, applianceLink(r.appliance)), h("td", {}, runLink(r.appliance, r.run)),
        h("td", {}, r.plan || r.kind || "-"), h("td", {}, [r.serial, r.model].filter(Boolean).join(" · ") || "-"),
        h("td", { class: "v" }, verdictBadge(r.verdict)), h("td", { class: "num", title: "cells whose result came in / cells the plan has" },
          r.cells_planned == null ? "-" : `${r.cells_run ?? 0}/${r.cells_planned}`),
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
