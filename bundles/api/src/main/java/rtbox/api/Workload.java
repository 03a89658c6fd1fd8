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

    /** Starts the load with its own threads and returns at once. */
    WorkloadHandle start(Map<String, String> parameters, RunContext context) throws RtboxException;
}
