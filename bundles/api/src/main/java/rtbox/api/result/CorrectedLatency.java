package rtbox.api.result;

/**
 * The coordinated-omission-corrected view of a periodic probe: every wake-up that
 * skipped periods also counts the wake-ups that should have happened meanwhile,
 * each with the latency it would have had (the late one less 1, 2, ... periods). {@code encoded} is the
 * histogram in HdrHistogram's compressed base64 form, for tools that read it.
 */
public record CorrectedLatency(long samples, long p50Ns, long p99Ns, long p999Ns, long maxNs, String encoded) {
}
