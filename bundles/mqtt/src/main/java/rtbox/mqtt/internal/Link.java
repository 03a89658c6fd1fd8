package rtbox.mqtt.internal;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttAsyncClient;
import org.eclipse.paho.client.mqttv3.MqttCallbackExtended;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MqttDefaultFilePersistence;

import rtbox.mqtt.client.OversizedPublish;
import rtbox.mqtt.protocol.Status;
import rtbox.mqtt.protocol.Topics;

/**
 * Over 400 lines: the connection's whole life (connect, subscribe, status, live figures, drain, the loss and
 * what a loss means for Paho's store and for a message the broker keeps refusing) shares the
 * one client and the io thread's state; split apart, each part would reach into the others'.
 *
 * <p>The appliance's line to the broker: one connection (its own reconnect, not Paho's,
 * whose timer and lock are static), the retained status with a matching last will, the
 * subscription to its command tree, and the durable {@link Outbox} drained oldest first,
 * one acknowledged message at a time.
 *
 * <p>The status is published again every {@code statusHeartbeatSeconds} and when a control
 * room broadcasts {@link Topics#ANNOUNCE}: a clustered broker may hold a retained message
 * on one node only (docs/fleet.md), so a control room on another node learns the fleet
 * from these repeats, and takes an appliance it has not heard from for a while as gone
 * (its last will may have died with a broker node).
 *
 * <p>Thread {@code rtbox-mqtt-io} owns the client: connect, subscribe, publish. Paho's
 * callbacks only hand work over (calling the client from them can deadlock): a command
 * goes to the {@link Sink}, which must not block.
 */
final class Link {
    private static final int QOS = 1;
    /** Every rtbox client id starts so: the site broker admits no other (docs/mosquitto.conf, clientid_prefixes). */
    static final String CLIENT_ID_PREFIX = "rtbox-";

    /** Where an arriving command goes, on Paho's thread. */
    interface Sink {
        void command(String topic, byte[] payload, boolean retained);

        /**
         * A command larger than {@code maxCommandBytes}: only its size and first bytes are
         * handed over (the payload itself is let go at once), so that it is answered without
         * being read, and acknowledged, never delivered again.
         */
        void oversized(String topic, int size, byte[] head, boolean retained);
    }

    /** Bytes of an oversized command kept to find its request id. */
    static final int HEAD_BYTES = OversizedPublish.HEAD_BYTES;

    private final MqttConfig config;
    private final String appliance;
    private final String persistenceDir;
    private final Outbox outbox;
    private final Function<String, byte[]> status;
    private final Sink sink;
    private final MqttConnectOptions options;
    /** The brokers in the configured order ({@link #options} holds them in the order the next attempt tries). */
    private final String[] configured;
    private final ScheduledExecutorService io;
    private volatile MqttAsyncClient client;
    private volatile boolean connected;
    private volatile boolean closing;
    private long backoffMs = 500;
    /** An answer to an announce is queued: more announces meanwhile add nothing. */
    private final java.util.concurrent.atomic.AtomicBoolean announceQueued = new java.util.concurrent.atomic.AtomicBoolean();
    /** Most milliseconds an answer to an announce waits, at random: a fleet does not answer all in one instant. */
    static final int ANNOUNCE_SPREAD_MS = 1000;
    /** Told on the io thread after each connection is made (must not block). */
    private volatile Runnable onConnected;
    /** Why the last attempt to connect failed, or null. */
    private volatile String lastError;

    /** {@code status} encodes the status message for a state, {@code online} or {@code offline}. */
    Link(MqttConfig config, String appliance, java.nio.file.Path dataDir, Outbox outbox,
            Function<String, byte[]> status, Sink sink) throws IOException, GeneralSecurityException, MqttException {
        this.config = config;
        this.appliance = appliance;
        this.persistenceDir = dataDir.resolve("paho").toString();
        this.outbox = outbox;
        this.status = status;
        this.sink = sink;
        this.options = Connection.options(config, Topics.status(appliance), status.apply(Status.OFFLINE));
        this.configured = options.getServerURIs().clone();
        this.client = newClient();
        this.io = Executors.newSingleThreadScheduledExecutor(Appliance.named("rtbox-mqtt-io"));
    }

