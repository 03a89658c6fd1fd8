package rtbox.control.internal;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.util.Set;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;

/**
 * Topic and payload of {@code rtbox/v1/up/...} to an {@link Inbound}, or why not
 * (docs/mqtt.md, schema 1). The one place that knows the wire format on the control
 * room's side: it is to be replaced by the shared codec (rtbox.mqtt.protocol) when that
 * lands, without a change elsewhere.
 */
final class Decoder {
    static final String UP = "rtbox/v1/up/";
    private static final Set<String> RUN_TYPES = Set.of("progress", "cell", "result");
    private final int maxBytes;

    Decoder(int maxBytes) {
        this.maxBytes = maxBytes;
    }

    Inbound decode(String topic, byte[] payload) throws Rejected {
        if (payload.length > maxBytes) {
            throw new Rejected("oversize", payload.length + " bytes, more than maxMessageBytes " + maxBytes);
        }
        if (!topic.startsWith(UP)) {
            throw new Rejected("bad-topic", "not under " + UP);
        }
        String[] p = topic.substring(UP.length()).split("/", -1);
        String appliance = p[0];
        Inbound.Kind kind;
        String run = null, requestId = null;
        if (p.length == 2 && p[1].equals("status")) {
            kind = Inbound.Kind.STATUS;
        } else if (p.length == 4 && p[1].equals("runs") && RUN_TYPES.contains(p[3]) && !p[2].isEmpty()) {
            kind = Inbound.Kind.valueOf(p[3].toUpperCase(java.util.Locale.ROOT));
            run = p[2];
        } else if (p.length == 3 && p[1].equals("reply") && !p[2].isEmpty()) {
            kind = Inbound.Kind.REPLY;
            requestId = p[2];
        } else {
            throw new Rejected("bad-topic", "not a status, runs/RUN/progress|cell|result or reply/ID topic");
        }
        if (appliance.isEmpty() || appliance.length() > 64) {
            throw new Rejected("bad-topic", "appliance id of " + appliance.length() + " characters");
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(payload)).toString();
        } catch (CharacterCodingException e) {
            throw new Rejected("not-json", "not UTF-8 text");
        }
        JsonObject o;
        try {
            JsonElement e = JsonParser.parseString(text);
            if (!e.isJsonObject()) {
                throw new Rejected("not-json", "JSON but not an object");
            }
            o = e.getAsJsonObject();
        } catch (JsonParseException | IllegalStateException e) {
            throw new Rejected("not-json", "not JSON: " + Json.shortMessage(e));
        }
        JsonElement schema = o.get("schema");
        if (!(schema instanceof JsonPrimitive) || !((JsonPrimitive) schema).isNumber() || schema.getAsDouble() != 1) {
            throw new Rejected("unknown-schema", "schema " + schema + " (this control room reads schema 1)");
        }
        String inner = Json.string(o, "appliance");
        if (!appliance.equals(inner)) {
            throw new Rejected("appliance-mismatch", "topic says appliance '" + appliance + "', payload says '"
                    + inner + "'");
        }
        String type = Json.string(o, "type");
        String expected = kind == Inbound.Kind.CELL ? "cell" : kind.type();
        if (!expected.equals(type)) {
            throw new Rejected("bad-message", "type '" + type + "' on a " + expected + " topic");
        }
        int seq = 0;
        if (run != null) {
            if (!run.equals(Json.string(o, "run"))) {
                throw new Rejected("bad-message", "topic says run '" + run + "', payload says '" + Json.string(o, "run")
                        + "'");
            }
            JsonElement s = o.get("sequence");
            if (!(s instanceof JsonPrimitive) || !((JsonPrimitive) s).isNumber() || s.getAsDouble() < 1
                    || s.getAsDouble() != Math.floor(s.getAsDouble()) || s.getAsDouble() > Integer.MAX_VALUE) {
                throw new Rejected("bad-message", "sequence " + s + " is not a whole number from 1");
            }
            seq = s.getAsInt();
        }
        return new Inbound(kind, appliance, run, seq, requestId, o, payload);
    }
}
