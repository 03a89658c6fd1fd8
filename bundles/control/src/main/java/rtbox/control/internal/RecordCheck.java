package rtbox.control.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.PublicKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import rtbox.json.JsonFields;
import rtbox.json.JsonProblem;

/**
 * What a record seals and how it is checked. At sign-off the record takes the SHA-256 of
 * every stored message of its run and the run's stored rows as the run page reads them
 * ({@link #seal}); verify checks each record's signature with the published keys (the key
 * folder, not the database), the hash chain, and its run's messages and rows against what
 * it sealed, and names every problem it finds, not only the first.
 */
final class RecordCheck {
    private final Db db;
    private final RecordKeys keys;

    RecordCheck(Db db, RecordKeys keys) {
        this.db = db;
        this.keys = keys;
    }

    /** The run's messages ({@code seq, type, sha256}) and stored rows: what a record seals of its run. */
    static JsonObject seal(Connection c, String appliance, String run) throws SQLException {
        JsonArray messages = new JsonArray();
        for (JsonObject m : Sql.list(c, "SELECT seq, type, payload FROM message WHERE appliance = ? AND run_id = ?"
                + " ORDER BY seq", rs -> {
                    JsonObject x = new JsonObject();
                    x.addProperty("seq", rs.getInt(1));
                    x.addProperty("type", rs.getString(2));
                    x.addProperty("sha256", Passwords.sha256(rs.getBytes(3)));
                    return x;
                }, appliance, run)) {
            messages.add(m);
        }
        JsonObject rows = Sql.one(c, "SELECT verdict, reason, state, serial, model, started_by, plan, plan_sha256,"
                + " started_ms, ended_ms FROM run WHERE appliance = ? AND run_id = ?", rs -> {
                    JsonObject x = new JsonObject();
                    for (int i = 1; i <= 10; i++) {
                        String name = rs.getMetaData().getColumnLabel(i).toLowerCase(java.util.Locale.ROOT);
                        if (name.endsWith("_ms")) {
                            x.addProperty(name, Sql.longOrNull(rs, name));
                        } else {
                            x.addProperty(name, rs.getString(i));
                        }
                    }
                    return x;
                }, appliance, run);
        JsonArray cells = new JsonArray();
        for (JsonObject cell : Sql.list(c, "SELECT cell, name, verdict, p99_us, p999_us, max_us, missed FROM cell"
                + " WHERE appliance = ? AND run_id = ? ORDER BY cell", rs -> {
                    JsonObject x = new JsonObject();
                    x.addProperty("cell", rs.getInt(1));
                    x.addProperty("name", rs.getString(2));
                    x.addProperty("verdict", rs.getString(3));
                    x.addProperty("p99_us", Sql.doubleOrNull(rs, "p99_us"));
                    x.addProperty("p999_us", Sql.doubleOrNull(rs, "p999_us"));
                    x.addProperty("max_us", Sql.doubleOrNull(rs, "max_us"));
                    x.addProperty("missed", Sql.longOrNull(rs, "missed"));
                    return x;
                }, appliance, run)) {
            cells.add(cell);
        }
        if (rows != null) {
            rows.add("cells", cells);
        }
        JsonObject o = new JsonObject();
        o.add("messages", messages);
        o.add("rows", rows);
        return o;
    }

    /** Every record checked: {@code ok}, {@code records}, {@code problems} ({@code record}, {@code problem}). */
    JsonObject verify() throws SQLException, IOException {
        Map<String, PublicKey> published = keys.publicKeys();
        JsonArray problems = new JsonArray();
        int n = 0;
        try (Connection c = db.connection()) {
            List<Object[]> rows = Sql.list(c, SELECT + " ORDER BY id", RecordCheck::row);
            String previous = Records.GENESIS;
            long previousId = 0;
            for (Object[] r : rows) {
                n++;
                long id = (Long) r[0];
                if (id != previousId + 1) {
                    add(problems, id, id == previousId + 2 ? "record missing between " + previousId + " and " + id
                            : "records " + (previousId + 1) + " to " + (id - 1) + " missing between " + previousId + " and "
                                    + id);
                }
                String body = (String) r[5];
                JsonObject j = record(problems, r, published);
                if (j != null && !previous.equals(Json.string(j, "previous_sha256"))) {
                    add(problems, id, "chain broken at " + id + ": record " + id + " holds another SHA-256 for record "
                            + previousId + " than record " + previousId + "'s body has");
                }
                if (j != null) {
                    for (String p : run(c, j)) {
                        add(problems, id, "record " + id + ": " + p);
                    }
                }
                previous = Passwords.sha256(body.getBytes(StandardCharsets.UTF_8));
                previousId = id;
            }
        }
        JsonObject o = new JsonObject();
        o.addProperty("ok", problems.isEmpty());
        o.addProperty("records", n);
        o.add("problems", problems);
        if (!problems.isEmpty()) {
            JsonObject first = problems.get(0).getAsJsonObject();
            o.add("first_changed", first.get("record"));
            o.add("problem", first.get("problem"));
        }
        return o;
    }

