package rtbox.control.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.ResourceProvider;
import org.flywaydb.core.api.resource.LoadableResource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * The control room's database: H2 in a file (the default) or PostgreSQL (a site), one
 * schema for both, migrated by Flyway at open. A connection pool (HikariCP) serves the
 * ingest and the API side by side.
 *
 * <p>The migrations are listed here and read from this bundle: Flyway's class-path
 * scanning does not see into an OSGi bundle's embedded jars reliably, a list does.
 */
final class Db implements AutoCloseable {
    static {
        // H2's AUTO_SERVER (which lets rtbox control verify and rtbox job open the file while rtbox
        // control runs) opens a TCP server; without this it listens on every interface of the machine.
        if (System.getProperty("h2.bindAddress") == null) {
            System.setProperty("h2.bindAddress", "127.0.0.1");
        }
    }

    /**
     * Every migration, in order. A new one is added here and in db/migration, or in
     * db/migration/h2 and db/migration/postgresql when the two databases need their own
     * (V2: PostgreSQL partitions message by site and month, H2 has the columns only).
     */
    static final List<String> MIGRATIONS = List.of("V1__control_room.sql", "V2__site.sql", "V3__record_signature.sql",
            "V4__reference_override.sql", "V5__appliance_registered.sql", "V6__readiness_and_selftest.sql",
            "V7__api_token.sql",
            "V8__plan_library.sql", "V9__start_queue.sql", "V10__user_disabled.sql",
            "V11__webhook.sql");

    private final HikariDataSource pool;
    final boolean postgres;
    final String url;

    private Db(HikariDataSource pool, boolean postgres, String url) {
        this.pool = pool;
        this.postgres = postgres;
        this.url = url;
    }

    /** Opens (and migrates) the database at {@code url}; user and password may be null for H2. */
    static Db open(String url, String user, String password) throws SQLException {
        return open(url, user, password, false);
    }

