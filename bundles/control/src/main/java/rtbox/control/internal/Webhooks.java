package rtbox.control.internal;

import java.net.URI;
import java.net.URISyntaxException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

import rtbox.json.JsonFields;
import rtbox.json.JsonProblem;

/**
 * The webhooks an admin configures (docs/control-api.md, "Webhooks"): add (the secret given or
 * made, shown once in the answer, kept sealed by {@link WebhookSecrets}), list with each one's
 * latest deliveries (state, attempts, last code, next attempt), delete (its deliveries with it).
 * Audited without the secret and with the URL's scheme and host only (a chat's webhook URL is a
 * credential in its path); the secret is never in an answer after the one that made it, nor in
 * a log line.
 */
final class Webhooks {
    static final int MAX_URL = 2000;
    static final int SECRET_MIN = 16, SECRET_MAX = 200;
    /** An offline alert after at least 10 s and at most 30 days of silence. */
    static final long OFFLINE_MIN = 10, OFFLINE_MAX = 30L * 24 * 3600;
    /** Deliveries listed per webhook. */
    static final int SHOWN = 10;
    private final Db db;
    private final WebhookSecrets secrets;

    Webhooks(Db db, WebhookSecrets secrets) {
        this.db = db;
        this.secrets = secrets;
    }

    /**
     * {@code {"site":..,"url":..,"events":[..],"offline_after_s":N,"secret":..(optional)}}: the
     * new webhook, with its secret (made when none was given) this once.
     */
    JsonObject create(String user, JsonObject body) throws SQLException {
        JsonFields f = Input.fields(body, List.of("site", "url", "events", "offline_after_s", "secret"));
        String site = Input.text(f, "site", 64);
        if (site == null) {
            throw new BadRequest(f.at("site") + ": required: a site, '*' for every site or '' for the appliances"
                    + " without one");
        }
        String url = url(f.at("url"), Input.requiredText(f, "url", MAX_URL));
        Set<String> events = new LinkedHashSet<>();
        try {
            if (!f.has("events")) {
                throw new BadRequest(f.at("events") + ": required: a list of " + String.join(", ", WebhookOutbox.EVENTS));
            }
            List<String> asked = f.strings("events");
            for (int i = 0; i < asked.size(); i++) {
                if (!WebhookOutbox.EVENTS.contains(asked.get(i))) {
                    throw new BadRequest(f.at("events") + "[" + i + "]: '" + Input.shown(asked.get(i)) + "' is not an"
                            + " event (" + String.join(", ", WebhookOutbox.EVENTS) + ")");
                }
                events.add(asked.get(i));
            }
        } catch (JsonProblem p) {
            throw new BadRequest(p.getMessage());
        }
        if (events.isEmpty()) {
            throw new BadRequest(f.at("events") + ": at least one of " + String.join(", ", WebhookOutbox.EVENTS));
        }
        Long offline;
        try {
            offline = f.optLng("offline_after_s");
        } catch (JsonProblem p) {
            throw new BadRequest(p.getMessage());
        }
        if (events.contains(WebhookOutbox.OFFLINE) != (offline != null)) {
            throw new BadRequest(f.at("offline_after_s") + ": " + (offline == null ? "required with the event "
                    + WebhookOutbox.OFFLINE + " (seconds offline before it is told)" : "only with the event "
                    + WebhookOutbox.OFFLINE));
        }
        if (offline != null && (offline < OFFLINE_MIN || offline > OFFLINE_MAX)) {
            throw new BadRequest(f.at("offline_after_s") + ": " + OFFLINE_MIN + " to " + OFFLINE_MAX + " seconds, not "
                    + offline);
        }
        String secret = Input.text(f, "secret", SECRET_MAX);
        if (secret != null && secret.length() < SECRET_MIN) {
            throw new BadRequest(f.at("secret") + ": at least " + SECRET_MIN + " characters (or none: the control room"
                    + " makes one)");
        }
        if (secret == null) {
            secret = "whsec_" + Passwords.random(32);
        }
        long now = System.currentTimeMillis();
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            Sql.update(c, "INSERT INTO webhook (site, url, events, offline_after_s, secret, created_ms, created_by)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?)", site, url, String.join(",", events), offline,
                    secrets.seal(secret, url), now, user);
            long id = Sql.one(c, "SELECT MAX(id) FROM webhook WHERE created_by = ? AND created_ms = ? AND url = ?",
                    rs -> rs.getLong(1), user, now, url);
            Audit.log(c, user, "webhook-add", Long.toString(id), auditDetail(site, url, events, offline));
            c.commit();
            JsonObject o = one(c, id);
            o.addProperty("secret", secret);
            return o;
        }
    }

    /** http or https with a host, no user or password in it: a 400 naming the field otherwise. */
    static String url(String where, String text) {
        URI u;
        try {
            u = new URI(text);
        } catch (URISyntaxException e) {
            throw new BadRequest(where + ": not a URL (" + Input.shown(text) + ")");
        }
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(java.util.Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new BadRequest(where + ": http:// or https://, not '" + Input.shown(text) + "'");
        }
        if (u.getHost() == null || u.getHost().isEmpty()) {
            throw new BadRequest(where + ": the URL has no host");
        }
        if (u.getRawUserInfo() != null) {
            throw new BadRequest(where + ": no user or password in the URL (the receiver checks the signature)");
        }
        if (u.getRawFragment() != null) {
            throw new BadRequest(where + ": no #fragment in the URL");
        }
        return text;
    }

    /** scheme://host[:port]: what the audit and the log name of a URL whose path may be a credential. */
    static String shownUrl(String url) {
        URI u = URI.create(url);
        return u.getScheme() + "://" + u.getHost() + (u.getPort() >= 0 ? ":" + u.getPort() : "") + "/...";
    }

    private static JsonObject auditDetail(String site, String url, Set<String> events, Long offline) {
        JsonObject d = new JsonObject();
        d.addProperty("site", site);
        d.addProperty("url", shownUrl(url));
        JsonArray e = new JsonArray();
        events.forEach(e::add);
        d.add("events", e);
        d.addProperty("offline_after_s", offline);
        return d;
    }

    /** Every webhook, with its latest deliveries and counts by state; never a secret. */
    JsonObject list() throws SQLException {
        try (Connection c = db.connection()) {
            JsonArray a = new JsonArray();
            for (long id : Sql.list(c, "SELECT id FROM webhook ORDER BY id", rs -> rs.getLong(1))) {
                a.add(one(c, id));
            }
            JsonObject o = new JsonObject();
            o.add("webhooks", a);
            return o;
        }
    }

    /** Deletes webhook {@code id} and its deliveries, sent or not (audited). */
    JsonObject delete(String user, long id) throws SQLException {
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            Object[] w = Sql.one(c, "SELECT site, url FROM webhook WHERE id = ?", rs -> new Object[] {rs.getString(1),
                rs.getString(2)}, id);
            if (w == null) {
                c.rollback();
                throw new NotFound("no webhook " + id);
            }
            JsonObject d = new JsonObject();
            d.addProperty("site", (String) w[0]);
            d.addProperty("url", shownUrl((String) w[1]));
            d.addProperty("pending", Sql.count(c, "SELECT COUNT(*) FROM webhook_delivery WHERE webhook_id = ? AND state IN"
                    + " ('pending', 'sending')", id));
            Sql.update(c, "DELETE FROM webhook_delivery WHERE webhook_id = ?", id);
            Sql.update(c, "DELETE FROM webhook_offline WHERE webhook_id = ?", id);
            Sql.update(c, "DELETE FROM webhook WHERE id = ?", id);
            Audit.log(c, user, "webhook-delete", Long.toString(id), d);
            c.commit();
        }
        return list();
    }

    private static JsonObject one(Connection c, long id) throws SQLException {
        JsonObject o = Sql.one(c, "SELECT id, site, url, events, offline_after_s, created_ms, created_by FROM webhook"
                + " WHERE id = ?", rs -> {
                    JsonObject w = new JsonObject();
                    w.addProperty("id", rs.getLong("id"));
                    w.addProperty("site", rs.getString("site"));
                    w.addProperty("url", rs.getString("url"));
                    JsonArray e = new JsonArray();
                    for (String x : rs.getString("events").split(",")) {
                        e.add(x);
                    }
                    w.add("events", e);
                    w.addProperty("offline_after_s", Sql.longOrNull(rs, "offline_after_s"));
                    w.addProperty("created", Json.iso(rs.getLong("created_ms")));
                    w.addProperty("created_by", rs.getString("created_by"));
                    return w;
                }, id);
        if (o == null) {
            throw new NotFound("no webhook " + id);
        }
        JsonObject counts = new JsonObject();
        for (String s : List.of("pending", "sending", "delivered", "failed")) {
            counts.addProperty(s, 0);
        }
        Sql.list(c, "SELECT state, COUNT(*) FROM webhook_delivery WHERE webhook_id = ? GROUP BY state",
                rs -> new Object[] {rs.getString(1), rs.getLong(2)}, id)
                .forEach(r -> counts.addProperty((String) r[0], (Long) r[1]));
        o.add("deliveries_by_state", counts);
        JsonArray d = new JsonArray();
        List<JsonObject> rows = new ArrayList<>(Sql.list(c, "SELECT id, event, created_ms, state, attempts, next_ms,"
                + " last_ms, last_code, last_error, delivered_ms FROM webhook_delivery WHERE webhook_id = ?"
                + " ORDER BY created_ms DESC, id LIMIT " + SHOWN, Webhooks::delivery, id));
        rows.forEach(d::add);
        o.add("deliveries", d);
        return o;
    }

    private static JsonObject delivery(ResultSet rs) throws SQLException {
        JsonObject o = new JsonObject();
        o.addProperty("id", rs.getString("id"));
        o.addProperty("event", rs.getString("event"));
        o.addProperty("created", Json.iso(rs.getLong("created_ms")));
        String state = rs.getString("state");
        o.addProperty("state", state);
        o.addProperty("attempts", rs.getInt("attempts"));
        Long last = Sql.longOrNull(rs, "last_ms"), delivered = Sql.longOrNull(rs, "delivered_ms");
        o.addProperty("last_attempt", last == null ? null : Json.iso(last));
        o.addProperty("last_code", Sql.longOrNull(rs, "last_code"));
        o.addProperty("last_error", rs.getString("last_error"));
        boolean waiting = state.equals("pending") || state.equals("sending");
        o.addProperty("next_attempt", waiting ? Json.iso(rs.getLong("next_ms")) : null);
        o.addProperty("delivered", delivered == null ? null : Json.iso(delivered));
        return o;
    }
}
