package rtbox.control.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.EnumSet;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

/**
 * Users, log-in and sessions. A session is a random token in a cookie; the database keeps
 * only its SHA-256 (a stolen database opens no session), with the session's CSRF token,
 * so that any control-room instance on the same database serves any request.
 */
final class Users {
    static final long SESSION_MAX_MS = 8 * 3600_000L, SESSION_IDLE_MS = 30 * 60_000L;
    private static final int MAX_FAILURES = 5;
    private static final long LOCK_MS = 60_000;
    private final Db db;
    private final LoginFailures failures = new LoginFailures(MAX_FAILURES, LOCK_MS);

    Users(Db db) {
        this.db = db;
    }

    /**
     * Who a request is from: a log-in session ({@code token} its cookie, {@code csrf} its
     * synchronizer token, {@code apiToken} null) or an API token ({@code apiToken} its name,
     * {@code token} and {@code csrf} null: no cookie, so no CSRF to guard against).
     */
    record Session(String token, String user, Role role, String csrf, String apiToken) {
        Session(String token, String user, Role role, String csrf) {
            this(token, user, role, csrf, null);
        }
    }

    /**
     * With no user at all: makes {@code admin} with a generated password, written to
     * {@code file} (0600, its folder 0700). The password is never logged.
     */
    boolean ensureAdmin(Path file) throws SQLException, IOException {
        try (Connection c = db.connection()) {
            if (Sql.count(c, "SELECT COUNT(*) FROM users") > 0) {
                return false;
            }
        }
        String password = Passwords.random(18);
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(EnumSet.of(PosixFilePermission.OWNER_READ,
                PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE)));
        // Written aside first (a full disk fails here, before any admin exists), then moved into
        // place only once this instance's insert won: two instances starting on one database and
        // one folder left the loser's password in the file, not the winner's.
        Path pending = Files.createTempFile(dir, file.getFileName().toString(), ".pending",
                PosixFilePermissions.asFileAttribute(EnumSet.of(PosixFilePermission.OWNER_READ,
                        PosixFilePermission.OWNER_WRITE)));
        Files.writeString(pending, password + "\n", StandardCharsets.UTF_8);
        try (Connection c = db.connection()) {
            if (!Sql.insertIfAbsent(c, db.postgres, "INSERT INTO users (name, role, password_hash, created_ms)"
                    + " VALUES (?, ?, ?, ?)", "admin", Role.ADMIN.id(), Passwords.hash(password),
                    System.currentTimeMillis())) {
                return false; // another instance made it first: the file it wrote holds the password
            }
            Audit.log(c, "system", "user-add", "admin", null);
            Files.move(pending, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(pending);
        }
        return true;
    }

    /** A new session, or null for a wrong name or password; 429 while the name is locked. */
    Session login(String user, String password) throws SQLException {
        long now = System.currentTimeMillis();
        if (failures.locked(user, now)) {
            throw new BadRequest(429, "too many failed log-ins for '" + user + "': wait a minute");
        }
        String[] u;
        try (Connection c = db.connection()) {
            u = Sql.one(c, "SELECT role, password_hash, disabled_ms FROM users WHERE name = ?",
                    rs -> new String[] {rs.getString(1), rs.getString(2), rs.getString(3)}, user);
        }
        // A hash is computed also for an unknown user, so that the time taken does not tell.
        boolean ok = Passwords.matches(password, u != null ? u[1] : DUMMY);
        if (u == null || !ok) {
            failures.failed(user, now);
            return null;
        }
        failures.succeeded(user);
        if (u[2] != null) {
            // Said only to whoever knows the password: a disabled name is not told apart from a wrong one before.
            try (Connection c = db.connection()) {
                JsonObject d = new JsonObject();
                d.addProperty("disabled", true);
                Audit.log(c, user, "login-failed", null, d);
            }
            throw new BadRequest(401, "user '" + user + "' is disabled: an admin enables it again on the users page");
        }
        String token = Passwords.random(32), csrf = Passwords.random(32);
        try (Connection c = db.connection()) {
            Sql.update(c, "INSERT INTO session (token_sha256, user_name, csrf, created_ms, used_ms) VALUES (?, ?, ?, ?, ?)",
                    Passwords.sha256(token.getBytes(StandardCharsets.UTF_8)), user, csrf, now, now);
            Sql.update(c, "DELETE FROM session WHERE created_ms < ? OR used_ms < ?", now - SESSION_MAX_MS,
                    now - SESSION_IDLE_MS);
        }
        return new Session(token, user, Role.of(u[0]), csrf);
    }

