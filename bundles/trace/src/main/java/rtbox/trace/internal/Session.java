package rtbox.trace.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.sun.jna.LastErrorException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import rtbox.api.RtboxException;
import rtbox.api.SchedPolicy;
import rtbox.api.result.Culprit;
import rtbox.os.OsException;
import rtbox.os.Sched;
import rtbox.os.ThreadUsage;
import rtbox.trace.TraceSession;

/**
 * Over 400 lines: one trace instance's life (state file, set-up, the reader thread, stop,
 * the culprits of a spike, the removal that must never be skipped) in one class, since set-up
 * and removal must mirror each other exactly; the binary page format and the timelines are
 * apart.
 *
 * <p>One run's trace: a private tracefs instance on the probe's CPUs, read by a thread off
 * those CPUs into per-CPU timelines. The instance is recorded in the state file before
 * it is made, and removed (and the state file deleted) by {@link #close()}.
 */
final class Session implements TraceSession {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.trace");
    /**
     * Events enabled; sched_switch is the one without which there is no trace. Not
     * sched_waking: it marks the same wake-up as sched_wakeup a moment earlier, and every
     * event is a cost on the probe's own CPU (two more per probe cycle with both).
     */
    static final String[] EVENTS = {"sched/sched_switch", "sched/sched_wakeup",
        "irq/irq_handler_entry", "irq/irq_handler_exit", "irq/softirq_entry", "irq/softirq_exit"};

    private final TraceFs fs;
    private final TraceState state;
    private final Path instance;
    private final int[] cpus;
    private final CpuTimeline[] timelines;
    private final int[] fds;
    private final long[][] lastTs;
    private final TraceReader reader;
    private final long pollNanos;
    private final List<String> notes = Collections.synchronizedList(new ArrayList<>());
    private final Thread thread;
    private volatile boolean stopping;
    private volatile boolean stopped;
    private boolean closed;
    /** Removes the closed session's instance, off the run's path (see {@link #close}). */
    private Thread removal;
    /** The last session's removal, which the next session's set-up and the bundle's stop wait for. */
    private static volatile Session removing;
    /** Removes the instance when the JVM exits during a run (SIGTERM, Ctrl-C): a run's own end never comes then. */
    private Thread exitHook;
    private long startNanos, stopNanos, readerCpuNs, pages;

    private Session(TraceFs fs, TraceState state, Path instance, int[] cpus, TraceReader reader, int capacity,
            long pollNanos) {
        this.fs = fs;
        this.state = state;
        this.instance = instance;
        this.cpus = cpus.clone();
        this.reader = reader;
        this.pollNanos = pollNanos;
        int max = 0;
        for (int c : cpus) {
            max = Math.max(max, c);
        }
        timelines = new CpuTimeline[max + 1];
        for (int c : cpus) {
            timelines[c] = new CpuTimeline(capacity);
        }
        fds = new int[cpus.length];
        java.util.Arrays.fill(fds, -1);
        lastTs = new long[cpus.length][1];
        thread = new Thread(this::loop, "rtbox-trace");
        thread.setDaemon(true);
    }

    /** Makes the instance and starts reading it; on any failure removes what it made and says why. */
    static Session start(TraceState state, int[] cpus, SchedPolicy probePolicy, int probePriority, int bufferKb,
            int capacity, long pollNanos) throws RtboxException {
        if (cpus.length == 0) {
            throw new RtboxException("trace", "no CPUs to trace");
        }
        List<String> restored = state.restoreLeftovers();
        TraceFs fs = TraceFs.open();
        restored.addAll(fs.removeOrphans().stream().map(n -> "removed the orphaned tracefs instance " + n).toList());
        Path instance = fs.instances().resolve(TraceFs.PREFIX + ProcessHandle.current().pid());
        try {
            state.record(instance, fs.mountedHere ? fs.root : null);
        } catch (IOException e) {
            String why = fs.unmountIfMine();
            throw new RtboxException("trace", "cannot record the trace instance in " + state.path() + ": "
                    + e.getMessage() + (why == null ? "" : "; " + why));
        }
        Session[] made = new Session[1];
        // Registered before the instance exists: a SIGTERM from here on removes it (closing the
        // session's pipes first: an instance with open files cannot be removed).
        Thread exitHook = new Thread(() -> {
            // Waits for a start in progress (whose thread goes on while the JVM exits): removing
            // the instance under it would leave the one it then makes.
            synchronized (SETUP) {
                if (made[0] != null) {
                    made[0].close();
                    made[0].awaitRemoval();
                } else {
                    TraceFs.removeInstance(instance);
                    fs.unmountIfMine();
                    state.delete();
                }
            }
        }, "rtbox-trace-exit");
        Runtime.getRuntime().addShutdownHook(exitHook);
        synchronized (SETUP) {
            // The instance has this process's name: the last one must be gone before it is made again.
            awaitPendingRemoval();
            return setUp(fs, state, instance, cpus, probePolicy, probePriority, bufferKb, capacity, pollNanos,
                    restored, exitHook, made);
        }
    }

