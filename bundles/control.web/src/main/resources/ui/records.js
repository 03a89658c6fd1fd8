// Acceptance records: one per controller serial number and run, newest first; each as
// JSON, as a printable page and as a zip a customer verifies with openssl; each with the key
// that signed it; signatures, chain and runs checked on request (as rtbox control verify).
import { api, session, h, $, clear, say, sayError, param, timeOf, runLink, verdictBadge, pager } from "/ui/app.js";

await session("records");
const page = $("#page");
const form = h("form", { class: "filters", id: "records-form" },
  h("label", {}, "serial", h("input", { name: "serial", id: "serial", value: param("serial") || "" })),
  h("label", {}, "model", h("input", { name: "model", id: "model", value: param("model") || "" })),
  h("button", { type: "submit" }, "filter"),
  h("button", { type: "button", id: "verify" }, "verify the chain"));
const verdict = h("div", { id: "verify-result" });
const out = h("div", { id: "records" });
const keys = h("div", { id: "keys" });
page.append(form, verdict, out, keys);
api.get("/keys").then((k) => keys.append(h("h2", {}, "Keys that sign the records"),
  h("p", {}, "Ed25519; the fingerprint is the SHA-256 of the public key's DER bytes"
    + " (openssl pkey -pubin -in KEY.pem -outform DER | sha256sum). Rotated keys stay published: their records still verify."),
  h("table", { id: "keys-table" }, h("tbody", {}, k.keys.map((x) => h("tr", { "data-key": x.key_id },
    h("td", {}, x.key_id), h("td", {}, x.fingerprint), h("td", {}, x.current ? "signs new records" : "rotated"),
    h("td", {}, h("a", { href: "data:application/x-pem-file;base64," + btoa(x.pem), download: "key-" + x.key_id + ".pem" },
      "public key (PEM)")))))))).catch(sayError);
let offset = 0;

$("#verify", form).addEventListener("click", async () => {
  clear(verdict);
  try {
    const v = await api.get("/records/verify");
    verdict.append(h("p", { class: "msg " + (v.ok ? "ok" : "error") }, v.ok
      ? `all ${v.records} records verify: every signature valid, the chain intact, every run's stored data as signed`
      : `${v.problems.length} problems: record ${v.first_changed} is the first named`));
    if (!v.ok) verdict.append(h("ul", { id: "verify-problems" }, v.problems.map((p) => h("li", { "data-record": p.record }, p.problem))));
  } catch (e) {
    sayError(e);
  }
});

async function load() {
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(form).entries()) if (v) q.set(k, v);
  history.replaceState(null, "", "?" + q);
  q.set("offset", offset);
  try {
    const answer = await api.get("/records?" + q);
    clear(out).append(pager(answer, (o) => { offset = o; load(); }), h("table", { id: "records-table" },
      h("thead", {}, h("tr", {}, ["record", "issued", "serial", "model", "verdict", "instrument self-test", "run", "signed by", "key (fingerprint SHA-256)", ""].map((x) => h("th", {}, x)))),
      h("tbody", {}, answer.records.map((r) => h("tr", { class: r.verdict, "data-record": r.id },
        h("td", { class: "num" }, String(r.id)), h("td", {}, timeOf(r.issued)), h("td", {}, r.serial), h("td", {}, r.model || "-"),
        h("td", { class: "v" }, verdictBadge(r.verdict)), selftestCell(r.selftest),
        h("td", {}, r.appliance && r.run ? runLink(r.appliance, r.run) : "-"),
        h("td", {}, r.signed_by || "-"),
        h("td", { class: "key" }, r.key_id ? h("span", { title: r.key_fingerprint || "not published here" }, r.key_id,
          h("br"), h("small", {}, r.key_fingerprint || "key not published here")) : "not signed"),
        h("td", {}, h("a", { href: "/api/v1/records/" + r.id + ".html", target: "_blank" }, "printable"), " · ",
          h("a", { href: "/api/v1/records/" + r.id + ".zip", class: "export" }, "export (zip, verifies with openssl)"), " · ",
          h("a", { href: "/api/v1/records/" + r.id, download: "record-" + r.id + ".json" }, "JSON")))))));
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

// The measuring chain's self-test the record carries (a stall injected, found and attributed), or the admin's override.
function selftestCell(st) {
  if (!st) return h("td", { class: "selftest" }, h("small", {}, "not carried (issued before records carried it)"));
  const figures = st.ran ? `${st.found} of ${st.expected} stalls found, error ${st.error_us >= 0 ? "+" : ""}${st.error_us} us` : "did not run";
  return h("td", { class: "selftest " + (st.ok ? "ok" : "FAIL") },
    st.ok ? "passed" : "FAILED", h("br"), h("small", {}, figures),
    st.override_reason ? h("div", { class: "override" }, h("small", {}, "overridden by an admin: " + st.override_reason)) : "");
}
