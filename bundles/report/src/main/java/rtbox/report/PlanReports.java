package rtbox.report;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.SimpleDateFormat;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TimeZone;

import com.google.gson.Gson;
import rtbox.json.JsonProblem;
import rtbox.json.ModelJson;
import rtbox.plan.CellResult;
import rtbox.plan.PlanRun;


/**
 * Writes a plan run for people and for programs: the text report (a summary per
 * cell, then the comparison table in seed 004's shape: cells by worst delay,
 * deadline misses and verdict) and the JSON report (the {@link PlanRun} record,
 * schema {@link PlanRun#SCHEMA}).
 */
public final class PlanReports {
    /** No NaN or infinity written (JSON has none): such a figure is null (rtbox.json's ModelJson). */
    private static final Gson GSON = ModelJson.builder().setPrettyPrinting().serializeNulls().create();

    private PlanReports() {
    }

    /** The whole run as JSON. */
    public static String json(PlanRun run) {
        return GSON.toJson(run);
    }

    /**
     * The whole run as JSON, written to {@code out} as it is made: a plan of many cells
     * makes tens of MB of it (16 graph cells of seed 004: more than the appliance's 40 MB
     * heap could hold as one string, so report.json and {@code rtbox results --json} failed
     * with OutOfMemoryError after every cell had been measured and journalled).
     *
     * @since 1.2
     */
    public static void json(PlanRun run, Appendable out) {
        GSON.toJson(run, out);
    }

    /**
     * Reads what {@link #json} wrote, strictly (rtbox.json's rules: no NaN, no repeated member, a
     * count that is not a whole number refused, not rounded); an IllegalArgumentException names
     * the JSON path of what was wrong.
     */
    public static PlanRun fromJson(String json) {
        try {
            return ModelJson.read(GSON, json, PlanRun.class);
        } catch (JsonProblem e) {
            throw new IllegalArgumentException("not a plan report: " + e.getMessage(), e);
        }
    }

    /** A summary per cell, the comparison table and the overall verdict. */
    public static String text(PlanRun run) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "rtbox plan '%s' (run %s)%s%n", run.plan(), run.id(),
                run.file() == null ? "" : ", " + run.file()));
        if (run.description() != null && !run.description().isBlank()) {
            b.append(run.description().trim()).append('\n');
        }
        b.append(String.format(Locale.ROOT, "started %s, ended %s: %d of %d cells ran, %s%n", time(run.startedEpochMs()),
                time(run.endedEpochMs()), run.cells().size(), run.cellsPlanned(), run.state()));
        for (CellResult c : run.cells()) {
            b.append('\n').append(cellSummary(c, run.cellsPlanned()));
        }
        b.append('\n').append(table(run));
        if (Repetitions.applies(run)) {
            b.append('\n').append(Repetitions.text(run));
        }
        if (GraphTable.applies(run)) {
            b.append('\n').append(GraphTable.text(run));
        }
        b.append('\n').append("OVERALL ").append(run.verdict().outcome()).append(": ").append(run.verdict().reason())
                .append('\n');
        return b.toString();
    }

    /** One cell: its heading, what the tuner changed, the run's summary or the error. */
    public static String cellSummary(CellResult c, int count) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "== cell %d/%d: %s: %s%n", c.index() + 1, count, c.name(),
                c.verdict().outcome()));
        b.append("# probe ").append(c.probe()).append(", policy ").append(c.policy());
        if (!c.loads().isEmpty()) {
            b.append(", loads ").append(String.join(" ", c.loads()));
        }
        b.append('\n');
        for (Map.Entry<String, String> e : c.policyChanges().entrySet()) {
            b.append("# tuner ").append(e.getKey()).append(": ").append(e.getValue()).append('\n');
        }
        if (c.report() != null) {
            b.append(Reports.summary(c.report()));
            if (c.verdict().outcome() != c.report().verdict().outcome()) {
                b.append("CELL ").append(c.verdict().outcome()).append(": ").append(c.verdict().reason()).append('\n');
            }
        } else {
            b.append("ERROR: ").append(c.error()).append('\n');
        }
        return b.toString();
    }

    /**
     * The comparison table: one row per cell with its axes (for a matrix) or its
     * name, worst delay in microseconds, missed deadlines, overflows and verdict.
     */
    public static String table(PlanRun run) {
        Set<String> axes = new LinkedHashSet<>();
        run.cells().forEach(c -> axes.addAll(c.axes().keySet()));
        List<String[]> rows = new ArrayList<>();
        List<String> head = new ArrayList<>();
        if (axes.isEmpty()) {
            head.add("cell");
        } else {
            head.add("probe");
            head.addAll(axes);
        }
        head.add("worst delay (us)");
        head.add("missed");
        head.add("overflows");
        head.add("verdict");
        rows.add(head.toArray(new String[0]));
        for (CellResult c : run.cells()) {
            List<String> r = new ArrayList<>();
            if (axes.isEmpty()) {
                r.add(c.name());
            } else {
                r.add(c.probe());
                for (String a : axes) {
                    r.add(c.axes().getOrDefault(a, "-"));
                }
            }
            r.add(c.worstUs() < 0 ? "-" : Long.toString(c.worstUs()));
            r.add(c.missedDeadlines() < 0 ? "-" : Long.toString(c.missedDeadlines()));
            r.add(c.overflows() < 0 ? "-" : Long.toString(c.overflows()));
            r.add(c.verdict().outcome().toString());
            rows.add(r.toArray(new String[0]));
        }
        for (int i = run.cells().size(); i < run.cellsPlanned(); i++) {
            List<String> r = new ArrayList<>();
            String name = run.cellNames() != null && i < run.cellNames().size() ? run.cellNames().get(i) : "cell " + (i + 1);
            r.add(name);
            while (r.size() < head.size() - 1) {
                r.add("-");
            }
            r.add("NOT RUN");
            rows.add(r.toArray(new String[0]));
        }
        int[] w = new int[head.size()];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                w[i] = Math.max(w[i], r[i].length());
            }
        }
        StringBuilder b = new StringBuilder();
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                boolean numeric = i >= r.length - 4 && i < r.length - 1;
                boolean last = i + 1 == r.length;
                String f = numeric ? "%" + w[i] + "s" : last ? "%s" : "%-" + w[i] + "s";
                b.append(String.format(Locale.ROOT, f, r[i])).append(last ? "" : "  ");
            }
            b.append('\n');
        }
        return b.toString();
    }

    /**
     * Writes report.txt, report.json (the {@link PlanRun}) and, per cell that ran,
     * cell-N.json in cyclictest's --json shape, into {@code dir}. Returns the files.
     */
    public static List<Path> write(PlanRun run, Path dir) throws IOException {
        Files.createDirectories(dir);
        List<Path> out = new ArrayList<>();
        out.add(write(dir.resolve("report.txt"), text(run)));
        Path json = dir.resolve("report.json");
        try (Writer w = Files.newBufferedWriter(json, StandardCharsets.UTF_8)) {
            json(run, w);
        }
        out.add(json);
        for (CellResult c : run.cells()) {
            if (c.report() != null) {
                out.add(write(dir.resolve("cell-" + (c.index() + 1) + ".json"), Reports.cyclictestJson(c.report())));
            }
        }
        return out;
    }

    private static Path write(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return file;
    }

    static String time(long epochMs) {
        SimpleDateFormat f = new SimpleDateFormat("yyyy-MM-dd HH:mm:ss 'UTC'", Locale.ROOT);
        f.setTimeZone(TimeZone.getTimeZone("UTC"));
        return f.format(new Date(epochMs));
    }
}
