package rtbox.probe.graph.internal;

import rtbox.api.RunParameters;
import rtbox.api.SchedPolicy;
import rtbox.core.toolkit.LatencyRecorder;
import rtbox.os.BytePipe;
import rtbox.os.OsException;
import rtbox.os.PipeLoop;
import rtbox.os.RtcDevice;
import rtbox.os.Sched;
import rtbox.os.WakeStamp;

/**
 * The graph's driver, the measuring thread (jackd's driver thread): woken every period
 * by an absolute CLOCK_MONOTONIC timer (or by the RTC's interrupt), it records how late
 * it woke, starts the cycle (a byte to client 1) and blocks until the last client's
 * byte comes back. A cycle not done when the next period starts is an xrun; periods
 * that passed entirely while it ran are lost and filled into the corrected histogram.
 *
 * <p>Before measuring it calibrates, on its CPU at its policy: a spin's cost (a client
 * loop timed with and without work), the hops' cost (the graph run with no work, at a
 * fast pace that also warms up this loop for the JIT), then warm-up rounds at the real
 * period while the {@link WorkKeeper} holds the work at its CPU time (as it does during
 * the measurement). The loop allocates nothing, logs nothing and
 * takes no lock: xruns go into preallocated arrays, reported after the run.
 *
 * <p>The wake-up and its time stamp are one machine-code sequence ({@link WakeStamp}: the
 * sleep or the RTC's read, then glibc's clock_gettime), as in the timer probe.
 */
final class Driver extends Thread {
    static final int KEPT_XRUNS = 10_000;
    /** Calibration: trips per timing and spins in the timed work. */
    static final int CALIBRATION_TRIPS = 5;
    static final long CALIBRATION_SPINS = 2_000_000;
    static final int CALIBRATION_ROUNDS = 7;
    /** Warm-up rounds at the real period (the keeper adjusts the work meanwhile); their medians go to the notes. */
    static final int CORRECTIONS = 3;
    private static final long SPIKE_FACTOR = 5, MIN_SPIKE_NS = 20_000;

    private final GraphConfig g;
    private final RunParameters p;
    private final Clients clients;
    private final WorkKeeper keeper;
    private final int cpu;
    private final LatencyRecorder recorder;
    private final WakeStamp clock = WakeStamp.sleeper();
    private final BytePipe kick, done;
    private final long[] warm = new long[4096];
    final long[] xrunAt = new long[KEPT_XRUNS], xrunLate = new long[KEPT_XRUNS];
    private RtcDevice rtc;
    private volatile boolean stop;
    private volatile Exception failure;
    private volatile boolean measuring;
    volatile int tid;
    // The policy the driver ran at, read at its end (a tuner may have changed it meanwhile).
    volatile String policy;
    volatile int priority;

    // Loop state, in fields so that one warmed-up method serves every phase.
    private long periodNs, next, end, cycles, xruns, lost, graphSum, graphMax, firstWake, lastWake, stalls;
    private long stallNs, stallEvery;
    private boolean broken;

    // Calibration, read after join.
    double nsPerSpin;
    long baseNs, spins, estimate, startNanos, measuredWarmNs;
    /** Each warm-up round's median graph time (for the notes). */
    final long[] roundMedianNs = new long[CORRECTIONS];

    Driver(GraphConfig g, RunParameters p, Clients clients, WorkKeeper keeper) {
        super("rtbox-graph-driver");
        setDaemon(true);
        this.g = g;
        this.p = p;
        this.clients = clients;
        this.keeper = keeper;
        this.cpu = p.cpus[0];
        this.kick = clients.first();
        this.done = clients.last();
        this.policy = p.policy.lowerName();
        this.priority = p.priority;
        this.recorder = new LatencyRecorder(0, cpu, p.histogramLimitUs, g.periodNs(), 0, 0);
    }

    /** Which wake-up path the driver measures with (the machine code, or JNA and why). */
    String wakePath() {
        return rtc != null ? rtc.readPath() : clock.path();
    }

    LatencyRecorder live() {
        return recorder;
    }

    void requestStop() {
        stop = true;
    }

    Exception failure() {
        return failure;
    }

    boolean measuring() {
        return measuring;
    }

