package rtbox.json;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * Typed access to the members of one JSON object, each problem a {@link JsonProblem} with the
 * member's path. A member that is absent or JSON null is "not there" ({@code opt...} gives
 * null); a member of the wrong type is an error, never a default: {@code "2"} is not a number,
 * {@code 2.5} is not a whole number (no rounding), {@code 1} is not true.
 */
public final class JsonFields {
    private final JsonObject o;
    private final String path;

    private JsonFields(JsonObject o, String path) {
        this.o = o;
        this.path = path;
    }

    /** {@code e} as an object at {@code path}; anything else is a problem there. */
    public static JsonFields of(JsonElement e, String path) throws JsonProblem {
        if (e == null || !e.isJsonObject()) {
            throw new JsonProblem(path, "expected a JSON object, got " + StrictJson.show(e));
        }
        return new JsonFields(e.getAsJsonObject(), path);
    }

    /** The object read. */
    public JsonObject object() {
        return o;
    }

    /** This object's path ({@code $}, {@code $.cells[1]}). */
    public String path() {
        return path;
    }

    /** The path of member {@code key}. */
    public String at(String key) {
        return path + "." + key;
    }

    /** Whether {@code key} is there and not JSON null. */
    public boolean has(String key) {
        return o.has(key) && !o.get(key).isJsonNull();
    }

    /** A problem when a member is not one of {@code known}, naming it and the known ones. */
    public void onlyKnown(Collection<String> known) throws JsonProblem {
        for (String k : o.keySet()) {
            if (!known.contains(k)) {
                throw new JsonProblem(at(k), "unknown member: known are " + String.join(", ", new TreeSet<>(known)));
            }
        }
    }

    public JsonElement required(String key) throws JsonProblem {
        if (!has(key)) {
            throw new JsonProblem(at(key), "is missing");
        }
        return o.get(key);
    }

