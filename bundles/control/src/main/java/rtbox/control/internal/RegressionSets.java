package rtbox.control.internal;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

import rtbox.api.result.RunReport;
import rtbox.plan.CellResult;
import rtbox.plan.PlanRun;
import rtbox.regression.Comparison;
import rtbox.regression.ComparisonJson;
import rtbox.regression.Regression;
import rtbox.regression.RunFigures;

/**
 * The regression page's question (issue 35 item 2): is set B of runs of a plan worse than set
 * A beyond the runs' own spread? The sets are chosen by hand (appliance/run ids) or by a key
 * (kernel release, rtbox version, firmware image, appliance, model: the last N runs of the plan
 * with each value); the answer is rtbox.regression's, the code {@code rtbox compare} runs,
 * on the runs' stored reports read as {@code rtbox job --report} reads the same messages, plus
 * each set's histograms per cell (summed over its runs) for the page to overlay.
 */
final class RegressionSets {
    /** The keys a set can be chosen by, and where each is read (the run's row or its system block). */
    static final Map<String, String> KEYS = Map.of("kernel", "release", "rtbox_version", "rtbox_version",
            "image", "image", "appliance", "appliance", "model", "model");
    /** Most runs of a plan looked at for a key: the newest first. */
    static final int SCANNED = 2000;
    static final int MAX_LAST = 100;

    private final Db db;

    RegressionSets(Db db) {
        this.db = db;
    }

    /** One set: what it is called and its runs, oldest first ("appliance/run"). */
    record Side(String name, List<String> runs) {
    }

    record Selection(String plan, String key, Side a, Side b) {
    }

    /**
     * The two sets a request names: {@code a} and {@code b} as lists of APPLIANCE/RUN (by
     * hand), or, with {@code key}, the values of the key whose last {@code last} runs of
     * {@code plan} make each set.
     */
    Selection select(String plan, String key, String a, String b, Integer last, String aName, String bName)
            throws SQLException {
        if (a == null || a.isBlank() || b == null || b.isBlank()) {
            throw new BadRequest("give both sets: a and b (APPLIANCE/RUN,... or, with key, a value each)");
        }
        if (key == null || key.isBlank()) {
            return new Selection(plan, null, new Side(name(aName, "A"), ids(a, "a")), new Side(name(bName, "B"),
                    ids(b, "b")));
        }
        if (!KEYS.containsKey(key)) {
            throw new BadRequest("key '" + key + "' is unknown: known are " + new java.util.TreeSet<>(KEYS.keySet()));
        }
        if (plan == null || plan.isBlank()) {
            throw new BadRequest("plan: with a key, name the plan whose runs make the sets");
        }
        int n = last == null ? 5 : last;
        if (n < 1 || n > MAX_LAST) {
            throw new BadRequest("last: " + n + " is out of range 1-" + MAX_LAST);
        }
        List<String> inA = new ArrayList<>(), inB = new ArrayList<>();
        for (String[] r : candidates(plan, key)) {
            if (r[1].equals(a) && inA.size() < n) {
                inA.add(0, r[0]);
            } else if (r[1].equals(b) && inB.size() < n) {
                inB.add(0, r[0]);
            }
        }
        if (inA.isEmpty() || inB.isEmpty()) {
            throw new BadRequest("no run of plan '" + plan + "' with " + key + " '" + (inA.isEmpty() ? a : b) + "'"
                    + " (GET /api/v1/regression/values?plan=...&key=" + key + " lists them)");
        }
        return new Selection(plan, key, new Side(name(aName, key + " " + a), inA), new Side(name(bName, key + " " + b),
                inB));
    }

    /** Each value of {@code key} among the runs of {@code plan}, with its number of runs and its newest. */
    JsonObject values(String plan, String key) throws SQLException {
        if (key == null || !KEYS.containsKey(key)) {
            throw new BadRequest("key: one of " + new java.util.TreeSet<>(KEYS.keySet()));
        }
        if (plan == null || plan.isBlank()) {
            throw new BadRequest("plan: name the plan");
        }
        Map<String, JsonObject> by = new LinkedHashMap<>();
        for (String[] r : candidates(plan, key)) {
            JsonObject v = by.computeIfAbsent(r[1], k -> {
                JsonObject o = new JsonObject();
                o.addProperty("value", k);
                o.addProperty("runs", 0);
                o.addProperty("newest", r[0]);
                return o;
            });
            v.addProperty("runs", Json.integer(v, "runs") + 1);
        }
        JsonArray a = new JsonArray();
        by.values().forEach(a::add);
        JsonObject o = new JsonObject();
        o.addProperty("plan", plan);
        o.addProperty("key", key);
        o.add("values", a);
        return o;
    }

