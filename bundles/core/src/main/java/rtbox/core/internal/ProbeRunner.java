package rtbox.core.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import rtbox.api.Probe;
import rtbox.api.RtboxException;
import rtbox.api.RunContext;
import rtbox.api.Workload;
import rtbox.api.result.JvmStall;
import rtbox.api.result.ProbeResult;
import rtbox.api.result.RunEvent;
import rtbox.api.result.RunReport;
import rtbox.api.result.Spike;
import rtbox.api.result.SystemInfo;
import rtbox.api.result.ThreadResult;
import rtbox.api.result.Verdict;
import rtbox.core.RtThrottling;
import rtbox.core.LoadSpec;
import rtbox.core.RunRequest;
import rtbox.core.Runner;
import rtbox.trace.KernelTrace;
import rtbox.trace.TraceSession;

/**
 * Over 400 lines: the runner is one DS component whose references (probes, workloads, the
 * trace) and one run's sequence (checks, loads, trace, hiccup monitor, probe, attribution,
 * verdict) share its state; the run's context ({@link RunState}) is nested because only this
 * class makes it. Split candidates when it grows: the load handling (checkLoads, load).
 *
 * <p>The runner: one probe run at a time, with the hiccup monitor beside it, then
 * JVM stalls gathered, spikes attributed and the verdict given.
 */
@Component(service = Runner.class)
public class ProbeRunner implements Runner {
    private final Map<String, Probe> probes = new ConcurrentHashMap<>();
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile RunState current;
    /** Workload services by name; the last registered is used (a new version dropped beside an old one). */
    private final Map<String, java.util.Deque<Workload>> workloadServices = new ConcurrentHashMap<>();
    private final Map<String, Workload> workloads = new ConcurrentHashMap<>();
    private volatile LoadSet loads;
    /** The kernel's trace, when rtbox.trace is there: names the culprit of each spike. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile KernelTrace kernelTrace;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addWorkload(Workload workload, Map<String, Object> properties) {
        Object name = properties.get(Workload.NAME);
        if (name != null) {
            String n = name.toString();
            synchronized (workloadServices) {
                workloadServices.computeIfAbsent(n, k -> new java.util.ArrayDeque<>()).addLast(workload);
                workloads.put(n, workload);
            }
            LoadSet l = loads;
            if (l != null) {
                l.added(n, workload);
            }
        }
    }

    void removeWorkload(Workload workload, Map<String, Object> properties) {
        Object name = properties.get(Workload.NAME);
        if (name != null) {
            String n = name.toString();
            Workload fallback;
            synchronized (workloadServices) {
                java.util.Deque<Workload> d = workloadServices.getOrDefault(n, new java.util.ArrayDeque<>());
                d.remove(workload);
                fallback = d.peekLast();
                if (fallback == null) {
                    workloads.remove(n);
                    workloadServices.remove(n);
                } else {
                    workloads.put(n, fallback);
                }
            }
            LoadSet l = loads;
            if (l != null) {
                // Stops the instance now, while its bundle's classes are still there...
                l.removed(n, workload);
                if (fallback != null) {
                    // ...and goes on with the version still registered, if any.
                    l.added(n, fallback);
                }
            }
        }
    }

    @Override
    public Set<String> workloads() {
        return Collections.unmodifiableSet(new TreeSet<>(workloads.keySet()));
    }

    private String workloadNames() {
        return workloads.isEmpty() ? "none" : String.join(", ", workloads());
    }

    @Override
    public Map<String, Double> load(LoadSpec load, long durationNs, ProgressListener progress) throws RtboxException {
        if (durationNs <= 0) {
            throw new RtboxException("duration", "a workload run alone needs a duration (-D 5s)");
        }
        checkLoads(List.of(load));
        if (!running.compareAndSet(false, true)) {
            throw new RtboxException("run", "another run is in progress: one measurement at a time");
        }
        RunState state = new RunState(progress);
        current = state;
        LoadSet set = new LoadSet(List.of(load), state);
        try {
            loads = set;
            set.start(workloads, this::workloadNames);
            long start = System.nanoTime();
            long end = start + durationNs;
            long now;
            while ((now = System.nanoTime()) < end && !state.stop && !set.allFinished()) {
                state.progress((double) (now - start) / durationNs);
                java.util.concurrent.locks.LockSupport.parkNanos(Math.min(end - now, 50_000_000L));
            }
            Map<String, Map<String, Double>> f = set.stopAll();
            Map<String, Double> out = new java.util.LinkedHashMap<>();
            for (Map.Entry<String, Map<String, Double>> e : f.entrySet()) {
                String prefix = e.getKey().equals(load.name()) ? "" : e.getKey() + ".";
                for (Map.Entry<String, Double> v : e.getValue().entrySet()) {
                    out.put(prefix + v.getKey(), v.getValue());
                }
            }
            out.put("swaps", (double) state.count("swap"));
            return out;
        } finally {
            loads = null;
            set.stopAll();
            current = null;
            running.set(false);
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addProbe(Probe probe, Map<String, Object> properties) {
        Object name = properties.get(Probe.NAME);
        if (name != null) {
            probes.put(name.toString(), probe);
        }
    }

    void removeProbe(Probe probe, Map<String, Object> properties) {
        Object name = properties.get(Probe.NAME);
        if (name != null) {
            probes.remove(name.toString(), probe);
        }
    }

    @Override
    public Set<String> probes() {
        return Collections.unmodifiableSet(new TreeSet<>(probes.keySet()));
    }

    @Override
    public void check(RunRequest request) throws RtboxException {
        probe(request.probe()).validate(request.parameters());
        checkLoads(request.loads());
    }

    /**
     * Each load names an installed workload and parameters it takes: checked before the probe
     * warms up, so that {@code pipe:mode=zzz} is refused up front, naming the parameter, not an
     * ERROR at the end of the run.
     */
    private void checkLoads(List<LoadSpec> loads) throws RtboxException {
        for (LoadSpec l : loads) {
            Workload w = workloads.get(l.name());
            if (w == null) {
                throw new RtboxException("load", "unknown workload '" + l.name() + "': available are "
                        + workloadNames());
            }
            w.validate(l.parameters());
        }
    }

