package rtbox.workload.fairness.internal;

/**
 * The unit of work: a fixed number of steps of a linear congruential generator,
 * which the JIT can neither skip nor fold, calibrated once to steps per
 * millisecond. A worker does a fixed amount of work per round, as massive_intr's
 * calibrated loop did, so a worker the scheduler holds back completes fewer rounds.
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
