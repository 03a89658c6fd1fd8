package rtbox.report;

import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.LongStream;

import com.google.gson.Gson;
import rtbox.json.JsonProblem;
import rtbox.json.ModelJson;
import com.google.gson.JsonObject;

import rtbox.api.result.BreakTrace;
import rtbox.api.result.Check;
import rtbox.api.result.Histogram;
import rtbox.api.result.JvmStall;
import rtbox.api.result.RunReport;
import rtbox.api.result.ThreadResult;
import rtbox.core.Build;

/**
 * Writes a run report the ways its readers expect: the summary a cyclictest user
 * recognises, cyclictest's --json file (same keys, so existing parsers read it, plus
 * rtbox's own figures under "rtbox"), cyclictest's histogram file, and rtbox's
 * full JSON report.
 */
public final class Reports {
    /**
     * No NaN or infinity written (JSON has none): in the report such a figure is null, in
     * cyclictest's JSON file (a tree written without nulls) it is left out (rtbox.json's ModelJson).
     */
    private static final Gson GSON = ModelJson.builder().setPrettyPrinting().create();

    private Reports() {
    }

    /** The whole report as JSON (schema {@link RunReport#SCHEMA}). */
    public static String json(RunReport report) {
        return GSON.toJson(report);
    }

    /**
     * Reads a report written by {@link #json}, strictly (rtbox.json's rules: no NaN, no repeated
     * member, a count that is not a whole number refused, not rounded); an
     * IllegalArgumentException names the JSON path of what was wrong.
     */
    public static RunReport fromJson(String json) {
        try {
            return ModelJson.read(GSON, json, RunReport.class);
        } catch (JsonProblem e) {
            throw new IllegalArgumentException("not a run report: " + e.getMessage(), e);
        }
    }

    /**
     * cyclictest's one line per thread, then rtbox's percentiles, the spikes grouped by
     * cause and culprit with the few largest listed, and the verdict.
     */
    public static String summary(RunReport r) {
        StringBuilder b = new StringBuilder();
        for (ThreadResult t : r.result().threads()) {
            Histogram h = t.latency();
            b.append(tLine(t.thread(), t.tid(), t.priority(), intervalUs(r), t.cycles(), h.minNs(), t.lastNs(),
                    Math.round(h.avgNs()), h.maxNs())).append('\n');
        }
        b.append(breakLines(r));
        for (ThreadResult t : r.result().threads()) {
            Histogram h = t.latency();
            b.append(String.format(Locale.ROOT,
                    "# thread %d cpu %d %s/%d: p50 %d us, p99 %d us, p99.9 %d us, max %d us; overflows %d;"
                            + " missed deadlines %d; corrected p99 %d us, max %d us%n",
                    t.thread(), t.cpu(), t.policy(), t.priority(), us(h.p50Ns()), us(h.p99Ns()), us(h.p999Ns()),
                    us(h.maxNs()), h.overflows(), t.missedDeadlines(), us(t.corrected().p99Ns()),
                    us(t.corrected().maxNs())));
            for (String line : SpikeGroups.lines(t.spikes())) {
                b.append("#   ").append(line).append('\n');
            }
        }
        long jvmMax = r.jvmStalls().stream().filter(s -> !"hiccup".equals(s.kind())).mapToLong(JvmStall::durationNs)
                .max().orElse(0);
        b.append(String.format(Locale.ROOT, "# JVM: %d pauses (longest %d us); hiccup monitor max %d us%n",
                r.jvmStalls().stream().filter(s -> !"hiccup".equals(s.kind())).count(), us(jvmMax),
                us(r.jvmHiccups().maxNs())));
        for (String line : PwcetText.lines(r.pwcet())) {
            b.append("# ").append(line).append('\n');
        }
        for (String note : r.result().notes()) {
            b.append("# ").append(note).append('\n');
        }
        for (Check c : r.verdict().checks()) {
            b.append("# check ").append(c.outcome()).append(": ").append(c.detail()).append('\n');
        }
        b.append(r.verdict().outcome()).append(": ").append(r.verdict().reason()).append('\n');
        return b.toString();
    }

