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
