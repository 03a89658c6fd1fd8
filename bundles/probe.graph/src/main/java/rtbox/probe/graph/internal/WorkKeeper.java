package rtbox.probe.graph.internal;

import rtbox.os.OsException;
import rtbox.os.Procfs;

/**
 * Holds each client's work at a CPU time, not at a count of spins. A spin's cost on a
 * virtual CPU is not a constant: on the development VM it moved between 0.33 and 0.86 ns
 * within seconds, with the host's other work on the same core (measured in the thread's
 * own CPU time, so not preemption nor steal). A count of spins calibrated once therefore
 * made a 50 % load measure anywhere from 30 % to 71 %. So the clients' CPU time is read
 * (their schedstat, held open) every window, a spin's cost taken from it, and the spins
 * set to keep the work at its CPU time.
 *
 * <p>Why CPU time and not the graph's wall time: a client that is preempted (by a load, by
 * a demotion) runs no less CPU time for its work, so the work stays what was asked and
 * the graph gets late, as a real DSP graph would. Holding the wall time would take the
 * work away exactly when the machine under test is failing it.
 *
 * <p>The hops' CPU time per client and cycle (the read, the write, the wake-ups) is
 * measured apart, with no work ({@link #beginBaseline}/{@link #endBaseline}), and taken
 * off. Runs in the probe's own thread (not the measuring one), once the driver is
 * past its baseline: one thread at a time.
 */
final class WorkKeeper implements AutoCloseable {
    /**
     * A window counts at least this many cycles per client. A reading can fall while one
     * client is in its work (one at a time: the chain runs on one CPU), so it is off by at
     * most one client's work of the window's clients x cycles: 1/42 for 14 clients.
     */
    static final long MIN_CYCLES = 3;
    /** The new spin cost's weight against the last: one window's reading is not trusted whole. */
    static final double WEIGHT = 0.5;
    /** A window whose spin cost was this many times the one its work was set for ran on a slow CPU. */
    static final double SLOW = 1.25;
    static final int KEPT_WINDOWS = 10_000;

    private final Clients clients;
    private final Procfs.Schedstat[] stats;
    private long lastCpu, lastCycles;
    private long hopNs = -1;
    private volatile long workNs = -1;
    private volatile long spins;
    private double nsPerSpin;
    private volatile double minNsPerSpin = Double.MAX_VALUE, maxNsPerSpin;
    private volatile int adjustments;
    private long lastTime;
    // Each window: its start and end (System.nanoTime), the spin cost measured, and the one its work assumed.
    private final long[] windowFrom = new long[KEPT_WINDOWS], windowTo = new long[KEPT_WINDOWS];
    private final double[] windowCost = new double[KEPT_WINDOWS], windowAssumed = new double[KEPT_WINDOWS];
    private volatile int windows;

    WorkKeeper(Clients clients) throws OsException {
        this.clients = clients;
        int[][] tasks = clients.tasks();
        stats = new Procfs.Schedstat[tasks.length];
        try {
            for (int i = 0; i < tasks.length; i++) {
                stats[i] = Procfs.Schedstat.open(tasks[i][0], tasks[i][1]);
            }
        } catch (OsException e) {
            close();
            throw e;
        }
    }

    /** Starts the no-work baseline: the clients run no work from now until {@link #endBaseline}. */
    void beginBaseline() {
        lastCpu = cpu();
        lastCycles = clients.cycles();
    }

    /** Ends the baseline: the hops' CPU time per client and cycle. */
    void endBaseline() {
        long cpu = cpu(), cycles = clients.cycles();
        hopNs = cycles > lastCycles ? (cpu - lastCpu) / (cycles - lastCycles) : 0;
        lastCpu = cpu;
        lastCycles = cycles;
    }

