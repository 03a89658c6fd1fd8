package rtbox.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import rtbox.api.result.Histogram;
import rtbox.api.result.ProbeResult;
import rtbox.api.result.RunEvent;
import rtbox.api.result.RunReport;
import rtbox.api.result.SystemInfo;
import rtbox.api.result.Verdict;
import rtbox.api.result.Verdict.Outcome;
import rtbox.plan.CellResult;
import rtbox.plan.PlanRun;

class GraphTableTest {
    private static CellResult cell(int i, String name, String policy, List<String> loads, Map<String, Double> figures,
            List<RunEvent> events) {
        ProbeResult r = new ProbeResult("graph", "", "CLOCK_MONOTONIC", 0, 30_000_000_000L, true, List.of(), figures,
                List.of());
        Verdict v = new Verdict(Outcome.MEASURED, List.of(), "no thresholds given");
        RunReport report = new RunReport(RunReport.SCHEMA, "r" + i, 0, 1, "c", r,
                new Histogram(1000, new long[1], 0, 0, 0, 0, 0, 0, 0, 0), List.of(), Map.of(), events,
                new SystemInfo(Map.of()), v);
        return new CellResult(i, name, Map.of("policy", policy), "graph", policy, loads, Map.of(), 0, 1, report, v, null);
    }

    @Test
    void eachGraphCellBesideTheSeedsFigures() {
        CellResult fifo = cell(0, "graph fifo:80 +compile", "fifo:80", List.of("fairness:workers=4"),
                Map.of("delay_max_us", 412.4, "xruns", 0.0, "dsp_load_pct", 50.2, "dsp_load_max_pct", 61.0), List.of());
        CellResult iso = cell(1, "graph iso@70 +none", "iso@70", List.of(), Map.of("delay_max_us", 9000.0, "xruns", 12.0,
                "dsp_load_pct", 84.9, "dsp_load_max_pct", 130.0, "iso_demotions", 3.0, "xruns_demoted", 11.0),
                List.of(new RunEvent(8_570_000_000L, "iso.demote", "over"), new RunEvent(9_000_000_000L, "xrun", "x")));
        CellResult never = cell(2, "graph iso@100 +none", "iso@100", List.of(), Map.of("delay_max_us", 90.0, "xruns",
                0.0, "dsp_load_pct", 50.0, "dsp_load_max_pct", 52.0, "iso_demotions", 0.0), List.of());
        PlanRun run = new PlanRun(PlanRun.SCHEMA, "x", "seed-004", null, null, null, 0, 1, 3,
                List.of("a", "b", "c"), PlanRun.COMPLETE, List.of(fifo, iso, never),
                new Verdict(Outcome.MEASURED, List.of(), "m"));
        String t = PlanReports.text(run);
        assertTrue(t.contains("Seed 004's table"), t);
        String[] lines = GraphTable.text(run).split("\n");
        assertTrue(lines[1].contains("Delay Maximum (us)") && lines[1].contains("XRUN count"), lines[1]);
        assertTrue(lines[2].startsWith("graph fifo:80 +compile") && lines[2].contains(" 412 ")
                && lines[2].contains("50.2 / 61.0") && lines[2].endsWith("269-579 us, 0-4 xruns (8 runs)"), lines[2]);
        assertTrue(lines[2].contains("  -  "), "not an ISO cell: " + lines[2]);
        assertTrue(lines[3].contains("3 times, first at 8.57 s (11 xruns while demoted)")
                && lines[3].endsWith("341-33894 us, 17-26 xruns (3 runs)"), lines[3]);
        assertTrue(lines[4].contains("  no  ") && lines[4].endsWith("not posted (clean after start-up)"), lines[4]);
    }

    @Test
    void noGraphCellNoTable() {
        PlanRun run = new PlanRun(PlanRun.SCHEMA, "x", "p", null, null, null, 0, 1, 0, List.of(), PlanRun.COMPLETE,
                List.of(), new Verdict(Outcome.MEASURED, List.of(), "m"));
        assertFalse(GraphTable.applies(run));
        assertFalse(PlanReports.text(run).contains("Seed 004"));
    }

    @Test
    void theSeedsFiguresByPolicyAndLoad() {
        assertEquals("199-347 us, 0 xruns (6 runs)", GraphTable.seed("fifo:80", false));
        assertEquals("14549-38961 us, 22-44 xruns (3 runs)", GraphTable.seed("iso@70:80", true));
        assertEquals("-", GraphTable.seed("rr:50", false));
    }
}
