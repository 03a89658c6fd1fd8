package rtbox.policy.sched.internal;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import rtbox.core.RtThrottling;

/**
 * Reads and writes one kernel setting under /proc/sys. Reads go through
 * {@link rtbox.os.Procfs#read} (one big read: the kernel answers a read at a
 * non-zero offset of an integer sysctl with end-of-file). A write is one write(2)
 * of the whole value; sched_rt_runtime_us can refuse it with EBUSY for a moment
 * while the scheduler is re-checking its bandwidth, so a write is retried.
 */
final class Sysctl {
    static final int ATTEMPTS = 20;
    static final long PAUSE_MS = 25;

    private Sysctl() {
    }

    static long read(Path file) throws IOException {
        String v = rtbox.os.Procfs.read(file.toString());
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IOException(file + " holds '" + v + "', not a whole number");
        }
    }

    static void write(Path file, long value) throws IOException {
        byte[] bytes = (value + "\n").getBytes(StandardCharsets.US_ASCII);
        IOException last = null;
        for (int i = 0; i < ATTEMPTS; i++) {
            try (FileOutputStream out = new FileOutputStream(file.toFile())) {
                out.write(bytes);
                return;
            } catch (IOException e) {
                last = e;
                if (e.getMessage() == null || !e.getMessage().contains("busy")) {
                    break;
                }
                try {
                    Thread.sleep(PAUSE_MS);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        throw new IOException("cannot write " + value + " to " + file + ": " + (last == null ? "" : last.getMessage()),
                last);
    }
}
