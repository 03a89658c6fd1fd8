package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hot swap while a probe runs: the pipe workload bundle is updated 20 times through
 * deploy/ during one timer run, then removed. The run must stay complete (every
 * cycle measured), record each swap with its time, and end with the workload's
 * threads and the process's open files back where they were.
 */
class WorkloadSwapIT {
    static final int SWAPS = 20;
    static final int DURATION_S = 25;
    @TempDir
    Path home;
    @TempDir
    Path work;

    /** The built pipe bundle with another Bundle-Version: a "new version" of it. */
    private Path version(Path original, int n) throws IOException {
        Path out = work.resolve("pipe-" + n + ".jar");
        Files.write(out, pipeVersion(original, "0.2." + n + ".swap"));
        return out;
    }

    /** The jar {@code original} with its Bundle-Version set to {@code version}, as bytes. */
    static byte[] pipeVersion(Path original, String version) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        try (JarFile in = new JarFile(original.toFile())) {
            Manifest mf = new Manifest(in.getManifest());
            mf.getMainAttributes().putValue("Bundle-Version", version);
            try (JarOutputStream jar = new JarOutputStream(out, mf)) {
                for (Enumeration<JarEntry> e = in.entries(); e.hasMoreElements();) {
                    JarEntry entry = e.nextElement();
                    if (entry.getName().equals("META-INF/MANIFEST.MF")) {
                        continue;
                    }
                    jar.putNextEntry(new JarEntry(entry.getName()));
                    try (InputStream is = in.getInputStream(entry)) {
                        is.transferTo(jar);
                    }
                    jar.closeEntry();
                }
            }
        }
        return out.toByteArray();
    }

    static Path pipeJar() throws IOException {
        Path dir = Path.of(System.getProperty("rtbox.jar")).toAbsolutePath().getParent()
                .resolve("../../bundles/workload.pipe/target").normalize();
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(dir, "rtbox.workload.pipe-*.jar")) {
            for (Path p : jars) {
                return p;
            }
        }
        throw new AssertionError("no pipe bundle in " + dir);
    }

    private static int openFiles(long pid) throws IOException {
        try (var s = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            return (int) s.count();
        }
    }

    private static long count(List<String> names, String prefix) {
        return names.stream().filter(n -> n.startsWith(prefix)).count();
    }

    @Test
    void twentySwapsDuringOneRun() throws Exception {
        Path original = pipeJar();
        Path[] versions = new Path[SWAPS];
        for (int i = 0; i < SWAPS; i++) {
            versions[i] = version(original, i + 1);
        }
        Path report = work.resolve("report.json");
        try (Rtbox rtbox = new Rtbox(home)) {
            rtbox.start("run", "timer", "-D", DURATION_S + "s", "-i", "1000", "-p", "80", "-q", "--load", "pipe:mode=rtt",
                    "--report", report.toString());
            long end = System.currentTimeMillis() + 30_000;
            while (count(rtbox.threadNames(), "rtbox-pipe-") < 2 && System.currentTimeMillis() < end) {
                Thread.sleep(50);
            }
            assertEquals(2, count(rtbox.threadNames(), "rtbox-pipe-"), "the pipe workload did not start");
            // Fixed on purpose: the baseline is taken once start-up's short-lived threads are gone (nothing says so).
            Thread.sleep(500);
            int baselineThreads = rtbox.threadNames().size();
            int baselineFiles = openFiles(rtbox.pid());

            Path target = home.resolve("deploy/rtbox.workload.pipe.jar");
            for (int i = 0; i < SWAPS; i++) {
                Path tmp = home.resolve("deploy/.pipe.tmp");
                Files.copy(versions[i], tmp, StandardCopyOption.REPLACE_EXISTING);
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                // Fixed on purpose: swaps at the pace of FileInstall's poll, each version seen; no version is visible
                // from outside (the threads keep their names).
                Thread.sleep(700);
            }
            Files.delete(target);
            // Fixed on purpose: the removal is seen at FileInstall's next poll; that the run's pipe threads stay is the check.
            Thread.sleep(1500);
            List<String> threads = rtbox.threadNames();
            assertEquals(2, count(threads, "rtbox-pipe-"), "pipe threads after the swaps: " + threads);
            // FileInstall and the JDK may keep a pool thread for a while: allow two.
            assertTrue(threads.size() <= baselineThreads + 2, "threads " + threads.size() + " vs baseline "
                    + baselineThreads + ": " + threads);
            int files = openFiles(rtbox.pid());
            assertTrue(files <= baselineFiles + 3, "open files " + files + " vs baseline " + baselineFiles);

            // The run ends by itself; the report is whole once the process has exited.
            Rtbox.Result r = rtbox.awaitExit(DURATION_S + 30);
            assertTrue(Files.exists(report), "no report: " + r.stderr());
        }
        String json = Files.readString(report);
        Matcher swaps = Pattern.compile("\"kind\"\\s*:\\s*\"swap\"").matcher(json);
        int n = 0;
        while (swaps.find()) {
            n++;
        }
        assertTrue(n >= SWAPS, "swap events: " + n + " of at least " + SWAPS);
        assertTrue(Pattern.compile("\"complete\"\\s*:\\s*true").matcher(json).find(), "the run is not complete");
        Matcher cycles = Pattern.compile("\"cycles\"\\s*:\\s*(\\d+)").matcher(json);
        assertTrue(cycles.find(), "no cycle count in the report");
        long c = Long.parseLong(cycles.group(1));
        Matcher missed = Pattern.compile("\"missedDeadlines\"\\s*:\\s*(\\d+)").matcher(json);
        long m = missed.find() ? Long.parseLong(missed.group(1)) : 0;
        // Every period is accounted for: measured, or counted as missed (a wake-up later than the next deadline).
        assertTrue(c + m >= DURATION_S * 1000L - 5, "cycles " + c + " + missed " + m + " of " + DURATION_S * 1000);
        assertTrue(json.contains("\"pipe#1\""), "the first instance's figures are missing");
    }
}