    /** One session is set up at a time, and never while the JVM's exit hook removes one. */
    private static final Object SETUP = new Object();

    private static Session setUp(TraceFs fs, TraceState state, Path instance, int[] cpus, SchedPolicy probePolicy,
            int probePriority, int bufferKb, int capacity, long pollNanos, List<String> restored, Thread exitHook,
            Session[] made) throws RtboxException {
        Session s = null;
        try {
            fs.createInstance();
            TraceFs.write(instance.resolve("tracing_on"), "0");
            TraceFs.write(instance.resolve("buffer_size_kb"), Integer.toString(bufferKb));
            String clocks = TraceFs.read(instance.resolve("trace_clock"));
            if (!(" " + clocks.replace("[", "").replace("]", "") + " ").contains(" mono ")) {
                throw new RtboxException("trace", "this kernel's trace has no 'mono' clock (it has: " + clocks
                        + "): its times cannot be lined up with the probe's");
            }
            TraceFs.write(instance.resolve("trace_clock"), "mono");
            TraceFs.write(instance.resolve("tracing_cpumask"), TraceFs.cpuMask(cpus));
            List<String> missing = new ArrayList<>();
            for (String e : EVENTS) {
                Path enable = instance.resolve("events").resolve(e).resolve("enable");
                if (!Files.exists(enable)) {
                    if (e.equals(EVENTS[0])) {
                        throw new RtboxException("trace", "this kernel has no sched_switch trace event");
                    }
                    missing.add(e.substring(e.indexOf('/') + 1));
                    continue;
                }
                TraceFs.write(enable, "1");
            }
            int probePrio = probePolicy.isRealtime() ? 99 - probePriority : -1;
            TraceReader reader;
            try {
                reader = new TraceReader(fs.root.resolve("events"), new Tasks(), probePrio);
            } catch (IOException e) {
                throw new RtboxException("trace", "cannot read the trace's event formats: " + e.getMessage());
            }
            s = new Session(fs, state, instance, cpus, reader, capacity, pollNanos);
            s.exitHook = exitHook;
            made[0] = s;
            s.notes.addAll(restored);
            if (!missing.isEmpty()) {
                s.notes.add("kernel trace without " + String.join(", ", missing) + ": interrupts are not all named");
            }
            for (int i = 0; i < cpus.length; i++) {
                Path pipe = instance.resolve("per_cpu/cpu" + cpus[i] + "/trace_pipe_raw");
                try {
                    s.fds[i] = Posix.open(pipe.toString(), Posix.O_RDONLY | Posix.O_NONBLOCK | Posix.O_CLOEXEC);
                } catch (LastErrorException e) {
                    throw new RtboxException("trace", "cannot open " + pipe + ": " + Posix.strerror(e.getErrorCode()));
                }
            }
            s.startNanos = System.nanoTime();
            TraceFs.write(instance.resolve("tracing_on"), "1");
            s.thread.start();
            return s;
        } catch (RtboxException | RuntimeException e) {
            if (s != null) {
                s.close();
                s.awaitRemoval();
            } else {
                removeHook(exitHook);
                TraceFs.removeInstance(instance);
                fs.unmountIfMine();
                state.delete();
            }
            throw e;
        }
    }

