package rtbox.mqtt.protocol;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import com.google.gson.stream.JsonWriter;

import rtbox.json.JsonProblem;
import rtbox.json.StrictJson;

/**
 * JSON in and out for the codec. In: rtbox.json's strict reader ({@link StrictJson}), its
 * problems as {@link ProtocolException}s (a syntax error on {@code payload}, as the protocol
 * has always named it). Out: compact UTF-8, no NaN.
 */
final class Json {
    private Json() {
    }

    /** The payload as one JSON value; a {@link ProtocolException} on {@code payload} or the path of a repeated member. */
    static JsonElement parse(byte[] payload) throws ProtocolException {
        try {
            return StrictJson.parse(payload);
        } catch (JsonProblem p) {
            throw problem(p);
        }
    }

    /** A reader's problem as the protocol names it: the whole payload is {@code payload}, else the member's path. */
    static ProtocolException problem(JsonProblem p) {
        String problem = p.problem().startsWith("empty") ? "empty: expected a JSON object" : p.problem();
        return new ProtocolException(p.path().equals("$") && !problem.startsWith("expected") ? "payload" : p.path(),
                problem);
    }

    /**
     * Compact UTF-8 JSON; members that are null are left off, and so are numbers that are
     * not finite (NaN, infinities: JSON has none), which an array holds as null.
     */
    static byte[] write(JsonElement e) {
        return write(e, null, null);
    }

    /** As {@link #write(JsonElement)}, with {@code placeholder} (by identity) written by {@code writer}. */
    static byte[] write(JsonElement e, JsonElement placeholder, Codec.ReportWriter writer) {
        StringWriter s = new StringWriter(writer == null ? 16 : 64 * 1024);
        try (JsonWriter w = new JsonWriter(s)) {
            w.setSerializeNulls(false);
            w.setHtmlSafe(false);
            write(w, e, placeholder, writer);
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
        return s.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void write(JsonWriter w, JsonElement e, JsonElement placeholder, Codec.ReportWriter writer)
            throws IOException {
        if (e != null && e == placeholder) {
            writer.write(w);
            // The rules put back, should the report's writer have changed them (Gson's toJson sets its own).
            w.setSerializeNulls(false);
            w.setHtmlSafe(false);
        } else if (e == null || e.isJsonNull()) {
            w.nullValue();
        } else if (e.isJsonObject()) {
            w.beginObject();
            for (Map.Entry<String, JsonElement> m : e.getAsJsonObject().entrySet()) {
                w.name(m.getKey());
                write(w, m.getValue(), placeholder, writer);
            }
            w.endObject();
        } else if (e.isJsonArray()) {
            w.beginArray();
            for (JsonElement x : e.getAsJsonArray()) {
                write(w, x, placeholder, writer);
            }
            w.endArray();
        } else {
            JsonPrimitive p = e.getAsJsonPrimitive();
            if (p.isBoolean()) {
                w.value(p.getAsBoolean());
            } else if (p.isNumber()) {
                Number n = p.getAsNumber();
                if ((n instanceof Double || n instanceof Float) && !Double.isFinite(n.doubleValue())) {
                    w.nullValue();
                } else {
                    w.value(n);
                }
            } else {
                w.value(p.getAsString());
            }
        }
    }

    static String show(JsonElement e) {
        return StrictJson.show(e);
    }

    static JsonArray array(long[] c) {
        JsonArray a = new JsonArray(c.length);
        for (long v : c) {
            a.add(v);
        }
        return a;
    }

    static JsonArray array(List<String> l) {
        JsonArray a = new JsonArray(l.size());
        l.forEach(a::add);
        return a;
    }

    static JsonObject object(Map<String, String> m) {
        JsonObject o = new JsonObject();
        m.forEach(o::addProperty);
        return o;
    }
}
