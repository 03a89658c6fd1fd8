package rtbox.api.result;

import java.util.List;
import java.util.Map;

/**
 * Everything a probe measured in one run. {@code figures} holds probe-specific
 * numbers by name; {@code notes} says what a reader must know (the clock used, an
 * early stop, a fallback taken). {@code startNanos} is the CLOCK_MONOTONIC time
 * measuring began, so spikes and JVM stalls share one time line. {@code breakTrace}
 * (since 1.3) is the sample that stopped a run given {@code -b}, null otherwise (and in a
 * report written before 1.3).
 */
public record ProbeResult(
        String probe,
        String parameters,
        String clock,
        long startNanos,
        long durationNs,
        boolean complete,
        List<ThreadResult> threads,
        Map<String, Double> figures,
        List<String> notes,
        BreakTrace breakTrace) {

    /** A result without a break (as before 1.3). */
    public ProbeResult(String probe, String parameters, String clock, long startNanos, long durationNs,
            boolean complete, List<ThreadResult> threads, Map<String, Double> figures, List<String> notes) {
        this(probe, parameters, clock, startNanos, durationNs, complete, threads, figures, notes, null);
    }
}
