package rtbox.control.internal;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * A cell (or single-run) result message as the run page shows it: the figures, per-CPU
 * histograms, spikes with their causes and JVM stalls from the full report, without
 * the rest of the report; the pWCET estimate as it is, when the run made one.
 */
final class Cells {
    private static final String[] COPIED = {"cell", "cell_name", "verdict", "reason", "probe", "policy", "axes",
        "loads", "tuner", "complete", "started", "ended", "duration_s", "samples", "min_us", "p50_us", "p99_us",
        "p999_us", "max_us", "missed_deadlines", "overflows", "histogram_bucket_us", "histogram", "threads"};

    private Cells() {
    }

    /**
     * What of the full report {@link #view} shows that is below 0 (a spike's latency, a JVM
     * stall's duration), as a problem naming its path, or null. The codec checks the top-level
     * figures; these are the report's own, which the run page shows beside them. Offsets are not
     * checked: a stall that began before the measuring did has a negative one (HiccupMonitor).
     */
    static String outOfRange(JsonObject j) {
        JsonObject report = Json.object(j, "report");
        JsonArray threads = Json.array(Json.object(report, "result"), "threads");
        if (threads != null) {
            for (int t = 0; t < threads.size(); t++) {
                JsonArray s = threads.get(t).isJsonObject() ? Json.array(threads.get(t).getAsJsonObject(), "spikes")
                        : null;
                String bad = negative(s, "$.report.result.threads[" + t + "].spikes", "latencyNs");
                if (bad != null) {
                    return bad;
                }
            }
        }
        return negative(Json.array(report, "jvmStalls"), "$.report.jvmStalls", "durationNs");
    }

    private static String negative(JsonArray list, String path, String... fields) {
        if (list == null) {
            return null;
        }
        for (int i = 0; i < list.size(); i++) {
            if (!list.get(i).isJsonObject()) {
                continue;
            }
            for (String f : fields) {
                Double v = Json.number(list.get(i).getAsJsonObject(), f);
                if (v != null && v < 0) {
                    return path + "[" + i + "]." + f + ": " + list.get(i).getAsJsonObject().get(f)
                            + " is negative: a latency or duration is 0 or more";
                }
            }
        }
        return null;
    }

    static JsonObject view(JsonObject j, int sequence) {
        JsonObject o = new JsonObject();
        for (String f : COPIED) {
            if (j.has(f)) {
                o.add(f.equals("cell_name") ? "name" : f, j.get(f));
            }
        }
        if (!o.has("cell")) {
            o.addProperty("cell", 1);
        }
        if (!o.has("name")) {
            o.add("name", j.get("probe"));
        }
        o.addProperty("sequence", sequence);
        JsonObject report = Json.object(j, "report");
        JsonObject result = Json.object(report, "result");
        JsonArray spikes = new JsonArray();
        JsonArray threads = Json.array(result, "threads");
        if (threads != null) {
            for (JsonElement t : threads) {
                JsonObject th = t.getAsJsonObject();
                JsonArray s = Json.array(th, "spikes");
                if (s == null) {
                    continue;
                }
                for (JsonElement e : s) {
                    JsonObject sp = e.getAsJsonObject();
                    JsonObject v = new JsonObject();
                    v.add("thread", sp.get("thread"));
                    v.add("cpu", th.get("cpu"));
                    Double off = Json.number(sp, "offsetNs"), lat = Json.number(sp, "latencyNs");
                    v.addProperty("offset_s", off == null ? null : off / 1e9);
                    v.addProperty("latency_us", lat == null ? null : lat / 1e3);
                    v.add("cause", sp.get("cause"));
                    v.add("detail", sp.get("detail"));
                    spikes.add(v);
                }
            }
        }
        o.add("spikes", spikes);
        JsonArray stalls = new JsonArray();
        JsonArray js = Json.array(report, "jvmStalls");
        if (js != null) {
            for (JsonElement e : js) {
                JsonObject st = e.getAsJsonObject();
                JsonObject v = new JsonObject();
                Double off = Json.number(st, "offsetNs"), dur = Json.number(st, "durationNs");
                v.addProperty("offset_s", off == null ? null : off / 1e9);
                v.addProperty("duration_us", dur == null ? null : dur / 1e3);
                v.add("kind", st.get("kind"));
                v.add("detail", st.get("detail"));
                stalls.add(v);
            }
        }
        o.add("jvm_stalls", stalls);
        JsonObject verdict = Json.object(report, "verdict");
        o.add("checks", verdict != null ? verdict.get("checks") : new JsonArray());
        if (report != null && report.has("pwcet")) {
            o.add("pwcet", report.get("pwcet")); // the estimate as the appliance made it (rtbox.api.result.Pwcet)
        }
        return o;
    }
}
