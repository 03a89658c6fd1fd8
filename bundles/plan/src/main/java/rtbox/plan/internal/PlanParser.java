package rtbox.plan.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;

import rtbox.api.RtboxException;
import rtbox.api.RunParameters;
import rtbox.core.LoadSpec;
import rtbox.core.RunSchema;
import rtbox.core.Thresholds;
import rtbox.json.JsonProblem;
import rtbox.json.StrictJson;

/**
 * Over 400 lines on purpose: one pass over a plan that collects every problem with its JSON
 * path (rather than stopping at the first), for every key of the plan schema; the values
 * themselves are read with rtbox.core's RunSchema.
 *
 * <p>Reads a plan (schema version {@link #VERSION}, see the bundle's README) and checks
 * every value, collecting all problems, each with its JSON path, instead of stopping
 * at the first. Then expands the plan into cells: the top level is the base; each
 * entry of "cells" overrides it (objects "parameters", "tuning" and "thresholds" key
 * by key, anything else whole); "matrix" multiplies every cell by its "policy" values
 * (replacing the cell's policy) and its named "load" sets (added to the cell's loads).
 */
final class PlanParser {
    static final int VERSION = 1;
    static final long DEFAULT_WARMUP_NS = RunSchema.DEFAULT_WARMUP_NS;

    /** Most cells in one plan, the matrix expanded: 1000 one-minute cells are 17 hours. */
    static final int MAX_CELLS = 1000;
    private static final Set<String> TOP = Set.of("rtbox_plan", "name", "description", "matrix", "cells");
    private static final Set<String> CELL = Set.of("name", "probe", "parameters", "policy", "tuning", "loads",
            "warmup", "duration", "thresholds");
    private static final Set<String> PARAMETERS = Set.of("interval_us", "cpus", "histogram_us", "mlock", "options");
    private static final Set<String> TUNING = Set.of("nice", "timer_slack_ns", "cpu_dma_latency_us", "rt_runtime_us",
            "iso_period_ms", "iso_sample_ms");
    /** rtbox.core.RunSchema's threshold names and the plan's older ones (max_us, p99_us, ...) as aliases. */
    private static final Set<String> THRESHOLDS = new java.util.LinkedHashSet<>(RunSchema.Threshold.names());
    private static final Set<String> LOAD = Set.of("workload", "parameters");
    private static final Set<String> AXES = Set.of("policy", "load");

    /** The result: the plan's name, its cells, and every problem found. */
    record Parsed(String name, String description, List<Cell> cells, List<String> problems) {
    }

    private final List<String> problems = new ArrayList<>();

    static Parsed parse(String text) {
        return new PlanParser().run(text);
    }

