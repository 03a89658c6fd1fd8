package rtbox.core;

/**
 * Limits a run must stay within to pass; a negative value means "not checked".
 * Latencies in microseconds. {@code jvmStallBudgetUs}: the longest JVM pause that
 * may overlap the measurement before the run is INCONCLUSIVE. {@code pwcetUs} (since 2.3): the
 * probabilistic threshold, the latency that may be exceeded in an hour of operation with at most
 * {@code pwcetPerHour} probability (the upper end of the pWCET estimate's 95 % confidence
 * interval is what is compared); -1 for none.
 */
public record Thresholds(long maxLatencyUs, long p99Us, long p999Us, long maxOverflows, long maxMissedDeadlines,
        long jvmStallBudgetUs, long pwcetUs, double pwcetPerHour) {
    public static final Thresholds NONE = new Thresholds(-1, -1, -1, -1, -1, -1);
    /** The probability per hour a {@code pwcet_us} threshold is at when none is stated. @since 2.3 */
    public static final double DEFAULT_PWCET_PER_HOUR = 1e-9;

    /** Thresholds without a probabilistic one (as before 2.3). */
    public Thresholds(long maxLatencyUs, long p99Us, long p999Us, long maxOverflows, long maxMissedDeadlines,
            long jvmStallBudgetUs) {
        this(maxLatencyUs, p99Us, p999Us, maxOverflows, maxMissedDeadlines, jvmStallBudgetUs, -1,
                DEFAULT_PWCET_PER_HOUR);
    }
}
