package rtbox.control.internal;

import java.nio.charset.StandardCharsets;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

/** Messages as an appliance sends them (docs/mqtt.md, schema 1), for the tests. */
final class Messages {
    private Messages() {
    }

    static String runTopic(String appliance, String run, String type) {
        return "rtbox/v1/up/" + appliance + "/runs/" + run + "/" + type;
    }

    static JsonObject envelope(String type, String appliance, String run, int seq) {
        JsonObject o = new JsonObject();
        o.addProperty("schema", 1);
        o.addProperty("type", type);
        o.addProperty("timestamp", "2026-12-03T08:00:00Z");
        o.addProperty("appliance", appliance);
        if (run != null) {
            o.addProperty("run", run);
            o.addProperty("sequence", seq);
        }
        return o;
    }

    static byte[] progress(String appliance, String run, int cell, int cells) {
        JsonObject o = envelope("progress", appliance, run, 2 * cell - 1);
        o.addProperty("kind", "plan");
        o.addProperty("plan", "smoke");
        o.addProperty("cell", cell);
        o.addProperty("cells", cells);
        o.addProperty("cell_name", "c" + cell);
        o.addProperty("percent", 100 * (cell - 1) / cells);
        return bytes(o);
    }

    static byte[] cell(String appliance, String run, int cell, int cells, String verdict, double maxUs) {
        JsonObject o = envelope("cell", appliance, run, 2 * cell);
        o.addProperty("kind", "plan");
        o.addProperty("plan", "smoke");
        o.addProperty("probe", "timer");
        o.addProperty("verdict", verdict);
        o.addProperty("reason", "test");
        o.addProperty("complete", true);
        o.addProperty("started", "2026-12-03T08:00:0" + cell + "Z");
        o.addProperty("ended", "2026-12-03T08:00:0" + cell + ".5Z");
        o.addProperty("duration_s", 0.5);
        o.addProperty("samples", 1000);
        o.addProperty("min_us", 3.0);
        o.addProperty("p50_us", 5);
        o.addProperty("p99_us", maxUs / 2);
        o.addProperty("p999_us", maxUs * 0.8);
        o.addProperty("max_us", maxUs);
        o.addProperty("overflows", 0);
        o.addProperty("missed_deadlines", 0);
        o.addProperty("histogram_bucket_us", 1.0);
        JsonArray h = new JsonArray();
        for (int i = 0; i < 10; i++) {
            h.add(i < 3 ? 0 : 100);
        }
        o.add("histogram", h);
        JsonArray threads = new JsonArray();
        for (int t = 0; t < 2; t++) {
            JsonObject th = new JsonObject();
            th.addProperty("thread", t);
            th.addProperty("cpu", t);
            th.addProperty("policy", "fifo");
            th.addProperty("priority", 80);
            th.addProperty("samples", 500);
            th.addProperty("min_us", 3.0);
            th.addProperty("avg_us", 5.5);
            th.addProperty("p50_us", 5);
            th.addProperty("p99_us", maxUs / 2);
            th.addProperty("p999_us", maxUs * 0.8);
            th.addProperty("max_us", maxUs);
            th.addProperty("overflows", 0);
            th.addProperty("missed_deadlines", 0);
            th.add("histogram", h);
            threads.add(th);
        }
        o.add("threads", threads);
        o.addProperty("cell", cell);
        o.addProperty("cells", cells);
        o.addProperty("cell_name", "c" + cell);
        JsonObject report = new JsonObject();
        JsonObject system = new JsonObject();
        JsonObject values = new JsonObject();
        values.addProperty("release", "6.1.0-test");
        system.add("values", values);
        report.add("system", system);
        o.add("report", report);
        return bytes(o);
    }

    static byte[] result(String appliance, String run, int cells, String verdict) {
        JsonObject o = envelope("result", appliance, run, 2 * cells + 1);
        o.addProperty("kind", "plan");
        o.addProperty("plan", "smoke");
        o.addProperty("verdict", verdict);
        o.addProperty("reason", "all cells " + verdict);
        o.addProperty("state", "complete");
        o.addProperty("complete", true);
        o.addProperty("cells_planned", cells);
        o.addProperty("cells_run", cells);
        o.addProperty("started", "2026-12-03T08:00:01Z");
        o.addProperty("ended", "2026-12-03T08:00:09Z");
        o.add("cells", new JsonArray());
        return bytes(o);
    }

    static byte[] status(String appliance, String state, boolean busy) {
        JsonObject o = envelope("status", appliance, null, 0);
        o.addProperty("state", state);
        o.addProperty("since", "2026-12-03T07:00:00Z");
        if ("online".equals(state)) {
            o.addProperty("busy", busy);
            o.add("probes", new JsonArray());
            o.add("workloads", new JsonArray());
            o.addProperty("outbox_messages", 0);
            o.addProperty("outbox_bytes", 0);
            o.addProperty("rtbox_version", "rtbox 0.1.0 (git 5d51b53)");
        }
        return bytes(o);
    }

    static byte[] bytes(JsonObject o) {
        return Json.GSON.toJson(o).getBytes(StandardCharsets.UTF_8);
    }
}
