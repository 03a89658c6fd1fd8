package rtbox.control.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import jakarta.servlet.http.HttpServletResponse;
import rtbox.api.result.RunReport;
import rtbox.report.HdrIntervalLog;
import rtbox.report.ReportCell;

/**
 * A run's downloads: the stored messages as one JSON, cyclictest's --json layout, the
 * HdrHistogram interval log (rtbox.report's, the same as {@code rtbox plan run} writes)
 * and JUnit XML for a CI system.
 */
final class Downloads {
    /** A cell's stored report as rtbox.report's model, read strictly (rtbox.json's ModelJson). */
    private static final Gson REPORTS = rtbox.json.ModelJson.builder().create();

    private Downloads() {
    }

    static RunReport report(String cell, JsonObject report) {
        try {
            return rtbox.json.ModelJson.read(REPORTS, report, RunReport.class);
        } catch (rtbox.json.JsonProblem e) {
            // A 500 (the log says which cell): the codec accepted the message, so the model does not fit it.
            throw new IllegalStateException("the stored report of cell " + cell + " does not read as a run report: "
                    + e.getMessage());
        }
    }

    static void send(Queries q, String appliance, String run, String file, HttpServletResponse resp)
            throws IOException, SQLException {
        List<JsonObject> messages = q.payloads(appliance, run);
        if (messages.isEmpty()) {
            throw new NotFound("run '" + run + "' of '" + appliance + "' has no cell or result stored");
        }
        String body;
        String type;
        switch (file) {
            case "result.json" -> {
                JsonObject o = new JsonObject();
                o.addProperty("appliance", appliance);
                o.addProperty("run", run);
                JsonArray a = new JsonArray();
                messages.forEach(a::add);
                o.add("messages", a);
                body = Json.GSON.toJson(o);
                type = "application/json";
            }
            case "cyclictest.json" -> {
                body = Json.GSON.toJson(cyclictest(messages));
                type = "application/json";
            }
            case "histogram.hlog" -> {
                List<ReportCell> cells = new ArrayList<>();
                for (JsonObject m : cells(messages)) {
                    JsonObject report = Json.object(m, "report");
                    if (report != null) {
                        cells.add(new ReportCell(name(m), report(name(m), report)));
                    }
                }
                body = HdrIntervalLog.render(cells);
                type = "text/plain";
            }
            case "junit.xml" -> {
                body = junit(appliance, run, messages);
                type = "application/xml";
            }
            default -> throw new NotFound("no download '" + file + "' (result.json, cyclictest.json, histogram.hlog,"
                    + " junit.xml)");
        }
        resp.setStatus(200);
        resp.setContentType(type + "; charset=utf-8");
        resp.setHeader("Content-Disposition", "attachment; filename=\"" + (appliance + "-" + run + "-" + file)
                .replaceAll("[^A-Za-z0-9._-]", "_") + "\"");
        resp.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
    }

    /** The cell messages, or the single run's result. */
    private static List<JsonObject> cells(List<JsonObject> messages) {
        List<JsonObject> cells = new ArrayList<>();
        for (JsonObject m : messages) {
            if ("cell".equals(Json.string(m, "type")) || !m.has("cells_planned") && !"plan".equals(Json.string(m, "kind"))) {
                cells.add(m);
            }
        }
        return cells;
    }

    private static String name(JsonObject m) {
        return m.has("cell_name") ? Json.string(m, "cell_name") : Json.string(m, "probe");
    }

    private static JsonObject cyclictest(List<JsonObject> messages) {
        JsonObject o = new JsonObject();
        JsonArray cells = new JsonArray();
        for (JsonObject m : cells(messages)) {
            JsonObject c = new JsonObject();
            c.addProperty("name", name(m));
            c.addProperty("file_version", 1);
            c.addProperty("return_code", returnCode(Json.string(m, "verdict")));
            c.add("resolution_in_ns", m.has("histogram_bucket_us")
                    ? new com.google.gson.JsonPrimitive(Json.number(m, "histogram_bucket_us") * 1000) : null);
            JsonObject threads = new JsonObject();
            JsonArray ts = Json.array(m, "threads");
            if (ts != null) {
                for (int ti = 0; ti < ts.size(); ti++) {
                    JsonObject t = ts.get(ti).getAsJsonObject(), out = new JsonObject();
                    out.add("cpu", t.get("cpu"));
                    out.add("min", t.get("min_us"));
                    out.add("avg", t.get("avg_us"));
                    out.add("max", t.get("max_us"));
                    out.add("cycles", t.get("samples"));
                    JsonObject hist = new JsonObject();
                    JsonArray h = Json.array(t, "histogram");
                    if (h != null) {
                        for (int i = 0; i < h.size(); i++) {
                            if (Json.whole(h.get(i), "$.threads[" + ti + "].histogram[" + i + "]", 0, Long.MAX_VALUE) != 0) {
                                hist.add(Integer.toString(i), h.get(i));
                            }
                        }
                    }
                    out.add("histogram", hist);
                    threads.add(Json.string(t, "thread"), out);
                }
            }
            c.add("thread", threads);
            cells.add(c);
        }
        o.add("cells", cells);
        return o;
    }

    /** The exit code of a cell's verdict, the one mapping (Verdict.Outcome.exitCode); an unknown one is an error. */
    static int returnCode(String verdict) {
        try {
            return rtbox.api.result.Verdict.Outcome.valueOf(verdict).exitCode();
        } catch (IllegalArgumentException | NullPointerException e) {
            return rtbox.api.result.Verdict.Outcome.ERROR.exitCode();
        }
    }

    private static String junit(String appliance, String run, List<JsonObject> messages) {
        List<JsonObject> cells = cells(messages);
        int failures = 0, errors = 0;
        StringBuilder cases = new StringBuilder();
        for (JsonObject m : cells) {
            String v = Json.string(m, "verdict");
            Double d = Json.number(m, "duration_s");
            cases.append(String.format(Locale.ROOT, "  <testcase classname=\"%s\" name=\"%s\" time=\"%.3f\">",
                    Records.esc(appliance + "." + run), Records.esc(name(m)), d == null ? 0 : d));
            String text = Records.esc(v + ": " + Json.string(m, "reason") + " (max " + Json.string(m, "max_us")
                    + " us, p99 " + Json.string(m, "p99_us") + " us)");
            if ("FAIL".equals(v)) {
                failures++;
                cases.append("<failure message=\"").append(text).append("\"/>");
            } else if (!"PASS".equals(v) && !"MEASURED".equals(v)) {
                errors++;
                cases.append("<error message=\"").append(text).append("\"/>");
            }
            cases.append("</testcase>\n");
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"" + Records.esc(appliance + "." + run)
                + "\" tests=\"" + cells.size() + "\" failures=\"" + failures + "\" errors=\"" + errors + "\">\n"
                + cases + "</testsuite>\n";
    }
}
