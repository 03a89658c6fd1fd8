package rtbox.mqtt.protocol;

import java.util.List;

/**
 * What a run measured, at the top level of a result in microseconds so that a dashboard
 * plots it without code: the worst of the threads' figures, and {@code histogram[i]}
 * counting samples in [i, i+1) buckets of {@code histogramBucketUs}, all threads summed,
 * trailing empty buckets left off.
 */
public record Figures(double durationS, long samples, double minUs, double p50Us, double p99Us, double p999Us,
        double maxUs, long overflows, long missedDeadlines, double histogramBucketUs, long[] histogram,
        List<ThreadFigures> threads) {
}