    private Probe probe(String name) throws RtboxException {
        Probe probe = probes.get(name);
        if (probe == null) {
            throw new RtboxException("probe", "unknown probe '" + name + "': available are "
                    + (probes.isEmpty() ? "none" : String.join(", ", probes())));
        }
        return probe;
    }

    @Override
    public void stop() {
        RunState s = current;
        if (s != null) {
            s.stop = true;
        }
    }

    @Override
    public RunReport run(RunRequest request, ProgressListener progress) throws RtboxException {
        Probe probe = probe(request.probe());
        probe.validate(request.parameters());
        checkLoads(request.loads());
        if (!running.compareAndSet(false, true)) {
            throw new RtboxException("run", "another run is in progress: one measurement at a time");
        }
        RunState state = new RunState(progress);
        current = state;
        TraceSession trace = null;
        try {
            // Start with an empty young generation. The garbage of start-up (bundles installed
            // on a fresh storage, the command line built) would otherwise fill it during the run,
            // and its collection lands in the measurement as a JVM pause: TimerRunIT saw a 12 ms
            // young GC in its 2 s run once rtbox.broker's 3 MB made the first start allocate more.
            System.gc();
            long startedMs = System.currentTimeMillis();
            List<String> traceNotes = new ArrayList<>();
            trace = startTrace(request, traceNotes);
            SystemInfo system = SystemInfoCollector.collect();
            HiccupMonitor monitor = new HiccupMonitor(request.parameters().policy, request.parameters().priority,
                    request.parameters().cpus);
            long monitorStart = System.nanoTime();
            monitor.start(monitorStart);
            RtThrottling.Settings throttling = RtThrottling.Settings.read();
            ProbeResult result;
            LoadSet set = new LoadSet(request.loads(), state);
            Map<String, Map<String, Double>> loadFigures;
            try {
                // Loads start before the probe's warm-up and stop after its last cycle.
                loads = set;
                set.start(workloads, this::workloadNames);
                try {
                    result = probe.run(request.parameters(), state);
                } finally {
                    loads = null;
                    loadFigures = set.stopAll();
                }
            } finally {
                monitor.stop();
                if (trace != null) {
                    trace.stop();
                }
            }
            long end = System.nanoTime();
            long start = result.startNanos();
            List<JvmStall> jvm = new ArrayList<>(SafepointLog.read(SafepointLog.configured(), start, start, end + 1_000_000_000L));
            List<String> notes = new ArrayList<>(result.notes());
            if (SafepointLog.configured() == null) {
                notes.add("no safepoint log (run through the rtbox launcher for one): JVM pauses are known from GC "
                        + "notifications and the hiccup monitor only");
            }
            // A GC notification says when to the millisecond only; the safepoint log has the same
            // pause to the nanosecond. Only without that log are GC notifications the evidence.
            if (SafepointLog.configured() == null || !java.nio.file.Files.isReadable(SafepointLog.configured())) {
                for (JvmStall gc : monitor.gcs()) {
                    jvm.add(new JvmStall(gc.offsetNs() + monitorStart - start, gc.durationNs(), gc.kind(), gc.detail()));
                }
            }
            List<JvmStall> hiccups = new ArrayList<>();
            if (monitor.offProbeCpus()) {
                for (JvmStall h : monitor.hiccups()) {
                    hiccups.add(new JvmStall(h.offsetNs() + monitorStart - start, h.durationNs(), h.kind(), h.detail()));
                }
            } else {
                notes.add("the hiccup monitor's thread did not run: the probe has every CPU, and its 1 ms wake-ups "
                        + "would have been on the probe's CPUs; JVM pauses come from the safepoint log and GC notifications");
            }
            notes.addAll(monitor.notes());
            notes.addAll(traceNotes);
            if (trace != null) {
                notes.addAll(trace.notes());
            }
            List<JvmStall> busy = new ArrayList<>();
            for (JvmStall w : set.busyWindows()) {
                busy.add(new JvmStall(w.offsetNs() - start, w.durationNs(), w.kind(), w.detail()));
            }
            List<ThreadResult> threads = new ArrayList<>();
            for (ThreadResult t : result.threads()) {
                List<Spike> labelled = Attribution.label(t, jvm, hiccups, throttling, result.durationNs(), busy,
                        trace, start);
                threads.add(t.withSpikes(labelled));
            }
            rtbox.api.result.Pwcet pwcet = request.wantsPwcet() ? pwcet(request, threads, notes) : null;
            threads.replaceAll(t -> t.withBlockMaxima(null)); // in the estimate, not in every report
            Double periodUs = result.figures().get("period_us");
            List<RunEvent> events = XrunAttribution.label(state.events(start), jvm, hiccups,
                    periodUs != null ? Math.round(periodUs * 1000) : request.parameters().intervalUs * 1000);
            ProbeResult attributed = new ProbeResult(result.probe(), result.parameters(), result.clock(),
                    result.startNanos(), result.durationNs(), result.complete(), threads,
                    XrunAttribution.figures(result.figures(), events), notes, traced(result.breakTrace(), trace, start));
            List<JvmStall> stalls = new ArrayList<>(jvm);
            stalls.addAll(hiccups);
            Verdict verdict = Judge.judge(attributed, request.thresholds(), jvm, expectedSamples(request), pwcet);
            return new RunReport(RunReport.SCHEMA, UUID.randomUUID().toString(), startedMs, System.currentTimeMillis(),
                    request.command(), attributed, monitor.histogram(), stalls, loadFigures, events, system,
                    verdict, pwcet);
        } finally {
            if (trace != null) {
                trace.close();
            }
            current = null;
            running.set(false);
        }
    }

