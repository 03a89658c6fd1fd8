package rtbox.control.internal;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

import rtbox.json.JsonFields;

/**
 * API tokens (docs/control-api.md, "API tokens"): per user, made and revoked through the API,
 * shown once, kept as their SHA-256, with the user's role or a lower one and an optional
 * expiry. A request with {@code Authorization: Bearer TOKEN} is that user's, at the token's
 * role capped by the user's role of the moment; a revoked or expired token, or one of a
 * deleted user, is refused (401) at its next request: each request looks the token up in the
 * database, so every control room on that database refuses it at once.
 *
 * <p>SHA-256, not PBKDF2 as for passwords: a token is 256 random bits, so its hash cannot be
 * reversed by guessing however fast the hash is, while a slow hash would cost every API call
 * of a CI job (and of a flood of wrong tokens) some 0.3 s of CPU; a fast hash also lets the
 * token be found by an indexed look-up of its hash.
 *
 * <p>Each use is audited counted per token and minute ({@link CountedAudit}: {@code token-use}
 * with the first request's method and path, then {@code token-use-repeated} with how many
 * more), so that a CI loop polling every second cannot fill the disk.
 */
final class ApiTokens {
    /** Every token starts so: secret scanners and people recognise it. */
    static final String PREFIX = "rtbox_";
    private static final int MAX_TOKEN = 100;
    private final Db db;
    private final CountedAudit uses;

    ApiTokens(Db db, Audit audit) {
        this.db = db;
        this.uses = new CountedAudit(audit, "token-use", 4096);
    }

