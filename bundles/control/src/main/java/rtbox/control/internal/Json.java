package rtbox.control.internal;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/** Small Gson helpers shared by the control room's classes. */
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

    static Integer integer(JsonObject o, String field) {
        Double d = number(o, field);
        return d == null ? null : (int) Math.round(d);
    }

    static Long whole(JsonObject o, String field) {
        Double d = number(o, field);
        return d == null ? null : Math.round(d);
    }

    static JsonObject object(JsonObject o, String field) {
        JsonElement e = o == null ? null : o.get(field);
        return e != null && e.isJsonObject() ? e.getAsJsonObject() : null;
    }

    static JsonArray array(JsonObject o, String field) {
        JsonElement e = o == null ? null : o.get(field);
        return e != null && e.isJsonArray() ? e.getAsJsonArray() : null;
    }

    static JsonObject parse(String text) {
        return text == null ? null : GSON.fromJson(text, JsonObject.class);
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