    /**
     * Samples each thread should take: the loops, or the duration over the interval; -1 for
     * a probe whose pace is not the interval (only the timer probe wakes every interval_us).
     */
    static long expectedSamples(RunRequest request) {
        rtbox.api.RunParameters p = request.parameters();
        if (!"timer".equals(request.probe()) || p.intervalUs <= 0) {
            return -1;
        }
        return p.loops > 0 ? p.loops : p.durationNs / (p.intervalUs * 1000L);
    }

    /**
     * The pWCET estimate from the threads' block maxima (their spikes already attributed), per
     * hour at the run's interval (the timer probe's; none for a probe whose pace is its own).
     */
    private static rtbox.api.result.Pwcet pwcet(RunRequest request, List<ThreadResult> threads, List<String> notes) {
        long intervalNs = "timer".equals(request.probe()) ? request.parameters().intervalUs * 1000L : 0;
        double[] perHour = request.thresholds().pwcetUs() >= 0 ? new double[] {request.thresholds().pwcetPerHour()}
                : new double[0];
        rtbox.api.result.Pwcet p = rtbox.pwcet.PwcetEstimator.estimate(threads, intervalNs, perHour);
        if (p == null) {
            notes.add("no pWCET estimate: the " + request.probe() + " probe keeps no block maxima");
        }
        return p;
    }

