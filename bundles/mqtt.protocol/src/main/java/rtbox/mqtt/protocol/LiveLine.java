package rtbox.mqtt.protocol;

/**
 * One measuring thread's figures so far in a {@link Live} message, in microseconds, as
 * cyclictest's {@code T:} line: min, act (the last sample), avg, max and the samples. {@code avgUs}
 * is NaN (left off the wire) without a sample.
 */
public record LiveLine(int thread, int cpu, long samples, double minUs, double actUs, double avgUs, double maxUs) {
}
