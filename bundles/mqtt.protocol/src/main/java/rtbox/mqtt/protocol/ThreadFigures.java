package rtbox.mqtt.protocol;

/**
 * One measuring thread's figures, in microseconds; {@code avgUs} is NaN when it had no sample.
 * {@code lastUs} (since 1.2, {@code last_us} on the wire) is the last sample, cyclictest's
 * Act; null from an appliance older than 1.2.
 */
public record ThreadFigures(int thread, int cpu, String policy, int priority, long samples, double minUs,
        double avgUs, double p50Us, double p99Us, double p999Us, double maxUs, long overflows, long missedDeadlines,
        long[] histogram, Double lastUs) {

    /** Figures without the last sample (as 1.1 had them). */
    public ThreadFigures(int thread, int cpu, String policy, int priority, long samples, double minUs, double avgUs,
            double p50Us, double p99Us, double p999Us, double maxUs, long overflows, long missedDeadlines,
            long[] histogram) {
        this(thread, cpu, policy, priority, samples, minUs, avgUs, p50Us, p99Us, p999Us, maxUs, overflows,
                missedDeadlines, histogram, null);
    }
}
