// Start: pick appliances (from the fleet, or a whole line), a plan from the library
// (checked by the control room before anything is sent), each controller's serial
// number and model, and start. Below, for admins: swap a bundle (upload, SHA-256, confirm).
import { api, session, h, $, clear, say, sayError, param, can, stateBadge } from "/ui/app.js";

const s = await session("start");
const page = $("#page");
if (!can(s, "operator")) say("starting a plan needs the role operator; you are " + s.role, "note");

const preselected = new Set((param("appliances") || "").split(",").filter(Boolean));
const planSelect = h("select", { id: "plan", name: "plan" }, h("option", { value: "" }, "(choose a plan)"));
const planView = h("div", { id: "plan-view" });
const lineInput = h("input", { id: "line", size: 10, placeholder: "e.g. line3" });
const targets = h("tbody", { id: "targets" });
const modelAll = h("input", { id: "model-all", size: 14, placeholder: "model for all" });
const startBtn = h("button", { type: "button", class: "primary", id: "start", disabled: !can(s, "operator") }, "start");
const results = h("div", { id: "start-results" });

page.append(
  h("h2", {}, "1. Plan"),
  h("div", { class: "toolbar" }, h("label", {}, "plan from the library", planSelect)), planView,
  h("h2", {}, "2. Appliances and controllers"),
  h("div", { class: "toolbar" }, h("label", {}, "whole line (every online appliance of it)", lineInput),
    h("button", { type: "button", id: "pick-line" }, "add the line's online appliances"),
    h("label", {}, "same model for every row", modelAll)),
  h("table", {}, h("thead", {}, h("tr", {}, ["start", "appliance", "state", "line", "controller serial number", "controller model"]
    .map((x) => h("th", {}, x)))), targets),
  h("h2", {}, "3. Start"), h("div", { class: "toolbar" }, startBtn), results);

let checked = null; // the plan name whose check passed
const version = param("version") ? Number(param("version")) : undefined; // an older version, from the Plans page
let asked = []; // what the checked plan asks at start (blockio_path, cpus), with each appliance's choices

// The plan's parameters that depend on the appliance (the disk blockio reads, the CPUs), one
// column each in the appliances' table, offered from what each appliance reported.
async function refreshInputs() {
  for (const el of page.querySelectorAll(".input-col")) el.remove();
  asked = [];
  if (!checked) return;
  const ids = [...targets.querySelectorAll("tr")].map((tr) => tr.dataset.appliance);
  const answer = await api.get("/plans/" + encodeURIComponent(checked) + "/inputs?appliances="
    + encodeURIComponent(ids.join(",")));
  asked = answer.inputs;
  const head = page.querySelector("thead tr");
  for (const input of asked) {
    head.append(h("th", { class: "input-col", title: input.what }, input.name === "cpus" ? "CPUs" : "block device (blockio)"));
    for (const tr of targets.querySelectorAll("tr")) {
      const mine = (input.appliances || {})[tr.dataset.appliance] || { choices: [], default: input.default };
      tr.append(h("td", { class: "input-col", "data-input": input.name }, inputField(input, mine)));
    }
  }
  if (asked.length) {
    planView.append(h("p", { class: "small", id: "asked" }, "Asked at start, per appliance: "
      + asked.map((i) => i.name + " (" + i.what + ")").join("; ") + "."));
  }
}

function inputField(input, mine) {
  if (input.name === "cpus") {
    const chosen = new Set(cpuList(mine.default || input.default || "0"));
    if (!mine.choices.length) return h("input", { class: "cpus", size: 8, value: mine.default || input.default || "0" });
    return h("span", { class: "cpus" }, mine.choices.map((c) => h("label", { class: "cpu" },
      h("input", { type: "checkbox", value: String(c), checked: chosen.has(c) }), " " + c)));
  }
  const sel = h("select", { class: "blockio_path" }, mine.choices.map((c) => h("option", { value: c }, c)));
  if (!mine.choices.length) return h("input", { class: "blockio_path", size: 16, value: mine.default || "", placeholder: "/dev/sda" });
  if (mine.default) sel.value = mine.default;
  return sel;
}

function cpuList(text) {
  const out = [];
  for (const part of String(text).split(",")) {
    const [a, b] = part.split("-").map((x) => parseInt(x, 10));
    for (let c = a; c <= (isNaN(b) ? a : b); c++) out.push(c);
  }
  return out;
}

