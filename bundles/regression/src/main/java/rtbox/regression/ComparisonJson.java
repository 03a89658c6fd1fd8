package rtbox.regression;

import java.util.List;
import java.util.Locale;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

/**
 * A {@link Comparison} as JSON, for every front end that answers in JSON (the control room's
 * {@code GET /api/v1/regression}, docs/control-api.md): the same numbers as {@code rtbox compare}
 * prints, unrounded, a figure that cannot be told (NaN) as null.
 *
 * @since 1.1
 */
public final class ComparisonJson {
    private ComparisonJson() {
    }

    public static JsonObject of(Comparison c) {
        JsonObject o = new JsonObject();
        o.addProperty("plan", c.plan());
        o.add("runs_a", strings(c.runsA()));
        o.add("runs_b", strings(c.runsB()));
        o.addProperty("confidence", c.confidence());
        o.addProperty("resamples", c.resamples());
        o.addProperty("min_runs", Regression.MIN_RUNS);
        o.addProperty("verdict", c.verdict().label());
        o.addProperty("summary", summary(c));
        JsonArray changes = new JsonArray();
        for (Change x : c.changes()) {
            JsonObject j = new JsonObject();
            j.addProperty("cell", x.cell());
            j.addProperty("figure", x.figure().label());
            j.addProperty("unit", x.figure().unit());
            j.addProperty("n_a", x.runsA());
            j.addProperty("n_b", x.runsB());
            number(j, "mean_a", x.meanA());
            number(j, "mean_b", x.meanB());
            number(j, "difference", x.difference());
            number(j, "low", x.low());
            number(j, "high", x.high());
            number(j, "effect_size", x.effectSize());
            number(j, "relative", x.relative());
            number(j, "p", x.pValue());
            j.addProperty("verdict", x.verdict().label());
            j.addProperty("runs_needed", x.runsNeeded());
            changes.add(j);
        }
        o.add("changes", changes);
        o.add("notes", strings(c.notes()));
        return o;
    }

    /**
     * The comparison in one sentence, as an acceptance record carries it: "NO CHANGE beyond
     * noise at p50, p99, p99.9, max, missed deadlines (99 %), n = 5 + 5", or which figures of
     * which cells regressed or could not be told.
     */
    public static String summary(Comparison c) {
        String n = "n = " + c.runsA().size() + " + " + c.runsB().size();
        String level = String.format(Locale.ROOT, "%s %%", format(c.confidence() * 100));
        return switch (c.verdict()) {
            case NO_CHANGE -> "NO CHANGE beyond noise in any figure of any cell (" + level + "), " + n;
            case IMPROVED -> "IMPROVED beyond noise at " + which(c, Verdict.IMPROVED) + " (" + level
                    + "), no figure regressed, " + n;
            case REGRESSED -> "REGRESSED beyond noise at " + which(c, Verdict.REGRESSED) + " (" + level + "), " + n;
            case TOO_FEW_RUNS -> "TOO FEW RUNS to tell at " + which(c, Verdict.TOO_FEW_RUNS) + ": at least "
                    + Regression.MIN_RUNS + " per set, " + n;
        };
    }

    private static String which(Comparison c, Verdict v) {
        boolean oneCell = c.changes().stream().map(Change::cell).distinct().count() == 1;
        return String.join(", ", c.changes().stream().filter(x -> x.verdict() == v)
                .map(x -> oneCell ? x.figure().label() : x.cell() + " " + x.figure().label()).toList());
    }

    /**
     * A figure as people read it in every front end ({@code rtbox compare}'s table, the record's
     * sentence, the control room's page by the same rule): whole at 100 and above or when whole,
     * else to one decimal; "-" for NaN.
     */
    public static String format(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        return Math.abs(v) >= 100 || v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v)
                : String.format(Locale.ROOT, "%.1f", v);
    }

    private static void number(JsonObject o, String key, double v) {
        if (Double.isFinite(v)) {
            o.addProperty(key, v);
        } else {
            o.add(key, com.google.gson.JsonNull.INSTANCE);
        }
    }

    private static JsonArray strings(List<String> l) {
        JsonArray a = new JsonArray();
        l.forEach(a::add);
        return a;
    }
}
