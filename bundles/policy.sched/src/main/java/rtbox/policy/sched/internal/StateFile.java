package rtbox.policy.sched.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import rtbox.os.DurableFile;

/**
 * What the tuner is about to change, written and synced to disk before the change:
 * one line per kernel setting with its original value ({@code set PATH VALUE}),
 * plus the process that made it. A run that ends normally deletes the file; a
 * file found at the next start was left by a run that died, and its values are
 * put back. Written to a temporary file, synced, renamed over the old one, and the
 * folder synced, so a power cut leaves either the old or the new file, never half.
 */
final class StateFile {
    private final Path file;

    StateFile(Path file) {
        this.file = file;
    }

    Path path() {
        return file;
    }

    boolean exists() {
        return Files.exists(file);
    }

    /** Records the original values (setting file to value). */
    void record(Map<Path, Long> originals) throws IOException {
        StringBuilder b = new StringBuilder("# rtbox.policy.sched: kernel settings to put back if this file outlives its run\n");
        b.append("pid ").append(ProcessHandle.current().pid()).append('\n');
        for (Map.Entry<Path, Long> e : originals.entrySet()) {
            b.append("set ").append(e.getKey()).append(' ').append(e.getValue()).append('\n');
        }
        DurableFile.write(file, b.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** The recorded settings and their original values; lines that do not parse are skipped. */
    Map<Path, Long> read() throws IOException {
        Map<Path, Long> out = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 3 && f[0].equals("set")) {
                try {
                    out.put(Path.of(f[1]), Long.parseLong(f[2]));
                } catch (NumberFormatException e) {
                    // a damaged line: nothing safe to restore from it
                }
            }
        }
        return out;
    }

    /** The process id that wrote the file, or -1. */
    long pid() {
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.startsWith("pid ")) {
                    return Long.parseLong(line.substring(4).trim());
                }
            }
        } catch (IOException | NumberFormatException e) {
            // unknown
        }
        return -1;
    }

    void delete() throws IOException {
        Files.deleteIfExists(file);
        DurableFile.syncFolder(file.toAbsolutePath().getParent());
    }

    static List<String> describe(Map<Path, Long> values) {
        List<String> out = new ArrayList<>();
        values.forEach((k, v) -> out.add(k.getFileName() + " " + v));
        return out;
    }
}
