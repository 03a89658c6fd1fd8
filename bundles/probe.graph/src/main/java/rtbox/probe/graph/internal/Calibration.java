package rtbox.probe.graph.internal;

import java.util.Arrays;

/**
 * The maths that turns an asked DSP load into spins of each client's work loop. A
 * cycle's graph time is the hops' own cost (the driver's write, each client's read and
 * write, the wake-ups: measured with no work, {@code baseNs}) plus the clients' work
 * ({@code clients x spins x nsPerSpin}). The load asked is graph time over period, as
 * JACK computes its DSP load, so the hops' cost is taken off before the work is shared
 * out; one correction from the graph time measured at that work takes what the two
 * estimates missed (a spin's cost under the graph's cache and branch state).
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

    /** Spins per client for a graph time of {@code targetNs}, the hops costing {@code baseNs}; never negative. */
    static long spinsFor(long targetNs, long baseNs, int clients, double nsPerSpin) {
        double work = (targetNs - baseNs) / (clients * nsPerSpin);
        return work <= 0 ? 0 : Math.round(work);
    }

    /** Spins for work given as time per client. */
    static long spinsForWork(long workNsPerClient, double nsPerSpin) {
        return Math.round(workNsPerClient / nsPerSpin);
    }

    /**
     * The spins corrected by what the graph took at {@code spins}: each client's share of
     * the difference between the target and the measured graph time, kept within half and
     * twice the estimate from the spin's cost ({@code estimate}): a correction round that a
     * load or a demotion slowed down (the graph preempted for most of it) must not take the
     * work away, nor a quiet one double it twice over.
     */
    static long corrected(long spins, long measuredNs, long targetNs, int clients, double nsPerSpin, long estimate) {
        double c = spins + (targetNs - measuredNs) / (clients * nsPerSpin);
        double low = estimate / 2.0, high = estimate * 2.0;
        c = Math.max(low, Math.min(high, c));
        return c <= 0 ? 0 : Math.round(c);
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