    private static final String DUMMY = Passwords.hash(Passwords.random(12));

    /** The live session of {@code token}, or null (unknown, expired, or its user deleted). */
    Session session(String token) throws SQLException {
        if (token == null || token.isEmpty() || token.length() > 100) {
            return null;
        }
        long now = System.currentTimeMillis();
        String key = Passwords.sha256(token.getBytes(StandardCharsets.UTF_8));
        try (Connection c = db.connection()) {
            Object[] s = Sql.one(c, "SELECT s.user_name, u.role, s.csrf, s.created_ms, s.used_ms FROM session s"
                    + " JOIN users u ON u.name = s.user_name WHERE s.token_sha256 = ? AND u.disabled_ms IS NULL", rs -> new Object[] {
                        rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getLong(5)}, key);
            if (s == null || now - (Long) s[3] > SESSION_MAX_MS || now - (Long) s[4] > SESSION_IDLE_MS) {
                return null;
            }
            if (now - (Long) s[4] > 60_000) {
                Sql.update(c, "UPDATE session SET used_ms = ? WHERE token_sha256 = ?", now, key);
            }
            return new Session(token, (String) s[0], Role.of((String) s[1]), (String) s[2]);
        }
    }

    void logout(String token) throws SQLException {
        try (Connection c = db.connection()) {
            Sql.update(c, "DELETE FROM session WHERE token_sha256 = ?", Passwords.sha256(token.getBytes(
                    StandardCharsets.UTF_8)));
        }
    }

    JsonObject list() throws SQLException {
        try (Connection c = db.connection()) {
            JsonArray a = new JsonArray();
            Sql.list(c, "SELECT name, role, created_ms, disabled_ms, disabled_by FROM users ORDER BY name", rs -> {
                JsonObject u = new JsonObject();
                u.addProperty("name", rs.getString(1));
                u.addProperty("role", rs.getString(2));
                u.addProperty("created", Json.iso(rs.getLong(3)));
                Long disabled = Sql.longOrNull(rs, "disabled_ms");
                u.addProperty("disabled", disabled != null);
                u.addProperty("disabled_at", disabled == null ? null : Json.iso(disabled));
                u.addProperty("disabled_by", rs.getString(5));
                return u;
            }).forEach(a::add);
            JsonObject o = new JsonObject();
            o.add("users", a);
            return o;
        }
    }

    /** The longest password taken (a longer one is refused before it is hashed or looked up). */
    static final int MAX_PASSWORD = Input.PASSWORD_MAX;

    static void checkPassword(String password) {
        Input.password("$.password", password, true);
    }

    static void checkName(String name) {
        if (name == null || !name.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new BadRequest("$.name: '" + (name == null ? "" : Input.shown(name)) + "' is not a user name:"
                    + " letters, digits, '.', '_', '-', 1 to 64");
        }
    }

