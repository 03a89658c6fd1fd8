// Golden references (docs/control-api.md, "Golden references"): per controller model, plan and
// cell, the run that is the reference, its figures and its tolerance band; an admin changes a
// band or deletes a reference (both audited by the control room). A run page makes one.
import { api, session, h, $, clear, say, sayError, param, can, fmtUs, timeOf, runLink } from "/ui/app.js";

const s = await session("references");
const page = $("#page");
const admin = can(s, "admin");
const KEYS = ["p99_pct", "p99_us", "p999_pct", "p999_us", "max_pct", "max_us", "missed"];
const form = h("form", { class: "filters", id: "references-form" },
  h("label", {}, "model", h("input", { name: "model", id: "model", value: param("model") || "", size: 14 })),
  h("label", {}, "plan", h("input", { name: "plan", id: "plan", value: param("plan") || "", size: 12 })),
  h("button", { type: "submit" }, "filter"));
const out = h("div", { id: "references" });
page.append(h("p", { class: "small" }, "A run is inside a reference's envelope when each of p99, p99.9 and max is at most",
  " reference × (1 + pct/100) + us, and its missed deadlines at most the reference's + missed. A run page makes its",
  " cells the golden reference (admin); the compare page compares a run with it."), form, out);

async function load() {
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(form).entries()) if (v) q.set(k, v);
  history.replaceState(null, "", q.toString() ? "?" + q : location.pathname);
  try {
    const { references } = await api.get("/references" + (q.toString() ? "?" + q : ""));
    clear(out).append(!references.length ? h("p", { class: "msg note", id: "references-none" },
      "no golden reference yet: make one from a passed run's page") : h("table", { id: "references-table" },
      h("thead", {}, h("tr", {}, ["model", "plan", "cell", "from run", "p99 / p99.9 / max (us), missed", "tolerance band", ""]
        .map((x) => h("th", {}, x)))),
      h("tbody", {}, references.map(row))));
  } catch (e) {
    sayError(e);
  }
}

function row(r) {
  const inputs = KEYS.map((k) => admin ? h("input", { type: "number", min: 0, step: "any", name: k, value: r.tolerance[k],
    "aria-label": k + " of reference " + r.id }) : h("span", { class: "tol-value" }, String(r.tolerance[k])));
  const actions = [];
  if (admin) {
    const save = h("button", { type: "button", class: "save-tolerance" }, "save band");
    save.addEventListener("click", async () => {
      const t = {};
      for (const i of inputs) {
        if (i.value === "" || !(Number(i.value) >= 0)) {
          say(i.name + " of reference " + r.id + ": a number, 0 or more");
          return;
        }
        t[i.name] = Number(i.value);
      }
      try {
        await api.put("/references/" + r.id, { tolerance: t });
        say("tolerance band of reference " + r.id + " (" + r.model + ", " + r.plan + ", " + r.cell + ") saved", "ok");
        load();
      } catch (e) {
        sayError(e);
      }
    });
    const del = h("button", { type: "button", class: "delete danger" }, "delete");
    del.addEventListener("click", async () => {
      if (!confirm("Delete the golden reference of " + r.model + ", " + r.plan + ", cell " + r.cell + "?")) return;
      try {
        await api.del("/references/" + r.id);
        say("reference " + r.id + " deleted", "ok");
        load();
      } catch (e) {
        sayError(e);
      }
    });
    actions.push(save, " ", del);
  }
  return h("tr", { "data-reference": String(r.id) },
    h("td", {}, r.model || "-"), h("td", {}, r.plan || "-"), h("td", {}, r.cell),
    h("td", {}, runLink(r.appliance, r.run, r.appliance + "/" + r.run),
      h("div", { class: "small" }, "set ", timeOf(r.created), " by ", r.created_by || "?"),
      r.override_reason ? h("div", { class: "override" }, "not from a complete PASS run: " + r.override_reason) : ""),
    h("td", { class: "num" }, [r.p99_us, r.p999_us, r.max_us].map(fmtUs).join(" / ") + ", " + String(r.missed_deadlines ?? "-")),
    h("td", { class: "tol" }, h("div", { class: "tol-grid" }, inputs.map((i, k) => h("label", {}, KEYS[k], i)))),
    h("td", { class: "actions" }, actions));
}

form.addEventListener("submit", (ev) => {
  ev.preventDefault();
  load();
});
load();
