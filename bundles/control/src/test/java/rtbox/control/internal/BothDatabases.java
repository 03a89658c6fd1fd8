package rtbox.control.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a test of the control room's store runs on: H2 in a file and a real PostgreSQL
 * (Debian's, started in a temporary folder for the test class), each case on a fresh
 * database that is closed after it. Cases take {@code @MethodSource("databases")}.
 */
abstract class BothDatabases {
    static Postgres pg;
    static int dbs;
    private final List<Db> open = new ArrayList<>();
    /** Every file a test makes goes here: JUnit deletes it after the test (they were left in /tmp). */
    @TempDir
    Path tmp;

    @BeforeAll
    static void startPostgres() throws Exception {
        pg = Postgres.start();
    }

    @AfterAll
    static void stopPostgres() throws Exception {
        if (pg != null) {
            pg.close();
        }
    }

    @AfterEach
    void closeDatabases() {
        open.forEach(Db::close);
    }

    static Stream<String> databases() {
        return Stream.of("h2", "postgresql");
    }

    /** Settings appended to the H2 URL, for a test that needs them. */
    String h2Options() {
        return "";
    }

    Db db(String kind) throws Exception {
        String url = kind.equals("h2")
                ? "jdbc:h2:file:" + Files.createTempDirectory(tmp, "rtbox-h2").resolve("control") + h2Options()
                : pg.newDatabase("d" + (++dbs));
        Db db = Db.open(url, null, null);
        open.add(db);
        return db;
    }
}
