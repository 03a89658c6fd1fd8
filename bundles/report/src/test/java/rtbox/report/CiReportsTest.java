package rtbox.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import rtbox.api.result.Check;
import rtbox.api.result.CorrectedLatency;
import rtbox.api.result.Histogram;
import rtbox.api.result.ProbeResult;
import rtbox.api.result.RunReport;
import rtbox.api.result.SystemInfo;
import rtbox.api.result.ThreadResult;
import rtbox.api.result.Verdict;
import rtbox.api.result.Verdict.Outcome;
import rtbox.plan.CellResult;
import rtbox.plan.PlanRun;

class CiReportsTest {
    static RunReport report(long maxNs, Verdict v) {
        Histogram h = new Histogram(1000, new long[] {10, 5}, 0, 15, 9_000, maxNs, 20_000, 10_000, 60_000, maxNs);
        ThreadResult t = new ThreadResult(0, 0, 1234, "fifo", 80, 15, 2, h, new CorrectedLatency(15, 10_000, 60_000,
                maxNs, maxNs, ""), List.of(), 0);
        ProbeResult pr = new ProbeResult("timer", "", "CLOCK_MONOTONIC", 0, 1_000_000_000L, true, List.of(t),
                Map.of("interval_us", 1000.0), List.of());
        return new RunReport(RunReport.SCHEMA, "r", 1000, 3000, "rtbox run timer", pr, h, List.of(), Map.of(),
                List.of(), new SystemInfo(Map.of("rtbox_version", "0.1.0", "rtbox_commit", "abc1234")), v);
    }

    /** Two cells of three planned (stopped), the first FAIL, the second MEASURED. */
    static PlanRun run() {
        Verdict fail = new Verdict(Outcome.FAIL, List.of(new Check("max_latency_us", 100, 3000, Outcome.FAIL,
                "max_latency_us 3000 > 100"), new Check("missed_deadlines", 5, 2, Outcome.PASS, "missed_deadlines 2 <= 5")),
                "max_latency_us 3000 > 100");
        Verdict measured = new Verdict(Outcome.MEASURED, List.of(), "no thresholds given");
        CellResult a = new CellResult(0, "idle, \"quoted\"", Map.of("load", "idle"), "timer", "fifo:80", List.of(),
                Map.of(), 1000, 3000, report(3_000_000, fail), fail, null);
        CellResult b = new CellResult(1, "pipe <rtt>", Map.of("load", "pipe"), "timer", "fifo:80", List.of(),
                Map.of(), 3000, 5000, report(80_000, measured), measured, null);
        return new PlanRun(PlanRun.SCHEMA, "run-1", "quick", null, null, null, 1000, 5000, 3,
                List.of("idle", "pipe", "never"), PlanRun.STOPPED, List.of(a, b),
                new Verdict(Outcome.FAIL, List.of(), "1 of 2 cells failed"));
    }

