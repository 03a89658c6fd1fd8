package rtbox.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import rtbox.api.result.Check;
import rtbox.api.result.Histogram;
import rtbox.api.result.ThreadResult;
import rtbox.api.result.Verdict;
import rtbox.api.result.Verdict.Outcome;
import rtbox.plan.CellResult;
import rtbox.plan.PlanRun;

/**
 * A plan run (or a single run as a one-cell plan) as CI systems ingest it without code:
 * JUnit XML for Jenkins, GitLab and LAVA, and a CSV of the cell table for spreadsheets.
 *
 * <p>JUnit: one test suite; one test case per cell (its verdict) and one per check of the
 * cell (metric, threshold, actual); the figures in the test case's properties. FAIL is a
 * {@code <failure>} (a check over its limit too, but only in a cell that FAILed: in an
 * INCONCLUSIVE cell it is an error, never blamed on the machine, and in a MEASURED cell the
 * JVM over its stall budget is only the check's {@code outcome} property, as the exit code is 0); ERROR and INCONCLUSIVE are an {@code <error>} (the run proves nothing:
 * a CI must not read it as passed, and the exit code, 2 or 3, says the same). A MEASURED
 * cell (no latency threshold) is a passing test case with the property
 * {@code rtbox.verdict=MEASURED} and {@code rtbox.thresholds=none given}, not a skipped one:
 * it did run and its figures are real, while "skipped" means "not run" to Jenkins, GitLab
 * and LAVA alike, and the exit code of a MEASURED run is 0. A planned cell that never ran
 * (stopped, killed) is skipped.
 */
public final class CiReports {
    private CiReports() {
    }

    /**
     * Writes {@link #junit} to {@code junit} and {@link #csv} to {@code csv} where asked (null:
     * not asked), making their folders; returns the files written. One place for
     * {@code rtbox plan run} and {@code rtbox job}.
     *
     * @since 1.3
     */
    public static List<Path> write(PlanRun run, Path junit, Path csv) throws IOException {
        List<Path> written = new ArrayList<>();
        for (Path f : new Path[] {junit, csv}) {
            if (f != null) {
                Path parent = f.toAbsolutePath().getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                Files.writeString(f, f == junit ? junit(run) : csv(run), StandardCharsets.UTF_8);
                written.add(f);
            }
        }
        return written;
    }

