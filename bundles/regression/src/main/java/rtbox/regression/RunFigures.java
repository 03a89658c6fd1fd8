package rtbox.regression;

import java.util.LinkedHashMap;
import java.util.Map;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonParseException;

import rtbox.api.result.RunReport;
import rtbox.api.result.ThreadResult;
import rtbox.plan.CellResult;
import rtbox.plan.PlanRun;
import rtbox.report.PlanReports;
import rtbox.report.Reports;

/**
 * One run's figures, per cell: what a comparison needs of a result, and nothing else.
 *
 * @param source where it came from (a file name), for messages
 * @param plan the plan's name; null for a single run ({@code rtbox run --report})
 * @param cells cell name to its figures, in the run's cell order; a cell without a report (an
 *        ERROR cell) is absent, a figure the probe does not have (xruns of the timer) too
 */
public record RunFigures(String source, String plan, Map<String, Map<Figure, Double>> cells) {

    /** A plan run's cells (the plan's report.json, a run from the journal or the control room). */
    public static RunFigures of(PlanRun run, String source) {
        Map<String, Map<Figure, Double>> cells = new LinkedHashMap<>();
        for (CellResult c : run.cells()) {
            if (c.report() != null && c.report().result() != null) {
                cells.put(c.name(), figures(c.report()));
            }
        }
        return new RunFigures(source, run.plan(), cells);
    }

    /** A single run ({@code rtbox run --report FILE}): one cell named after its probe. */
    public static RunFigures of(RunReport report, String source) {
        Map<String, Map<Figure, Double>> cells = new LinkedHashMap<>();
        if (report.result() != null) {
            cells.put(report.result().probe(), figures(report));
        }
        return new RunFigures(source, null, cells);
    }

    /**
     * Reads a result file rtbox wrote: a plan's {@code report.json}, a run's {@code --report}
     * JSON or its {@code --json} (cyclictest's keys, rtbox's report under {@code rtbox}). An IllegalArgumentException names the source and what was wrong.
     */
    public static RunFigures fromJson(String json, String source) {
        JsonElement tree;
        try {
            tree = JsonParser.parseString(json);
        } catch (JsonParseException e) {
            throw new IllegalArgumentException(source + ": not JSON");
        }
        if (!tree.isJsonObject()) {
            throw new IllegalArgumentException(source + ": not an rtbox result (a JSON object was expected)");
        }
        JsonObject o = tree.getAsJsonObject();
        try {
            if (o.has("cells")) {
                return of(PlanReports.fromJson(json), source);
            }
            if (o.has("result")) {
                return of(Reports.fromJson(json), source);
            }
            // cyclictest's --json as rtbox writes it carries the whole run report under "rtbox".
            if (o.has("rtbox") && o.get("rtbox").isJsonObject() && o.getAsJsonObject("rtbox").has("result")) {
                return of(Reports.fromJson(o.get("rtbox").toString()), source);
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(source + ": " + e.getMessage());
        }
        throw new IllegalArgumentException(source + ": not an rtbox result: neither a plan's report.json (no $.cells)"
                + " nor a run's --report or --json file (no $.result, no $.rtbox.result)");
    }

    static Map<Figure, Double> figures(RunReport r) {
        Map<Figure, Double> f = new LinkedHashMap<>();
        long p50 = 0, p99 = 0, p999 = 0, max = 0, missed = 0;
        for (ThreadResult t : r.result().threads()) {
            p50 = Math.max(p50, t.latency().p50Ns());
            p99 = Math.max(p99, t.latency().p99Ns());
            p999 = Math.max(p999, t.latency().p999Ns());
            max = Math.max(max, t.latency().maxNs());
            missed += t.missedDeadlines();
        }
        if (!r.result().threads().isEmpty()) {
            f.put(Figure.P50, p50 / 1000.0);
            f.put(Figure.P99, p99 / 1000.0);
            f.put(Figure.P999, p999 / 1000.0);
            f.put(Figure.MAX, max / 1000.0);
            f.put(Figure.MISSED_DEADLINES, (double) missed);
        }
        Map<String, Double> probeFigures = r.result().figures();
        if (probeFigures != null && probeFigures.get("xruns") != null) {
            f.put(Figure.XRUNS, probeFigures.get("xruns"));
        }
        return f;
    }
}
