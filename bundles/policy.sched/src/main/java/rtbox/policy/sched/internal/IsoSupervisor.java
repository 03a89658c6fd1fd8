package rtbox.policy.sched.internal;

import java.io.File;
import java.util.BitSet;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import rtbox.api.SchedPolicy;
import rtbox.os.CpuClock;
import rtbox.os.OsException;
import rtbox.os.Sched;

/**
 * Over 400 lines: the supervisor's tick loop, the discovery of ISO threads and child
 * processes, and the demote/promote transitions share preallocated per-thread buffers that
 * the no-allocation tick reads; splitting them would pass those arrays between classes.
 * The rule itself is {@link IsoRule}, apart.
 *
 * <p>SCHED_ISO emulated on a kernel without it: a thread at SCHED_FIFO {@link IsoBand#SUPERVISOR}
 * (above every ISO task) that samples, every tick (4 to 10 ms), the CPU time of every ISO
 * thread from its schedstat, feeds {@link IsoRule}, and moves all ISO threads to
 * SCHED_OTHER (at their own nice) on a demotion and back to the ISO band's policy and
 * priority on a promotion.
 *
 * <p>ISO threads are the threads of this process found at the ISO band's policy and
 * priority (the runner starts them there: the tuner's effective policy), looked for every
 * {@link #SCAN_NS} (a directory listing, which allocates) when a Java thread started since
 * the last listing or one is in its first second, and every {@link #RECHECK_NS} anyway;
 * or handed over with {@link #adopt}. Once found a thread stays tracked, demoted or not, until it ends.
 * The per-tick path (one clock_gettime per thread on its CPU-time clock, {@link CpuClock},
 * into buffers allocated once, and arithmetic) does not allocate; a demotion or promotion
 * makes one sched_setscheduler per thread.
 *
 * <p>{@link #close()} stops the thread and puts every tracked thread that is still alive
 * back at the ISO band's policy (the policy it was found at). Child processes of this JVM
 * (/proc/self/task/TID/children, the graph probe's clients) at the ISO band are ISO tasks
 * too, demoted and promoted with the threads.
 */
