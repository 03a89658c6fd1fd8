package rtbox.api;

import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A load put on the machine while a probe measures: block reads, pipe switches,
 * CPU hogs. Registered as a service with {@link #NAME} set to its name.
 */
@ConsumerType
public interface Workload {
    /** Service property: the workload's name, as in {@code --load <name>:k=v}. */
    String NAME = "rtbox.workload";

    /**
     * Checks {@code parameters} as {@link #start} would, without starting anything, so that
     * a run or plan with a bad load parameter ({@code pipe:mode=zzz}) is refused before it
     * measures instead of ending in ERROR after its warm-up. The default checks nothing.
     *
     * @throws RtboxException naming the parameter and what it may be
     * @since 1.3
     */
    default void validate(Map<String, String> parameters) throws RtboxException {
    }

    /** Starts the load with its own threads and returns at once. */
    WorkloadHandle start(Map<String, String> parameters, RunContext context) throws RtboxException;
}