    @Override
    public void run() {
        tid = Sched.gettid();
        recorder.runningAs(tid);
        try {
            Sched.setAffinity(0, cpu);
            Sched.setTimerSlackNanos(1);
            if (p.policy != SchedPolicy.OTHER || p.priority != 0) {
                Sched.setScheduler(0, p.policy, p.priority);
            }
            nsPerSpin = spinCost();
            // Phase 1: no work, at a fast pace: the hops' cost (wall time for the load, CPU
            // time for the keeper), and the JIT warms this loop.
            clients.work(0);
            long fastNs = Math.min(g.periodNs(), 1_000_000);
            keeper.beginBaseline();
            int n = phase(fastNs, p.warmupNs / 2, 0, 0);
            keeper.endBaseline();
            baseNs = Calibration.median(warm, n);
            // Phase 2: the work, at the real period, first estimated from a spin's cost alone;
            // from here the keeper (in the probe's thread) holds it at its CPU time.
            long target = g.loadPct() >= 0 ? Calibration.targetNs(g.loadPct(), g.periodNs()) : -1;
            long workNs = target >= 0 ? Calibration.workNsPerClient(target, baseNs, g.clients()) : g.workNsPerClient();
            spins = Calibration.spinsForWork(workNs, nsPerSpin);
            estimate = spins;
            clients.work(spins);
            keeper.hold(workNs, spins, nsPerSpin);
            long roundNs = Math.max(p.warmupNs / (2 * CORRECTIONS), 20 * g.periodNs());
            for (int round = 0; round < CORRECTIONS && !stop; round++) {
                n = phase(g.periodNs(), roundNs, 0, 0);
                measuredWarmNs = Calibration.median(warm, n);
                roundMedianNs[round] = measuredWarmNs;
            }
            if (g.rtc()) {
                rtc = RtcDevice.open(g.rtcDevice());
                rtc.setRate(g.rtcHz());
                rtc.periodicOn();
            }
            long spikeThreshold = Math.max(MIN_SPIKE_NS, recorder.medianNs() * SPIKE_FACTOR);
            startNanos = System.nanoTime() + 2_000_000;
            recorder.reset(startNanos, spikeThreshold);
            resetCounts();
            measuring = true;
            measure(startNanos);
            policy = Sched.getScheduler(0).lowerName();
            priority = Sched.getPriority(0);
        } catch (OsException e) {
            failure = e;
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            clock.close();
            if (rtc != null) {
                try {
                    rtc.close();
                } catch (OsException e) {
                    // The RTC's periodic interrupt is off or the device is closed: nothing to restore.
                }
            }
        }
    }

    /**
     * A spin's cost: a client loop (the same machine code) timed with and without work, the
     * median of several rounds (the best round is not what the graph will see).
     */
    private double spinCost() throws OsException {
        try (BytePipe in = BytePipe.open(); BytePipe out = BytePipe.open()) {
            long[] without = new long[CALIBRATION_ROUNDS], with = new long[CALIBRATION_ROUNDS];
            for (int round = 0; round < CALIBRATION_ROUNDS; round++) {
                without[round] = trips(in, out, 0);
                with[round] = trips(in, out, CALIBRATION_SPINS);
            }
            return Calibration.nsPerSpin(Calibration.median(with, CALIBRATION_ROUNDS),
                    Calibration.median(without, CALIBRATION_ROUNDS), CALIBRATION_SPINS, CALIBRATION_TRIPS);
        }
    }

    private static long trips(BytePipe in, BytePipe out, long spins) throws OsException {
        try (PipeLoop loop = PipeLoop.readThenWrite(in.readFd(), out.writeFd(), CALIBRATION_TRIPS)) {
            loop.work(spins);
            for (int i = 0; i < CALIBRATION_TRIPS; i++) {
                in.writeByte();
            }
            long t0 = System.nanoTime();
            int r = loop.run();
            long t = System.nanoTime() - t0;
            for (int i = 0; i < CALIBRATION_TRIPS; i++) {
                out.readByte();
            }
            if (r != PipeLoop.FINISHED) {
                throw new OsException("calibration", -r, "graph: the calibration loop failed: " + rtbox.os.Errno.name(-r));
            }
            return t;
        }
    }