    private static void removeHook(Thread hook) {
        if (hook == null) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException | IllegalArgumentException e) {
            // the JVM is exiting (the hook runs or ran), or it was never added
        }
    }

    private void loop() {
        try {
            int[] others = otherCpus();
            if (others.length > 0) {
                Sched.setAffinity(0, others);
            } else {
                notes.add("the trace reader shares the probe's CPU (no other CPU): it runs at normal priority");
            }
        } catch (OsException e) {
            notes.add("the trace reader could not leave the probe's CPUs: " + e.getMessage());
        }
        ThreadUsage before = usage();
        while (!stopping) {
            drainAll();
            java.util.concurrent.locks.LockSupport.parkNanos(pollNanos);
        }
        drainAll();
        long end = System.nanoTime();
        for (int c : cpus) {
            timelines[c].flush(end);
        }
        ThreadUsage after = usage();
        if (before != null && after != null) {
            readerCpuNs = after.userNs + after.systemNs - before.userNs - before.systemNs;
        }
        stopNanos = end;
    }

    private void drainAll() {
        for (int i = 0; i < cpus.length; i++) {
            pages += reader.drain(fds[i], timelines[cpus[i]], lastTs[i]);
        }
    }

    private static ThreadUsage usage() {
        try {
            return ThreadUsage.ofCurrentThread();
        } catch (OsException e) {
            return null;
        }
    }

    private int[] otherCpus() throws OsException {
        int[] allowed = Sched.getAffinity(0);
        return java.util.Arrays.stream(allowed).filter(c -> java.util.Arrays.stream(cpus).noneMatch(p -> p == c))
                .toArray();
    }

    @Override
    public synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        try {
            TraceFs.write(instance.resolve("tracing_on"), "0");
        } catch (RtboxException e) {
            notes.add(e.getMessage());
        }
        stopping = true;
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long lost = 0, intervals = 0, unknown = 0, placed = 0;
        for (int c : cpus) {
            lost += timelines[c].lossesTotal();
            intervals += timelines[c].intervalsStored();
            unknown += timelines[c].unknownSpans();
            placed += timelines[c].placedSwitches();
        }
        double seconds = Math.max(1, stopNanos - startNanos) / 1e9;
        notes.add(String.format(Locale.ROOT, "kernel trace on CPU %s: %d events in %d pages, %d intervals kept;"
                + " the reader used %.1f ms of CPU in %.1f s (%.2f %% of one CPU)%s", cpuList(), reader.events(), pages,
                intervals, readerCpuNs / 1e6, seconds, readerCpuNs / 1e7 / seconds,
                lost > 0 ? "; the kernel dropped " + lost + " events (spikes then carry no culprit)" : "")
                + (unknown + placed > 0 ? "; " + (unknown + placed) + " switches were missing from the kernel's trace ("
                        + placed + " placed by the next event's thread, " + unknown + " left unknown: no culprit there)"
                        : ""));
    }

    private String cpuList() {
        StringBuilder b = new StringBuilder();
        for (int c : cpus) {
            b.append(b.length() == 0 ? "" : ",").append(c);
        }
        return b.toString();
    }

    @Override
    public List<Culprit> culprits(int cpu, long fromNanos, long toNanos, int excludeTid) {
        stop();
        if (cpu < 0 || cpu >= timelines.length || timelines[cpu] == null) {
            return List.of();
        }
        Map<Long, long[]> sums = new HashMap<>();
        timelines[cpu].overlapping(fromNanos, toNanos, (owner, ns) -> {
            if ((owner & CpuTimeline.KIND_MASK) == CpuTimeline.KIND_TASK && CpuTimeline.id(owner) == excludeTid) {
                return;
            }
            sums.computeIfAbsent(owner, k -> new long[1])[0] += ns;
        });
        List<Culprit> list = new ArrayList<>();
        for (Map.Entry<Long, long[]> e : sums.entrySet()) {
            list.add(culprit(e.getKey(), e.getValue()[0]));
        }
        list.sort((a, b) -> Long.compare(b.durationNs(), a.durationNs()));
        return list;
    }

    @Override
    public List<String> excerpt(int cpu, long fromNanos, long toNanos, long zeroNanos, int excludeTid) {
        stop();
        if (cpu < 0 || cpu >= timelines.length || timelines[cpu] == null) {
            return List.of();
        }
        List<long[]> spans = new ArrayList<>();
        timelines[cpu].intervals(fromNanos, toNanos, (owner, from, to) -> {
            if ((owner & CpuTimeline.KIND_MASK) != CpuTimeline.KIND_TASK || CpuTimeline.id(owner) != excludeTid) {
                spans.add(new long[] {owner, from, to});
            }
        });
        spans.sort((a, b) -> Long.compare(a[1], b[1]));
        List<String> lines = new ArrayList<>();
        for (long[] sp : spans) {
            lines.add(String.format(Locale.ROOT, "%+10.1f us to %+10.1f us %8.1f us  %s", (sp[1] - zeroNanos) / 1e3,
                    (sp[2] - zeroNanos) / 1e3, (sp[2] - sp[1]) / 1e3, culprit(sp[0], sp[2] - sp[1]).who()));
        }
        return lines;
    }

    private Culprit culprit(long owner, long ns) {
        int id = CpuTimeline.id(owner);
        long kind = owner & CpuTimeline.KIND_MASK;
        if (kind == CpuTimeline.KIND_IRQ) {
            return new Culprit(Culprit.IRQ, tasks().irqName(id), id, -1, "", 0, false, ns);
        }
        if (kind == CpuTimeline.KIND_SOFTIRQ) {
            return new Culprit(Culprit.SOFTIRQ, TraceReader.softirqName(id), id, -1, "", 0, false, ns);
        }
        int prio = CpuTimeline.prio(owner);
        Tasks.Task t = tasks().known(id);
        return new Culprit(Culprit.TASK, t == null || t.comm == null ? "?" : t.comm, id, t == null ? 0 : t.pid,
                t == null ? Tasks.policy(id, prio) : t.policy(prio), Tasks.userPriority(prio), t != null && t.ownJvm,
                ns);
    }

    private Tasks tasks() {
        return reader.tasks();
    }

    @Override
    public boolean covers(int cpu, long fromNanos, long toNanos) {
        stop();
        if (cpu < 0 || cpu >= timelines.length || timelines[cpu] == null) {
            return false;
        }
        CpuTimeline t = timelines[cpu];
        return fromNanos >= t.keptFrom() && toNanos <= stopNanos && !t.lostIn(fromNanos, toNanos);
    }

    @Override
    public List<String> notes() {
        synchronized (notes) {
            return new ArrayList<>(notes);
        }
    }

    /**
     * Stops the reader and the tracing now, and removes the instance on a thread of its own:
     * removing an instance frees its ring buffers, 70 ms on this 2-CPU VM with 2 MiB per CPU,
     * and the runner closes the session after the run's end and before its result can be
     * queued (bench/mqtt: end of run to result at a subscriber). The next session's set-up,
     * the JVM's exit and the bundle's stop wait for the removal.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        stop();
        closed = true;
        for (int i = 0; i < fds.length; i++) {
            if (fds[i] >= 0) {
                Posix.close(fds[i]);
                fds[i] = -1;
            }
        }
        try {
            TraceFs.write(instance.resolve("tracing_on"), "0");
        } catch (RtboxException e) {
            // removing it is what matters
        }
        removal = new Thread(this::remove, "rtbox-trace-remove");
        removing = this;
        removal.start();
    }

    private void remove() {
        boolean removed = TraceFs.removeInstance(instance);
        String why = fs.unmountIfMine();
        if (!removed) {
            LOG.warn("could not remove the tracefs instance {}: the next start removes it", instance);
        }
        if (why != null) {
            LOG.warn(why);
        }
        if (removed) {
            state.delete();
        }
        if (Thread.currentThread() != exitHook) {
            removeHook(exitHook);
        }
    }

    /** Waits until this closed session's instance is removed (or could not be). */
    void awaitRemoval() {
        Thread t;
        synchronized (this) {
            t = removal;
        }
        if (t == null || t == Thread.currentThread()) {
            return;
        }
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for the last closed session's removal, if one is under way. */
    static void awaitPendingRemoval() {
        Session s = removing;
        if (s != null) {
            s.awaitRemoval();
        }
    }
}
