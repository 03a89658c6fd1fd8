package rtbox.trace.internal;

import java.util.HashMap;
import java.util.Map;

import rtbox.api.SchedPolicy;
import rtbox.os.OsException;
import rtbox.os.Sched;

/**
 * What the trace's thread ids are: the name the kernel gave (from the events), the
 * process a thread belongs to and whether that is this JVM, looked up in /proc the first
 * time a thread is seen (it may be gone by the end of the run). Used by the reader
 * thread only, then read after it stopped.
 */
final class Tasks {
    private static final long SELF = ProcessHandle.current().pid();

    static final class Task {
        final int tid;
        String comm;
        long commHash;
        int pid;
        boolean ownJvm;
        /** The policy looked up when the thread was last seen at priority {@link #policyPrio}. */
        String policy;
        int policyPrio = -1;
        /** The kernel priority the trace last gave the thread (a switch or a wake-up). */
        int lastPrio = 120;

        /** The thread's policy at trace priority {@code prio}: as seen then, or derived from it. */
        String policy(int prio) {
            return prio == policyPrio ? policy : Tasks.policy(tid, prio);
        }

        Task(int tid) {
            this.tid = tid;
        }
    }

    private final rtbox.os.Procfs.Tgids tgids = new rtbox.os.Procfs.Tgids();
    private final Map<Integer, Task> byTid = new HashMap<>();
    /**
     * The last task seen per tid modulo its size, in front of {@link #byTid}: events name the
     * same few threads over and over, and a map lookup boxes a tid above 127 (an Integer per
     * event, thousands a second, garbage that ends in a young GC during a run).
     */
    private final Task[] recent = new Task[1024];
    private final Map<Integer, String> irqNames = new HashMap<>();

    /** The thread, looked up in /proc when first seen. */
    Task task(int tid) {
        Task t = known(tid);
        if (t == null) {
            t = new Task(tid);
            t.pid = tgid(tid);
            t.ownJvm = t.pid == SELF;
            byTid.put(tid, t);
            recent[tid & (recent.length - 1)] = t;
        }
        return t;
    }

    Task known(int tid) {
        int slot = tid & (recent.length - 1);
        Task t = recent[slot];
        if (t != null && t.tid == tid) {
            return t;
        }
        t = byTid.get(tid);
        if (t != null) {
            recent[slot] = t;
        }
        return t;
    }

    void irqName(int irq, String name) {
        irqNames.put(irq, name);
    }

    boolean hasIrqName(int irq) {
        return irqNames.containsKey(irq);
    }

    String irqName(int irq) {
        return irqNames.getOrDefault(irq, "?");
    }

    /** The thread group (process) of a thread id; 0 when it is gone. Allocates nothing (a new thread's Task aside). */
    private int tgid(int tid) {
        return tgids.of(tid);
    }

    /**
     * The scheduling policy the kernel priority {@code prio} (as the trace writes it: 0-98
     * for RT priorities 99-1, 100-139 for nice -20..19) stands for; the thread's own policy
     * when it still has that priority (FIFO and RR look the same in the trace).
     */
    static String policy(int tid, int prio) {
        if (prio >= 100) {
            return "SCHED_OTHER";
        }
        try {
            SchedPolicy p = Sched.getScheduler(tid);
            if (p.isRealtime() && 99 - Sched.getPriority(tid) == prio) {
                return "SCHED_" + p.name();
            }
        } catch (OsException e) {
            // gone, or a deadline task
        }
        return "SCHED_RT";
    }

    /** The priority a person knows: RT 1-99, or the nice value. */
    static int userPriority(int prio) {
        return prio >= 100 ? prio - 120 : 99 - prio;
    }
}