    /** {@code existing}: a database without the control room's schema is refused, not migrated into one. */
    static Db open(String url, String user, String password, boolean existing) throws SQLException {
        boolean postgres = url.startsWith("jdbc:postgresql:");
        if (!postgres && !url.startsWith("jdbc:h2:")) {
            throw new SQLException("jdbcUrl " + url + " is neither H2 (jdbc:h2:...) nor PostgreSQL (jdbc:postgresql:...)");
        }
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url);
        // The drivers are in this bundle: name them, DriverManager would look in the wrong class loader.
        c.setDriverClassName(postgres ? "org.postgresql.Driver" : "org.h2.Driver");
        if (user != null && !user.isEmpty()) {
            c.setUsername(user);
        }
        if (password != null && !password.isEmpty()) {
            c.setPassword(password);
        }
        c.setMaximumPoolSize(8);
        c.setMinimumIdle(1);
        c.setPoolName("rtbox-control");
        c.setInitializationFailTimeout(10_000);
        ClassLoader old = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(Db.class.getClassLoader());
        HikariDataSource pool;
        try {
            pool = new HikariDataSource(c);
        } catch (RuntimeException e) {
            throw new SQLException("cannot open the database " + url + ": " + rootMessage(e), e);
        } finally {
            Thread.currentThread().setContextClassLoader(old);
        }
        if (existing) {
            try (Connection conn = pool.getConnection();
                 java.sql.ResultSet rs = conn.getMetaData().getTables(null, null, "%", new String[] {"TABLE"})) {
                boolean found = false;
                while (rs.next()) {
                    found |= "flyway_schema_history".equalsIgnoreCase(rs.getString("TABLE_NAME"));
                }
                if (!found) {
                    pool.close();
                    throw new SQLException("the database " + url + " holds no control room (no schema): nothing to"
                            + " verify");
                }
            }
        }
        try {
            migrate(pool, postgres);
        } catch (RuntimeException e) {
            pool.close();
            throw new SQLException("cannot migrate the database " + url + ": " + rootMessage(e), e);
        }
        if (!postgres) {
            durableCommits(pool);
        }
        return new Db(pool, postgres, url);
    }

    /**
     * H2 keeps a commit in memory for up to its write delay (500 ms by default) before it writes
     * it: a kill -9 in that time lost results the ingest had stored and acknowledged to the broker
     * (ControlKillIT: one run of each of 6 appliances). With no delay a commit is written when it
     * returns (to the operating system: a crash of the process loses nothing, a power cut may).
     */
    private static void durableCommits(DataSource pool) throws SQLException {
        try (Connection c = pool.getConnection(); java.sql.Statement s = c.createStatement()) {
            s.execute("SET WRITE_DELAY 0");
        }
    }

    private static void migrate(DataSource ds, boolean postgres) {
        ClassLoader cl = Db.class.getClassLoader();
        ClassLoader old = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(cl);
        try {
            Flyway.configure(cl)
                    .dataSource(ds)
                    .resourceProvider(new Migrations(cl, postgres ? "postgresql" : "h2"))
                    .placeholders(Map.of("text", postgres ? "TEXT" : "CLOB", "bytes", postgres ? "BYTEA" : "BLOB"))
                    .load()
                    .migrate();
        } finally {
            Thread.currentThread().setContextClassLoader(old);
        }
    }

    /**
     * One connection to an H2 database outside the pool (through this class, so that the bind
     * address above is set before H2 starts an AUTO_SERVER). The driver is in this bundle:
     * DriverManager would look in the caller's class loader.
     */
    static Connection connectOnce(String h2Url, java.util.Properties login) throws SQLException {
        return new org.h2.Driver().connect(h2Url, login);
    }

    Connection connection() throws SQLException {
        return pool.getConnection();
    }

    /**
     * Makes what {@code c} committed survive a kill -9 of this process: on H2 a CHECKPOINT
     * (its MVStore keeps commits in memory for up to a second before it writes them: a queued
     * start committed just before a kill was lost, ControlQueueIT); PostgreSQL has them in its
     * write-ahead log at commit already.
     */
    void durable(Connection c) throws SQLException {
        if (!postgres) {
            try (java.sql.Statement s = c.createStatement()) {
                s.execute("CHECKPOINT");
            }
        }
    }

    @Override
    public void close() {
        pool.close();
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }

    /** The migrations of {@link #MIGRATIONS}, read from this bundle. */
    private static final class Migrations implements ResourceProvider {
        private final List<LoadableResource> all = new ArrayList<>();

        Migrations(ClassLoader cl, String database) {
            for (String name : MIGRATIONS) {
                String own = "db/migration/" + database + "/" + name;
                all.add(new Migration(name, read(cl, cl.getResource(own) != null ? own : "db/migration/" + name)));
            }
        }

        private static String read(ClassLoader cl, String path) {
            try (InputStream in = cl.getResourceAsStream(path)) {
                if (in == null) {
                    throw new IllegalStateException("the migration " + path + " is missing from the bundle");
                }
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalStateException("cannot read the migration " + path + ": " + e.getMessage(), e);
            }
        }

        @Override
        public LoadableResource getResource(String name) {
            for (LoadableResource r : all) {
                if (r.getFilename().equals(name) || r.getRelativePath().equals(name)) {
                    return r;
                }
            }
            return null;
        }

        @Override
        public Collection<LoadableResource> getResources(String prefix, String[] suffixes) {
            List<LoadableResource> found = new ArrayList<>();
            for (LoadableResource r : all) {
                if (!r.getFilename().startsWith(prefix)) {
                    continue;
                }
                for (String s : suffixes) {
                    if (r.getFilename().endsWith(s)) {
                        found.add(r);
                        break;
                    }
                }
            }
            return found;
        }
    }

    private static final class Migration extends LoadableResource {
        private final String name;
        private final String text;

        Migration(String name, String text) {
            this.name = name;
            this.text = text;
        }

        @Override
        public Reader read() {
            return new StringReader(text);
        }

        @Override
        public String getAbsolutePath() {
            return "db/migration/" + name;
        }

        @Override
        public String getAbsolutePathOnDisk() {
            return getAbsolutePath();
        }

        @Override
        public String getFilename() {
            return name;
        }

        @Override
        public String getRelativePath() {
            return name;
        }
    }
}