    void start() {
        io.execute(this::connect);
        io.scheduleWithFixedDelay(() -> {
            try {
                outbox.sweep();
            } catch (IOException e) {
                Appliance.LOG.warn("outbox: cannot remove a delivered message: {}", e.getMessage());
            }
        }, Outbox.KEEP_DELIVERED_MS, Outbox.KEEP_DELIVERED_MS / 2, TimeUnit.MILLISECONDS);
        int heartbeat = config.statusHeartbeatSeconds();
        if (heartbeat > 0) {
            io.scheduleWithFixedDelay(this::publishStatus, heartbeat, heartbeat, TimeUnit.SECONDS);
        }
    }

    /** {@code r} runs on the io thread after each connection is made; it must only hand work over. */
    void onConnected(Runnable r) {
        onConnected = r;
    }

    /** Why the last attempt to connect failed (null when none did). */
    String lastError() {
        return lastError;
    }

    /** The brokers this link connects to, as configured. */
    String brokers() {
        return String.join(", ", configured);
    }

    /**
     * The list turned by one: {@code [a, b, c]} gives {@code [b, c, a]}. Paho tries a connect's
     * URIs in order, but a node that takes the connection and never answers holds the attempt
     * until it is given up on; the next attempt then starts at the next node, not at that one.
     */
    static String[] nextFirst(String[] uris) {
        String[] next = new String[uris.length];
        for (int i = 0; i < uris.length; i++) {
            next[i] = uris[(i + 1) % uris.length];
        }
        return next;
    }

    /** Publishes what the outbox holds, soon, on the io thread. */
    void drainSoon() {
        if (!closing) {
            io.execute(this::drain);
        }
    }

    /** The newest live message not handed to the client yet: one at most waits, older ones are replaced. */
    private final java.util.concurrent.atomic.AtomicReference<byte[][]> live = new java.util.concurrent.atomic.AtomicReference<>();

    /**
     * Sends a live message at QoS 0, soon, on the io thread, if connected: never stored, never
     * sent again. While the io thread is busy (draining the outbox) only the newest one waits.
     */
    void publishLive(String topic, byte[] payload) {
        if (closing || !connected) {
            return;
        }
        if (live.getAndSet(new byte[][] {topic.getBytes(java.nio.charset.StandardCharsets.UTF_8), payload}) == null) {
            io.execute(this::sendLive);
        }
    }

    private void sendLive() {
        byte[][] m = live.getAndSet(null);
        if (m == null || !connected) {
            return;
        }
        try {
            client.publish(new String(m[0], java.nio.charset.StandardCharsets.UTF_8), m[1], 0, false);
        } catch (MqttException e) {
            // Paho's in-flight window is full or the connection just went: the next one replaces it.
        }
    }

    /** Publishes the retained status again, soon (a run started or ended). */
    void statusChanged() {
        if (!closing) {
            io.execute(this::publishStatus);
        }
    }

