package rtbox.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import rtbox.plan.PlanRun;

class PlanReportsTest {
    @Test
    void theTableHasOneRowPerCellAndNamesTheCellsThatDidNotRun() {
        String table = PlanReports.table(CiReportsTest.run());
        List<String> rows = table.lines().toList();
        assertEquals(4, rows.size(), table);
        assertTrue(rows.get(0).matches("probe +load +worst delay \\(us\\) +missed +overflows +verdict"), table);
        assertTrue(rows.get(1).matches("timer +idle +3000 +2 +\\S+ +FAIL"), table);
        assertTrue(rows.get(2).matches("timer +pipe +80 +2 +\\S+ +MEASURED"), table);
        assertTrue(rows.get(3).startsWith("never") && rows.get(3).endsWith("NOT RUN"), table);
    }

    @Test
    void theTextReportHasEachCellThenTheTableThenTheOverallVerdict() {
        String text = PlanReports.text(CiReportsTest.run());
        assertTrue(text.startsWith("rtbox plan 'quick' (run run-1)"), text);
        assertTrue(text.contains("2 of 3 cells ran, stopped"), text);
        assertTrue(text.indexOf("== cell 1/3") < text.indexOf("== cell 2/3"), text);
        assertTrue(text.endsWith("OVERALL FAIL: 1 of 2 cells failed\n"), text);
    }

    @Test
    void theJsonReportReadsBackToTheSameFigures() {
        PlanRun run = CiReportsTest.run();
        PlanRun back = PlanReports.fromJson(PlanReports.json(run));
        assertEquals(run.cells().size(), back.cells().size());
        assertEquals(run.cells().get(0).report().result().threads().get(0).latency().maxNs(),
                back.cells().get(0).report().result().threads().get(0).latency().maxNs());
        assertEquals(run.verdict().outcome(), back.verdict().outcome());
    }

    @Test
    void aReportSetIsTextJsonCellFilesHtmlAndHlog(@TempDir Path dir) throws Exception {
        List<Path> files = ReportSet.write(CiReportsTest.run(), dir, "quick", "plans/quick.json");
        List<String> names = files.stream().map(f -> f.getFileName().toString()).sorted().toList();
        assertEquals(List.of("cell-1.json", "cell-2.json", "report.hlog", "report.html", "report.json", "report.txt"),
                names);
        for (Path f : files) {
            assertTrue(Files.size(f) > 0, f + " is empty");
        }
        assertTrue(Files.readString(dir.resolve("report.html")).contains("plans/quick.json"));
    }

    /** report.json is streamed to its file (a many-cell run is more than the heap holds as a string), the same JSON. */
    @Test
    void theStreamedJsonIsTheSameAsTheString(@TempDir Path dir) throws Exception {
        PlanRun run = CiReportsTest.run();
        PlanReports.write(run, dir);
        assertEquals(PlanReports.json(run), Files.readString(dir.resolve("report.json")));
        StringBuilder out = new StringBuilder();
        PlanReports.json(run, out);
        assertEquals(PlanReports.json(run), out.toString());
    }
}
