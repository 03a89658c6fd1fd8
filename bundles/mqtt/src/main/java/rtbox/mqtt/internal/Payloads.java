package rtbox.mqtt.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;

import rtbox.api.result.Histogram;
import rtbox.api.result.RunReport;
import rtbox.api.result.ThreadResult;
import rtbox.mqtt.protocol.Figures;
import rtbox.mqtt.protocol.Outcome;
import rtbox.mqtt.protocol.Progress;
import rtbox.mqtt.protocol.Result;
import rtbox.mqtt.protocol.ThreadFigures;

/**
 * A run's messages from rtbox's result model: the figures a dashboard plots (the worst
 * thread's, in microseconds, and the threads' histograms summed) and the full report as
 * JSON. The wire shape itself is rtbox.mqtt.protocol's {@code Codec}.
 */
final class Payloads {
    /** For verb bodies and the report tree; the messages themselves are written by the Codec. */
    static final Gson GSON = new GsonBuilder().serializeSpecialFloatingPointValues().disableHtmlEscaping().create();

    private Payloads() {
    }

    static Progress progress(String appliance, String run, long sequence, String probe, double fraction) {
        return new Progress(appliance, Instant.now(), run, sequence, probe, Math.round(fraction * 100), null);
    }

    /** A run's result: verdict and worst figures on top, a line per thread, the full report under "report". */
    static Result result(String appliance, String run, long sequence, RunReport r) {
        boolean nothing = stoppedBeforeFirstSample(r);
        return new Result(appliance, Instant.now(), run, sequence, r.result().probe(),
                nothing ? Outcome.ABORTED : outcome(r),
                nothing ? "stopped on request before its first sample (during the warm-up): nothing was measured"
                        : r.verdict().reason(),
                r.result().complete(), Instant.ofEpochMilli(r.startedEpochMs()), Instant.ofEpochMilli(r.endedEpochMs()),
                figures(r), report(r), null);
    }

    /** A run stopped so early that no thread took a sample: aborted, not a verdict on nothing. */
    static boolean stoppedBeforeFirstSample(RunReport r) {
        return !r.result().complete() && r.result().threads().stream().mapToLong(ThreadResult::cycles).sum() == 0;
    }

    static Outcome outcome(RunReport r) {
        return Outcome.valueOf(r.verdict().outcome().name());
    }

    /** The full run report as the Codec carries it. */
    static JsonObject report(RunReport r) {
        return GSON.toJsonTree(r).getAsJsonObject();
    }

    static Figures figures(RunReport r) {
        long samples = 0, overflows = 0, missed = 0, max = 0, min = Long.MAX_VALUE, p99 = 0, p999 = 0, p50 = 0;
        long bucket = 0;
        long[] sum = new long[0];
        List<ThreadFigures> threads = new ArrayList<>();
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
                sum = Arrays.copyOf(sum, c.length);
            }
            for (int i = 0; i < c.length; i++) {
                sum[i] += c[i];
            }
            threads.add(new ThreadFigures(t.thread(), t.cpu(), t.policy(), t.priority(), h.samples(), us(h.minNs()),
                    h.avgNs() / 1000.0, us(h.p50Ns()), us(h.p99Ns()), us(h.p999Ns()), us(h.maxNs()), h.overflows(),
                    t.missedDeadlines(), c, us(t.lastNs())));
        }
        return new Figures(r.result().durationNs() / 1e9, samples, samples == 0 ? 0 : us(min), us(p50), us(p99),
                us(p999), us(max), overflows, missed, bucket / 1000.0, sum, List.copyOf(threads));
    }

    /** The result of a run that could not measure, or that a restart cut short. */
    static Result failedResult(String appliance, String run, long sequence, String probe, Outcome verdict,
            String reason) {
        return new Result(appliance, Instant.now(), run, sequence, probe, verdict, reason, false, null, null, null,
                null, null);
    }

    private static long[] trim(long[] counts) {
        int n = counts.length;
        while (n > 0 && counts[n - 1] == 0) {
            n--;
        }
        return Arrays.copyOf(counts, n);
    }

    private static double us(long ns) {
        return Math.round(ns / 100.0) / 10.0;
    }
}
