package rtbox.control.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * Golden references (a cell of a run standing for a controller model, plan and cell, with
 * a tolerance band) and the comparison of a run with another run or with its references:
 * deltas at p99, p99.9, max and missed deadlines, and whether each cell is inside the
 * envelope.
 *
 * <p>A reference is made only from a complete run whose verdict is PASS; any other run
 * needs an admin's override reason, audited and kept with the reference. The envelope is
 * an extra check, never a verdict of its own: a cell that failed its thresholds reads
 * "FAIL; inside the envelope", never PASS.
 */
final class Compare {
    private static final String[] FIGURES = {"p99_us", "p999_us", "max_us"};
    private final Db db;
    private final Queries queries;

    Compare(Db db, Queries queries) {
        this.db = db;
        this.queries = queries;
    }

    static JsonObject defaultTolerance() {
        JsonObject t = new JsonObject();
        t.addProperty("p99_pct", 20);
        t.addProperty("p99_us", 5);
        t.addProperty("p999_pct", 20);
        t.addProperty("p999_us", 10);
        t.addProperty("max_pct", 50);
        t.addProperty("max_us", 20);
        t.addProperty("missed", 0);
        return t;
    }

    /** The tolerance asked for, each key checked, the defaults for the rest. */
    static JsonObject tolerance(JsonObject asked) {
        JsonObject t = defaultTolerance();
        if (asked != null) {
            for (Map.Entry<String, JsonElement> e : asked.entrySet()) {
                if (!t.has(e.getKey())) {
                    throw new BadRequest("tolerance." + e.getKey() + " is unknown (known: " + t.keySet() + ")");
                }
                Double v = Json.number(asked, e.getKey());
                if (v == null || v < 0) {
                    throw new BadRequest("tolerance." + e.getKey() + " must be a number >= 0, not " + e.getValue());
                }
                t.addProperty(e.getKey(), v);
            }
        }
        return t;
    }

