package rtbox.control.internal;

import com.google.gson.JsonObject;

import rtbox.mqtt.protocol.Cell;
import rtbox.mqtt.protocol.Codec;
import rtbox.mqtt.protocol.Decoded;
import rtbox.mqtt.protocol.Message;
import rtbox.mqtt.protocol.Progress;
import rtbox.mqtt.protocol.ProtocolException;
import rtbox.mqtt.protocol.Reply;
import rtbox.mqtt.protocol.Result;
import rtbox.mqtt.protocol.RunMessage;
import rtbox.mqtt.protocol.Status;
import rtbox.mqtt.protocol.Topics;

/**
 * Topic and payload of {@code rtbox/v1/up/...} to an {@link Inbound}, or the reason it is
 * not stored. The checking is the shared codec's ({@link Codec}, rtbox.mqtt.protocol: the
 * same one the appliance writes with and rtbox ctl reads with); this class only sorts its
 * complaints into the ingest's reasons and keeps the payload as it came, byte for byte.
 */
final class Decoder {
    static final String UP = Topics.ROOT + "/up/";
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
        Decoded d;
        try {
            d = Codec.decodeWithJson(topic, payload);
        } catch (ProtocolException e) {
            throw new Rejected(reason(e), e.getMessage());
        } catch (RuntimeException e) {
            throw new Rejected("bad-message", "the codec failed on it: " + Json.shortMessage(e));
        }
        // Read once: the codec's strict parse gives the typed message and the JSON tree that
        // the stores and the live events take apart; the payload is stored as it came.
        Message m = d.message();
        JsonObject json = d.json();
        if (m instanceof Status) {
            return new Inbound(Inbound.Kind.STATUS, m.appliance(), null, 0, null, json, payload);
        }
        if (m instanceof Reply r) {
            return new Inbound(Inbound.Kind.REPLY, m.appliance(), null, 0, r.requestId() == null ? Topics.NO_REQUEST_ID
                    : r.requestId(), json, payload);
        }
        if (m instanceof RunMessage rm) {
            if (rm.sequence() > Integer.MAX_VALUE) {
                throw new Rejected("out-of-range", "sequence " + rm.sequence() + " is out of range");
            }
            Inbound.Kind kind = m instanceof Progress ? Inbound.Kind.PROGRESS : m instanceof Cell ? Inbound.Kind.CELL
                    : Inbound.Kind.RESULT;
            String shown = kind == Inbound.Kind.PROGRESS ? null : Cells.outOfRange(json);
            if (shown != null) {
                throw new Rejected("out-of-range", shown);
            }
            assert m instanceof Progress || m instanceof Cell || m instanceof Result;
            return new Inbound(kind, m.appliance(), rm.run(), (int) rm.sequence(), null, json, payload);
        }
        throw new Rejected("bad-topic", "a command on an up topic");
    }

    /** The ingest's reason for a complaint of the codec (which names the member at fault). */
    static String reason(ProtocolException e) {
        String field = e.field() == null ? "" : e.field();
        String problem = e.problem() == null ? "" : e.problem();
        return switch (field) {
            case "topic" -> "bad-topic";
            case "payload" -> "not-json";
            case "$.schema" -> "unknown-schema";
            case "$.appliance" -> problem.contains("topic") ? "appliance-mismatch" : "bad-message";
            case "$" -> problem.contains("JSON") || problem.contains("object") ? "not-json" : "bad-message";
            // A figure below 0 or beyond a double's range (1e999): the codec and rtbox.json say so in these words.
            default -> problem.contains("is negative") || problem.contains("is out of range") ? "out-of-range"
                    : "bad-message";
        };
    }
}
