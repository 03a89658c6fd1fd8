package rtbox.broker;

import java.io.IOException;
import java.nio.file.Path;

import rtbox.broker.internal.EmbeddedBroker;

/**
 * The control room's embedded MQTT broker as {@code rtbox job} and {@code rtbox control}
 * start it: 127.0.0.1 only, the password in a 0600 file (made on first use), the ACL of
 * docs/mosquitto.acl, no persistence.
 */
public final class LocalBroker implements AutoCloseable {
    /** The user name the control room connects with (the ACL lets it read every up tree). */
    public static final String CONTROL_USER = "control";
    private final EmbeddedBroker broker;
    private final Path passwordFile;
    private final String password;

    private LocalBroker(EmbeddedBroker broker, Path passwordFile, String password) {
        this.broker = broker;
        this.passwordFile = passwordFile;
        this.password = password;
    }

    /** Starts a broker on 127.0.0.1:{@code port} (0: a free port) with the password in {@code passwordFile}. */
    public static LocalBroker start(int port, int maxMessageBytes, Path passwordFile) throws IOException {
        String password = EmbeddedBroker.password(passwordFile);
        return new LocalBroker(EmbeddedBroker.start(port, maxMessageBytes, password), passwordFile, password);
    }

    /** {@code tcp://127.0.0.1:PORT}. */
    public String uri() {
        return broker.uri();
    }

    /**
     * The password every client needs, for a client in this process (it never goes on a command
     * line; a child process is given {@link #passwordFile()}).
     *
     * @since 1.1
     */
    public String password() {
        return password;
    }

    /**
     * The file the password is in (0600), for clients in other processes.
     *
     * @since 1.1
     */
    public Path passwordFile() {
        return passwordFile;
    }

    /**
     * Waits until some client has subscribed to {@code topicFilter} (an appliance subscribes to
     * its commands once connected: from then on a command reaches it); false on timeout.
     *
     * @since 1.1
     */
    public boolean awaitSubscription(String topicFilter, long timeoutMs) throws InterruptedException {
        return broker.awaitSubscription(topicFilter, timeoutMs);
    }

    @Override
    public void close() {
        broker.close();
    }
}
