package rtbox.mqtt.internal;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

import rtbox.api.result.Histogram;
import rtbox.api.result.RunReport;
import rtbox.api.result.ThreadResult;

/**
 * The JSON of every message the appliance sends: a flat envelope (schema, type,
 * timestamp, appliance, run, sequence), the figures a dashboard plots at the top
 * level in microseconds, and histograms as plain arrays, so Grafana, Node-RED,
 * Telegraf and MQTT Explorer read them without code. See docs/mqtt.md.
 */
final class Payloads {
    /** Version of these payloads' shape; a reader checks it before anything else. */
    static final int SCHEMA = 1;
    static final Gson GSON = new GsonBuilder().serializeSpecialFloatingPointValues().disableHtmlEscaping().create();

    private Payloads() {
    }

    static JsonObject envelope(String type, String appliance, String run, long sequence) {
        JsonObject o = new JsonObject();
        o.addProperty("schema", SCHEMA);
        o.addProperty("type", type);
        o.addProperty("timestamp", Instant.now().toString());
        o.addProperty("appliance", appliance);
        if (run != null) {
            o.addProperty("run", run);
            o.addProperty("sequence", sequence);
        }
        return o;
    }

    static byte[] bytes(JsonObject o) {
        return GSON.toJson(o).getBytes(StandardCharsets.UTF_8);
    }

    static JsonObject progress(String appliance, String run, long sequence, String probe, double fraction) {
        JsonObject o = envelope("progress", appliance, run, sequence);
        o.addProperty("probe", probe);
        o.addProperty("percent", Math.round(fraction * 100));
        return o;
    }

    /** A run's result: verdict and worst figures on top, a line per thread, the full report under "report". */
    static JsonObject result(String appliance, String run, long sequence, RunReport r) {
        JsonObject o = envelope("result", appliance, run, sequence);
        o.addProperty("probe", r.result().probe());
        o.addProperty("verdict", r.verdict().outcome().name());
        o.addProperty("reason", r.verdict().reason());
        o.addProperty("complete", r.result().complete());
        o.addProperty("started", Instant.ofEpochMilli(r.startedEpochMs()).toString());
        o.addProperty("ended", Instant.ofEpochMilli(r.endedEpochMs()).toString());
        o.addProperty("duration_s", r.result().durationNs() / 1e9);
        long samples = 0, overflows = 0, missed = 0, max = 0, min = Long.MAX_VALUE, p99 = 0, p999 = 0, p50 = 0;
        long bucket = 0;
        long[] sum = new long[0];
        JsonArray threads = new JsonArray();
        for (ThreadResult t : r.result().threads()) {
            Histogram h = t.latency();
            samples += h.samples();
            overflows += h.overflows();
            missed += t.missedDeadlines();
            max = Math.max(max, h.maxNs());
            min = Math.min(min, h.minNs());
            p50 = Math.max(p50, h.p50Ns());
            p99 = Math.max(p99, h.p99Ns());
            p999 = Math.max(p999, h.p999Ns());
            bucket = h.bucketWidthNs();
            long[] c = trim(h.counts());
            if (c.length > sum.length) {
                sum = java.util.Arrays.copyOf(sum, c.length);
            }
            for (int i = 0; i < c.length; i++) {
                sum[i] += c[i];
            }
            JsonObject th = new JsonObject();
            th.addProperty("thread", t.thread());
            th.addProperty("cpu", t.cpu());
            th.addProperty("policy", t.policy());
            th.addProperty("priority", t.priority());
            th.addProperty("samples", h.samples());
            th.addProperty("min_us", us(h.minNs()));
            th.addProperty("avg_us", h.avgNs() / 1000.0);
            th.addProperty("p50_us", us(h.p50Ns()));
            th.addProperty("p99_us", us(h.p99Ns()));
            th.addProperty("p999_us", us(h.p999Ns()));
            th.addProperty("max_us", us(h.maxNs()));
            th.addProperty("overflows", h.overflows());
            th.addProperty("missed_deadlines", t.missedDeadlines());
            th.add("histogram", array(c));
            threads.add(th);
        }
        o.addProperty("samples", samples);
        o.addProperty("min_us", samples == 0 ? 0 : us(min));
        o.addProperty("p50_us", us(p50));
        o.addProperty("p99_us", us(p99));
        o.addProperty("p999_us", us(p999));
        o.addProperty("max_us", us(max));
        o.addProperty("overflows", overflows);
        o.addProperty("missed_deadlines", missed);
        o.addProperty("histogram_bucket_us", bucket / 1000.0);
        o.add("histogram", array(sum));
        o.add("threads", threads);
        o.add("report", GSON.toJsonTree(r));
        return o;
    }

    /** The result of a run that could not measure, or that a restart cut short. */
    static JsonObject failedResult(String appliance, String run, long sequence, String probe, String verdict,
            String reason) {
        JsonObject o = envelope("result", appliance, run, sequence);
        o.addProperty("probe", probe);
        o.addProperty("verdict", verdict);
        o.addProperty("reason", reason);
        o.addProperty("complete", false);
        return o;
    }

    private static long[] trim(long[] counts) {
        int n = counts.length;
        while (n > 0 && counts[n - 1] == 0) {
            n--;
        }
        return java.util.Arrays.copyOf(counts, n);
    }

    private static JsonArray array(long[] c) {
        JsonArray a = new JsonArray(c.length);
        for (long v : c) {
            a.add(v);
        }
        return a;
    }

    private static double us(long ns) {
        return Math.round(ns / 100.0) / 10.0;
    }
}
