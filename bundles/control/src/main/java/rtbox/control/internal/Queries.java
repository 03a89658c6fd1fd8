package rtbox.control.internal;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * The read side of docs/control-api.md: fleet, appliances, runs, a run, history.
 * Over 400 lines: every page's read query side by side, sharing the column lists and row mappers.
 */
final class Queries {
    private final Db db;

    Queries(Db db) {
        this.db = db;
    }

    static String state(ResultSet rs) throws SQLException {
        return "offline".equals(rs.getString("state")) ? "offline" : rs.getBoolean("busy") ? "busy" : "online";
    }

    private static final String FLEET_COLUMNS = "id, site, line, state, busy, run_id, since_ms, last_seen_ms, kernel,"
            + " bundles, last_run, last_verdict, status, registered, registered_by, registered_ms";

    private static JsonObject fleetRow(ResultSet rs) throws SQLException {
        JsonObject o = new JsonObject();
        o.addProperty("id", rs.getString("id"));
        o.addProperty("site", rs.getString("site"));
        o.addProperty("line", rs.getString("line"));
        o.addProperty("state", state(rs));
        o.addProperty("last_seen", Json.iso(rs.getLong("last_seen_ms")));
        o.addProperty("since", Json.iso(rs.getLong("since_ms")));
        o.addProperty("run", rs.getString("run_id"));
        JsonObject status = Json.parse(rs.getString("status"));
        if (status != null && rs.getBoolean("busy")) {
            for (String f : new String[] {"plan", "cell", "cells", "cell_percent", "probe"}) {
                if (status.has(f)) {
                    o.add(f, status.get(f));
                }
            }
        }
        if (status != null && status.has("outbox_messages")) {
            o.add("outbox_messages", status.get("outbox_messages"));
        }
        if (status != null && status.has("rtbox_version")) {
            // The appliance's rtbox and commit (rtbox.mqtt.protocol 1.1), absent from older ones and when offline.
            o.add("rtbox_version", status.get("rtbox_version"));
        }
        o.addProperty("kernel", rs.getString("kernel"));
        JsonArray bundles = new JsonArray();
        String b = rs.getString("bundles");
        if (b != null) {
            for (JsonElement e : Json.element(b).getAsJsonArray()) {
                JsonObject in = e.getAsJsonObject();
                JsonObject out = new JsonObject();
                out.add("symbolicName", in.get("symbolicName"));
                out.add("version", in.get("version"));
                out.add("sha256", in.has("sha256") ? in.get("sha256") : null);
                bundles.add(out);
            }
        }
        o.add("bundles", bundles);
        boolean registered = Registry.addRegistration(o, rs);
        // An unregistered appliance's verdict is not the fleet's: its runs are on its own page.
        o.addProperty("last_run", registered ? rs.getString("last_run") : null);
        o.addProperty("last_verdict", registered ? rs.getString("last_verdict") : null);
        return o;
    }

    JsonObject fleet(String site, String line, String state, String q, int offset, int limit) throws SQLException {
        StringBuilder where = new StringBuilder(" WHERE 1=1");
        List<Object> p = new ArrayList<>();
        if (site != null && !site.isEmpty()) {
            where.append(" AND site = ?");
            p.add(site);
        }
        if (line != null && !line.isEmpty()) {
            where.append(" AND line = ?");
            p.add(line);
        }
        if (q != null && !q.isEmpty()) {
            where.append(" AND id LIKE ?");
            p.add("%" + q.replace("%", "").replace("_", "") + "%");
        }
        String countWhere = where.toString();
        List<Object> countParams = new ArrayList<>(p);
        if (state != null && !state.isEmpty()) {
            switch (state) {
                case "offline" -> where.append(" AND registered AND state = 'offline'");
                case "busy" -> where.append(" AND registered AND state <> 'offline' AND busy");
                case "online" -> where.append(" AND registered AND state <> 'offline' AND NOT busy");
                case "unregistered" -> where.append(" AND NOT registered");
                default -> throw new BadRequest("state '" + state + "' is not online, busy, offline or unregistered");
            }
        }
        try (Connection c = db.connection()) {
            JsonObject o = new JsonObject();
            o.addProperty("total", Sql.count(c, "SELECT COUNT(*) FROM appliance" + where, p.toArray()));
            o.addProperty("offset", offset);
            o.addProperty("limit", limit);
            JsonObject counts = new JsonObject();
            counts.addProperty("online", 0);
            counts.addProperty("busy", 0);
            counts.addProperty("offline", 0);
            counts.addProperty("unregistered", 0);
            for (Object[] r : Sql.list(c, "SELECT state, busy, registered, COUNT(*) FROM appliance" + countWhere
                    + " GROUP BY state, busy, registered", rs -> new Object[] {!rs.getBoolean(3) ? "unregistered"
                        : "offline".equals(rs.getString(1)) ? "offline" : rs.getBoolean(2) ? "busy" : "online",
                        rs.getLong(4)}, countParams.toArray())) {
                String k = (String) r[0];
                counts.addProperty(k, Json.whole(counts, k) + (Long) r[1]);
            }
            o.add("counts", counts);
            List<Object> pp = new ArrayList<>(p);
            pp.add(limit);
            pp.add(offset);
            JsonArray rows = new JsonArray();
            Sql.list(c, "SELECT " + FLEET_COLUMNS + " FROM appliance" + where + " ORDER BY id LIMIT ? OFFSET ?",
                    Queries::fleetRow, pp.toArray()).forEach(rows::add);
            o.add("appliances", rows);
            return o;
        }
    }

