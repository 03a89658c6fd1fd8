package rtbox.mqtt.internal;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.TypeAdapter;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonWriter;

import rtbox.api.result.Histogram;
import rtbox.api.result.RunReport;
import rtbox.api.result.ThreadResult;
import rtbox.mqtt.protocol.Codec;
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
    /** For verb bodies; the messages themselves are written by the Codec, a report by {@link #reportWriter}. */
    static final Gson GSON = new GsonBuilder().serializeSpecialFloatingPointValues().disableHtmlEscaping().create();

    private Payloads() {
    }

    static Progress progress(String appliance, String run, long sequence, String probe, double fraction) {
        return new Progress(appliance, Instant.now(), run, sequence, probe, Math.round(fraction * 100), null);
    }

    /**
     * A run's result as its payload: verdict and worst figures on top, a line per thread, the
     * full report under "report", written straight into the payload ({@link #reportWriter}).
     */
    static byte[] result(String appliance, String run, long sequence, RunReport r) {
        boolean nothing = stoppedBeforeFirstSample(r);
        return Codec.encode(new Result(appliance, Instant.now(), run, sequence, r.result().probe(),
                nothing ? Outcome.ABORTED : outcome(r),
                nothing ? "stopped on request before its first sample (during the warm-up): nothing was measured"
                        : r.verdict().reason(),
                r.result().complete(), Instant.ofEpochMilli(r.startedEpochMs()), Instant.ofEpochMilli(r.endedEpochMs()),
                figures(r), null, null), reportWriter(r));
    }

    /** A run stopped so early that no thread took a sample: aborted, not a verdict on nothing. */
    static boolean stoppedBeforeFirstSample(RunReport r) {
        return !r.result().complete() && r.result().threads().stream().mapToLong(ThreadResult::cycles).sum() == 0;
    }

    static Outcome outcome(RunReport r) {
        return Outcome.valueOf(r.verdict().outcome().name());
    }


    /**
     * Writes the full run report into a payload as it is encoded, in one pass: no tree of a
     * JsonPrimitive per histogram count (a report holds tens of thousands of counts, nearly
     * all 0). Byte for byte what Gson's tree of it gives (PayloadsTest).
     */
    static Codec.ReportWriter reportWriter(RunReport r) {
        return w -> STREAM.toJson(r, RunReport.class, w);
    }

    /**
     * The report's Gson for {@link #reportWriter}: counts written in a plain loop (Gson's own
     * array adapter boxes each one), and numbers that are not finite written as null, as the
     * Codec writes a tree's (a member then left off, null in an array).
     */
    private static final Gson STREAM;

    static {
        TypeAdapter<Double> finite = new TypeAdapter<>() {
            @Override
            public void write(JsonWriter w, Double v) throws IOException {
                if (v == null || !Double.isFinite(v)) {
                    w.nullValue();
                } else {
                    w.value(v.doubleValue());
                }
            }

            @Override
            public Double read(JsonReader in) {
                throw new UnsupportedOperationException("write only");
            }
        };
        TypeAdapter<long[]> counts = new TypeAdapter<>() {
            @Override
            public void write(JsonWriter w, long[] v) throws IOException {
                if (v == null) {
                    w.nullValue();
                    return;
                }
                w.beginArray();
                for (long x : v) {
                    w.value(x);
                }
                w.endArray();
            }

            @Override
            public long[] read(JsonReader in) {
                throw new UnsupportedOperationException("write only");
            }
        };
        STREAM = new GsonBuilder().disableHtmlEscaping().registerTypeAdapter(double.class, finite)
                .registerTypeAdapter(Double.class, finite).registerTypeAdapter(long[].class, counts).create();
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