    JsonObject setReference(String user, JsonObject req) throws SQLException {
        String appliance = Json.string(req, "appliance"), run = Json.string(req, "run");
        JsonObject r = queries.run(appliance, run);
        String model = Json.string(req, "model") != null ? Json.string(req, "model") : Json.string(r, "model");
        String plan = Json.string(r, "plan");
        if (model == null || model.isEmpty()) {
            throw new BadRequest("model: the run has none; give the controller model");
        }
        if (plan == null) {
            throw new BadRequest("the run has no plan name");
        }
        JsonObject tolerance = tolerance(Json.object(req, "tolerance"));
        String override = Json.string(req, "override_reason");
        override = override == null || override.isBlank() ? null : override.strip();
        if (override != null && override.length() > 500) {
            throw new BadRequest("override_reason: at most 500 characters, not " + override.length());
        }
        if (!(r.has("registered") && r.get("registered").getAsBoolean())) {
            // No override: a run of an appliance nobody accepted is nobody's reference.
            JsonObject d = new JsonObject();
            d.addProperty("run", run);
            d.addProperty("reason", "the appliance is not registered");
            audit(user, "reference-refused", appliance, d);
            throw new BadRequest(409, "refused: appliance '" + appliance + "' is not registered: an admin accepts it"
                    + " first (POST /api/v1/appliances/" + appliance + "/accept)");
        }
        String unfit = unfit(r);
        if (unfit != null && override == null) {
            JsonObject d = new JsonObject();
            d.addProperty("run", run);
            d.addProperty("reason", unfit);
            audit(user, "reference-refused", appliance, d);
            throw new BadRequest(409, "refused: a golden reference comes only from a complete PASS run, and " + unfit
                    + "; an admin may give override_reason to make it one anyway (audited, shown with the reference)");
        }
        if (unfit == null) {
            override = null; // nothing to override
        }
        JsonArray wanted = Json.array(req, "cells");
        JsonArray made = new JsonArray();
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            for (JsonElement e : r.getAsJsonArray("cells")) {
                String cell = Json.string(e.getAsJsonObject(), "name");
                if (wanted != null && !wanted.contains(new com.google.gson.JsonPrimitive(cell))) {
                    continue;
                }
                Sql.update(c, "UPDATE golden SET active = FALSE WHERE model = ? AND plan = ? AND cell = ? AND active",
                        model, plan, cell);
                Sql.update(c, "INSERT INTO golden (model, plan, cell, appliance, run_id, tolerance, created_ms,"
                        + " created_by, active, override_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, TRUE, ?)", model, plan,
                        cell, appliance, run, Json.GSON.toJson(tolerance), System.currentTimeMillis(), user, override);
                JsonObject d = new JsonObject();
                d.addProperty("model", model);
                d.addProperty("plan", plan);
                d.addProperty("cell", cell);
                d.addProperty("run", run);
                d.add("tolerance", tolerance);
                if (override != null) {
                    d.addProperty("override_reason", override);
                    d.addProperty("overrides", unfit);
                }
                Audit.log(c, user, override != null ? "reference-override" : "reference-set", appliance, d);
                made.add(cell);
            }
            if (made.isEmpty()) {
                c.rollback();
                throw new BadRequest("no cell of that run matched " + wanted);
            }
            c.commit();
        }
        return references(model, plan);
    }

    /** Why a run cannot be a golden reference without an override, null when it can: a complete PASS. */
    static String unfit(JsonObject run) {
        String verdict = Json.string(run, "verdict");
        if (!"PASS".equals(verdict)) {
            return "run " + Json.string(run, "run") + "'s verdict is " + (verdict == null ? "not in yet" : verdict);
        }
        if (!"complete".equals(Json.string(run, "state"))) {
            return "run " + Json.string(run, "run") + " did not run to its end (" + Json.string(run, "state") + ")";
        }
        JsonObject m = Json.object(run, "messages");
        if (m == null || m.get("complete") == null || !m.get("complete").getAsBoolean()) {
            return "messages of run " + Json.string(run, "run") + " are missing " + (m == null ? "" : m.get("missing"));
        }
        return null;
    }

    private void audit(String user, String action, String target, JsonObject d) throws SQLException {
        try (Connection c = db.connection()) {
            Audit.log(c, user, action, target, d);
        }
    }

    /** An admin changes a reference's tolerance band; audited with the old and the new. */
    JsonObject setTolerance(String user, long id, JsonObject req) throws SQLException {
        JsonObject tolerance = tolerance(Json.object(req, "tolerance"));
        if (Json.object(req, "tolerance") == null) {
            throw new BadRequest("tolerance: give the band, e.g. {\"max_pct\":50,\"max_us\":20}");
        }
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            String old = Sql.one(c, "SELECT tolerance FROM golden WHERE id = ? AND active", rs -> rs.getString(1), id);
            if (old == null) {
                throw new NotFound("no active reference " + id);
            }
            Sql.update(c, "UPDATE golden SET tolerance = ? WHERE id = ?", Json.GSON.toJson(tolerance), id);
            JsonObject d = new JsonObject();
            d.add("from", Json.parse(old));
            d.add("to", tolerance);
            Audit.log(c, user, "reference-tolerance", Long.toString(id), d);
            c.commit();
        }
        return tolerance;
    }

    void deleteReference(String user, long id) throws SQLException {
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            if (Sql.update(c, "UPDATE golden SET active = FALSE WHERE id = ? AND active", id) == 0) {
                throw new NotFound("no active reference " + id);
            }
            Audit.log(c, user, "reference-delete", Long.toString(id), null);
            c.commit();
        }
    }

    JsonObject references(String model, String plan) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT g.id, g.model, g.plan, g.cell, g.appliance, g.run_id, g.tolerance,"
                + " g.created_ms, g.created_by, g.override_reason, c.p99_us, c.p999_us, c.max_us, c.missed FROM golden g"
                + " LEFT JOIN cell c"
                + " ON c.appliance = g.appliance AND c.run_id = g.run_id AND c.name = g.cell WHERE g.active");
        List<Object> p = new java.util.ArrayList<>();
        if (model != null && !model.isEmpty()) {
            sql.append(" AND g.model = ?");
            p.add(model);
        }
        if (plan != null && !plan.isEmpty()) {
            sql.append(" AND g.plan = ?");
            p.add(plan);
        }
        sql.append(" ORDER BY g.model, g.plan, g.id");
        try (Connection c = db.connection()) {
            JsonArray a = new JsonArray();
            Sql.list(c, sql.toString(), rs -> {
                JsonObject g = new JsonObject();
                g.addProperty("id", rs.getLong("id"));
                g.addProperty("model", rs.getString("model"));
                g.addProperty("plan", rs.getString("plan"));
                g.addProperty("cell", rs.getString("cell"));
                g.addProperty("appliance", rs.getString("appliance"));
                g.addProperty("run", rs.getString("run_id"));
                g.add("tolerance", Json.parse(rs.getString("tolerance")));
                g.addProperty("created", Json.iso(rs.getLong("created_ms")));
                g.addProperty("created_by", rs.getString("created_by"));
                g.addProperty("override_reason", rs.getString("override_reason"));
                g.addProperty("p99_us", Sql.doubleOrNull(rs, "p99_us"));
                g.addProperty("p999_us", Sql.doubleOrNull(rs, "p999_us"));
                g.addProperty("max_us", Sql.doubleOrNull(rs, "max_us"));
                g.addProperty("missed_deadlines", Sql.longOrNull(rs, "missed"));
                return g;
            }, p.toArray()).forEach(a::add);
            JsonObject o = new JsonObject();
            o.add("references", a);
            return o;
        }
    }

    private static String[] split(String ref, String what) {
        int slash = ref == null ? -1 : ref.indexOf('/');
        if (slash <= 0 || slash == ref.length() - 1) {
            throw new BadRequest(what + " must be APPLIANCE/RUN, not '" + ref + "'");
        }
        return new String[] {ref.substring(0, slash), ref.substring(slash + 1)};
    }

    private Map<String, JsonObject> cellsByName(String appliance, String run) throws SQLException {
        Map<String, JsonObject> m = new LinkedHashMap<>();
        for (JsonElement e : queries.run(appliance, run).getAsJsonArray("cells")) {
            JsonObject c = e.getAsJsonObject();
            m.put(Json.string(c, "name"), c);
        }
        return m;
    }

    private static JsonObject figures(JsonObject cell) {
        JsonObject f = new JsonObject();
        // min and p50 too: the compare page's legend shows min/p50/p99/p99.9/max of each side.
        for (String k : new String[] {"samples", "min_us", "p50_us", "p99_us", "p999_us", "max_us", "overflows",
            "missed_deadlines", "histogram_bucket_us", "histogram", "verdict"}) {
            f.add(k, cell.get(k));
        }
        return f;
    }

    JsonObject compare(String aRef, String bRef, String reference) throws SQLException {
        String[] a = split(aRef, "a");
        Map<String, JsonObject> aCells = cellsByName(a[0], a[1]);
        JsonObject o = new JsonObject();
        JsonObject aId = new JsonObject();
        aId.addProperty("appliance", a[0]);
        aId.addProperty("run", a[1]);
        o.add("a", aId);
        JsonArray cells = new JsonArray();
        boolean inside = true;
        if (bRef != null && !bRef.isEmpty()) {
            String[] b = split(bRef, "b");
            Map<String, JsonObject> bCells = cellsByName(b[0], b[1]);
            JsonObject bId = new JsonObject();
            bId.addProperty("appliance", b[0]);
            bId.addProperty("run", b[1]);
            o.add("b", bId);
            for (Map.Entry<String, JsonObject> e : aCells.entrySet()) {
                JsonObject bc = bCells.get(e.getKey());
                cells.add(cell(e.getKey(), e.getValue(), bc, null));
            }
            o.add("cells", cells);
            return o;
        }
        if (reference == null || reference.isEmpty()) {
            throw new BadRequest("give b=APPLIANCE/RUN or reference=golden|ID");
        }
        JsonObject run = queries.run(a[0], a[1]);
        JsonArray refs;
        if (reference.equals("golden")) {
            String model = Json.string(run, "model");
            if (model == null) {
                throw new BadRequest("the run has no controller model, so it has no golden reference");
            }
            refs = references(model, Json.string(run, "plan")).getAsJsonArray("references");
            if (refs.isEmpty()) {
                throw new NotFound("no golden reference for model '" + model + "' and plan '" + Json.string(run, "plan")
                        + "'");
            }
        } else {
            long id;
            try {
                id = Long.parseLong(reference);
            } catch (NumberFormatException e) {
                throw new BadRequest("reference must be golden or a reference id, not '" + reference + "'");
            }
            refs = new JsonArray();
            for (JsonElement g : references(null, null).getAsJsonArray("references")) {
                if (Long.valueOf(id).equals(Json.whole(g.getAsJsonObject(), "id"))) {
                    refs.add(g);
                }
            }
            if (refs.isEmpty()) {
                throw new NotFound("no active reference " + id);
            }
        }
        JsonArray used = new JsonArray();
        for (JsonElement g : refs) {
            JsonObject ref = g.getAsJsonObject();
            used.add(ref);
            String name = Json.string(ref, "cell");
            JsonObject refCell = cellsByName(Json.string(ref, "appliance"), Json.string(ref, "run")).get(name);
            JsonObject c = cell(name, aCells.get(name), refCell, Json.object(ref, "tolerance"));
            inside &= c.getAsJsonObject("envelope").get("inside").getAsBoolean();
            cells.add(c);
        }
        o.add("reference", used);
        o.add("cells", cells);
        o.addProperty("inside", inside);
        // The run's own verdict first, the envelope beside it: inside the envelope never makes a FAIL a PASS.
        String verdict = Json.string(run, "verdict");
        o.addProperty("verdict", verdict);
        o.addProperty("reading", reading(verdict, inside));
        return o;
    }

    /** "PASS; inside the envelope", "FAIL; inside the envelope", ...: the verdict first, never replaced. */
    static String reading(String verdict, boolean inside) {
        return (verdict == null ? "no verdict" : verdict) + "; " + (inside ? "inside" : "outside") + " the envelope";
    }

    private static JsonObject cell(String name, JsonObject a, JsonObject b, JsonObject tolerance) {
        JsonObject c = new JsonObject();
        c.addProperty("name", name);
        c.add("a", a == null ? null : figures(a));
        c.add("b", b == null ? null : figures(b));
        if (a != null && b != null) {
            JsonObject d = new JsonObject(), pct = new JsonObject();
            for (String f : FIGURES) {
                Double x = Json.number(a, f), y = Json.number(b, f);
                d.addProperty(f, x == null || y == null ? null : x - y);
                pct.addProperty(f, x == null || y == null || y == 0 ? null : 100 * (x - y) / y);
            }
            Double ma = Json.number(a, "missed_deadlines"), mb = Json.number(b, "missed_deadlines");
            d.addProperty("missed_deadlines", ma == null || mb == null ? null : ma - mb);
            c.add("delta", d);
            c.add("delta_pct", pct);
        }
        if (tolerance != null) {
            JsonObject env = new JsonObject();
            JsonArray outside = new JsonArray();
            if (a == null) {
                outside.add("the run has no cell '" + name + "'");
            } else if (b == null) {
                outside.add("the reference's cell '" + name + "' is missing");
            } else {
                String[][] keys = {{"p99_us", "p99"}, {"p999_us", "p999"}, {"max_us", "max"}};
                for (String[] k : keys) {
                    Double x = Json.number(a, k[0]), y = Json.number(b, k[0]);
                    if (x == null || y == null) {
                        outside.add(k[0] + " is missing");
                        continue;
                    }
                    double limit = y * (1 + Json.number(tolerance, k[1] + "_pct") / 100) + Json.number(tolerance,
                            k[1] + "_us");
                    if (x > limit) {
                        outside.add(String.format(java.util.Locale.ROOT, "%s %.1f us > %.1f us (reference %.1f us + %s %%"
                                + " + %s us)", k[0], x, limit, y, Json.number(tolerance, k[1] + "_pct"),
                                Json.number(tolerance, k[1] + "_us")));
                    }
                }
                Double ma = Json.number(a, "missed_deadlines"), mb = Json.number(b, "missed_deadlines");
                double allowed = (mb == null ? 0 : mb) + Json.number(tolerance, "missed");
                if (ma != null && ma > allowed) {
                    outside.add(String.format(java.util.Locale.ROOT, "missed_deadlines %.0f > %.0f", ma, allowed));
                }
            }
            env.addProperty("inside", outside.isEmpty());
            env.addProperty("reading", reading(a == null ? null : Json.string(a, "verdict"), outside.isEmpty()));
            env.add("tolerance", tolerance);
            env.add("outside", outside);
            c.add("envelope", env);
        }
        return c;
    }
}
