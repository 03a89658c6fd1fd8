package rtbox.control.internal;

import java.util.LinkedHashMap;
import java.util.Map;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

import rtbox.mqtt.protocol.Topics;

/**
 * The messages the ingest refused, per appliance (the one whose tree the topic is: the broker's
 * ACL lets an appliance publish only there): how many, the last reason and detail, and whether
 * its refusal is to be logged now. One log line per appliance and minute at most, the rest
 * counted: an appliance that sends nothing but bad messages does not fill the log. At most
 * {@link #MAX} appliances are kept, the least recently refused dropped first.
 */
final class ApplianceRefusals {
    static final int MAX = 4096;
    private static final long LOG_EVERY_MS = 60_000;

    private static final class Entry {
        long refused;
        long unlogged;
        long lastMs;
        long loggedMs; // 0: never (epoch milliseconds are far past it)
        String reason;
        String detail;
    }

    /** In the order of their last refusal, oldest first. */
    private final Map<String, Entry> entries = new LinkedHashMap<>(64, 0.75f, false) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
            return size() > MAX;
        }
    };

    /** The appliance whose tree {@code topic} is in, or null (another root, no valid id). */
    static String applianceOf(String topic) {
        if (topic == null || !topic.startsWith(Decoder.UP)) {
            return null;
        }
        int end = topic.indexOf('/', Decoder.UP.length());
        String id = topic.substring(Decoder.UP.length(), end < 0 ? topic.length() : end);
        return Topics.checkId("appliance", id) == null ? id : null;
    }

    /**
     * Counts one refusal; returns how many of this appliance's refusals went unlogged before it
     * when it is to be logged now, or -1 when not (logged less than a minute ago).
     */
    synchronized long refused(String appliance, String reason, String detail, long nowMs) {
        Entry e = entries.remove(appliance);
        if (e == null) {
            e = new Entry();
        }
        entries.put(appliance, e);
        e.refused++;
        e.lastMs = nowMs;
        e.reason = reason;
        e.detail = detail;
        if (nowMs - e.loggedMs >= LOG_EVERY_MS) {
            long before = e.unlogged;
            e.unlogged = 0;
            e.loggedMs = nowMs;
            return before;
        }
        e.unlogged++;
        return -1;
    }

    /** {@code {"refused":N,"last_reason":..,"last_detail":..,"last_at":..}}, or null when none was refused. */
    synchronized JsonObject of(String appliance) {
        Entry e = entries.get(appliance);
        return e == null ? null : json(appliance, e);
    }

    /** Every appliance with refused messages, most recently refused first. */
    synchronized JsonArray all() {
        JsonArray a = new JsonArray();
        entries.forEach((id, e) -> a.add(json(id, e)));
        JsonArray newestFirst = new JsonArray();
        for (int i = a.size() - 1; i >= 0; i--) {
            newestFirst.add(a.get(i));
        }
        return newestFirst;
    }

    private static JsonObject json(String appliance, Entry e) {
        JsonObject o = new JsonObject();
        o.addProperty("appliance", appliance);
        o.addProperty("refused", e.refused);
        o.addProperty("last_reason", e.reason);
        o.addProperty("last_detail", e.detail);
        o.addProperty("last_at", Json.iso(e.lastMs));
        return o;
    }
}
