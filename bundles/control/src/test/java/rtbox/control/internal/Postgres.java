package rtbox.control.internal;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real PostgreSQL from Debian (postgresql package: /usr/lib/postgresql/N/bin), made with
 * initdb in a temporary folder and started on a free loopback port for one test class.
 * PostgreSQL refuses to run as root: as root, it runs as the user postgres (the package
 * makes it). Trust authentication, on 127.0.0.1 and its own socket folder only. Public and
 * in this module's test jar: the runtime's ControlPostgresIT starts its PostgreSQL with it.
 */
public final class Postgres implements AutoCloseable {
    private final Path dir;
    private final Path bin;
    private final boolean asPostgres;
    public final int port;

    private Postgres(Path dir, Path bin, boolean asPostgres, int port) {
        this.dir = dir;
        this.bin = bin;
        this.asPostgres = asPostgres;
        this.port = port;
    }

    /** Whether Debian's PostgreSQL is installed here. */
    public static boolean available() {
        try {
            bin();
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * For a test that needs PostgreSQL: without it, skipped on a developer's machine and failed in
     * CI (where CI is set: .ci/run installs postgresql, so a missing one is a broken CI, not a skip).
     */
    public static void requireOrSkip() {
        if (!available()) {
            org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("CI") != null,
                    "no PostgreSQL here (apt-get install postgresql): skipped");
            throw new AssertionError("CI must install postgresql (.ci/run does): /usr/lib/postgresql/*/bin/initdb "
                    + "is missing");
        }
    }

    static Path bin() throws IOException {
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            throw new IOException("PostgreSQL is not installed (/usr/lib/postgresql is missing): apt-get install"
                    + " postgresql (.ci/run does)");
        }
        try (Stream<Path> s = Files.list(root)) {
            return s.map(p -> p.resolve("bin")).filter(p -> Files.isExecutable(p.resolve("initdb")))
                    .max(Comparator.comparing(Path::toString))
                    .orElseThrow(() -> new IOException("no initdb under /usr/lib/postgresql/*/bin"));
        }
    }

    public static Postgres start() throws IOException, InterruptedException {
        return start("fsync=off");
    }

    /**
     * With these server settings ({@code name=value}, each given as {@code -c}); the tests' is
     * {@code fsync=off}, bench/fleet's {@code track_commit_timestamp=on} (each row's commit time).
     */
    public static Postgres start(String... settings) throws IOException, InterruptedException {
        Path bin = bin();
        boolean root = "root".equals(System.getProperty("user.name"));
        Path dir = Files.createTempDirectory("rtbox-pg");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        if (root) {
            run(List.of("chown", "-R", "postgres:postgres", dir.toString()), null);
        }
        Postgres pg = new Postgres(dir, bin, root, port);
        pg.as(List.of(bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "-A", "trust", "-U",
                "postgres", "-E", "UTF8", "--no-sync"));
        StringBuilder options = new StringBuilder("-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1");
        for (String setting : settings) {
            options.append(" -c ").append(setting);
        }
        pg.as(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-l",
                dir.resolve("log").toString(), "-w", "-t", "60", "-o", options.toString(), "start"));
        return pg;
    }

    /** The server's main process (postmaster.pid's first line); its backends are its children. */
    public long pid() throws IOException {
        return Long.parseLong(Files.readAllLines(dir.resolve("data/postmaster.pid")).get(0).strip());
    }

    public String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    /** A fresh database for one test (so tests do not see each other's rows). */
    public String newDatabase(String name) throws IOException, InterruptedException {
        as(List.of(bin.resolve("createdb").toString(), "-h", "127.0.0.1", "-p", Integer.toString(port), "-U",
                "postgres", name));
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + name + "?user=postgres";
    }

    /** One query's rows in {@code database} through Debian's psql (unaligned, tuples only). */
    public String sql(String database, String query) throws IOException, InterruptedException {
        return as(List.of(bin.resolve("psql").toString(), "-h", "127.0.0.1", "-p", Integer.toString(port), "-U",
                "postgres", "-d", database, "-At", "-c", query)).strip();
    }

    private String as(List<String> cmd) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>();
        if (asPostgres) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(cmd);
        return run(full, dir);
    }

    private static String run(List<String> cmd, Path dir) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        if (dir != null) {
            pb.directory(dir.toFile());
        }
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
        return out;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        try {
            as(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "immediate",
                    "-w", "stop"));
        } finally {
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
