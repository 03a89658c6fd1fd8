package rtbox.workload.fairness.internal;

/**
 * The unit of work: steps of a linear congruential generator, which the JIT can neither skip
 * nor fold, calibrated once to steps per millisecond. The calibration only sizes the chunks
 * that a worker runs between two reads of its CPU time ({@link FairnessRun}): the loop's speed
 * changes when the JIT replaces its code, so the count alone does not hold a round's work.
 */
final class Spin {
    private static volatile long perMs;
    /** Keeps the results alive so the loop is not dead code. */
    static volatile long sink;

    private Spin() {
    }

    static long run(long steps, long x) {
        for (long i = 0; i < steps; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    /** Steps per millisecond on this CPU, measured once (after the JIT compiled the loop). */
    static long iterationsPerMs() {
        long p = perMs;
        if (p == 0) {
            long x = 1;
            for (int i = 0; i < 20; i++) {
                x = run(100_000, x);
            }
            long best = Long.MAX_VALUE;
            long steps = 200_000;
            for (int i = 0; i < 5; i++) {
                long t0 = System.nanoTime();
                x = run(steps, x);
                best = Math.min(best, System.nanoTime() - t0);
            }
            sink = x;
            p = Math.max(1, steps * 1_000_000L / Math.max(1, best));
            perMs = p;
        }
        return p;
    }
}
