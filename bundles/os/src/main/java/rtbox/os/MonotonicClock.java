package rtbox.os;

import rtbox.os.internal.LibC;

/**
 * Absolute-deadline sleeps on CLOCK_MONOTONIC, as cyclictest does them. One
 * instance per thread: it owns a preallocated timespec, so {@link #sleepUntil}
 * allocates nothing. {@link System#nanoTime()} reads the same clock on Linux
 * (clock_gettime(CLOCK_MONOTONIC) through the vDSO), so deadlines are computed
 * from it.
 */
public final class MonotonicClock {
    private final Timespec deadline = new Timespec();

    /**
     * Sleeps until the monotonic clock reaches {@code deadlineNanos}
     * (clock_nanosleep with TIMER_ABSTIME).
     *
     * @return 0, or the errno (EINTR when a signal woke the thread)
     */
    public int sleepUntil(long deadlineNanos) {
        deadline.set(deadlineNanos);
        return LibC.clock_nanosleep(LibC.CLOCK_MONOTONIC, LibC.TIMER_ABSTIME, deadline.pointer(), null);
    }

    /** CLOCK_MONOTONIC now, read through clock_gettime (for checks against nanoTime). */
    public static long now() throws OsException {
        Timespec ts = new Timespec();
        Native.call("clock_gettime", () -> LibC.clock_gettime(LibC.CLOCK_MONOTONIC, ts.pointer()));
        return ts.get();
    }

    /** The clock's resolution in nanoseconds (1 with high-resolution timers). */
    public static long resolutionNanos() throws OsException {
        Timespec ts = new Timespec();
        Native.call("clock_getres", () -> LibC.clock_getres(LibC.CLOCK_MONOTONIC, ts.pointer()));
        return ts.get();
    }
}
