// Webhooks (docs/control-api.md, "Webhooks"; admins only): per site, a URL told of the events
// it asks for, signed with its secret (shown once, when added). Listed with each one's latest
// deliveries: state, attempts, last answer, next attempt; read again every 5 s.
import { api, session, h, $, clear, sayError, timeOf, path } from "/ui/app.js";

const EVENTS = [
  ["run.verdict", "run FAIL or INCONCLUSIVE"],
  ["appliance.offline", "appliance offline longer than"],
  ["run.outside_envelope", "run outside its golden envelope"],
  ["record.issued", "acceptance record issued"],
];

await session("webhooks");
const page = $("#page");
const offline = h("input", { name: "offline_after_s", id: "webhook-offline", type: "number", min: "10", value: "300",
  size: 6 });
const form = h("form", { id: "webhook-form" },
  h("div", { class: "filters" },
    h("label", {}, "site ('*': every site)", h("input", { name: "site", id: "webhook-site", size: 12, value: "*" })),
    h("label", {}, "URL", h("input", { name: "url", id: "webhook-url", size: 50, required: "", type: "url",
      placeholder: "https://chat.example/hooks/..." })),
    h("label", {}, "secret (empty: made for you)", h("input", { name: "secret", id: "webhook-secret", size: 24,
      type: "password", autocomplete: "off", minlength: "16" }))),
  h("div", { class: "filters" },
    ...EVENTS.map(([id, text]) => h("label", { class: "check" },
      h("span", {}, h("input", { type: "checkbox", name: "events", value: id, id: "event-" + id.replace(".", "-"),
        ...(id === "run.verdict" ? { checked: "" } : {}) }), " " + text,
      ...(id === "appliance.offline" ? [" ", offline, " s"] : [])))),
    h("button", { type: "submit", id: "webhook-add", class: "primary" }, "add webhook")));
const shown = h("div", { id: "webhook-shown" });
const list = h("div", { id: "webhooks" });
page.append(h("p", { class: "small" }, "Each delivery is a POST of JSON with X-Rtbox-Delivery (drop a repeat by it),",
  " X-Rtbox-Timestamp and X-Rtbox-Signature: sha256=HMAC-SHA256(secret, timestamp.body); a 2xx acknowledges it,",
  " anything else is tried again later (docs/control-api.md)."), form, shown, list);

async function load() {
  try {
    const answer = await api.get("/webhooks");
    clear(list);
    if (!answer.webhooks.length) list.append(h("p", {}, "No webhook yet."));
    for (const w of answer.webhooks) list.append(webhook(w));
  } catch (e) {
    sayError(e);
  }
}

function webhook(w) {
  const counts = w.deliveries_by_state;
  const del = h("button", { type: "button", class: "danger delete" }, "delete");
  del.addEventListener("click", async () => {
    if (!confirm("Delete webhook " + w.id + " (" + w.url + ") and its " + (counts.pending + counts.sending) +
      " deliveries not yet sent?")) return;
    try {
      await api.del(path`/webhooks/${w.id}`);
      load();
    } catch (e) {
      sayError(e);
    }
  });
  return h("section", { class: "webhook", "data-webhook": String(w.id) },
    h("h2", {}, "Webhook " + w.id + " · site " + (w.site === "" ? "(none)" : w.site)),
    h("dl", { class: "kv" },
      h("dt", {}, "URL"), h("dd", {}, h("code", {}, w.url)),
      h("dt", {}, "events"), h("dd", {}, w.events.map((e) => e === "appliance.offline"
        ? e + " (after " + w.offline_after_s + " s)" : e).join(", ")),
      h("dt", {}, "added"), h("dd", {}, timeOf(w.created), " by " + w.created_by),
      h("dt", {}, "deliveries"), h("dd", {}, counts.delivered + " delivered, " + counts.pending + " waiting, " +
        counts.sending + " being sent, " + counts.failed + " given up")),
    del,
    w.deliveries.length ? h("table", { class: "deliveries" },
      h("thead", {}, h("tr", {}, ["delivery", "event", "made", "state", "attempts", "last attempt", "answer",
        "next attempt"].map((x) => h("th", {}, x)))),
      h("tbody", {}, w.deliveries.map((d) => h("tr", { "data-delivery": d.id },
        h("td", {}, h("code", {}, d.id)), h("td", {}, d.event), h("td", {}, timeOf(d.created)),
        h("td", {}, h("span", { class: "delivery " + d.state }, d.state)),
        h("td", { class: "num" }, String(d.attempts)),
        h("td", {}, d.last_attempt ? timeOf(d.last_attempt) : "-"),
        h("td", { class: "answer" }, d.last_code != null ? "HTTP " + d.last_code : d.last_error || "-"),
        h("td", {}, d.next_attempt ? timeOf(d.next_attempt) : "-")))))
      : h("p", { class: "small" }, "No delivery yet."));
}

form.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const f = new FormData(form);
  const events = f.getAll("events");
  const body = { site: f.get("site"), url: f.get("url"), events };
  if (events.includes("appliance.offline")) body.offline_after_s = Number(f.get("offline_after_s"));
  if (f.get("secret")) body.secret = f.get("secret");
  try {
    const w = await api.post("/webhooks", body);
    clear(shown).append(h("div", { class: "token-once" },
      h("p", {}, "Webhook " + w.id + "'s secret: give it to the receiver now, it is not shown again."),
      h("code", { id: "webhook-secret-value" }, w.secret)));
    form.reset();
    load();
  } catch (e) {
    sayError(e);
  }
});
load();
setInterval(load, 5000);
