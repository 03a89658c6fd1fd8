package rtbox.core.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import rtbox.api.result.JvmStall;

/**
 * Reads the JVM's own safepoint log (written by {@code -Xlog:safepoint:file=...:tn},
 * which the launcher sets), giving the exact windows in which HotSpot stopped every
 * Java thread: garbage collections, deoptimisation, class redefinition. The
 * {@code tn} decoration is System.nanoTime(), the probes' clock, so the windows
 * line up with the samples without conversion.
 */
final class SafepointLog {
    /** System property naming the log file; set by the launcher beside the -Xlog flag. */
    static final String PROPERTY = "rtbox.safepoint.log";

    // [123456789ns] Safepoint "Cleanup", Time since last: 1 ns, Reaching safepoint: 2 ns, At safepoint: 3 ns, Total: 5 ns
    private static final Pattern LINE = Pattern.compile(
            "\\[(\\d+)ns\\].*Safepoint \"([^\"]+)\".*Total: (\\d+) ns");

    private SafepointLog() {
    }

    static Path configured() {
        String p = System.getProperty(PROPERTY);
        if (p == null || p.isEmpty()) {
            return null;
        }
        Path file = Path.of(p);
        return Files.exists(file) ? file : stillOpen(file);
    }

    /**
     * The log through the JVM's own descriptor when its name is gone: the process removes its
     * log as it exits (rtbox.cli), while a plan stopped by that same exit still judges its last
     * cell, which must still see the JVM's pauses. Linux names such a descriptor's target
     * "PATH (deleted)". {@code file} itself (unreadable, so no evidence) when there is none.
     */
    private static Path stillOpen(Path file) {
        String deleted = file.toAbsolutePath() + " (deleted)";
        try (java.nio.file.DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path fd : fds) {
                try {
                    if (deleted.equals(Files.readSymbolicLink(fd).toString())) {
                        return fd;
                    }
                } catch (IOException | UnsupportedOperationException e) {
                    // closed meanwhile, or not a link
                }
            }
        } catch (IOException | RuntimeException e) {
            // no /proc: no evidence from the log
        }
        return file;
    }

    /**
     * Safepoints that ended in [fromNanos, toNanos], as stalls relative to {@code startNanos},
     * in time order: from {@code file} and the files the JVM rotated it into ({@code FILE.0},
     * {@code FILE.1} ...: the launcher bounds the log with -Xlog's filecount and filesize, and
     * a run's pauses may lie on both sides of a rotation).
     */
    static List<JvmStall> read(Path file, long startNanos, long fromNanos, long toNanos) {
        List<JvmStall> stalls = new ArrayList<>();
        if (file == null) {
            return stalls;
        }
        for (Path f : withRotated(file)) {
            readOne(f, startNanos, fromNanos, toNanos, stalls);
        }
        stalls.sort(java.util.Comparator.comparingLong(JvmStall::offsetNs));
        return stalls;
    }

    /** {@code file}'s rotated siblings ({@code NAME.N}) that exist, then {@code file}. */
    static List<Path> withRotated(Path file) {
        List<Path> files = new ArrayList<>();
        Path dir = file.toAbsolutePath().getParent();
        String prefix = file.getFileName().toString() + ".";
        if (dir != null && !dir.toString().startsWith("/proc/")) {
            try (java.nio.file.DirectoryStream<Path> all = Files.newDirectoryStream(dir, prefix + "*")) {
                for (Path f : all) {
                    String n = f.getFileName().toString().substring(prefix.length());
                    if (!n.isEmpty() && n.chars().allMatch(Character::isDigit)) {
                        files.add(f);
                    }
                }
            } catch (IOException | RuntimeException e) {
                // no rotated files to be read: the current one still is
            }
        }
        files.add(file);
        return files;
    }

    private static void readOne(Path file, long startNanos, long fromNanos, long toNanos, List<JvmStall> stalls) {
        if (!Files.isReadable(file)) {
            return;
        }
        // Read as a stream, a line at a time: a log is not to be held whole on a 48 MB heap.
        try (java.io.BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                JvmStall s = parse(line, startNanos);
                if (s != null) {
                    long end = startNanos + s.offsetNs() + s.durationNs();
                    if (end >= fromNanos && end <= toNanos) {
                        stalls.add(s);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // A log we cannot read means less evidence, never a failed run.
        }
    }

    static JvmStall parse(String line, long startNanos) {
        Matcher m = LINE.matcher(line);
        if (!m.find()) {
            return null;
        }
        long end = Long.parseLong(m.group(1));
        long total = Long.parseLong(m.group(3));
        return new JvmStall(end - total - startNanos, total, "safepoint", m.group(2));
    }
}