    private Parsed run(String text) {
        JsonElement root;
        try {
            root = StrictJson.parse(text); // rtbox.json: duplicates, NaN and deep nesting refused with their path
        } catch (JsonProblem e) {
            problems.add(e.getMessage());
            return new Parsed("", "", List.of(), problems);
        }
        if (root == null || !root.isJsonObject()) {
            problems.add("$: a plan is a JSON object ({...}), found " + kind(root));
            return new Parsed("", "", List.of(), problems);
        }
        JsonObject o = root.getAsJsonObject();
        JsonElement v = o.get("rtbox_plan");
        if (v == null) {
            problems.add("$.rtbox_plan: missing: a plan starts with \"rtbox_plan\": " + VERSION
                    + " (the version of its schema)");
        } else if (!isInt(v)) {
            problems.add("$.rtbox_plan: expected the schema version " + VERSION + ", found " + v);
        } else if (v.getAsLong() != VERSION) {
            problems.add("$.rtbox_plan: version " + v + " is not supported: this rtbox reads plan version " + VERSION);
        }
        String name = string(o, "name", "$.name", true);
        String description = string(o, "description", "$.description", false);
        Map<String, JsonElement> baseFields = new LinkedHashMap<>();
        for (Map.Entry<String, JsonElement> e : o.entrySet()) {
            if (!TOP.contains(e.getKey())) {
                if (CELL.contains(e.getKey())) {
                    baseFields.put(e.getKey(), e.getValue());
                } else {
                    problems.add("$." + e.getKey() + ": unknown key: known are " + known(TOP, CELL));
                }
            }
        }
        baseFields.remove("name");
        Spec base = spec(baseFields, "$");
        List<Spec> specs = new ArrayList<>();
        JsonElement cells = o.get("cells");
        if (cells != null) {
            if (!cells.isJsonArray() || cells.getAsJsonArray().isEmpty()) {
                problems.add("$.cells: expected a non-empty array of cell objects, found " + kind(cells));
            } else {
                JsonArray a = cells.getAsJsonArray();
                for (int i = 0; i < a.size(); i++) {
                    String path = "$.cells[" + i + "]";
                    if (!a.get(i).isJsonObject()) {
                        problems.add(path + ": expected a cell object, found " + kind(a.get(i)));
                        continue;
                    }
                    Map<String, JsonElement> f = new LinkedHashMap<>();
                    for (Map.Entry<String, JsonElement> e : a.get(i).getAsJsonObject().entrySet()) {
                        if (CELL.contains(e.getKey())) {
                            f.put(e.getKey(), e.getValue());
                        } else {
                            problems.add(path + "." + e.getKey() + ": unknown key: known in a cell are " + known(CELL));
                        }
                    }
                    specs.add(base.with(spec(f, path)));
                }
            }
        } else {
            specs.add(base);
        }
        List<PolicySpec> policies = null;
        Map<String, List<LoadSpec>> loadSets = null;
        JsonElement m = o.get("matrix");
        if (m != null) {
            if (!m.isJsonObject() || m.getAsJsonObject().isEmpty()) {
                problems.add("$.matrix: expected an object with \"policy\" and/or \"load\", found " + kind(m));
            } else {
                for (Map.Entry<String, JsonElement> e : m.getAsJsonObject().entrySet()) {
                    String path = "$.matrix." + e.getKey();
                    if (!AXES.contains(e.getKey())) {
                        problems.add(path + ": unknown axis: known are " + known(AXES));
                    } else if (e.getKey().equals("policy")) {
                        policies = policyAxis(e.getValue(), path);
                    } else {
                        loadSets = loadAxis(e.getValue(), path);
                    }
                }
            }
        }
        long axes = (long) (policies == null ? 1 : policies.size()) * (loadSets == null ? 1 : loadSets.size());
        long planned = specs.size() * axes;
        if (planned > MAX_CELLS) {
            // Checked before the cells are made: a 1000 x 1000 matrix was a million cells, and no reply.
            problems.add("$: the plan has " + planned + " cells (" + specs.size() + " cell entries x " + axes
                    + " matrix combinations): at most " + MAX_CELLS + "; split it into several plans");
            return new Parsed(name == null ? "" : name, description, List.of(), problems);
        }
        long totalNs = 0;
        for (Spec s : specs) {
            totalNs += s.durationNs == null ? 0 : Math.min(s.durationNs, rtbox.core.toolkit.ParameterChecks.MAX_DURATION_NS)
                    * axes;
        }
        if (totalNs > rtbox.core.toolkit.ParameterChecks.MAX_DURATION_NS) {
            problems.add("$: the cells' durations add up to " + Math.round(totalNs / 3600e9) + " h: at most "
                    + rtbox.core.toolkit.ParameterChecks.MAX_DURATION_NS / 3_600_000_000_000L + " h in one plan");
        }
        List<Cell> out = new ArrayList<>();
        for (Spec s : specs) {
            if (s.probe == null && !s.reported) {
                problems.add(s.path + ": no \"probe\": name one here" + (s.path.equals("$") ? "" : " or at the top"));
            }
            if (s.durationNs == null) {
                problems.add(s.path + ": no \"duration\": give one here" + (s.path.equals("$") ? "" : " or at the top")
                        + ", e.g. \"10s\"");
            }
            List<PolicySpec> ps = policies == null ? Collections.singletonList(null) : policies;
            for (PolicySpec p : ps) {
                List<Map.Entry<String, List<LoadSpec>>> ls = loadSets == null
                        ? Collections.singletonList(null) : new ArrayList<>(loadSets.entrySet());
                for (Map.Entry<String, List<LoadSpec>> l : ls) {
                    out.add(cell(out.size(), s, p, l));
                }
            }
        }
        if (!problems.isEmpty()) {
            return new Parsed(name == null ? "" : name, description, List.of(), problems);
        }
        return new Parsed(name, description, out, problems);
    }

