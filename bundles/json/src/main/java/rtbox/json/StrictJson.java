package rtbox.json;

import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.gson.stream.MalformedJsonException;

/**
 * Strict JSON in: RFC 8259 and nothing more. No comments, unquoted names, single quotes, NaN
 * or infinities (nor a number too large to be anything else as a double, 1e999), trailing data, or member names given twice (Gson's own parser lets all of
 * these through, and keeps the last of a repeated name); nesting deeper than {@link
 * #MAX_DEPTH} is refused before it costs a stack. Numbers are kept as written and converted
 * only when read ({@link JsonFields}: a whole number is exact or an error, never rounded).
 * A small recursive descent over Gson's strict tokenizer, so the tree is Gson's.
 */
public final class StrictJson {
    private StrictJson() {
    }

    /** The deepest nesting read: rtbox's documents need a handful of levels. */
    public static final int MAX_DEPTH = 64;

    /** The text as one JSON value; a {@link JsonProblem} on {@code $} or the path of a repeated member. */
    public static JsonElement parse(String text) throws JsonProblem {
        if (text == null || text.isBlank()) {
            throw new JsonProblem("$", "empty: expected a JSON value");
        }
        JsonReader r = new JsonReader(new StringReader(text));
        r.setStrictness(Strictness.STRICT);
        try {
            JsonElement e = read(r, 0);
            boolean more;
            try {
                more = r.peek() != JsonToken.END_DOCUMENT;
            } catch (MalformedJsonException x) {
                more = true; // the strict tokenizer refuses a second value itself
            }
            if (more) {
                throw new JsonProblem("$", "not valid JSON: more after the value" + where(r));
            }
            return e;
        } catch (IOException | IllegalStateException | NumberFormatException e) {
            throw new JsonProblem("$", "not valid JSON" + where(r));
        }
    }

    /** UTF-8 bytes as one JSON value: {@link #parse(String)}, after refusing what is not UTF-8. */
    public static JsonElement parse(byte[] utf8) throws JsonProblem {
        if (utf8 == null || utf8.length == 0) {
            throw new JsonProblem("$", "empty: expected a JSON value");
        }
        try {
            return parse(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(utf8)).toString());
        } catch (CharacterCodingException e) {
            throw new JsonProblem("$", "not UTF-8 text");
        }
    }

    /** The text as a JSON object: {@link #parse(String)}, and anything else is a problem on {@code $}. */
    public static JsonFields object(String text) throws JsonProblem {
        return JsonFields.of(parse(text), "$");
    }

    /** Where the reader stopped, as a person finds it in the text: " at line 1 column 7 ($.a)". */
    private static String where(JsonReader r) {
        String s = r.toString(); // "JsonReader at line L column C path P": the class name left off
        int at = s.indexOf(" at line ");
        if (at < 0) {
            return "";
        }
        String loc = s.substring(at);
        int path = loc.indexOf(" path ");
        return path < 0 ? loc : loc.substring(0, path) + " (" + loc.substring(path + 6) + ")";
    }

    /**
     * One value, recursively. Paths are not built as it goes (a result's histograms are
     * thousands of elements): the reader knows where it is, and is asked only for an error.
     */
    private static JsonElement read(JsonReader r, int depth) throws IOException, JsonProblem {
        if (depth > MAX_DEPTH) {
            // 5000 nested brackets went unanswered: the appliance's command thread ran out of stack.
            throw new JsonProblem("$", "nested deeper than " + MAX_DEPTH + " levels: not read");
        }
        switch (r.peek()) {
            case BEGIN_OBJECT: {
                JsonObject o = new JsonObject();
                r.beginObject();
                while (r.hasNext()) {
                    String name = r.nextName();
                    if (o.has(name)) {
                        throw new JsonProblem(r.getPath(), "given twice");
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
            case NUMBER: {
                // The strict tokenizer has checked the literal's syntax; it is converted when asked.
                String n = r.nextString();
                if (beyondDouble(n)) {
                    // 1e999 is an infinity once read as a double: stored as a latency, it was one (issue 31).
                    throw new JsonProblem(r.getPreviousPath(), (n.length() > 40 ? n.substring(0, 37) + "..." : n)
                            + " is out of range: a number here is at most about 1.8e308 in size");
                }
                return new JsonPrimitive(new ExactNumber(n));
            }
            case BOOLEAN:
                return new JsonPrimitive(r.nextBoolean());
            case NULL:
                r.nextNull();
                return JsonNull.INSTANCE;
            default:
                throw new JsonProblem("$", "not valid JSON" + where(r));
        }
    }

    /**
     * True when the literal is finite in JSON but not as a double (1e999, -1e400, 400 digits).
     * A histogram's counts are short whole numbers: they are not parsed here.
     */
    static boolean beyondDouble(String literal) {
        if (literal.length() < 20 && literal.indexOf('e') < 0 && literal.indexOf('E') < 0) {
            return false;
        }
        return Double.isInfinite(Double.parseDouble(literal));
    }

    /** A value as an error message shows it: its JSON, cut at 60 characters. */
    public static String show(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return "null";
        }
        String s = e.toString();
        return s.length() > 60 ? s.substring(0, 57) + "..." : s;
    }
}
