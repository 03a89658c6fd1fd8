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
        try (Connection c = db.connection()) {
            JsonObject o = new JsonObject();
            o.addProperty("total", Sql.count(c, "SELECT COUNT(*) FROM audit"));
            o.addProperty("offset", offset);
            o.addProperty("limit", limit);
            JsonArray rows = new JsonArray();
            Sql.list(c, "SELECT id, at_ms, user_name, action, target, detail FROM audit ORDER BY id DESC LIMIT ? OFFSET ?",
                    rs -> {
                        JsonObject e = new JsonObject();
                        e.addProperty("id", rs.getLong("id"));
                        e.addProperty("at", Json.iso(rs.getLong("at_ms")));
                        e.addProperty("user", rs.getString("user_name"));
                        e.addProperty("action", rs.getString("action"));
                        e.addProperty("target", rs.getString("target"));
                        String d = rs.getString("detail");
                        e.add("detail", d == null ? null : Json.element(d));
                        return e;
                    }, limit, offset).forEach(rows::add);
            o.add("entries", rows);
            return o;
        }
    }
}