/** The values a row's input cells hold, as the start request's target inputs. */
function rowInputs(tr) {
  const out = {};
  for (const td of tr.querySelectorAll("td[data-input]")) {
    if (td.dataset.input === "cpus") {
      const boxes = td.querySelectorAll("input[type=checkbox]");
      out.cpus = boxes.length ? [...boxes].filter((b) => b.checked).map((b) => b.value).join(",")
        : td.querySelector("input").value.trim();
    } else {
      out.blockio_path = (td.querySelector("select, input").value || "").trim() || undefined;
    }
  }
  return Object.keys(out).length ? out : undefined;
}

async function loadPlans() {
  const { plans } = await api.get("/plans");
  for (const p of plans) {
    planSelect.append(h("option", { value: p.name }, p.name + (p.cells ? ` (${p.cells} cells)` : "")
      + (p.problems && p.problems.length ? " - has problems" : "")));
  }
  if (param("plan")) {
    planSelect.value = param("plan");
    await showPlan();
  }
}

async function showPlan() {
  clear(planView);
  checked = null;
  for (const el of page.querySelectorAll(".input-col")) el.remove();
  const name = planSelect.value;
  if (!name) return;
  try {
    const v = version && name === param("plan") ? version : undefined;
    const [plan, check] = await Promise.all([api.get("/plans/" + encodeURIComponent(name) + (v ? "?version=" + v : "")),
      api.post("/plans/check", { name, version: v })]);
    if (check.ok) {
      planView.append(h("p", { class: "msg ok", id: "plan-check" }, "plan " + name + (v ? " version " + v : "")
        + " checked: no problems"));
      checked = name;
      await refreshInputs();
    } else {
      planView.append(h("div", { class: "msg error", id: "plan-check" }, "plan " + name + " has problems; it cannot be started:",
        h("ul", {}, check.problems.map((p) => h("li", {}, p)))));
    }
    planView.append(h("details", {}, h("summary", {}, "the plan as it will be sent"),
      h("pre", { class: "plan" }, JSON.stringify(plan, null, 2))));
  } catch (e) {
    sayError(e);
  }
}
planSelect.addEventListener("change", showPlan);

function targetRow(a) {
  if (targets.querySelector(`tr[data-appliance="${CSS.escape(a.id)}"]`)) return;
  if (checked) setTimeout(() => refreshInputs().catch(sayError), 0);
  targets.append(h("tr", { "data-appliance": a.id },
    h("td", {}, h("input", { type: "checkbox", class: "use", checked: true })),
    h("td", {}, a.id), h("td", {}, stateBadge(a.state)), h("td", {}, a.line || "-"),
    h("td", {}, h("input", { class: "serial", size: 16, placeholder: "SN-..." })),
    h("td", {}, h("input", { class: "model", size: 16, value: modelAll.value }))));
}

modelAll.addEventListener("input", () => {
  for (const m of targets.querySelectorAll("input.model")) m.value = modelAll.value;
});

async function loadAppliances() {
  // the preselected ones (from the fleet page), else the first online ones to choose from
  if (preselected.size) {
    for (const id of preselected) {
      try {
        targetRow(await api.get("/appliances/" + encodeURIComponent(id)));
      } catch (e) {
        sayError(e);
      }
    }
  } else {
    const { appliances } = await api.get("/fleet?state=online&limit=100");
    for (const a of appliances) targetRow(a);
    for (const box of targets.querySelectorAll("input.use")) box.checked = false;
  }
}

$("#pick-line", page).addEventListener("click", async () => {
  const line = lineInput.value.trim();
  if (!line) return say("name a line first");
  const { appliances } = await api.get("/fleet?state=online&limit=1000&line=" + encodeURIComponent(line));
  if (!appliances.length) say("no online appliance on line " + line, "note");
  for (const a of appliances) targetRow(a);
});

