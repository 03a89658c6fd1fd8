package rtbox.trace;

import org.osgi.annotation.versioning.ProviderType;

import rtbox.api.RtboxException;
import rtbox.api.SchedPolicy;

/**
 * Starts the kernel's trace for one run. Registered as a service by rtbox.trace; the
 * runner uses it when it is there and keeps its other evidence when it is not.
 */
@ProviderType
public interface KernelTrace {
    /**
     * Starts tracing the given CPUs (a private tracefs instance limited to them) until
     * the session is stopped. The probe's own threads (threads of this JVM at the probe's
     * policy and priority) are not kept: they are what is being delayed, not a culprit.
     *
     * @throws RtboxException naming why there is no trace (no tracefs in this kernel,
     *         mounting it refused, an event missing), so the run can say so once and go on
     */
    TraceSession start(int[] cpus, SchedPolicy probePolicy, int probePriority) throws RtboxException;
}