    JsonObject appliance(String id) throws SQLException {
        try (Connection c = db.connection()) {
            JsonObject o = Sql.one(c, "SELECT " + FLEET_COLUMNS + ", selftest, readiness FROM appliance WHERE id = ?", rs -> {
                JsonObject r = fleetRow(rs);
                JsonObject status = Json.parse(rs.getString("status"));
                r.add("status", status);
                r.add("probes", status != null ? status.get("probes") : null);
                r.add("workloads", status != null ? status.get("workloads") : null);
                r.add("selftest", Json.parse(rs.getString("selftest")));
                r.add("readiness", Json.parse(rs.getString("readiness")));
                return r;
            }, id);
            if (o == null) {
                throw new NotFound("no appliance '" + id + "'");
            }
            o.add("runs", runs(c, id, null, null, null, null, 0, 20).get("runs"));
            return o;
        }
    }

    JsonObject runs(String appliance, String serial, String model, String plan, String verdict, int offset, int limit)
            throws SQLException {
        try (Connection c = db.connection()) {
            return runs(c, appliance, serial, model, plan, verdict, offset, limit);
        }
    }

    private static final String RUN_COLUMNS = "appliance, run_id, kind, plan, verdict, reason, state, started_ms,"
            + " ended_ms, cells_planned, result_seq, serial, model, started_by, plan_sha256, first_seen_ms";

    private JsonObject runs(Connection c, String appliance, String serial, String model, String plan, String verdict,
            int offset, int limit) throws SQLException {
        StringBuilder where = new StringBuilder(" WHERE 1=1");
        List<Object> p = new ArrayList<>();
        String[][] filters = {{"appliance", appliance}, {"serial", serial}, {"model", model}, {"plan", plan},
            {"verdict", verdict}};
        for (String[] f : filters) {
            if (f[1] != null && !f[1].isEmpty()) {
                where.append(" AND ").append(f[0]).append(" = ?");
                p.add(f[1]);
            }
        }
        if (appliance == null || appliance.isEmpty()) {
            where.append(" AND ").append(Registry.COUNTS);
        }
        JsonObject o = new JsonObject();
        o.addProperty("total", Sql.count(c, "SELECT COUNT(*) FROM run" + where, p.toArray()));
        o.addProperty("offset", offset);
        o.addProperty("limit", limit);
        p.add(limit);
        p.add(offset);
        JsonArray rows = new JsonArray();
        for (JsonObject r : Sql.list(c, "SELECT " + RUN_COLUMNS + " FROM run" + where
                + " ORDER BY first_seen_ms DESC, run_id DESC LIMIT ? OFFSET ?", Queries::runRow, p.toArray())) {
            JsonObject m = messages(c, r.get("appliance").getAsString(), r.get("run").getAsString(), false);
            r.add("messages", m); // cells_run: a plan's cells whose result came in (a single run has none: null)
            r.addProperty("cells_run", "plan".equals(Json.string(r, "kind")) ? Json.integer(m, "cells_received") : null);
            rows.add(r);
        }
        o.add("runs", rows);
        return o;
    }

    private static JsonObject runRow(ResultSet rs) throws SQLException {
        JsonObject o = new JsonObject();
        o.addProperty("appliance", rs.getString("appliance"));
        o.addProperty("run", rs.getString("run_id"));
        o.addProperty("kind", rs.getString("kind"));
        o.addProperty("plan", rs.getString("plan"));
        o.addProperty("plan_sha256", rs.getString("plan_sha256"));
        o.addProperty("verdict", rs.getString("verdict"));
        o.addProperty("reason", rs.getString("reason"));
        o.addProperty("state", rs.getString("state") != null ? rs.getString("state")
                : rs.getString("verdict") == null ? "running" : null);
        o.addProperty("started", Json.iso(rs.getLong("started_ms")));
        o.addProperty("ended", Json.iso(rs.getLong("ended_ms")));
        o.addProperty("cells_planned", Sql.longOrNull(rs, "cells_planned"));
        o.addProperty("serial", rs.getString("serial"));
        o.addProperty("model", rs.getString("model"));
        o.addProperty("started_by", rs.getString("started_by"));
        o.addProperty("result_sequence", Sql.longOrNull(rs, "result_seq"));
        return o;
    }

