package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first admin's generated password: when several control rooms start at once on one database
 * and one folder, exactly one makes the admin, and the file holds that admin's password (the
 * losers used to overwrite it with theirs, which no account had), 0600, no pending file left.
 */
class AdminPasswordFileTest {
    @TempDir
    Path tmp;

    @Test
    void instancesStartingTogetherLeaveTheWinnersPasswordInTheFile() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            for (int round = 0; round < 5; round++) {
                Path folder = Files.createDirectories(tmp.resolve("round" + round));
                Path file = folder.resolve("admin-password");
                try (Db db = Db.open("jdbc:h2:file:" + folder.resolve("db"), null, null)) {
                    CountDownLatch go = new CountDownLatch(1);
                    List<Future<Boolean>> made = new ArrayList<>();
                    for (int i = 0; i < 6; i++) {
                        made.add(pool.submit(() -> {
                            go.await();
                            return new Users(db).ensureAdmin(file);
                        }));
                    }
                    go.countDown();
                    int winners = 0;
                    for (Future<Boolean> f : made) {
                        winners += f.get() ? 1 : 0;
                    }
                    assertEquals(1, winners, "round " + round + ": instances that made the admin");
                    String password = Files.readString(file).strip();
                    try (Connection c = db.connection()) {
                        String hash = Sql.one(c, "SELECT password_hash FROM users WHERE name = 'admin'",
                                rs -> rs.getString(1));
                        assertTrue(Passwords.matches(password, hash), "round " + round + ": the file's password is the admin's");
                    }
                    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
                    try (var left = Files.list(folder)) {
                        assertTrue(left.noneMatch(p -> p.getFileName().toString().endsWith(".pending")),
                                "a pending password file left");
                    }
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
