package rtbox.probe.timer.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.osgi.service.component.annotations.Component;

import rtbox.api.Probe;
import rtbox.api.RtboxException;
import rtbox.api.RunContext;
import rtbox.api.RunParameters;
import rtbox.api.result.BreakTrace;
import rtbox.api.result.ProbeResult;
import rtbox.api.result.ThreadResult;
import rtbox.core.toolkit.LatencyRecorder;
import rtbox.core.toolkit.ParameterChecks;
import rtbox.os.MemoryLock;
import rtbox.os.OsException;

/**
 * The periodic-timer wake-up probe: cyclictest's job. One measuring thread per
 * selected CPU sleeps to absolute deadlines on CLOCK_MONOTONIC and records how late
 * it woke.
 */
@Component(service = Probe.class, property = Probe.NAME + "=timer")
public class TimerProbe implements Probe {
    static final long MAX_INTERVAL_US = 10_000_000;

    @Override
    public void validate(RunParameters p) throws RtboxException {
        if (p.intervalUs < 1 || p.intervalUs > MAX_INTERVAL_US) {
            throw new RtboxException("interval", "interval " + p.intervalUs + " us is out of range: use 1 to "
                    + MAX_INTERVAL_US + " us");
        }
        ParameterChecks.common(p);
    }

    @Override
    public ProbeResult run(RunParameters p, RunContext context) throws RtboxException {
        validate(p);
        boolean locked = false;
        List<String> notes = new ArrayList<>();
        if (p.lockMemory) {
            MemoryLock.lockAll();
            locked = true;
            notes.add("memory locked with mlockall(MCL_CURRENT|MCL_FUTURE|MCL_ONFAULT)");
        }
        try {
            return measure(p, context, notes);
        } finally {
            if (locked) {
                try {
                    MemoryLock.unlockAll();
                } catch (OsException e) {
                    notes.add(e.getMessage());
                }
            }
        }
    }

    private ProbeResult measure(RunParameters p, RunContext context, List<String> notes) throws RtboxException {
        List<TimerThread> threads = new ArrayList<>();
        WarmupGate gate = new WarmupGate(p.cpus.length);
        Runnable stopAll = () -> threads.forEach(TimerThread::requestStop);
        for (int i = 0; i < p.cpus.length; i++) {
            threads.add(new TimerThread(i, p.cpus[i], p, gate, stopAll));
        }
        threads.forEach(t -> context.measuring(t.live()));
        threads.forEach(Thread::start);
        long startNanos;
        try {
            startNanos = gate.awaitWarm(threads, context::stopRequested);
        } catch (RtboxException e) {
            threads.forEach(TimerThread::requestStop);
            joinAll(threads);
            throw e;
        }
        long expectedNs = p.durationNs > 0 ? p.durationNs : p.loops * p.intervalUs * 1000;
        // A stop during the warm-up (the gate told the threads): they may all be done already.
        boolean stopped = context.stopRequested();
        if (stopped) {
            threads.forEach(TimerThread::requestStop);
        }
        while (threads.stream().anyMatch(Thread::isAlive)) {
            if (!stopped && context.stopRequested()) {
                threads.forEach(TimerThread::requestStop);
                stopped = true;
            }
            if (expectedNs > 0) {
                context.progress(Math.min(1.0, (System.nanoTime() - startNanos) / (double) expectedNs));
            }
            joinFor(threads, 200);
        }
        List<ThreadResult> results = new ArrayList<>();
        long missed = 0;
        for (TimerThread t : threads) {
            if (t.failure() != null) {
                throw t.failure();
            }
            ThreadResult r = t.result();
            results.add(r);
            missed += r.missedDeadlines();
        }
        if (stopped) {
            notes.add("stopped early on request");
        }
        BreakTrace brk = firstBreak(threads, p);
        if (brk != null) {
            notes.add(String.format(Locale.ROOT, "stopped at the first wake-up over %d us (-b): thread %d (tid %d, "
                    + "CPU %d) woke %d us late, %.3f s into the run", p.breakUs, brk.thread(), brk.tid(), brk.cpu(),
                    Math.round(brk.latencyNs() / 1000.0), brk.offsetNs() / 1e9));
        }
        notes.add("clock: CLOCK_MONOTONIC, clock_nanosleep(TIMER_ABSTIME); latency = wake-up time - deadline");
        notes.add("wake-up path: " + threads.get(0).wakePath());
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("missed_deadlines", (double) missed);
        figures.put("interval_us", (double) p.intervalUs);
        return new ProbeResult("timer", p.toString(), "CLOCK_MONOTONIC", startNanos,
                System.nanoTime() - startNanos, !stopped && brk == null, results, figures, notes, brk);
    }

    /** The earliest sample over the -b limit of all threads (several may break before they see the stop), or null. */
    private static BreakTrace firstBreak(List<TimerThread> threads, RunParameters p) {
        TimerThread first = null;
        for (TimerThread t : threads) {
            LatencyRecorder r = t.live();
            if (r.broken() && (first == null || r.breakOffsetNs() < first.live().breakOffsetNs())) {
                first = t;
            }
        }
        if (first == null) {
            return null;
        }
        LatencyRecorder r = first.live();
        return new BreakTrace(r.thread(), r.cpu(), r.tid(), r.breakOffsetNs(), r.breakLatencyNs(), p.breakUs * 1000,
                List.of(), List.of());
    }

    private static void joinFor(List<TimerThread> threads, long millis) {
        for (TimerThread t : threads) {
            try {
                t.join(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                threads.forEach(TimerThread::requestStop);
            }
            if (t.isAlive()) {
                return;
            }
        }
    }

    private static void joinAll(List<TimerThread> threads) {
        for (TimerThread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
