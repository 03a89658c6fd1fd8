package rtbox.control.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

/**
 * Takes every message from {@code rtbox/v1/up/#}: decodes it, stores it once, tells the
 * live listeners. A message that cannot be stored as it is (see {@link Rejected}) is
 * counted by reason, logged with the reason and not stored; the ingest goes on with the
 * next. A database error is not swallowed: the message is not acknowledged to the broker
 * (MqttLink tries it again; the broker delivers it again after a reconnect).
 */
final class Ingest {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.control.ingest");
    private final Decoder decoder;
    private final IngestStore store;
    private final Events events;
    private final BiConsumer<Inbound, IngestStore.Outcome> after;
    private final AtomicLong stored = new AtomicLong(), duplicates = new AtomicLong();
    /** Stored, by kind: with shared ingest, what this instance took of the fleet's cells and results. */
    private final Map<Inbound.Kind, java.util.concurrent.atomic.LongAdder> storedByType =
            new java.util.EnumMap<>(Inbound.Kind.class);
    private final Map<String, AtomicLong> rejected = new LinkedHashMap<>();
    private final Deque<JsonObject> lastRejected = new ArrayDeque<>();
    private final FloodGuard flood;
    private final ApplianceRefusals byAppliance = new ApplianceRefusals();
    private final IngestTiming timing = new IngestTiming();

    Ingest(Decoder decoder, IngestStore store, Events events, BiConsumer<Inbound, IngestStore.Outcome> after) {
        this(decoder, store, events, after, new FloodGuard(0));
    }

    Ingest(Decoder decoder, IngestStore store, Events events, BiConsumer<Inbound, IngestStore.Outcome> after,
            FloodGuard flood) {
        this.flood = flood;
        this.decoder = decoder;
        this.store = store;
        this.events = events;
        this.after = after;
        for (String r : Rejected.REASONS) {
            rejected.put(r, new AtomicLong());
        }
        for (Inbound.Kind k : Inbound.Kind.values()) {
            storedByType.put(k, new java.util.concurrent.atomic.LongAdder());
        }
    }

    /**
     * A message as it arrived, decoded (or rejected, with the reason counted and logged):
     * what {@link #store} takes. Decoding needs no database, so the MQTT client's thread
     * does it while the writer commits the batch before.
     */
    record Arrival(String topic, Inbound message) {
    }

    /** Decodes one message; a rejection is counted and logged here, and has no message. */
    Arrival decode(String topic, byte[] payload) {
        Inbound m;
        try {
            m = decoder.decode(topic, payload);
        } catch (Rejected r) {
            reject(topic, r.reason, r.getMessage());
            return new Arrival(topic, null);
        }
        if (!flood.take(m.appliance(), System.nanoTime())) {
            boolean name = flood.nameNow(m.appliance());
            if (name) {
                LOG.warn("appliance {} is flooding: past its budget of {} messages/s (floodMessagesPerSecond), {} "
                        + "messages over it so far; its status and progress are refused meanwhile, its cells and "
                        + "results stored",
                        m.appliance(), flood.perSecond(), flood.overBudget(m.appliance()));
            }
            if (m.kind() == Inbound.Kind.STATUS || m.kind() == Inbound.Kind.PROGRESS) {
                // Named once a minute above, not a log line per message of a flood.
                count("rate-limited", topic, "appliance " + m.appliance() + " past its budget of " + flood.perSecond()
                        + " messages/s: " + m.kind().type() + " not stored", name);
                return new Arrival(topic, null);
            }
        }
        return new Arrival(topic, m);
    }

    /** Handles one message; throws only when the database failed (the message must come again). */
    void accept(String topic, byte[] payload) throws SQLException {
        Arrival a = decode(topic, payload);
        if (a.message() != null) {
            stored(a, store.store(a.message(), System.currentTimeMillis()));
        }
    }

    /**
     * Stores a batch of arrivals in one transaction (one commit, not one per message: on
     * PostgreSQL each commit waits for its WAL flush). When the batch fails, each message
     * is tried again in its own transaction, so that one message the database refuses
     * holds back only itself. Returns the arrivals that are not in the database: they
     * must not be acknowledged. Rejected arrivals count as handled.
     */
    List<Arrival> store(List<Arrival> batch) {
        List<Inbound> messages = new ArrayList<>(batch.size());
        for (Arrival a : batch) {
            if (a.message() != null) {
                messages.add(a.message());
            }
        }
        if (messages.isEmpty()) {
            return List.of();
        }
        long now = System.currentTimeMillis();
        try {
            List<IngestStore.Outcome> outcomes = store.storeAll(messages, now);
            for (int i = 0, k = 0; i < batch.size(); i++) {
                if (batch.get(i).message() != null) {
                    stored(batch.get(i), outcomes.get(k++));
                }
            }
            return List.of();
        } catch (SQLException | RuntimeException e) {
            // one by one below: which of them did the database not take, and why
        }
        List<Arrival> failed = new ArrayList<>();
        for (Arrival a : batch) {
            if (a.message() == null) {
                continue;
            }
            try {
                stored(a, store.store(a.message(), now));
            } catch (SQLException e) {
                if (refusedForItsContent(e)) {
                    // Sent again it would be refused again: counted, logged, not stored, and the ingest goes on.
                    reject(a.topic(), "bad-message", "the database refused it: " + Db.rootMessage(e));
                } else {
                    LOG.warn("could not store a message on {} ({}): it will be tried again", a.topic(),
                            Db.rootMessage(e));
                    failed.add(a);
                }
            } catch (RuntimeException e) {
                LOG.warn("could not store a message on {} ({}): it will be tried again", a.topic(), String.valueOf(e));
                failed.add(a);
            }
        }
        return failed;
    }