    /** The record of one run checked (its signature, its body, its run's data); null when the run has none. */
    JsonObject run(String appliance, String run) throws SQLException, IOException {
        try (Connection c = db.connection()) {
            Object[] r = Sql.one(c, SELECT + " WHERE appliance = ? AND run_id = ?", RecordCheck::row, appliance, run);
            if (r == null) {
                return null;
            }
            JsonArray problems = new JsonArray();
            JsonObject j = record(problems, r, keys.publicKeys());
            if (j != null) {
                for (String p : run(c, j)) {
                    add(problems, (Long) r[0], "record " + r[0] + ": " + p);
                }
            }
            JsonObject o = new JsonObject();
            o.addProperty("record", (Long) r[0]);
            o.addProperty("key_id", (String) r[8]);
            o.addProperty("ok", problems.isEmpty());
            o.add("problems", problems);
            return o;
        }
    }

    /**
     * What is wrong with record {@code id} itself (body, signature, columns), null if nothing:
     * a record is never chained onto a head that was changed, so a forgery cannot be sealed in.
     */
    String headProblem(Connection c, long id) throws SQLException, IOException {
        Object[] r = Sql.one(c, SELECT + " WHERE id = ?", RecordCheck::row, id);
        JsonArray problems = new JsonArray();
        record(problems, r, keys.publicKeys());
        return problems.isEmpty() ? null : problems.get(0).getAsJsonObject().get("problem").getAsString();
    }

    private static final String SELECT = "SELECT id, serial, verdict, appliance, run_id, body, previous_sha256, sha256,"
            + " key_id, signature FROM record";

    private static Object[] row(java.sql.ResultSet rs) throws SQLException {
        return new Object[] {rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
            rs.getString(6), rs.getString(7), rs.getString(8), rs.getString(9), rs.getString(10)};
    }

    /** The record's own problems (body, signature, columns) added; its body parsed, or null when it is not JSON. */
    private static JsonObject record(JsonArray problems, Object[] r, Map<String, PublicKey> published) {
        long id = (Long) r[0];
        String body = (String) r[5];
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        if (!Passwords.sha256(bytes).equals(r[7])) {
            add(problems, id, "record " + id + ": body changed (its SHA-256 is not the one stored with it)");
        }
        JsonObject j;
        try {
            j = Json.parse(body);
            if (j == null || !Canonical.text(j).equals(body)) {
                throw new IllegalArgumentException();
            }
        } catch (RuntimeException e) {
            add(problems, id, "record " + id + ": body changed (it is not canonical JSON any more)");
            return null;
        }
        String keyId = (String) r[8];
        if (r[9] == null || keyId == null) {
            add(problems, id, "record " + id + ": not signed");
        } else if (!published.containsKey(keyId)) {
            add(problems, id, "record " + id + ": signed with key " + keyId + ", which is not among the published keys");
        } else {
            byte[] sig;
            try {
                sig = Base64.getDecoder().decode((String) r[9]);
            } catch (IllegalArgumentException e) {
                sig = new byte[0];
            }
            if (!RecordKeys.verify(published.get(keyId), bytes, sig)) {
                add(problems, id, "record " + id + ": signature invalid (its body or its signature was changed after"
                        + " signing)");
            }
        }
        if (!String.valueOf(id).equals(Json.string(j, "id")) || !eq(r[1], Json.string(j, "serial"))
                || !eq(r[2], Json.string(j, "verdict")) || !eq(r[3], Json.string(j, "appliance"))
                || !eq(r[4], Json.string(j, "run")) || !eq(r[6], Json.string(j, "previous_sha256"))
                || !eq(keyId, Json.string(j, "key_id"))) {
            add(problems, id, "record " + id + ": its columns (id, serial, verdict, appliance, run, previous SHA-256,"
                    + " key) differ from its body");
        }
        return j;
    }

