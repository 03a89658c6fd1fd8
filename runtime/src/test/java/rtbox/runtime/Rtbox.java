package rtbox.runtime;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs the real appliance (the exported jar, through the launcher script) in a child
 * process with its own home folder, as a user would.
 */
final class Rtbox implements AutoCloseable {
    final Path home;
    private Process process;
    final List<String> out = Collections.synchronizedList(new ArrayList<>());
    final List<String> err = Collections.synchronizedList(new ArrayList<>());

    Rtbox(Path home) throws IOException {
        this.home = home;
        Files.createDirectories(home.resolve("etc"));
        try (Stream<Path> files = Files.list(Path.of("etc"))) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, home.resolve("etc").resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /** Result of a command that ran to its end. */
    record Result(int exitCode, String stdout, String stderr) {
    }

    Result run(long timeoutSeconds, String... args) throws IOException, InterruptedException {
        start(args);
        return awaitExit(timeoutSeconds);
    }

    /** Waits for the started command to end by itself. */
    Result awaitExit(long timeoutSeconds) throws InterruptedException {
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("rtbox " + process.info().commandLine().orElse("") + " did not end in "
                    + timeoutSeconds + " s");
        }
        drainers.forEach(t -> {
            try {
                t.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        return new Result(process.exitValue(), String.join("\n", out), String.join("\n", err));
    }

    private final List<Thread> drainers = new ArrayList<>();
    /** Environment variables beyond the folders, e.g. RTBOX_FRAMEWORK=always. */
    final java.util.Map<String, String> env = new java.util.HashMap<>();

    Process start(String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(System.getProperty("rtbox.launcher"));
        Collections.addAll(cmd, args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("RTBOX_HOME", home.toString());
        pb.environment().put("RTBOX_JAR", System.getProperty("rtbox.jar"));
        pb.environment().put("RTBOX_RUN", home.resolve("run").toString());
        pb.environment().putAll(env);
        process = pb.start();
        drainers.add(drain(process.getInputStream(), out));
        drainers.add(drain(process.getErrorStream(), err));
        return process;
    }

    private static Thread drain(java.io.InputStream in, List<String> lines) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // process gone
            }
        });
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Waits until stdout has a line containing {@code text}; returns when it appeared, or -1. */
    long awaitLine(String text, long timeoutMillis) throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMillis;
        while (System.currentTimeMillis() < end) {
            synchronized (out) {
                if (out.stream().anyMatch(l -> l.contains(text))) {
                    return System.currentTimeMillis();
                }
            }
            Thread.sleep(20);
        }
        return -1;
    }

    long pid() {
        return process.pid();
    }

    /** Names of the process's threads, as the kernel has them (/proc/PID/task/TID/comm). */
    List<String> threadNames() throws IOException {
        List<String> names = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid() + "/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    names.add(Files.readString(t.resolve("comm")).trim());
                } catch (IOException e) {
                    // thread ended while listing
                }
            }
        }
        return names;
    }

    /** SIGTERM, as an init system stops the appliance; waits for the exit. */
    int terminate() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor();
        }
        return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            process.waitFor();
        }
    }
}
