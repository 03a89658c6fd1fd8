package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded database's generated login: made 0600 at the first start, the only way in;
 * a database made before with the empty login keeps its data and loses that login.
 */
class H2LoginTest {
    @TempDir
    Path data;

    @Test
    void aNewDatabaseIsMadeWithTheGeneratedPasswordAndTheEmptyLoginIsRefused() throws Exception {
        String url = ControlCommand.h2Url(data);
        Path control = data.resolve("control");
        H2Login login = H2Login.of(control);
        Path file = control.resolve(H2Login.FILE);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals(login.password(), Files.readString(file).strip());
        assertTrue(login.password().length() >= 40, "256 random bits in base64: " + login.password().length());
        try (Connection held = login.open(url); Db db = Db.open(url, H2Login.USER, login.password())) {
            assertRefused(url, "", "");
            assertRefused(url, H2Login.USER, "");
            try (Connection c = db.connection()) {
                assertEquals(0, Sql.count(c, "SELECT COUNT(*) FROM users"));
            }
        }
        // The next start reads the same file, and the same login opens the database again.
        H2Login again = H2Login.of(control);
        assertEquals(login.password(), again.password());
        try (Connection c = again.open(url)) {
            assertEquals(H2Login.USER, c.getMetaData().getUserName());
        }
        // Nothing but the file, the database and H2's own files was left in the folder.
        try (var files = Files.list(control)) {
            assertTrue(files.allMatch(f -> f.getFileName().toString().startsWith("db")), "a temporary file left");
        }
    }

    /** The upgrade: a control room's database from before, with H2's empty login and a stored row. */
    @Test
    void aDatabaseMadeWithTheEmptyLoginKeepsItsDataAndLosesThatLogin() throws Exception {
        String url = ControlCommand.h2Url(data);
        try (Db old = Db.open(url, null, null); Connection c = old.connection()) {
            Sql.update(c, "INSERT INTO users (name, role, password_hash, created_ms) VALUES (?, ?, ?, ?)", "admin",
                    "admin", "x", 1L);
        }
        assertTrue(Files.notExists(data.resolve("control").resolve(H2Login.FILE)));
        H2Login login = H2Login.of(data.resolve("control"));
        try (Connection held = login.open(url); Db db = Db.open(url, H2Login.USER, login.password(), true);
             Connection c = db.connection()) {
            assertEquals(1, Sql.count(c, "SELECT COUNT(*) FROM users WHERE name = 'admin'"));
            assertEquals(1, Sql.count(c, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.USERS"), "only " + H2Login.USER);
            assertRefused(url, "", "");
        }
        try (Connection c = H2Login.of(data.resolve("control")).open(url)) {
            assertEquals(H2Login.USER, c.getMetaData().getUserName());
        }
    }

    @Test
    void aReplacedPasswordFileIsNamedNotGuessedAround() throws Exception {
        String url = ControlCommand.h2Url(data);
        try (Connection c = H2Login.of(data.resolve("control")).open(url)) {
            assertEquals(H2Login.USER, c.getMetaData().getUserName());
        }
        Path file = data.resolve("control").resolve(H2Login.FILE);
        Files.delete(file);
        H2Login other = H2Login.of(data.resolve("control"));
        SQLException e = assertThrows(SQLException.class, () -> other.open(url).close());
        assertTrue(e.getMessage().contains("refuses the password in " + file), e.getMessage());
    }

    @Test
    void twoOpenersStartingTogetherShareOnePassword() throws Exception {
        Path control = OwnerOnlyFolder.ensure(data.resolve("control"));
        ExecutorService two = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 20; round++) {
                Files.deleteIfExists(control.resolve(H2Login.FILE));
                Callable<String> read = () -> H2Login.of(control).password();
                Future<String> a = two.submit(read);
                Future<String> b = two.submit(read);
                assertEquals(a.get(), b.get());
                assertEquals(a.get(), Files.readString(control.resolve(H2Login.FILE)).strip());
            }
        } finally {
            two.shutdownNow();
        }
        assertNotEquals(H2Login.of(control).password(), "");
    }

    private static void assertRefused(String url, String user, String password) {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        SQLException e = assertThrows(SQLException.class, () -> Db.connectOnce(url, p).close(), user + " got in");
        assertEquals("28000", e.getSQLState(), e.getMessage());
    }
}
