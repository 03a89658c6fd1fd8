package rtbox.regression;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonParseException;

import rtbox.api.result.RunReport;
import rtbox.plan.CellResult;
import rtbox.plan.PlanRun;
import rtbox.report.CellFigures;
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

    /**
     * A plan run as the runs it holds: one per repetition when its plan repeats its cells
     * ({@code "repetitions"}: a repeated cell keeps its name, its k-th occurrence is repetition k),
     * named {@code source#k}; else the run itself, as {@link #of(PlanRun, String)}.
     *
     * @since 1.1
     */
    public static List<RunFigures> repetitions(PlanRun run, String source) {
        List<Map<String, Map<Figure, Double>>> reps = new ArrayList<>();
        Map<String, Integer> seen = new LinkedHashMap<>();
        for (CellResult c : run.cells()) {
            int k = seen.merge(c.name(), 1, Integer::sum);
            while (reps.size() < k) {
                reps.add(new LinkedHashMap<>());
            }
            if (c.report() != null && c.report().result() != null) {
                reps.get(k - 1).put(c.name(), figures(c.report()));
            }
        }
        if (reps.size() <= 1) {
            return List.of(of(run, source));
        }
        List<RunFigures> out = new ArrayList<>();
        for (int k = 0; k < reps.size(); k++) {
            out.add(new RunFigures(source + "#" + (k + 1), run.plan(), reps.get(k)));
        }
        return out;
    }

    /**
     * A result file as the runs it holds: a repeating plan's report.json as one run per
     * repetition ({@link #repetitions}), any other as {@link #fromJson}.
     *
     * @since 1.1
     */
    public static List<RunFigures> allFromJson(String json, String source) {
        RunFigures whole = fromJson(json, source);
        if (whole.plan() == null) {
            return List.of(whole);
        }
        return repetitions(PlanReports.fromJson(json), source);
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
        CellFigures c = CellFigures.of(r); // rtbox.report's one reading of a run's figures
        if (c != null) {
            f.put(Figure.P50, c.p50Us());
            f.put(Figure.P99, c.p99Us());
            f.put(Figure.P999, c.p999Us());
            f.put(Figure.MAX, c.maxUs());
            f.put(Figure.MISSED_DEADLINES, (double) c.missedDeadlines());
        }
        Map<String, Double> probeFigures = r.result().figures();
        if (probeFigures != null && probeFigures.get("xruns") != null) {
            f.put(Figure.XRUNS, probeFigures.get("xruns"));
        }
        return f;
    }
}
