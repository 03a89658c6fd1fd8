package rtbox.api.result;

/**
 * One measurement over the spike threshold. {@code offsetNs} is from the start of
 * measuring; {@code cause} is a short label (RT throttling, JVM pause, workload,
 * unexplained) and {@code detail} the evidence for it.
 */
public record Spike(int thread, long offsetNs, long latencyNs, String cause, String detail) {
    public Spike withCause(String newCause, String newDetail) {
        return new Spike(thread, offsetNs, latencyNs, newCause, newDetail);
    }
}
