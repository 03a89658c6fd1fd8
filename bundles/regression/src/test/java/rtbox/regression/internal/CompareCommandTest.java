package rtbox.regression.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;
import rtbox.api.result.CorrectedLatency;
import rtbox.api.result.Histogram;
import rtbox.api.result.ProbeResult;
import rtbox.api.result.RunReport;
import rtbox.api.result.SystemInfo;
import rtbox.api.result.ThreadResult;
import rtbox.api.result.Verdict;
import rtbox.report.Reports;

/** rtbox compare on run reports written as rtbox writes them (Reports.json), through picocli. */
class CompareCommandTest {
    @TempDir
    Path dir;
    private final StringWriter out = new StringWriter(), err = new StringWriter();

    private int compare(List<String> args) {
        CommandLine line = new CommandLine(new CompareCommand());
        line.setOut(new PrintWriter(out));
        line.setErr(new PrintWriter(err));
        return line.execute(args.toArray(String[]::new));
    }

    private List<String> files(String prefix, long... maxUs) throws Exception {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < maxUs.length; i++) {
            Path f = dir.resolve(prefix + i + ".json");
            Files.writeString(f, Reports.json(report(maxUs[i])));
            names.add(f.toString());
        }
        return names;
    }

    private static List<String> sets(List<String> a, List<String> b) {
        List<String> args = new ArrayList<>(a);
        args.add("--");
        args.addAll(b);
        return args;
    }

    @Test
    void aSetWithLongerStallsIsRegressedExit1() throws Exception {
        int code = compare(sets(files("a", 100, 120, 110), files("b", 2100, 2050, 2200)));
        assertEquals(1, code, err.toString());
        String text = out.toString();
        assertTrue(text.contains("# single runs: set A 3 runs, set B 3 runs"), text);
        assertTrue(text.matches("(?s).*timer +max \\(us\\) +3 +3 +110 +2117 +\\+2007 .*REGRESSED.*"), text);
        assertTrue(text.lines().anyMatch(l -> l.matches("timer +p50 \\(us\\) .*NO CHANGE")), text);
        assertTrue(text.endsWith("REGRESSED: B against A (1 of 5 figures regressed, 0 improved, n = 3 + 3)\n"), text);
    }

    @Test
    void cyclictestJsonAsRtboxWritesItIsReadToo() throws Exception {
        List<String> b = new ArrayList<>();
        long[] maxUs = {2100, 2050, 2200};
        for (int i = 0; i < maxUs.length; i++) {
            Path f = dir.resolve("c" + i + ".json");
            Files.writeString(f, Reports.cyclictestJson(report(maxUs[i])));
            b.add(f.toString());
        }
        assertEquals(1, compare(sets(files("a", 100, 120, 110), b)), err.toString());
    }

    @Test
    void setsFromTheSameSettingAreNoChangeExit0() throws Exception {
        assertEquals(0, compare(sets(files("a", 100, 120, 110), files("b", 115, 105, 118))), err.toString());
        assertTrue(out.toString().endsWith("NO CHANGE: B against A (0 of 5 figures regressed, 0 improved, n = 3 + 3)\n"),
                out.toString());
    }

    @Test
    void twoRunsAreTooFewExit3SayingHowManyWouldTell() throws Exception {
        assertEquals(3, compare(sets(files("a", 100, 120), files("b", 300, 320, 310))), err.toString());
        assertTrue(out.toString().contains("TOO FEW RUNS (3 per set at least"), out.toString());
    }

    @Test
    void badInputIsExit2NamingTheFileOrWhatIsMissing() throws Exception {
        List<String> a = files("a", 100, 120, 110);
        assertEquals(2, compare(a));
        assertTrue(err.toString().contains("put -- between set A's files and set B's"), err.toString());
        Path junk = dir.resolve("junk.json");
        Files.writeString(junk, "{\"cycles\": 3}");
        assertEquals(2, compare(sets(a, List.of(junk.toString(), dir.resolve("gone.json").toString()))));
        assertTrue(err.toString().contains("junk.json: not an rtbox result: neither a plan's report.json (no $.cells)"
                + " nor a run's --report or --json file (no $.result, no $.rtbox.result)"), err.toString());
        assertEquals(2, compare(sets(a, List.of(dir.resolve("gone.json").toString()))));
        assertTrue(err.toString().contains("gone.json: no such file"), err.toString());
        assertEquals(2, compare(sets(a, List.of(a.get(0), "--confidence", "2"))));
    }

    /**
     * A plan that repeats its cells (issue 35 item 3) is a set by itself: one report.json of 3
     * repetitions is 3 runs, each repetition named file#k.
     */
    @Test
    void aRepeatingPlansReportIsOneRunPerRepetition() throws Exception {
        Path a = dir.resolve("a.json"), b = dir.resolve("b.json");
        Files.writeString(a, rtbox.report.PlanReports.json(plan(100, 120, 110)));
        Files.writeString(b, rtbox.report.PlanReports.json(plan(2100, 2050, 2200)));
        assertEquals(1, compare(List.of(a.toString(), "--", b.toString())), err.toString());
        assertTrue(out.toString().contains("n = 3 + 3"), out.toString());
        List<rtbox.regression.RunFigures> runs = rtbox.regression.RunFigures.allFromJson(Files.readString(a), "a");
        assertEquals(List.of("a#1", "a#2", "a#3"), runs.stream().map(rtbox.regression.RunFigures::source).toList());
        assertEquals(120.0, runs.get(1).cells().get("idle").get(rtbox.regression.Figure.MAX));
    }

    static rtbox.plan.PlanRun plan(long... maxUs) {
        List<rtbox.plan.CellResult> cells = new ArrayList<>();
        for (long m : maxUs) {
            RunReport r = report(m);
            cells.add(new rtbox.plan.CellResult(cells.size(), "idle", Map.of(), "timer", "fifo:80", List.of(), Map.of(),
                    0, 1, r, r.verdict(), null));
        }
        return new rtbox.plan.PlanRun(rtbox.plan.PlanRun.SCHEMA, "r", "ab", null, null, null, 0, 1, cells.size(),
                cells.stream().map(rtbox.plan.CellResult::name).toList(), rtbox.plan.PlanRun.COMPLETE, cells,
                cells.get(0).verdict());
    }

    static RunReport report(long maxUs) {
        long[] counts = new long[200];
        counts[10] = 990;
        Histogram h = new Histogram(1000, counts, 10, 1000, 5_000, maxUs * 1000, 12_000, 10_000, 11_000, 12_000);
        ThreadResult t = new ThreadResult(0, 0, 100, "fifo", 80, 1000, 0, h,
                new CorrectedLatency(1000, 10_000, 11_000, 12_000, maxUs * 1000, ""), List.of(), 0);
        ProbeResult r = new ProbeResult("timer", "", "CLOCK_MONOTONIC", 0, 1_000_000_000L, true, List.of(t),
                Map.of("interval_us", 1000.0), List.of());
        return new RunReport(RunReport.SCHEMA, "run", 0, 1000, "rtbox run timer", r,
                new Histogram(1000, new long[10], 0, 0, 0, 0, 0, 0, 0, 0), List.of(), Map.of(), List.of(),
                new SystemInfo(Map.of()), new Verdict(Verdict.Outcome.MEASURED, List.of(), "no thresholds given"));
    }
}
