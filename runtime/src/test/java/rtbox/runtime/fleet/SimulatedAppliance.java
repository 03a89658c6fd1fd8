package rtbox.runtime.fleet;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.eclipse.paho.client.mqttv3.IMqttActionListener;
import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.IMqttToken;
import org.eclipse.paho.client.mqttv3.MqttAsyncClient;
import org.eclipse.paho.client.mqttv3.MqttCallback;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;

import com.google.gson.JsonObject;

import rtbox.mqtt.protocol.Codec;
import rtbox.mqtt.protocol.Command;
import rtbox.mqtt.protocol.PlanCell;
import rtbox.mqtt.protocol.Progress;
import rtbox.mqtt.protocol.ProtocolException;
import rtbox.mqtt.protocol.Reply;
import rtbox.mqtt.protocol.Status;
import rtbox.mqtt.protocol.Topics;

/**
 * One simulated appliance on the real protocol: Eclipse Paho's MQTT 3.1.1 client as the
 * appliance has it (client id = user name = appliance id, a persistent session, the offline
 * status as retained last will, its own reconnect over the broker list), messages written
 * and checked by the shared codec (rtbox.mqtt.protocol), and the appliance's outbox
 * semantics: every reply, progress, cell and result is queued, published at QoS 1 one at a
 * time oldest first, and removed only when the broker acknowledged it; after a lost
 * connection it is sent again. What was acknowledged is kept ({@link #acknowledged()}),
 * so a test can check that every one of them was stored.
 *
 * <p>It answers {@code status} and {@code plan} (a plan runs {@code cells} cells, one every
 * {@code cellMillis}, numbered as the appliance numbers them: progress 2i+1, cell 2i+2,
 * result 2n+1; the cell and result payloads are a real appliance's, from
 * {@link RecordedPayloads}); any other verb is answered 404. Its status is published at each
 * connection, every heartbeat and on the control room's announce.
 *
 * <p>Not thread-safe by itself: every action runs on the fleet's scheduler, which a
 * {@code synchronized} on this object serialises per appliance.
 */
public final class SimulatedAppliance {
    /** A (appliance, run, sequence) key, as the control room's store is unique on it. */
    public record Key(String appliance, String run, long sequence) {
        /** What the control room stored, one row per message, as {@link #parse} reads it. */
        public static final String STORED_SQL = "SELECT appliance || ' ' || run_id || ' ' || seq FROM message"
                + " WHERE type IN ('cell', 'result')";

        /** The keys of {@link #STORED_SQL}'s rows ("appliance run sequence", one a line). */
        public static Set<Key> parse(String rows) {
            Set<Key> keys = new java.util.HashSet<>();
            for (String line : rows.split("\n")) {
                if (!line.isBlank()) {
                    String[] f = line.split(" ");
                    keys.add(new Key(f[0], f[1], Long.parseLong(f[2])));
                }
            }
            return keys;
        }
    }

    private record Out(String topic, byte[] payload, Key key) {
    }

    final String id;
    private final String password;
    private final String[] brokers;
    private final ScheduledExecutorService scheduler;
    private final RecordedPayloads payloads;
    private final int heartbeatSeconds;
    private final Instant since = Instant.now();
    private final Deque<Out> outbox = new ArrayDeque<>();
    private final Set<Key> queued = ConcurrentHashMap.newKeySet();
    private final Set<Key> acknowledged = ConcurrentHashMap.newKeySet();
    private final AtomicLong publishes = new AtomicLong();
    private final AtomicLong connectionsLost = new AtomicLong();
    /** When each cell and result was first published (epoch ms), for the publish-to-commit latency. */
    private final java.util.Map<Key, Long> firstPublished = new ConcurrentHashMap<>();
    private MqttAsyncClient client;
    private boolean inFlight;
    private volatile boolean connected;
    private volatile boolean stopped;
    private long backoffMs = 250;
    /** Why the last connection attempt failed or the last connection was lost. */
    private volatile String lastError;
    private String run;
    private int runCounter;
    /** Set by a test: a plan command is refused 409 while one runs, as on the appliance. */
    private boolean busy;

    SimulatedAppliance(String id, String password, String[] brokers, ScheduledExecutorService scheduler,
            RecordedPayloads payloads, int heartbeatSeconds) {
        this.id = id;
        this.password = password;
        this.brokers = brokers.clone();
        this.scheduler = scheduler;
        this.payloads = payloads;
        this.heartbeatSeconds = heartbeatSeconds;
    }

