package rtbox.control.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * The login of the embedded H2 database (DATA/control/db): user {@value #USER} and a password
 * generated at the first start, kept in DATA/control/db-password (0600, in the 0700 folder),
 * never on a command line or in a log. Every opener of the default database (the control
 * room, {@code import}, {@code verify}) reads it here: H2's AUTO_SERVER listens on 127.0.0.1
 * so that they can share the file while the control room runs, and that port took H2's
 * empty user and password from any local account that learned its key (issue 31).
 *
 * <p>A database made before had that empty login (user "" with password ""): its first open
 * here adds {@value #USER} with the password and drops the empty user, so the old login is
 * refused from then on.
 */
final class H2Login {
    /** H2 keeps user names in upper case. */
    static final String USER = "RTBOX";
    static final String FILE = "db-password";
    /** H2's error code for a wrong user name or password (SQLSTATE 28000). */
    private static final int WRONG_USER_OR_PASSWORD = 28000;

    private final Path file;
    private final String password;

    private H2Login(Path file, String password) {
        this.file = file;
        this.password = password;
    }

    /** The login kept in {@code controlDir}, made (0600) if there is none yet. */
    static H2Login of(Path controlDir) throws IOException {
        Path file = controlDir.resolve(FILE);
        if (!Files.exists(file)) {
            // Written whole under another name, then linked in: a second opener starting at the
            // same moment either finds no file or the whole one, and the first link wins.
            Path tmp = Files.createTempFile(controlDir, FILE, ".new",
                    PosixFilePermissions.asFileAttribute(OwnerOnlyFolder.FILE));
            try {
                Files.writeString(tmp, Passwords.random(32) + "\n", StandardCharsets.UTF_8);
                Files.createLink(file, tmp);
            } catch (FileAlreadyExistsException other) {
                // another opener made it first: its password is the one
            } finally {
                Files.delete(tmp);
            }
        }
        String password = Files.readString(file, StandardCharsets.UTF_8).strip();
        if (password.isEmpty()) {
            throw new IOException(file + " is empty: it holds the control room's database password (delete it only"
                    + " with the database)");
        }
        return new H2Login(file, password);
    }

    String password() {
        return password;
    }

    /**
     * A connection to the H2 database at {@code url} with this login (creating the database if
     * there is none), after giving a database made with the empty login this one. Held by the
     * caller while it opens its pool, so that the database is not closed and opened again.
     */
    Connection open(String url) throws SQLException {
        SQLException refused;
        try {
            return connect(url, USER, password);
        } catch (SQLException e) {
            if (e.getErrorCode() != WRONG_USER_OR_PASSWORD) {
                throw e;
            }
            refused = e;
        }
        Connection old;
        try {
            old = connect(url, "", "");
        } catch (SQLException e) {
            if (e.getErrorCode() != WRONG_USER_OR_PASSWORD) {
                throw e;
            }
            try {
                return connect(url, USER, password); // another opener gave it the login meanwhile
            } catch (SQLException again) {
                SQLException named = new SQLException("the control room's database refuses the password in " + file
                        + " (was that file replaced or deleted? it was made with the database)", refused);
                named.addSuppressed(again);
                throw named;
            }
        }
        try (old; PreparedStatement create = old.prepareStatement("CREATE USER IF NOT EXISTS " + USER
                + " PASSWORD ? ADMIN")) {
            create.setString(1, password);
            create.executeUpdate();
        }
        Connection c = connect(url, USER, password);
        try (Statement st = c.createStatement()) {
            st.execute("DROP USER IF EXISTS \"\"");
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        return c;
    }

    private static Connection connect(String url, String user, String password) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        return Db.connectOnce(url, p);
    }
}
