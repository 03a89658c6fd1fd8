package rtbox.mqtt.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import rtbox.api.RtboxException;
import rtbox.api.RunParameters;
import rtbox.api.SchedPolicy;
import rtbox.core.LoadSpec;
import rtbox.core.toolkit.Parameters;
import rtbox.core.RunRequest;
import rtbox.core.RunSchema;
import rtbox.core.Thresholds;

/**
 * Reads the body of a {@code run} command into a {@link RunRequest}, with rtbox.core's
 * RunSchema: the command line's names, aliases, defaults, ranges and grammars
 * (docs/mqtt.md). Every error names the field and the bad value. Public only for
 * RunSchemaTest (runtime), which checks every front end against one table; the package
 * is private to the bundle.
 */
public final class RunJson {
    static final Set<String> PARAMETERS = Set.of("interval_us", "policy", "priority", "cpus", "duration", "loops",
            "warmup", "histogram_us", "mlock", "options");
    static final Set<String> THRESHOLDS = new java.util.LinkedHashSet<>(RunSchema.Threshold.names());

    private RunJson() {
    }

    public static RunRequest parse(JsonObject cmd, String commandText) throws RtboxException {
        String probe = string(cmd, "probe", null);
        if (probe == null || probe.isBlank()) {
            throw new RtboxException("probe", "probe is missing: name the probe to run, e.g. \"probe\": \"timer\"");
        }
        JsonObject p = object(cmd, "parameters");
        known("parameters", p, PARAMETERS);
        Map<String, String> text = new LinkedHashMap<>();
        for (String k : PARAMETERS) {
            if (p.has(k) && !k.equals("options") && !k.equals("cpus") && !k.equals("mlock")) {
                // An array or object was skipped before, and the default taken in its place.
                if (!p.get(k).isJsonPrimitive()) {
                    throw new RtboxException(k, "parameters." + k + " must be a number or a string, not "
                            + Dispatcher.cut(p.get(k).toString(), 60));
                }
                text.put(k, p.get(k).getAsString());
            }
        }
        Parameters v = new Parameters("parameters", null, text);
        int priority = (int) v.integer("priority", 0, 0, RunSchema.MAX_PRIORITY);
        SchedPolicy policy = p.has("policy") ? SchedPolicy.parse(string(p, "policy", "other"))
                : priority > 0 ? SchedPolicy.FIFO : SchedPolicy.OTHER;
        long durationNs = v.nanos("duration", 0, "s");
        long loops = v.integer("loops", 0, 0, Long.MAX_VALUE);
        if (durationNs == 0 && loops == 0) {
            throw new RtboxException("duration", "parameters: give a duration (e.g. \"duration\": \"10s\") or loops:"
                    + " a remote run must end by itself");
        }
        RunParameters.Builder b = RunParameters.builder()
                .intervalUs(v.integer("interval_us", RunSchema.DEFAULT_INTERVAL_US, RunSchema.MIN_INTERVAL_US,
                        RunSchema.MAX_INTERVAL_US))
                .policy(policy).priority(priority)
                .cpus(cpus(p))
                .durationNs(durationNs).loops(loops)
                .warmupNs(v.nanos("warmup", RunSchema.DEFAULT_WARMUP_NS, "s"))
                .histogramLimitUs((int) v.integer("histogram_us", RunSchema.DEFAULT_HISTOGRAM_US, 1,
                        RunSchema.MAX_HISTOGRAM_US))
                .lockMemory(bool(p, "mlock"));
        JsonObject options = object(p, "options");
        for (Map.Entry<String, JsonElement> e : options.entrySet()) {
            if (!e.getValue().isJsonPrimitive()) {
                throw new RtboxException("options", "parameters.options." + e.getKey() + " must be a string or number");
            }
            b.option(e.getKey(), e.getValue().getAsString());
        }
        JsonObject t = object(cmd, "thresholds");
        known("thresholds", t, THRESHOLDS);
        Map<String, String> tt = new LinkedHashMap<>();
        t.entrySet().forEach(e -> tt.put(e.getKey(), e.getValue().isJsonPrimitive() ? e.getValue().getAsString()
                : e.getValue().toString()));
        Parameters tv = new Parameters("thresholds", null, tt);
        Map<RunSchema.Threshold, Long> given = new java.util.EnumMap<>(RunSchema.Threshold.class);
        Map<RunSchema.Threshold, String> as = new java.util.EnumMap<>(RunSchema.Threshold.class);
        for (String k : tt.keySet()) {
            RunSchema.Threshold th = RunSchema.Threshold.named(k);
            String before = as.put(th, k);
            if (before != null) {
                throw new RtboxException(k, "thresholds." + k + " is the same threshold as thresholds." + before
                        + ": give it once (as " + th.key() + ")");
            }
            given.put(th, tv.integer(k, th.fallback(), -1, Long.MAX_VALUE));
        }
        Thresholds thresholds = RunSchema.thresholds(given);
        List<LoadSpec> loads = new ArrayList<>();
        if (cmd.has("loads")) {
            if (!cmd.get("loads").isJsonArray()) {
                throw new RtboxException("loads", "loads must be an array of \"NAME[:K=V,...]\" strings");
            }
            int i = 0;
            for (JsonElement l : cmd.getAsJsonArray("loads")) {
                if (!l.isJsonPrimitive() || !l.getAsJsonPrimitive().isString()) {
                    throw new RtboxException("loads", "loads[" + i + "] must be a string \"NAME[:K=V,...]\", not "
                            + Dispatcher.cut(l.toString(), 60));
                }
                loads.add(LoadSpec.parse(l.getAsString()));
                i++;
            }
        }
        return new RunRequest(probe, b.build(), thresholds, commandText, loads);
    }