    private static Document parse(String xml) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }

    private static String prop(Element testcase, String name) {
        NodeList ps = testcase.getElementsByTagName("property");
        for (int i = 0; i < ps.getLength(); i++) {
            Element p = (Element) ps.item(i);
            if (p.getAttribute("name").equals(name)) {
                return p.getAttribute("value");
            }
        }
        return null;
    }

    @Test
    void oneCasePerCellAndCheckWithFiguresAsProperties() throws Exception {
        Document d = parse(CiReports.junit(run()));
        Element suite = (Element) d.getElementsByTagName("testsuite").item(0);
        assertEquals("rtbox.quick", suite.getAttribute("name"));
        // 2 cells + 2 checks of the first + 1 cell never run.
        assertEquals("5", suite.getAttribute("tests"));
        assertEquals("2", suite.getAttribute("failures"));
        assertEquals("0", suite.getAttribute("errors"));
        assertEquals("1", suite.getAttribute("skipped"));
        NodeList cases = d.getElementsByTagName("testcase");
        assertEquals(5, cases.getLength());
        Element idle = (Element) cases.item(0);
        assertEquals("idle, \"quoted\"", idle.getAttribute("name"));
        assertEquals("2.000", idle.getAttribute("time"));
        assertEquals("3000.0", prop(idle, "max_us"));
        assertEquals("2", prop(idle, "missed_deadlines"));
        assertEquals(1, idle.getElementsByTagName("failure").getLength());
        Element check = (Element) cases.item(1);
        assertEquals("max_latency_us", check.getAttribute("name"));
        assertEquals("100", prop(check, "threshold"));
        assertEquals(1, check.getElementsByTagName("failure").getLength());
        assertEquals(0, ((Element) cases.item(2)).getElementsByTagName("failure").getLength());
        // MEASURED: a passing case that says no thresholds were given.
        Element pipe = (Element) cases.item(3);
        assertEquals("pipe <rtt>", pipe.getAttribute("name"));
        assertEquals("MEASURED", prop(pipe, "rtbox.verdict"));
        assertEquals("none given", prop(pipe, "rtbox.thresholds"));
        assertEquals(0, pipe.getElementsByTagName("failure").getLength() + pipe.getElementsByTagName("error")
                .getLength() + pipe.getElementsByTagName("skipped").getLength());
        Element never = (Element) cases.item(4);
        assertEquals("never", never.getAttribute("name"));
        assertEquals(1, never.getElementsByTagName("skipped").getLength());
        assertEquals("rtbox 0.1.0 (git abc1234)", prop(suite, "rtbox.version"));
    }

    @Test
    void inconclusiveAndErrorAreErrorsNotPasses() throws Exception {
        Verdict inc = new Verdict(Outcome.INCONCLUSIVE, List.of(new Check("jvm_stall_us", 1000, 3455, Outcome.FAIL,
                "jvm_stall_us 3455 > 1000")), "the JVM stalled");
        CellResult c = new CellResult(0, "c", Map.of(), "timer", null, List.of(), Map.of(), 0, 1,
                report(80_000, inc), inc, null);
        PlanRun r = new PlanRun(PlanRun.SCHEMA, "x", "p", null, null, null, 0, 1, 1, List.of("c"), PlanRun.COMPLETE,
                List.of(c), inc);
        Document d = parse(CiReports.junit(r));
        Element e = (Element) d.getElementsByTagName("error").item(0);
        assertEquals("INCONCLUSIVE", e.getAttribute("type"));
        // The JVM over its budget is not the machine failing: an error too, no failure anywhere.
        assertEquals(2, d.getElementsByTagName("error").getLength());
        assertEquals(0, d.getElementsByTagName("failure").getLength());
    }

    @Test
    void aMeasuredCellsJvmOverBudgetIsNoFailureSinceItExitsZero() throws Exception {
        Verdict m = new Verdict(Outcome.MEASURED, List.of(new Check("jvm_stall_us", 1000, 3455, Outcome.FAIL,
                "jvm_stall_us 3455 > 1000")), "no thresholds given; the JVM stalled for 3455 us");
        CellResult c = new CellResult(0, "c", Map.of(), "timer", null, List.of(), Map.of(), 0, 1,
                report(80_000, m), m, null);
        Document d = parse(CiReports.junit(CiReports.single("timer", c.report())));
        assertEquals(0, d.getElementsByTagName("error").getLength() + d.getElementsByTagName("failure").getLength());
        assertEquals("FAIL", prop((Element) d.getElementsByTagName("testcase").item(1), "outcome"));
    }

    @Test
    void csvOfTheCellTable() {
        String[] lines = CiReports.csv(run()).split("\r\n");
        assertEquals("cell,probe,load,threads,cycles,min_us,avg_us,p50_us,p99_us,p99.9_us,max_us,missed_deadlines,"
                + "overflows,verdict,reason", lines[0]);
        assertEquals("\"idle, \"\"quoted\"\"\",timer,idle,1,15,9.0,20.00,10.0,60.0,3000.0,3000.0,2,0,FAIL,"
                + "max_latency_us 3000 > 100", lines[1]);
        assertTrue(lines[2].endsWith(",MEASURED,no thresholds given"), lines[2]);
        assertTrue(lines[3].startsWith("never,") && lines[3].endsWith(",NOT RUN,the plan was stopped"), lines[3]);
        assertEquals(4, lines.length);
    }

    @Test
    void theFilesAskedForAreWrittenWithTheirFoldersAndNamed(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        PlanRun run = run();
        java.nio.file.Path junit = dir.resolve("ci/junit.xml"), csv = dir.resolve("ci/t/cells.csv");
        assertEquals(List.of(junit, csv), CiReports.write(run, junit, csv));
        assertEquals(CiReports.junit(run), java.nio.file.Files.readString(junit));
        assertEquals(CiReports.csv(run), java.nio.file.Files.readString(csv));
        assertEquals(List.of(), CiReports.write(run, null, null), "nothing asked, nothing written");
    }
}
