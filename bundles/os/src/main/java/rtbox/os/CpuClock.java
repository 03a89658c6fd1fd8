package rtbox.os;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;

import rtbox.os.internal.LibC;

/**
 * A task's CPU time through its POSIX CPU-time clock: {@code clock_gettime} on the clock id
 * the kernel derives from a thread id of this process ({@code MAKE_THREAD_CPUCLOCK(tid,
 * CPUCLOCK_SCHED)}, as pthread_getcpuclockid gives) or from another process's pid
 * ({@code MAKE_PROCESS_CPUCLOCK}, as clock_getcpuclockid gives). The same count as the
 * first field of the task's schedstat (the scheduler's sum_exec_runtime), and up to date
 * for a task that is running now, but one system call and no text: about a quarter of the
 * cost of a pread of the schedstat file on the development VM (1.0 against 4.5 us, JNA
 * included), which is what a supervisor that reads 20 tasks every 4-10 ms pays.
 *
 * <p>{@link #nanos()} allocates nothing (one buffer per clock). The clock names a task by
 * its id, not by an open file: once the task ended it fails (-1), and an id the kernel
 * hands to a new task reads that task; a sampler compares with its own listing of tasks
 * (as {@link Procfs.Schedstat}'s users do) and takes a count that went backwards as a new
 * task. One thread at a time may call {@link #nanos()}.
 *
 * @since 1.8
 */
public final class CpuClock {
    // include/linux/posix-timers.h: CPUCLOCK_SCHED = 2, CPUCLOCK_PERTHREAD_MASK = 4.
    private static final int CPUCLOCK_SCHED = 2, PERTHREAD = 4;
    private final int clockId;
    private final int tid;
    private final Memory timespec = new Memory(2L * com.sun.jna.Native.LONG_SIZE);

    private CpuClock(int clockId, int tid) {
        this.clockId = clockId;
        this.tid = tid;
    }

    /** The clock of thread {@code tid} of this process. */
    public static CpuClock ofThread(int tid) throws OsException {
        return checked(new CpuClock((~tid << 3) | PERTHREAD | CPUCLOCK_SCHED, tid), "thread " + tid);
    }

    /** The clock of process {@code pid} (all its threads; for a single-threaded child, its only thread). */
    public static CpuClock ofProcess(int pid) throws OsException {
        return checked(new CpuClock((~pid << 3) | CPUCLOCK_SCHED, pid), "process " + pid);
    }

    private static CpuClock checked(CpuClock c, String what) throws OsException {
        // Id 0 is the caller's own clock, and an id past 2^28 shifts into another clock's bits.
        if (c.tid <= 0 || c.tid >= 1 << 28) {
            throw new OsException("clock_gettime", 22, "no CPU-time clock for " + what + ": not a task id");
        }
        Native.call("clock_gettime(CPU-time clock of " + what + ")", () -> LibC.clock_gettime(c.clockId, c.timespec));
        return c;
    }

    /** The task's id (thread id, or pid). */
    public int tid() {
        return tid;
    }

    /** The task's CPU time so far in ns, or -1 when it cannot be read (the task ended). */
    public long nanos() {
        try {
            LibC.clock_gettime(clockId, timespec);
        } catch (LastErrorException e) {
            return -1;
        }
        int l = com.sun.jna.Native.LONG_SIZE;
        long sec = l == 8 ? timespec.getLong(0) : timespec.getInt(0);
        long nsec = l == 8 ? timespec.getLong(8) : timespec.getInt(4);
        return sec * 1_000_000_000L + nsec;
    }
}
