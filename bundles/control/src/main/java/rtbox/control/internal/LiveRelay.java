package rtbox.control.internal;

import java.util.concurrent.ConcurrentHashMap;

import com.google.gson.JsonObject;

import rtbox.mqtt.protocol.Live;
import rtbox.mqtt.protocol.LiveCodec;
import rtbox.mqtt.protocol.ProtocolException;
import rtbox.mqtt.protocol.Topics;

/**
 * An appliance's live figures ({@code up/ID/live}, QoS 0) go straight to the live pages'
 * event stream ({@link Events}, event {@code live}), on Paho's thread: never stored, never
 * queued for the ingest's writer, so they cost the database nothing and cannot delay a result.
 * At most one an appliance per {@link #MIN_GAP_MS} passes (an appliance that floods them
 * reaches no browser faster); one that does not decode is dropped and counted.
 */
final class LiveRelay {
    /** The appliance sends every 500 ms by default; faster than this is dropped. */
    static final long MIN_GAP_MS = 200;
    private static final String SUFFIX = "/live";
    private final Events events;
    private final ConcurrentHashMap<String, Long> lastMs = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong dropped = new java.util.concurrent.atomic.AtomicLong();

    LiveRelay(Events events) {
        this.events = events;
    }

    /** True when {@code topic} is a live topic: then the message is relayed or dropped here. */
    boolean offer(String topic, byte[] payload) {
        if (!topic.endsWith(SUFFIX) || !topic.startsWith(Topics.ROOT + "/up/")) {
            return false;
        }
        if (events.subscribers() == 0) {
            return true;
        }
        Live l;
        try {
            l = LiveCodec.decode(topic, payload);
        } catch (ProtocolException e) {
            dropped.incrementAndGet();
            return true;
        }
        long now = System.currentTimeMillis();
        Long last = lastMs.get(l.appliance());
        if (last != null && now - last < MIN_GAP_MS) {
            dropped.incrementAndGet();
            return true;
        }
        lastMs.put(l.appliance(), now);
        events.send(new Events.Event("live", l.appliance(), l.run(), Json.GSON.toJson(json(l))));
        return true;
    }

    /** Live messages dropped: undecodable or too soon after the last. */
    long dropped() {
        return dropped.get();
    }

    static JsonObject json(Live l) {
        JsonObject o = new JsonObject();
        o.addProperty("appliance", l.appliance());
        o.addProperty("run", l.run());
        o.addProperty("timestamp", l.timestamp().toString());
        if (l.probe() != null) {
            o.addProperty("probe", l.probe());
        }
        if (l.plan() != null) {
            o.addProperty("plan", l.plan());
            o.addProperty("cell", l.cell());
            o.addProperty("cells", l.cells());
            o.addProperty("cell_name", l.cellName());
        }
        o.addProperty("percent", l.percent());
        o.add("threads", LiveCodec.threads(l.threads()));
        return o;
    }
}
