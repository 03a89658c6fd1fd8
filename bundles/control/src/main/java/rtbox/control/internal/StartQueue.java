package rtbox.control.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

/**
 * A queue of starts per appliance, as LAVA has one per device: every start is a row of
 * {@code queued_start} before anything is sent, and an appliance's oldest row is sent when
 * the appliance is online and idle, one at a time. So a start for a busy appliance waits
 * instead of being refused, and a kill -9 of the control room loses none: the rows are in the
 * database, and a row that was being sent ({@code starting}) is sent again with the same
 * request id, which the appliance answers with its first reply (never a second run).
 */
final class StartQueue {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.control.queue");
    /**
     * After a start, the appliance's status turns busy within a second or so, and a status from before
     * the start may still be on its way: the next start waits until a busy and then an idle status
     * came, or this long.
     */
    static final long SETTLE_MS = 10_000;

    /** Sends one start: the answer as POST /starts lists it ({@code code}, {@code run}, {@code message}). */
    interface Starter {
        JsonObject start(String user, JsonObject target, JsonObject plan, String text, String sha, boolean forRecord,
                String requestId);
    }

    private final Db db;
    private final Starter starter;
    private volatile Events events;
    private final Set<String> sending = ConcurrentHashMap.newKeySet();
    private final Map<String, Long> settling = new ConcurrentHashMap<>();
    private final Set<String> sawBusy = ConcurrentHashMap.newKeySet();

    StartQueue(Db db, Starter starter) {
        this.db = db;
        this.starter = starter;
    }

    /** Where the queue's changes go as {@code queue} events (none until the API is up). */
    void events(Events to) {
        events = to;
    }

