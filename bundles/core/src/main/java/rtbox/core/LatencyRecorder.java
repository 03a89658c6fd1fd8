package rtbox.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.HdrHistogram.Histogram;

import rtbox.api.result.CorrectedLatency;
import rtbox.api.result.Spike;

/**
 * Records the latencies of one measuring thread. Everything is allocated up front;
 * {@link #record} does no allocation, takes no lock and calls nothing that logs,
 * so it can sit in a measuring loop. Not thread-safe: one recorder per thread, read
 * only after that thread has finished.
 *
 * <p>It keeps three views of the same samples: cyclictest's histogram (1 us buckets
 * up to a limit, then an overflow count), an exact HdrHistogram for percentiles, and
 * a coordinated-omission-corrected HdrHistogram that also counts the periodic
 * samples a late wake-up made impossible. Samples over the spike threshold are kept
 * with their time, up to a fixed number.
 */
public final class LatencyRecorder {
    /** Largest latency tracked exactly; larger ones are clamped (and are overflows anyway). */
    private static final long HIGHEST_NS = 60_000_000_000L;
    private static final int MAX_SPIKES = 8192;

    private final int thread;
    private final long expectedIntervalNs;
    private final long[] buckets;
    private final Histogram exact = new Histogram(1, HIGHEST_NS, 3);
    private final Histogram corrected = new Histogram(1, HIGHEST_NS, 3);
    private final long[] spikeOffsets = new long[MAX_SPIKES];
    private final long[] spikeLatencies = new long[MAX_SPIKES];

    private long spikeThresholdNs;
    private long startNanos;
    private long overflows;
    private long samples;
    private long sum;
    private long min = Long.MAX_VALUE;
    private long max;
    private long missed;
    private long last;
    private int spikes;
    private long spikesDropped;

    /**
     * @param histogramLimitUs number of 1 us buckets (cyclictest's -h)
     * @param expectedIntervalNs the period, for the corrected view; 0 for a non-periodic probe
     */
    public LatencyRecorder(int thread, int histogramLimitUs, long expectedIntervalNs) {
        this.thread = thread;
        this.buckets = new long[histogramLimitUs];
        this.expectedIntervalNs = expectedIntervalNs;
        this.spikeThresholdNs = Long.MAX_VALUE;
    }

    /** Forgets everything recorded (after warm-up) and starts the time line at {@code startNanos}. */
    public void reset(long startNanos, long spikeThresholdNs) {
        Arrays.fill(buckets, 0);
        exact.reset();
        corrected.reset();
        this.startNanos = startNanos;
        this.spikeThresholdNs = spikeThresholdNs;
        overflows = 0;
        samples = 0;
        sum = 0;
        min = Long.MAX_VALUE;
        max = 0;
        missed = 0;
        spikes = 0;
        spikesDropped = 0;
    }

    /** Records one latency measured at monotonic time {@code atNanos}. */
    public void record(long latencyNs, long atNanos) {
        long v = latencyNs < 0 ? 0 : latencyNs;
        long bucket = v / 1000;
        if (bucket < buckets.length) {
            buckets[(int) bucket]++;
        } else {
            overflows++;
        }
        long clamped = v > HIGHEST_NS ? HIGHEST_NS : v;
        exact.recordValue(clamped);
        corrected.recordValue(clamped);
        last = clamped;
        samples++;
        sum += v;
        if (v < min) {
            min = v;
        }
        if (v > max) {
            max = v;
        }
        if (v >= spikeThresholdNs) {
            if (spikes < MAX_SPIKES) {
                spikeOffsets[spikes] = atNanos - startNanos;
                spikeLatencies[spikes] = v;
                spikes++;
            } else {
                spikesDropped++;
            }
        }
    }

    /**
     * Counts periods that the last, late wake-up skipped entirely (missed deadlines),
     * and adds to the corrected view the latencies those wake-ups would have had:
     * the last latency less one, two, ... periods.
     */
    public void missed(long periods) {
        missed += periods;
        for (long k = 1; k <= periods && expectedIntervalNs > 0; k++) {
            long v = last - k * expectedIntervalNs;
            corrected.recordValue(v < 0 ? 0 : v);
        }
    }

    public long samples() {
        return samples;
    }

    public long missedDeadlines() {
        return missed;
    }

    /** The exact median so far, in nanoseconds (used after warm-up to set the spike threshold). */
    public long medianNs() {
        return samples == 0 ? 0 : exact.getValueAtPercentile(50);
    }

    /** cyclictest's view with exact summary figures. */
    public rtbox.api.result.Histogram histogram() {
        return new rtbox.api.result.Histogram(1000, buckets.clone(), overflows, samples,
                samples == 0 ? 0 : min, max, samples == 0 ? 0 : (double) sum / samples,
                percentile(50), percentile(99), percentile(99.9));
    }

    private long percentile(double p) {
        return samples == 0 ? 0 : Math.min(exact.highestEquivalentValue(exact.getValueAtPercentile(p)), max);
    }

    public CorrectedLatency corrected() {
        java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(corrected.getNeededByteBufferCapacity());
        int length = corrected.encodeIntoCompressedByteBuffer(buffer);
        String encoded = java.util.Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
        long n = corrected.getTotalCount();
        return new CorrectedLatency(n, n == 0 ? 0 : corrected.getValueAtPercentile(50),
                n == 0 ? 0 : corrected.getValueAtPercentile(99), n == 0 ? 0 : corrected.getValueAtPercentile(99.9),
                n == 0 ? 0 : corrected.getMaxValue(), encoded);
    }

    /** Samples over the spike threshold, in time order, as yet without a cause. */
    public List<Spike> spikes() {
        List<Spike> list = new ArrayList<>(spikes);
        for (int i = 0; i < spikes; i++) {
            list.add(new Spike(thread, spikeOffsets[i], spikeLatencies[i], "", ""));
        }
        return list;
    }

    public long spikesDropped() {
        return spikesDropped;
    }
}