    /** Drains what it can, says {@code offline}, disconnects and ends the io thread. */
    void close() {
        closing = true;
        try {
            io.submit(this::closeClient).get(15, TimeUnit.SECONDS);
        } catch (Exception e) {
            Appliance.LOG.warn("closing the connection failed: {}", String.valueOf(e));
        }
        io.shutdownNow();
        try {
            io.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void connect() {
        if (closing || connected) {
            return;
        }
        try {
            client.connect(options).waitForCompletion(config.connectTimeoutSeconds() * 1000L + 2000);
            client.subscribe(Topics.commands(appliance), QOS).waitForCompletion(10_000);
            subscribeAnnounce();
            connected = true;
            backoffMs = 500;
            Appliance.LOG.info("connected to {} as {}", client.getCurrentServerURI(), appliance);
            // Acknowledged before a set-config on trial is judged kept: connected is not yet answering.
            client.publish(Topics.status(appliance), status.apply(Status.ONLINE), QOS, true)
                    .waitForCompletion(config.connectTimeoutSeconds() * 1000L + 2000);
            Runnable r = onConnected;
            if (r != null) {
                r.run();
            }
            drain();
        } catch (MqttException e) {
            connected = false;
            lastError = Connection.describe(e);
            String[] tried = options.getServerURIs();
            options.setServerURIs(nextFirst(tried));
            Appliance.LOG.warn("cannot connect to {}: {}; trying again in {} ms{}", String.join(", ", tried),
                    Connection.describe(e), backoffMs,
                    (tried.length > 1 ? ", from " + options.getServerURIs()[0] : ""));
            try {
                client.disconnectForcibly(0, 1000, false);
            } catch (MqttException ignored) {
                // not connected after all
            }
            // A connect that timed out leaves Paho "connecting" for good (32110): start over with a new client.
            try {
                client.close(true);
            } catch (MqttException ignored) {
                // closed enough
            }
            try {
                client = newClient();
            } catch (MqttException ex) {
                Appliance.LOG.warn("cannot create the MQTT client again: {}", Connection.describe(ex));
            }
            io.schedule(this::connect, backoffMs, TimeUnit.MILLISECONDS);
            backoffMs = Math.min(backoffMs * 2, 30_000);
        }
    }

    /**
     * At QoS 0: an announce missed while offline needs no answer, the status goes out at each
     * connection anyway. A broker whose ACL does not let appliances read it (a mosquitto.acl
     * older than this) refuses only this subscription: said once per connection, the rest works.
     */
    private void subscribeAnnounce() throws MqttException {
        int[] granted;
        try {
            org.eclipse.paho.client.mqttv3.IMqttToken t = client.subscribe(Topics.ANNOUNCE, 0);
            t.waitForCompletion(10_000);
            granted = t.getGrantedQos();
        } catch (MqttException e) {
            if (e.getReasonCode() != MqttException.REASON_CODE_SUBSCRIBE_FAILED) {
                throw e;
            }
            granted = new int[] {0x80};
        }
        if (granted != null && granted.length > 0 && granted[0] == 0x80) {
            Appliance.LOG.warn("the broker refused the subscription to {}: this appliance will not answer a control "
                    + "room's announce (only its status heartbeat tells it); let appliances read it in the broker's "
                    + "ACL (docs/mosquitto.acl)",
                    Topics.ANNOUNCE);
        }
    }

    /** A control room asked every appliance for its status: published again within {@link #ANNOUNCE_SPREAD_MS}. */
    private void announced() {
        if (closing || !announceQueued.compareAndSet(false, true)) {
            return;
        }
        try {
            io.schedule(() -> {
                announceQueued.set(false);
                publishStatus();
            }, java.util.concurrent.ThreadLocalRandom.current().nextInt(ANNOUNCE_SPREAD_MS + 1), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closing
        }
    }

    /**
     * The client id is {@code rtbox-} and the user name (the appliance id when a TLS certificate
     * names the user). The site broker's appliance listener takes the user name as the client id
     * whatever is sent (use_username_as_clientid), and lets in only client ids that start with
     * {@code rtbox-} (clientid_prefixes, for every listener): so no control-room user can send an
     * appliance's effective id, and no appliance user another's (docs/mosquitto.conf). The
     * embedded broker takes this id or the bare user name, and no other (rtbox.broker's Access).
     */
    private String clientId() {
        String user = config.username();
        return CLIENT_ID_PREFIX + (user == null || user.isBlank() ? appliance : user.trim());
    }

    /**
     * After a connection loss: the client is made again with the messages Paho keeps to publish
     * again removed from its store. Paho would publish them first at the reconnect, before the
     * outbox drains, and a message the broker refuses (it drops the connection at it) would cut
     * every connection from then on, never reaching the outbox's count of refusals. Nothing is
     * lost: the outbox holds every message until its acknowledgement, and the status is
     * published at each connection.
     */
    private void forgetPahoSends() {
        try {
            client.close(true);
        } catch (MqttException | RuntimeException ignored) {
            // closed enough
        }
        MqttDefaultFilePersistence store = new MqttDefaultFilePersistence(persistenceDir);
        try {
            store.open(clientId(), clientUri);
            for (java.util.Enumeration<String> keys = store.keys(); keys.hasMoreElements();) {
                String k = keys.nextElement();
                if (k.startsWith("s-") || k.startsWith("sc-")) {
                    store.remove(k);
                }
            }
        } catch (org.eclipse.paho.client.mqttv3.MqttPersistenceException e) {
            Appliance.LOG.warn("cannot empty Paho's store of messages to publish again: {}", e.toString());
        } finally {
            try {
                store.close();
            } catch (org.eclipse.paho.client.mqttv3.MqttPersistenceException ignored) {
                // nothing held
            }
        }
        try {
            client = newClient();
        } catch (MqttException e) {
            Appliance.LOG.warn("cannot create the MQTT client again: {}", Connection.describe(e));
        }
    }

    /** The URI the current client was made with: Paho's store is kept per client id and URI. */
    private String clientUri;

    /** A client of our own: its callbacks are tagged with it, so a replaced client's late callback is ignored. */
    private MqttAsyncClient newClient() throws MqttException {
        clientUri = options.getServerURIs()[0];
        MqttAsyncClient c = new MqttAsyncClient(clientUri, clientId(),
                new MqttDefaultFilePersistence(persistenceDir));
        c.setCallback(new MqttCallbackExtended() {
            @Override
            public void connectComplete(boolean reconnect, String serverURI) {
                // connect() does the work once its token completes.
            }

            @Override
            public void connectionLost(Throwable cause) {
                if (!closing) {
                    io.execute(() -> {
                        if (client == c) {
                            connected = false;
                            int again = 0;
                            try {
                                again = outbox.redeliver();
                            } catch (IOException e) {
                                Appliance.LOG.warn("outbox: cannot queue the last acknowledged messages again: {}",
                                        String.valueOf(e));
                            }
                            Appliance.LOG.warn("connection lost: {}; reconnecting{}", cause,
                                    again == 0 ? "" : "; the " + again + " messages acknowledged in the last "
                                            + Outbox.KEEP_DELIVERED_MS / 1000 + " s go again, in case the broker"
                                            + " died before it saved them");
                            forgetPahoSends();
                            connect();
                        }
                    });
                }
            }

            @Override
            public void messageArrived(String topic, MqttMessage message) {
                if (closing) {
                    return;
                }
                if (Topics.ANNOUNCE.equals(topic)) {
                    announced();
                    return;
                }
                byte[] payload = message.getPayload();
                long shrunk = OversizedPublish.originalSize(payload);
                if (shrunk >= 0) {
                    sink.oversized(topic, (int) Math.min(Integer.MAX_VALUE, shrunk), OversizedPublish.head(payload),
                            message.isRetained());
                } else if (payload.length > config.maxCommandBytes()) {
                    sink.oversized(topic, payload.length, java.util.Arrays.copyOf(payload,
                            Math.min(payload.length, HEAD_BYTES)), message.isRetained());
                } else {
                    sink.command(topic, payload, message.isRetained());
                }
            }

            @Override
            public void deliveryComplete(IMqttDeliveryToken token) {
                // drain() waits for each acknowledgement itself.
            }
        });
        return c;
    }

    /** Publishes the outbox oldest first, one message acknowledged at a time. */
    private void drain() {
        while (connected && !Thread.currentThread().isInterrupted()) {
            Outbox.Entry e;
            try {
                e = outbox.first();
            } catch (IOException ex) {
                Appliance.LOG.warn("outbox: {}; setting it aside", ex.getMessage());
                try {
                    outbox.quarantine(outbox.ids().get(0));
                } catch (IOException | IndexOutOfBoundsException ex2) {
                    return;
                }
                continue;
            }
            if (e == null) {
                return;
            }
            long t0 = System.nanoTime();
            try {
                client.publish(e.topic(), e.payload(), QOS, false).waitForCompletion(30_000);
            } catch (MqttException ex) {
                // Lost connection: connectionLost reconnects and drains again. A timeout: try again soon.
                if (client.isConnected()) {
                    io.schedule(this::drain, 1, TimeUnit.SECONDS);
                } else if (ex.getReasonCode() == MqttException.REASON_CODE_CONNECTION_LOST) {
                    // Sent, and the connection dropped under it (not a client already cut off: 32104,
                    // nor a silent network: 32000).
                    refusedAtPublish(e, System.nanoTime() - t0);
                }
                return;
            }
            refusals = 0;
            try {
                outbox.delivered(e.id());
            } catch (IOException ex) {
                Appliance.LOG.warn("outbox: cannot remove a delivered message: {}", ex.getMessage());
                return;
            }
        }
    }

    /** The connection dropped this many times in a row at once at the publish of {@link #refusedId}. */
    private int refusals;
    private long refusedId = -1;
    /** Drops in a row at one message's publish that make it refused, not bad luck. */
    static final int REFUSALS = 3;
    /** A drop this soon after the publish is the broker's answer to it (a network fault takes the keep-alive). */
    static final long REFUSAL_NS = 5_000_000_000L;

    /**
     * The connection dropped while {@code e} was being published. A broker that refuses a
     * message drops the connection at once, at every try: after {@link #REFUSALS} such drops in
     * a row the message goes to the dead-letter folder, and what is queued behind it is sent
     * (before, it was tried about three times a second for good, and nothing behind it went
     * out). Paho does not publish it again by itself: its store is emptied at each loss
     * ({@link #forgetPahoSends}).
     */
    private void refusedAtPublish(Outbox.Entry e, long elapsedNs) {
        if (elapsedNs > REFUSAL_NS) {
            refusals = 0;
            return;
        }
        refusals = e.id() == refusedId ? refusals + 1 : 1;
        refusedId = e.id();
        if (refusals < REFUSALS) {
            return;
        }
        refusals = 0;
        try {
            outbox.deadLetter(e.id(), "(topic " + Dispatcher.cut(e.topic(), 100) + ", " + e.payload().length
                    + " bytes): the broker dropped the connection at its publish " + REFUSALS + " times in a row");
            statusChanged();
        } catch (IOException ex) {
            Appliance.LOG.warn("outbox: cannot move a message the broker refuses to the dead-letter folder: {}",
                    ex.toString());
        }
    }

    private void publishStatus() {
        if (!connected) {
            return;
        }
        try {
            client.publish(Topics.status(appliance), status.apply(Status.ONLINE), QOS, true);
        } catch (MqttException e) {
            Appliance.LOG.warn("cannot publish the status: {}", Connection.describe(e));
        }
    }

    private void closeClient() {
        try {
            if (client.isConnected()) {
                drain();
                client.publish(Topics.status(appliance), status.apply(Status.OFFLINE), QOS, true).waitForCompletion(5000);
                client.disconnect(5000).waitForCompletion(6000);
                try {
                    outbox.forgetDelivered();
                } catch (IOException e) {
                    Appliance.LOG.warn("outbox: cannot remove a delivered message: {}", e.getMessage());
                }
            }
        } catch (MqttException e) {
            try {
                client.disconnectForcibly(0, 1000, false);
            } catch (MqttException ignored) {
                // already gone
            }
        }
        connected = false;
        try {
            client.close(true);
        } catch (MqttException e) {
            Appliance.LOG.warn("closing the client: {}", Connection.describe(e));
        }
    }
}
