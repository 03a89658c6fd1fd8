package rtbox.control.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;


import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttCallbackExtended;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;

import rtbox.mqtt.client.ClientOptions;
import rtbox.mqtt.client.Clients;
import rtbox.mqtt.protocol.Codec;
import rtbox.mqtt.protocol.Tls;
import rtbox.mqtt.protocol.Topics;

/**
 * The control room's MQTT session (Eclipse Paho, MQTT 3.1.1): subscribes to
 * {@code rtbox/v1/up/#} at QoS 1 with a persistent session (clean session off, a fixed
 * client id), so the broker keeps what comes while the control room is away. Reconnects
 * by itself.
 *
 * <p>Acknowledgements are manual, and a message is acknowledged only after the
 * transaction that holds it committed: Paho's thread decodes each message as it arrives
 * and queues it; one writer thread takes what has queued up (up to {@link #BATCH}
 * messages), stores it in one transaction ({@link Ingest#store}), and then acknowledges
 * each. Decoding overlaps the database's work, and a busy ingest commits once per batch
 * instead of once per message. A message the database did not take is not acknowledged
 * and is tried again until it is stored; after a reconnect the broker delivers the
 * unacknowledged ones again, and the writer then drops its older copies' acknowledgements
 * (a packet id of the old connection may name another message on the new one).
 *
 * <p>After each connection it broadcasts {@link Topics#ANNOUNCE}: every appliance answers
 * with its status, so the fleet is known without a retained message.
 */