    /**
     * From now on, holds each client's work at {@code workNsPerClient} of CPU time,
     * starting at {@code spinsNow} (the estimate from the spin's cost alone), which
     * costs {@code nsPerSpinNow}.
     */
    void hold(long workNsPerClient, long spinsNow, double nsPerSpinNow) {
        nsPerSpin = nsPerSpinNow;
        spins = spinsNow;
        lastCpu = cpu();
        lastCycles = clients.cycles();
        lastTime = System.nanoTime();
        workNs = workNsPerClient;
    }

    /** Whether {@link #hold} was called: {@link #adjust} may run. */
    boolean holding() {
        return workNs >= 0;
    }

    /**
     * Reads the window since the last call and sets the spins for the next, when it
     * counted enough cycles. Returns whether the spins were set.
     */
    boolean adjust() {
        if (workNs < 0) {
            return false;
        }
        long cycles = clients.cycles();
        int n = stats.length;
        if (cycles - lastCycles < MIN_CYCLES * n) {
            return false;
        }
        long cpu = cpu();
        long now = System.nanoTime(), from = lastTime;
        long spent = cpu - lastCpu, done = cycles - lastCycles;
        boolean readable = cpu >= 0 && lastCpu >= 0;
        lastCpu = cpu;
        lastCycles = cycles;
        lastTime = now;
        long s = spins;
        if (s <= 0 || !readable) {
            return false;
        }
        double measured = Calibration.nsPerSpinFromCpu(spent, done, Math.max(0, hopNs), s);
        if (measured <= 0) {
            return false;
        }
        int w = windows;
        if (w < KEPT_WINDOWS) {
            windowFrom[w] = from;
            windowTo[w] = now;
            windowCost[w] = measured;
            windowAssumed[w] = nsPerSpin;
            windows = w + 1;
        }
        nsPerSpin = nsPerSpin <= 0 ? measured : WEIGHT * measured + (1 - WEIGHT) * nsPerSpin;
        minNsPerSpin = Math.min(minNsPerSpin, measured);
        maxNsPerSpin = Math.max(maxNsPerSpin, measured);
        spins = Calibration.spinsForWork(workNs, nsPerSpin);
        clients.work(spins);
        adjustments++;
        return true;
    }

    /** The clients' CPU time so far, summed; -1 when one cannot be read. */
    private long cpu() {
        long sum = 0;
        for (Procfs.Schedstat s : stats) {
            long v = s == null ? -1 : s.runtimeNs();
            if (v < 0) {
                return -1;
            }
            sum += v;
        }
        return sum;
    }

    /**
     * Why a cycle in [from, to) (System.nanoTime) may have overrun without anything holding
     * its CPU: it fell in a window in which a spin cost at least {@link #SLOW} times what the
     * work was set for (the host ran this vCPU slower; the keeper catches up a window
     * later). Null when no such window covers it.
     */
    String slowCpu(long from, long to) {
        int n = windows;
        for (int i = 0; i < n; i++) {
            if (windowFrom[i] < to && windowTo[i] > from && windowCost[i] >= SLOW * windowAssumed[i]) {
                return String.format(java.util.Locale.ROOT, "the CPU ran slow: a spin cost %.3f ns in that %.0f ms, "
                        + "the work was set for %.3f", windowCost[i], (windowTo[i] - windowFrom[i]) / 1e6,
                        windowAssumed[i]);
            }
        }
        return null;
    }

    long spins() {
        return spins;
    }

    long hopNs() {
        return hopNs;
    }

    int adjustments() {
        return adjustments;
    }

    double nsPerSpin() {
        return nsPerSpin;
    }

    /** The lowest and highest spin cost a window measured ({@code NaN} before the first). */
    double minNsPerSpin() {
        return adjustments == 0 ? Double.NaN : minNsPerSpin;
    }

    double maxNsPerSpin() {
        return adjustments == 0 ? Double.NaN : maxNsPerSpin;
    }

    @Override
    public void close() {
        for (Procfs.Schedstat s : stats) {
            if (s != null) {
                s.close();
            }
        }
    }
}