    /**
     * What arrived of a run and what did not. A plan numbers its messages 1 .. 2n+1 (n cells
     * planned; odd: progress, even: cells, the last: result); a single run 1 .. result. Cell
     * and result messages that never came are {@code missing}; progress messages that did
     * not come (harmless: they only announce) are {@code progress_missing}.
     */
    JsonObject messages(Connection c, String appliance, String run, boolean list) throws SQLException {
        List<Object[]> rows = Sql.list(c, "SELECT seq, type, received_ms FROM message WHERE appliance = ? AND run_id = ?"
                + " ORDER BY seq", rs -> new Object[] {rs.getInt(1), rs.getString(2), rs.getLong(3)}, appliance, run);
        Object[] meta = Sql.one(c, "SELECT kind, cells_planned, result_seq FROM run WHERE appliance = ? AND run_id = ?",
                rs -> new Object[] {rs.getString(1), Sql.longOrNull(rs, "cells_planned"),
                    Sql.longOrNull(rs, "result_seq")}, appliance, run);
        TreeSet<Integer> have = new TreeSet<>();
        int cells = 0;
        for (Object[] r : rows) {
            cells += have.add((Integer) r[0]) && "cell".equals(r[1]) ? 1 : 0;
        }
        int highest = have.isEmpty() ? 0 : have.last();
        boolean plan = meta != null && "plan".equals(meta[0]);
        Long resultSeq = meta == null ? null : (Long) meta[2];
        Long planned = meta == null ? null : (Long) meta[1];
        int expected = resultSeq != null ? resultSeq.intValue()
                : plan && planned != null ? (int) (2 * planned + 1) : highest;
        JsonArray missing = new JsonArray(), progressMissing = new JsonArray();
        int upTo = resultSeq != null ? resultSeq.intValue() : highest;
        for (int s = 1; s <= upTo; s++) {
            if (!have.contains(s)) {
                if (plan && s % 2 == 1 && (resultSeq == null || s != resultSeq)) {
                    progressMissing.add(s);
                } else {
                    missing.add(s);
                }
            }
        }
        JsonObject o = new JsonObject();
        o.addProperty("expected", expected);
        o.addProperty("received", have.size());
        o.add("missing", missing);
        o.add("progress_missing", progressMissing);
        o.addProperty("complete", resultSeq != null && missing.isEmpty());
        o.addProperty("cells_received", cells);
        if (list) {
            JsonArray l = new JsonArray();
            for (Object[] r : rows) {
                JsonObject m = new JsonObject();
                m.addProperty("sequence", (Integer) r[0]);
                m.addProperty("type", (String) r[1]);
                m.addProperty("received", Json.iso((Long) r[2]));
                l.add(m);
            }
            o.add("list", l);
        }
        return o;
    }

    /** The run page's data: the run, its cells from their messages, and what is missing. */
    JsonObject run(String appliance, String run) throws SQLException {
        try (Connection c = db.connection()) {
            JsonObject o = Sql.one(c, "SELECT " + RUN_COLUMNS + " FROM run WHERE appliance = ? AND run_id = ?",
                    Queries::runRow, appliance, run);
            if (o == null) {
                throw new NotFound("no run '" + run + "' of appliance '" + appliance + "'");
            }
            o.add("messages", messages(c, appliance, run, true));
            for (String check : new String[] {"selftest", "readiness"}) { // the start's checks, what a record carries
                o.add(check, Json.parse(Sql.one(c, "SELECT " + check + " FROM run WHERE appliance = ? AND run_id = ?",
                        rs -> rs.getString(1), appliance, run)));
            }
            o.addProperty("registered", Boolean.TRUE.equals(Sql.one(c, "SELECT registered FROM appliance WHERE id = ?",
                    rs -> rs.getBoolean(1), appliance)));
            JsonArray cells = new JsonArray();
            JsonObject system = null;
            JsonObject progress = null;
            java.util.TreeMap<Integer, String> names = new java.util.TreeMap<>();
            for (Object[] m : Sql.list(c, "SELECT seq, type, payload FROM message WHERE appliance = ? AND run_id = ?"
                    + " AND type IN ('cell', 'result', 'progress') ORDER BY seq", rs -> new Object[] {rs.getInt(1),
                        rs.getString(2), rs.getBytes(3)}, appliance, run)) {
                JsonObject j = Json.parse(new String((byte[]) m[2], StandardCharsets.UTF_8));
                String type = (String) m[1];
                Integer cellNo = Json.integer(j, "cell");
                if (cellNo != null && Json.string(j, "cell_name") != null) {
                    names.put(cellNo, Json.string(j, "cell_name"));
                }
                if (type.equals("progress")) {
                    progress = new JsonObject();
                    progress.add("cell", j.get("cell"));
                    progress.add("cells", j.get("cells"));
                    progress.add("percent", j.get("percent"));
                    continue;
                }
                boolean planResult = type.equals("result") && ("plan".equals(Json.string(j, "kind"))
                        || j.has("cells_planned"));
                if (planResult) {
                    o.add("result_cells", j.get("cells"));
                    continue;
                }
                JsonObject cell = Cells.view(j, (Integer) m[0]);
                if (system == null) {
                    system = Json.object(Json.object(Json.object(j, "report"), "system"), "values");
                }
                cells.add(cell);
            }
            o.add("progress", progress);
            // The planned cells' names, as far as their messages told them (null: not heard of yet).
            JsonArray cellNames = new JsonArray();
            int planned = o.get("cells_planned").isJsonNull() ? (names.isEmpty() ? 0 : names.lastKey())
                    : Json.integer(o, "cells_planned");
            for (int i = 1; i <= planned; i++) {
                cellNames.add(names.get(i));
            }
            o.add("cell_names", cellNames);
            o.add("system", system);
            o.add("cells", cells);
            return o;
        }
    }

