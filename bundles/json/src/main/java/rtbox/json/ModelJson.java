package rtbox.json;

import java.io.IOException;
import java.io.StringReader;
import java.lang.reflect.Type;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonParseException;
import com.google.gson.TypeAdapter;
import com.google.gson.reflect.TypeToken;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.gson.stream.JsonWriter;

/**
 * rtbox's model classes (run reports, plan runs, the result journal's records) as JSON, both
 * ways, where Gson maps them field by field: {@link #builder()} writes no NaN or infinity (JSON
 * has none), {@link #read} reads strictly ({@link StrictJson}'s rules) and binds numbers
 * exactly (2.5 for a count, or a count past its type's range, is a problem at its path, never
 * rounded or cut).
 */
public final class ModelJson {
    private ModelJson() {
    }

    /**
     * A GsonBuilder whose doubles that are not finite are written as {@code null}, always: also
     * where the Gson leaves other nulls out, so that "not finite" is told from "absent" (which a
     * record would read as 0). {@code null} is read back as NaN into a {@code double}, and as null
     * into a {@code Double}. (rtbox's models have no float.)
     */
    public static GsonBuilder builder() {
        return new GsonBuilder().registerTypeAdapter(double.class, new Finite(true))
                .registerTypeAdapter(Double.class, new Finite(false));
    }

    /**
     * {@code text} as a {@code type}: first checked whole by {@link StrictJson#parse(String)}
     * (no NaN, no repeated member, a nesting limit), then bound by {@code gson} (made from
     * {@link #builder()}) from the text, whose numbers it converts exactly or refuses.
     */
    public static <T> T read(Gson gson, String text, Type type) throws JsonProblem {
        StrictJson.parse(text);
        return bind(gson, text, type);
    }

    /** A tree that {@link StrictJson} read (its numbers as written) as a {@code type}: as {@link #read}. */
    public static <T> T read(Gson gson, JsonElement tree, Type type) throws JsonProblem {
        return bind(gson, tree.toString(), type);
    }

    private static <T> T bind(Gson gson, String text, Type type) throws JsonProblem {
        JsonReader r = gson.newJsonReader(new StringReader(text));
        try {
            T value = gson.fromJson(r, TypeToken.<T>get(type).getType());
            return value;
        } catch (JsonParseException | IllegalStateException | NumberFormatException e) {
            boolean number = e instanceof NumberFormatException || e.getCause() instanceof NumberFormatException;
            throw new JsonProblem(r.getPath(), number
                    ? "a number that does not fit here exactly (a whole number where a count belongs, in its range)"
                    : "not of the kind that belongs here (a number, a text, an object or a list)");
        }
    }

    /** Doubles: not finite written as null (forced past a Gson that leaves nulls out). */
    private static final class Finite extends TypeAdapter<Double> {
        private final boolean primitive;

        Finite(boolean primitive) {
            this.primitive = primitive;
        }

        @Override
        public void write(JsonWriter out, Double v) throws IOException {
            if (v == null) {
                out.nullValue();
            } else if (!Double.isFinite(v)) {
                forcedNull(out);
            } else {
                out.value(v.doubleValue());
            }
        }

        @Override
        public Double read(JsonReader in) throws IOException {
            if (in.peek() == JsonToken.NULL) {
                in.nextNull();
                return primitive ? Double.NaN : null;
            }
            return in.nextDouble();
        }
    }

    private static void forcedNull(JsonWriter out) throws IOException {
        boolean nulls = out.getSerializeNulls();
        out.setSerializeNulls(true);
        out.nullValue();
        out.setSerializeNulls(nulls);
    }
}
