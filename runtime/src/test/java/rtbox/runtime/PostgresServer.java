package rtbox.runtime;

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
 * A real PostgreSQL from Debian (the postgresql package: /usr/lib/postgresql/N/bin), made
 * with initdb in a temporary folder and started on a free loopback port, for an IT that
 * runs the control room on it (rtbox.control's unit tests have their own copy: test code
 * does not cross modules here). As root it runs as the user postgres (PostgreSQL refuses
 * root). Trust authentication on 127.0.0.1 and its own socket folder only; one database,
 * {@code rtbox}. {@link #sql} asks it through Debian's psql.
 */
final class PostgresServer implements AutoCloseable {
    private final Path dir;
    private final Path bin;
    private final boolean asPostgres;
    final int port;

    private PostgresServer(Path dir, Path bin, boolean asPostgres, int port) {
        this.dir = dir;
        this.bin = bin;
        this.asPostgres = asPostgres;
        this.port = port;
    }

    static boolean available() {
        try {
            bin();
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static Path bin() throws IOException {
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            throw new IOException("PostgreSQL is not installed: apt-get install postgresql (.ci/run does)");
        }
        try (Stream<Path> s = Files.list(root)) {
            return s.map(p -> p.resolve("bin")).filter(p -> Files.isExecutable(p.resolve("initdb")))
                    .max(Comparator.comparing(Path::toString))
                    .orElseThrow(() -> new IOException("no initdb under /usr/lib/postgresql/*/bin"));
        }
    }

    static PostgresServer start() throws IOException, InterruptedException {
        Path bin = bin();
        boolean root = "root".equals(System.getProperty("user.name"));
        Path dir = Files.createTempDirectory("rtbox-pg-it");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        if (root) {
            run(List.of("chown", "-R", "postgres:postgres", dir.toString()), null);
        }
        PostgresServer pg = new PostgresServer(dir, bin, root, port);
        pg.as(List.of(bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "-A", "trust", "-U",
                "postgres", "-E", "UTF8", "--no-sync"));
        pg.as(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-l",
                dir.resolve("log").toString(), "-w", "-t", "60", "-o", "-p " + port + " -k " + dir
                        + " -c listen_addresses=127.0.0.1", "start"));
        pg.as(List.of(bin.resolve("createdb").toString(), "-h", "127.0.0.1", "-p", Integer.toString(port), "-U",
                "postgres", "rtbox"));
        return pg;
    }

    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/rtbox?user=postgres";
    }

    /** One query's rows through psql (unaligned, tuples only). */
    String sql(String query) throws IOException, InterruptedException {
        return as(List.of(bin.resolve("psql").toString(), "-h", "127.0.0.1", "-p", Integer.toString(port), "-U",
                "postgres", "-d", "rtbox", "-At", "-c", query)).strip();
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
