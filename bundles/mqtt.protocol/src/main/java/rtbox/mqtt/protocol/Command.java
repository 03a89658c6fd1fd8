package rtbox.mqtt.protocol;

import java.time.Instant;

import com.google.gson.JsonObject;

/**
 * A command to an appliance ({@code down/ID/cmd/VERB}): the envelope every command carries
 * (a {@code requestId} for the reply topic and to recognise a repeat, {@code expires} after
 * which it must not run, and the appliance it is for) and the verb's own fields in
 * {@code body} (without the envelope's). Whether it has expired is the receiver's decision,
 * on its own clock: {@link #expiredAt(Instant)}.
 */
public record Command(String appliance, String verb, String requestId, Instant expires, JsonObject body)
        implements Message {
    /** True when {@code now} is after {@code expires}. */
    public boolean expiredAt(Instant now) {
        return now.isAfter(expires);
    }
}
