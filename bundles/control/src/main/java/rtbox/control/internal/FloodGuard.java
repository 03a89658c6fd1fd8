package rtbox.control.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

/**
 * Each appliance's message rate, against a budget: a token bucket per appliance of
 * {@code perSecond} messages a second and a burst of {@link #BURST_SECONDS} seconds' worth
 * (a plan published again from the journal comes as one burst). An appliance past its
 * budget is flooding: what it sends that is not the record (status, progress) is refused
 * as {@code rate-limited}, while its cells, results and replies are still stored (a result
 * is never dropped; the store's uniqueness makes repeats cheap). It is named: in the log,
 * once a minute, and in the ingest's health ({@code flooding}) with its count.
 *
 * <p>Called on the MQTT client's thread for every message, so no lock: one bucket per
 * appliance, updated under its own monitor.
 */
final class FloodGuard {
    static final int BURST_SECONDS = 20;
    /** Appliances followed at most; past it the map starts again (ids come from topics the broker's ACL allowed). */
    private static final int MAX_APPLIANCES = 100_000;
    private static final long NAME_EVERY_MS = 60_000;
    private final double perSecond;
    private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();

    /** {@code perSecond} 0: no budget, nothing is limited. */
    FloodGuard(double perSecond) {
        this.perSecond = perSecond;
    }

    private static final class Bucket {
        double tokens;
        long lastNs;
        long overBudget;
        long namedMs;
        long lastOverMs;
    }

    /** Counts one message of {@code appliance}; false when it is past its budget. */
    boolean take(String appliance, long nowNs) {
        if (perSecond <= 0) {
            return true;
        }
        if (buckets.size() > MAX_APPLIANCES) {
            buckets.clear();
        }
        Bucket b = buckets.computeIfAbsent(appliance, k -> {
            Bucket n = new Bucket();
            n.tokens = perSecond * BURST_SECONDS;
            n.lastNs = nowNs;
            return n;
        });
        synchronized (b) {
            b.tokens = Math.min(perSecond * BURST_SECONDS, b.tokens + (nowNs - b.lastNs) / 1e9 * perSecond);
            b.lastNs = nowNs;
            if (b.tokens >= 1) {
                b.tokens -= 1;
                return true;
            }
            b.overBudget++;
            b.lastOverMs = System.currentTimeMillis();
            return false;
        }
    }

    /** True once a minute per flooding appliance: the time to name it in the log. */
    boolean nameNow(String appliance) {
        Bucket b = buckets.get(appliance);
        if (b == null) {
            return false;
        }
        synchronized (b) {
            long now = System.currentTimeMillis();
            if (now - b.namedMs < NAME_EVERY_MS) {
                return false;
            }
            b.namedMs = now;
            return true;
        }
    }

    /** Messages over budget so far. */
    long overBudget(String appliance) {
        Bucket b = buckets.get(appliance);
        if (b == null) {
            return 0;
        }
        synchronized (b) {
            return b.overBudget;
        }
    }

    double perSecond() {
        return perSecond;
    }

    /** The appliances over budget in the last ten minutes, with their messages over budget since the start. */
    JsonArray flooding() {
        JsonArray a = new JsonArray();
        long since = System.currentTimeMillis() - 10 * 60_000;
        buckets.forEach((id, b) -> {
            synchronized (b) {
                if (b.overBudget > 0 && b.lastOverMs >= since) {
                    JsonObject o = new JsonObject();
                    o.addProperty("appliance", id);
                    o.addProperty("over_budget", b.overBudget);
                    o.addProperty("last", java.time.Instant.ofEpochMilli(b.lastOverMs).toString());
                    a.add(o);
                }
            }
        });
        return a;
    }
}