startBtn.addEventListener("click", async () => {
  clear($("#messages"));
  clear(results);
  if (!checked) return say("choose a plan whose check passed first");
  const chosen = [...targets.querySelectorAll("tr")].filter((tr) => tr.querySelector("input.use").checked)
    .map((tr) => ({ appliance: tr.dataset.appliance, serial: tr.querySelector("input.serial").value.trim() || undefined,
      model: tr.querySelector("input.model").value.trim() || undefined, inputs: rowInputs(tr) }));
  if (!chosen.length) return say("tick at least one appliance");
  startBtn.disabled = true;
  try {
    const answer = await api.post("/starts", { plan: checked, version: version && checked === param("plan") ? version : undefined,
      targets: chosen });
    const started = answer.starts.filter((x) => x.code === 200 && x.run);
    const queued = answer.starts.filter((x) => x.code === 202 && x.queued);
    results.append(h("table", { id: "starts" }, h("thead", {}, h("tr", {}, ["appliance", "instrument self-test", "answer", "run"].map((x) => h("th", {}, x)))),
      h("tbody", {}, answer.starts.map((x) => h("tr", { class: x.code === 200 ? "PASS" : x.code === 202 ? "QUEUED" : "FAIL",
        "data-appliance": x.appliance },
        h("td", {}, x.appliance),
        h("td", { class: "selftest" }, x.selftest ? (x.selftest.ok ? "passed: " : "FAILED: ") + (x.selftest.message || "")
          : x.code === 202 ? "when it is sent" : "not run (not a start for a record: no serial)"),
        h("td", { class: "v" }, x.code + " " + (x.message || "")), h("td", {}, x.run || "-"))))));
    if (started.length || queued.length) {
      const runs = started.map((x) => x.appliance + "/" + x.run).join(",");
      const n = started.length + queued.length;
      results.append(h("p", {}, h("a", { href: "/ui/live.html?runs=" + encodeURIComponent(runs)
        + (queued.length ? "&queued=" + queued.map((x) => x.queued).join(",") : ""), id: "to-live" },
        "follow the " + n + " run" + (n > 1 ? "s" : "") + " live" + (queued.length ? " (" + queued.length + " queued)" : ""))));
    }
  } catch (e) {
    sayError(e);
  } finally {
    startBtn.disabled = !can(s, "operator");
  }
});

await Promise.all([loadPlans().catch(sayError), loadAppliances().catch(sayError)]);

// Bundle swap (admin): upload the jar, show its SHA-256 (computed here and by the control
// room: the two must agree), type or paste it to confirm, send it to the chosen appliances.
if (can(s, "admin")) {
  const file = h("input", { type: "file", id: "bundle-file", accept: ".jar" });
  const info = h("div", { id: "bundle-info" });
  const confirm = h("input", { id: "bundle-confirm", size: 70, placeholder: "type or paste the SHA-256 shown above" });
  const replace = h("input", { id: "bundle-replace", size: 30, placeholder: "(optional) symbolic name it replaces" });
  const swapBtn = h("button", { type: "button", class: "danger", id: "swap", disabled: true }, "swap on the ticked appliances");
  const swapOut = h("div", { id: "swap-results" });
  let uploaded = null;
  page.append(h("h2", {}, "Swap a bundle"),
    h("p", { class: "small" }, "The appliances ticked above get the bundle (update when they have its symbolic name, "
      + "else install), without a reboot."),
    h("div", { class: "toolbar" }, h("label", {}, "bundle (jar)", file)), info,
    h("div", { class: "toolbar" }, h("label", {}, "confirm SHA-256", confirm), h("label", {}, "replaces", replace), swapBtn),
    swapOut);
  file.addEventListener("change", async () => {
    clear(info);
    uploaded = null;
    swapBtn.disabled = true;
    const f = file.files[0];
    if (!f) return;
    try {
      const bytes = await f.arrayBuffer();
      const local = crypto.subtle ? [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))]
        .map((b) => b.toString(16).padStart(2, "0")).join("") : null;
      uploaded = await api.post("/bundles", new Blob([bytes]), { "Content-Type": "application/java-archive" });
      const agree = local == null || local === uploaded.sha256;
      info.append(h("dl", { class: "kv" },
        h("dt", {}, "bundle"), h("dd", {}, uploaded.symbolicName + " " + uploaded.version + " (" + uploaded.size + " bytes)"),
        h("dt", {}, "SHA-256 (control room)"), h("dd", { id: "bundle-sha" }, h("code", {}, uploaded.sha256)),
        h("dt", {}, "SHA-256 (this browser)"), h("dd", {}, local ? h("code", {}, local) : "not computed (needs HTTPS or localhost)")));
      if (!agree) say("the SHA-256 computed here differs from the control room's: the upload was damaged; do not swap");
      swapBtn.disabled = !agree;
    } catch (e) {
      sayError(e);
    }
  });
  swapBtn.addEventListener("click", async () => {
    clear(swapOut);
    const appliances = [...targets.querySelectorAll("tr")].filter((tr) => tr.querySelector("input.use").checked)
      .map((tr) => tr.dataset.appliance);
    if (!appliances.length) return say("tick at least one appliance above");
    try {
      const answer = await api.post("/swaps", { sha256: uploaded.sha256, confirm: confirm.value.trim(), appliances,
        replace: replace.value.trim() || undefined });
      swapOut.append(h("table", {}, h("tbody", {}, answer.swaps.map((x) =>
        h("tr", { class: x.code === 200 ? "PASS" : "FAIL" }, h("td", {}, x.appliance), h("td", { class: "v" }, x.code + " " + (x.message || "")))))));
    } catch (e) {
      sayError(e);
    }
  });
}
