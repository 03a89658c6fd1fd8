package rtbox.os;

import java.util.Arrays;

import rtbox.api.RtboxException;
import rtbox.api.SchedPolicy;
import rtbox.os.internal.LibCIo;

/**
 * Scheduling settings a workload thread applies to itself when it starts: policy
 * and priority, nice value (SCHED_OTHER/BATCH/IDLE only) and CPU affinity.
 * Immutable. {@link #parse} reads them from workload parameters
 * ({@code policy}, {@code priority}, {@code nice}, {@code cpu}).
 */
public final class ThreadSettings {
    public final SchedPolicy policy;
    public final int priority;
    public final int nice;
    /** CPUs to pin to; empty for no pinning. */
    private final int[] cpus;

    public ThreadSettings(SchedPolicy policy, int priority, int nice, int... cpus) throws RtboxException {
        if (priority < policy.minPriority || priority > policy.maxPriority) {
            throw new RtboxException("priority", "priority " + priority + " is out of range for SCHED_" + policy
                    + ": use " + policy.minPriority + " to " + policy.maxPriority);
        }
        if (nice < -20 || nice > 19) {
            throw new RtboxException("nice", "nice " + nice + " is out of range: use -20 to 19");
        }
        int online = Sched.configuredCpus();
        for (int c : cpus) {
            if (c < 0 || c >= online) {
                throw new RtboxException("cpu", "CPU " + c + " does not exist: this machine has CPUs 0 to "
                        + (online - 1));
            }
        }
        this.policy = policy;
        this.priority = priority;
        this.nice = nice;
        this.cpus = cpus.clone();
    }

    /** Reads policy, priority, nice and cpu from a workload's parameters (defaults: other, 0, 0, none). */
    public static ThreadSettings parse(java.util.Map<String, String> p, String prefix) throws RtboxException {
        String pol = p.get(prefix + "policy");
        int prio = integer(p, prefix + "priority", 0);
        SchedPolicy policy = pol != null ? SchedPolicy.parse(pol) : prio > 0 ? SchedPolicy.FIFO : SchedPolicy.OTHER;
        int nice = integer(p, prefix + "nice", 0);
        String cpu = p.get(prefix + "cpu");
        int[] cpus = new int[0];
        if (cpu != null && !cpu.isBlank()) {
            try {
                cpus = Sched.parseCpuList(cpu.replace('+', ','));
            } catch (IllegalArgumentException e) {
                throw new RtboxException(prefix + "cpu", prefix + "cpu '" + cpu
                        + "' is not a CPU list such as 1 or 0-3 (use + instead of , inside --load)");
            }
        }
        return new ThreadSettings(policy, prio, nice, cpus);
    }

    private static int integer(java.util.Map<String, String> p, String key, int fallback) throws RtboxException {
        String v = p.get(key);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new RtboxException(key, key + " '" + v + "' is not a whole number");
        }
    }

    public int[] cpus() {
        return cpus.clone();
    }

    /** Applies these settings to the calling thread. */
    public void applyToCurrentThread() throws OsException {
        applyTo(Sched.gettid());
    }

    /** Applies these settings to a thread, or to a single-threaded process, by its id. */
    public void applyTo(int tid) throws OsException {
        if (cpus.length > 0) {
            Sched.setAffinity(tid, cpus);
        }
        if (policy != SchedPolicy.OTHER || priority != 0) {
            Sched.setScheduler(tid, policy, priority);
        }
        if (nice != 0 && !policy.isRealtime()) {
            // On Linux, setpriority(PRIO_PROCESS, tid) sets the nice value of one thread.
            Native.call("setpriority(PRIO_PROCESS, tid " + tid + ", " + nice + ")",
                    () -> LibCIo.setpriority(LibCIo.PRIO_PROCESS, tid, nice));
        }
    }

    @Override
    public String toString() {
        return policy.lowerName() + (policy.isRealtime() ? " " + priority : "") + (nice != 0 ? " nice " + nice : "")
                + (cpus.length > 0 ? " cpu " + Arrays.toString(cpus) : "");
    }
}