    /** An unrecorded phase (calibration, warm-up) at {@code period} for {@code lengthNs}; graph times go to warm[]. */
    private int phase(long period, long lengthNs, long noStall, long noEvery) {
        periodNs = period;
        stallNs = noStall;
        stallEvery = noEvery;
        resetCounts();
        long start = System.nanoTime() + period;
        next = start;
        end = start + lengthNs;
        int n = 0;
        while (next <= end && !stop && !broken) {
            long g0 = graphSum;
            cycle();
            if (n < warm.length) {
                warm[n++] = graphSum - g0;
            }
        }
        return n;
    }

    private void measure(long start) {
        periodNs = g.periodNs();
        stallNs = g.stallNs();
        stallEvery = g.stallEvery();
        next = start;
        end = p.durationNs > 0 ? start + p.durationNs : Long.MAX_VALUE;
        long loops = p.loops > 0 ? p.loops : Long.MAX_VALUE;
        while (cycles < loops && next <= end && !stop && !broken) {
            cycle();
        }
        measuring = false;
    }

    private void resetCounts() {
        cycles = 0;
        xruns = 0;
        lost = 0;
        graphSum = 0;
        graphMax = 0;
        firstWake = 0;
        lastWake = 0;
        stalls = 0;
    }

    /**
     * One period: wait for it, record the wake-up, run the graph to its end, judge the
     * cycle. Only the measuring phase records (the recorder is reset at its start).
     */
    private void cycle() {
        long wake;
        if (rtc != null) {
            long word;
            try {
                word = rtc.readWord();
            } catch (OsException e) {
                failure = e;
                broken = true;
                return;
            }
            wake = rtc.wakeNanos();
            // The interrupt's own time is not known: the delay is the lateness over the
            // previous wake-up plus the RTC's period(s), as the rtc probe measures intervals.
            long missedIrqs = Math.max(0, RtcDevice.interruptCount(word, RtcDevice.WORD_BYTES) - 1);
            next = cycles == 0 ? wake : lastWake + (1 + missedIrqs) * periodNs;
            if (missedIrqs > 0) {
                lost += missedIrqs;
                recorder.missed(missedIrqs);
            }
        } else {
            clock.sleepUntil(next);
            wake = clock.stampNanos();
        }
        if (cycles == 0) {
            firstWake = wake;
        }
        lastWake = wake;
        if (stallEvery > 0 && stallNs > 0 && cycles % stallEvery == stallEvery - 1) {
            // An injected stall (a test's): the driver holds its CPU before starting the cycle.
            long until = wake + stallNs;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            stalls++;
        }
        boolean ran = kick.writeByte() == 1 && done.readByte() == 1;
        long finished = System.nanoTime();
        // The wake-up is recorded after the graph, not before its kick: the driver's own
        // bookkeeping is not the graph's time (JACK's DSP load), nor on its critical path.
        recorder.record(wake - next, wake);
        if (!ran) {
            broken = true;
            return;
        }
        long graph = finished - wake;
        graphSum += graph;
        if (graph > graphMax) {
            graphMax = graph;
        }
        cycles++;
        long periodEnd = next + periodNs;
        if (finished > periodEnd) {
            if (xruns < KEPT_XRUNS) {
                xrunAt[(int) xruns] = periodEnd;
                xrunLate[(int) xruns] = finished - periodEnd;
            }
            xruns++;
        }
        next = periodEnd;
        if (rtc == null && finished >= next) {
            // Periods that passed while the cycle ran: none of them starts a cycle (as a
            // sound card's driver restarts after an xrun); the corrected histogram fills them in.
            long skipped = (finished - next) / periodNs + 1;
            lost += skipped;
            recorder.missed(skipped);
            next += skipped * periodNs;
        }
    }

    /** The graph was cut (a client gone, a pipe failed) rather than the run ending. */
    boolean broken() {
        return broken;
    }

    long cycles() {
        return cycles;
    }

    long xruns() {
        return xruns;
    }

    long lostPeriods() {
        return lost;
    }

    long stalls() {
        return stalls;
    }

    long graphMaxNs() {
        return graphMax;
    }

    double graphMeanNs() {
        return cycles == 0 ? 0 : (double) graphSum / cycles;
    }

    /** Mean time between wake-ups over the run. */
    double achievedPeriodNs() {
        return cycles < 2 ? 0 : (double) (lastWake - firstWake) / (cycles - 1);
    }

    long periodNs() {
        return periodNs;
    }
}
