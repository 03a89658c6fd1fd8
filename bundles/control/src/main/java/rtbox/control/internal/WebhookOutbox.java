package rtbox.control.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import com.google.gson.JsonObject;

/**
 * The webhooks' outbox (docs/control-api.md, "Webhooks"): a delivery row per webhook that asks
 * for an event, written on the connection and in the transaction of the event's cause (the
 * result stored by the ingest, the record issued, the offline spell marked), so that what
 * committed is told and a kill -9 before the commit leaves neither. The rows are sent by
 * {@link WebhookDelivery}, never by the writer of the cause: the ingest only inserts a row.
 *
 * <p>A delivery's body is fixed when it is written (the bytes that are signed at each
 * attempt): {@code delivery} (its id, also the {@code X-Rtbox-Delivery} header), {@code event},
 * {@code at}, then the event's own fields. Events of unregistered appliances are not told
 * (they count for nothing of the fleet until an admin accepts them).
 */
final class WebhookOutbox {
    /** A run ended FAIL or INCONCLUSIVE (never PASS). */
    static final String RUN_VERDICT = "run.verdict";
    /** An appliance offline longer than the webhook's {@code offline_after_s}. */
    static final String OFFLINE = "appliance.offline";
    /** A run outside its golden reference's envelope (compared after its result). */
    static final String ENVELOPE = "run.outside_envelope";
    /** An acceptance record issued. */
    static final String RECORD = "record.issued";
    static final List<String> EVENTS = List.of(RUN_VERDICT, OFFLINE, ENVELOPE, RECORD);

    private WebhookOutbox() {
    }

    /**
     * A run's result was stored (on the ingest's connection, inside its transaction): a
     * {@link #RUN_VERDICT} delivery when it did not pass, and a check against the golden envelope
     * for later when a webhook of the site asks for {@link #ENVELOPE}.
     */
    static void resultStored(Connection c, boolean postgres, String site, String appliance, String run,
            String verdict, String reason, String plan, long now) throws SQLException {
        List<Object[]> hooks = hooks(c, site);
        if (hooks.isEmpty() || !registered(c, appliance)) {
            return;
        }
        if ("FAIL".equals(verdict) || "INCONCLUSIVE".equals(verdict)) {
            JsonObject f = new JsonObject();
            f.addProperty("site", site);
            f.addProperty("appliance", appliance);
            f.addProperty("run", run);
            f.addProperty("plan", plan);
            f.addProperty("verdict", verdict);
            f.addProperty("reason", reason);
            for (Object[] h : hooks) {
                if (asks(h, RUN_VERDICT)) {
                    write(c, (Long) h[0], RUN_VERDICT, f, now);
                }
            }
        }
        for (Object[] h : hooks) {
            if (asks(h, ENVELOPE)) {
                Sql.insertIfAbsent(c, postgres, "INSERT INTO webhook_check (appliance, run_id, created_ms) VALUES"
                        + " (?, ?, ?)", appliance, run, now);
                break;
            }
        }
    }

    /** A record was issued (in the transaction that inserts it). */
    static void recordIssued(Connection c, String appliance, String run, long record, String verdict, String serial,
            String model, String signedBy, long now) throws SQLException {
        String site = Sql.one(c, "SELECT site FROM run WHERE appliance = ? AND run_id = ?", rs -> rs.getString(1),
                appliance, run);
        JsonObject f = new JsonObject();
        f.addProperty("site", site == null ? "" : site);
        f.addProperty("appliance", appliance);
        f.addProperty("run", run);
        f.addProperty("record", record);
        f.addProperty("verdict", verdict);
        f.addProperty("serial", serial);
        f.addProperty("model", model);
        f.addProperty("signed_by", signedBy);
        for (Object[] h : hooks(c, site == null ? "" : site)) {
            if (asks(h, RECORD)) {
                write(c, (Long) h[0], RECORD, f, now);
            }
        }
    }

    /** The webhooks of {@code site} ('*' ones included): id, events. */
    private static List<Object[]> hooks(Connection c, String site) throws SQLException {
        return Sql.list(c, "SELECT id, events FROM webhook WHERE site = ? OR site = '*'",
                rs -> new Object[] {rs.getLong(1), rs.getString(2)}, site == null ? "" : site);
    }

    static boolean asks(String events, String event) {
        return ("," + events + ",").contains("," + event + ",");
    }

    private static boolean asks(Object[] hook, String event) {
        return asks((String) hook[1], event);
    }

    private static boolean registered(Connection c, String appliance) throws SQLException {
        return Boolean.TRUE.equals(Sql.one(c, "SELECT registered FROM appliance WHERE id = ?", rs -> rs.getBoolean(1),
                appliance));
    }

    /** One delivery of {@code event} to webhook {@code webhook}, due now; returns its id. */
    static String write(Connection c, long webhook, String event, JsonObject fields, long now) throws SQLException {
        String id = Passwords.random(16);
        JsonObject body = new JsonObject();
        body.addProperty("delivery", id);
        body.addProperty("event", event);
        body.addProperty("at", Json.iso(now));
        fields.entrySet().forEach(e -> body.add(e.getKey(), e.getValue()));
        Sql.update(c, "INSERT INTO webhook_delivery (id, webhook_id, event, body, created_ms, state, attempts, next_ms)"
                + " VALUES (?, ?, ?, ?, ?, 'pending', 0, ?)", id, webhook, event, Json.GSON.toJson(body), now, now);
        return id;
    }
}
