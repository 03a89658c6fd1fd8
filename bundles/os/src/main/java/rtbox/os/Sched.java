package rtbox.os;

import java.util.ArrayList;
import java.util.List;

import com.sun.jna.Memory;
import com.sun.jna.NativeLong;

import rtbox.api.SchedPolicy;
import rtbox.os.internal.LibC;

/**
 * Scheduling of the calling thread or of a thread by its kernel id (tid): policy and
 * priority, CPU affinity, timer slack. {@code tid} 0 means the calling thread.
 */
public final class Sched {
    /** Bytes of a CPU mask: 1024 CPUs, glibc's cpu_set_t. */
    private static final int MASK_BYTES = 128;

    private Sched() {
    }

    /** The kernel id of the calling thread (what top -H and /proc/PID/task show). */
    public static int gettid() {
        return LibC.gettid();
    }

    /** The number of CPUs configured on this machine (possible CPUs, not the affinity mask). */
    public static int configuredCpus() {
        try {
            String online = new String(java.nio.file.Files.readAllBytes(
                    java.nio.file.Paths.get("/sys/devices/system/cpu/online"))).trim();
            int max = 0;
            for (int c : parseCpuList(online)) {
                max = Math.max(max, c + 1);
            }
            return max;
        } catch (java.io.IOException | IllegalArgumentException e) {
            return Runtime.getRuntime().availableProcessors();
        }
    }

    /**
     * Parses a kernel CPU list such as "0-3,6": rtbox's one CPU-list parser (the kernel's
     * files and rtbox.core's RunSchema, which every front end reads a run with, use it).
     */
    public static int[] parseCpuList(String list) {
        List<Integer> cpus = new ArrayList<>();
        for (String part : list.trim().split(",")) {
            if (part.isEmpty()) {
                continue;
            }
            int dash = part.indexOf('-');
            if (dash < 0) {
                cpus.add(Integer.parseInt(part.trim()));
            } else {
                int from = Integer.parseInt(part.substring(0, dash).trim());
                int to = Integer.parseInt(part.substring(dash + 1).trim());
                if (to < from || to - from > 65_535) {
                    throw new IllegalArgumentException("bad CPU range " + part);
                }
                for (int c = from; c <= to; c++) {
                    cpus.add(c);
                }
            }
        }
        return cpus.stream().mapToInt(Integer::intValue).toArray();
    }

    /** sched_setscheduler(2): sets policy and static priority. */
    public static void setScheduler(int tid, SchedPolicy policy, int priority) throws OsException {
        Memory param = new Memory(4);
        param.setInt(0, priority);
        Native.call("sched_setscheduler(tid " + tid + ", SCHED_" + policy + ", priority " + priority + ")",
                () -> LibC.sched_setscheduler(tid, policy.kernelValue, param));
    }

    /** sched_getscheduler(2). */
    public static SchedPolicy getScheduler(int tid) throws OsException {
        int p = Native.call("sched_getscheduler(tid " + tid + ")", () -> LibC.sched_getscheduler(tid));
        // SCHED_RESET_ON_FORK is OR-ed into the value the kernel returns.
        return SchedPolicy.ofKernelValue(p & ~0x40000000);
    }

    /** sched_getparam(2): the static priority. */
    public static int getPriority(int tid) throws OsException {
        Memory param = new Memory(4);
        Native.call("sched_getparam(tid " + tid + ")", () -> LibC.sched_getparam(tid, param));
        return param.getInt(0);
    }

    /**
     * Whether the kernel accepts a policy for a thread: tries it on the calling thread
     * and puts the old policy back. Used to detect SCHED_ISO (policy 4, -ck kernels).
     */
    public static boolean accepts(SchedPolicy policy) {
        try {
            SchedPolicy old = getScheduler(0);
            int oldPriority = getPriority(0);
            try {
                setScheduler(0, policy, policy.minPriority);
                return true;
            } finally {
                setScheduler(0, old, oldPriority);
            }
        } catch (OsException e) {
            return false;
        }
    }

    /** sched_setaffinity(2): pins the thread to the given CPUs. */
    public static void setAffinity(int tid, int... cpus) throws OsException {
        Memory mask = new Memory(MASK_BYTES);
        mask.clear();
        for (int cpu : cpus) {
            if (cpu < 0 || cpu >= MASK_BYTES * 8) {
                throw new OsException("sched_setaffinity", Errno.EINVAL, "CPU " + cpu + " is out of range");
            }
            mask.setByte(cpu / 8, (byte) (mask.getByte(cpu / 8) | (1 << (cpu % 8))));
        }
        Native.call("sched_setaffinity(tid " + tid + ", CPUs " + java.util.Arrays.toString(cpus) + ")",
                () -> LibC.sched_setaffinity(tid, new NativeLong(MASK_BYTES), mask));
    }

    /** sched_getaffinity(2): the CPUs the thread may run on. */
    public static int[] getAffinity(int tid) throws OsException {
        Memory mask = new Memory(MASK_BYTES);
        mask.clear();
        Native.call("sched_getaffinity(tid " + tid + ")",
                () -> LibC.sched_getaffinity(tid, new NativeLong(MASK_BYTES), mask));
        List<Integer> cpus = new ArrayList<>();
        for (int i = 0; i < MASK_BYTES * 8; i++) {
            if ((mask.getByte(i / 8) & (1 << (i % 8))) != 0) {
                cpus.add(i);
            }
        }
        return cpus.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * prctl(PR_SET_TIMERSLACK) for the calling thread. A SCHED_OTHER thread has 50 us
     * of slack by default, which the kernel may add to every timed wake-up.
     */
    public static void setTimerSlackNanos(long nanos) throws OsException {
        if (nanos < 1) {
            // 0 would mean "reset to the default" (50 us), the opposite of what is asked.
            throw new OsException("prctl(PR_SET_TIMERSLACK)", Errno.EINVAL, "timer slack must be >= 1 ns, not " + nanos);
        }
        NativeLong zero = new NativeLong(0);
        Native.call("prctl(PR_SET_TIMERSLACK, " + nanos + ")",
                () -> LibC.prctl(LibC.PR_SET_TIMERSLACK, new NativeLong(nanos), zero, zero, zero));
    }

    /** prctl(PR_GET_TIMERSLACK) for the calling thread, in nanoseconds. */
    public static long getTimerSlackNanos() throws OsException {
        NativeLong zero = new NativeLong(0);
        return Native.call("prctl(PR_GET_TIMERSLACK)",
                () -> LibC.prctl(LibC.PR_GET_TIMERSLACK, zero, zero, zero, zero)) & 0xffffffffL;
    }
}
