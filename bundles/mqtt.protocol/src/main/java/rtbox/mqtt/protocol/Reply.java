package rtbox.mqtt.protocol;

import java.time.Instant;

import com.google.gson.JsonObject;

/**
 * The answer to one command ({@code up/ID/reply/REQUESTID}): an HTTP-like {@code code} (200
 * done, 400 bad command, 404 no such thing, 409 not now, 500 failed on the appliance), a
 * message a person can act on, and the verb's {@code body}. {@code requestId} is null for a
 * command without a usable one (topic {@code reply/none}).
 */
public record Reply(String appliance, Instant timestamp, String requestId, String verb, int code, String message,
        JsonObject body) implements Message {
    public static final int OK = 200, BAD = 400, NOT_FOUND = 404, CONFLICT = 409, FAILED = 500;

    public boolean ok() {
        return code == OK;
    }
}