    /**
     * The request's principal for a bearer token: refused with 401 and the reason (unknown,
     * revoked, expired) when it may not be used. {@code method} and {@code path} go to the audit.
     */
    Users.Session use(String bearer, String method, String path) throws SQLException {
        if (bearer.isEmpty() || bearer.length() > MAX_TOKEN) {
            throw new BadRequest(401, "unknown API token");
        }
        long now = System.currentTimeMillis();
        String key = Passwords.sha256(bearer.getBytes(StandardCharsets.UTF_8));
        Object[] t;
        try (Connection c = db.connection()) {
            t = Sql.one(c, "SELECT t.id, t.name, t.user_name, t.role, t.expires_ms, t.revoked_ms, t.used_ms, u.role,"
                    + " u.disabled_ms FROM api_token t JOIN users u ON u.name = t.user_name WHERE t.token_sha256 = ?",
                    rs -> new Object[] {rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4),
                        Sql.longOrNull(rs, "expires_ms"), Sql.longOrNull(rs, "revoked_ms"),
                        Sql.longOrNull(rs, "used_ms"), rs.getString(8), Sql.longOrNull(rs, "disabled_ms")}, key);
            if (t == null) {
                throw new BadRequest(401, "unknown API token");
            }
            if (t[5] != null) {
                throw new BadRequest(401, "API token '" + t[1] + "' was revoked at " + Json.iso((Long) t[5]));
            }
            if (t[8] != null) {
                throw new BadRequest(401, "API token '" + t[1] + "': its user '" + t[2] + "' is disabled");
            }
            if (t[4] != null && (Long) t[4] <= now) {
                throw new BadRequest(401, "API token '" + t[1] + "' expired at " + Json.iso((Long) t[4]));
            }
            if (t[6] == null || now - (Long) t[6] > 60_000) {
                Sql.update(c, "UPDATE api_token SET used_ms = ? WHERE id = ?", now, t[0]);
            }
        }
        Role token = Role.of((String) t[3]), user = Role.of((String) t[7]);
        JsonObject d = new JsonObject();
        d.addProperty("token_id", (Long) t[0]);
        d.addProperty("method", method);
        d.addProperty("path", Input.shown(path));
        uses.count((String) t[2], (String) t[1], d);
        return new Users.Session(null, (String) t[2], user.atLeast(token) ? token : user, null, (String) t[1]);
    }

    /**
     * A new token of {@code s}'s user: {@code {"name":..,"role":..(default the user's),
     * "expires":ISO-8601 instant (optional)}}; the answer holds the token itself, the only time
     * it is shown.
     */
    JsonObject create(Users.Session s, JsonObject body) throws SQLException {
        JsonFields f = Input.fields(body, List.of("name", "role", "expires"));
        String name = Input.requiredText(f, "name", 64);
        if (!name.matches("[A-Za-z0-9._@-]{1,64}")) {
            throw new BadRequest("$.name: a token's name is 1 to 64 of A-Z a-z 0-9 . _ @ -");
        }
        String roleText = Input.text(f, "role", 16);
        Role role = roleText == null ? s.role() : roleOf(roleText);
        if (!s.role().atLeast(role)) {
            throw new BadRequest(403, "$.role: a token has at most your role (" + s.role().id() + "), not "
                    + role.id());
        }
        String expiresText = Input.text(f, "expires", 40);
        long now = System.currentTimeMillis();
        Long expires = null;
        if (expiresText != null) {
            try {
                expires = Instant.parse(expiresText).toEpochMilli();
            } catch (DateTimeParseException e) {
                throw new BadRequest("$.expires: '" + Input.shown(expiresText) + "' is not a time such as"
                        + " 2027-06-30T00:00:00Z");
            }
            if (expires <= now) {
                throw new BadRequest("$.expires: " + expiresText + " is not in the future");
            }
        }
        String token = PREFIX + Passwords.random(32);
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            if (Sql.count(c, "SELECT COUNT(*) FROM api_token WHERE user_name = ? AND name = ? AND revoked_ms IS NULL",
                    s.user(), name) > 0) {
                c.rollback();
                throw new BadRequest(409, "you have a token '" + name + "' already: revoke it first or take another"
                        + " name");
            }
            Sql.update(c, "INSERT INTO api_token (user_name, name, role, token_sha256, created_ms, expires_ms)"
                    + " VALUES (?, ?, ?, ?, ?, ?)", s.user(), name, role.id(),
                    Passwords.sha256(token.getBytes(StandardCharsets.UTF_8)), now, expires);
            long id = Sql.one(c, "SELECT id FROM api_token WHERE user_name = ? AND name = ? AND revoked_ms IS NULL",
                    rs -> rs.getLong(1), s.user(), name);
            JsonObject d = new JsonObject();
            d.addProperty("token_id", id);
            d.addProperty("role", role.id());
            d.addProperty("expires", expires == null ? null : Json.iso(expires));
            Audit.log(c, s.user(), "token-add", name, d);
            c.commit();
            JsonObject o = one(c, id);
            o.addProperty("token", token);
            return o;
        }
    }

    private static Role roleOf(String s) {
        try {
            return Role.of(s);
        } catch (BadRequest e) {
            throw new BadRequest("$.role: " + e.getMessage());
        }
    }

    /** {@code user}'s tokens (null: everyone's), newest first; never the tokens themselves. */
    JsonObject list(String user) throws SQLException {
        try (Connection c = db.connection()) {
            JsonArray a = new JsonArray();
            Sql.list(c, COLUMNS + (user == null ? "" : " WHERE user_name = ?") + " ORDER BY id DESC", ApiTokens::row,
                    user == null ? new Object[0] : new Object[] {user}).forEach(a::add);
            JsonObject o = new JsonObject();
            o.add("tokens", a);
            return o;
        }
    }

    /** Revokes token {@code id}: the user's own, or any for an admin. Its next request is a 401. */
    JsonObject revoke(Users.Session s, long id) throws SQLException {
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            String[] t = Sql.one(c, "SELECT user_name, name FROM api_token WHERE id = ?",
                    rs -> new String[] {rs.getString(1), rs.getString(2)}, id);
            if (t == null || (!t[0].equals(s.user()) && s.role() != Role.ADMIN)) {
                c.rollback();
                throw new NotFound("no API token " + id + (s.role() == Role.ADMIN ? "" : " of yours"));
            }
            if (Sql.update(c, "UPDATE api_token SET revoked_ms = ?, revoked_by = ? WHERE id = ? AND revoked_ms IS NULL",
                    System.currentTimeMillis(), s.user(), id) == 1) {
                JsonObject d = new JsonObject();
                d.addProperty("token_id", id);
                d.addProperty("user", t[0]);
                Audit.log(c, s.user(), "token-revoke", t[1], d);
            }
            c.commit();
            return one(c, id);
        }
    }

    private static final String COLUMNS = "SELECT id, user_name, name, role, created_ms, expires_ms, used_ms,"
            + " revoked_ms, revoked_by FROM api_token";

    private static JsonObject one(Connection c, long id) throws SQLException {
        return Sql.one(c, COLUMNS + " WHERE id = ?", ApiTokens::row, id);
    }

    private static JsonObject row(java.sql.ResultSet rs) throws SQLException {
        JsonObject o = new JsonObject();
        o.addProperty("id", rs.getLong("id"));
        o.addProperty("user", rs.getString("user_name"));
        o.addProperty("name", rs.getString("name"));
        o.addProperty("role", rs.getString("role"));
        o.addProperty("created", Json.iso(rs.getLong("created_ms")));
        Long e = Sql.longOrNull(rs, "expires_ms"), u = Sql.longOrNull(rs, "used_ms"),
                r = Sql.longOrNull(rs, "revoked_ms");
        o.addProperty("expires", e == null ? null : Json.iso(e));
        o.addProperty("last_used", u == null ? null : Json.iso(u));
        o.addProperty("revoked", r == null ? null : Json.iso(r));
        o.addProperty("revoked_by", rs.getString("revoked_by"));
        o.addProperty("state", r != null ? "revoked" : e != null && e <= System.currentTimeMillis()
                ? "expired" : "active");
        return o;
    }

    /** Writes the counted uses (at the control room's stop). */
    void flush() {
        uses.flush();
    }
}
