package rtbox.api;

import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Changes scheduling settings of the machine for a run (RT throttling, SCHED_ISO's
 * CPU share, /dev/cpu_dma_latency) and restores them when the handle is closed.
 */
@ConsumerType
public interface Policy {
    /** Service property: the policy's name. */
    String NAME = "rtbox.policy";

    /** Applies the settings, having first recorded what it will change. */
    PolicyHandle apply(Map<String, String> settings, RunContext context) throws RtboxException;
}
