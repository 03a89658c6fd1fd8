package rtbox.api;

import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

/** Settings a policy changed; closing it restores every one of them. */
@ConsumerType
public interface PolicyHandle extends AutoCloseable {
    /** What was changed: setting name to "old -> new", for the result. */
    Map<String, String> changes();

    /**
     * The policy and priority the measuring threads run at, where this policy decided
     * them; empty when it left them as the run asked.
     */
    default java.util.Optional<EffectivePolicy> effectivePolicy() {
        return java.util.Optional.empty();
    }

    @Override
    void close();
}