    public String id() {
        return id;
    }

    /** Every (appliance, run, sequence) of a cell or result the broker acknowledged. */
    public Set<Key> acknowledged() {
        return Collections.unmodifiableSet(acknowledged);
    }

    /** Cells and results made, acknowledged or not yet. */
    public Set<Key> queued() {
        return Collections.unmodifiableSet(queued);
    }

    public synchronized int outboxSize() {
        return outbox.size();
    }

    public boolean connected() {
        return connected;
    }

    /** Why the last connection attempt failed or the last connection was lost (null: never). */
    public String lastError() {
        return lastError;
    }

    /** True after {@link #crash()} or a stop: it sends nothing more (what its outbox held stays there). */
    public boolean stopped() {
        return stopped;
    }

    public boolean busy() {
        synchronized (this) {
            return busy;
        }
    }

    /** When each cell and result was first published, epoch ms (bench/fleet's latency starts there). */
    public java.util.Map<Key, Long> firstPublished() {
        return Collections.unmodifiableMap(firstPublished);
    }

    /** Connections lost or attempts failed (each is followed by a new attempt). */
    public long connectionsLost() {
        return connectionsLost.get();
    }

    /** Publishes made, repeats after a lost connection included. */
    public long publishes() {
        return publishes.get();
    }

    void start() {
        scheduler.execute(this::connect);
        if (heartbeatSeconds > 0) {
            long first = java.util.concurrent.ThreadLocalRandom.current().nextLong(heartbeatSeconds * 1000L);
            scheduler.scheduleWithFixedDelay(this::publishStatus, first, heartbeatSeconds * 1000L, TimeUnit.MILLISECONDS);
        }
    }

    private synchronized void connect() {
        if (stopped || connected) {
            return;
        }
        try {
            if (client == null) {
                // As the appliance's Link: the site broker admits only rtbox-* client ids.
                client = new MqttAsyncClient(brokers[0], "rtbox-" + id, new MemoryPersistence());
                client.setManualAcks(false);
                client.setCallback(callback(client));
            }
            MqttConnectOptions o = new MqttConnectOptions();
            o.setServerURIs(brokers);
            o.setCleanSession(false);
            o.setAutomaticReconnect(false);
            o.setKeepAliveInterval(10);
            o.setConnectionTimeout(10);
            o.setMaxInflight(10);
            o.setMqttVersion(MqttConnectOptions.MQTT_VERSION_3_1_1);
            o.setUserName(id);
            o.setPassword(password.toCharArray());
            o.setWill(Topics.status(id), Codec.encode(Status.offline(id, Instant.now(), since)), 1, true);
            MqttAsyncClient c = client;
            // Paho's connect may never complete when a node takes the connection and never answers
            // (a stalled node): given up on after the timeout, and tried again with a new client.
            scheduler.schedule(() -> connectTimedOut(c), 12, TimeUnit.SECONDS);
            c.connect(o, null, new IMqttActionListener() {
                @Override
                public void onSuccess(IMqttToken t) {
                    scheduler.execute(() -> connected(c));
                }

                @Override
                public void onFailure(IMqttToken t, Throwable e) {
                    lastError = "connect: " + e;
                    scheduler.execute(() -> retry(c));
                }
            });
        } catch (MqttException e) {
            lastError = "connect: " + e;
            retry(client);
        }
    }

    private synchronized void connectTimedOut(MqttAsyncClient c) {
        if (c == client && !connected && !stopped) {
            lastError = "connect: no answer in 12 s from " + String.join(", ", brokers);
            retry(c);
        }
    }

    private synchronized void connected(MqttAsyncClient c) {
        if (c != client) {
            return;
        }
        try {
            c.subscribe(new String[] {Topics.commands(id), Topics.ANNOUNCE}, new int[] {1, 0});
        } catch (MqttException e) {
            lost(c);
            return;
        }
        connected = true;
        backoffMs = 250;
        inFlight = false;
        publishStatus();
        drain();
    }