    /** What changed in a record's run since it was sealed: messages changed, missing or added, rows changed. */
    private static List<String> run(Connection c, JsonObject record) throws SQLException {
        List<String> out = new ArrayList<>();
        JsonArray sealed = Json.array(record, "run_messages");
        JsonObject sealedRows = Json.object(record, "run_rows");
        if (sealed == null || sealedRows == null) {
            out.add("it seals no run data (issued before records sealed their runs)");
            return out;
        }
        String run = Json.string(record, "run");
        JsonObject now = seal(c, Json.string(record, "appliance"), run);
        Map<Integer, JsonObject> stored = new HashMap<>();
        for (JsonElement e : now.getAsJsonArray("messages")) {
            stored.put(Json.integer(e.getAsJsonObject(), "seq"), e.getAsJsonObject());
        }
        for (int i = 0; i < sealed.size(); i++) {
            JsonObject m = sealed.get(i).getAsJsonObject();
            int seq;
            try {
                // Exactly: a body with "seq": 2.5 was read as message 2.
                seq = (int) JsonFields.whole(m.get("seq"), "$.run_messages[" + i + "].seq", 1, Integer.MAX_VALUE);
            } catch (JsonProblem p) {
                out.add("its body: " + p.getMessage());
                continue;
            }
            JsonObject s = stored.remove(seq);
            if (s == null) {
                out.add("run message " + seq + " (" + Json.string(m, "type") + ") is missing");
            } else if (!Json.string(m, "sha256").equals(Json.string(s, "sha256"))) {
                out.add("run message " + seq + " (" + Json.string(m, "type") + ") changed");
            }
        }
        stored.values().stream().filter(m -> !"progress".equals(Json.string(m, "type")))
                .forEach(m -> out.add("run message " + m.get("seq") + " (" + Json.string(m, "type")
                        + ") was added after the record"));
        JsonElement rows = now.get("rows");
        if (rows == null || rows.isJsonNull()) {
            out.add("run " + run + " is missing");
            return out;
        }
        diff(out, "run " + run, sealedRows, rows.getAsJsonObject());
        return out;
    }

    private static void diff(List<String> out, String where, JsonObject sealed, JsonObject now) {
        for (String k : sealed.keySet()) {
            JsonElement a = sealed.get(k), b = now.get(k);
            if (k.equals("cells") && a.isJsonArray() && b != null && b.isJsonArray()) {
                JsonArray x = a.getAsJsonArray(), y = b.getAsJsonArray();
                for (int i = 0; i < Math.max(x.size(), y.size()); i++) {
                    if (i >= x.size()) {
                        out.add(where + ": cell " + y.get(i).getAsJsonObject().get("cell") + " was added after the record");
                    } else if (i >= y.size()) {
                        out.add(where + ": cell " + x.get(i).getAsJsonObject().get("cell") + " is missing");
                    } else {
                        diff(out, where + " cell " + x.get(i).getAsJsonObject().get("cell"), x.get(i).getAsJsonObject(),
                                y.get(i).getAsJsonObject());
                    }
                }
            } else if (!Canonical.text(a).equals(b == null ? "null" : Canonical.text(b))) {
                out.add(where + ": stored " + k + " is " + Canonical.text(b == null ? com.google.gson.JsonNull.INSTANCE : b)
                        + ", the record sealed " + Canonical.text(a));
            }
        }
    }

    private static void add(JsonArray problems, long record, String problem) {
        JsonObject p = new JsonObject();
        p.addProperty("record", record);
        p.addProperty("problem", problem);
        problems.add(p);
    }

    private static boolean eq(Object a, String b) {
        return a == null ? b == null : a.equals(b);
    }
}
