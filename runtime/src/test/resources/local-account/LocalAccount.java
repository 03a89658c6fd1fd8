import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.Properties;

/**
 * Another local account on the control room's PC (ControlLocalAccountIT runs this as user
 * nobody, with Java's single-file launcher and H2's jar): what issue 31's attacker did, each
 * step printed as one line "STEP: allowed|denied|refused|connected ...".
 *
 * <p>Arguments: DATA (the control room's data folder), PORT (H2's AUTO_SERVER, which the test
 * learned as root), KEY (the database's key from its lock file, also learned as root: the
 * worst case, as if the lock file had leaked), FORGED and CONTROL (two session tokens). Standard
 * input: the real database password, for the control step only (it shows that this account
 * reaches the port, and that a session row made there would be an admin's).
 */
public class LocalAccount {
    public static void main(String[] args) throws Exception {
        Path data = Path.of(args[0]);
        String port = args[1], key = args[2], forged = args[3], control = args[4];
        String password = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        list("list DATA", data);
        list("list DATA/control", data.resolve("control"));
        for (String f : new String[] {"db.mv.db", "db.lock.db", "db-password", "admin-password"}) {
            read("read DATA/control/" + f, data.resolve("control").resolve(f));
        }
        String byKey = "jdbc:h2:tcp://127.0.0.1:" + port + "/" + key;
        String byPath = "jdbc:h2:tcp://127.0.0.1:" + port + "/" + data.resolve("control").resolve("db");
        session("session by key, empty login", byKey, "", "", forged);
        session("session by key, user RTBOX, empty password", byKey, "RTBOX", "", forged);
        session("session by key, user SA, empty password", byKey, "SA", "", forged);
        session("session by path, empty login", byPath, "", "", forged);
        session("session by key, the real password (control)", byKey, "RTBOX", password, control);
    }

    private static void list(String step, Path dir) {
        try (var files = Files.list(dir)) {
            System.out.println(step + ": allowed (" + files.count() + " entries)");
        } catch (Exception e) {
            System.out.println(step + ": denied (" + e.getClass().getSimpleName() + ")");
        }
    }

    private static void read(String step, Path file) {
        try {
            System.out.println(step + ": allowed (" + Files.readAllBytes(file).length + " bytes)");
        } catch (Exception e) {
            System.out.println(step + ": denied (" + e.getClass().getSimpleName() + ")");
        }
    }

    /** Connects and inserts an admin session for {@code token}, as issue 31's attacker did. */
    private static void session(String step, String url, String user, String password, String token) {
        Properties login = new Properties();
        login.setProperty("user", user);
        login.setProperty("password", password);
        try (Connection c = new org.h2.Driver().connect(url, login);
             PreparedStatement ps = c.prepareStatement("INSERT INTO session (token_sha256, user_name, csrf, created_ms,"
                     + " used_ms) VALUES (?, 'admin', 'csrf', ?, ?)")) {
            ps.setString(1, HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(
                    token.getBytes(StandardCharsets.UTF_8))));
            long now = System.currentTimeMillis();
            ps.setLong(2, now);
            ps.setLong(3, now);
            ps.executeUpdate();
            System.out.println(step + ": connected, session inserted");
        } catch (SQLException e) {
            System.out.println(step + ": refused (SQLSTATE " + e.getSQLState() + ")");
        } catch (Exception e) {
            System.out.println(step + ": failed (" + e + ")");
        }
    }
}