    private synchronized void retry(MqttAsyncClient c) {
        if (c != client || stopped) {
            return;
        }
        connectionsLost.incrementAndGet();
        connected = false;
        // A connect that failed or timed out can leave Paho's client "connecting" for good: a new one (as Link does).
        if (c != null) {
            try {
                c.close(true);
            } catch (MqttException ignored) {
                // closed enough
            }
        }
        client = null;
        // The next attempt starts at the next node: a node that takes connections and does not
        // answer would otherwise be the first tried every time.
        String first = brokers[0];
        System.arraycopy(brokers, 1, brokers, 0, brokers.length - 1);
        brokers[brokers.length - 1] = first;
        scheduler.schedule(this::connect, backoffMs, TimeUnit.MILLISECONDS);
        backoffMs = Math.min(backoffMs * 2, 4000);
    }

    private synchronized void lost(MqttAsyncClient c) {
        if (c != client) {
            return;
        }
        connected = false;
        inFlight = false;
        try {
            c.disconnectForcibly(0, 100, false);
        } catch (MqttException ignored) {
            // gone already
        }
        retry(c);
    }

    private MqttCallback callback(MqttAsyncClient c) {
        return new MqttCallback() {
            @Override
            public void connectionLost(Throwable cause) {
                lastError = "lost: " + cause;
                scheduler.execute(() -> lost(c));
            }

            @Override
            public void messageArrived(String topic, MqttMessage message) {
                byte[] payload = message.getPayload();
                if (Topics.ANNOUNCE.equals(topic)) {
                    scheduler.schedule(SimulatedAppliance.this::publishStatus,
                            java.util.concurrent.ThreadLocalRandom.current().nextInt(1001), TimeUnit.MILLISECONDS);
                } else {
                    scheduler.execute(() -> command(topic, payload));
                }
            }

            @Override
            public void deliveryComplete(IMqttDeliveryToken token) {
            }
        };
    }

    synchronized void publishStatus() {
        if (!connected) {
            return;
        }
        Status s = new Status(id, Instant.now(), Status.ONLINE, since, busy, busy ? run : null, null,
                busy ? "fleet" : null, null, null, null, List.of("timer"), List.of(), (long) outbox.size(), 0L,
                "rtbox simulated (fleet simulator)");
        try {
            client.publish(Topics.status(id), Codec.encode(s), 1, true);
        } catch (MqttException e) {
            // the connection is going: its loss reconnects
        }
    }

    private synchronized void command(String topic, byte[] payload) {
        Command c;
        try {
            c = Codec.decodeCommand(topic, payload);
        } catch (ProtocolException e) {
            enqueue(new Reply(id, Instant.now(), null, null, Reply.BAD, e.getMessage(), null), null);
            return;
        }
        if (c.expiredAt(Instant.now())) {
            reply(c, Reply.BAD, "expired at " + c.expires(), null);
            return;
        }
        switch (c.verb()) {
            case "status" -> reply(c, Reply.OK, "online", Codec.toJson(new Status(id, Instant.now(), Status.ONLINE,
                    since, busy, null, null, null, null, null, null, List.of("timer"), List.of(), (long) outbox.size(),
                    0L)));
            case "plan" -> plan(c);
            default -> reply(c, Reply.NOT_FOUND, "the fleet simulator does not do '" + c.verb() + "'", null);
        }
    }

    private void reply(Command c, int code, String message, JsonObject body) {
        enqueue(new Reply(id, Instant.now(), c.requestId(), c.verb(), code, message, body), null);
    }

    /** A plan: its cells ({@code body.cells}, default 2) one every {@code body.cell_ms} (default 5000). */
    private void plan(Command c) {
        if (busy) {
            reply(c, Reply.CONFLICT, "a plan is under way: run " + run, null);
            return;
        }
        int cells = c.body().has("cells") ? c.body().get("cells").getAsInt() : 2;
        long cellMs = c.body().has("cell_ms") ? c.body().get("cell_ms").getAsLong() : 5000;
        startPlan(cells, cellMs);
        JsonObject body = new JsonObject();
        body.addProperty("run", run);
        body.addProperty("plan", "fleet");
        body.addProperty("cells", cells);
        body.addProperty("progress", Topics.progress(id, run));
        body.addProperty("cell", Topics.cell(id, run));
        body.addProperty("result", Topics.result(id, run));
        body.addProperty("result_sequence", 2 * cells + 1);
        reply(c, Reply.OK, "plan fleet started as run " + run, body);
    }