    /**
     * A data exception (SQLSTATE class 22: a value too long, out of range, not valid for its
     * type) is about the message and not the database's state: trying it again cannot help.
     * Everything else (a lost connection, a full disk, a deadlock) may pass.
     */
    static boolean refusedForItsContent(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null && s.getSQLState().startsWith("22")) {
                return true;
            }
        }
        return false;
    }

    private void stored(Arrival a, IngestStore.Outcome o) {
        Inbound m = a.message();
        if (!o.stored()) {
            duplicates.incrementAndGet();
            return;
        }
        stored.incrementAndGet();
        storedByType.get(m.kind()).increment();
        events.publish(m);
        try {
            after.accept(m, o);
        } catch (RuntimeException e) {
            LOG.warn("after storing {}: {}", a.topic(), String.valueOf(e));
        }
    }

    private void reject(String topic, String reason, String detail) {
        count(reason, topic, detail, true);
    }

    /** Counts a message not stored; {@code show}: also logged and kept among the last rejected. */
    private void count(String reason, String topic, String detail, boolean show) {
        rejected.get(reason).incrementAndGet();
        if (!show) {
            return;
        }
        String shownTopic = topic.length() > 200 ? topic.substring(0, 200) + "..." : topic;
        String appliance = ApplianceRefusals.applianceOf(topic);
        if (appliance == null) {
            LOG.warn("rejected a message on {}: {}: {}", shownTopic, reason, detail);
        } else {
            long unlogged = byAppliance.refused(appliance, reason, detail, System.currentTimeMillis());
            if (unlogged >= 0) {
                // One line per appliance and minute: the others are counted (GET /api/v1/ingest).
                LOG.warn("rejected a message of appliance {} on {}: {}: {} ({} more of its messages rejected since its"
                        + " last such line)", appliance, shownTopic, reason, detail, unlogged);
            }
        }
        JsonObject r = new JsonObject();
        r.addProperty("at", java.time.Instant.now().toString());
        r.addProperty("topic", shownTopic);
        r.addProperty("reason", reason);
        r.addProperty("detail", detail);
        synchronized (lastRejected) {
            lastRejected.addFirst(r);
            while (lastRejected.size() > 20) {
                lastRejected.removeLast();
            }
        }
        events.rejected(r);
    }

    /** Where the ingest's time goes (MqttLink records it). */
    IngestTiming timing() {
        return timing;
    }

    long stored() {
        return stored.get();
    }

    long duplicates() {
        return duplicates.get();
    }

    /** What was refused of {@code appliance}'s messages (null: nothing). */
    JsonObject refused(String appliance) {
        return byAppliance.of(appliance);
    }

    long rejected(String reason) {
        return rejected.get(reason).get();
    }

    /** Messages stored since start, by type ({@code status}, {@code cell}...), for /metrics. */
    Map<String, Long> storedByType() {
        Map<String, Long> out = new LinkedHashMap<>();
        storedByType.forEach((k, v) -> out.put(k.type(), v.sum()));
        return out;
    }

    /** Messages not stored since start, by reason ({@link Rejected#REASONS}), for /metrics. */
    Map<String, Long> rejectedByReason() {
        Map<String, Long> out = new LinkedHashMap<>();
        rejected.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    JsonObject health() {
        JsonObject o = new JsonObject();
        o.addProperty("stored", stored.get());
        o.addProperty("duplicates", duplicates.get());
        JsonObject byType = new JsonObject();
        storedByType.forEach((k, v) -> byType.addProperty(k.type(), v.sum()));
        o.add("stored_by_type", byType);
        JsonObject r = new JsonObject();
        rejected.forEach((k, v) -> r.addProperty(k, v.get()));
        o.add("rejected", r);
        JsonArray last = new JsonArray();
        synchronized (lastRejected) {
            lastRejected.forEach(last::add);
        }
        o.add("last_rejected", last);
        o.add("flooding", flood.flooding());
        o.add("refused_by_appliance", byAppliance.all());
        o.add("timing", timing.json());
        return o;
    }
}
