package rtbox.workload.blockio.internal;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * When block reads were in flight, for the runner's spike attribution
 * ({@link rtbox.core.toolkit.BusyWindows}): a ring of (start, end) pairs in
 * System.nanoTime, preallocated, written by the reading thread without allocating
 * or locking, and read once by the runner after the run while reads go on.
 *
 * <p>A read that starts within {@link #GAP_NS} of the end of the window before it
 * extends that window instead of taking a new slot. The attribution widens every
 * window by 50 us on each side, so this loses nothing it could tell apart, and a
 * stressor reading back to back (busy all the time) fills one slot, not the ring.
 * Reads paced by a rate limit each take a slot: the ring holds the newest
 * {@link #CAPACITY} - 1 windows (27 minutes at 10 reads/s).
 *
 * <p>One writer thread. Each slot's start and end are single atomic longs (a plain
 * long may tear on a 32-bit JVM, the board's), so a snapshot taken while the writer
 * goes on drops only the slots the writer may be overwriting: it reads the count
 * before and after copying and keeps the windows newer than (count after - capacity):
 * the slot of the oldest window is where the writer puts the next one, so a
 * snapshot of a full ring leaves the oldest out.
 */
final class ReadWindows {
    static final int CAPACITY = 16384;
    /** Gap between reads below which they are one window; the attribution's own slack. */
    static final long GAP_NS = 50_000;

    private final int capacity;
    private final AtomicLongArray ring;
    /** Windows published; window k lives in slot k % capacity. */
    private volatile int count;
    private volatile long inFlightStart;
    private volatile boolean inFlight;

    ReadWindows() {
        this(CAPACITY);
    }

    ReadWindows(int capacity) {
        this.capacity = capacity;
        this.ring = new AtomicLongArray(2 * capacity);
    }

    /** A read starts (reading thread). */
    void begin(long startNs) {
        inFlightStart = startNs;
        inFlight = true;
    }

    /** The read begun at startNs ended (reading thread): recorded before it stops counting as in flight. */
    void end(long startNs, long endNs) {
        int n = count;
        if (n > 0) {
            int last = 2 * ((n - 1) % capacity);
            if (startNs - ring.get(last + 1) <= GAP_NS) {
                ring.set(last + 1, endNs);
                inFlight = false;
                return;
            }
        }
        int slot = 2 * (n % capacity);
        ring.set(slot, startNs);
        ring.set(slot + 1, endNs);
        count = n + 1;
        inFlight = false;
    }

    /** Whether a read is in flight now. */
    boolean inFlight() {
        return inFlight;
    }

    /**
     * The windows kept, oldest first, as {@code [start0, end0, start1, end1, ...]}; a
     * read in flight is the last window, ending at {@code nowNs}. Allocates (once per run).
     */
    long[] snapshot(long nowNs) {
        boolean busy = inFlight;
        long busyStart = inFlightStart;
        int n1 = count;
        int from = Math.max(0, n1 - capacity);
        long[] w = new long[2 * (n1 - from) + 2];
        for (int k = from; k < n1; k++) {
            int slot = 2 * (k % capacity);
            w[2 * (k - from)] = ring.get(slot);
            w[2 * (k - from) + 1] = ring.get(slot + 1);
        }
        int n2 = count;
        // The writer may be filling window n2's slot, which held window n2 - capacity.
        int keepFrom = Math.max(from, n2 - capacity + 1);
        int keep = n1 - Math.min(keepFrom, n1);
        int len = 2 * keep;
        if (keep > 0 && keepFrom > from) {
            System.arraycopy(w, 2 * (keepFrom - from), w, 0, len);
        }
        // A read that ended while this was copied is in the list already (its start is not after the last end).
        if (busy && nowNs > busyStart && (len == 0 || busyStart > w[len - 1])) {
            w[len++] = busyStart;
            w[len++] = nowNs;
        }
        return Arrays.copyOf(w, len);
    }
}
