package rtbox.control.internal;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * An acceptance record as a printable HTML page, with no script (served with a CSP that
 * allows none): what the record says, its self-test and readiness check, its key and
 * signature, its cells, bundles, system and plan. Not covered by the signature (the record's
 * JSON is); in the export beside it.
 */
final class RecordPage {
    private RecordPage() {
    }

    /** Record {@code id}'s body (with its sha256 and signature) as a printable page. */
    static String html(long id, JsonObject r) {
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Acceptance record ").append(id)
                .append(" - ").append(esc(Json.string(r, "serial"))).append("</title><style>")
                .append("body{font-family:sans-serif;margin:2em;max-width:60em}table{border-collapse:collapse}")
                .append("td,th{border:1px solid #888;padding:.2em .5em;text-align:left}.PASS{color:#060}")
                .append(".FAIL,.ERROR{color:#a00}pre{white-space:pre-wrap;font-size:80%}")
                .append("@media print{body{margin:0}}</style></head><body>");
        h.append("<h1>Acceptance record ").append(id).append("</h1><table>");
        row(h, "Controller serial", Json.string(r, "serial"));
        row(h, "Controller model", Json.string(r, "model"));
        h.append("<tr><th>Verdict</th><td class=\"").append(esc(Json.string(r, "verdict"))).append("\"><b>")
                .append(esc(Json.string(r, "verdict"))).append("</b> ").append(esc(Json.string(r, "reason")))
                .append("</td></tr>");
        row(h, "Appliance", Json.string(r, "appliance"));
        row(h, "Run", Json.string(r, "run"));
        JsonObject plan = Json.object(r, "plan");
        row(h, "Plan", Json.string(plan, "name") + " (SHA-256 " + Json.string(plan, "sha256") + ")");
        // Records issued before the self-test was recorded hold the readiness check under "selftest".
        boolean old = !r.has("readiness");
        if (!old) {
            h.append("<tr><th>Measuring chain's self-test before the run (a stall injected, found and attributed)</th>")
                    .append("<td id=\"selftest\" class=\"").append(SelftestGate.passed(r) ? "PASS" : "FAIL").append("\">")
                    .append(esc(SelftestGate.text(Json.object(r, "selftest")))).append("</td></tr>");
            JsonObject o = Json.object(r, "selftest_override");
            if (o != null) {
                row(h, "Self-test overridden by an admin", Json.string(o, "by") + ": " + Json.string(o, "reason")
                        + " (overrides: " + Json.string(o, "overrides") + ")");
            }
        }
        JsonObject st = Json.object(r, old ? "selftest" : "readiness");
        row(h, "Appliance readiness check before the run (disk, outbox, probes)", st == null ? "none"
                : (Boolean.TRUE.equals(st.has("ok") && st.get("ok").getAsBoolean()) ? "passed" : "FAILED") + ", "
                + Json.string(st, "at") + " (" + Json.string(st, "age_s") + " s before the run): "
                + Json.string(st, "message"));
        if (old) {
            row(h, "Measuring chain's self-test", "not carried: this record was issued before records carried it");
        }
        JsonObject regression = Json.object(r, "regression"); // issue 35; none in older records
        if (regression != null) {
            h.append("<tr><th>Regression verdict: ").append(esc(Json.string(Json.object(regression, "b"), "name")))
                    .append(" against ").append(esc(Json.string(Json.object(regression, "a"), "name")))
                    .append("</th><td id=\"regression\"><b>").append(esc(Json.string(regression, "verdict")))
                    .append("</b>: ").append(esc(Json.string(regression, "summary"))).append("<br>set A: ")
                    .append(esc(String.join(", ", strings(Json.array(Json.object(regression, "a"), "runs")))))
                    .append("<br>set B: ").append(esc(String.join(", ", strings(Json.array(Json.object(regression, "b"),
                            "runs"))))).append("</td></tr>");
        }
        row(h, "Started by", Json.string(r, "started_by"));
        row(h, "Signed by", Json.string(r, "signed_by") + " (" + Json.string(r, "sign_off") + ")");
        row(h, "Issued", Json.string(r, "issued"));
        row(h, "Comment", Json.string(r, "comment"));
        row(h, "Previous record's SHA-256", Json.string(r, "previous_sha256"));
        row(h, "This record's SHA-256", Json.string(r, "sha256"));
        row(h, "Signed with key", Json.string(r, "key_id") == null ? "none (not signed)" : Json.string(r, "key_id")
                + ", fingerprint SHA-256 " + Json.string(r, "key_fingerprint") + " (Ed25519)");
        row(h, "Signature (Ed25519, base64)", Json.string(r, "signature"));
        JsonArray sealed = Json.array(r, "run_messages");
        row(h, "Run data sealed", sealed == null ? "none" : sealed.size() + " stored messages of the run by SHA-256,"
                + " and the run's stored verdict and cells");
        boolean pwcet = false; // the column only when a cell made a pWCET estimate (issue 36)
        for (JsonElement e : r.getAsJsonArray("cells")) {
            pwcet |= e.getAsJsonObject().has("pwcet");
        }
        h.append("</table><h2>Cells</h2><table><tr><th>#</th><th>cell</th><th>verdict</th><th>max us</th>"
                + "<th>p99 us</th><th>p99.9 us</th><th>missed</th>").append(pwcet ? "<th>probabilistic worst case</th>" : "")
                .append("</tr>");
        for (JsonElement e : r.getAsJsonArray("cells")) {
            JsonObject c = e.getAsJsonObject();
            h.append("<tr>");
            for (String f : pwcet ? new String[] {"cell", "name", "verdict", "max_us", "p99_us", "p999_us",
                "missed_deadlines", "pwcet"} : new String[] {"cell", "name", "verdict", "max_us", "p99_us", "p999_us",
                    "missed_deadlines"}) {
                h.append("<td").append(f.equals("verdict") ? " class=\"" + esc(Json.string(c, f)) + "\"" : "").append('>')
                        .append(esc(Json.string(c, f))).append("</td>");
            }
            h.append("</tr>");
        }
        h.append("</table><h2>Bundles on the appliance</h2><table><tr><th>symbolic name</th><th>version</th>"
                + "<th>SHA-256</th></tr>");
        for (JsonElement e : r.getAsJsonArray("bundles")) {
            JsonObject b = e.getAsJsonObject();
            h.append("<tr><td>").append(esc(Json.string(b, "symbolicName"))).append("</td><td>")
                    .append(esc(Json.string(b, "version"))).append("</td><td>").append(esc(Json.string(b, "sha256")))
                    .append("</td></tr>");
        }
        h.append("</table><h2>System</h2><table>");
        JsonObject sys = Json.object(r, "system");
        if (sys != null) {
            for (String k : sys.keySet()) {
                row(h, k, Json.string(sys, k));
            }
        }
        h.append("</table><h2>Plan</h2><pre>").append(esc(Json.string(plan, "text"))).append("</pre></body></html>");
        return h.toString();
    }

    private static java.util.List<String> strings(JsonArray a) {
        java.util.List<String> out = new java.util.ArrayList<>();
        if (a != null) {
            a.forEach(e -> out.add(e.getAsString()));
        }
        return out;
    }

    private static void row(StringBuilder h, String k, String v) {
        h.append("<tr><th>").append(esc(k)).append("</th><td>").append(esc(v)).append("</td></tr>");
    }

    static String esc(String s) {
        if (s == null) {
            return "";
        }
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
