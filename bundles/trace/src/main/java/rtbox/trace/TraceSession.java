package rtbox.trace;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

import rtbox.api.result.Culprit;

/**
 * One run's trace. Read off the probe's thread while the run goes on; {@link #stop()}
 * ends the recording and reads what is left; {@link #close()} removes the tracefs
 * instance (also when stop was never called). Times are CLOCK_MONOTONIC nanoseconds,
 * the clock of System.nanoTime() and of the probes.
 */
@ProviderType
public interface TraceSession extends AutoCloseable {
    /** Stops recording and reads the rest of the kernel's buffers. */
    void stop();

    /**
     * What held {@code cpu} between {@code fromNanos} and {@code toNanos}, largest first:
     * tasks (not the idle task, not {@code excludeTid}), interrupt handlers and softirqs,
     * each with the time it held the CPU inside the window. Empty when nothing else ran.
     */
    List<Culprit> culprits(int cpu, long fromNanos, long toNanos, int excludeTid);

    /**
     * The trace of {@code cpu} between {@code fromNanos} and {@code toNanos} as a person reads
     * it, one line per stretch of time something held the CPU, in time order, times relative to
     * {@code zeroNanos} (a deadline): {@code -812.4 us to -790.1 us 22.3 us  kworker/1:2 (pid 77,
     * nice 0)}. Time in no line was idle or {@code excludeTid}'s (the probe's own thread).
     * Empty when the trace kept nothing there.
     *
     * @since 1.1
     */
    default List<String> excerpt(int cpu, long fromNanos, long toNanos, long zeroNanos, int excludeTid) {
        return List.of();
    }

    /**
     * False when the trace cannot speak for that window: before the trace started, older
     * than what was kept, or the kernel dropped events in it.
     */
    boolean covers(int cpu, long fromNanos, long toNanos);

    /** What a report should say about this trace: events read, losses, the reader's CPU cost. */
    List<String> notes();

    /** Removes the tracefs instance (and unmounts tracefs if this session mounted it). */
    @Override
    void close();
}