    /**
     * cyclictest's line for one thread, without its newline: {@code T: 0 ( 1932) P:99 I:1000
     * C:   5000 Min:      3 Act:    5 Avg:    4 Max:      20}, times given in ns and shown in
     * us. The summary's and the live display's. Act is the last sample. @since 1.5
     */
    public static String tLine(int thread, int tid, int priority, long intervalUs, long cycles, long minNs,
            long lastNs, long avgNs, long maxNs) {
        return String.format(Locale.ROOT, "T:%2d (%5d) P:%2d I:%d C:%7d Min:%7d Act:%5d Avg:%5d Max:%8d", thread, tid,
                priority, intervalUs, cycles, us(minNs), us(lastNs), us(avgNs), us(maxNs));
    }

    /**
     * For a run that -b stopped: cyclictest's {@code # Thread Ids:}, {@code # Break thread:}
     * (the thread id) and {@code # Break value:} (us) lines, then rtbox's {@code # Break
     * culprits:} and the kernel's trace around it where there was one; "" otherwise. @since 1.5
     */
    public static String breakLines(RunReport r) {
        BreakTrace brk = r.result().breakTrace();
        if (brk == null) {
            return "";
        }
        StringBuilder b = new StringBuilder("# Thread Ids:");
        r.result().threads().forEach(t -> b.append(String.format(Locale.ROOT, " %05d", t.tid())));
        b.append("\n# Break thread: ").append(brk.tid()).append('\n');
        b.append("# Break value: ").append(us(brk.latencyNs())).append('\n');
        if (!brk.culprits().isEmpty()) {
            b.append("# Break culprits: ");
            for (int i = 0; i < brk.culprits().size(); i++) {
                b.append(i == 0 ? "" : "; ").append(brk.culprits().get(i));
            }
            b.append('\n');
        }
        if (!brk.trace().isEmpty()) {
            b.append("# Break trace (CPU ").append(brk.cpu()).append(", us from the deadline; the rest idle or the "
                    + "probe):\n");
            brk.trace().forEach(l -> b.append("#   ").append(l).append('\n'));
        }
        return b.toString();
    }

    /**
     * The rtbox that measured {@code r} (its system info carries the version and commit),
     * e.g. {@code rtbox 0.1.0.202612030910 (git 5d51b53)}; this one's for a report without them.
     */
    public static String version(RunReport r) {
        Map<String, String> v = r.system() == null ? Map.of() : r.system().values();
        return v.containsKey("rtbox_version") ? "rtbox " + v.get("rtbox_version") + " (git "
                + v.getOrDefault("rtbox_commit", "unknown") + ")" : Build.describe();
    }

    private static long intervalUs(RunReport r) {
        Double i = r.result().figures().get("interval_us");
        return i == null ? 0 : i.longValue();
    }

    private static long us(long ns) {
        return Math.round(ns / 1000.0);
    }

