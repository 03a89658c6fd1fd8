// Fleet: every appliance with its state, last seen, kernel and rtbox version, bundles, run and last verdict.
// The server filters and pages (GET /api/v1/fleet); only one page of rows is in the DOM,
// so thousands of appliances stay fast. Status events update the rows shown in place.
// An appliance the control room does not know is shown as unregistered, without its verdict, and
// an admin accepts it (POST /api/v1/appliances/ID/accept, audited).
import { api, path, session, h, $, clear, stateBadge, verdictBadge, ago, agoOf, runLink, applianceLink, events, pager, sayError, param, can } from "/ui/app.js";

const s = await session("fleet");
const page = $("#page");
const form = h("form", { class: "filters", id: "filters" },
  h("label", {}, "appliance id contains", h("input", { name: "q", id: "q", value: param("q") || "" })),
  h("label", {}, "site", h("input", { name: "site", id: "site", value: param("site") || "", size: 10 })),
  h("label", {}, "line", h("input", { name: "line", id: "line", value: param("line") || "", size: 10 })),
  h("label", {}, "state", h("select", { name: "state", id: "state" },
    ["", "online", "busy", "offline", "unregistered"].map((v) => h("option", { value: v, selected: v === (param("state") || "") }, v || "any")))),
  h("label", {}, "rows per page", h("select", { name: "limit", id: "limit" },
    ["100", "250", "1000"].map((v) => h("option", { value: v, selected: v === (param("limit") || "100") }, v)))),
  h("button", { type: "submit" }, "filter"));
const counts = h("p", { id: "counts", class: "small" });
const startBtn = h("button", { type: "button", class: "primary", id: "start-selected", disabled: true }, "start a plan on the selected");
const tools = h("div", { class: "toolbar" }, startBtn, h("span", { class: "small", id: "selected" }, ""));
const holder = h("div", { id: "fleet" });
page.append(form, counts, can(s, "operator") ? tools : "", holder);

const selected = new Set();
const rows = new Map(); // appliance id -> its <tr>, for live updates
const data = new Map(); // appliance id -> its fleet row, which a status event updates
let offset = +(param("offset") || 0);

function query() {
  const f = new FormData(form);
  const q = new URLSearchParams();
  for (const [k, v] of f.entries()) if (v) q.set(k, v);
  q.set("offset", offset);
  return q;
}

function bundlesCell(a) {
  const list = a.bundles || [];
  if (!list.length) return h("span", { class: "small" }, "-");
  return h("details", {}, h("summary", {}, list.length + " bundles"),
    h("ul", { class: "small" }, list.map((b) => h("li", { "data-bundle": b.symbolicName, "data-sha256": b.sha256 || "",
      title: b.sha256 ? "SHA-256 " + b.sha256 : "no SHA-256 from the appliance" },
      b.symbolicName + " " + b.version + (b.sha256 ? " (" + b.sha256.slice(0, 12) + "...)" : "")))));
}

function progressCell(a) {
  if (a.state !== "busy" || !a.run) return "";
  const pct = a.cells ? Math.round(((a.cell - 1) + (a.cell_percent || 0) / 100) / a.cells * 100) : a.cell_percent || 0;
  return h("a", { href: "/ui/live.html?runs=" + encodeURIComponent(a.id + "/" + a.run) },
    h("span", { class: "progress", title: pct + " %" }, h("div", { style: "width:" + pct + "%" })),
    " ", a.plan || "", a.cells ? ` cell ${a.cell}/${a.cells}` : "");
}

function stateCell(a) {
  if (a.registered !== false) return stateBadge(a.state);
  const accept = h("button", { type: "button", class: "accept", "data-accept": a.id,
    title: "make this appliance part of the fleet: its runs then count (audited)" }, "accept");
  accept.addEventListener("click", async () => {
    try {
      await api.post(path`/appliances/${a.id}/accept`, {});
      load();
    } catch (e) {
      sayError(e);
    }
  });
  return h("span", {}, stateBadge("unregistered"), " ", h("span", { class: "small" }, a.state),
    can(s, "admin") ? [" ", accept] : "");
}

function row(a) {
  const box = h("input", { type: "checkbox", "data-id": a.id, checked: selected.has(a.id),
    disabled: a.state !== "online" || a.registered === false });
  box.addEventListener("change", () => {
    if (box.checked) selected.add(a.id);
    else selected.delete(a.id);
    updateSelection();
  });
  const tr = h("tr", { "data-appliance": a.id, class: a.registered === false ? "unregistered" : a.state },
    h("td", {}, box),
    h("td", {}, applianceLink(a.id)),
    h("td", {}, stateCell(a)),
    h("td", { class: "seen" }, agoOf(a.last_seen)),
    h("td", {}, [a.site, a.line].filter(Boolean).join(" / ") || "-"),
    h("td", {}, a.kernel || "-", a.rtbox_version ? h("div", { class: "small", title: "rtbox on the appliance" }, a.rtbox_version) : ""),
    h("td", {}, bundlesCell(a)),
    h("td", {}, progressCell(a), a.queued ? h("a", { class: "queued", href: "/ui/live.html?queue=" + encodeURIComponent(a.id),
      title: "starts waiting for this appliance" }, " " + a.queued + " queued") : ""),
    h("td", {}, a.last_run ? runLink(a.id, a.last_run, verdictBadge(a.last_verdict)) : "-"));
  return tr;
}

function updateSelection() {
  startBtn.disabled = selected.size === 0;
  $("#selected").textContent = selected.size ? selected.size + " selected" : "";
}

startBtn.addEventListener("click", () => {
  location.href = "/ui/start.html?appliances=" + encodeURIComponent([...selected].join(","));
});

async function load() {
  try {
    const q = query();
    history.replaceState(null, "", "?" + q);
    const answer = await api.get("/fleet?" + q);
    const c = answer.counts || {};
    counts.textContent = `${answer.total} appliances match: ${c.online ?? 0} online, ${c.busy ?? 0} busy, ${c.offline ?? 0} offline`
      + (c.unregistered ? `, ${c.unregistered} unregistered (not counted above; an admin accepts them)` : "");
    rows.clear();
    data.clear();
    const trs = answer.appliances.map((a) => {
      data.set(a.id, a);
      const tr = row(a);
      rows.set(a.id, tr);
      return tr;
    });
    clear(holder).append(
      pager(answer, (o) => { offset = o; load(); }),
      h("div", { class: "fleet-scroll" }, h("table", { id: "fleet-table" },
        h("thead", {}, h("tr", {}, ["", "appliance", "state", "last seen", "site / line", "kernel / rtbox", "bundles", "run",
          "last verdict"].map((x) => h("th", {}, x)))),
        h("tbody", {}, trs))));
  } catch (e) {
    sayError(e);
  }
}

form.addEventListener("submit", (ev) => {
  ev.preventDefault();
  offset = 0;
  load();
});

await load();
// a status changes a row in place; an appliance not on this page is left for the next load
events({}, {
  status: (a) => {
    const old = rows.get(a.appliance || a.id);
    if (!old) return;
    const merged = Object.assign({}, data.get(a.appliance || a.id), { id: a.appliance }, a);
    data.set(a.appliance || a.id, merged);
    const fresh = row(merged);
    rows.set(a.appliance || a.id, fresh);
    old.replaceWith(fresh);
  },
  reconnect: load,
});
setInterval(() => {
  // "last seen" ages without a message: redraw it each 30 s from its instant
  for (const t of document.querySelectorAll("#fleet-table td.seen time")) t.textContent = ago(t.dateTime);
}, 30000);
