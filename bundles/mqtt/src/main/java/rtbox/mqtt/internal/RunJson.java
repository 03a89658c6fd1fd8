package rtbox.mqtt.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import rtbox.api.RtboxException;
import rtbox.core.RunRequest;
import rtbox.core.RunRequests;
import rtbox.json.JsonFields;
import rtbox.json.JsonProblem;

/**
 * The {@code run} command's body as a {@link RunRequest}: read by rtbox.core's {@link RunRequests},
 * the one reader of a run request (a plan cell's shape; docs/mqtt.md, docs/schema/). The names the
 * body had before one shape are read with a note in the reply. Every error names the member's path
 * and the bad value. Public only for RunSchemaIT (runtime), which checks every front end against
 * one table; the package is private to the bundle. The small accessors below serve the other verbs.
 */
public final class RunJson {
    /** The envelope's member the run verb reads itself: the run id. */
    static final Set<String> ENVELOPE = Set.of("run");

    private RunJson() {
    }

    public static RunRequest parse(JsonObject cmd, String commandText) throws RtboxException {
        return RunRequests.request(cmd, ENVELOPE, commandText, new ArrayList<>());
    }

    /** As {@link #parse(JsonObject, String)}, with the deprecation notes into {@code notes}. */
    static RunRequest parse(JsonObject cmd, String commandText, List<String> notes) throws RtboxException {
        return RunRequests.request(cmd, ENVELOPE, commandText, notes);
    }

    static JsonObject object(JsonObject o, String key) throws RtboxException {
        if (!o.has(key) || o.get(key).isJsonNull()) {
            return new JsonObject();
        }
        if (!o.get(key).isJsonObject()) {
            throw new RtboxException(key, key + " must be a JSON object, not " + o.get(key));
        }
        return o.getAsJsonObject(key);
    }

    /**
     * A whole number of the command, exactly and from {@code min} to {@code max}, or {@code
     * fallback} when absent or null: read by rtbox.json ({@link JsonFields#whole}), so {@code 2.5}
     * or {@code 1e30} is a 400 naming {@code $.key}, never 2 or the largest int.
     */
    static long whole(JsonObject o, String key, long fallback, long min, long max) throws RtboxException {
        if (!o.has(key) || o.get(key).isJsonNull()) {
            return fallback;
        }
        try {
            return JsonFields.whole(o.get(key), "$." + key, min, max);
        } catch (JsonProblem p) {
            throw new RtboxException(key, p.getMessage());
        }
    }

    static String string(JsonObject o, String key, String fallback) throws RtboxException {
        if (!o.has(key) || o.get(key).isJsonNull()) {
            return fallback;
        }
        JsonElement e = o.get(key);
        // A number is not a string: "run": 7 became run id "7", "pid": 7 PID "7".
        if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isString()) {
            throw new RtboxException(key, key + " must be a string, not " + Dispatcher.cut(e.toString(), 60));
        }
        return e.getAsString();
    }
}