    private static int[] cpus(JsonObject p) throws RtboxException {
        if (!p.has("cpus")) {
            return new int[] {0};
        }
        JsonElement e = p.get("cpus");
        try {
            if (e.isJsonArray()) {
                JsonArray a = e.getAsJsonArray();
                int[] c = new int[a.size()];
                for (int i = 0; i < c.length; i++) {
                    JsonElement x = a.get(i);
                    // Whole numbers only: Gson reads 0.5 as CPU 0.
                    if (!x.isJsonPrimitive() || !x.getAsJsonPrimitive().isNumber()
                            || !x.getAsString().matches("\\d{1,4}")) {
                        throw new RtboxException("cpus", "parameters.cpus[" + i + "] " + Dispatcher.cut(x.toString(),
                                40) + " is not a CPU number (0 to " + RunSchema.MAX_CPU + ")");
                    }
                    c[i] = x.getAsInt();
                }
                if (c.length > 0) {
                    return RunSchema.distinctCpus("parameters.cpus", c);
                }
            } else if (e.isJsonPrimitive()) {
                int[] c = RunSchema.cpus("parameters.cpus", e.getAsString());
                if (c.length > 0) {
                    return c;
                }
            }
        } catch (RtboxException ex) {
            if (ex.getMessage().startsWith("parameters.cpus")) {
                throw ex;
            }
        } catch (RuntimeException ex) {
            // named below
        }
        throw new RtboxException("cpus", "parameters.cpus " + Dispatcher.cut(e.toString(), 60) + " is not a CPU list such as [0, 1] or \"0-3,6\"");
    }

    private static void known(String where, JsonObject o, Set<String> known) throws RtboxException {
        Set<String> bad = new TreeSet<>(o.keySet());
        bad.removeAll(known);
        if (!bad.isEmpty()) {
            throw new RtboxException(bad.iterator().next(), where + ": unknown field" + (bad.size() > 1 ? "s " : " ")
                    + String.join(", ", bad) + ": known are " + String.join(", ", new TreeSet<>(known)));
        }
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

    private static boolean bool(JsonObject o, String key) throws RtboxException {
        if (!o.has(key)) {
            return false;
        }
        JsonElement e = o.get(key);
        if (e.isJsonPrimitive() && e.getAsJsonPrimitive().isBoolean()) {
            return e.getAsBoolean();
        }
        throw new RtboxException(key, "parameters." + key + " must be true or false, not " + e);
    }
}
