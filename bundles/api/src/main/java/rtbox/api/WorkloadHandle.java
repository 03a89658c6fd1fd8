package rtbox.api;

import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

/** A running workload. Stopping it leaves no thread, file or mapping behind. */
@ConsumerType
public interface WorkloadHandle {
    /** Whether the workload is busy right now (for example a block read in flight). */
    boolean active();

    /**
     * Whether the workload has done all it was asked (a count of messages or reads
     * reached, the end of a file it does not wrap) and stopped on its own: a workload
     * run alone then ends early instead of idling out its duration. {@link #stop()}
     * must still be called for the figures.
     *
     * @since 1.1
     */
    default boolean finished() {
        return false;
    }

    /** Stops within 100 ms and returns the workload's own figures (name to value). */
    Map<String, Double> stop();
}
