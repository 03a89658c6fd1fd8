package rtbox.broker;

import java.io.IOException;
import java.nio.file.Path;

import rtbox.broker.internal.EmbeddedBroker;

/**
 * The control room's embedded MQTT broker as {@code rtbox job} starts it: 127.0.0.1 only,
 * the password in a 0600 file (made on first use), the ACL of docs/mosquitto.acl, no
 * persistence. {@code rtbox control} starts one when no site broker is configured.
 */
public final class LocalBroker implements AutoCloseable {
    /** The user name the control room connects with (the ACL lets it read every up tree). */
    public static final String CONTROL_USER = "control";
    private final EmbeddedBroker broker;

    private LocalBroker(EmbeddedBroker broker) {
        this.broker = broker;
    }

    /** Starts a broker on 127.0.0.1:{@code port} (0: a free port) with the password in {@code passwordFile}. */
    public static LocalBroker start(int port, int maxMessageBytes, Path passwordFile) throws IOException {
        return new LocalBroker(EmbeddedBroker.start(port, maxMessageBytes, EmbeddedBroker.password(passwordFile)));
    }

    /** {@code tcp://127.0.0.1:PORT}. */
    public String uri() {
        return broker.uri();
    }

    @Override
    public void close() {
        broker.close();
    }
}
