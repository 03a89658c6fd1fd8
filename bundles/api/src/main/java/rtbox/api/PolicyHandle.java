package rtbox.api;

import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

/** Settings a policy changed; closing it restores every one of them. */
@ConsumerType
public interface PolicyHandle extends AutoCloseable {
    /** What was changed: setting name to "old -> new", for the result. */
    Map<String, String> changes();

    @Override
    void close();
}
