package rtbox.probe.timer.internal;

import rtbox.api.RtboxException;
import rtbox.api.RunParameters;
import rtbox.api.SchedPolicy;
import rtbox.api.result.ThreadResult;
import rtbox.core.toolkit.LatencyRecorder;
import rtbox.os.OsException;
import rtbox.os.Sched;
import rtbox.os.WakeStamp;

/**
 * One measuring thread, pinned to one CPU. It sets its own affinity, timer slack and
 * scheduling, warms up by running the very loop it will measure with (so the JIT has
 * compiled it), then measures. The loop allocates nothing, logs nothing and takes no
 * lock: its only shared state is the volatile stop flag.
 *
 * <p>The sleep and the wake-up's time stamp are one machine-code sequence ({@link WakeStamp}:
 * clock_nanosleep, then glibc's clock_gettime, as cyclictest does them), so nothing of the
 * JVM or of JNA runs between the kernel's return and the stamp; where that code cannot run,
 * JNA and System.nanoTime(), and the result's notes say which path ran.
 */
final class TimerThread extends Thread {
    /** Warm-up runs the loop at most this often, to give the JIT enough iterations. */
    private static final long WARMUP_INTERVAL_NS = 100_000;
    /** Spikes are kept from this multiple of the warm-up median (reports filter further). */
    private static final long SPIKE_FACTOR = 5;
    private static final long MIN_SPIKE_NS = 20_000;
    /** Samples kept for -v: cyclictest keeps 16384 too; at -i 100 that is 1.6 s for the printer to catch up. */
    static final int KEPT_SAMPLES = 16384;

    private final int index;
    private final int cpu;
    private final RunParameters parameters;
    private final WarmupGate gate;
    private final WakeStamp wake = WakeStamp.sleeper();
    private final LatencyRecorder recorder;
    private volatile boolean stop;
    private volatile RtboxException failure;
    private volatile ThreadResult result;
    /** Run once by the thread whose sample broke the -b limit: stops the others. */
    private final Runnable onBreak;

    // Loop state, in fields so that one warmed-up method does both phases.
    private long intervalNs;
    private long next;
    private long cycles;

    TimerThread(int index, int cpu, RunParameters parameters, WarmupGate gate, Runnable onBreak) {
        super("rtbox-timer-" + cpu);
        setDaemon(true);
        this.index = index;
        this.cpu = cpu;
        this.parameters = parameters;
        this.gate = gate;
        this.onBreak = onBreak;
        this.recorder = new LatencyRecorder(index, cpu, parameters.histogramLimitUs, parameters.intervalUs * 1000,
                parameters.printSamples ? KEPT_SAMPLES : 0, parameters.breakUs * 1000);
    }

    /** The thread's figures while it measures. */
    LatencyRecorder live() {
        return recorder;
    }

    /** Which wake-up path the thread measures with (the machine code, or JNA and why). */
    String wakePath() {
        return wake.path();
    }

    void requestStop() {
        stop = true;
    }

    RtboxException failure() {
        return failure;
    }

    ThreadResult result() {
        return result;
    }

    @Override
    public void run() {
        try {
            measure();
        } finally {
            wake.close();
        }
    }

    private void measure() {
        int tid = Sched.gettid();
        recorder.runningAs(tid);
        try {
            Sched.setAffinity(0, cpu);
            // A SCHED_OTHER thread gets 50 us of timer slack by default, added to every wake-up.
            Sched.setTimerSlackNanos(1);
            if (parameters.policy != SchedPolicy.OTHER || parameters.priority != 0) {
                Sched.setScheduler(0, parameters.policy, parameters.priority);
            }
        } catch (OsException e) {
            failure = e;
            releaseGate();
            return;
        }
        long warmupEnd = System.nanoTime() + parameters.warmupNs;
        intervalNs = Math.min(parameters.intervalUs * 1000, WARMUP_INTERVAL_NS);
        next = System.nanoTime() + intervalNs;
        while (System.nanoTime() < warmupEnd && !stop) {
            cycle();
        }
        long spikeThreshold = Math.max(MIN_SPIKE_NS, recorder.medianNs() * SPIKE_FACTOR);
        long start = releaseGate();
        if (start == 0) {
            return;
        }
        // Stopped during the warm-up: no cycle below, and a result of no samples (without one,
        // the probe's summing of the threads' results ended in a NullPointerException).
        recorder.reset(start, spikeThreshold);
        intervalNs = parameters.intervalUs * 1000;
        next = start + intervalNs;
        cycles = 0;
        long loops = parameters.loops > 0 ? parameters.loops : Long.MAX_VALUE;
        long end = parameters.durationNs > 0 ? start + parameters.durationNs : Long.MAX_VALUE;
        while (cycles < loops && next <= end && !stop && !recorder.broken()) {
            cycle();
        }
        if (recorder.broken()) {
            onBreak.run();
        }
        int priority = 0;
        String policy = parameters.policy.lowerName();
        try {
            policy = Sched.getScheduler(0).lowerName();
            priority = Sched.getPriority(0);
        } catch (OsException e) {
            // The result still carries the requested policy.
        }
        result = new ThreadResult(index, cpu, tid, policy, priority, recorder.samples(), recorder.missedDeadlines(),
                recorder.histogram(), recorder.corrected(), recorder.spikes(), recorder.spikesDropped(), recorder.lastNs(),
                recorder.blockMaxima());
    }

    /** One period: sleep to the deadline, read the clock, record, step to the next deadline. */
    private void cycle() {
        wake.sleepUntil(next);
        long now = wake.stampNanos();
        recorder.record(now - next, now);
        cycles++;
        next += intervalNs;
        if (now >= next) {
            // Woke so late that whole periods passed: count them rather than hide them,
            // and resume at the next deadline still ahead (as cyclictest does).
            long skipped = (now - next) / intervalNs + 1;
            recorder.missed(skipped);
            next += skipped * intervalNs;
        }
    }

    private long releaseGate() {
        try {
            return gate.warmAndWait();
        } catch (InterruptedException e) {
            return 0;
        }
    }
}
