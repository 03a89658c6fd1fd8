package rtbox.control.internal;

import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

/**
 * Takes every message from {@code rtbox/v1/up/#}: decodes it, stores it once, tells the
 * live listeners. A message that cannot be stored as it is (see {@link Rejected}) is
 * counted by reason, logged with the reason and not stored; the ingest goes on with the
 * next. A database error is not swallowed: it goes back to the MQTT client, which then
 * does not acknowledge the message, so the broker delivers it again.
 */
final class Ingest {
    private static final String LOG = "rtbox control: ingest: ";
    private final Decoder decoder;
    private final IngestStore store;
    private final Events events;
    private final BiConsumer<Inbound, IngestStore.Outcome> after;
    private final AtomicLong stored = new AtomicLong(), duplicates = new AtomicLong();
    private final Map<String, AtomicLong> rejected = new LinkedHashMap<>();
    private final Deque<JsonObject> lastRejected = new ArrayDeque<>();

    Ingest(Decoder decoder, IngestStore store, Events events, BiConsumer<Inbound, IngestStore.Outcome> after) {
        this.decoder = decoder;
        this.store = store;
        this.events = events;
        this.after = after;
        for (String r : Rejected.REASONS) {
            rejected.put(r, new AtomicLong());
        }
    }

    /** Handles one message; throws only when the database failed (the message must come again). */
    void accept(String topic, byte[] payload) throws SQLException {
        Inbound m;
        try {
            m = decoder.decode(topic, payload);
        } catch (Rejected r) {
            reject(topic, r.reason, r.getMessage());
            return;
        }
        IngestStore.Outcome o = store.store(m, System.currentTimeMillis());
        if (!o.stored()) {
            duplicates.incrementAndGet();
            return;
        }
        stored.incrementAndGet();
        events.publish(m);
        try {
            after.accept(m, o);
        } catch (RuntimeException e) {
            System.err.println(LOG + "after storing " + topic + ": " + e);
        }
    }

    private void reject(String topic, String reason, String detail) {
        rejected.get(reason).incrementAndGet();
        String shownTopic = topic.length() > 200 ? topic.substring(0, 200) + "..." : topic;
        System.err.println(LOG + "rejected a message on " + shownTopic + ": " + reason + ": " + detail);
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

    long stored() {
        return stored.get();
    }

    long duplicates() {
        return duplicates.get();
    }

    long rejected(String reason) {
        return rejected.get(reason).get();
    }

    JsonObject health() {
        JsonObject o = new JsonObject();
        o.addProperty("stored", stored.get());
        o.addProperty("duplicates", duplicates.get());
        JsonObject r = new JsonObject();
        rejected.forEach((k, v) -> r.addProperty(k, v.get()));
        o.add("rejected", r);
        JsonArray last = new JsonArray();
        synchronized (lastRejected) {
            lastRejected.forEach(last::add);
        }
        o.add("last_rejected", last);
        return o;
    }
}
