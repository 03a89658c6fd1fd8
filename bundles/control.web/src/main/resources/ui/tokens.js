// API tokens (docs/control-api.md, "API tokens"; docs/ci.md): a user's tokens for scripts and
// CI jobs, made here (shown once), listed without their secret, revoked. An admin may list
// everyone's and revoke any.
import { api, session, h, $, clear, sayError, timeOf, can, ROLES, path, param } from "/ui/app.js";

const s = await session("tokens");
const page = $("#page");
const roles = ROLES.filter((r) => can(s, r));
const form = h("form", { class: "filters", id: "token-form" },
  h("label", {}, "name", h("input", { name: "name", id: "token-name", size: 20, required: "", pattern: "[A-Za-z0-9._@-]{1,64}",
    placeholder: "release-gate" })),
  h("label", {}, "role", h("select", { name: "role", id: "token-role" },
    ...roles.map((r) => h("option", r === s.role ? { value: r, selected: "" } : { value: r }, r)))),
  h("label", {}, "expires", h("input", { name: "expires", id: "token-expires", type: "date" })),
  h("button", { type: "submit", id: "token-make" }, "make token"));
const shown = h("div", { id: "token-shown" });
// The users page links here for everyone's tokens (?everyone=1) or one user's (?user=NAME); an admin's view.
const forUser = can(s, "admin") ? param("user") : null;
const everyone = h("input", { type: "checkbox", id: "token-everyone", checked: can(s, "admin") && param("everyone") === "1" });
const list = h("div", { id: "tokens" });
page.append(h("p", { class: "small" }, "A token acts as you (" + s.user + ") at its role, on every /api/v1 request, with",
  " Authorization: Bearer TOKEN and no CSRF token. It is shown once, when made: keep it in the CI's secrets."),
form, shown, forUser ? h("p", { id: "token-user" }, "API tokens of " + forUser + " (from the users page)") : "",
can(s, "admin") ? h("label", {}, everyone, " everyone's tokens") : "", list);

async function load() {
  try {
    const answer = await api.get("/tokens" + (forUser && !everyone.checked ? "?user=" + encodeURIComponent(forUser)
      : everyone.checked ? "?user=*" : ""));
    clear(list).append(h("table", { id: "token-table" },
      h("thead", {}, h("tr", {}, ["name", "user", "role", "made", "expires", "last used", "state", ""].map((x) => h("th", {}, x)))),
      h("tbody", {}, answer.tokens.map((t) => h("tr", { "data-token": String(t.id) },
        h("td", {}, t.name), h("td", {}, t.user), h("td", {}, t.role), h("td", {}, timeOf(t.created)),
        h("td", {}, t.expires ? timeOf(t.expires) : "never"), h("td", {}, t.last_used ? timeOf(t.last_used) : "-"),
        h("td", {}, h("span", { class: "token " + t.state }, t.state)),
        h("td", {}, t.state === "active" ? revokeButton(t) : t.revoked_by ? "by " + t.revoked_by : ""))))));
  } catch (e) {
    sayError(e);
  }
}

function revokeButton(t) {
  const b = h("button", { type: "button", class: "revoke" }, "revoke");
  b.addEventListener("click", async () => {
    if (!confirm("Revoke token '" + t.name + "' of " + t.user + "? Its next request gets 401.")) return;
    try {
      await api.del(path`/tokens/${t.id}`);
      load();
    } catch (e) {
      sayError(e);
    }
  });
  return b;
}

form.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const f = new FormData(form);
  const body = { name: f.get("name"), role: f.get("role") };
  // The date picker's day, to its end in the browser's time zone.
  if (f.get("expires")) body.expires = new Date(f.get("expires") + "T23:59:59").toISOString().replace(/\.\d+Z$/, "Z");
  try {
    const t = await api.post("/tokens", body);
    clear(shown).append(h("div", { class: "token-once" },
      h("p", {}, "Token '" + t.name + "' (" + t.role + "): copy it now, it is not shown again."),
      h("code", { id: "token-value" }, t.token)));
    form.reset();
    load();
  } catch (e) {
    sayError(e);
  }
});
everyone.addEventListener("change", load);
load();
