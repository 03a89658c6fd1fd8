package rtbox.trace.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import rtbox.os.DurableFile;

/**
 * What a trace session is about to leave in the kernel, written and synced before it
 * does: its process, its tracefs instance and, if it mounted tracefs, the mount point
 * ({@code pid N}, {@code instance PATH}, {@code mounted PATH}). A session that ends
 * deletes the file; a file found at the next start was left by a process that died, and
 * what it names is removed (as rtbox.policy.sched restores its settings).
 */
final class TraceState {
    private final Path file;

    TraceState(Path file) {
        this.file = file;
    }

    Path path() {
        return file;
    }

    void record(Path instance, Path mountedHere) throws IOException {
        StringBuilder b = new StringBuilder("# rtbox.trace: to remove if this file outlives its process\n");
        b.append("pid ").append(ProcessHandle.current().pid()).append('\n');
        b.append("instance ").append(instance).append('\n');
        if (mountedHere != null) {
            b.append("mounted ").append(mountedHere).append('\n');
        }
        DurableFile.write(file, b.toString().getBytes(StandardCharsets.UTF_8));
    }

    void delete() {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // the next start finds nothing left to remove and deletes it then
        }
    }

    /**
     * Removes what a dead process's file names (not this process's, nor a live one's);
     * returns what was done, for the log. Deletes the file once everything is gone.
     */
    List<String> restoreLeftovers() {
        List<String> done = new ArrayList<>();
        if (!Files.exists(file)) {
            return done;
        }
        long pid = -1;
        Path instance = null, mounted = null;
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.startsWith("pid ")) {
                    pid = Long.parseLong(line.substring(4).trim());
                } else if (line.startsWith("instance ")) {
                    instance = Path.of(line.substring(9).trim());
                } else if (line.startsWith("mounted ")) {
                    mounted = Path.of(line.substring(8).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            done.add("unreadable " + file + " deleted: " + e.getMessage());
            delete();
            return done;
        }
        if (pid == ProcessHandle.current().pid() || (pid > 0 && ProcessHandle.of(pid).isPresent())) {
            return done;
        }
        boolean clean = true;
        if (instance != null && Files.exists(instance)) {
            if (TraceFs.removeInstance(instance)) {
                done.add("removed the tracefs instance " + instance + " of process " + pid);
            } else {
                done.add("could not remove the tracefs instance " + instance + " of process " + pid);
                clean = false;
            }
        }
        if (mounted != null && mounted.equals(TraceFs.mounted())) {
            String why = TraceFs.unmount(mounted);
            done.add(why == null ? "unmounted tracefs at " + mounted + " (mounted by process " + pid + ")" : why);
        }
        if (clean) {
            delete();
        }
        return done;
    }
}
