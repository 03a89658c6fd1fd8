package rtbox.probe.tsc.internal;

import rtbox.api.RtboxException;
import rtbox.api.RunParameters;

/** The wait lengths of one sweep, in microseconds: from, from+step, ..., up to and including to. */
record Sweep(long fromUs, long toUs, long stepUs) {
    static final long MAX_WAIT_US = 10_000_000;

    static Sweep of(RunParameters p) throws RtboxException {
        long from = option(p, "from", 10);
        long to = option(p, "to", 10_000);
        long step = option(p, "step", 10);
        if (from < 1 || from > MAX_WAIT_US) {
            throw new RtboxException("from", "sweep start from=" + from + " us is out of range: use 1 to " + MAX_WAIT_US);
        }
        if (to < from || to > MAX_WAIT_US) {
            throw new RtboxException("to", "sweep end to=" + to + " us is out of range: use from (" + from + ") to "
                    + MAX_WAIT_US);
        }
        if (step < 1) {
            throw new RtboxException("step", "sweep step step=" + step + " us must be at least 1");
        }
        return new Sweep(from, to, step);
    }

    private static long option(RunParameters p, String name, long fallback) throws RtboxException {
        String v = p.option(name, null);
        if (v == null) {
            return fallback;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new RtboxException(name, "option " + name + "='" + v + "' is not a whole number of microseconds");
        }
    }

    /** Number of waits in one sweep. */
    long waits() {
        return (toUs - fromUs) / stepUs + 1;
    }

    /** The busy time of one sweep, in nanoseconds. */
    long sweepNs() {
        long n = waits();
        return (n * fromUs + stepUs * n * (n - 1) / 2) * 1000;
    }

    /** The wait after {@code us}: the next step, or back to the start after the last. */
    long next(long us) {
        long n = us + stepUs;
        return n > toUs ? fromUs : n;
    }

    @Override
    public String toString() {
        return fromUs + ".." + toUs + " us in " + stepUs + " us steps";
    }
}
