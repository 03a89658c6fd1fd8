package rtbox.api.result;

/**
 * A latency histogram as cyclictest keeps it: {@code counts[i]} is the number of
 * samples in [i, i+1) bucket widths; samples at or past the last bucket are
 * {@code overflows}. Summary figures are exact (taken from the samples, not the
 * buckets) except the percentiles, which are bucket-resolution upper bounds.
 * All times are in nanoseconds.
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
        long p999Ns) {

    /** Samples in buckets plus overflows: equals {@link #samples()} in a sound result. */
    public long total() {
        long sum = overflows;
        for (long c : counts) {
            sum += c;
        }
        return sum;
    }
}
