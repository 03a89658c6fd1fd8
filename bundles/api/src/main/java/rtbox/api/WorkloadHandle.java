package rtbox.api;

import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

/** A running workload. Stopping it leaves no thread, file or mapping behind. */
@ConsumerType
public interface WorkloadHandle {
    /** Whether the workload is busy right now (for example a block read in flight). */
    boolean active();

    /** Stops within 100 ms and returns the workload's own figures (name to value). */
    Map<String, Double> stop();
}