    /** The JUnit XML document of {@code run}. */
    public static String junit(PlanRun run) {
        StringBuilder cases = new StringBuilder();
        int tests = 0, failures = 0, errors = 0, skipped = 0;
        String suite = "rtbox." + run.plan();
        for (CellResult c : run.cells()) {
            Verdict v = c.verdict();
            Map<String, String> props = figures(c);
            tests++;
            cases.append("  <testcase classname=\"").append(esc(suite)).append("\" name=\"").append(esc(c.name()))
                    .append("\" time=\"").append(seconds(c.endedEpochMs() - c.startedEpochMs())).append("\">\n");
            properties(cases, props, "    ");
            switch (v.outcome()) {
                case FAIL:
                    failures++;
                    cases.append("    <failure type=\"FAIL\" message=\"").append(esc(v.reason())).append("\"/>\n");
                    break;
                case ERROR:
                case INCONCLUSIVE:
                    errors++;
                    cases.append("    <error type=\"").append(v.outcome()).append("\" message=\"")
                            .append(esc(v.reason() != null ? v.reason() : String.valueOf(c.error()))).append("\"/>\n");
                    break;
                default:
                    break;
            }
            cases.append("    <system-out>").append(esc(v.outcome() + ": " + v.reason())).append("</system-out>\n");
            cases.append("  </testcase>\n");
            for (Check k : v.checks()) {
                tests++;
                cases.append("  <testcase classname=\"").append(esc(suite + "." + c.name())).append("\" name=\"")
                        .append(esc(k.metric())).append("\" time=\"0\">\n");
                Map<String, String> kp = new LinkedHashMap<>();
                kp.put("threshold", num(k.threshold()));
                kp.put("actual", num(k.actual()));
                // The check's own outcome; the case fails or errs only as its cell does, so that the
                // JUnit file and the exit code agree (a MEASURED cell's JVM over budget exits 0).
                kp.put("outcome", k.outcome().toString());
                properties(cases, kp, "    ");
                if (k.outcome() == Outcome.FAIL && v.outcome() == Outcome.FAIL) {
                    failures++;
                    cases.append("    <failure type=\"FAIL\" message=\"").append(esc(k.detail())).append("\"/>\n");
                } else if (k.outcome() == Outcome.FAIL && (v.outcome() == Outcome.INCONCLUSIVE
                        || v.outcome() == Outcome.ERROR)) {
                    // Over its limit in a cell that is not a FAIL: the JVM's stall budget, or a figure that
                    // was a JVM pause. The machine did not fail: an error, as the cell.
                    errors++;
                    cases.append("    <error type=\"").append(v.outcome()).append("\" message=\"")
                            .append(esc(k.detail() + ": " + v.reason())).append("\"/>\n");
                }
                cases.append("  </testcase>\n");
            }
        }
        for (int i = run.cells().size(); i < run.cellsPlanned(); i++) {
            tests++;
            skipped++;
            String name = run.cellNames() != null && i < run.cellNames().size() ? run.cellNames().get(i)
                    : "cell " + (i + 1);
            cases.append("  <testcase classname=\"").append(esc(suite)).append("\" name=\"").append(esc(name))
                    .append("\" time=\"0\">\n    <skipped message=\"not run: the plan was ").append(esc(run.state()))
                    .append("\"/>\n  </testcase>\n");
        }
        StringBuilder b = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        b.append("<testsuites name=\"rtbox\" tests=\"").append(tests).append("\" failures=\"").append(failures)
                .append("\" errors=\"").append(errors).append("\" skipped=\"").append(skipped).append("\">\n");
        b.append(" <testsuite name=\"").append(esc(suite)).append("\" tests=\"").append(tests).append("\" failures=\"")
                .append(failures).append("\" errors=\"").append(errors).append("\" skipped=\"").append(skipped)
                .append("\" time=\"").append(seconds(run.endedEpochMs() - run.startedEpochMs())).append("\">\n");
        Map<String, String> sp = new LinkedHashMap<>();
        sp.put("rtbox.run", run.id());
        sp.put("rtbox.plan", run.plan());
        sp.put("rtbox.state", run.state());
        sp.put("rtbox.verdict", run.verdict().outcome().toString());
        sp.put("rtbox.reason", run.verdict().reason());
        run.cells().stream().filter(c -> c.report() != null).findFirst()
                .ifPresent(c -> sp.put("rtbox.version", Reports.version(c.report())));
        properties(b, sp, "  ");
        b.append(cases.toString().indent(1).stripTrailing()).append('\n');
        b.append(" </testsuite>\n</testsuites>\n");
        return b.toString();
    }

    /** The cell table as CSV (RFC 4180): axes or name, figures over all threads, verdict and reason. */
    public static String csv(PlanRun run) {
        Set<String> axes = new LinkedHashSet<>();
        run.cells().forEach(c -> axes.addAll(c.axes().keySet()));
        List<String> head = new ArrayList<>(List.of("cell", "probe"));
        head.addAll(axes);
        head.addAll(List.of("threads", "cycles", "min_us", "avg_us", "p50_us", "p99_us", "p99.9_us", "max_us",
                "missed_deadlines", "overflows", "verdict", "reason"));
        StringBuilder b = new StringBuilder();
        line(b, head);
        for (CellResult c : run.cells()) {
            List<String> row = new ArrayList<>(List.of(c.name(), String.valueOf(c.probe())));
            for (String a : axes) {
                row.add(c.axes().getOrDefault(a, ""));
            }
            Map<String, String> f = figures(c);
            for (String k : List.of("threads", "cycles", "min_us", "avg_us", "p50_us", "p99_us", "p99.9_us", "max_us",
                    "missed_deadlines", "overflows")) {
                row.add(f.getOrDefault(k, ""));
            }
            row.add(c.verdict().outcome().toString());
            row.add(c.verdict().reason());
            line(b, row);
        }
        for (int i = run.cells().size(); i < run.cellsPlanned(); i++) {
            List<String> row = new ArrayList<>();
            row.add(run.cellNames() != null && i < run.cellNames().size() ? run.cellNames().get(i) : "cell " + (i + 1));
            while (row.size() < head.size() - 2) {
                row.add("");
            }
            row.add("NOT RUN");
            row.add("the plan was " + run.state());
            line(b, row);
        }
        return b.toString();
    }

