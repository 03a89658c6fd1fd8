package rtbox.os;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import rtbox.api.SchedPolicy;

/**
 * Real system calls on this machine. The tests run as root here (CI too); where
 * SCHED_FIFO is refused (EPERM, not root) the test checks the error names the call.
 */
class SchedTest {
    /** Runs the body on a fresh thread, so a changed policy or affinity dies with it. */
    private static void onFreshThread(ThrowingRunnable body) throws Throwable {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.start();
        t.join();
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    interface ThrowingRunnable {
        void run() throws Throwable;
    }

    @Test
    void setsAndReadsFifoPriority() throws Throwable {
        onFreshThread(() -> {
            try {
                Sched.setScheduler(0, SchedPolicy.FIFO, 10);
            } catch (OsException e) {
                assertEquals(Errno.EPERM, e.errno(), "only EPERM (not root) may stop this test: " + e.getMessage());
                assertTrue(e.getMessage().contains("sched_setscheduler"));
                return;
            }
            assertEquals(SchedPolicy.FIFO, Sched.getScheduler(0));
            assertEquals(10, Sched.getPriority(0));
        });
    }

    @Test
    void priorityOutOfRangeNamesCallAndErrno() throws Throwable {
        onFreshThread(() -> {
            OsException e = assertThrows(OsException.class, () -> Sched.setScheduler(0, SchedPolicy.FIFO, 100));
            assertEquals(Errno.EINVAL, e.errno());
            assertTrue(e.getMessage().contains("sched_setscheduler"), e.getMessage());
            assertTrue(e.getMessage().contains("EINVAL"), e.getMessage());
            assertTrue(e.getMessage().contains("priority 100"), e.getMessage());
        });
    }

    @Test
    void affinityPinsAndRefusesMissingCpu() throws Throwable {
        onFreshThread(() -> {
            Sched.setAffinity(0, 0);
            assertArrayEquals(new int[] {0}, Sched.getAffinity(0));
            OsException e = assertThrows(OsException.class, () -> Sched.setAffinity(0, 1000));
            assertEquals(Errno.EINVAL, e.errno());
            assertTrue(e.getMessage().contains("sched_setaffinity"), e.getMessage());
        });
    }

    @Test
    void timerSlackCanBeSetToOneNanosecond() throws Throwable {
        onFreshThread(() -> {
            assertEquals(50_000, Sched.getTimerSlackNanos(), "a new SCHED_OTHER thread has 50 us of slack");
            Sched.setTimerSlackNanos(1);
            assertEquals(1, Sched.getTimerSlackNanos());
            assertThrows(OsException.class, () -> Sched.setTimerSlackNanos(0));
        });
    }

    @Test
    void tidIsTheKernelsThreadId() throws Throwable {
        onFreshThread(() -> {
            int tid = Sched.gettid();
            assertTrue(java.nio.file.Files.exists(java.nio.file.Path.of("/proc/self/task/" + tid)));
        });
    }

    @Test
    void parsesKernelCpuLists() {
        assertArrayEquals(new int[] {0, 1, 2, 3, 6}, Sched.parseCpuList("0-3,6"));
        assertThrows(IllegalArgumentException.class, () -> Sched.parseCpuList("3-1"));
    }

    @Test
    void sleepsToAnAbsoluteDeadlineOnTheNanoTimeClock() throws OsException {
        MonotonicClock clock = new MonotonicClock();
        clock.sleepUntil(System.nanoTime()); // loads and binds the native library first
        long deadline = System.nanoTime() + 2_000_000;
        assertEquals(0, clock.sleepUntil(deadline));
        long now = System.nanoTime();
        assertTrue(now >= deadline, "woke before the deadline: the clocks differ");
        // Loose: this checks the clock, not the latency (other builds share these CPUs).
        assertTrue(now - deadline < 1_000_000_000L, "woke " + (now - deadline) + " ns late");
        long a = System.nanoTime(), b = MonotonicClock.now(), c = System.nanoTime();
        assertTrue(a <= b && b <= c, "System.nanoTime is not CLOCK_MONOTONIC");
    }

    @Test
    void locksAndUnlocksMemory() throws Exception {
        assertEquals(0, lockedKb(), "this JVM locks nothing before");
        MemoryLock.lockAll();
        long locked;
        try {
            locked = lockedKb();
        } finally {
            MemoryLock.unlockAll();
        }
        // The kernel counts every mapping locked (MCL_CURRENT), faulted in or not (MCL_ONFAULT): a JVM has
        // hundreds of MB mapped, so even the board's would show far more than a megabyte.
        assertTrue(locked > 1024, "VmLck after mlockall: " + locked + " kB");
        assertEquals(0, lockedKb(), "munlockall leaves nothing locked");
    }

    /** The process's locked memory as the kernel counts it (VmLck in /proc/self/status). */
    private static long lockedKb() throws java.io.IOException {
        return java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status")).stream()
                .filter(l -> l.startsWith("VmLck:")).map(l -> l.replaceAll("\\D", "")).mapToLong(Long::parseLong)
                .findFirst().orElseThrow();
    }
}