    private Cell cell(int index, Spec s, PolicySpec axisPolicy, Map.Entry<String, List<LoadSpec>> axisLoad) {
        Map<String, String> axes = new LinkedHashMap<>();
        PolicySpec policy = s.policy == null ? PolicySpec.DEFAULT : s.policy;
        if (axisPolicy != null) {
            policy = axisPolicy;
            axes.put("policy", axisPolicy.text());
        }
        List<LoadSpec> loads = new ArrayList<>(s.loads == null ? List.of() : s.loads);
        if (axisLoad != null) {
            loads.addAll(axisLoad.getValue());
            axes.put("load", axisLoad.getKey());
        }
        String probe = s.probe == null ? "?" : s.probe;
        String name = s.name != null ? s.name : probe;
        if (axisPolicy != null) {
            name += " " + axisPolicy.text();
        }
        if (axisLoad != null) {
            name += " +" + axisLoad.getKey();
        }
        Map<RunSchema.Threshold, Long> th = new java.util.EnumMap<>(RunSchema.Threshold.class);
        if (s.thresholds != null) {
            s.thresholds.forEach((k, v) -> th.put(RunSchema.Threshold.named(k), v));
        }
        Thresholds t = RunSchema.thresholds(th);
        RunParameters.Builder b = RunParameters.builder()
                .intervalUs(s.intervalUs == null ? 1000 : s.intervalUs)
                .policy(policy.policy() == rtbox.api.SchedPolicy.ISO ? rtbox.api.SchedPolicy.FIFO : policy.policy())
                .priority(policy.threadPriority())
                .cpus(s.cpus == null ? new int[] {0} : s.cpus)
                .durationNs(s.durationNs == null ? 0 : s.durationNs)
                .warmupNs(s.warmupNs == null ? DEFAULT_WARMUP_NS : s.warmupNs)
                .histogramLimitUs(s.histogramUs == null ? 10_000 : s.histogramUs)
                .lockMemory(s.mlock != null && s.mlock);
        if (s.options != null) {
            s.options.forEach(b::option);
        }
        return new Cell(index, name, s.path, axes, probe, b.build(), policy,
                s.tuning == null ? Map.of() : s.tuning, loads, t);
    }

    /** One object's cell fields, each checked; null where absent or bad. */
    private static final class Spec {
        String path;
        boolean reported;
        String name, probe;
        Long intervalUs, warmupNs, durationNs;
        int[] cpus;
        Integer histogramUs;
        Boolean mlock;
        Map<String, String> options, tuning;
        PolicySpec policy;
        List<LoadSpec> loads;
        Map<String, Long> thresholds;

        /** This base overridden by a cell. */
        Spec with(Spec c) {
            Spec s = new Spec();
            s.path = c.path;
            s.reported = reported || c.reported;
            s.name = c.name != null ? c.name : name;
            s.probe = c.probe != null ? c.probe : probe;
            s.intervalUs = c.intervalUs != null ? c.intervalUs : intervalUs;
            s.warmupNs = c.warmupNs != null ? c.warmupNs : warmupNs;
            s.durationNs = c.durationNs != null ? c.durationNs : durationNs;
            s.cpus = c.cpus != null ? c.cpus : cpus;
            s.histogramUs = c.histogramUs != null ? c.histogramUs : histogramUs;
            s.mlock = c.mlock != null ? c.mlock : mlock;
            s.options = merge(options, c.options);
            s.tuning = merge(tuning, c.tuning);
            s.policy = c.policy != null ? c.policy : policy;
            s.loads = c.loads != null ? c.loads : loads;
            s.thresholds = merge(thresholds, c.thresholds);
            return s;
        }

