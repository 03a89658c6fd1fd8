package rtbox.os;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** Another process's CPU time, precise below the 10 ms clock tick that utime and stime count in. */
class ProcessUsageTest {
    @Test
    void aChildThatRanLessThanOneTickIsStillCounted() throws Exception {
        // A few ms of shell arithmetic, then the same process sleeps (exec keeps its CPU time).
        Process p = new ProcessBuilder("sh", "-c", "i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done; exec sleep 30")
                .start();
        try {
            Path cmdline = Path.of("/proc", Long.toString(p.pid()), "cmdline");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!Files.readString(cmdline).startsWith("sleep") && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            ThreadUsage u = ProcessUsage.of(p.pid());
            long total = u.userNs + u.systemNs;
            assertTrue(total > 0, "the child's loop is counted: " + u);
            assertTrue(total < TimeUnit.SECONDS.toNanos(5), "no more than it could have run: " + u);
            // Read after: the exec'ed sleep may still be starting, so the clock can only be ahead.
            long after = CpuClock.ofProcess((int) p.pid()).nanos();
            assertTrue(total <= after && after - total < 50_000_000L,
                    "the total is the child's CPU-time clock: " + total + " ns, then " + after + " ns");
        } finally {
            p.destroyForcibly().waitFor();
        }
        assertThrows(OsException.class, () -> ProcessUsage.of(p.pid()), "a reaped child has no usage");
    }
}
