package rtbox.mqtt.protocol;

import com.google.gson.JsonObject;

/**
 * A message an appliance sent, read and checked by {@link Codec#decodeWithJson}, with the
 * JSON object it was read from (numbers as written; nested objects shared with the message).
 *
 * @since 1.2
 */
public record Decoded(Message message, JsonObject json) {
}
