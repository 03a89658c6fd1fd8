// Users (admin only; docs/control-api.md, "Users and audit"): every user with their role and
// state; make one, change a role, disable or enable (a disabled user keeps their name, audit
// trail and records, but cannot log in, their sessions end and their API tokens answer 401),
// reset a password (a new one made in this browser, shown once to pass on), delete.
// Every change is audited by the control room. A user's API tokens are on the tokens page.
import { api, session, h, $, clear, say, sayError, timeOf, can, ROLES, path } from "/ui/app.js";

const s = await session("users");
const page = $("#page");
if (!can(s, "admin")) {
  say("Only an admin manages users; you are " + s.role + ".", "note");
  throw new Error("not an admin");
}

const form = h("form", { class: "filters", id: "user-form" },
  h("label", {}, "name", h("input", { name: "name", id: "user-name", size: 16, required: "", pattern: "[A-Za-z0-9._-]{1,64}",
    placeholder: "alice" })),
  h("label", {}, "role", h("select", { name: "role", id: "user-role" },
    ...ROLES.map((r) => h("option", r === "operator" ? { value: r, selected: "" } : { value: r }, r)))),
  h("label", {}, "password (12 or more characters)", h("input", { name: "password", id: "user-password", type: "password",
    size: 20, required: "", minlength: 12, autocomplete: "new-password" })),
  h("button", { type: "submit", class: "primary", id: "user-add" }, "add user"));
const shown = h("div", { id: "user-shown" });
const list = h("div", { id: "users" });
page.append(h("p", { class: "small" }, "viewer: sees everything; operator: also starts, stops, self-tests and signs off;",
  " admin: also bundles, references, plans, appliance settings and users. ",
  h("a", { href: "/ui/tokens.html?everyone=1", id: "users-tokens" }, "Everyone's API tokens"), " are on the tokens page."),
form, shown, list);

/** A new password made here (crypto random, 16 characters without look-alikes). */
function newPassword() {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789";
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => alphabet[b % alphabet.length]).join("");
}

async function change(u, body, done) {
  try {
    await api.put(path`/users/${u.name}`, body);
    if (done) done();
    await load();
  } catch (e) {
    sayError(e);
    await load();
  }
}

function row(u) {
  const role = h("select", { class: "role", "aria-label": "role of " + u.name },
    ...ROLES.map((r) => h("option", r === u.role ? { value: r, selected: "" } : { value: r }, r)));
  role.addEventListener("change", () => change(u, { role: role.value },
    () => say(u.name + " is now " + role.value, "ok")));
  const toggle = h("button", { type: "button", class: u.disabled ? "enable" : "disable danger" }, u.disabled ? "enable" : "disable");
  toggle.addEventListener("click", () => {
    if (!u.disabled && !confirm("Disable " + u.name + "? Their sessions end now and their API tokens stop working.")) return;
    change(u, { disabled: !u.disabled }, () => say(u.name + (u.disabled ? " enabled" : " disabled"), "ok"));
  });
  const reset = h("button", { type: "button", class: "reset" }, "reset password");
  reset.addEventListener("click", () => {
    if (!confirm("Give " + u.name + " a new password? Their sessions end now.")) return;
    const password = newPassword();
    change(u, { password }, () => clear(shown).append(h("div", { class: "token-once" },
      h("p", {}, "New password of " + u.name + ": pass it on now, it is not shown again."),
      h("code", { id: "user-new-password" }, password))));
  });
  const del = h("button", { type: "button", class: "delete" }, "delete");
  del.addEventListener("click", async () => {
    if (!confirm("Delete " + u.name + "? Their API tokens are revoked. Their audit entries stay.")) return;
    try {
      await api.del(path`/users/${u.name}`);
      say(u.name + " deleted", "ok");
    } catch (e) {
      sayError(e);
    }
    load();
  });
  const self = u.name === s.user;
  return h("tr", { "data-user": u.name, class: u.disabled ? "disabled" : "" },
    h("td", {}, u.name, self ? h("span", { class: "small" }, " (you)") : ""),
    h("td", {}, role),
    h("td", {}, timeOf(u.created)),
    h("td", {}, h("span", { class: "user-state " + (u.disabled ? "disabled" : "enabled") }, u.disabled ? "disabled" : "enabled"),
      u.disabled ? h("div", { class: "small" }, "by " + (u.disabled_by || "?") + ", ", timeOf(u.disabled_at)) : ""),
    h("td", {}, self ? "" : [toggle, " ", reset, " ", del]),
    h("td", {}, h("a", { href: "/ui/tokens.html?user=" + encodeURIComponent(u.name) }, "tokens")));
}

async function load() {
  try {
    const answer = await api.get("/users");
    clear(list).append(h("table", { id: "users-table" },
      h("thead", {}, h("tr", {}, ["name", "role", "made", "state", "", "API tokens"].map((x) => h("th", {}, x)))),
      h("tbody", {}, answer.users.map(row))));
  } catch (e) {
    sayError(e);
  }
}

form.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const f = new FormData(form);
  try {
    await api.post("/users", { name: f.get("name"), role: f.get("role"), password: f.get("password") });
    say("user " + f.get("name") + " added as " + f.get("role"), "ok");
    form.reset();
    load();
  } catch (e) {
    sayError(e);
  }
});
load();
