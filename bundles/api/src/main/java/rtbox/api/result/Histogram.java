package rtbox.api.result;

/**
 * A latency histogram as cyclictest keeps it: {@code counts[i]} is the number of
 * samples in [i, i+1) bucket widths; samples at or past the last bucket are
 * {@code overflows}. Summary figures are exact (taken from the samples, not the
 * buckets) except the percentiles, which are bucket-resolution upper bounds.
 * All times are in nanoseconds.
 *
 * <p>{@code overflowCycles} (since 1.4) holds the cycle numbers (0: the first measured
 * sample) of the first overflows, at most {@code counts.length} of them, as cyclictest
 * keeps them for its "# Histogram Overflow at cycle number:" lines; {@link #overflows()}
 * counts them all. Empty where the probe does not keep them (or in a result written before
 * 1.4, where it reads as null).
 */
public record Histogram(
        long bucketWidthNs,
        long[] counts,
        long overflows,
        long samples,
        long minNs,
        long maxNs,
        double avgNs,
        long p50Ns,
        long p99Ns,
        long p999Ns,
        long[] overflowCycles) {

    /** A histogram without overflow cycle numbers, as before 1.4. */
    public Histogram(long bucketWidthNs, long[] counts, long overflows, long samples, long minNs, long maxNs,
            double avgNs, long p50Ns, long p99Ns, long p999Ns) {
        this(bucketWidthNs, counts, overflows, samples, minNs, maxNs, avgNs, p50Ns, p99Ns, p999Ns, new long[0]);
    }

    /** Samples in buckets plus overflows: equals {@link #samples()} in a sound result. */
    public long total() {
        long sum = overflows;
        for (long c : counts) {
            sum += c;
        }
        return sum;
    }
}
