package rtbox.cli.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import rtbox.api.RtboxException;
import rtbox.api.SchedPolicy;
import rtbox.os.OsException;
import rtbox.os.Sched;

/**
 * Starts and stops {@link DisturberProcess} in its own JVM (this JVM's java, the class
 * file copied to a temporary folder), puts its spinning thread at SCHED_FIFO on one CPU,
 * and collects the spins it reports. Nothing of rtbox runs in it: to the kernel it is
 * another process, which is the point.
 */
final class ForeignDisturber implements AutoCloseable {
    private final Process process;
    private final Path dir;
    private final int tid;
    private final List<long[]> spins = new ArrayList<>();
    private final Thread reader;

    private ForeignDisturber(Process process, Path dir, int tid, BufferedReader out) {
        this.process = process;
        this.dir = dir;
        this.tid = tid;
        this.reader = new Thread(() -> collect(out), "rtbox-foreign-disturber-out");
        this.reader.setDaemon(true);
    }

    static ForeignDisturber start(int cpu, int priority, long spinUs, long everyMs) throws RtboxException {
        String java = ProcessHandle.current().info().command().orElse("java");
        Path dir;
        try {
            dir = Files.createTempDirectory("rtbox-disturber");
            Path cls = dir.resolve("rtbox/cli/internal/DisturberProcess.class");
            Files.createDirectories(cls.getParent());
            try (InputStream in = DisturberProcess.class.getResourceAsStream("DisturberProcess.class")) {
                Files.copy(in, cls);
            }
        } catch (IOException | NullPointerException e) {
            throw new RtboxException("selftest", "cannot prepare the foreign disturber's class: " + e);
        }
        Process p;
        try {
            p = new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx8m", "-XX:-UsePerfData", "-cp",
                    dir.toString(), DisturberProcess.class.getName(), Long.toString(spinUs), Long.toString(everyMs))
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            throw new RtboxException("selftest", "cannot start the foreign disturber (" + java + "): " + e.getMessage());
        }
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        try {
            String first = out.readLine();
            if (first == null || !first.startsWith("tid ")) {
                throw new RtboxException("selftest", "the foreign disturber did not start: " + first);
            }
            int tid = Integer.parseInt(first.substring(4).trim());
            Sched.setAffinity(tid, cpu);
            Sched.setScheduler(tid, SchedPolicy.FIFO, priority);
            ForeignDisturber d = new ForeignDisturber(p, dir, tid, out);
            OutputStream in = p.getOutputStream();
            in.write("go\n".getBytes(StandardCharsets.UTF_8));
            in.flush();
            d.reader.start();
            return d;
        } catch (OsException e) {
            p.destroyForcibly();
            deleteDir(dir);
            throw new RtboxException("selftest", "cannot put the foreign disturber at SCHED_FIFO " + priority
                    + " on CPU " + cpu + ": " + e.getMessage());
        } catch (RtboxException e) {
            p.destroyForcibly();
            deleteDir(dir);
            throw e;
        } catch (IOException | NumberFormatException e) {
            p.destroyForcibly();
            deleteDir(dir);
            throw new RtboxException("selftest", "the foreign disturber did not start: " + e.getMessage());
        }
    }

    private void collect(BufferedReader out) {
        try {
            String line;
            while ((line = out.readLine()) != null) {
                String[] f = line.split(" ");
                if (f.length == 3 && f[0].equals("spin")) {
                    synchronized (spins) {
                        spins.add(new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
                    }
                }
            }
        } catch (IOException | NumberFormatException e) {
            // the process ended
        }
    }

    /** The process id (the spinning thread's process). */
    long pid() {
        return process.pid();
    }

    int tid() {
        return tid;
    }

    /** The spins so far, as CLOCK_MONOTONIC [start, end] pairs. */
    List<long[]> spins() {
        synchronized (spins) {
            return new ArrayList<>(spins);
        }
    }

    @Override
    public void close() {
        try {
            process.getOutputStream().close();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
            reader.join(2000);
        } catch (IOException | InterruptedException e) {
            process.destroyForcibly();
        }
        deleteDir(dir);
    }

    private static void deleteDir(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // a temporary folder left behind
        }
    }
}
