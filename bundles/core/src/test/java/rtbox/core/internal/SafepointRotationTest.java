package rtbox.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import rtbox.api.result.JvmStall;

/**
 * The launcher bounds the safepoint log with -Xlog's filecount and filesize (it grew without
 * end in the board's tmpfs): the JVM then rotates it into FILE.0, FILE.1 ..., and a run's
 * pauses are read from all of them, in time order.
 */
class SafepointRotationTest {
    @TempDir
    Path dir;

    private static String line(long endNs) {
        return "[" + endNs + "ns] Safepoint \"G1\", Time since last: 1 ns, Reaching safepoint: 2 ns, At safepoint: 3 ns,"
                + " Total: 1000 ns\n";
    }

    @Test
    void aWindowAcrossARotationIsReadFromBothFilesInOrder() throws Exception {
        Path log = dir.resolve("safepoints-1.log");
        StringBuilder old = new StringBuilder(), current = new StringBuilder();
        for (int i = 1; i <= 1000; i++) {
            (i <= 500 ? old : current).append(line(i * 1_000_000L));
        }
        Files.writeString(dir.resolve("safepoints-1.log.1"), old);
        Files.writeString(log, current);
        Files.writeString(dir.resolve("safepoints-1.log.x"), line(497_500_000L)); // not the JVM's: not read
        Files.writeString(dir.resolve("safepoints-12.log"), line(498_500_000L)); // another process's
        List<JvmStall> s = SafepointLog.read(log, 0, 495_000_000L, 505_000_000L);
        assertEquals(11, s.size(), s.toString());
        for (int i = 0; i < s.size(); i++) {
            assertEquals((495 + i) * 1_000_000L - 1000, s.get(i).offsetNs());
        }
    }

    /** A real JVM with the launcher's kind of -Xlog, rotated many times while it collects. */
    @Test
    void theJvmsOwnRotationLosesNoPauseOfTheWindowTheFilesHold() throws Exception {
        Path log = dir.resolve("safepoints-2.log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-XX:+UseSerialGC", "-Xmx32m",
                "-Xlog:safepoint=info:file=" + log + ":tn:filecount=3,filesize=8k",
                "-cp", System.getProperty("java.class.path"), SafepointChildMain.class.getName(), "150")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        assertEquals(0, p.waitFor(), out);
        String[] stamps = out.split(" ");
        long from = Long.parseLong(stamps[0]), to = Long.parseLong(stamps[1]);
        List<Path> files = SafepointLog.withRotated(log);
        assertTrue(files.size() >= 3, "not rotated: " + files);
        long inFiles = 0, inCurrent = 0;
        for (Path f : files) {
            for (String l : Files.readAllLines(f)) {
                JvmStall s = SafepointLog.parse(l, 0);
                if (s != null && s.offsetNs() + s.durationNs() >= from && s.offsetNs() + s.durationNs() <= to) {
                    inFiles++;
                    inCurrent += f.equals(log) ? 1 : 0;
                }
            }
        }
        List<JvmStall> read = SafepointLog.read(log, 0, from, to);
        assertEquals(inFiles, read.size());
        assertTrue(read.size() > inCurrent, read.size() + " pauses read, " + inCurrent + " in the current file");
        for (int i = 1; i < read.size(); i++) {
            assertTrue(read.get(i).offsetNs() >= read.get(i - 1).offsetNs(), "out of order at " + i);
        }
        for (Path f : files) {
            assertTrue(Files.size(f) <= 8 * 1024 + 512, f + ": " + Files.size(f) + " bytes");
        }
    }
}
