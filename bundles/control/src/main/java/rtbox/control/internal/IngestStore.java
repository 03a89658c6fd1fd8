package rtbox.control.internal;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * Writes one decoded message: the message row once by (appliance, run, sequence), and
 * what it says about its run, cell and appliance. One transaction per call (a message or a
 * batch of them), and the broker's acknowledgement comes only after it committed, so that
 * it never covers a message that is not in the database. Before it, the runs' rows are
 * made (their site and first time are the partition key of their messages) and, on
 * PostgreSQL, the partitions their messages go to.
 */
final class IngestStore {
    /** What storing a message did. {@code cameOnline}: a status that turned an appliance online. */
    record Outcome(boolean stored, boolean cameOnline) {
    }

    private final Db db;
    private final Registry registry;

    /** Every appliance registered on sight (a job's folder, tests). */
    IngestStore(Db db) {
        this(db, Registry.everyone());
    }

    IngestStore(Db db, Registry registry) {
        this.db = db;
        this.registry = registry;
    }

    /** Who registered an appliance the ingest made known on sight. */
    static final String ON_SIGHT = "(known on sight)";

    Outcome store(Inbound m, long now) throws SQLException {
        return storeAll(List.of(m), now).get(0);
    }

    /** Stores the messages in order in one transaction: all of them, or none when it throws. */
    List<Outcome> storeAll(List<Inbound> messages, long now) throws SQLException {
        Map<String, RunKey> runs = runKeys(messages, now);
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            try {
                List<Outcome> out = new ArrayList<>(messages.size());
                for (Inbound m : messages) {
                    out.add(switch (m.kind()) {
                        case STATUS -> status(c, m, now);
                        case REPLY -> reply(c, m, now);
                        default -> runMessage(c, m, now, runs.get(runKey(m)));
                    });
                }
                c.commit();
                return out;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                // A site's partition may have been dropped (retention): made again on the next try.
                partitions.clear();
                throw e;
            }
        }
    }

    private Outcome status(Connection c, Inbound m, long now) throws SQLException {
        JsonObject j = m.json();
        String state = "offline".equals(j.has("state") ? Json.string(j, "state") : null) ? "offline" : "online";
        boolean busy = "online".equals(state) && j.has("busy") && j.get("busy").isJsonPrimitive()
                && j.get("busy").getAsBoolean();
        String run = busy ? Json.string(j, "run") : null;
        long since = Json.epochMs(Json.string(j, "since"));
        Object[] row = Sql.one(c, "SELECT state, registered FROM appliance WHERE id = ?", rs -> new Object[] {
            rs.getString(1), rs.getBoolean(2)}, m.appliance());
        String before = row == null ? null : (String) row[0];
        String text = new String(m.raw(), StandardCharsets.UTF_8);
        boolean known = registry.knows(m.appliance());
        if (before == null && Sql.insertIfAbsent(c, db.postgres, "INSERT INTO appliance (id, state, busy, run_id,"
                + " since_ms, last_seen_ms, status, registered, registered_by, registered_ms) VALUES (?, ?, ?, ?, ?, ?,"
                + " ?, ?, ?, ?)", m.appliance(), state, busy, run, since, now, text, known, known ? ON_SIGHT : null,
                known ? now : null)) {
            return new Outcome(true, "online".equals(state));
        }
        Sql.update(c, "UPDATE appliance SET state = ?, busy = ?, run_id = ?, since_ms = ?, last_seen_ms = ?,"
                + " status = ? WHERE id = ?", state, busy, run, since, now, text, m.appliance());
        if (row != null && !(Boolean) row[1] && known) {
            // Named by appliancesFile since it was first heard of.
            Sql.update(c, "UPDATE appliance SET registered = TRUE, registered_by = ?, registered_ms = ? WHERE id = ?",
                    ON_SIGHT, now, m.appliance());
        }
        return new Outcome(true, "online".equals(state) && !"online".equals(before));
    }

    private void seen(Connection c, String appliance, long now) throws SQLException {
        if (Sql.update(c, "UPDATE appliance SET last_seen_ms = ? WHERE id = ?", now, appliance) == 0) {
            boolean known = registry.knows(appliance);
            Sql.insertIfAbsent(c, db.postgres, "INSERT INTO appliance (id, state, busy, last_seen_ms, registered,"
                    + " registered_by, registered_ms) VALUES (?, ?, ?, ?, ?, ?, ?)", appliance, "online", false, now,
                    known, known ? ON_SIGHT : null, known ? now : null);
        }
    }

    private Outcome reply(Connection c, Inbound m, long now) throws SQLException {
        JsonObject j = m.json();
        seen(c, m.appliance(), now);
        String verb = Json.string(j, "verb");
        Integer code = Json.integer(j, "code");
        boolean fresh = Sql.insertIfAbsent(c, db.postgres, "INSERT INTO reply (appliance, request_id, verb, code, message,"
                + " payload, received_ms) VALUES (?, ?, ?, ?, ?, ?, ?)", m.appliance(), m.requestId(), verb, code,
                Json.string(j, "message"), new String(m.raw(), StandardCharsets.UTF_8), now);
        if (!fresh) {
            return new Outcome(false, false);
        }
        JsonObject body = Json.object(j, "body");
        if ("bundles".equals(verb) && code != null && code == 200 && body != null && body.has("bundles")) {
            Sql.update(c, "UPDATE appliance SET bundles = ? WHERE id = ?", Json.GSON.toJson(body.get("bundles")),
                    m.appliance());
        } else if ("selftest".equals(verb) || "readiness".equals(verb)) {
            // The last answer of each check, shown on the appliance: the measuring chain's self-test and the
            // readiness check (their columns are named by the verb).
            JsonObject t = new JsonObject();
            t.addProperty("at", Json.iso(now));
            t.addProperty("code", code);
            t.addProperty("ok", code != null && code == 200);
            t.addProperty("message", Json.string(j, "message"));
            t.add("body", body);
            Sql.update(c, "UPDATE appliance SET " + verb + " = ?, " + verb + "_ms = ?, " + verb + "_ok = ? WHERE id = ?",
                    Json.GSON.toJson(t), now, code != null && code == 200, m.appliance());
        }
        return new Outcome(true, false);
    }

    /** A run's site and first_seen_ms: the partition key of each of its messages. */
    record RunKey(String site, long runMs) {
    }

    private static String runKey(Inbound m) {
        return m.appliance() + "\n" + m.run();
    }

    /**
     * The run row of each run among {@code messages} (made when missing, with the appliance's
     * site of this moment, '' when it has none), committed before the batch's transaction,
     * and on PostgreSQL the partition of message that each run's messages go to, made when
     * missing ({@code rtbox_message_partition}, postgresql/V2__site.sql). Outside the batch's
     * transaction, which then holds no lock on message while a partition is made (two
     * instances making partitions inside their ingest would wait on each other).
     */
    private Map<String, RunKey> runKeys(List<Inbound> messages, long now) throws SQLException {
        Map<String, RunKey> keys = new HashMap<>();
        List<Inbound> firsts = new ArrayList<>();
        for (Inbound m : messages) {
            if (m.kind() != Inbound.Kind.STATUS && m.kind() != Inbound.Kind.REPLY && keys.putIfAbsent(runKey(m), NONE) == null) {
                firsts.add(m);
            }
        }
        if (firsts.isEmpty()) {
            return keys;
        }
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            try {
                for (Inbound m : firsts) {
                    Sql.insertIfAbsent(c, db.postgres, "INSERT INTO run (appliance, run_id, site, first_seen_ms) VALUES"
                            + " (?, ?, COALESCE((SELECT site FROM appliance WHERE id = ?), ''), ?)", m.appliance(), m.run(),
                            m.appliance(), now);
                    keys.put(runKey(m), Sql.one(c, "SELECT site, first_seen_ms FROM run WHERE appliance = ? AND run_id = ?",
                            rs -> new RunKey(rs.getString(1), rs.getLong(2)), m.appliance(), m.run()));
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
            if (db.postgres) {
                c.setAutoCommit(true);
                for (RunKey k : keys.values()) {
                    String month = k.site() + "\n" + YearMonth.from(Instant.ofEpochMilli(k.runMs()).atZone(ZoneOffset.UTC));
                    if (!partitions.contains(month)) {
                        Sql.one(c, "SELECT rtbox_message_partition(?, ?)", rs -> rs.getString(1), k.site(), k.runMs());
                        partitions.add(month);
                    }
                }
            }
        }
        return keys;
    }

    private static final RunKey NONE = new RunKey("", 0);
    /** The site-months whose partition is known to exist (PostgreSQL). */
    private final Set<String> partitions = ConcurrentHashMap.newKeySet();

    private Outcome runMessage(Connection c, Inbound m, long now, RunKey run) throws SQLException {
        seen(c, m.appliance(), now);
        if (!Sql.insertIfAbsent(c, db.postgres, "INSERT INTO message (appliance, run_id, seq, type, received_ms, payload,"
                + " site, run_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", m.appliance(), m.run(), m.sequence(), m.kind().type(),
                now, m.raw(), run.site(), run.runMs())) {
            return new Outcome(false, false);
        }
        JsonObject j = m.json();
        boolean plan = "plan".equals(Json.string(j, "kind")) || j.has("cell_name") || j.has("cells_planned");
        switch (m.kind()) {
            case PROGRESS -> {
                if (plan) {
                    Sql.update(c, "UPDATE run SET kind = 'plan', plan = COALESCE(plan, ?),"
                            + " cells_planned = COALESCE(cells_planned, ?) WHERE appliance = ? AND run_id = ?",
                            Json.string(j, "plan"), Json.integer(j, "cells"), m.appliance(), m.run());
                } else {
                    Sql.update(c, "UPDATE run SET kind = COALESCE(kind, 'run'), plan = COALESCE(plan, ?)"
                            + " WHERE appliance = ? AND run_id = ?", Json.string(j, "probe"), m.appliance(), m.run());
                }
            }
            case CELL -> {
                Integer cell = Json.integer(j, "cell");
                long started = Json.epochMs(Json.string(j, "started"));
                if (cell != null) {
                    Sql.insertIfAbsent(c, db.postgres, "INSERT INTO cell (appliance, run_id, cell, name, verdict, seq,"
                            + " p99_us, p999_us, max_us, missed, started_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            m.appliance(), m.run(), cell, Json.string(j, "cell_name"), Json.string(j, "verdict"),
                            m.sequence(), Json.number(j, "p99_us"), Json.number(j, "p999_us"), Json.number(j, "max_us"),
                            Json.whole(j, "missed_deadlines"), started);
                }
                Sql.update(c, "UPDATE run SET kind = 'plan', cells_planned = COALESCE(cells_planned, ?),"
                        + " started_ms = CASE WHEN started_ms IS NULL OR started_ms > ? THEN ? ELSE started_ms END"
                        + " WHERE appliance = ? AND run_id = ?", Json.integer(j, "cells"), started, started,
                        m.appliance(), m.run());
                kernel(c, m.appliance(), j);
            }
            case RESULT -> {
                long started = Json.epochMs(Json.string(j, "started"));
                long ended = Json.epochMs(Json.string(j, "ended"));
                String kind = plan ? "plan" : "run";
                Sql.update(c, "UPDATE run SET kind = ?, plan = COALESCE(?, plan), verdict = ?, reason = ?, state = ?,"
                        + " started_ms = CASE WHEN ? > 0 AND (started_ms IS NULL OR started_ms > ?) THEN ? ELSE started_ms END,"
                        + " ended_ms = ?, cells_planned = COALESCE(?, cells_planned), result_seq = ?"
                        + " WHERE appliance = ? AND run_id = ?", kind, plan ? Json.string(j, "plan")
                        : Json.string(j, "probe"), Json.string(j, "verdict"), Json.string(j, "reason"),
                        Json.string(j, "state") != null ? Json.string(j, "state")
                                : Boolean.FALSE.equals(bool(j, "complete")) ? "stopped" : "complete",
                        started, started, started, ended == 0 ? now : ended, Json.integer(j, "cells_planned"),
                        m.sequence(), m.appliance(), m.run());
                if (!plan) {
                    // A single run is its own one cell.
                    Sql.insertIfAbsent(c, db.postgres, "INSERT INTO cell (appliance, run_id, cell, name, verdict, seq,"
                            + " p99_us, p999_us, max_us, missed, started_ms) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)",
                            m.appliance(), m.run(), Json.string(j, "probe"), Json.string(j, "verdict"), m.sequence(),
                            Json.number(j, "p99_us"), Json.number(j, "p999_us"), Json.number(j, "max_us"),
                            Json.whole(j, "missed_deadlines"), started);
                    kernel(c, m.appliance(), j);
                }
                Sql.update(c, "UPDATE appliance SET last_run = ?, last_verdict = ? WHERE id = ?", m.run(),
                        Json.string(j, "verdict"), m.appliance());
                // In this transaction: a webhook's delivery is committed with the result that caused it, or neither.
                WebhookOutbox.resultStored(c, db.postgres, run.site(), m.appliance(), m.run(), Json.string(j, "verdict"),
                        Json.string(j, "reason"), plan ? Json.string(j, "plan") : Json.string(j, "probe"), now);
            }
            default -> throw new IllegalStateException(m.kind().name());
        }
        return new Outcome(true, false);
    }

    private static Boolean bool(JsonObject j, String f) {
        JsonElement e = j.get(f);
        return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isBoolean() ? e.getAsBoolean() : null;
    }

    /** The appliance's kernel release, from a result's system info (report.system.values.release). */
    private static void kernel(Connection c, String appliance, JsonObject j) throws SQLException {
        JsonObject values = Json.object(Json.object(Json.object(j, "report"), "system"), "values");
        String release = Json.string(values, "release");
        if (release != null) {
            Sql.update(c, "UPDATE appliance SET kernel = ? WHERE id = ?",
                    release.length() > 200 ? release.substring(0, 200) : release, appliance);
        }
    }

    static JsonArray arrayOrEmpty(JsonElement e) {
        return e != null && e.isJsonArray() ? e.getAsJsonArray() : new JsonArray();
    }
}
