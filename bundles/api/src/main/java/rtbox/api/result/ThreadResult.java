package rtbox.api.result;

import java.util.List;

/**
 * What one measuring thread saw. {@code cycles} counts measurements;
 * {@code missedDeadlines} counts wake-ups so late that whole periods were skipped
 * (cyclictest hides those; rtbox counts them and corrects for them).
 */
public record ThreadResult(
        int thread,
        int cpu,
        int tid,
        String policy,
        int priority,
        long cycles,
        long missedDeadlines,
        Histogram latency,
        CorrectedLatency corrected,
        List<Spike> spikes,
        long spikesDropped) {
}
