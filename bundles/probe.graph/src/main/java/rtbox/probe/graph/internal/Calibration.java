package rtbox.probe.graph.internal;

import java.util.Arrays;

/**
 * The maths that turns an asked DSP load into spins of each client's work loop. A
 * cycle's graph time is the hops' own cost (the driver's write, each client's read and
 * write, the wake-ups: measured with no work, {@code baseNs}) plus the clients' work
 * ({@code clients x spins x nsPerSpin}). The load asked is graph time over period, as
 * JACK computes its DSP load, so the hops' cost is taken off before the work is shared
 * out. A spin's cost is first measured alone, then held from the clients' CPU time
 * while the graph runs ({@link WorkKeeper}): on a virtual CPU it is not a constant.
 */
final class Calibration {
    private Calibration() {
    }

    /** The graph time a load asks for: {@code loadPct} % of the period. */
    static long targetNs(double loadPct, long periodNs) {
        return Math.round(loadPct / 100.0 * periodNs);
    }

    /**
     * A spin's cost from two timings of the same trips, with and without work: the
     * difference is the work alone ({@code trips x spins} spins), whatever the calls cost.
     */
    static double nsPerSpin(long withWorkNs, long withoutWorkNs, long spins, int trips) {
        if (spins <= 0 || trips <= 0) {
            throw new IllegalArgumentException("spins and trips must be positive");
        }
        return Math.max(1e-3, (withWorkNs - withoutWorkNs) / ((double) spins * trips));
    }

    /** Work per client, in ns, for a graph time of {@code targetNs}, the hops costing {@code baseNs}; never negative. */
    static long workNsPerClient(long targetNs, long baseNs, int clients) {
        return Math.max(0, (targetNs - baseNs) / clients);
    }

    /**
     * A spin's cost in CPU time, from a window in which the clients ran {@code clientCycles}
     * iterations (summed over the clients) of {@code spins} spins each and spent
     * {@code cpuNs} of CPU time, of which {@code hopNs} an iteration is the hops' own
     * (measured with no work); 0 when the window says nothing.
     */
    static double nsPerSpinFromCpu(long cpuNs, long clientCycles, long hopNs, long spins) {
        if (clientCycles <= 0 || spins <= 0) {
            return 0;
        }
        double work = cpuNs - (double) clientCycles * hopNs;
        return work <= 0 ? 0 : work / ((double) clientCycles * spins);
    }

    /** Spins for work given as time per client. */
    static long spinsForWork(long workNsPerClient, double nsPerSpin) {
        return Math.round(workNsPerClient / nsPerSpin);
    }

    /** The median of the first {@code n} values (sorts a copy; called between phases, not in a loop). */
    static long median(long[] values, int n) {
        if (n <= 0) {
            return 0;
        }
        long[] v = Arrays.copyOf(values, n);
        Arrays.sort(v);
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
}