    /** Raw payload of one message, or null. */
    byte[] message(String appliance, String run, int seq) throws SQLException {
        try (Connection c = db.connection()) {
            return Sql.one(c, "SELECT payload FROM message WHERE appliance = ? AND run_id = ? AND seq = ?",
                    rs -> rs.getBytes(1), appliance, run, seq);
        }
    }

    /** Every cell and result message of a run, parsed, in sequence order. */
    List<JsonObject> payloads(String appliance, String run) throws SQLException {
        try (Connection c = db.connection()) {
            List<JsonObject> out = new ArrayList<>();
            for (byte[] b : Sql.list(c, "SELECT payload FROM message WHERE appliance = ? AND run_id = ?"
                    + " AND type IN ('cell', 'result') ORDER BY seq", rs -> rs.getBytes(1), appliance, run)) {
                out.add(Json.parse(new String(b, StandardCharsets.UTF_8)));
            }
            return out;
        }
    }

    JsonObject history(String appliance, String serial, String plan, String cell, int limit) throws SQLException {
        if ((appliance == null || appliance.isEmpty()) == (serial == null || serial.isEmpty())) {
            throw new BadRequest("give either appliance or serial");
        }
        StringBuilder sql = new StringBuilder("SELECT c.appliance, c.run_id, c.cell, c.name, c.verdict, c.p99_us,"
                + " c.p999_us, c.max_us, c.missed, COALESCE(c.started_ms, r.started_ms, r.first_seen_ms) AS t, r.plan,"
                + " r.serial FROM cell c JOIN run r ON r.appliance = c.appliance AND r.run_id = c.run_id WHERE ");
        List<Object> p = new ArrayList<>();
        if (appliance != null && !appliance.isEmpty()) {
            sql.append("c.appliance = ?");
            p.add(appliance);
        } else {
            sql.append("r.serial = ? AND r.").append(Registry.COUNTS);
            p.add(serial);
        }
        if (plan != null && !plan.isEmpty()) {
            sql.append(" AND r.plan = ?");
            p.add(plan);
        }
        if (cell != null && !cell.isEmpty()) {
            sql.append(" AND c.name = ?");
            p.add(cell);
        }
        sql.append(" ORDER BY t, c.run_id, c.cell LIMIT ?");
        p.add(limit);
        try (Connection c = db.connection()) {
            JsonArray points = new JsonArray();
            for (JsonObject r : Sql.list(c, sql.toString(), rs -> {
                JsonObject o = new JsonObject();
                o.addProperty("appliance", rs.getString("appliance"));
                o.addProperty("run", rs.getString("run_id"));
                o.addProperty("serial", rs.getString("serial"));
                o.addProperty("started", Json.iso(rs.getLong("t")));
                o.addProperty("plan", rs.getString("plan"));
                o.addProperty("cell", rs.getInt("cell"));
                o.addProperty("name", rs.getString("name"));
                o.addProperty("verdict", rs.getString("verdict"));
                o.addProperty("max_us", Sql.doubleOrNull(rs, "max_us"));
                o.addProperty("p999_us", Sql.doubleOrNull(rs, "p999_us"));
                o.addProperty("p99_us", Sql.doubleOrNull(rs, "p99_us"));
                o.addProperty("missed_deadlines", Sql.longOrNull(rs, "missed"));
                return o;
            }, p.toArray())) {
                points.add(r);
            }
            JsonObject o = new JsonObject();
            o.add("points", points);
            return o;
        }
    }
}
