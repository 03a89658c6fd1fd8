package rtbox.os;

import com.sun.jna.Memory;

import rtbox.os.internal.LibCIo;

/**
 * getrusage(RUSAGE_THREAD) of the calling thread: user and system CPU time and the
 * kernel's own context-switch counters (voluntary: the thread blocked; involuntary:
 * it was preempted). Immutable snapshot; subtract two with {@link #minus}.
 */
public final class ThreadUsage {
    public final long userNs, systemNs, voluntarySwitches, involuntarySwitches;

    public ThreadUsage(long userNs, long systemNs, long voluntarySwitches, long involuntarySwitches) {
        this.userNs = userNs;
        this.systemNs = systemNs;
        this.voluntarySwitches = voluntarySwitches;
        this.involuntarySwitches = involuntarySwitches;
    }

    /** The calling thread's usage so far. */
    public static ThreadUsage ofCurrentThread() throws OsException {
        return read(LibCIo.RUSAGE_THREAD, "getrusage(RUSAGE_THREAD)");
    }

    /** The whole process's usage so far (all its threads, live and ended). */
    public static ThreadUsage ofProcess() throws OsException {
        return read(LibCIo.RUSAGE_SELF, "getrusage(RUSAGE_SELF)");
    }

    private static ThreadUsage read(int who, String what) throws OsException {
        int l = com.sun.jna.Native.LONG_SIZE;
        // struct rusage: two struct timeval (two longs each), then 14 longs.
        Memory m = new Memory(18L * l);
        Native.call(what, () -> LibCIo.getrusage(who, m));
        long utime = lng(m, 0, l) * 1_000_000_000L + lng(m, 1, l) * 1000L;
        long stime = lng(m, 2, l) * 1_000_000_000L + lng(m, 3, l) * 1000L;
        return new ThreadUsage(utime, stime, lng(m, 16, l), lng(m, 17, l));
    }

    private static long lng(Memory m, int index, int size) {
        return size == 8 ? m.getLong((long) index * 8) : m.getInt((long) index * 4);
    }

    public ThreadUsage minus(ThreadUsage earlier) {
        return new ThreadUsage(userNs - earlier.userNs, systemNs - earlier.systemNs,
                voluntarySwitches - earlier.voluntarySwitches, involuntarySwitches - earlier.involuntarySwitches);
    }

    @Override
    public String toString() {
        return "user " + userNs / 1000 + " us, sys " + systemNs / 1000 + " us, switches " + voluntarySwitches
                + " voluntary " + involuntarySwitches + " involuntary";
    }
}
