package rtbox.broker;

import java.io.IOException;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The embedded broker as this installation configures it (PID {@code rtbox.broker}: its
 * largest message, its password file), as a service: for a workflow in another bundle that
 * needs a broker of its own for as long as it runs ({@code rtbox job}).
 *
 * @since 1.1
 */
@ProviderType
public interface LocalBrokers {
    /**
     * Starts a broker on 127.0.0.1:{@code port} (0: a free port) with the configured largest
     * message and password file; the caller closes it.
     */
    LocalBroker start(int port) throws IOException;
}
