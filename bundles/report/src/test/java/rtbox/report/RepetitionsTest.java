package rtbox.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import rtbox.api.result.Verdict;
import rtbox.api.result.Verdict.Outcome;
import rtbox.plan.CellResult;
import rtbox.plan.PlanRun;

/** A repeating plan's report: per cell the median and range of each figure over its repetitions. */
class RepetitionsTest {
    static final Verdict MEASURED = new Verdict(Outcome.MEASURED, List.of(), "no thresholds given");

    /** Two cells, interleaved over three repetitions: idle max 30, 10, 20 us; pipe 100, 400, (an ERROR cell). */
    static PlanRun repeated() {
        List<CellResult> cells = new ArrayList<>();
        long[][] maxUs = {{30, 100}, {10, 400}, {20, -1}};
        for (long[] rep : maxUs) {
            for (int c = 0; c < 2; c++) {
                String name = c == 0 ? "idle" : "pipe";
                boolean error = rep[c] < 0;
                cells.add(new CellResult(cells.size(), name, Map.of(), "timer", "fifo:80", List.of(), Map.of(), 0, 1,
                        error ? null : CiReportsTest.report(rep[c] * 1000, MEASURED),
                        error ? new Verdict(Outcome.ERROR, List.of(), "gone") : MEASURED, error ? "gone" : null));
            }
        }
        return new PlanRun(PlanRun.SCHEMA, "r", "ab", null, null, null, 0, 1, 6,
                List.of("idle", "pipe", "idle", "pipe", "idle", "pipe"), PlanRun.COMPLETE, cells, MEASURED);
    }

    @Test
    void eachCellsFiguresAreTheMedianAndRangeOverItsRepetitions() {
        PlanRun run = repeated();
        assertTrue(Repetitions.applies(run));
        List<Repetitions.Row> rows = Repetitions.rows(run);
        assertEquals(List.of("idle", "pipe"), rows.stream().map(Repetitions.Row::cell).toList());
        Repetitions.Row idle = rows.get(0);
        assertEquals(3, idle.runs());
        assertEquals(new Repetitions.Spread(20, 10, 30), idle.maxUs());
        assertEquals(new Repetitions.Spread(2, 2, 2), idle.missedDeadlines());
        assertNull(idle.xruns(), "the timer counts no xruns");
        Repetitions.Row pipe = rows.get(1);
        assertEquals(3, pipe.runs());
        assertEquals(2, pipe.measured(), "the ERROR repetition has no figures");
        assertEquals(new Repetitions.Spread(250, 100, 400), pipe.maxUs(), "an even count: the middle two's mean");
        String text = PlanReports.text(run);
        assertTrue(text.contains("Repetitions: each figure as median [min-max] over the cell's runs"), text);
        assertTrue(text.lines().anyMatch(l -> l.matches("idle +3 .* 20 \\[10-30\\] +2 \\[2-2\\]")), text);
        assertTrue(text.lines().anyMatch(l -> l.matches("pipe +2 of 3 .* 250 \\[100-400\\] +2 \\[2-2\\]")), text);
    }

    @Test
    void theHtmlReportHasTheTableToo(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        ReportSet.write(repeated(), dir, "ab", "plans/ab.json");
        String html = java.nio.file.Files.readString(dir.resolve("report.html"));
        assertTrue(html.contains("<section class=\"repetitions\"><h2>Repetitions</h2>"), "no repetitions section");
        assertTrue(html.contains("20 [10-30]"), "idle's max over its repetitions");
        ReportSet.write(CiReportsTest.run(), dir, "quick", "plans/quick.json");
        assertFalse(java.nio.file.Files.readString(dir.resolve("report.html")).contains("class=\"repetitions\""));
    }

    @Test
    void aPlanThatDoesNotRepeatHasNoRepetitionsTable() {
        assertFalse(Repetitions.applies(CiReportsTest.run()));
        assertFalse(PlanReports.text(CiReportsTest.run()).contains("Repetitions"));
    }
}
