package rtbox.mqtt.protocol;

/** One measuring thread's figures, in microseconds; {@code avgUs} is NaN when it had no sample. */
public record ThreadFigures(int thread, int cpu, String policy, int priority, long samples, double minUs,
        double avgUs, double p50Us, double p99Us, double p999Us, double maxUs, long overflows, long missedDeadlines,
        long[] histogram) {
}
