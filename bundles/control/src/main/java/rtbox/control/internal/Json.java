package rtbox.control.internal;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import rtbox.json.JsonFields;
import rtbox.json.JsonProblem;
import rtbox.json.StrictJson;

/**
 * The control room's access to JSON: reading goes through rtbox.json's strict reader (the one
 * the protocol, plans and run requests use: a repeated member, NaN or a nesting past its limit
 * is refused, with its path); numbers are never rounded (a whole number asked for and a
 * fraction found is an error, not the nearest integer). Writing is Gson's.
 */
final class Json {
    static final Gson GSON = new GsonBuilder().disableHtmlEscaping().serializeNulls().create();

    private Json() {
    }

    static String string(JsonObject o, String field) {
        JsonElement e = o == null ? null : o.get(field);
        return e == null || e.isJsonNull() || !e.isJsonPrimitive() ? null : e.getAsString();
    }

    static Double number(JsonObject o, String field) {
        JsonElement e = o == null ? null : o.get(field);
        return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber() ? e.getAsDouble() : null;
    }

    /** A whole number, exactly; null when absent; a fraction or an out-of-range value is an error naming the field. */
    static Integer integer(JsonObject o, String field) {
        Long v = whole(o, field);
        if (v != null && (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException(field + ": " + v + " is out of range (32 bits)");
        }
        return v == null ? null : v.intValue();
    }

    /** A whole number, exactly (no rounding: 2.5 is an error naming the field); null when absent or not a number. */
    static Long whole(JsonObject o, String field) {
        JsonElement e = o == null ? null : o.get(field);
        if (e == null || !e.isJsonPrimitive() || !e.getAsJsonPrimitive().isNumber()) {
            return null;
        }
        try {
            return JsonFields.whole(e, field);
        } catch (JsonProblem p) {
            throw new IllegalArgumentException(p.getMessage());
        }
    }

    /** A whole number from {@code min} to {@code max}, exactly; an error naming {@code path} otherwise (also when absent). */
    static long whole(JsonElement e, String path, long min, long max) {
        try {
            return JsonFields.whole(e, path, min, max);
        } catch (JsonProblem p) {
            throw new IllegalArgumentException(p.getMessage());
        }
    }

    static JsonObject object(JsonObject o, String field) {
        JsonElement e = o == null ? null : o.get(field);
        return e != null && e.isJsonObject() ? e.getAsJsonObject() : null;
    }

    static JsonArray array(JsonObject o, String field) {
        JsonElement e = o == null ? null : o.get(field);
        return e != null && e.isJsonArray() ? e.getAsJsonArray() : null;
    }

    /** Stored or received JSON text as an object, read strictly; null for null; an error naming the problem's path. */
    static JsonObject parse(String text) {
        JsonElement e = element(text);
        if (e != null && !e.isJsonObject()) {
            throw new IllegalArgumentException("$: expected a JSON object, got " + StrictJson.show(e));
        }
        return e == null ? null : e.getAsJsonObject();
    }

    /** JSON text as a value, read strictly; null for null. */
    static JsonElement element(String text) {
        if (text == null) {
            return null;
        }
        try {
            return StrictJson.parse(text);
        } catch (JsonProblem p) {
            throw new IllegalArgumentException(p.getMessage());
        }
    }

    /** A request's body as a JSON object, read strictly: a 400 naming the path of what is wrong. */
    static JsonObject body(byte[] utf8) {
        try {
            return JsonFields.of(StrictJson.parse(utf8), "$").object();
        } catch (JsonProblem p) {
            throw new BadRequest("the body: " + p.getMessage());
        }
    }

    static String shortMessage(Throwable e) {
        String m = e.getMessage() == null ? e.toString() : e.getMessage();
        return m.length() > 200 ? m.substring(0, 200) + "..." : m;
    }

    static long epochMs(String iso) {
        if (iso == null) {
            return 0;
        }
        try {
            return java.time.Instant.parse(iso).toEpochMilli();
        } catch (RuntimeException e) {
            return 0;
        }
    }

    static String iso(Long ms) {
        return ms == null || ms == 0 ? null : java.time.Instant.ofEpochMilli(ms).toString();
    }
}