    /** cyclictest's --json document, with the same keys as rt-tests 2.x writes. */
    public static String cyclictestJson(RunReport r) {
        JsonObject root = new JsonObject();
        root.addProperty("file_version", 1);
        // rt-tests writes these two keys with a trailing colon; parsers match them as they are.
        root.addProperty("cmdline:", r.command());
        root.addProperty("rt_test_version:", version(r));
        root.addProperty("start_time", date(r.startedEpochMs()));
        root.addProperty("end_time", date(r.endedEpochMs()));
        root.addProperty("return_code", r.verdict().exitCode());
        JsonObject sys = new JsonObject();
        Map<String, String> v = r.system().values();
        sys.addProperty("sysname", v.getOrDefault("sysname", ""));
        sys.addProperty("nodename", v.getOrDefault("nodename", ""));
        sys.addProperty("release", v.getOrDefault("release", ""));
        sys.addProperty("version", v.getOrDefault("version", ""));
        sys.addProperty("machine", v.getOrDefault("machine", ""));
        sys.addProperty("realtime", "1".equals(v.get("realtime")) ? 1 : 0);
        root.add("sysinfo", sys);
        root.addProperty("num_threads", r.result().threads().size());
        root.addProperty("resolution_in_ns", 0);
        JsonObject threads = new JsonObject();
        for (ThreadResult t : r.result().threads()) {
            JsonObject th = new JsonObject();
            JsonObject hist = new JsonObject();
            long[] counts = t.latency().counts();
            for (int i = 0; i < counts.length; i++) {
                if (counts[i] != 0) {
                    hist.addProperty(Integer.toString(i), counts[i]);
                }
            }
            th.add("histogram", hist);
            th.addProperty("cycles", t.cycles());
            th.addProperty("min", us(t.latency().minNs()));
            th.addProperty("max", us(t.latency().maxNs()));
            th.addProperty("avg", Math.round(t.latency().avgNs() / 10.0) / 100.0);
            th.addProperty("cpu", t.cpu());
            th.addProperty("node", 0);
            threads.add(Integer.toString(t.thread()), th);
        }
        root.add("thread", threads);
        root.add("rtbox", GSON.toJsonTree(r));
        return GSON.toJson(root);
    }

    /**
     * cyclictest's histogram (its -h on stdout, its --histfile), as rt-tests' print_hist writes
     * it, for scripts that read cyclictest's: every bucket 0 to N-1, zeros included, the first
     * thread's column after a space and the next ones after a tab; the totals count the
     * histogram's samples (not the overflows); then the cycle numbers of the first overflows
     * per thread (as many as there are buckets, the rest as "# N others") and an empty line.
     */
    public static String histogramFile(RunReport r) {
        List<ThreadResult> threads = r.result().threads();
        StringBuilder b = new StringBuilder("# Histogram\n");
        int rows = threads.stream().mapToInt(t -> t.latency().counts().length).max().orElse(0);
        for (int i = 0; i < rows; i++) {
            b.append(String.format(Locale.ROOT, "%06d ", i));
            for (int j = 0; j < threads.size(); j++) {
                long[] c = threads.get(j).latency().counts();
                b.append(String.format(Locale.ROOT, "%06d", i < c.length ? c[i] : 0));
                if (j < threads.size() - 1) {
                    b.append('\t');
                }
            }
            b.append('\n');
        }
        b.append("# Total:");
        threads.forEach(t -> b.append(String.format(Locale.ROOT, " %09d", LongStream.of(t.latency().counts()).sum())));
        b.append("\n# Min Latencies:");
        threads.forEach(t -> b.append(String.format(Locale.ROOT, " %05d", us(t.latency().minNs()))));
        b.append("\n# Avg Latencies:");
        threads.forEach(t -> b.append(String.format(Locale.ROOT, " %05d",
                Math.round(t.latency().avgNs() / 1000))));
        b.append("\n# Max Latencies:");
        threads.forEach(t -> b.append(String.format(Locale.ROOT, " %05d", us(t.latency().maxNs()))));
        b.append("\n# Histogram Overflows:");
        threads.forEach(t -> b.append(String.format(Locale.ROOT, " %05d", t.latency().overflows())));
        b.append("\n# Histogram Overflow at cycle number:\n");
        for (int j = 0; j < threads.size(); j++) {
            Histogram h = threads.get(j).latency();
            long[] cycles = h.overflowCycles() == null ? new long[0] : h.overflowCycles();
            b.append("# Thread ").append(j).append(':');
            for (long c : cycles) {
                b.append(String.format(Locale.ROOT, " %05d", c));
            }
            if (cycles.length < h.overflows()) {
                b.append(String.format(Locale.ROOT, " # %05d others", h.overflows() - cycles.length));
            }
            b.append('\n');
        }
        b.append('\n');
        return b.toString();
    }

    private static String date(long epochMs) {
        return new SimpleDateFormat("EEE, dd MMM yyyy HH:mm:ss Z", Locale.ROOT).format(new Date(epochMs));
    }
}