    /** Starts a plan as the plan command does; false when one is under way. */
    public synchronized boolean startPlan(int cells, long cellMs) {
        if (busy || stopped) {
            return false;
        }
        busy = true;
        run = String.format("sim-%s-%04d", Long.toString(since.toEpochMilli(), 36), ++runCounter);
        String r = run;
        for (int i = 0; i < cells; i++) {
            int cell = i;
            scheduler.schedule(() -> cell(r, cell, cells), cellMs * i, TimeUnit.MILLISECONDS);
        }
        scheduler.schedule(() -> result(r, cells), cellMs * cells, TimeUnit.MILLISECONDS);
        publishStatus();
        return true;
    }

    private synchronized void cell(String r, int i, int n) {
        if (stopped) {
            return;
        }
        Progress p = new Progress(id, Instant.now(), r, 2L * i + 1, null, 100L * i / n,
                new PlanCell("fleet", i + 1, n, "cell" + (i + 1)));
        enqueue(p, null);
        Key k = new Key(id, r, 2L * i + 2);
        enqueuePayload(Topics.cell(id, r), payloads.cell(id, r, 2L * i + 2, i + 1, n), k);
    }

    private synchronized void result(String r, int n) {
        if (stopped) {
            return;
        }
        Key k = new Key(id, r, 2L * n + 1);
        enqueuePayload(Topics.result(id, r), payloads.result(id, r, 2L * n + 1, n), k);
        busy = false;
        publishStatus();
    }

    private void enqueue(rtbox.mqtt.protocol.Message m, Key key) {
        enqueuePayload(Topics.of(m), Codec.encode(m), key);
    }

    /**
     * Publishes an arbitrary payload through the outbox (garbage, a spoofed topic): what a
     * broken or hostile appliance would send. Not counted among the cells and results.
     */
    public synchronized void sendRaw(String topic, byte[] payload) {
        enqueuePayload(topic, payload, null);
    }

    private void enqueuePayload(String topic, byte[] payload, Key key) {
        outbox.addLast(new Out(topic, payload, key));
        if (key != null) {
            queued.add(key);
        }
        drain();
    }

    /** One message in flight, oldest first, removed on the broker's acknowledgement. */
    private void drain() {
        if (!connected || inFlight || outbox.isEmpty()) {
            return;
        }
        Out o = outbox.peekFirst();
        MqttAsyncClient c = client;
        inFlight = true;
        try {
            publishes.incrementAndGet();
            if (o.key() != null) {
                firstPublished.putIfAbsent(o.key(), System.currentTimeMillis());
            }
            c.publish(o.topic(), o.payload(), 1, false, null, new IMqttActionListener() {
                @Override
                public void onSuccess(IMqttToken t) {
                    scheduler.execute(() -> acked(c, o));
                }

                @Override
                public void onFailure(IMqttToken t, Throwable e) {
                    // Not acknowledged: stays first in the outbox, sent again after the reconnect.
                    scheduler.execute(() -> lost(c));
                }
            });
        } catch (MqttException e) {
            inFlight = false;
            if (e.getReasonCode() == MqttException.REASON_CODE_MAX_INFLIGHT) {
                scheduler.schedule(this::drainLater, 50, TimeUnit.MILLISECONDS);
            } else {
                lost(c);
            }
        }
    }

    private synchronized void drainLater() {
        drain();
    }

    private synchronized void acked(MqttAsyncClient c, Out o) {
        if (c != client) {
            return;
        }
        inFlight = false;
        if (outbox.peekFirst() == o) {
            outbox.removeFirst();
            if (o.key() != null) {
                acknowledged.add(o.key());
            }
        }
        drain();
    }

    /**
     * Gone as a crashed appliance goes: the connection cut without DISCONNECT (the broker
     * sends the last will), nothing sent any more.
     */
    public synchronized void crash() {
        stopped = true;
        connected = false;
        try {
            client.disconnectForcibly(0, 100, false);
            client.close(true);
        } catch (MqttException ignored) {
            // gone
        }
    }

    /** A clean stop: the offline status, then DISCONNECT. */
    synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        try {
            if (connected) {
                client.publish(Topics.status(id), Codec.encode(Status.offline(id, Instant.now(), since)), 1, true)
                        .waitForCompletion(2000);
                client.disconnect(2000).waitForCompletion(3000);
            }
        } catch (MqttException ignored) {
            // closing anyway
        }
        try {
            client.close(true);
        } catch (MqttException ignored) {
            // closed enough
        }
        connected = false;
    }
}
