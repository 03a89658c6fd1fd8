package rtbox.broker.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import rtbox.api.result.RunReport;
import rtbox.api.result.Verdict;
import rtbox.plan.CellResult;
import rtbox.plan.PlanReports;
import rtbox.plan.PlanRun;
import rtbox.report.HdrIntervalLog;
import rtbox.report.HtmlReport;
import rtbox.report.ReportCell;

/**
 * The report of a plan that ran over MQTT, from the messages {@code rtbox ctl plan --out}
 * kept (the plan's result and each cell's, docs/mqtt.md): the same files as
 * {@code rtbox plan run --report} writes on the appliance, so that the all-in-one job
 * and a local run give the same report.
 */
final class JobReport {
    private static final Gson GSON = new GsonBuilder().serializeSpecialFloatingPointValues().create();

    private JobReport() {
    }

    /** The plan run that the result and cell messages in {@code messages} describe; null if there is no result. */
    static PlanRun read(Path messages, String appliance) throws IOException {
        JsonObject result = null;
        Map<Integer, JsonObject> cells = new TreeMap<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(messages, appliance + "-*.json")) {
            for (Path f : files) {
                JsonElement e = JsonParser.parseString(Files.readString(f, StandardCharsets.UTF_8));
                if (!e.isJsonObject()) {
                    continue;
                }
                JsonObject o = e.getAsJsonObject();
                String type = o.has("type") ? o.get("type").getAsString() : "";
                if ("cell".equals(type)) {
                    cells.put(o.get("cell").getAsInt(), o);
                } else if ("result".equals(type) && o.has("kind") && "plan".equals(o.get("kind").getAsString())) {
                    result = o;
                }
            }
        }
        if (result == null) {
            return null;
        }
        List<CellResult> list = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (JsonObject c : cells.values()) {
            RunReport report = c.has("report") && c.get("report").isJsonObject()
                    ? GSON.fromJson(c.get("report"), RunReport.class) : null;
            Verdict v = new Verdict(outcome(c.get("verdict").getAsString()),
                    report != null ? report.verdict().checks() : List.of(), c.get("reason").getAsString());
            names.add(c.get("cell_name").getAsString());
            list.add(new CellResult(c.get("cell").getAsInt() - 1, c.get("cell_name").getAsString(),
                    strings(c, "axes"), c.has("probe") ? c.get("probe").getAsString() : null,
                    c.has("policy") && !c.get("policy").isJsonNull() ? c.get("policy").getAsString() : null,
                    c.has("loads") ? GSON.fromJson(c.get("loads"), listOfStrings()) : List.of(),
                    strings(c, "tuner"), epochMs(c, "started"), epochMs(c, "ended"), report, v,
                    report == null ? c.get("reason").getAsString() : null));
        }
        String state = result.has("state") ? result.get("state").getAsString() : "complete";
        return new PlanRun(PlanRun.SCHEMA, result.get("run").getAsString(), result.get("plan").getAsString(),
                result.has("description") ? result.get("description").getAsString() : null, null, null,
                epochMs(result, "started"), epochMs(result, "ended"),
                result.has("cells_planned") ? result.get("cells_planned").getAsInt() : list.size(), names, state,
                list, new Verdict(outcome(result.get("verdict").getAsString()), List.of(),
                        result.get("reason").getAsString()));
    }

    /**
     * Writes report.txt, report.json, cell-N.json, report.html and report.hlog; returns them.
     * {@code planFile} is the plan file as the user named it (the appliance ran a copy).
     */
    static List<Path> write(PlanRun run, Path dir, String title, String planFile) throws IOException {
        List<Path> files = new ArrayList<>(PlanReports.write(run, dir));
        List<ReportCell> cells = new ArrayList<>();
        for (CellResult c : run.cells()) {
            if (c.report() != null) {
                cells.add(new ReportCell(c.name(), c.report()));
            }
        }
        Path html = dir.resolve("report.html");
        Files.writeString(html, HtmlReport.render(title, planFile, run.verdict().outcome() + ": " + run.verdict().reason(), cells),
                StandardCharsets.UTF_8);
        files.add(html);
        Path hlog = dir.resolve("report.hlog");
        Files.writeString(hlog, HdrIntervalLog.render(cells), StandardCharsets.UTF_8);
        files.add(hlog);
        return files;
    }

    /** ABORTED (the appliance restarted) has no place among the local outcomes: an error. */
    private static Verdict.Outcome outcome(String s) {
        try {
            return Verdict.Outcome.valueOf(s);
        } catch (IllegalArgumentException e) {
            return Verdict.Outcome.ERROR;
        }
    }

    private static Map<String, String> strings(JsonObject o, String key) {
        Map<String, String> m = new LinkedHashMap<>();
        if (o.has(key) && o.get(key).isJsonObject()) {
            o.getAsJsonObject(key).entrySet().forEach(e -> m.put(e.getKey(),
                    e.getValue().isJsonNull() ? null : e.getValue().getAsString()));
        }
        return m;
    }

    private static java.lang.reflect.Type listOfStrings() {
        return com.google.gson.reflect.TypeToken.getParameterized(List.class, String.class).getType();
    }

    private static long epochMs(JsonObject o, String key) {
        return o.has(key) && !o.get(key).isJsonNull() ? Instant.parse(o.get(key).getAsString()).toEpochMilli() : 0;
    }
}