    public String str(String key) throws JsonProblem {
        JsonElement e = required(key);
        if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isString()) {
            throw new JsonProblem(at(key), "expected a string, got " + StrictJson.show(e));
        }
        return e.getAsString();
    }

    public String optStr(String key) throws JsonProblem {
        return has(key) ? str(key) : null;
    }

    /** A number exactly as written; {@code path} names it in the problem. */
    public static BigDecimal decimal(JsonElement e, String path) throws JsonProblem {
        if (e == null || !e.isJsonPrimitive() || !e.getAsJsonPrimitive().isNumber()) {
            throw new JsonProblem(path, "expected a number, got " + StrictJson.show(e));
        }
        Number n = e.getAsNumber();
        return n instanceof ExactNumber ? ((ExactNumber) n).decimal() : n instanceof BigDecimal ? (BigDecimal) n
                : new BigDecimal(n.toString());
    }

    /** A whole number (no fraction: {@code 2.5} is an error, {@code 2.0} is 2), within a long. */
    public static long whole(JsonElement e, String path) throws JsonProblem {
        if (e != null && e.isJsonPrimitive() && e.getAsNumber() instanceof ExactNumber) {
            Long w = ((ExactNumber) e.getAsNumber()).whole();
            if (w != null) {
                return w;
            }
        }
        BigDecimal d = decimal(e, path);
        try {
            return d.longValueExact();
        } catch (ArithmeticException x) {
            throw new JsonProblem(path, "expected a whole number, got " + StrictJson.show(e));
        }
    }

    /** A whole number from {@code min} to {@code max}; the problem names the range. */
    public static long whole(JsonElement e, String path, long min, long max) throws JsonProblem {
        long v = whole(e, path);
        if (v < min || v > max) {
            throw new JsonProblem(path, v + " is out of range: use " + min + " to "
                    + (max == Long.MAX_VALUE ? "any" : Long.toString(max)));
        }
        return v;
    }

    public long lng(String key) throws JsonProblem {
        return whole(required(key), at(key));
    }

    public Long optLng(String key) throws JsonProblem {
        return has(key) ? lng(key) : null;
    }

    public int integer(String key) throws JsonProblem {
        try {
            return decimal(required(key), at(key)).intValueExact();
        } catch (ArithmeticException x) {
            throw new JsonProblem(at(key), "expected a whole number (32 bits), got " + o.get(key));
        }
    }

    public Integer optInt(String key) throws JsonProblem {
        return has(key) ? integer(key) : null;
    }

    public double dbl(String key) throws JsonProblem {
        return decimal(required(key), at(key)).doubleValue();
    }

    /** An optional number: null when absent (or JSON null), a problem when not a number. */
    public Double optDbl(String key) throws JsonProblem {
        return has(key) ? dbl(key) : null;
    }

    /** NaN when absent or null (a figure the writer could not give: JSON has no NaN). */
    public double dblOrNaN(String key) throws JsonProblem {
        return has(key) ? dbl(key) : Double.NaN;
    }

    public boolean bool(String key) throws JsonProblem {
        JsonElement e = required(key);
        if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isBoolean()) {
            throw new JsonProblem(at(key), "expected true or false, got " + StrictJson.show(e));
        }
        return e.getAsBoolean();
    }

    public Boolean optBool(String key) throws JsonProblem {
        return has(key) ? bool(key) : null;
    }

    public Instant instant(String key) throws JsonProblem {
        String s = str(key);
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException e) {
            throw new JsonProblem(at(key), "'" + s + "' is not an ISO-8601 UTC time such as 2026-01-01T12:00:00Z");
        }
    }

    public Instant optInstant(String key) throws JsonProblem {
        return has(key) ? instant(key) : null;
    }

    public <E extends Enum<E>> E enumeration(String key, Class<E> type) throws JsonProblem {
        String s = str(key);
        try {
            return Enum.valueOf(type, s);
        } catch (IllegalArgumentException e) {
            throw new JsonProblem(at(key), "'" + s + "' is not one of " + java.util.Arrays.toString(
                    type.getEnumConstants()));
        }
    }

    public JsonFields obj(String key) throws JsonProblem {
        return of(required(key), at(key));
    }

    public JsonFields optObj(String key) throws JsonProblem {
        return has(key) ? obj(key) : null;
    }

    public JsonArray arr(String key) throws JsonProblem {
        JsonElement e = required(key);
        if (!e.isJsonArray()) {
            throw new JsonProblem(at(key), "expected an array, got " + StrictJson.show(e));
        }
        return e.getAsJsonArray();
    }

    public List<String> strings(String key) throws JsonProblem {
        JsonArray a = arr(key);
        List<String> l = new ArrayList<>(a.size());
        for (int i = 0; i < a.size(); i++) {
            JsonElement e = a.get(i);
            if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isString()) {
                throw new JsonProblem(at(key) + "[" + i + "]", "expected a string, got " + StrictJson.show(e));
            }
            l.add(e.getAsString());
        }
        return List.copyOf(l);
    }

    public List<String> optStrings(String key) throws JsonProblem {
        return has(key) ? strings(key) : null;
    }

    /** A map of strings; a member's value may be null. Empty when absent. */
    public Map<String, String> stringMap(String key) throws JsonProblem {
        Map<String, String> m = new LinkedHashMap<>();
        if (!has(key)) {
            return m;
        }
        JsonFields x = obj(key);
        for (Map.Entry<String, JsonElement> e : x.o.entrySet()) {
            JsonElement v = e.getValue();
            if (!v.isJsonNull() && (!v.isJsonPrimitive() || !v.getAsJsonPrimitive().isString())) {
                throw new JsonProblem(x.at(e.getKey()), "expected a string, got " + StrictJson.show(v));
            }
            m.put(e.getKey(), v.isJsonNull() ? null : v.getAsString());
        }
        return m;
    }

    public long[] longs(String key) throws JsonProblem {
        JsonArray a = arr(key);
        long[] l = new long[a.size()];
        for (int i = 0; i < l.length; i++) {
            l[i] = whole(a.get(i), at(key) + "[" + i + "]");
        }
        return l;
    }
}