final class IsoSupervisor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.policy.sched");
    static final int MAX_THREADS = 256;
    static final long SCAN_NS = 100_000_000L;
    /**
     * Child processes are looked for less often than threads: a children file per JVM thread
     * (60-80 in the appliance) every 100 ms made most of the supervisor's cost.
     */
    static final long CHILD_SCAN_NS = 1_000_000_000L;
    /** A thread is asked its policy at every scan for this long after it first appears... */
    static final long NEW_NS = 1_000_000_000L;
    /** ...then once in this long: a thread moved into the ISO band later is found within it. */
    static final long RECHECK_NS = 1_000_000_000L;
    /**
     * The supervisor wakes only when the rule can have something to do ({@link
     * IsoRule#quietTicks}), at the latest at the next thread scan: a wake-up alone costs
     * 25-44 us of CPU on the development VM, most of the supervisor's cost at a 10 ms tick.
     */
    private final int maxStride;
    /** Demotions and promotions kept with their times (ns since start), for the run's record. */
    static final int MAX_TRANSITIONS = 1024;

    private final IsoRule rule;
    private final long tickNs;
    private final SchedPolicy isoPolicy;
    private final int isoPriority;
    private final int[] tids = new int[MAX_THREADS];
    private final CpuClock[] stats = new CpuClock[MAX_THREADS];
    private final long[] last = new long[MAX_THREADS];
    private final BitSet cpus = new BitSet();
    private final long[] transitionAt = new long[MAX_TRANSITIONS];
    private final boolean[] transitionDemote = new boolean[MAX_TRANSITIONS];
    private final double[] transitionShare = new double[MAX_TRANSITIONS];
    /** Per tracked thread: its process (0: this JVM; else a child process, whose pid is its tid). */
    private final int[] pids = new int[MAX_THREADS];
    private volatile int count;
    private final Thread thread;
    private volatile boolean stop;
    private volatile String failure;
    private final Object lock = new Object();

    // Figures, written by the supervisor thread, read after close().
    private int demotions, promotions, transitions, seen;
    private long demotedNs, usedNs, elapsedNs, started, ended;
    private double peakShare;
    private int cpuCount = 1;

    /** Samples at the rule's tick ({@link IsoRule#tickNs()}): the rule's arithmetic is per tick. */
    IsoSupervisor(IsoRule rule, SchedPolicy isoPolicy, int isoPriority) {
        this.rule = rule;
        this.tickNs = rule.tickNs();
        this.maxStride = (int) Math.max(1, SCAN_NS / tickNs);
        this.isoPolicy = isoPolicy;
        this.isoPriority = isoPriority;
        this.thread = new Thread(this::loop, "rtbox-iso-supervisor");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Tracks a thread of this process as an ISO thread (the scan would find it too). */
    void adopt(int tid) {
        synchronized (lock) {
            track(0, tid);
        }
    }

    /** {@code pid} 0: a thread of this process; otherwise a child process (single-threaded: tid = pid). */
    private void track(int pid, int tid) {
        int n = count;
        int free = n;
        for (int i = 0; i < n; i++) {
            if (tids[i] == tid) {
                return;
            }
            if (tids[i] == 0 && free == n) {
                free = i;
            }
        }
        n = free;
        if (n == MAX_THREADS) {
            failure = "more than " + MAX_THREADS + " ISO threads: thread " + tid + " is not supervised";
            return;
        }
        try {
            CpuClock s = pid == 0 ? CpuClock.ofThread(tid) : CpuClock.ofProcess(pid);
            for (int cpu : Sched.getAffinity(tid)) {
                cpus.set(cpu);
            }
            cpuCount = Math.max(1, cpus.cardinality());
            tids[n] = tid;
            pids[n] = pid;
            stats[n] = s;
            last[n] = s.nanos();
            if (rule.demoted()) {
                setPolicy(tid, true);
            }
            if (n == count) {
                count = n + 1;
            }
            seen++;
        } catch (OsException e) {
            // the thread ended before it could be tracked
        }
    }

    private java.util.Set<Integer> children = java.util.Set.of();
    /** Per thread of this process seen by the scan: when first seen and last asked its policy (System.nanoTime). */
    private final java.util.Map<Integer, long[]> checked = new java.util.HashMap<>();
    private final java.lang.management.ThreadMXBean threadsBean = java.lang.management.ManagementFactory.getThreadMXBean();
    private long lastStartedThreads = -1, lastNewThread, lastListing;

    private boolean tracked(int tid) {
        for (int i = 0; i < count; i++) {
            if (tids[i] == tid) {
                return true;
            }
        }
        return false;
    }

    private void scan(boolean withChildren) {
        String[] names = new File("/proc/self/task").list();
        if (names == null) {
            return;
        }
        java.util.Set<Integer> threads = new java.util.HashSet<>();
        java.util.Set<Integer> found = withChildren ? new java.util.HashSet<>() : children;
        for (String name : names) {
            try {
                int tid = Integer.parseInt(name);
                threads.add(tid);
                if (withChildren) {
                    addChildren(tid, found);
                }
            } catch (NumberFormatException e) {
                // not a thread
            }
        }
        children = found;
        // An ended thread's open schedstat still reads its final count: ended is what the
        // listing no longer holds (and its id may come back for a new thread). A child
        // process ended when no thread of this process has it as a child any more.
        for (int i = 0; i < count; i++) {
            if (tids[i] != 0 && !(pids[i] == 0 ? threads : children).contains(tids[i])) {
                tids[i] = 0;
                stats[i] = null;
            }
        }
        // Only a thread not yet known, or not asked for a while, is asked its policy: asking
        // each of the JVM's 60-80 threads at every scan (two system calls each) was half the
        // supervisor's cost. A new thread is asked at every scan for its first second (the
        // runner's threads set their policy as they start), then once every RECHECK_NS.
        long now = System.nanoTime();
        checked.keySet().retainAll(threads);
        for (int tid : threads) {
            long[] at = checked.get(tid);
            if (at == null) {
                checked.put(tid, new long[] {now, now});
                lastNewThread = now;
            } else if (now - at[0] >= NEW_NS && now - at[1] < RECHECK_NS) {
                continue;
            } else {
                at[1] = now;
            }
            if (!tracked(tid)) {
                consider(0, tid);
            }
        }
        if (withChildren) {
            for (int pid : children) {
                consider(pid, pid);
            }
        }
    }

    private void consider(int pid, int tid) {
        try {
            if (Sched.getScheduler(tid) == isoPolicy && Sched.getPriority(tid) == isoPriority) {
                track(pid, tid);
            }
        } catch (OsException e) {
            // ended meanwhile
        }
    }

    /** Where a children file is read; one for the supervisor's thread, reused. */
    private final byte[] childrenBuffer = new byte[4096];

    /**
     * Adds the child processes of one thread of this JVM (/proc/self/task/TID/children: the
     * graph probe's forked clients, a pipe switcher's reader) to {@code found}; none where the
     * kernel lacks that file. Read into a reused buffer and parsed in place: reading it as a
     * string (a 64 KB buffer a call) for each of the JVM's 60-80 threads once a second made
     * 4-5 MB/s of garbage, a young collection every few seconds inside the ISO cells' runs.
     */
    private void addChildren(int tid, java.util.Set<Integer> found) {
        int n = 0;
        try (java.io.FileInputStream in = new java.io.FileInputStream("/proc/self/task/" + tid + "/children")) {
            int r;
            while (n < childrenBuffer.length && (r = in.read(childrenBuffer, n, childrenBuffer.length - n)) > 0) {
                n += r;
            }
        } catch (java.io.IOException e) {
            // the thread ended, or no such file (CONFIG_PROC_CHILDREN off): no children seen
            return;
        }
        int pid = -1;
        for (int i = 0; i < n; i++) {
            int d = childrenBuffer[i] - '0';
            if (d >= 0 && d <= 9) {
                pid = (pid < 0 ? 0 : pid * 10) + d;
            } else if (pid >= 0) {
                found.add(pid);
                pid = -1;
            }
        }
        if (pid >= 0 && n < childrenBuffer.length) {
            found.add(pid);
        }
    }

    private void loop() {
        try {
            Sched.setScheduler(0, SchedPolicy.FIFO, IsoBand.SUPERVISOR);
        } catch (OsException e) {
            failure = "the supervisor cannot run at SCHED_FIFO " + IsoBand.SUPERVISOR + ": " + e.getMessage()
                    + "; ISO threads are not demoted";
            return;
        }
        started = System.nanoTime();
        long prev = started;
        long nextScan = started;
        long nextChildScan = started;
        long next = started + tickNs;
        while (!stop) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
                continue;
            }
            long now = System.nanoTime();
            synchronized (lock) {
                if (now >= nextScan) {
                    boolean withChildren = now >= nextChildScan;
                    // The listing only when it may hold something new: a Java thread started
                    // since the last one (the JVM's count of them, no system call), a thread
                    // still in its first second, children to look for, or a second gone by.
                    long startedThreads = threadsBean.getTotalStartedThreadCount();
                    if (withChildren || startedThreads != lastStartedThreads || now - lastNewThread < NEW_NS
                            || now - lastListing >= RECHECK_NS) {
                        scan(withChildren);
                        lastStartedThreads = startedThreads;
                        lastListing = now;
                    }
                    nextScan = now + SCAN_NS;
                    if (withChildren) {
                        nextChildScan = now + CHILD_SCAN_NS;
                    }
                }
                long used = 0;
                int n = count;
                for (int i = 0; i < n; i++) {
                    if (tids[i] == 0) {
                        continue;
                    }
                    long t = stats[i].nanos();
                    if (t < 0) {
                        // The task ended (its clock fails at once): dropped now, before its id
                        // can name another task.
                        tids[i] = 0;
                        stats[i] = null;
                        continue;
                    }
                    // A count that went backwards is a new task under an ended one's id: from here.
                    used += Math.max(0, t - last[i]);
                    last[i] = t;
                }
                long dt = now - prev;
                prev = now;
                boolean wasDemoted = rule.demoted();
                IsoRule.Change c = rule.sample(used, dt, cpuCount);
                usedNs += used;
                elapsedNs += dt * cpuCount;
                if (wasDemoted) {
                    demotedNs += dt;
                }
                if (rule.share() > peakShare) {
                    peakShare = rule.share();
                }
                if (c != IsoRule.Change.NONE) {
                    boolean demote = c == IsoRule.Change.DEMOTE;
                    if (demote) {
                        demotions++;
                    } else {
                        promotions++;
                    }
                    if (transitions < MAX_TRANSITIONS) {
                        transitionAt[transitions] = now - started;
                        transitionDemote[transitions] = demote;
                        transitionShare[transitions] = rule.share();
                        transitions++;
                    }
                    for (int i = 0; i < n; i++) {
                        if (tids[i] != 0) {
                            setPolicy(tids[i], demote);
                        }
                    }
                }
                // The next wake-up: as many ticks on as nothing can change over, even at the
                // share's fastest rise (or fall, demoted), and no later than the next scan.
                long step = rule.quietTicks(maxStride) * tickNs;
                next += step;
                if (now - next > tickNs) {
                    next = now + step; // late by more than a tick (a stall): no catching up in a burst
                }
            }
        }
        ended = System.nanoTime();
    }

    private void setPolicy(int tid, boolean demote) {
        try {
            if (demote) {
                Sched.setScheduler(tid, SchedPolicy.OTHER, 0);
            } else {
                Sched.setScheduler(tid, isoPolicy, isoPriority);
            }
        } catch (OsException e) {
            // ESRCH: the thread ended; the next sample drops it
        }
    }

    /** Stops sampling and puts every tracked thread still alive back at the ISO band's policy. */
    @Override
    public void close() {
        stop = true;
        LockSupport.unpark(thread);
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (lock) {
            for (int i = 0; i < count; i++) {
                if (tids[i] != 0 && rule.demoted()) {
                    setPolicy(tids[i], false);
                }
                stats[i] = null;
            }
        }
        if (failure != null) {
            LOG.warn(failure);
        }
    }

    String failure() {
        return failure;
    }

    int demotions() {
        return demotions;
    }

    int promotions() {
        return promotions;
    }

    long demotedNs() {
        return demotedNs;
    }

    /** The ISO threads' CPU time over the capacity of their CPUs, over the whole run (0 to 1). */
    double meanShare() {
        return elapsedNs == 0 ? 0 : usedNs / (double) elapsedNs;
    }

    /** The highest decaying-average share seen (0 to 1). */
    double peakShare() {
        return peakShare;
    }

    int cpus() {
        return cpuCount;
    }

    /** The ISO threads supervised over the run. */
    int tracked() {
        return seen;
    }

    /**
     * Each demotion and promotion as an event of the run at its time (kinds {@code iso.demote}
     * and {@code iso.promote}), so that a report lines xruns and spikes up with them. After
     * {@link #close()}: the supervisor's loop records them in arrays and allocates nothing.
     */
    void reportTransitions(rtbox.api.RunContext context) {
        for (int i = 0; i < transitions; i++) {
            String share = String.format(java.util.Locale.ROOT, "%.1f", 100 * transitionShare[i]);
            context.event(started + transitionAt[i], transitionDemote[i] ? "iso.demote" : "iso.promote",
                    transitionDemote[i] ? "emulated ISO: the ISO class's share " + share + " % is over iso_cpu: its "
                            + "threads run as SCHED_OTHER" : "emulated ISO: the ISO class's share " + share + " % is "
                            + "under 90 % of iso_cpu: its threads are back at SCHED_" + isoPolicy + " " + isoPriority);
        }
    }

    /** The demotions and promotions, "D@1.234s P@1.780s ...", at most {@link #MAX_TRANSITIONS}. */
    String transitions() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < transitions; i++) {
            b.append(i == 0 ? "" : " ").append(transitionDemote[i] ? "D@" : "P@")
                    .append(String.format(java.util.Locale.ROOT, "%.3fs", transitionAt[i] / 1e9));
        }
        return b.toString();
    }
}
