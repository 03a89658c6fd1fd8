package rtbox.broker.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;

import io.moquette.broker.Server;
import io.moquette.broker.config.MemoryConfig;
import io.moquette.interception.AbstractInterceptHandler;
import io.moquette.interception.messages.InterceptSubscribeMessage;

/**
 * Moquette 0.17 set up for the control room's all-in-one default. Moquette's own
 * defaults are each wrong here, so every one is set: it binds 0.0.0.0 (here
 * 127.0.0.1 only: there is no TLS, so nothing leaves the machine), accepts anonymous
 * clients (here a password and the ACL of {@link Access}), POSTs telemetry to
 * moquette.io on start (off), drops messages over 8092 bytes (raised: results carry
 * histograms), and keeps an H2 store in {@code data/} of the working directory.
 *
 * <p>Persistence is off, on purpose: the broker lives as long as the command that
 * started it, and what must not be lost is already durable where it belongs: the
 * appliance's outbox keeps every result until the broker acknowledged it to the
 * appliance and sends it again after any reconnect, and the control room writes what
 * it receives to its report. A broker store would only carry stale sessions and
 * retained statuses from one job into the next.
 */
public final class EmbeddedBroker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.broker");

    static final String HOST = "127.0.0.1";
    private static final Set<PosixFilePermission> OWNER_ONLY = EnumSet.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE);
    private final Server server = new Server();
    private final int port;
    private boolean stopped;
    /** Subscription filters the broker has accepted so far (guarded by itself). */
    private final Set<String> subscribed = new HashSet<>();

    private EmbeddedBroker(int port, int maxMessageBytes, String password) throws IOException {
        if (maxMessageBytes < 8092) {
            throw new IllegalArgumentException("maxMessageBytes " + maxMessageBytes + " is below Moquette's own 8092:"
                    + " give at least the size of the largest result (64 MiB by default)");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is not a TCP port (0 takes a free one)");
        }
        Properties p = new Properties();
        p.setProperty("host", HOST);
        p.setProperty("port", Integer.toString(port));
        p.setProperty("websocket_port", "disabled");
        p.setProperty("allow_anonymous", "false");
        // MQTT 3.1.1 lets a clean-session client leave its id to the broker (mosquitto_sub 2 does).
        p.setProperty("allow_zero_byte_client_id", "true");
        p.setProperty("telemetry_enabled", "false");
        p.setProperty("persistence_enabled", "false");
        p.setProperty("netty.mqtt.message_size", Integer.toString(maxMessageBytes));
        p.setProperty("netty.epoll", "false");
        Access access = new Access(password);
        try {
            server.startServer(new MemoryConfig(p), List.of(new Subscriptions()), null, access, access);
        } catch (RuntimeException e) {
            // Moquette has started some of its threads before the bind failed: stop them.
            try {
                server.stopServer();
            } catch (RuntimeException ignored) {
                // it had not got far enough to have anything to stop
            }
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new IOException("the embedded broker cannot listen on " + HOST + ":" + port + ": " + cause, e);
        }
        this.port = port != 0 ? port : boundPort();
    }

    /** Moquette learns the port it bound from a listener on netty's event loop, a moment after the bind. */
    private int boundPort() throws IOException {
        long end = System.currentTimeMillis() + 5000;
        for (int p; System.currentTimeMillis() < end; ) {
            if ((p = server.getPort()) != 0) {
                return p;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        close();
        throw new IOException("the embedded broker did not report the port it bound within 5 s");
    }

    /** Starts a broker on 127.0.0.1:{@code port} (0: a free port) that accepts {@code password}. */
    public static EmbeddedBroker start(int port, int maxMessageBytes, String password) throws IOException {
        return new EmbeddedBroker(port, maxMessageBytes, password);
    }

    /** Notes every subscription the broker accepted (only subscriptions: nothing else is copied or held). */
    private final class Subscriptions extends AbstractInterceptHandler {
        @Override
        public String getID() {
            return "rtbox-subscriptions";
        }

        @Override
        public Class<?>[] getInterceptedMessageTypes() {
            return new Class<?>[] {InterceptSubscribeMessage.class};
        }

        @Override
        public void onSubscribe(InterceptSubscribeMessage msg) {
            synchronized (subscribed) {
                subscribed.add(msg.getTopicFilter());
                subscribed.notifyAll();
            }
        }

        @Override
        public void onSessionLoopError(Throwable error) {
            LOG.warn("a session loop of the embedded broker failed", error);
        }
    }

    /**
     * Waits until some client has subscribed to {@code filter} (an appliance subscribes to
     * its commands once connected: from then on a command reaches it); false on timeout.
     */
    public boolean awaitSubscription(String filter, long timeoutMs) throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMs;
        synchronized (subscribed) {
            while (!subscribed.contains(filter)) {
                long left = end - System.currentTimeMillis();
                if (left <= 0) {
                    return false;
                }
                subscribed.wait(Math.min(left, 200));
            }
            return true;
        }
    }

    int port() {
        return port;
    }

    public String uri() {
        return "tcp://" + HOST + ":" + port;
    }

    @Override
    public synchronized void close() {
        if (!stopped) {
            stopped = true;
            server.stopServer();
        }
    }

    /**
     * The password in {@code file}, made (32 random bytes, base64) when the file does not
     * exist. The file is the owner's alone (0600, its folder 0700): the appliance and
     * rtbox ctl of the same user read it; nobody else on the machine can.
     */
    public static String password(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(EnumSet.of(PosixFilePermission.OWNER_READ,
                    PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE)));
        }
        if (!Files.exists(file)) {
            byte[] secret = new byte[32];
            new SecureRandom().nextBytes(secret);
            String password = Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
            try {
                // Created with its final mode: never readable by others, not even for a moment.
                Files.writeString(Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY)),
                        password + "\n", StandardCharsets.UTF_8);
            } catch (FileAlreadyExistsException e) {
                // another rtbox made it just now: use theirs
            }
        }
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
        if (!OWNER_ONLY.containsAll(mode)) {
            throw new IOException("the broker's password file " + file + " is readable by others ("
                    + PosixFilePermissions.toString(mode) + "): chmod 600 " + file + " (or delete it: a new password"
                    + " is made)");
        }
        String password = Files.readString(file, StandardCharsets.UTF_8).trim();
        if (password.length() < 16) {
            throw new IOException("the broker's password file " + file + " holds " + password.length()
                    + " characters, fewer than 16: delete it and a new password is made");
        }
        return password;
    }
}