    /** The plans that have runs, for the page's choice. */
    JsonObject plans() throws SQLException {
        try (Connection c = db.connection()) {
            JsonArray a = new JsonArray();
            Sql.list(c, "SELECT DISTINCT plan FROM run WHERE plan IS NOT NULL AND verdict IS NOT NULL AND "
                    + Registry.COUNTS + " ORDER BY plan", rs -> rs.getString(1)).forEach(a::add);
            JsonObject o = new JsonObject();
            o.add("plans", a);
            o.add("keys", Json.GSON.toJsonTree(new java.util.TreeSet<>(KEYS.keySet())));
            return o;
        }
    }

    /** The comparison of the two sets, with the sets and their histograms per cell. */
    JsonObject compare(Selection s) throws SQLException {
        List<RunFigures> a = new ArrayList<>(), b = new ArrayList<>();
        Map<String, JsonObject> histA = new LinkedHashMap<>(), histB = new LinkedHashMap<>();
        for (String id : s.a().runs()) {
            a.addAll(figures(id, histA));
        }
        for (String id : s.b().runs()) {
            b.addAll(figures(id, histB));
        }
        Comparison c;
        try {
            c = Regression.compare(a, b);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        }
        JsonObject o = ComparisonJson.of(c);
        o.add("a", side(s.a()));
        o.add("b", side(s.b()));
        o.addProperty("key", s.key());
        JsonObject h = new JsonObject();
        for (String cell : union(histA, histB)) {
            JsonObject both = new JsonObject();
            both.add("a", histA.get(cell));
            both.add("b", histB.get(cell));
            h.add(cell, both);
        }
        o.add("histograms", h);
        return o;
    }

    private static JsonObject side(Side s) {
        JsonObject o = new JsonObject();
        o.addProperty("name", s.name());
        o.add("runs", Json.GSON.toJsonTree(s.runs()));
        return o;
    }

    /**
     * One stored run as the runs of a set it holds (one per repetition), read as rtbox.job's
     * report reads its messages: each cell message's report, strictly, under its cell name. Its
     * cells' histograms are added to {@code histograms}.
     */
    private List<RunFigures> figures(String id, Map<String, JsonObject> histograms) throws SQLException {
        String[] ar = split(id);
        try (Connection c = db.connection()) {
            Object[] row = Sql.one(c, "SELECT kind, plan FROM run WHERE appliance = ? AND run_id = ?",
                    rs -> new Object[] {rs.getString(1), rs.getString(2)}, ar[0], ar[1]);
            if (row == null) {
                throw new NotFound("no run '" + ar[1] + "' of appliance '" + ar[0] + "'");
            }
            List<CellResult> cells = new ArrayList<>();
            for (byte[] p : Sql.list(c, "SELECT payload FROM message WHERE appliance = ? AND run_id = ? AND type IN"
                    + " ('cell', 'result') ORDER BY seq", rs -> rs.getBytes(1), ar[0], ar[1])) {
                JsonObject j = Json.parse(new String(p, StandardCharsets.UTF_8));
                JsonObject report = Json.object(j, "report");
                if (report == null) {
                    continue; // a plan's result message: its cells came as cell messages
                }
                String name = Json.string(j, "cell_name") != null ? Json.string(j, "cell_name")
                        : Json.string(j, "probe");
                RunReport r = Downloads.report(name, report);
                cells.add(new CellResult(cells.size(), name, Map.of(), r.result() == null ? name : r.result().probe(),
                        null, List.of(), Map.of(), 0, 0, r, r.verdict(), null));
                add(histograms, name, Cells.view(j, 0));
            }
            if (cells.isEmpty()) {
                throw new BadRequest("run '" + id + "' has no measured cell stored");
            }
            boolean plan = "plan".equals(row[0]);
            PlanRun run = new PlanRun(PlanRun.SCHEMA, ar[1], plan ? (String) row[1] : null, null, null, null, 0, 0,
                    cells.size(), cells.stream().map(CellResult::name).toList(), PlanRun.COMPLETE, cells,
                    cells.get(0).verdict());
            return plan ? RunFigures.repetitions(run, id) : List.of(RunFigures.of(cells.get(0).report(), id));
        }
    }

