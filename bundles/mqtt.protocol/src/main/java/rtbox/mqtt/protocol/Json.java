package rtbox.mqtt.protocol;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.gson.stream.JsonWriter;

/**
 * Over 400 lines on purpose: the strict reader (a small recursive-descent parser, since
 * Gson's lets through what RFC 8259 forbids) and the typed accessors that name the path
 * of a bad member stay together; both are what the codec's error messages rest on.
 *
 * <p>Strict JSON in and out, and typed access to an object's members with errors that name
 * the member's path. Strict means RFC 8259: no comments, unquoted names, single quotes, NaN,
 * trailing data or repeated member names, all of which Gson's own parser lets through.
 */
final class Json {
    private Json() {
    }

    /** Deepest nesting read: rtbox's messages need a handful of levels. */
    static final int MAX_DEPTH = 64;

    /** The payload as one JSON value; a {@link ProtocolException} on {@code payload} or the path of a repeated member. */
    static JsonElement parse(byte[] payload) throws ProtocolException {
        if (payload == null || payload.length == 0) {
            throw new ProtocolException("payload", "empty: expected a JSON object");
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(payload)).toString();
        } catch (CharacterCodingException e) {
            throw new ProtocolException("payload", "not UTF-8 text");
        }
        JsonReader r = new JsonReader(new StringReader(text));
        r.setStrictness(Strictness.STRICT);
        try {
            JsonElement e = read(r, 0);
            if (r.peek() != JsonToken.END_DOCUMENT) {
                throw new ProtocolException("payload", "not valid JSON: more after the value (" + r.getPath() + ")");
            }
            return e;
        } catch (IOException | IllegalStateException | NumberFormatException e) {
            throw new ProtocolException("payload", "not valid JSON: " + e.getMessage());
        }
    }

    /**
     * One value, recursively. Paths are not built as it goes (a cell's histograms are
     * thousands of elements): the reader knows where it is, and is asked only for an error.
     */
    private static JsonElement read(JsonReader r, int depth) throws IOException, ProtocolException {
        if (depth > MAX_DEPTH) {
            // 5000 nested brackets went unanswered: the appliance's command thread ran out of stack.
            throw new ProtocolException("payload", "nested deeper than " + MAX_DEPTH + " levels: not read");
        }
        switch (r.peek()) {
            case BEGIN_OBJECT: {
                JsonObject o = new JsonObject();
                r.beginObject();
                while (r.hasNext()) {
                    String name = r.nextName();
                    if (o.has(name)) {
                        throw new ProtocolException(r.getPath(), "given twice");
                    }
                    o.add(name, read(r, depth + 1));
                }
                r.endObject();
                return o;
            }
            case BEGIN_ARRAY: {
                JsonArray a = new JsonArray();
                r.beginArray();
                while (r.hasNext()) {
                    a.add(read(r, depth + 1));
                }
                r.endArray();
                return a;
            }
            case STRING:
                return new JsonPrimitive(r.nextString());
            case NUMBER:
                // The strict reader has checked the literal's syntax; it is converted when asked.
                return new JsonPrimitive(new Literal(r.nextString()));
            case BOOLEAN:
                return new JsonPrimitive(r.nextBoolean());
            case NULL:
                r.nextNull();
                return JsonNull.INSTANCE;
            default:
                throw new ProtocolException("payload", "not valid JSON at " + r.getPath());
        }
    }

    /**
     * A JSON number as written, converted only when read (as Gson's own parser keeps them):
     * exact through {@link #decimal()}, and a whole number of up to 18 digits without a
     * detour through BigDecimal, which is what a histogram's thousands of counts are.
     */
    static final class Literal extends Number {
        private static final long serialVersionUID = 1L;
        private final String text;

        Literal(String text) {
            this.text = text;
        }

        /** The value when the literal is a plain whole number that fits a long safely, else null. */
        Long whole() {
            int n = text.length(), i = text.startsWith("-") ? 1 : 0;
            if (n - i == 0 || n - i > 18) {
                return null;
            }
            for (int k = i; k < n; k++) {
                char c = text.charAt(k);
                if (c < '0' || c > '9') {
                    return null;
                }
            }
            return Long.parseLong(text);
        }

        BigDecimal decimal() {
            return new BigDecimal(text);
        }

        @Override
        public int intValue() {
            return decimal().intValue();
        }

        @Override
        public long longValue() {
            Long w = whole();
            return w != null ? w : decimal().longValue();
        }

        @Override
        public float floatValue() {
            return Float.parseFloat(text);
        }

        @Override
        public double doubleValue() {
            return Double.parseDouble(text);
        }

        @Override
        public String toString() {
            return text;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Literal && ((Literal) o).text.equals(text);
        }

        @Override
        public int hashCode() {
            return text.hashCode();
        }
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

    /** Typed, path-naming access to the members of one JSON object. */
    static final class Obj {
        final JsonObject o;
        final String path;

        Obj(JsonObject o, String path) {
            this.o = o;
            this.path = path;
        }

        static Obj of(JsonElement e, String path) throws ProtocolException {
            if (e == null || !e.isJsonObject()) {
                throw new ProtocolException(path, "expected a JSON object, got " + show(e));
            }
            return new Obj(e.getAsJsonObject(), path);
        }

        String at(String key) {
            return path + "." + key;
        }

        boolean has(String key) {
            return o.has(key) && !o.get(key).isJsonNull();
        }

        JsonElement required(String key) throws ProtocolException {
            if (!has(key)) {
                throw new ProtocolException(at(key), "is missing");
            }
            return o.get(key);
        }

        String str(String key) throws ProtocolException {
            JsonElement e = required(key);
            if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isString()) {
                throw new ProtocolException(at(key), "expected a string, got " + show(e));
            }
            return e.getAsString();
        }

        String optStr(String key) throws ProtocolException {
            return has(key) ? str(key) : null;
        }

        private BigDecimal number(String key) throws ProtocolException {
            JsonElement e = required(key);
            if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isNumber()) {
                throw new ProtocolException(at(key), "expected a number, got " + show(e));
            }
            Number n = e.getAsNumber();
            return n instanceof Literal ? ((Literal) n).decimal() : n instanceof BigDecimal ? (BigDecimal) n
                    : new BigDecimal(n.toString());
        }

        long lng(String key) throws ProtocolException {
            try {
                return number(key).longValueExact();
            } catch (ArithmeticException x) {
                throw new ProtocolException(at(key), "expected a whole number, got " + o.get(key));
            }
        }

        Long optLng(String key) throws ProtocolException {
            return has(key) ? lng(key) : null;
        }

        int integer(String key) throws ProtocolException {
            try {
                return number(key).intValueExact();
            } catch (ArithmeticException x) {
                throw new ProtocolException(at(key), "expected a whole number (32 bits), got " + o.get(key));
            }
        }

        Integer optInt(String key) throws ProtocolException {
            return has(key) ? integer(key) : null;
        }

        double dbl(String key) throws ProtocolException {
            return number(key).doubleValue();
        }

        /** An optional number: null when absent (or JSON null), a clear error when not a number. */
        Double optDbl(String key) throws ProtocolException {
            return has(key) ? dbl(key) : null;
        }

        /** NaN when absent or null (a figure the writer could not give: JSON has no NaN). */
        double dblOrNaN(String key) throws ProtocolException {
            return has(key) ? dbl(key) : Double.NaN;
        }

        boolean bool(String key) throws ProtocolException {
            JsonElement e = required(key);
            if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isBoolean()) {
                throw new ProtocolException(at(key), "expected true or false, got " + show(e));
            }
            return e.getAsBoolean();
        }

        Boolean optBool(String key) throws ProtocolException {
            return has(key) ? bool(key) : null;
        }

        Instant instant(String key) throws ProtocolException {
            String s = str(key);
            try {
                return Instant.parse(s);
            } catch (DateTimeParseException e) {
                throw new ProtocolException(at(key), "'" + s + "' is not an ISO-8601 UTC time such as"
                        + " 2026-01-01T12:00:00Z");
            }
        }

        Instant optInstant(String key) throws ProtocolException {
            return has(key) ? instant(key) : null;
        }

        <E extends Enum<E>> E enumeration(String key, Class<E> type) throws ProtocolException {
            String s = str(key);
            try {
                return Enum.valueOf(type, s);
            } catch (IllegalArgumentException e) {
                throw new ProtocolException(at(key), "'" + s + "' is not one of " + java.util.Arrays.toString(
                        type.getEnumConstants()));
            }
        }

        Obj obj(String key) throws ProtocolException {
            return Obj.of(required(key), at(key));
        }

        Obj optObj(String key) throws ProtocolException {
            return has(key) ? obj(key) : null;
        }

        JsonArray arr(String key) throws ProtocolException {
            JsonElement e = required(key);
            if (!e.isJsonArray()) {
                throw new ProtocolException(at(key), "expected an array, got " + show(e));
            }
            return e.getAsJsonArray();
        }

        List<String> strings(String key) throws ProtocolException {
            JsonArray a = arr(key);
            List<String> l = new ArrayList<>(a.size());
            for (int i = 0; i < a.size(); i++) {
                JsonElement e = a.get(i);
                if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isString()) {
                    throw new ProtocolException(at(key) + "[" + i + "]", "expected a string, got " + show(e));
                }
                l.add(e.getAsString());
            }
            return List.copyOf(l);
        }

        List<String> optStrings(String key) throws ProtocolException {
            return has(key) ? strings(key) : null;
        }

        /** A map of strings; a member's value may be null. */
        Map<String, String> stringMap(String key) throws ProtocolException {
            Map<String, String> m = new LinkedHashMap<>();
            if (!has(key)) {
                return m;
            }
            Obj x = obj(key);
            for (Map.Entry<String, JsonElement> e : x.o.entrySet()) {
                JsonElement v = e.getValue();
                if (!v.isJsonNull() && (!v.isJsonPrimitive() || !v.getAsJsonPrimitive().isString())) {
                    throw new ProtocolException(x.at(e.getKey()), "expected a string, got " + show(v));
                }
                m.put(e.getKey(), v.isJsonNull() ? null : v.getAsString());
            }
            return m;
        }

        long[] longs(String key) throws ProtocolException {
            JsonArray a = arr(key);
            long[] l = new long[a.size()];
            for (int i = 0; i < l.length; i++) {
                JsonElement e = a.get(i);
                try {
                    if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isNumber()) {
                        throw new ArithmeticException();
                    }
                    Number n = e.getAsNumber();
                    Long w = n instanceof Literal ? ((Literal) n).whole() : null;
                    l[i] = w != null ? w : new BigDecimal(n.toString()).longValueExact();
                } catch (ArithmeticException | NumberFormatException x) {
                    throw new ProtocolException(at(key) + "[" + i + "]", "expected a whole number, got " + show(e));
                }
            }
            return l;
        }
    }

    static String show(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return "null";
        }
        String s = e.toString();
        return s.length() > 60 ? s.substring(0, 57) + "..." : s;
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
