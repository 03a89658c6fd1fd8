package rtbox.control.internal;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.google.gson.JsonObject;

/**
 * Commands to appliances ({@code rtbox/v1/down/ID/cmd/VERB}, docs/mqtt.md) and their
 * replies, matched by request id. Each command carries {@code expires} (a minute) and
 * the appliance's id, so that a late or misrouted command is refused by the appliance.
 */
final class Commander {
    /** Publishes to the broker (QoS 1, not retained). */
    interface Publisher {
        void publish(String topic, byte[] payload) throws Exception;
    }

    private final Publisher publisher;
    private final Map<String, CompletableFuture<JsonObject>> pending = new ConcurrentHashMap<>();

    Commander(Publisher publisher) {
        this.publisher = publisher;
    }

    static String requestId() {
        return "control-" + Passwords.random(12);
    }

    /** Sends {@code verb} with {@code body} to {@code appliance}; the future completes with the reply message. */
    CompletableFuture<JsonObject> send(String appliance, String verb, JsonObject body, String requestId) {
        JsonObject c = body == null ? new JsonObject() : body.deepCopy();
        c.addProperty("requestId", requestId);
        c.addProperty("expires", Instant.now().plusSeconds(60).toString());
        c.addProperty("appliance", appliance);
        // An appliance that never answers must not keep its entry: given up after two minutes.
        CompletableFuture<JsonObject> f = new CompletableFuture<JsonObject>().orTimeout(120, TimeUnit.SECONDS);
        pending.put(requestId, f);
        f.whenComplete((r, e) -> pending.remove(requestId));
        try {
            publisher.publish("rtbox/v1/down/" + appliance + "/cmd/" + verb,
                    Json.GSON.toJson(c).getBytes(StandardCharsets.UTF_8));
        } catch (Exception e) {
            f.completeExceptionally(e);
        }
        return f;
    }

    /**
     * Sends and waits up to {@code timeoutMs}: the reply, or a made-up reply with code 504
     * (no answer) or 503 (not sent: the broker is not reachable).
     */
    JsonObject call(String appliance, String verb, JsonObject body, long timeoutMs) {
        return call(appliance, verb, body, timeoutMs, requestId());
    }

    /** As {@link #call(String, String, JsonObject, long)} with a given request id (a repeat gets the first reply). */
    JsonObject call(String appliance, String verb, JsonObject body, long timeoutMs, String id) {
        CompletableFuture<JsonObject> f = send(appliance, verb, body, id);
        try {
            return f.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            f.cancel(false);
            return madeUp(id, verb, 504, "no answer from '" + appliance + "' within " + timeoutMs / 1000 + " s");
        } catch (ExecutionException e) {
            return madeUp(id, verb, 503, "not sent: " + Db.rootMessage(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return madeUp(id, verb, 503, "interrupted");
        }
    }

    private static JsonObject madeUp(String id, String verb, int code, String message) {
        JsonObject r = new JsonObject();
        r.addProperty("requestId", id);
        r.addProperty("verb", verb);
        r.addProperty("code", code);
        r.addProperty("message", message);
        return r;
    }

    /** A reply came (from the ingest). */
    void replied(Inbound m) {
        CompletableFuture<JsonObject> f = pending.get(m.requestId());
        if (f != null) {
            f.complete(m.json());
        }
    }
}
