package rtbox.core;

/**
 * Limits a run must stay within to pass; a negative value means "not checked".
 * Latencies in microseconds. {@code jvmStallBudgetUs}: the longest JVM pause that
 * may overlap the measurement before the run is INCONCLUSIVE.
 */
public record Thresholds(long maxLatencyUs, long p99Us, long p999Us, long maxOverflows, long maxMissedDeadlines,
        long jvmStallBudgetUs) {
    public static final Thresholds NONE = new Thresholds(-1, -1, -1, -1, -1, -1);
}