    void add(String by, String name, Role role, String password) throws SQLException {
        checkName(name);
        checkPassword(password);
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            if (!Sql.insertIfAbsent(c, db.postgres, "INSERT INTO users (name, role, password_hash, created_ms)"
                    + " VALUES (?, ?, ?, ?)", name, role.id(), Passwords.hash(password), System.currentTimeMillis())) {
                c.rollback();
                throw new BadRequest(409, "user '" + name + "' exists already");
            }
            JsonObject d = new JsonObject();
            d.addProperty("role", role.id());
            Audit.log(c, by, "user-add", name, d);
            c.commit();
        }
    }

    void change(String by, String name, Role role, String password) throws SQLException {
        change(by, name, role, password, null);
    }

    /**
     * An admin's change of a user: role, password, and {@code disabled} (null: unchanged). A
     * disabled user keeps their name, audit trail and records; their sessions end at once and
     * their API tokens answer 401 while disabled. No one disables themselves or the last
     * enabled admin.
     */
    void change(String by, String name, Role role, String password, Boolean disabled) throws SQLException {
        if (password != null) {
            checkPassword(password);
        }
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            String[] was = Sql.one(c, "SELECT role, disabled_ms FROM users WHERE name = ?",
                    rs -> new String[] {rs.getString(1), rs.getString(2)}, name);
            if (was == null) {
                throw new NotFound("no user '" + name + "'");
            }
            String old = was[0];
            boolean lastAdmin = Role.of(old) == Role.ADMIN && was[1] == null && admins(c) <= 1;
            if (role != null && role != Role.ADMIN && lastAdmin) {
                throw new BadRequest(409, "'" + name + "' is the last admin");
            }
            if (Boolean.TRUE.equals(disabled) && by.equals(name)) {
                throw new BadRequest(409, "you cannot disable yourself");
            }
            if (Boolean.TRUE.equals(disabled) && lastAdmin) {
                throw new BadRequest(409, "'" + name + "' is the last enabled admin");
            }
            if (disabled != null && disabled != (was[1] != null)) {
                if (disabled) {
                    Sql.update(c, "UPDATE users SET disabled_ms = ?, disabled_by = ? WHERE name = ?",
                            System.currentTimeMillis(), by, name);
                    Sql.update(c, "DELETE FROM session WHERE user_name = ?", name);
                } else {
                    Sql.update(c, "UPDATE users SET disabled_ms = NULL, disabled_by = NULL WHERE name = ?", name);
                }
            }
            if (role != null) {
                Sql.update(c, "UPDATE users SET role = ? WHERE name = ?", role.id(), name);
            }
            if (password != null) {
                Sql.update(c, "UPDATE users SET password_hash = ? WHERE name = ?", Passwords.hash(password), name);
                Sql.update(c, "DELETE FROM session WHERE user_name = ?", name);
            }
            JsonObject d = new JsonObject();
            if (role != null) {
                d.addProperty("role", role.id());
            }
            d.addProperty("password_changed", password != null);
            if (disabled != null) {
                d.addProperty("disabled", disabled);
            }
            Audit.log(c, by, by.equals(name) && role == null && disabled == null ? "password" : "user-change", name, d);
            c.commit();
        }
    }

    boolean checkOwnPassword(String name, String password) throws SQLException {
        try (Connection c = db.connection()) {
            String h = Sql.one(c, "SELECT password_hash FROM users WHERE name = ?", rs -> rs.getString(1), name);
            return h != null && Passwords.matches(password, h);
        }
    }

    void delete(String by, String name) throws SQLException {
        if (by.equals(name)) {
            throw new BadRequest(409, "you cannot delete yourself");
        }
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            String old = Sql.one(c, "SELECT role FROM users WHERE name = ?", rs -> rs.getString(1), name);
            if (old == null) {
                throw new NotFound("no user '" + name + "'");
            }
            if (Role.of(old) == Role.ADMIN && admins(c) <= 1) {
                throw new BadRequest(409, "'" + name + "' is the last admin");
            }
            Sql.update(c, "DELETE FROM session WHERE user_name = ?", name);
            // Revoked, not deleted: a user made again with the same name must not inherit them.
            Sql.update(c, "UPDATE api_token SET revoked_ms = ?, revoked_by = ? WHERE user_name = ? AND revoked_ms IS NULL",
                    System.currentTimeMillis(), by, name);
            Sql.update(c, "DELETE FROM users WHERE name = ?", name);
            Audit.log(c, by, "user-delete", name, null);
            c.commit();
        }
    }

    private static long admins(Connection c) throws SQLException {
        return Sql.count(c, "SELECT COUNT(*) FROM users WHERE role = 'admin' AND disabled_ms IS NULL");
    }
}
