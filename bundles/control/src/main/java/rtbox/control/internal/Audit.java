package rtbox.control.internal;

import java.sql.Connection;
import java.sql.SQLException;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/** The append-only audit log: this class only inserts and reads (no UPDATE, no DELETE anywhere). */
final class Audit {
    private final Db db;

    Audit(Db db) {
        this.db = db;
    }

    void log(String user, String action, String target, JsonElement detail) throws SQLException {
        try (Connection c = db.connection()) {
            log(c, user, action, target, detail);
        }
    }

    /** In the caller's transaction: the action and its audit entry commit together. */
    static void log(Connection c, String user, String action, String target, JsonElement detail) throws SQLException {
        Sql.update(c, "INSERT INTO audit (at_ms, user_name, action, target, detail) VALUES (?, ?, ?, ?, ?)",
                System.currentTimeMillis(), user, action, target, detail == null ? null : Json.GSON.toJson(detail));
    }

    JsonObject list(int offset, int limit) throws SQLException {
        return list(null, null, null, null, offset, limit);
    }

    /** Newest first, filtered by user, action and time ({@code [fromMs, toMs)}; each null: any). */
    JsonObject list(String user, String action, Long fromMs, Long toMs, int offset, int limit) throws SQLException {
        StringBuilder where = new StringBuilder(" WHERE 1=1");
        java.util.List<Object> p = new java.util.ArrayList<>();
        if (user != null && !user.isEmpty()) {
            where.append(" AND user_name = ?");
            p.add(user);
        }
        if (action != null && !action.isEmpty()) {
            where.append(" AND action = ?");
            p.add(action);
        }
        if (fromMs != null) {
            where.append(" AND at_ms >= ?");
            p.add(fromMs);
        }
        if (toMs != null) {
            where.append(" AND at_ms < ?");
            p.add(toMs);
        }
        try (Connection c = db.connection()) {
            JsonObject o = new JsonObject();
            o.addProperty("total", Sql.count(c, "SELECT COUNT(*) FROM audit" + where, p.toArray()));
            o.addProperty("offset", offset);
            o.addProperty("limit", limit);
            p.add(limit);
            p.add(offset);
            JsonArray rows = new JsonArray();
            Sql.list(c, "SELECT id, at_ms, user_name, action, target, detail FROM audit" + where
                    + " ORDER BY id DESC LIMIT ? OFFSET ?", rs -> {
                        JsonObject e = new JsonObject();
                        e.addProperty("id", rs.getLong("id"));
                        e.addProperty("at", Json.iso(rs.getLong("at_ms")));
                        e.addProperty("user", rs.getString("user_name"));
                        e.addProperty("action", rs.getString("action"));
                        e.addProperty("target", rs.getString("target"));
                        String d = rs.getString("detail");
                        e.add("detail", d == null ? null : Json.element(d));
                        return e;
                    }, p.toArray()).forEach(rows::add);
            o.add("entries", rows);
            return o;
        }
    }

    /** The entries of {@link #list} as CSV (RFC 4180: every field quoted, quotes doubled; detail as its JSON). */
    static String csv(JsonObject list) {
        StringBuilder b = new StringBuilder("id,at,user,action,target,detail\r\n");
        for (JsonElement x : list.getAsJsonArray("entries")) {
            JsonObject e = x.getAsJsonObject();
            String[] f = {Json.string(e, "id"), Json.string(e, "at"), Json.string(e, "user"), Json.string(e, "action"),
                Json.string(e, "target"), e.get("detail") == null || e.get("detail").isJsonNull() ? ""
                    : Json.GSON.toJson(e.get("detail"))};
            for (int i = 0; i < f.length; i++) {
                String v = f[i] == null ? "" : f[i];
                // A spreadsheet runs a cell that starts with = + - @ as a formula: such a text gets a leading '.
                if (!v.isEmpty() && "=+-@".indexOf(v.charAt(0)) >= 0 && i > 1) {
                    v = "'" + v;
                }
                b.append(i == 0 ? "" : ",").append('"').append(v.replace("\"", "\"\"")).append('"');
            }
            b.append("\r\n");
        }
        return b.toString();
    }
}