        private static <V> Map<String, V> merge(Map<String, V> a, Map<String, V> b) {
            if (a == null) {
                return b;
            }
            if (b == null) {
                return a;
            }
            Map<String, V> m = new LinkedHashMap<>(a);
            m.putAll(b);
            return m;
        }
    }

    private Spec spec(Map<String, JsonElement> f, String path) {
        Spec s = new Spec();
        s.path = path;
        s.name = string(f, "name", path + ".name");
        s.probe = string(f, "probe", path + ".probe");
        if (f.containsKey("probe") && s.probe == null) {
            s.reported = true;
        }
        s.warmupNs = duration(f.get("warmup"), path + ".warmup", false);
        s.durationNs = duration(f.get("duration"), path + ".duration", true);
        if (f.containsKey("duration") && s.durationNs == null) {
            s.durationNs = 0L; // reported already; do not report it missing too
        }
        JsonElement p = f.get("parameters");
        if (p != null) {
            String pp = path + ".parameters";
            JsonObject po = object(p, pp, PARAMETERS);
            if (po != null) {
                Long i = integer(po.get("interval_us"), pp + ".interval_us", RunSchema.MIN_INTERVAL_US,
                        RunSchema.MAX_INTERVAL_US);
                s.intervalUs = i;
                Long h = integer(po.get("histogram_us"), pp + ".histogram_us", 1, RunSchema.MAX_HISTOGRAM_US);
                s.histogramUs = h == null ? null : h.intValue();
                JsonElement ml = po.get("mlock");
                if (ml != null) {
                    if (ml.isJsonPrimitive() && ml.getAsJsonPrimitive().isBoolean()) {
                        s.mlock = ml.getAsBoolean();
                    } else {
                        problems.add(pp + ".mlock: expected true or false, found " + ml);
                    }
                }
                JsonElement c = po.get("cpus");
                if (c != null) {
                    s.cpus = cpus(c, pp + ".cpus");
                }
                JsonElement op = po.get("options");
                if (op != null) {
                    s.options = strings(op, pp + ".options");
                }
            }
        }
        JsonElement pol = f.get("policy");
        if (pol != null) {
            s.policy = policy(pol, path + ".policy");
        }
        JsonElement tu = f.get("tuning");
        if (tu != null) {
            String tp = path + ".tuning";
            JsonObject to = object(tu, tp, TUNING);
            if (to != null) {
                Map<String, String> m = new LinkedHashMap<>();
                put(m, "nice", integer(to.get("nice"), tp + ".nice", -20, 19));
                put(m, "timer_slack_ns", integer(to.get("timer_slack_ns"), tp + ".timer_slack_ns", 1, 1_000_000_000L));
                put(m, "cpu_dma_latency_us", integer(to.get("cpu_dma_latency_us"), tp + ".cpu_dma_latency_us", 0,
                        2_000_000_000L));
                put(m, "rt_runtime_us", integer(to.get("rt_runtime_us"), tp + ".rt_runtime_us", -1, Integer.MAX_VALUE));
                // Emulated ISO's averaging period and tick (the tuner's ranges).
                put(m, "iso_period_ms", integer(to.get("iso_period_ms"), tp + ".iso_period_ms", 100, 600_000));
                put(m, "iso_sample_ms", integer(to.get("iso_sample_ms"), tp + ".iso_sample_ms", 4, 10));
                s.tuning = m;
            }
        }
        JsonElement lo = f.get("loads");
        if (lo != null) {
            s.loads = loads(lo, path + ".loads");
        }
        JsonElement th = f.get("thresholds");
        if (th != null) {
            String tp = path + ".thresholds";
            JsonObject to = object(th, tp, THRESHOLDS);
            if (to != null) {
                Map<String, Long> m = new LinkedHashMap<>();
                Map<String, String> given = new LinkedHashMap<>();
                for (String k : to.keySet()) {
                    RunSchema.Threshold t = RunSchema.Threshold.named(k);
                    if (t == null) {
                        continue; // reported by object()
                    }
                    String before = given.put(t.key(), k);
                    if (before != null) {
                        problems.add(tp + "." + k + ": the same threshold as " + before + ": give it once (as "
                                + t.key() + ")");
                        continue;
                    }
                    Long n = integer(to.get(k), tp + "." + k, 0, Long.MAX_VALUE);
                    if (n != null) {
                        m.put(t.key(), n);
                    }
                }
                s.thresholds = m;
            }
        }
        return s;
    }