    /** Trace kept before a break's deadline: what ran up to it often set it up (a wake-up, a lock taken). */
    static final long BREAK_TRACE_BEFORE_NS = 1_000_000;

    /**
     * The -b break with what the kernel's trace saw: the culprits between its deadline and its
     * wake-up, and the trace from a millisecond before the deadline to the wake-up.
     */
    private static rtbox.api.result.BreakTrace traced(rtbox.api.result.BreakTrace b, TraceSession trace,
            long startNanos) {
        if (b == null || trace == null) {
            return b;
        }
        long wake = startNanos + b.offsetNs();
        long deadline = wake - b.latencyNs();
        return b.withTrace(trace.culprits(b.cpu(), deadline, wake, b.tid()),
                trace.excerpt(b.cpu(), deadline - BREAK_TRACE_BEFORE_NS, wake, deadline, b.tid()));
    }

    /** The kernel's trace on the probe's CPUs, or null (and why, once, in the run's notes). */
    private TraceSession startTrace(RunRequest request, List<String> notes) {
        KernelTrace kt = kernelTrace;
        if (kt == null) {
            notes.add("no kernel trace (rtbox.trace is not installed): spikes are labelled without a culprit");
            return null;
        }
        try {
            return kt.start(request.parameters().cpus, request.parameters().policy, request.parameters().priority);
        } catch (RtboxException e) {
            notes.add("no kernel trace: " + e.getMessage());
            return null;
        }
    }

    /** The RunContext a probe sees: stop flag, progress, events. */
    private static final class RunState implements RunContext {
        private final ProgressListener listener;
        private final List<long[]> eventTimes = Collections.synchronizedList(new ArrayList<>());
        private final List<String[]> eventTexts = Collections.synchronizedList(new ArrayList<>());
        volatile boolean stop;

        RunState(ProgressListener listener) {
            this.listener = listener;
        }

        @Override
        public boolean stopRequested() {
            return stop || listener != null && listener.stopRequested();
        }

        @Override
        public void progress(double fraction) {
            if (listener != null) {
                listener.progress(fraction);
            }
        }

        @Override
        public void measuring(rtbox.api.LiveThread thread) {
            if (listener != null) {
                listener.measuring(thread);
            }
        }

        @Override
        public synchronized void event(String kind, String detail) {
            event(System.nanoTime(), kind, detail);
        }

        @Override
        public synchronized void event(long nanoTime, String kind, String detail) {
            eventTimes.add(new long[] {nanoTime});
            eventTexts.add(new String[] {kind, detail});
        }

        synchronized long count(String kind) {
            return eventTexts.stream().filter(t -> t[0].equals(kind)).count();
        }

        synchronized List<RunEvent> events(long startNanos) {
            List<RunEvent> list = new ArrayList<>();
            for (int i = 0; i < eventTimes.size(); i++) {
                list.add(new RunEvent(eventTimes.get(i)[0] - startNanos, eventTexts.get(i)[0], eventTexts.get(i)[1]));
            }
            // A probe reports some events after the fact, at the time they happened.
            list.sort(java.util.Comparator.comparingLong(RunEvent::offsetNs));
            return list;
        }
    }
}
