package rtbox.probe.tsc.internal;

import java.util.concurrent.CountDownLatch;

import rtbox.api.RunParameters;
import rtbox.api.SchedPolicy;
import rtbox.api.result.ThreadResult;
import rtbox.core.toolkit.LatencyRecorder;
import rtbox.os.OsException;
import rtbox.os.Sched;
import rtbox.os.Tsc;

/**
 * One measuring thread, pinned to one CPU: busy-waits each length of the sweep on the
 * TSC (seed 000's delay loop) and records by how much CLOCK_MONOTONIC says the wait
 * overshot. The loop allocates nothing, logs nothing and takes no lock; its only
 * shared state is the volatile stop flag.
 */
final class TscThread extends Thread {
    private static final long SPIKE_FACTOR = 5;
    private static final long MIN_SPIKE_NS = 20_000;
    /** Warm-up waits are at most this long, so the JIT sees many iterations. */
    private static final long WARMUP_MAX_WAIT_US = 20;

    private final int index;
    private final int cpu;
    private final RunParameters parameters;
    private final Sweep sweep;
    private final Tsc tsc;
    private final LatencyRecorder recorder;
    private final CountDownLatch warm;
    private final CountDownLatch go;
    private volatile boolean stop;
    private volatile Exception failure;
    private volatile ThreadResult result;
    volatile long startNanos;
    private long waits;

    TscThread(int index, int cpu, RunParameters parameters, Sweep sweep, Tsc tsc, CountDownLatch warm,
            CountDownLatch go) {
        super("rtbox-tsc-" + cpu);
        setDaemon(true);
        this.index = index;
        this.cpu = cpu;
        this.parameters = parameters;
        this.sweep = sweep;
        this.tsc = tsc;
        this.warm = warm;
        this.go = go;
        this.recorder = new LatencyRecorder(index, parameters.histogramLimitUs, 0);
    }

    void requestStop() {
        stop = true;
    }

    Exception failure() {
        return failure;
    }

    ThreadResult result() {
        return result;
    }

    long waits() {
        return waits;
    }

    @Override
    public void run() {
        int tid = Sched.gettid();
        try {
            Sched.setAffinity(0, cpu);
            if (parameters.policy != SchedPolicy.OTHER || parameters.priority != 0) {
                Sched.setScheduler(0, parameters.policy, parameters.priority);
            }
        } catch (OsException e) {
            failure = e;
            warm.countDown();
            return;
        }
        // Warm-up: the very loop, with short waits.
        long warmupEnd = System.nanoTime() + parameters.warmupNs;
        long us = sweep.fromUs();
        long limit = Math.min(sweep.toUs(), Math.max(sweep.fromUs(), WARMUP_MAX_WAIT_US));
        while (System.nanoTime() < warmupEnd && !stop) {
            busyWait(us);
            us = us + sweep.stepUs() > limit ? sweep.fromUs() : us + sweep.stepUs();
        }
        long threshold = Math.max(MIN_SPIKE_NS, recorder.medianNs() * SPIKE_FACTOR);
        warm.countDown();
        try {
            go.await();
        } catch (InterruptedException e) {
            return;
        }
        long start = startNanos;
        if (start == 0 || stop) {
            return;
        }
        while (System.nanoTime() < start) {
            Thread.onSpinWait();
        }
        recorder.reset(start, threshold);
        long loops = parameters.loops > 0 ? parameters.loops
                : parameters.durationNs > 0 ? Long.MAX_VALUE : sweep.waits();
        long end = parameters.durationNs > 0 ? start + parameters.durationNs : Long.MAX_VALUE;
        us = sweep.fromUs();
        long n = 0;
        while (n < loops && !stop && System.nanoTime() < end) {
            busyWait(us);
            us = sweep.next(us);
            n++;
        }
        waits = n;
        String policy = parameters.policy.lowerName();
        int priority = parameters.priority;
        try {
            policy = Sched.getScheduler(0).lowerName();
            priority = Sched.getPriority(0);
        } catch (OsException e) {
            // The result still carries the requested policy.
        }
        result = new ThreadResult(index, cpu, tid, policy, priority, recorder.samples(), 0, recorder.histogram(),
                recorder.corrected(), recorder.spikes(), recorder.spikesDropped(), recorder.lastNs(),
                recorder.blockMaxima());
    }

    /** One wait of {@code us} microseconds on the TSC; records the overshoot CLOCK_MONOTONIC saw. */
    private void busyWait(long us) {
        long waitNs = us * 1000;
        long ticks = tsc.ticksFor(waitNs);
        long t0 = System.nanoTime();
        long target = tsc.read() + ticks;
        while (tsc.read() < target) {
            // spin
        }
        long t1 = System.nanoTime();
        recorder.record(t1 - t0 - waitNs, t1);
    }
}
