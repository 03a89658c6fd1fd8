package rtbox.api.result;

/**
 * A time when the JVM itself stopped the measurement: a garbage collection, or a
 * hiccup the monitor thread saw. {@code offsetNs} is from the start of measuring.
 */
public record JvmStall(long offsetNs, long durationNs, String kind, String detail) {
}