    /** A cell's figures, the worst over its threads (min: the least), in microseconds. */
    static Map<String, String> figures(CellResult c) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("rtbox.verdict", c.verdict().outcome().toString());
        if (c.verdict().outcome() == Outcome.MEASURED) {
            p.put("rtbox.thresholds", "none given");
        }
        if (c.report() == null || c.report().result() == null) {
            return p;
        }
        List<ThreadResult> ts = c.report().result().threads();
        long cycles = 0, missed = 0, overflows = 0, min = Long.MAX_VALUE, p50 = 0, p99 = 0, p999 = 0, max = 0;
        double sum = 0;
        for (ThreadResult t : ts) {
            Histogram h = t.latency();
            cycles += t.cycles();
            missed += t.missedDeadlines();
            overflows += h.overflows();
            min = Math.min(min, h.minNs());
            p50 = Math.max(p50, h.p50Ns());
            p99 = Math.max(p99, h.p99Ns());
            p999 = Math.max(p999, h.p999Ns());
            max = Math.max(max, h.maxNs());
            sum += h.avgNs() * h.samples();
        }
        long samples = ts.stream().mapToLong(t -> t.latency().samples()).sum();
        p.put("threads", Integer.toString(ts.size()));
        p.put("cycles", Long.toString(cycles));
        p.put("min_us", us(ts.isEmpty() ? 0 : min));
        p.put("avg_us", samples == 0 ? "" : String.format(Locale.ROOT, "%.2f", sum / samples / 1000.0));
        p.put("p50_us", us(p50));
        p.put("p99_us", us(p99));
        p.put("p99.9_us", us(p999));
        p.put("max_us", us(max));
        p.put("missed_deadlines", Long.toString(missed));
        p.put("overflows", Long.toString(overflows));
        return p;
    }

    private static void properties(StringBuilder b, Map<String, String> props, String indent) {
        b.append(indent).append("<properties>\n");
        props.forEach((k, v) -> b.append(indent).append("  <property name=\"").append(esc(k)).append("\" value=\"")
                .append(esc(v)).append("\"/>\n"));
        b.append(indent).append("</properties>\n");
    }

    private static void line(StringBuilder b, List<String> cells) {
        for (int i = 0; i < cells.size(); i++) {
            String s = cells.get(i) == null ? "" : cells.get(i);
            if (s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r")) {
                s = "\"" + s.replace("\"", "\"\"") + "\"";
            }
            b.append(i == 0 ? "" : ",").append(s);
        }
        b.append("\r\n");
    }

    private static String us(long ns) {
        return String.format(Locale.ROOT, "%.1f", ns / 1000.0);
    }

    private static String num(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String seconds(long ms) {
        return String.format(Locale.ROOT, "%.3f", Math.max(0, ms) / 1000.0);
    }

    /** XML text and attribute escaping; characters XML 1.0 forbids are dropped. */
    static String esc(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '<': b.append("&lt;"); break;
                case '>': b.append("&gt;"); break;
                case '&': b.append("&amp;"); break;
                case '"': b.append("&quot;"); break;
                case '\'': b.append("&apos;"); break;
                default:
                    if (ch >= 0x20 || ch == '\t' || ch == '\n' || ch == '\r') {
                        b.append(ch);
                    }
            }
        }
        return b.toString();
    }

    /**
     * A single run as a one-cell plan run, so that {@code rtbox run --junit/--csv} write what
     * {@code plan run} writes.
     */
    public static PlanRun single(String name, rtbox.api.result.RunReport r) {
        CellResult c = new CellResult(0, name, Map.of(), r.result() != null ? r.result().probe() : name, null,
                List.of(), Map.of(), r.startedEpochMs(), r.endedEpochMs(), r, r.verdict(), null);
        return new PlanRun(PlanRun.SCHEMA, r.runId(), name, null, null, null, r.startedEpochMs(), r.endedEpochMs(), 1,
                List.of(name), PlanRun.COMPLETE, List.of(c), r.verdict());
    }
}
