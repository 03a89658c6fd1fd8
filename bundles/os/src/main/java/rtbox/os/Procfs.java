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

    /**
     * The thread group (process) of any thread id, from /proc/TID/status; 0 when the thread is
     * gone. Reads the file's head only (Tgid is its fourth line) into a small buffer and
     * parses the bytes: the trace reader calls this for every thread id it sees first, which
     * during a compile load is dozens a second, and read() (a 64 KiB buffer, a String, its
     * lines) made 70 KB of garbage each: 760 kB/s measured, enough for a young GC in a run.
     */
    public static int tgid(int tid) {
        if (tid <= 0) {
            return 0;
        }
        byte[] head = new byte[512];
        int n = 0;
        try (java.io.FileInputStream in = new java.io.FileInputStream("/proc/" + tid + "/status")) {
            int r;
            while (n < head.length && (r = in.read(head, n, head.length - n)) > 0) {
                n += r;
            }
        } catch (IOException e) {
            return 0; // gone already
        }
        return tgidIn(head, n);
    }

    /**
     * {@link Procfs#tgid} with buffers of its own, for a loop: the path is written into native
     * memory and the file's head read there, so a lookup allocates nothing (the trace reader
     * looks up every thread id it sees first; {@code tgid} made about 1 kB of garbage each, a
     * path, a stream and its buffer). One thread at a time.
     *
     * @since 1.10
     */
    public static final class Tgids {
        private static final int HEAD = 512;
        private final com.sun.jna.Memory path = new com.sun.jna.Memory(32);
        private final com.sun.jna.Memory buffer = new com.sun.jna.Memory(HEAD);
        private final com.sun.jna.NativeLong count = new com.sun.jna.NativeLong(HEAD);
        private final byte[] head = new byte[HEAD];
        private final byte[] name = new byte[32];

        /** The thread group (process) of thread id {@code tid}, from /proc/TID/status; 0 when the thread is gone. */
        public int of(int tid) {
            if (tid <= 0) {
                return 0;
            }
            int n = 0;
            for (byte b : PROC) {
                name[n++] = b;
            }
            int digits = 1;
            for (int t = tid; t >= 10; t /= 10) {
                digits++;
            }
            for (int i = digits - 1, t = tid; i >= 0; i--, t /= 10) {
                name[n + i] = (byte) ('0' + t % 10);
            }
            n += digits;
            for (byte b : STATUS) {
                name[n++] = b;
            }
            name[n++] = 0;
            path.write(0, name, 0, n);
            int fd = rtbox.os.internal.LibCIo.openat(rtbox.os.internal.LibCIo.AT_FDCWD, path,
                    rtbox.os.internal.LibCIo.O_RDONLY | rtbox.os.internal.LibCIo.O_CLOEXEC);
            if (fd < 0) {
                return 0; // gone already
            }
            try {
                // One read: the kernel makes the whole file at once and hands out its head (Tgid is line 4).
                int r = rtbox.os.internal.LibCIo.read(fd, buffer, count);
                buffer.read(0, head, 0, r);
                return tgidIn(head, r);
            } catch (com.sun.jna.LastErrorException e) {
                return 0;
            } finally {
                try {
                    rtbox.os.internal.LibCIo.close(fd);
                } catch (com.sun.jna.LastErrorException e) {
                    // the descriptor is gone either way
                }
            }
        }

        private static final byte[] PROC = {'/', 'p', 'r', 'o', 'c', '/'};
        private static final byte[] STATUS = {'/', 's', 't', 'a', 't', 'u', 's'};
    }

    /** The number after "Tgid:" at the start of a line of the first {@code n} bytes; 0 without one. */
    private static final byte[] TGID = {'T', 'g', 'i', 'd', ':'};

    static int tgidIn(byte[] status, int n) {
        byte[] key = TGID;
        for (int i = 0; i + key.length <= n; i++) {
            if ((i == 0 || status[i - 1] == '\n') && java.util.Arrays.equals(status, i, i + key.length, key, 0,
                    key.length)) {
                int j = i + key.length;
                while (j < n && (status[j] == ' ' || status[j] == '\t')) {
                    j++;
                }
                long v = 0;
                int digits = 0;
                while (j < n && status[j] >= '0' && status[j] <= '9' && digits < 10) {
                    v = v * 10 + (status[j++] - '0');
                    digits++;
                }
                return digits == 0 || v > Integer.MAX_VALUE ? 0 : (int) v;
            }
        }
        return 0;
    }

    /** This process's mount table, one line per mount (/proc/self/mounts). */
    public static List<String> mounts() throws IOException {
        return lines("/proc/self/mounts");
    }

    /**
     * The CPU time a thread of this process has run, in ns: the first field of
     * /proc/self/task/TID/schedstat (the scheduler's sum_exec_runtime, whatever the
     * thread's policy was while it ran). Opens and reads the file; for a loop, use
     * {@link Schedstat}.
     */
    public static long schedstatRuntimeNs(int tid) throws IOException {
        String s = read("/proc/self/task/" + tid + "/schedstat");
        int space = s.indexOf(' ');
        try {
            return Long.parseLong(space < 0 ? s : s.substring(0, space));
        } catch (NumberFormatException e) {
            throw new IOException("/proc/self/task/" + tid + "/schedstat does not start with a count of ns: " + s, e);
        }
    }

    /**
     * One thread's schedstat held open, for a sampling loop: {@link #runtimeNs()} is one
     * pread64 at offset 0 into a buffer allocated once and a parse of its first field, and
     * allocates nothing. One thread at a time may call it. After the thread has ended the
     * open file reads its final count for a while and then fails (-1): whether the thread
     * lives is for /proc/self/task to say ({@link #schedstatRuntimeNs} fails at once).
     */
    public static final class Schedstat implements AutoCloseable {
        private static final int SIZE = 128;
        private final int tid;
        private final com.sun.jna.Memory buffer = new com.sun.jna.Memory(SIZE);
        private final com.sun.jna.NativeLong count = new com.sun.jna.NativeLong(SIZE);
        private int fd;

        private Schedstat(int tid, int fd) {
            this.tid = tid;
            this.fd = fd;
        }

        /** Opens /proc/PID/task/TID/schedstat of a thread of process {@code pid} (0: this process). */
        public static Schedstat open(int pid, int tid) throws OsException {
            String path = "/proc/" + (pid == 0 ? "self" : Integer.toString(pid)) + "/task/" + tid + "/schedstat";
            int fd = Native.call("open(" + path + ")",
                    () -> rtbox.os.internal.LibCIo.open(path, rtbox.os.internal.LibCIo.O_RDONLY
                            | rtbox.os.internal.LibCIo.O_CLOEXEC));
            return new Schedstat(tid, fd);
        }

        public int tid() {
            return tid;
        }

        /** The thread's CPU time so far in ns (its final count once it ended), or -1 when it cannot be read. */
        public long runtimeNs() {
            int n;
            try {
                n = rtbox.os.internal.LibCIo.pread64(fd, buffer, count, 0);
            } catch (com.sun.jna.LastErrorException e) {
                return -1;
            }
            long v = 0;
            int i = 0;
            for (; i < n; i++) {
                byte b = buffer.getByte(i);
                if (b < '0' || b > '9') {
                    break;
                }
                v = v * 10 + (b - '0');
            }
            return i == 0 ? -1 : v;
        }

        @Override
        public void close() {
            if (fd >= 0) {
                try {
                    rtbox.os.internal.LibCIo.close(fd);
                } catch (com.sun.jna.LastErrorException e) {
                    // nothing to do: the descriptor is gone either way
                }
                fd = -1;
            }
            buffer.close();
        }
    }
}
