package rtbox.api.result;

import java.util.List;

/**
 * What one measuring thread saw. {@code cycles} counts measurements;
 * {@code missedDeadlines} counts wake-ups so late that whole periods were skipped
 * (cyclictest hides those; rtbox counts them and corrects for them). {@code lastNs}
 * (since 1.3) is the last sample, cyclictest's {@code Act:}; 0 in a report written
 * before 1.3 and for a thread without samples. {@code blockMaxima} (since 1.6): the maxima of
 * its blocks of samples, from the probe to the runner, which turns them into a {@link Pwcet}
 * estimate when asked and leaves them out of the report (null there).
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
        long spikesDropped,
        long lastNs,
        BlockMaxima blockMaxima) {

    /** A thread result without block maxima (as before 1.6). @since 1.6 */
    public ThreadResult(int thread, int cpu, int tid, String policy, int priority, long cycles, long missedDeadlines,
            Histogram latency, CorrectedLatency corrected, List<Spike> spikes, long spikesDropped, long lastNs) {
        this(thread, cpu, tid, policy, priority, cycles, missedDeadlines, latency, corrected, spikes, spikesDropped,
                lastNs, null);
    }

    /** A thread result without its last sample (as before 1.3). */
    public ThreadResult(int thread, int cpu, int tid, String policy, int priority, long cycles, long missedDeadlines,
            Histogram latency, CorrectedLatency corrected, List<Spike> spikes, long spikesDropped) {
        this(thread, cpu, tid, policy, priority, cycles, missedDeadlines, latency, corrected, spikes, spikesDropped, 0);
    }

    /** The same thread with other spikes (labelled, with culprits). @since 1.3 */
    public ThreadResult withSpikes(List<Spike> newSpikes) {
        return new ThreadResult(thread, cpu, tid, policy, priority, cycles, missedDeadlines, latency, corrected,
                newSpikes, spikesDropped, lastNs, blockMaxima);
    }

    /** The same thread with other block maxima (null: none). @since 1.6 */
    public ThreadResult withBlockMaxima(BlockMaxima maxima) {
        return new ThreadResult(thread, cpu, tid, policy, priority, cycles, missedDeadlines, latency, corrected,
                spikes, spikesDropped, lastNs, maxima);
    }
}
