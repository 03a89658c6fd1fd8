package rtbox.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import rtbox.plan.CellResult;
import rtbox.plan.PlanRun;

/**
 * A plan run's report folder, written by one call wherever the run came from ({@code rtbox
 * plan run --report}, {@code rtbox job --report}): report.txt, report.json and cell-N.json
 * (cyclictest's --json) from rtbox.plan's {@link PlanReports}, then report.html
 * ({@link HtmlReport}) and report.hlog ({@link HdrIntervalLog}).
 */
public final class ReportSet {

    private ReportSet() {
    }

    /**
     * Writes the set into {@code dir} and returns its files. {@code planFile} is the plan
     * file as the user named it (a remote run ran a copy), shown in the HTML header.
     */
    public static List<Path> write(PlanRun run, Path dir, String title, String planFile) throws IOException {
        List<Path> files = new ArrayList<>(PlanReports.write(run, dir));
        List<ReportCell> cells = new ArrayList<>();
        for (CellResult c : run.cells()) {
            if (c.report() != null) {
                cells.add(new ReportCell(c.name(), c.report()));
            }
        }
        Path html = dir.resolve("report.html");
        Files.writeString(html, HtmlReport.render(title, planFile, run.verdict().outcome() + ": "
                + run.verdict().reason(), cells, Repetitions.applies(run) ? Repetitions.text(run) : null),
                StandardCharsets.UTF_8);
        files.add(html);
        Path hlog = dir.resolve("report.hlog");
        Files.writeString(hlog, HdrIntervalLog.render(cells), StandardCharsets.UTF_8);
        files.add(hlog);
        return files;
    }
}
