package rtbox.workload.blockio.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

class ReadWindowsTest {
    @Test
    void readsAreWindowsAndCloseOnesAreOne() {
        ReadWindows w = new ReadWindows();
        assertArrayEquals(new long[0], w.snapshot(1000));
        w.begin(1_000_000);
        w.end(1_000_000, 1_200_000);
        // Starts 50 us after the last end: the same window, as the attribution's slack would join them anyway.
        w.begin(1_250_000);
        w.end(1_250_000, 1_300_000);
        // Starts 1 ms later: a window of its own.
        w.begin(2_300_000);
        w.end(2_300_000, 2_400_000);
        assertArrayEquals(new long[] {1_000_000, 1_300_000, 2_300_000, 2_400_000}, w.snapshot(3_000_000));
    }

    @Test
    void aReadInFlightIsTheLastWindowUpToNow() {
        ReadWindows w = new ReadWindows();
        w.begin(1_000_000);
        w.end(1_000_000, 1_100_000);
        w.begin(5_000_000);
        assertTrue(w.inFlight());
        assertArrayEquals(new long[] {1_000_000, 1_100_000, 5_000_000, 7_000_000}, w.snapshot(7_000_000));
        w.end(5_000_000, 8_000_000);
        assertTrue(!w.inFlight());
        assertArrayEquals(new long[] {1_000_000, 1_100_000, 5_000_000, 8_000_000}, w.snapshot(9_000_000));
    }

    @Test
    void aFullRingKeepsTheNewestWindowsInOrder() {
        ReadWindows w = new ReadWindows(4);
        for (int k = 0; k < 10; k++) {
            w.begin(k * 1_000_000L);
            w.end(k * 1_000_000L, k * 1_000_000L + 10);
        }
        // Capacity - 1: the slot of the oldest is where the writer puts the next, so a snapshot leaves it out.
        assertArrayEquals(new long[] {7_000_000, 7_000_010, 8_000_000, 8_000_010, 9_000_000, 9_000_010},
            w.snapshot(10_000_000));
    }

    @Test
    void recordingAllocatesNothing() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        ReadWindows w = new ReadWindows(1024);
        long t = 0;
        for (int i = 0; i < 200_000; i++) { // warm up: compiled before it is measured
            t += 100_000;
            w.begin(t);
            w.end(t, t + 10);
        }
        long id = Thread.currentThread().getId();
        long before = mx.getThreadAllocatedBytes(id);
        for (int i = 0; i < 1_000_000; i++) {
            t += (i & 1) == 0 ? 100_000 : 20; // new windows and extended ones
            w.begin(t);
            w.end(t, t + 10);
        }
        long bytes = mx.getThreadAllocatedBytes(id) - before;
        assertTrue(bytes < 1024, bytes + " bytes allocated in 1,000,000 reads");
    }

    /** Snapshots taken while the writer laps a small ring see only whole windows, in order. */
    @Test
    void snapshotsWhileReadsGoOnAreConsistent() throws Exception {
        ReadWindows w = new ReadWindows(64);
        AtomicReference<String> bad = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            for (long k = 1; k <= 3_000_000; k++) {
                long s = k * 1_000_000L;
                w.begin(s);
                w.end(s, s + 500);
            }
        });
        writer.start();
        long snapshots = 0;
        while (writer.isAlive() || snapshots == 0) {
            long[] a = w.snapshot(Long.MAX_VALUE);
            snapshots++;
            for (int i = 0; i + 1 < a.length; i += 2) {
                // The last window may be a read in flight (up to "now"): after the others, not necessarily next.
                boolean inFlightLast = i + 2 == a.length && a[i + 1] == Long.MAX_VALUE;
                boolean ok = a[i] % 1_000_000L == 0 && a[i] > 0 && (inFlightLast
                        ? i == 0 || a[i] > a[i - 1]
                        : a[i + 1] == a[i] + 500 && (i == 0 || a[i] == a[i - 2] + 1_000_000L));
                if (!ok) {
                    bad.compareAndSet(null, "snapshot " + snapshots + " at " + i + ": " + a[i] + ", " + a[i + 1]);
                }
            }
            assertTrue(a.length <= 2 * 64, "length " + a.length);
        }
        writer.join();
        assertEquals(null, bad.get());
        long[] last = w.snapshot(Long.MAX_VALUE);
        assertEquals(2 * 63, last.length);
        assertEquals(3_000_000L * 1_000_000L + 500, last[125]);
    }
}