    /** A cell's histogram added to its set's: counts summed bucket by bucket (same bucket width), extremes kept. */
    private static void add(Map<String, JsonObject> sets, String cell, JsonObject view) {
        JsonArray counts = Json.array(view, "histogram");
        Double bucket = Json.number(view, "histogram_bucket_us");
        if (counts == null || bucket == null) {
            return;
        }
        JsonObject s = sets.get(cell);
        if (s == null) {
            s = new JsonObject();
            s.addProperty("histogram_bucket_us", bucket);
            s.add("histogram", counts.deepCopy());
            s.add("min_us", view.get("min_us"));
            s.add("max_us", view.get("max_us"));
            s.add("overflows", view.get("overflows"));
            s.addProperty("runs", 1);
            sets.put(cell, s);
            return;
        }
        if (!bucket.equals(Json.number(s, "histogram_bucket_us"))) {
            return; // another bucket width cannot be summed; the figures still count in the comparison
        }
        JsonArray sum = s.getAsJsonArray("histogram");
        for (int i = 0; i < counts.size(); i++) {
            // A stored histogram's counts, exactly: a count of 2.5 is an error naming it, not 2.
            long v = Json.whole(counts.get(i), "$.histogram[" + i + "]", 0, Long.MAX_VALUE);
            if (i < sum.size()) {
                long had = Json.whole(sum.get(i), "$.histogram[" + i + "]", 0, Long.MAX_VALUE);
                sum.set(i, new com.google.gson.JsonPrimitive(had + v));
            } else {
                sum.add(v);
            }
        }
        keep(s, view, "min_us", Math::min);
        keep(s, view, "max_us", Math::max);
        Double o = Json.number(view, "overflows"), so = Json.number(s, "overflows");
        s.addProperty("overflows", (o == null ? 0 : o) + (so == null ? 0 : so));
        s.addProperty("runs", Json.integer(s, "runs") + 1);
    }

    private static void keep(JsonObject s, JsonObject view, String key, java.util.function.DoubleBinaryOperator f) {
        Double v = Json.number(view, key), have = Json.number(s, key);
        if (v != null) {
            s.addProperty(key, have == null ? v : f.applyAsDouble(have, v));
        }
    }

    /**
     * The runs of {@code plan} newest first, each as {appliance/run, its value of key}: the
     * appliance and model from the run's row, the rest from its first cell's system block.
     */
    private List<String[]> candidates(String plan, String key) throws SQLException {
        String where = KEYS.get(key);
        try (Connection c = db.connection()) {
            List<String[]> runs = Sql.list(c, "SELECT appliance, run_id, model FROM run WHERE plan = ? AND verdict IS"
                    + " NOT NULL AND " + Registry.COUNTS + " ORDER BY COALESCE(started_ms, first_seen_ms) DESC, run_id"
                    + " DESC LIMIT " + SCANNED, rs -> new String[] {rs.getString(1), rs.getString(2), rs.getString(3)},
                    plan);
            List<String[]> out = new ArrayList<>();
            for (String[] r : runs) {
                String value = switch (where) {
                    case "appliance" -> r[0];
                    case "model" -> r[2];
                    default -> system(c, r[0], r[1], where);
                };
                if (value != null && !value.isEmpty()) {
                    out.add(new String[] {r[0] + "/" + r[1], value});
                }
            }
            return out;
        }
    }

    private static String system(Connection c, String appliance, String run, String value) throws SQLException {
        byte[] p = Sql.one(c, "SELECT payload FROM message WHERE appliance = ? AND run_id = ? AND type IN ('cell',"
                + " 'result') ORDER BY seq LIMIT 1", rs -> rs.getBytes(1), appliance, run);
        if (p == null) {
            return null;
        }
        JsonObject j = Json.parse(new String(p, StandardCharsets.UTF_8));
        return Json.string(Json.object(Json.object(Json.object(j, "report"), "system"), "values"), value);
    }

    private static List<String> ids(String list, String which) {
        List<String> out = new ArrayList<>();
        for (String s : list.split(",")) {
            if (!s.isBlank()) {
                split(s.strip());
                out.add(s.strip());
            }
        }
        if (out.size() > MAX_LAST) {
            throw new BadRequest(which + ": at most " + MAX_LAST + " runs in a set, not " + out.size());
        }
        return out;
    }

    private static String[] split(String id) {
        int slash = id.indexOf('/');
        if (slash <= 0 || slash == id.length() - 1) {
            throw new BadRequest("'" + id + "' is not APPLIANCE/RUN");
        }
        return new String[] {id.substring(0, slash), id.substring(slash + 1)};
    }

    private static String name(String given, String otherwise) {
        return given == null || given.isBlank() ? otherwise : given.strip();
    }

    private static List<String> union(Map<String, JsonObject> a, Map<String, JsonObject> b) {
        java.util.LinkedHashSet<String> s = new java.util.LinkedHashSet<>(a.keySet());
        s.addAll(b.keySet());
        return new ArrayList<>(s);
    }
}
