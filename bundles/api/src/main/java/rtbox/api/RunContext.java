package rtbox.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * What a probe or workload may ask of the run it belongs to. Implemented by the
 * runner; every method is cheap and safe to call from a measuring thread between
 * measurements (never inside the timed section).
 */
@ProviderType
public interface RunContext {
    /** True once the user or the runner asked the run to stop early. */
    boolean stopRequested();

    /** Reports how far the run is, 0.0 to 1.0, for a progress display. */
    void progress(double fraction);

    /**
     * Records a timestamped event in the run (a workload swapped, a policy applied),
     * so that a report can line spikes up with it. Not for use in a measuring loop.
     */
    void event(String kind, String detail);

    /**
     * Records an event that happened at {@code nanoTime} (System.nanoTime(), the run's
     * clock), which may be in the past: a probe keeps what its measuring loop saw (an
     * xrun, with its time) in preallocated memory and reports it once it has left the
     * loop, at the time it happened. Not for use in a measuring loop.
     *
     * @since 1.3
     */
    default void event(long nanoTime, String kind, String detail) {
        event(kind, detail);
    }

    /**
     * Announces a measuring thread's live figures, once, before it measures (from the
     * probe's own thread, not the measuring loop), so that a display can show them while the
     * run goes on. A probe that does not call it simply has no live figures.
     *
     * @since 1.2
     */
    default void measuring(LiveThread thread) {
    }
}
