// What every page of the control room shares: the JSON API (docs/control-api.md) with the
// session's CSRF token on every state-changing request, the log-in check, the navigation
// bar, live events, and small DOM and number helpers. No framework: plain modules.
// Times (time.js) and sortable tables (sort.js) are modules of their own, for every page.
import "/ui/sort.js";
import { zone } from "/ui/time.js";
export { fmtTime, fmtUtc, timeOf, ago, agoOf, zone } from "/ui/time.js";

const API = "/api/v1";
let csrf = null;

/** An answer of the API that was not 2xx: status, the API's error text and its problems. */
export class ApiError extends Error {
  constructor(status, message, problems) {
    super(message);
    this.status = status;
    this.problems = problems || [];
  }
}

async function call(method, path, body, headers = {}) {
  const h = Object.assign({ Accept: "application/json" }, headers);
  let payload = body;
  if (body !== undefined && !(body instanceof Blob) && !(body instanceof ArrayBuffer)) {
    h["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  if (method !== "GET" && csrf) h["X-CSRF-Token"] = csrf;
  const r = await fetch(API + path, { method, headers: h, body: payload, credentials: "same-origin" });
  const text = await r.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch (e) {
    json = null;
  }
  if (r.status === 401 && path !== "/session") {
    toLogin();
    throw new ApiError(401, "not logged in");
  }
  if (!r.ok) {
    throw new ApiError(r.status, (json && json.error) || text || r.statusText, json && json.problems);
  }
  return json;
}

export const api = {
  get: (path) => call("GET", path),
  post: (path, body, headers) => call("POST", path, body, headers),
  put: (path, body, headers) => call("PUT", path, body, headers),
  del: (path) => call("DELETE", path),
};

/** URL-encodes each part of an API path: api.get(path`/runs/${a}/${r}`). */
export function path(strings, ...values) {
  return strings.reduce((out, s, i) => out + s + (i < values.length ? encodeURIComponent(values[i]) : ""), "");
}

function toLogin() {
  const next = location.pathname + location.search;
  location.href = "/ui/login.html?next=" + encodeURIComponent(next);
}

export async function logIn(user, password) {
  const s = await call("POST", "/session", { user, password });
  csrf = s.csrf;
  return s;
}

/**
 * The current session (who, role, CSRF token), or to the log-in page without one. Every
 * page but the log-in calls it first, then draws the navigation bar.
 */
export async function session(active) {
  let s;
  try {
    s = await call("GET", "/session");
  } catch (e) {
    if (e.status === 401) toLogin();
    throw e;
  }
  csrf = s.csrf;
  document.body.prepend(navBar(active, s));
  return s;
}

export const ROLES = ["viewer", "operator", "admin"];
export function can(s, role) {
  return ROLES.indexOf(s.role) >= ROLES.indexOf(role);
}

const PAGES = [
  ["fleet", "Fleet"], ["start", "Start"], ["plans", "Plans"], ["live", "Live"], ["runs", "Runs"], ["history", "History"],
  ["compare", "Compare"], ["regression", "Regression"], ["references", "References"], ["records", "Records"], ["audit", "Audit"],
  ["users", "Users", "admin"], ["webhooks", "Webhooks", "admin"],
];

function navBar(active, s) {
  const links = PAGES.filter(([, , role]) => !role || can(s, role))
    .map(([page, label]) => h("a", { href: "/ui/" + page + ".html", class: page === active ? "active" : "" }, label));
  const out = h("button", { type: "button", class: "link", id: "logout" }, "log out");
  out.addEventListener("click", async () => {
    try {
      await api.del("/session");
    } finally {
      location.href = "/ui/login.html";
    }
  });
  return h("nav", { class: "top" }, h("span", { class: "brand" }, "rtbox control room"), ...links,
    h("span", { class: "who" }, h("span", { class: "zone", id: "zone", title: "times on these pages; UTC on hover" }, zone()), " ", s.user + " (" + s.role + ") ",
      h("a", { href: "/ui/tokens.html", id: "my-tokens", class: active === "tokens" ? "active" : "" }, "API tokens"), " ", out));
}

/** A DOM element: h("a", {href: "..."}, "text", child...). Strings become text nodes (never HTML). */
export function h(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
    else if (k === "class" && !v) continue;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c == null || c === false) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

export function $(sel, root = document) {
  return root.querySelector(sel);
}

export function param(name) {
  return new URLSearchParams(location.search).get(name);
}

/** The message area of a page: errors in red, notes in grey. */
export function say(text, kind = "error") {
  const box = $("#messages") || document.body.appendChild(h("div", { id: "messages" }));
  const p = h("p", { class: "msg " + kind }, text);
  box.append(p);
  return p;
}

export function sayError(e) {
  const p = say(e.message + (e.problems && e.problems.length ? ":" : ""));
  if (e.problems && e.problems.length) p.append(h("ul", {}, e.problems.map((x) => h("li", {}, x))));
  return p;
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

export function verdictBadge(v) {
  return h("span", { class: "verdict " + (v || "RUNNING") }, v || "running");
}

export function stateBadge(s) {
  return h("span", { class: "state " + (s || "unknown") }, s || "unknown");
}

export function fmtUs(v) {
  if (v == null || !isFinite(v)) return "-";
  return v >= 100 ? String(Math.round(v)) : String(Math.round(v * 10) / 10);
}

export function fmtDelta(v, unit = "") {
  if (v == null || !isFinite(v)) return "-";
  const r = Math.abs(v) >= 100 ? Math.round(v) : Math.round(v * 10) / 10;
  return (r > 0 ? "+" : "") + r + unit;
}

/** A link to an appliance's own page (status, kernel, bundles, queue, runs, site and line, self-test). */
export function applianceLink(appliance, text) {
  return h("a", { href: "/ui/appliance.html?id=" + encodeURIComponent(appliance) }, text || appliance);
}

export function runLink(appliance, run, text) {
  return h("a", { href: "/ui/run.html?appliance=" + encodeURIComponent(appliance) + "&run=" + encodeURIComponent(run) },
    text || run);
}

/**
 * Live events (Server-Sent Events, /api/v1/events): handlers by event name; on a
 * reconnect (the stream has no replay) handlers.reconnect() reloads the REST state.
 */
export function events(query, handlers) {
  const qs = new URLSearchParams(Object.entries(query || {}).filter(([, v]) => v != null && v !== "")).toString();
  const src = new EventSource(API + "/events" + (qs ? "?" + qs : ""));
  let opened = false;
  src.onopen = () => {
    if (opened && handlers.reconnect) handlers.reconnect();
    opened = true;
    document.body.classList.remove("offline-stream");
  };
  src.onerror = () => document.body.classList.add("offline-stream");
  for (const [name, fn] of Object.entries(handlers)) {
    if (name === "reconnect") continue;
    src.addEventListener(name, (ev) => fn(JSON.parse(ev.data)));
  }
  return src;
}

/** A table with a header row: rows are arrays of cells (strings or nodes). */
export function table(head, rows, attrs = {}) {
  return h("table", attrs, h("thead", {}, h("tr", {}, head.map((x) => h("th", {}, x)))),
    h("tbody", {}, rows.map((r) => (r instanceof Node ? r : h("tr", {}, r.map((c) => h("td", {}, c)))))));
}

/** Paging controls for a list answer ({total, offset, limit}); go(offset) loads a page. */
export function pager(answer, go) {
  const { total, offset, limit } = answer;
  const last = Math.max(0, Math.floor((total - 1) / limit) * limit);
  const btn = (label, to, enabled) => h("button", { type: "button", disabled: !enabled, onclick: () => go(to) }, label);
  return h("div", { class: "pager" },
    btn("« first", 0, offset > 0), btn("‹ previous", Math.max(0, offset - limit), offset > 0),
    h("span", {}, total === 0 ? " none " : ` ${offset + 1}-${Math.min(total, offset + limit)} of ${total} `),
    btn("next ›", offset + limit, offset + limit < total), btn("last »", last, offset + limit < total));
}