final class MqttLink implements Commander.Publisher, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.control.mqtt");
    /** Most messages per transaction. */
    static final int BATCH = 64;
    /**
     * Payload bytes decoded and not yet committed and acknowledged, at most (Paho's thread
     * waits beyond). A decoded message holds its JSON tree, far larger than its bytes: a
     * 90 KB cell (4,690 histogram buckets) is 3.4 MB as Gson's tree, 38 times its size. At
     * 64 MiB the queue held about 745 cells, 2.5 GB decoded: the 1 GB heap ran out, the
     * shared session was dropped, and the broker sent every unacknowledged message again
     * (issue 12, docs/fleet.md). 8 MiB is about 90 such cells, 320 MB: room for a batch
     * being committed and the next one being decoded.
     */
    static final int QUEUED_BYTES = 8 << 20;
    /**
     * Messages a session has in flight (received, not yet acknowledged), at most: the shared
     * session's MQTT 5 receive maximum, so that the broker stops sending while the writer
     * catches up, and the messages wait at the broker instead of in this heap.
     */
    static final int IN_FLIGHT = 2 * BATCH;
    private final MqttClient client;
    private final MqttConnectOptions options;
    private final Ingest ingest;

    /** Acknowledges one message to the session it came on (once it is stored). */
    interface Ack {
        void ack();
    }

    /** A decoded message waiting for its commit, with its acknowledgement. */
    private record Pending(Ingest.Arrival arrival, Ack ack, int bytes, long queuedNs) {
    }

    /**
     * What this session subscribes to when the runs' cells and results come through a shared
     * subscription ({@link SharedIngest}): everything else that appliances send, which every
     * instance needs (status for the fleet page, replies, live progress).
     */
    static final String[] UNSHARED_TOPICS = {Decoder.UP + "+/status", Decoder.UP + "+/reply/#",
        Decoder.UP + "+/runs/+/progress", Decoder.UP + "+/live"};
    private final SharedIngest shared;

    private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final Semaphore queuedBytes = new Semaphore(QUEUED_BYTES);
    private final Connections connections = new Connections();
    private final java.util.concurrent.atomic.AtomicLong announced = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean closing;
    private final Thread writer;
    /** When the batch being stored arrived (its first, oldest message; System.nanoTime), or {@link #NONE}. */
    private volatile long storingSinceNs = NONE;
    private static final long NONE = Long.MIN_VALUE;

    /**
     * {@code sharedGroup}: empty, this instance takes every message ({@code rtbox/v1/up/#});
     * else the runs' cells and results come through the group's shared subscription, on an
     * MQTT 5 session of their own, and this one takes the rest.
     */
    MqttLink(String broker, String clientId, String user, String password, String trustStore, String sharedGroup,
            Ingest ingest, LiveRelay live) throws MqttException, IOException, GeneralSecurityException {
        this.ingest = ingest;
        // A cluster's nodes, tried in order at each (re)connection (docs/fleet.md).
        javax.net.SocketFactory tls = trustStore != null && !trustStore.isEmpty()
                ? ClientOptions.tls(Tls.context(trustStore, null, null, null)) : null;
        ClientOptions common = new ClientOptions(broker, user, password, tls, 30, 10);
        client = new MqttClient(common.firstUri(), clientId, new MemoryPersistence());
        options = common.v3();
        options.setCleanSession(false);
        options.setAutomaticReconnect(true);
        options.setMaxInflight(1000);
        options.setMqttVersion(MqttConnectOptions.MQTT_VERSION_3_1_1);
        boolean sharing = sharedGroup != null && !sharedGroup.isEmpty();
        String[] topics = sharing ? UNSHARED_TOPICS : new String[] {Decoder.UP + "#"};
        shared = sharing ? new SharedIngest(common, clientId + "-shared", sharedGroup,
                this::enqueue) : null;
        client.setManualAcks(true);
        client.setCallback(new MqttCallbackExtended() {
            @Override
            public void connectComplete(boolean reconnect, String serverURI) {
                // Off Paho's callback thread: a blocking subscribe there waits for its SUBACK
                // while the broker sends first what it kept for this session; past ten of them
                // Paho's receiver blocks on the full callback queue, never reads the SUBACK, and
                // nothing is acknowledged again (a restart after a kill with results queued).
                Thread t = new Thread(() -> {
                    try {
                        int[] qos = new int[topics.length];
                        java.util.Arrays.fill(qos, 1);
                        client.subscribe(topics, qos);
                        LOG.info("{} to {}", reconnect ? "reconnected" : "connected", serverURI);
                    } catch (MqttException e) {
                        LOG.warn("cannot subscribe to {}: {}", String.join(", ", topics), String.valueOf(e));
                    }
                    announce(clientId);
                }, "rtbox-control-subscribe");
                t.setDaemon(true);
                t.start();
            }

            @Override
            public void connectionLost(Throwable cause) {
                connections.lost();
                LOG.warn("connection lost ({}); reconnecting", String.valueOf(cause));
            }

            @Override
            public void messageArrived(String topic, MqttMessage message) throws Exception {
                long on = connections.current();
                int id = message.getId();
                int qos = message.getQos();
                if (live.offer(topic, message.getPayload())) {
                    // Live figures: relayed to the pages here, never stored (LiveRelay).
                    if (qos > 0) {
                        client.messageArrivedComplete(id, qos);
                    }
                    return;
                }
                enqueue(topic, message.getPayload(), () -> acknowledge(id, qos, on));
            }

            @Override
            public void deliveryComplete(IMqttDeliveryToken token) {
            }
        });
        writer = new Thread(this::write, "rtbox-control-ingest");
        writer.setDaemon(true);
        writer.start();
    }

    /**
     * Asks every appliance for its status ({@link Topics#ANNOUNCE}), after each connection:
     * a clustered broker may hold an appliance's retained status on another node only, and
     * this session may have missed statuses while it was away (docs/fleet.md). Off Paho's
     * callback thread, which must stay free to complete the publish.
     */
    private void announce(String clientId) {
        Thread t = new Thread(() -> {
            try {
                client.publish(Topics.ANNOUNCE, Codec.announce(java.time.Instant.now(), clientId), 1, false);
                announced.incrementAndGet();
            } catch (MqttException e) {
                LOG.warn("cannot announce ({}): the fleet is learnt from the appliances' status heartbeats",
                        String.valueOf(e));
            }
        }, "rtbox-control-announce");
        t.setDaemon(true);
        t.start();
    }

    /** Announces sent, since the start. */
    long announced() {
        return announced.get();
    }

    /**
     * The ingest's lag (/metrics): how long the oldest message that arrived and is not stored
     * yet has waited, in the batch being stored or else at the queue's head; 0 when none waits.
     * A database that stalls shows as a lag that grows.
     */
    long lagNs() {
        long since = storingSinceNs;
        if (since == NONE) {
            Pending head = queue.peek();
            if (head == null) {
                return 0;
            }
            since = head.queuedNs();
        }
        return Math.max(0, System.nanoTime() - since);
    }

    /** Messages decoded and waiting for the writer (/metrics). */
    int queued() {
        return queue.size();
    }

    /** Decodes on the session's thread and queues for the writer (waiting while too much is queued). */
    private void enqueue(String topic, byte[] payload, Ack ack) throws InterruptedException {
        IngestTiming timing = ingest.timing();
        long t0 = System.nanoTime();
        int bytes = Math.min(payload.length, QUEUED_BYTES);
        queuedBytes.acquire(bytes);
        long t1 = System.nanoTime();
        Ingest.Arrival a = ingest.decode(topic, payload);
        long t2 = System.nanoTime();
        timing.callbackWaitNs.add(t1 - t0);
        timing.callbackWaitMaxNs.accumulate(t1 - t0);
        timing.decodeNs.add(t2 - t1);
        queue.put(new Pending(a, ack, bytes, t2));
    }

    /** The writer thread: batches from the queue, stored, then acknowledged. */
    private void write() {
        List<Pending> batch = new ArrayList<>(BATCH);
        List<Ingest.Arrival> arrivals = new ArrayList<>(BATCH);
        IngestTiming timing = ingest.timing();
        long nextLog = System.nanoTime() + IngestTiming.LOG_EVERY_NS;
        while (!closing) {
            try {
                if (System.nanoTime() - nextLog > 0) {
                    nextLog = System.nanoTime() + IngestTiming.LOG_EVERY_NS;
                    String line = timing.interval();
                    if (line != null) {
                        LOG.info(line);
                    }
                }
                Pending first = queue.poll(200, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                storingSinceNs = first.queuedNs();
                batch.add(first);
                queue.drainTo(batch, BATCH - 1);
                long t0 = System.nanoTime();
                for (Pending p : batch) {
                    arrivals.add(p.arrival());
                    timing.queueWaitNs.add(t0 - p.queuedNs());
                    timing.queueWaitMaxNs.accumulate(t0 - p.queuedNs());
                }
                List<Ingest.Arrival> failed = ingest.store(arrivals);
                long t1 = System.nanoTime();
                timing.storeNs.add(t1 - t0);
                timing.storeMaxNs.accumulate(t1 - t0);
                for (long wait = 500; !failed.isEmpty() && !closing; wait = Math.min(wait * 2, 30_000)) {
                    // Not in the database: not acknowledged; tried again (the database may be back).
                    Thread.sleep(wait);
                    failed = ingest.store(failed);
                }
                Set<Ingest.Arrival> notStored = Collections.newSetFromMap(new IdentityHashMap<>());
                notStored.addAll(failed);
                for (Pending p : batch) {
                    if (!closing && !notStored.contains(p.arrival())) {
                        p.ack().ack();
                    }
                    queuedBytes.release(p.bytes());
                }
                timing.ackNs.add(System.nanoTime() - t1);
                timing.messages.add(batch.size());
                timing.batches.increment();
            } catch (InterruptedException e) {
                break;
            } catch (RuntimeException e) {
                // Not acknowledged: the broker delivers these again after the next reconnect.
                LOG.warn("ingest writer: {}", String.valueOf(e));
                batch.forEach(p -> queuedBytes.release(p.bytes()));
            } finally {
                storingSinceNs = NONE;
                batch.clear();
                arrivals.clear();
            }
        }
    }

    private void acknowledge(int id, int qos, long on) {
        Exception[] why = new Exception[1];
        if (!connections.acknowledge(on, client::isConnected, () -> client.messageArrivedComplete(id, qos), why)
                && why[0] != null) {
            LOG.warn("cannot acknowledge message {} ({}): it will come again", id, why[0]);
        }
    }

    /** Connects (the first time; later reconnects are Paho's), trying until it works or {@code timeoutMs}. */
    void connect(long timeoutMs) throws MqttException, IOException, InterruptedException {
        long end = System.currentTimeMillis() + timeoutMs;
        while (true) {
            try {
                client.connect(options);
                break;
            } catch (MqttException e) {
                if (System.currentTimeMillis() > end || e.getReasonCode() == MqttException.REASON_CODE_FAILED_AUTHENTICATION
                        || e.getReasonCode() == MqttException.REASON_CODE_NOT_AUTHORIZED) {
                    throw e;
                }
                Thread.sleep(500);
            }
        }
        if (shared != null) {
            shared.connect(Math.max(1000, end - System.currentTimeMillis()));
        }
    }

    boolean connected() {
        return client.isConnected() && (shared == null || shared.connected());
    }

    @Override
    public void publish(String topic, byte[] payload) throws MqttException {
        client.publish(topic, payload, 1, false);
    }

    @Override
    public void close() {
        closing = true;
        if (shared != null) {
            shared.close();
        }
        writer.interrupt();
        try {
            writer.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Clients.close(client::isConnected, () -> client.disconnect(5000), () -> client.disconnectForcibly(1000, 1000),
                () -> client.close(true), problem -> LOG.warn("close: {}", problem));
    }

    static String readSecret(String file) throws IOException {
        return file == null || file.isEmpty() ? null : Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
    }
}
