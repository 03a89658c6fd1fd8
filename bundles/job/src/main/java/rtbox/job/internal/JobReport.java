package rtbox.job.internal;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.google.gson.Gson;

import rtbox.api.result.RunReport;
import rtbox.api.result.Verdict;
import rtbox.json.JsonProblem;
import rtbox.json.ModelJson;
import rtbox.mqtt.protocol.Cell;
import rtbox.mqtt.protocol.Codec;
import rtbox.mqtt.protocol.Message;
import rtbox.mqtt.protocol.Outcome;
import rtbox.mqtt.protocol.PlanOutcome;
import rtbox.mqtt.protocol.ProtocolException;
import rtbox.mqtt.protocol.Result;
import rtbox.plan.CellResult;
import rtbox.plan.PlanRun;

/**
 * The report of a plan that ran over MQTT, from the messages {@code rtbox ctl plan --out}
 * kept (the plan's result and each cell's, docs/mqtt.md): the same files as
 * {@code rtbox plan run --report} writes on the appliance, so that the all-in-one job
 * and a local run give the same report.
 */
final class JobReport {
    /** A cell's report as rtbox.report's model, read strictly (rtbox.json's ModelJson). */
    private static final Gson GSON = ModelJson.builder().create();

    private JobReport() {
    }

    /**
     * The plan run that the result and cell messages in {@code messages} describe (as
     * rtbox.mqtt.protocol's Codec reads them); null if there is no plan result. A file that
     * is not one of those messages is an error naming the file and the field.
     */
    static PlanRun read(Path messages, String appliance) throws IOException {
        Result result = null;
        Map<Integer, Cell> cells = new TreeMap<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(messages, appliance + "-*.json")) {
            for (Path f : files) {
                Message m;
                try {
                    m = Codec.decode(Files.readAllBytes(f));
                } catch (ProtocolException e) {
                    throw new IOException(f + " is not one of the plan's messages: " + e.getMessage(), e);
                }
                if (m instanceof Cell c) {
                    cells.put(c.cell().cell(), c);
                } else if (m instanceof Result r && r.plan() != null) {
                    result = r;
                }
            }
        }
        if (result == null) {
            return null;
        }
        List<CellResult> list = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (Cell c : cells.values()) {
            RunReport report;
            try {
                report = c.report() != null ? ModelJson.read(GSON, c.report(), RunReport.class) : null;
            } catch (JsonProblem e) {
                throw new IOException("the report of cell " + c.cell().cell() + " (" + c.cell().name()
                        + ") does not read as a run report: " + e.getMessage(), e);
            }
            Verdict v = new Verdict(outcome(c.verdict()), report != null ? report.verdict().checks() : List.of(),
                    c.reason());
            names.add(c.cell().name());
            list.add(new CellResult(c.cell().cell() - 1, c.cell().name(), c.axes(), c.probe(), c.policy(), c.loads(),
                    c.tuner(), epochMs(c.started()), epochMs(c.ended()), report, v,
                    report == null ? c.reason() : null));
        }
        PlanOutcome p = result.plan();
        return new PlanRun(PlanRun.SCHEMA, result.run(), p.plan(), p.description(), null, null,
                epochMs(result.started()), epochMs(result.ended()), p.cellsPlanned(), names,
                p.state() != null ? p.state() : PlanRun.COMPLETE, list,
                new Verdict(outcome(result.verdict()), List.of(), result.reason()));
    }

    /**
     * Writes the report set ({@link rtbox.report.ReportSet}); returns its files.
     * {@code planFile} is the plan file as the user named it (the appliance ran a copy).
     */
    static List<Path> write(PlanRun run, Path dir, String title, String planFile) throws IOException {
        return rtbox.report.ReportSet.write(run, dir, title, planFile);
    }

    /** ABORTED (the appliance restarted) has no place among the local outcomes: an error. */
    private static Verdict.Outcome outcome(Outcome o) {
        return o == Outcome.ABORTED ? Verdict.Outcome.ERROR : Verdict.Outcome.valueOf(o.name());
    }

    private static long epochMs(Instant i) {
        return i == null ? 0 : i.toEpochMilli();
    }
}
