// Plans: the control room's library (rtbox's shipped plans, the plans folder's, and every
// version saved here), and an editor: paste, upload or edit a plan's JSON, see the control
// room's check (rtbox plan check's problems with their JSON paths) as you type, and save it
// as a new version (admin; SHA-256, who and when kept, old versions stay runnable).
import { api, h, $, clear, say, sayError, param, can, session, timeOf, table } from "/ui/app.js";

const s = await session("plans");
const page = $("#page");
const list = h("div", { id: "plan-list" });
const editor = h("textarea", { id: "plan-text", rows: 24, cols: 100, spellcheck: "false", "aria-label": "plan JSON" });
const nameInput = h("input", { id: "plan-name", size: 30, placeholder: "the plan's name" });
const check = h("div", { id: "plan-problems", "aria-live": "polite" });
const asked = h("div", { id: "plan-inputs" });
const saveBtn = h("button", { type: "button", class: "primary", id: "save", disabled: true }, "save as a new version");
const file = h("input", { type: "file", id: "plan-file", accept: ".json,application/json" });
const versions = h("div", { id: "plan-versions" });

page.append(list,
  h("h2", { id: "editor-title" }, "Editor"),
  h("p", { class: "small" }, "Paste or upload a plan, or open one above. The control room checks it as you type, as "
    + "rtbox plan check does; what depends on the appliance (the disk a blockio load reads, the CPUs) is asked at start."),
  h("div", { class: "toolbar" }, h("label", {}, "name", nameInput), h("label", {}, "upload a plan (JSON)", file),
    can(s, "admin") ? saveBtn : h("span", { class: "small" }, "saving needs the role admin; you are " + s.role)),
  h("div", { class: "editor" }, editor, h("div", { class: "editor-side" }, check, asked)),
  versions);

async function loadList() {
  const { plans } = await api.get("/plans");
  clear(list).append(table(["plan", "version", "cells", "check", "SHA-256", "by", "when", ""], plans.map((p) =>
    h("tr", { "data-plan": p.name },
      h("td", {}, h("a", { href: "?plan=" + encodeURIComponent(p.name) }, p.name)),
      h("td", { class: "num" }, String(p.version)), h("td", { class: "num" }, String(p.cells)),
      h("td", { class: p.problems.length ? "problems" : "ok" }, p.problems.length ? p.problems.length + " problem"
        + (p.problems.length > 1 ? "s" : "") : "ok"),
      h("td", {}, h("code", { title: p.sha256 }, p.sha256.slice(0, 12))),
      h("td", {}, p.created_by + (p.source !== "saved" ? " (" + p.source + ")" : "")),
      h("td", {}, timeOf(p.created)),
      h("td", {}, p.problems.length ? "" : h("a", { href: "/ui/start.html?plan=" + encodeURIComponent(p.name) }, "start…")))),
    { id: "plans-table" }));
}

let timer = null, seq = 0;
function scheduleCheck() {
  clearTimeout(timer);
  timer = setTimeout(runCheck, 250);
}

async function runCheck() {
  const text = editor.value;
  const mine = ++seq;
  if (!text.trim()) {
    clear(check);
    clear(asked);
    saveBtn.disabled = true;
    return;
  }
  try {
    const r = await api.post("/plans/check", { text });
    if (mine !== seq) return; // a newer text is being checked
    clear(check);
    clear(asked);
    if (r.ok) {
      check.append(h("p", { class: "msg ok", id: "check-ok" }, "no problems: " + r.cells + " cell" + (r.cells === 1 ? "" : "s")));
    } else {
      check.append(h("div", { class: "msg error", id: "check-problems" }, r.problems.length + " problem"
        + (r.problems.length > 1 ? "s" : "") + ":", h("ul", {}, r.problems.map((p) => h("li", {}, p)))));
    }
    if (r.inputs && r.inputs.length) {
      asked.append(h("p", { class: "small" }, "asked at start: " + r.inputs.map((i) => i.name).join(", ")));
    }
    if (r.name && !nameInput.value.trim()) nameInput.value = r.name;
    saveBtn.disabled = !r.ok || !can(s, "admin");
    editor.classList.toggle("bad", !r.ok);
  } catch (e) {
    sayError(e);
  }
}
editor.addEventListener("input", scheduleCheck);

file.addEventListener("change", async () => {
  const f = file.files[0];
  if (!f) return;
  editor.value = await f.text();
  nameInput.value = "";
  runCheck();
});

saveBtn.addEventListener("click", async () => {
  clear($("#messages"));
  const name = nameInput.value.trim();
  if (!name) return say("give the plan a name");
  try {
    const v = await api.put("/plans/" + encodeURIComponent(name), new Blob([editor.value], { type: "application/json" }),
      { "Content-Type": "application/json" });
    say("saved " + v.name + " version " + v.version + " (SHA-256 " + v.sha256 + ")", "ok").id = "saved";
    await loadList();
    await showVersions(name);
  } catch (e) {
    sayError(e);
  }
});

async function showVersions(name) {
  clear(versions);
  const { versions: all } = await api.get("/plans/" + encodeURIComponent(name) + "/versions");
  versions.append(h("h2", {}, "Versions of " + name), table(["version", "SHA-256", "by", "when", "", ""], all.map((v) =>
    h("tr", { "data-version": v.version },
      h("td", { class: "num" }, String(v.version)), h("td", {}, h("code", {}, v.sha256)),
      h("td", {}, v.created_by + (v.source !== "saved" ? " (" + v.source + ")" : "")), h("td", {}, timeOf(v.created)),
      h("td", {}, h("button", { type: "button", class: "link-dark", onclick: () => open(name, v.version) }, "open")),
      h("td", {}, h("a", { href: "/ui/start.html?plan=" + encodeURIComponent(name) + "&version=" + v.version }, "start this version")))),
  { id: "versions-table" }));
}

async function open(name, version) {
  const r = await fetch("/api/v1/plans/" + encodeURIComponent(name) + (version ? "?version=" + version : ""),
    { credentials: "same-origin" });
  if (!r.ok) return say("cannot open plan " + name + ": " + r.status);
  editor.value = await r.text();
  nameInput.value = name;
  $("#editor-title").textContent = "Editor: " + name + " version " + r.headers.get("X-Plan-Version");
  await runCheck();
  await showVersions(name);
}

await loadList().catch(sayError);
if (param("plan")) await open(param("plan"), param("version")).catch(sayError);
