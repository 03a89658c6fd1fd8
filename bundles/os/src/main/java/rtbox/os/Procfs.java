package rtbox.os;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What rtbox reads from /proc (and the like, e.g. cgroup files), in one place: kernel
 * settings, a thread's nice value and thread group, the mount table. Values come back as
 * the kernel wrote them, trimmed; a file that is not there is an {@link IOException}
 * naming it. Not for a measuring loop: each call opens and reads a file.
 */
public final class Procfs {

    private Procfs() {
    }

    /**
     * The whole of a kernel file, trimmed (e.g. {@code /proc/sys/kernel/osrelease}). Read
     * with one large first read, not Files.readString: a sysctl file says its size is 0, the
     * JDK then reads it in small pieces, and the kernel's integer sysctl handlers answer a
     * read at a non-zero offset with end-of-file ("950000" came back as "9" on 6.18).
     */
    public static String read(String path) throws IOException {
        try (java.io.FileInputStream in = new java.io.FileInputStream(path)) {
            java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            byte[] buffer = new byte[65536];
            int r;
            while ((r = in.read(buffer)) > 0) {
                all.write(buffer, 0, r);
            }
            return all.toString(StandardCharsets.UTF_8).trim();
        }
    }

    /** A kernel setting under /proc/sys/kernel, e.g. {@code sched_rt_runtime_us}. */
    public static String kernel(String name) throws IOException {
        return read("/proc/sys/kernel/" + name);
    }

    /** The lines of a /proc file, e.g. {@code /proc/cpuinfo}. */
    public static List<String> lines(String path) throws IOException {
        return read(path).lines().toList();
    }

    /** The nice value of a thread of this process (field 19 of /proc/self/task/TID/stat). */
    public static int nice(int tid) throws IOException {
        String stat = read("/proc/self/task/" + tid + "/stat");
        // The fields after the command name, which is in parentheses and may hold spaces and ')'.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        try {
            // f[0] is field 3 (state)
            return Integer.parseInt(f[19 - 3]);
        } catch (RuntimeException e) {
            throw new IOException("/proc/self/task/" + tid + "/stat has no nice value in field 19: " + stat, e);
        }
    }

    /** The thread group (process) of any thread id, from /proc/TID/status; 0 when the thread is gone. */
    public static int tgid(int tid) {
        if (tid <= 0) {
            return 0;
        }
        try {
            for (String line : lines("/proc/" + tid + "/status")) {
                if (line.startsWith("Tgid:")) {
                    return Integer.parseInt(line.substring(5).trim());
                }
            }
        } catch (IOException | NumberFormatException e) {
            // gone already
        }
        return 0;
    }

    /** This process's mount table, one line per mount (/proc/self/mounts). */
    public static List<String> mounts() throws IOException {
        return lines("/proc/self/mounts");
    }
}