    private static void put(Map<String, String> m, String k, Long v) {
        if (v != null) {
            m.put(k, Long.toString(v));
        }
    }

    private List<PolicySpec> policyAxis(JsonElement e, String path) {
        if (!e.isJsonArray() || e.getAsJsonArray().isEmpty()) {
            problems.add(path + ": expected a non-empty array of policies such as [\"fifo:80\", \"iso@70\"], found "
                    + kind(e));
            return null;
        }
        List<PolicySpec> out = new ArrayList<>();
        JsonArray a = e.getAsJsonArray();
        for (int i = 0; i < a.size(); i++) {
            PolicySpec p = policy(a.get(i), path + "[" + i + "]");
            if (p != null) {
                out.add(p);
            }
        }
        return out;
    }

    private Map<String, List<LoadSpec>> loadAxis(JsonElement e, String path) {
        if (!e.isJsonObject() || e.getAsJsonObject().isEmpty()) {
            problems.add(path + ": expected an object of named load sets such as {\"none\": [], \"pipe\": [\"pipe\"]}, "
                    + "found " + kind(e));
            return null;
        }
        Map<String, List<LoadSpec>> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonElement> s : e.getAsJsonObject().entrySet()) {
            List<LoadSpec> l = loads(s.getValue(), path + "." + s.getKey());
            out.put(s.getKey(), l == null ? List.of() : l);
        }
        return out;
    }

    private PolicySpec policy(JsonElement e, String path) {
        if (!isString(e)) {
            problems.add(path + ": expected a policy such as \"fifo:80\" or \"iso@70\", found " + e);
            return null;
        }
        return PolicySpec.parse(e.getAsString(), m -> problems.add(path + ": " + m));
    }

    private List<LoadSpec> loads(JsonElement e, String path) {
        if (!e.isJsonArray()) {
            problems.add(path + ": expected an array of loads (\"pipe:mode=rtt\" or {\"workload\": \"pipe\", "
                    + "\"parameters\": {...}}), found " + kind(e));
            return null;
        }
        List<LoadSpec> out = new ArrayList<>();
        JsonArray a = e.getAsJsonArray();
        for (int i = 0; i < a.size(); i++) {
            String p = path + "[" + i + "]";
            JsonElement x = a.get(i);
            if (isString(x)) {
                try {
                    out.add(LoadSpec.parse(x.getAsString()));
                } catch (RtboxException ex) {
                    problems.add(p + ": " + ex.getMessage());
                }
            } else if (x.isJsonObject()) {
                JsonObject lo = object(x, p, LOAD);
                if (lo == null) {
                    continue;
                }
                String w = string(lo.asMap(), "workload", p + ".workload");
                if (w == null && !lo.has("workload")) {
                    problems.add(p + ": no \"workload\": name the workload, e.g. \"pipe\"");
                }
                Map<String, String> params = lo.has("parameters") ? strings(lo.get("parameters"), p + ".parameters")
                        : Map.of();
                if (w != null && params != null) {
                    out.add(new LoadSpec(w, params));
                }
            } else {
                problems.add(p + ": expected a load, found " + kind(x));
            }
        }
        return out;
    }

    private int[] cpus(JsonElement e, String path) {
        if (isString(e)) {
            try {
                int[] c = RunSchema.cpus(path, e.getAsString());
                if (c.length > 0) {
                    return c;
                }
            } catch (RtboxException ex) {
                problems.add(path + ": '" + e.getAsString() + "' is not a CPU list such as \"0-3,6\" or [0, 1]");
                return null;
            }
        }
        if (!e.isJsonArray() || e.getAsJsonArray().isEmpty()) {
            problems.add(path + ": expected a CPU list such as [0, 1] or \"0-3,6\", found " + kind(e));
            return null;
        }
        JsonArray a = e.getAsJsonArray();
        int[] out = new int[a.size()];
        for (int i = 0; i < a.size(); i++) {
            Long c = integer(a.get(i), path + "[" + i + "]", 0, 4095);
            if (c == null) {
                return null;
            }
            out[i] = c.intValue();
        }
        return out;
    }

    private Map<String, String> strings(JsonElement e, String path) {
        if (!e.isJsonObject()) {
            problems.add(path + ": expected an object of names to values, found " + kind(e));
            return null;
        }
        Map<String, String> m = new LinkedHashMap<>();
        for (Map.Entry<String, JsonElement> x : e.getAsJsonObject().entrySet()) {
            JsonElement v = x.getValue();
            if (v.isJsonPrimitive()) {
                m.put(x.getKey(), v.getAsString());
            } else {
                problems.add(path + "." + x.getKey() + ": expected a string, number or boolean, found " + kind(v));
            }
        }
        return m;
    }

    private JsonObject object(JsonElement e, String path, Set<String> keys) {
        if (!e.isJsonObject()) {
            problems.add(path + ": expected an object, found " + kind(e));
            return null;
        }
        for (String k : e.getAsJsonObject().keySet()) {
            if (!keys.contains(k)) {
                problems.add(path + "." + k + ": unknown key: known are " + known(keys));
            }
        }
        return e.getAsJsonObject();
    }

    private Long integer(JsonElement e, String path, long min, long max) {
        if (e == null) {
            return null;
        }
        if (!isInt(e)) {
            problems.add(path + ": expected a whole number, found " + e);
            return null;
        }
        long v = e.getAsLong();
        if (v < min || v > max) {
            problems.add(path + ": " + v + " is out of range: use " + min + " to " + (max == Long.MAX_VALUE ? "any" : max));
            return null;
        }
        return v;
    }

    private Long duration(JsonElement e, String path, boolean positive) {
        if (e == null) {
            return null;
        }
        long ns;
        if (e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber()) {
            ns = Math.round(e.getAsDouble() * 1e9);
        } else if (isString(e)) {
            try {
                ns = RunSchema.duration(path, e.getAsString());
            } catch (RtboxException ex) {
                problems.add(path + ": '" + e.getAsString() + "' is not a time such as \"500ms\", \"10s\", \"5m\","
                        + " \"1h\" or \"1d\"" + (e.getAsString().trim().startsWith("-") ? " (it is negative)" : ""));
                return null;
            }
        } else {
            problems.add(path + ": expected a time such as \"10s\", found " + kind(e));
            return null;
        }
        if (ns < 0 || positive && ns == 0) {
            problems.add(path + ": " + e + " must be " + (positive ? "more than zero" : "zero or more"));
            return null;
        }
        return ns;
    }

    private String string(JsonObject o, String key, String path, boolean required) {
        if (!o.has(key)) {
            if (required) {
                problems.add(path + ": missing: give the plan a name");
            }
            return null;
        }
        return string(o.asMap(), key, path);
    }

    private String string(Map<String, JsonElement> f, String key, String path) {
        JsonElement e = f.get(key);
        if (e == null) {
            return null;
        }
        if (!isString(e) || e.getAsString().isBlank()) {
            problems.add(path + ": expected a non-empty string, found " + e);
            return null;
        }
        return e.getAsString().trim();
    }

    private static boolean isString(JsonElement e) {
        return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isString();
    }

    private static boolean isInt(JsonElement e) {
        if (e == null || !e.isJsonPrimitive() || !((JsonPrimitive) e).isNumber()) {
            return false;
        }
        try {
            e.getAsBigDecimal().longValueExact();
            return true;
        } catch (ArithmeticException ex) {
            return false;
        }
    }

    private static String kind(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return "null";
        }
        if (e.isJsonObject()) {
            return "an object";
        }
        if (e.isJsonArray()) {
            return e.getAsJsonArray().isEmpty() ? "an empty array" : "an array";
        }
        return e.toString();
    }

    @SafeVarargs
    private static String known(Set<String>... sets) {
        java.util.TreeSet<String> all = new java.util.TreeSet<>();
        for (Set<String> s : sets) {
            all.addAll(s);
        }
        return String.join(", ", all);
    }
}
