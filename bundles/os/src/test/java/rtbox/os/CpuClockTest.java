package rtbox.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

/** A task's CPU-time clock against its schedstat, for a thread of this JVM and a child process. */
class CpuClockTest {
    @Test
    void aThreadsClockCountsWhatItsSchedstatCountsAndFailsOnceItEnded() throws Exception {
        int[] tid = new int[1];
        CountDownLatch started = new CountDownLatch(1), go = new CountDownLatch(1), spun = new CountDownLatch(1),
                done = new CountDownLatch(1);
        Thread spinner = new Thread(() -> {
            try {
                tid[0] = Sched.gettid();
                started.countDown();
                go.await();
                long from = Procfs.schedstatRuntimeNs(tid[0]);
                while (Procfs.schedstatRuntimeNs(tid[0]) - from < 100_000_000L) {
                    Thread.onSpinWait();
                }
                spun.countDown();
                done.await();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        spinner.start();
        started.await();
        CpuClock c = CpuClock.ofThread(tid[0]);
        assertEquals(tid[0], c.tid());
        long first = c.nanos();
        assertTrue(first > 0, "" + first);
        go.countDown();
        spun.await();
        long stat = Procfs.schedstatRuntimeNs(tid[0]);
        long second = c.nanos();
        // The clock is up to date where schedstat may lag by the running slice: never behind it.
        assertTrue(second >= stat && second - first >= 100_000_000L, first + " -> " + second + ", schedstat " + stat);
        done.countDown();
        spinner.join();
        boolean failed = false;
        for (int i = 0; i < 200 && !failed; i++) {
            failed = c.nanos() == -1;
            Thread.sleep(10);
        }
        assertTrue(failed, "the clock of ended thread " + tid[0] + " still reads");
        assertThrows(OsException.class, () -> CpuClock.ofThread(Integer.MAX_VALUE));
        assertThrows(OsException.class, () -> CpuClock.ofThread(0));
        // Past pid_max (at most 2^22): no such task.
        assertThrows(OsException.class, () -> CpuClock.ofThread((1 << 22) + 1));
    }

    @Test
    void aChildProcesssClockIsItsSchedstatsCount() throws Exception {
        Process p = new ProcessBuilder("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; sleep 5").start();
        try {
            int pid = (int) p.pid();
            CpuClock c = CpuClock.ofProcess(pid);
            // Once the child has run (its schedstat counts CPU time), within 10 s.
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (Long.parseLong(Procfs.read("/proc/" + pid + "/schedstat").trim().split(" ")[0]) == 0
                    && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            long stat = Long.parseLong(Procfs.read("/proc/" + pid + "/schedstat").trim().split(" ")[0]);
            long clock = c.nanos();
            assertTrue(clock > 0 && clock >= stat - 1_000_000, "clock " + clock + ", schedstat " + stat);
        } finally {
            p.destroyForcibly();
            p.waitFor();
        }
    }
}
