package rtbox.control.internal;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.google.gson.JsonObject;

/**
 * The plan library's versions in the database (table {@code plan_version}): a save adds a
 * version, nothing is ever changed or deleted, so every old version stays runnable. Plans
 * that come from files (rtbox's shipped plans, the plansDir folder) are imported by one
 * rule, {@link #importFile}: a file whose text is already a version of its name adds
 * nothing, and a changed file adds a version only while nobody saved one in the control
 * room on top of the file's (a person's edit is never overwritten by a file).
 */
final class PlanStore {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.control.plans");
    static final String SHIPPED = "shipped", FOLDER = "folder", SAVED = "saved";
    /** Who imported a file's plan, in the versions and the audit log. */
    static final String IMPORTER = "rtbox";

    private final Db db;

    PlanStore(Db db) {
        this.db = db;
    }

    /** One stored version. */
    record Version(String name, int version, String sha256, String text, long createdMs, String createdBy,
            String source) {
        JsonObject brief() {
            JsonObject o = new JsonObject();
            o.addProperty("name", name);
            o.addProperty("version", version);
            o.addProperty("sha256", sha256);
            o.addProperty("created", Json.iso(createdMs));
            o.addProperty("created_by", createdBy);
            o.addProperty("source", source);
            return o;
        }
    }

    private static final String COLUMNS = "name, version, sha256, body, created_ms, created_by, source";

    private static Version row(java.sql.ResultSet rs) throws SQLException {
        return new Version(rs.getString(1), rs.getInt(2), rs.getString(3), rs.getString(4), rs.getLong(5),
                rs.getString(6), rs.getString(7));
    }

    /** The newest version of every plan, by name. */
    List<Version> latest() throws SQLException {
        try (Connection c = db.connection()) {
            return Sql.list(c, "SELECT " + COLUMNS + " FROM plan_version p WHERE version = (SELECT MAX(version) FROM"
                    + " plan_version q WHERE q.name = p.name) ORDER BY name", PlanStore::row);
        }
    }

    /** Every version of a plan, newest first (empty when there is no such plan). */
    List<Version> versions(String name) throws SQLException {
        try (Connection c = db.connection()) {
            return Sql.list(c, "SELECT " + COLUMNS + " FROM plan_version WHERE name = ? ORDER BY version DESC",
                    PlanStore::row, name);
        }
    }

    /** A version of a plan, the newest when {@code version} is null; 404 naming what there is. */
    Version get(String name, Integer version) throws SQLException {
        List<Version> all = versions(name);
        if (all.isEmpty()) {
            throw new NotFound("no plan '" + Input.shown(name) + "' in the library (there: " + String.join(", ",
                    latest().stream().map(Version::name).toList()) + ")");
        }
        if (version == null) {
            return all.get(0);
        }
        for (Version v : all) {
            if (v.version() == version) {
                return v;
            }
        }
        throw new NotFound("plan '" + name + "' has no version " + version + " (it has 1 to " + all.get(0).version()
                + ")");
    }

    /**
     * Saves {@code text} as the next version of {@code name} by {@code user}, audited as
     * {@code plan-save}; a text equal to the newest version's adds nothing and returns that
     * version. The caller has checked the text.
     */
    Version save(String name, String text, String user) throws SQLException {
        return add(name, text, user, SAVED, true);
    }

    /** A file's plan imported by the rule in the class comment; null when it added nothing. */
    Version importFile(String name, String text, String source) throws SQLException {
        return add(name, text, IMPORTER, source, false);
    }

    private Version add(String name, String text, String user, String source, boolean save) throws SQLException {
        String sha = Passwords.sha256(text.getBytes(StandardCharsets.UTF_8));
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            Version newest = Sql.one(c, "SELECT " + COLUMNS + " FROM plan_version WHERE name = ? ORDER BY version DESC"
                    + " FETCH FIRST 1 ROWS ONLY", PlanStore::row, name);
            if (newest != null && newest.sha256().equals(sha)) {
                return save ? newest : null;
            }
            if (!save && newest != null) {
                boolean known = Sql.count(c, "SELECT COUNT(*) FROM plan_version WHERE name = ? AND sha256 = ?", name,
                        sha) > 0;
                if (known) {
                    return null;
                }
                if (!newest.source().equals(source)) {
                    // Someone saved a version in the control room (or the other kind of file) after this file's:
                    // theirs stays the newest.
                    LOG.info("plan {}: the {} file changed, but version {} ({}, by {}) is newer; the file is not"
                            + " imported", name, source, newest.version(), newest.source(), newest.createdBy());
                    return null;
                }
            }
            int next = newest == null ? 1 : newest.version() + 1;
            long now = System.currentTimeMillis();
            try {
                Sql.update(c, "INSERT INTO plan_version (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?)", name, next,
                        sha, text, now, user, source);
            } catch (SQLException e) {
                if ("23505".equals(e.getSQLState())) {
                    c.rollback();
                    throw new BadRequest(409, "plan '" + name + "' got version " + next + " from someone else at the"
                            + " same moment: load it again and save on top of it");
                }
                throw e;
            }
            JsonObject d = new JsonObject();
            d.addProperty("version", next);
            d.addProperty("sha256", sha);
            d.addProperty("source", source);
            Audit.log(c, user, save ? "plan-save" : "plan-import", name, d);
            c.commit();
            return new Version(name, next, sha, text, now, user, source);
        }
    }
}
