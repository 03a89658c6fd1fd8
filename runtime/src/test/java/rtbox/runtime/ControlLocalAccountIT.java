package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31, point 1: another local account on the control room's PC must not become admin.
 * The real control room ({@code rtbox control}, on the H2 file it keeps by default) runs as
 * this test's user; a second Unix user, {@code nobody}, tries what the attacker did
 * (LocalAccount.java, run with setpriv): list and read DATA/control, then connect to H2's
 * AUTO_SERVER port and insert an admin session. The port and the database's key are read from
 * H2's lock file by the test, as root, and handed to nobody: the worst case, as if the lock file
 * had leaked. Every login without the generated password is refused and the forged cookie opens
 * nothing; a control step with the real password (given on nobody's standard input) connects and
 * its cookie is an admin's, so the refusals are the password's doing, not the network's.
 *
 * <p>On main before the generated login, the step "session by key, empty login" connected and
 * its session was an admin's (tried by hand on H2 2.3.232 with the same program: "connected,
 * session inserted"). The database is first made as the versions before made it (H2's empty
 * login, no password file): the upgraded control room gives it the generated login, and the
 * admin of before still logs in.
 */
class ControlLocalAccountIT {
    @TempDir
    Path tmp;
    private Mosquitto broker;
    private ControlServer control;

    @AfterEach
    void stop() throws Exception {
        if (control != null) {
            control.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void anotherLocalAccountReadsNothingAndCannotLogInToTheDatabase() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")),
                "acting as a second Unix user (setpriv --reuid=nobody) needs root; this test runs as "
                        + System.getProperty("user.name"));
        // Every folder above DATA/control open to any account, as an installation under /opt
        // would be: only the control room's own modes stand in nobody's way.
        Path home = Files.createDirectories(tmp.resolve("home"));
        Path data = Files.createDirectories(home.resolve("data"));
        for (Path p : List.of(tmp, home, data)) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Path controlDir = data.resolve("control");

        // A control room's database as the versions before made it: started once, then given
        // back H2's empty login (user "" with password "") and no password file.
        broker = new Mosquitto(Files.createDirectories(tmp.resolve("broker")), "a1");
        control = new ControlServer(home, broker);
        String admin = control.adminPassword();
        control.close();
        control = null;
        try (Connection c = ControlServer.openDatabase(home); Statement st = c.createStatement()) {
            st.execute("CREATE USER \"\" PASSWORD '' ADMIN");
        }
        try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + controlDir.resolve("db"), "", "");
             Statement st = c.createStatement()) {
            st.execute("DROP USER RTBOX");
        }
        Files.delete(controlDir.resolve("db-password"));

        control = new ControlServer(home, broker);
        assertEquals(200, control.client().login("admin", admin).status(), "the admin of before logs in");
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(controlDir)));
        try (var files = Files.list(controlDir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(f)) {
                    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)),
                            f.toString());
                }
            }
        }
        assertTrue(Files.isRegularFile(controlDir.resolve("db-password")));
        try {
            DriverManager.getConnection("jdbc:h2:file:" + controlDir.resolve("db") + ";AUTO_SERVER=TRUE", "", "").close();
            throw new AssertionError("the empty login still opens the database after the control room's start");
        } catch (SQLException refused) {
            assertEquals("28000", refused.getSQLState(), refused.getMessage());
        }

        Properties lock = new Properties();
        try (InputStream in = Files.newInputStream(controlDir.resolve("db.lock.db"))) {
            lock.load(in);
        }
        String server = lock.getProperty("server");
        String port = server.substring(server.lastIndexOf(':') + 1);
        String key = lock.getProperty("id");

        List<String> steps = asNobody(data, port, key, "forged-by-nobody", "control-step",
                Files.readString(controlDir.resolve("db-password")).strip());
        String all = String.join("\n", steps);
        assertTrue(steps.stream().anyMatch(l -> l.startsWith("list DATA: allowed")), "nobody reaches DATA/ (else the test proves"
                + " nothing):\n" + all);
        assertTrue(steps.contains("list DATA/control: denied (AccessDeniedException)"), all);
        for (String f : List.of("db.mv.db", "db.lock.db", "db-password", "admin-password")) {
            assertTrue(steps.contains("read DATA/control/" + f + ": denied (AccessDeniedException)"), all);
        }
        for (String attempt : List.of("session by key, empty login", "session by key, user RTBOX, empty password",
                "session by key, user SA, empty password", "session by path, empty login")) {
            assertTrue(steps.contains(attempt + ": refused (SQLSTATE 28000)"), all);
        }
        assertTrue(steps.contains("session by key, the real password (control): connected, session inserted"), all);

        // End to end: the forged cookie is no session; the control step's is an admin's.
        assertEquals(401, usersWithCookie("forged-by-nobody"), "the forged session");
        assertEquals(200, usersWithCookie("control-step"), "the control step's session");
        try (Connection c = control.openDatabase(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM session WHERE csrf = 'csrf'")) {
            assertTrue(rs.next());
            assertEquals(1, rs.getInt(1), "only the control step's session row");
        }
    }

    /** LocalAccount.java run as nobody with H2's jar (both copied where nobody can read them); its lines. */
    private List<String> asNobody(Path data, String port, String key, String forged, String controlToken,
            String password) throws Exception {
        Path kit = Files.createDirectories(tmp.resolve("kit"));
        Path h2 = kit.resolve("h2.jar");
        Files.copy(Path.of(org.h2.Driver.class.getProtectionDomain().getCodeSource().getLocation().toURI()), h2);
        Path program = kit.resolve("LocalAccount.java");
        try (InputStream in = getClass().getResourceAsStream("/local-account/LocalAccount.java")) {
            Files.copy(in, program);
        }
        Files.setPosixFilePermissions(kit, PosixFilePermissions.fromString("rwxr-xr-x"));
        for (Path f : List.of(h2, program)) {
            Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
        }
        Process p = new ProcessBuilder("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:-UsePerfData", "-cp",
                h2.toString(), program.toString(), data.toString(), port, key, forged, controlToken)
                .directory(kit.toFile()).redirectErrorStream(true).start();
        try (OutputStream in = p.getOutputStream()) {
            in.write((password + "\n").getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "LocalAccount did not end: " + out);
        assertEquals(0, p.exitValue(), out);
        return out.lines().toList();
    }

    private int usersWithCookie(String token) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + control.port + "/api/v1/users"))
                .header("Cookie", "RTBOX_SESSION=" + token).timeout(Duration.ofSeconds(30)).build();
        return http.send(r, HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
