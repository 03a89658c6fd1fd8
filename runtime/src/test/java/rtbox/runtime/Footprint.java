package rtbox.runtime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What a JVM process holds, read from outside it as an operator would: RSS, threads and open
 * files from /proc, taken after a full collection asked through {@code jcmd PID GC.run} (the
 * attach mechanism: its "Attach Listener" thread stays, so every footprint after the first has
 * it). The appliance's heap is fixed (-Xms = -Xmx) and a collection does not give pages back,
 * so it does not lower the RSS: the heap's share of it is the most that was ever in use. It
 * drops what metaspace and the code cache let go of and makes the heap's "used" a live-data figure.
 */
record Footprint(long rssKb, long threads, long fds) {

    /** A full collection in {@code pid} (jcmd GC.run), then its footprint. */
    static Footprint afterGc(long pid) throws IOException, InterruptedException {
        jcmd(pid, "GC.run");
        return of(pid);
    }

    /** The footprint now, without a collection. */
    static Footprint of(long pid) throws IOException {
        Path proc = Path.of("/proc", Long.toString(pid));
        long rss = 0, threads = 0;
        for (String line : Files.readAllLines(proc.resolve("status"))) {
            if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.replaceAll("\\D", ""));
            } else if (line.startsWith("Threads:")) {
                threads = Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        long fds;
        try (Stream<Path> s = Files.list(proc.resolve("fd"))) {
            fds = s.count();
        }
        return new Footprint(rss, threads, fds);
    }

    /** {@code jcmd PID COMMAND}'s output; fails when jcmd fails (the JDK's jcmd, beside this JVM's java). */
    static String jcmd(long pid, String command) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process p = new ProcessBuilder(Files.isExecutable(jcmd) ? jcmd.toString() : "jcmd", Long.toString(pid), command)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("jcmd " + pid + " " + command + " failed: " + out);
        }
        return out;
    }

    /** True when each figure of {@code later} is at most 10 % above this one's (threads and fds: plus one). */
    boolean within10Percent(Footprint later) {
        return later.rssKb <= rssKb * 1.10 && later.threads <= threads * 1.10 + 1 && later.fds <= fds * 1.10 + 1;
    }

    @Override
    public String toString() {
        return String.format("RSS %d kB, %d threads, %d fds", rssKb, threads, fds);
    }
}
