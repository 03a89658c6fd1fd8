package rtbox.api.result;

import java.util.List;

/**
 * The sample that stopped a run given {@code -b US} ({@code --breaktrace}, as cyclictest):
 * the first wake-up later than the limit. cyclictest prints it as {@code # Break thread:
 * TID} and {@code # Break value: US}; rtbox also keeps when it was and, where the kernel's
 * trace ran, what held the CPU between its deadline and its wake-up ({@code culprits},
 * largest first; empty without a trace or when nothing else ran) and the trace around it
 * ({@code trace}: one line per stretch of the CPU's time, from a millisecond before the
 * deadline to the wake-up; empty without a trace).
 *
 * @param thread the measuring thread's index (cyclictest's T: number)
 * @param tid its Linux thread id (cyclictest's "Break thread")
 * @param offsetNs when it woke, from the start of measuring
 * @param latencyNs how late it woke (cyclictest's "Break value", there in us)
 * @param limitNs the limit given with -b
 * @since 1.3
 */
public record BreakTrace(int thread, int cpu, int tid, long offsetNs, long latencyNs, long limitNs,
        List<Culprit> culprits, List<String> trace) {
    public BreakTrace {
        culprits = culprits == null ? List.of() : List.copyOf(culprits);
        trace = trace == null ? List.of() : List.copyOf(trace);
    }

    /** The same break with what the kernel's trace saw around it. */
    public BreakTrace withTrace(List<Culprit> newCulprits, List<String> newTrace) {
        return new BreakTrace(thread, cpu, tid, offsetNs, latencyNs, limitNs, newCulprits, newTrace);
    }
}