    /** Puts a start in its appliance's queue (audited as {@code start-queued}); its id. */
    long enqueue(String user, StartRequests.Prepared p, String plan, Integer version) throws SQLException {
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            long now = System.currentTimeMillis();
            Sql.update(c, "INSERT INTO queued_start (appliance, queued_ms, queued_by, plan, plan_version, plan_sha256,"
                    + " plan_text, target, for_record, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued')", p.appliance(),
                    now, user, plan, version, p.sha(), p.text(), Json.GSON.toJson(p.target()), p.forRecord());
            long id = Sql.one(c, "SELECT MAX(id) FROM queued_start WHERE appliance = ? AND queued_ms = ? AND queued_by = ?",
                    rs -> rs.getLong(1), p.appliance(), now, user);
            JsonObject d = new JsonObject();
            d.addProperty("queued", id);
            d.addProperty("plan", plan);
            d.addProperty("version", version);
            d.addProperty("plan_sha256", p.sha());
            d.add("serial", p.target().get("serial"));
            d.add("model", p.target().get("model"));
            Audit.log(c, user, "start-queued", p.appliance(), d);
            c.commit();
            db.durable(c);
            return id;
        }
    }

    /**
     * Sends the appliance's oldest queued start if the appliance is online and idle (or that
     * start was being sent already); the start's answer with its queue {@code id}, or null when
     * nothing was sent (busy, offline, another thread sending, nothing queued).
     */
    JsonObject kick(String appliance) {
        if (!sending.add(appliance)) {
            return null;
        }
        try {
            Entry head;
            boolean idle;
            try (Connection c = db.connection()) {
                head = Sql.one(c, SELECT + " WHERE appliance = ? AND state IN ('queued', 'starting') ORDER BY id"
                        + " FETCH FIRST 1 ROWS ONLY", StartQueue::entry, appliance);
                if (head == null) {
                    return null;
                }
                idle = Sql.count(c, "SELECT COUNT(*) FROM appliance WHERE id = ? AND state = 'online' AND busy = ?",
                        appliance, false) == 1;
            }
            Long settle = settling.get(appliance);
            boolean settled = settle == null || System.currentTimeMillis() - settle > SETTLE_MS;
            if (!head.state.equals("starting") && !(idle && settled)) {
                return null;
            }
            String requestId = head.requestId != null ? head.requestId : Commander.requestId();
            try (Connection c = db.connection()) {
                if (Sql.update(c, "UPDATE queued_start SET state = 'starting', request_id = ? WHERE id = ? AND state IN"
                        + " ('queued', 'starting')", requestId, head.id) != 1) {
                    return null; // cancelled meanwhile
                }
                // On disk before the command leaves: after a kill the same request id goes again, never a new one.
                db.durable(c);
            }
            changed(head.id, appliance);
            JsonObject target = Json.parse(head.target);
            JsonObject answer = starter.start(head.queuedBy, target, Json.parse(head.planText), head.planText,
                    head.sha256, head.forRecord, requestId);
            Integer code = Json.integer(answer, "code");
            String run = Json.string(answer, "run");
            try (Connection c = db.connection()) {
                if (code != null && code == 200 && run != null) {
                    sawBusy.remove(appliance);
                    settling.put(appliance, System.currentTimeMillis());
                    if (Sql.count(c, "SELECT COUNT(*) FROM appliance WHERE id = ? AND busy = ?", appliance, true) == 1) {
                        sawBusy.add(appliance); // its busy status came before its answer
                    }
                    Sql.update(c, "UPDATE queued_start SET state = 'started', run_id = ?, answer = ?, ended_ms = ? WHERE"
                            + " id = ?", run, Json.GSON.toJson(answer), System.currentTimeMillis(), head.id);
                } else if (code != null && (code == 409 || code == 503)) {
                    // Busy after all (someone started a run beside the queue), or not sent: waits, with a new id
                    // next time (the appliance would answer a repeat of this one with the same 409).
                    Sql.update(c, "UPDATE queued_start SET state = 'queued', request_id = NULL, answer = ? WHERE id = ?",
                            Json.GSON.toJson(answer), head.id);
                } else if (code != null && code == 504) {
                    // No answer: sent again with the same id when the appliance is back (it answers that once).
                    Sql.update(c, "UPDATE queued_start SET state = 'queued', answer = ? WHERE id = ?",
                            Json.GSON.toJson(answer), head.id);
                } else {
                    Sql.update(c, "UPDATE queued_start SET state = 'failed', answer = ?, ended_ms = ? WHERE id = ?",
                            Json.GSON.toJson(answer), System.currentTimeMillis(), head.id);
                }
                db.durable(c);
            }
            changed(head.id, appliance);
            answer.addProperty("queued", head.id);
            return answer;
        } catch (SQLException | RuntimeException e) {
            LOG.warn("queue of {}: {}", appliance, Db.rootMessage(e));
            return null;
        } finally {
            sending.remove(appliance);
        }
    }

    /**
     * An appliance's status: once it was seen busy after a start and then idle, its run is over and
     * its next start need not wait out the settling time.
     */
    void status(String appliance, boolean busy) {
        if (busy) {
            if (settling.containsKey(appliance)) {
                sawBusy.add(appliance);
            }
        } else if (sawBusy.remove(appliance)) {
            settling.remove(appliance);
        }
    }

    /** Appliances with a start waiting that may be sent now (idle, or a start being sent when the room stopped). */
    List<String> ready() throws SQLException {
        try (Connection c = db.connection()) {
            return Sql.list(c, "SELECT DISTINCT q.appliance FROM queued_start q JOIN appliance a ON a.id = q.appliance"
                    + " WHERE q.state = 'starting' OR (q.state = 'queued' AND a.state = 'online' AND a.busy = ?)",
                    rs -> rs.getString(1), false);
        }
    }

    /** Cancels a waiting start: by the user who queued it or an admin; audited as {@code start-cancel}. */
    JsonObject cancel(String user, boolean admin, long id) throws SQLException {
        Entry e = get(id);
        if (!admin && !e.queuedBy.equals(user)) {
            throw new BadRequest(403, "start " + id + " was queued by " + e.queuedBy + ": only they or an admin can"
                    + " cancel it");
        }
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            if (Sql.update(c, "UPDATE queued_start SET state = 'cancelled', ended_ms = ?, ended_by = ? WHERE id = ? AND"
                    + " state = 'queued'", System.currentTimeMillis(), user, id) != 1) {
                throw new BadRequest(409, "start " + id + " is " + get(id).state + ": only a waiting start can be"
                        + " cancelled" + ("starting".equals(get(id).state) ? " (it is being sent; stop its run instead)"
                        : ""));
            }
            JsonObject d = new JsonObject();
            d.addProperty("queued", id);
            d.addProperty("plan", e.plan);
            d.addProperty("queued_by", e.queuedBy);
            Audit.log(c, user, "start-cancel", e.appliance, d);
            c.commit();
            db.durable(c);
        }
        changed(id, e.appliance);
        return json(get(id));
    }

    /** One start of the queue, in any state (404 when there is none). */
    JsonObject one(long id) throws SQLException {
        return json(get(id));
    }

    /** The waiting starts (queued or being sent), oldest first, of one appliance or all. */
    JsonObject pending(String appliance) throws SQLException {
        List<Entry> all;
        try (Connection c = db.connection()) {
            all = appliance == null
                    ? Sql.list(c, SELECT + " WHERE state IN ('queued', 'starting') ORDER BY id", StartQueue::entry)
                    : Sql.list(c, SELECT + " WHERE appliance = ? AND state IN ('queued', 'starting') ORDER BY id",
                            StartQueue::entry, appliance);
        }
        JsonArray a = new JsonArray();
        Map<String, Integer> position = new java.util.HashMap<>();
        for (Entry e : all) {
            JsonObject o = json(e);
            o.addProperty("position", position.merge(e.appliance, 1, Integer::sum));
            a.add(o);
        }
        JsonObject o = new JsonObject();
        o.add("queue", a);
        return o;
    }

    /** Waiting starts per appliance, for the fleet. */
    Map<String, Integer> counts() throws SQLException {
        Map<String, Integer> out = new java.util.HashMap<>();
        try (Connection c = db.connection()) {
            Sql.list(c, "SELECT appliance, COUNT(*) FROM queued_start WHERE state IN ('queued', 'starting') GROUP BY"
                    + " appliance", rs -> out.put(rs.getString(1), rs.getInt(2)));
        }
        return out;
    }

    /** Its place in its appliance's queue (1: next), 0 when it no longer waits. */
    int position(long id) throws SQLException {
        Entry e = get(id);
        if (!e.state.equals("queued") && !e.state.equals("starting")) {
            return 0;
        }
        try (Connection c = db.connection()) {
            return (int) Sql.count(c, "SELECT COUNT(*) FROM queued_start WHERE appliance = ? AND state IN ('queued',"
                    + " 'starting') AND id <= ?", e.appliance, id);
        }
    }

    private Entry get(long id) throws SQLException {
        try (Connection c = db.connection()) {
            Entry e = Sql.one(c, SELECT + " WHERE id = ?", StartQueue::entry, id);
            if (e == null) {
                throw new NotFound("no queued start " + id);
            }
            return e;
        }
    }

    private void changed(long id, String appliance) {
        Events to = events;
        if (to == null) {
            return;
        }
        try {
            JsonObject o = json(get(id));
            o.addProperty("position", position(id));
            to.send(new Events.Event("queue", appliance, o.has("run") && !o.get("run").isJsonNull()
                    ? o.get("run").getAsString() : null, Json.GSON.toJson(o)));
        } catch (SQLException | RuntimeException e) {
            LOG.warn("queue event for {}: {}", id, Db.rootMessage(e));
        }
    }

    private static final String SELECT = "SELECT id, appliance, queued_ms, queued_by, plan, plan_version, plan_sha256,"
            + " plan_text, target, state, request_id, run_id, answer, ended_ms, ended_by, for_record FROM queued_start";

    private record Entry(long id, String appliance, long queuedMs, String queuedBy, String plan, Integer version,
            String sha256, String planText, String target, String state, String requestId, String run, String answer,
            Long endedMs, String endedBy, boolean forRecord) {
    }

    private static Entry entry(java.sql.ResultSet rs) throws SQLException {
        int v = rs.getInt(6);
        Integer version = rs.wasNull() ? null : v;
        return new Entry(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getString(4), rs.getString(5), version,
                rs.getString(7), rs.getString(8), rs.getString(9), rs.getString(10), rs.getString(11), rs.getString(12),
                rs.getString(13), Sql.longOrNull(rs, "ended_ms"), rs.getString(15), rs.getBoolean(16));
    }

    private static JsonObject json(Entry e) {
        JsonObject o = new JsonObject();
        o.addProperty("id", e.id);
        o.addProperty("appliance", e.appliance);
        o.addProperty("state", e.state);
        o.addProperty("queued", Json.iso(e.queuedMs));
        o.addProperty("queued_by", e.queuedBy);
        o.addProperty("plan", e.plan);
        o.addProperty("version", e.version);
        o.addProperty("plan_sha256", e.sha256);
        JsonObject t = Json.parse(e.target);
        o.add("serial", t.get("serial"));
        o.add("model", t.get("model"));
        o.addProperty("run", e.run);
        o.add("answer", e.answer == null ? null : Json.parse(e.answer));
        o.addProperty("ended", e.endedMs == null ? null : Json.iso(e.endedMs));
        o.addProperty("ended_by", e.endedBy);
        return o;
    }
}
