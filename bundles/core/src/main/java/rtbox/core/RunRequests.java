package rtbox.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
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
import rtbox.json.JsonFields;
import rtbox.json.JsonProblem;
import rtbox.json.StrictJson;

/**
 * Over 400 lines on purpose: the one reader of a run request's JSON, every member with its
 * check, its path and its deprecated spelling, kept together so that no front end reads one
 * differently.
 *
 * <p>The one reader of a run request's JSON. One shape, the plan cell's, is also the MQTT
 * {@code run} command's body and what the control room starts (a plan of such cells):
 *
 * <pre>
 * {"probe": "timer",
 *  "parameters": {"interval_us": 1000, "cpus": [0], "histogram_us": 10000, "mlock": true, "options": {"k": "v"}},
 *  "policy": "fifo:80", "tuning": {"nice": -5}, "loads": ["pipe:mode=rtt"],
 *  "warmup": "1s", "duration": "10s", "loops": 0, "pwcet": true,
 *  "thresholds": {"max_us": 1000, "p99_us": 100, "p999_us": 200, "overflows": 0, "missed_deadlines": 0,
 *                 "jvm_stall_us": 1000, "pwcet_us": 2000, "pwcet_per_hour": 1e-9}}
 * </pre>
 *
 * The published schema is docs/schema/run-request.schema.json (RunRequestSchemaTest keeps
 * the two the same). Every problem is collected with its JSON path rather than stopping at
 * the first (a plan lists them all); names deprecated for one release (the MQTT body's
 * before: {@code parameters.duration}, {@code parameters.policy} with {@code priority},
 * {@code max_latency_us}, {@code jvm_stall_budget_us}, ...) are read as their new names and
 * a note says so. Values use {@link RunSchema}'s grammars and ranges.
 */
public final class RunRequests {
    private RunRequests() {
    }

    /** The members of a run request, in the schema's order. */
    public static final Set<String> FIELDS = ordered("probe", "parameters", "policy", "tuning", "loads", "warmup",
            "duration", "loops", "pwcet", "thresholds");
    /** The members of {@code thresholds} that are no threshold of their own: {@code pwcet_us}'s probability. @since 2.3 */
    public static final Set<String> THRESHOLD_COMPANIONS = ordered(RunSchema.PWCET_PER_HOUR);
    /** The members of {@code parameters}. */
    public static final Set<String> PARAMETERS = ordered("interval_us", "cpus", "histogram_us", "mlock", "options");
    /** The members of {@code tuning} (applied by the scheduling tuner, put back after the run). */
    public static final Set<String> TUNING = ordered("nice", "timer_slack_ns", "cpu_dma_latency_us", "rt_runtime_us",
            "iso_period_ms", "iso_sample_ms");
    /** The members of a load written as an object. */
    public static final Set<String> LOAD = ordered("workload", "parameters");
    /** Members of {@code parameters} deprecated for one release: they are the top's now ({@code priority} goes into {@code policy}). */
    public static final Set<String> DEPRECATED_PARAMETERS = ordered("policy", "priority", "duration", "warmup", "loops");

    /** A run request's members as read, each null where not given; {@link #with} lays a cell over its base. */
    public record Fields(String probe, Long intervalUs, int[] cpus, Integer histogramUs, Boolean mlock,
            Map<String, String> options, PolicySpec policy, Map<String, String> tuning, List<LoadSpec> loads,
            Long warmupNs, Long durationNs, Long loops, Map<RunSchema.Threshold, Long> thresholds, Boolean pwcet,
            Double pwcetPerHour) {

        /** Nothing given. */
        public static final Fields NONE = new Fields(null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null);

        /** Members without the pWCET's (as before 2.3). */
        public Fields(String probe, Long intervalUs, int[] cpus, Integer histogramUs, Boolean mlock,
                Map<String, String> options, PolicySpec policy, Map<String, String> tuning, List<LoadSpec> loads,
                Long warmupNs, Long durationNs, Long loops, Map<RunSchema.Threshold, Long> thresholds) {
            this(probe, intervalUs, cpus, histogramUs, mlock, options, policy, tuning, loads, warmupNs, durationNs,
                    loops, thresholds, null, null);
        }

        /** This base with {@code over}'s members laid over it: options, tuning and thresholds key by key, the rest whole. */
        public Fields with(Fields over) {
            return new Fields(or(over.probe, probe), or(over.intervalUs, intervalUs), or(over.cpus, cpus),
                    or(over.histogramUs, histogramUs), or(over.mlock, mlock), merge(options, over.options),
                    or(over.policy, policy), merge(tuning, over.tuning), or(over.loads, loads),
                    or(over.warmupNs, warmupNs), or(over.durationNs, durationNs), or(over.loops, loops),
                    merge(thresholds, over.thresholds), or(over.pwcet, pwcet), or(over.pwcetPerHour, pwcetPerHour));
        }

        /** Whether the run is to estimate its pWCET ({@code "pwcet": true}). @since 2.3 */
        public boolean wantsPwcet() {
            return pwcet != null && pwcet;
        }

        /** The run's parameters in a plan, defaults where not given: ISO runs its threads at FIFO and the tuner demotes them. */
        public RunParameters parameters() {
            return parameters(true);
        }

        /**
         * The run's parameters, defaults where not given; {@code tuned}: the scheduling tuner applies
         * SCHED_ISO (a plan), so the threads start at FIFO; else the policy is asked of the kernel as is.
         */
        public RunParameters parameters(boolean tuned) {
            PolicySpec p = policy == null ? PolicySpec.DEFAULT : policy;
            RunParameters.Builder b = RunParameters.builder()
                    .intervalUs(intervalUs == null ? RunSchema.DEFAULT_INTERVAL_US : intervalUs)
                    .policy(tuned && p.policy() == SchedPolicy.ISO ? SchedPolicy.FIFO : p.policy())
                    .priority(p.threadPriority())
                    .cpus(cpus == null ? new int[] {0} : cpus)
                    .durationNs(durationNs == null ? 0 : durationNs)
                    .loops(loops == null ? 0 : loops)
                    .warmupNs(warmupNs == null ? RunSchema.DEFAULT_WARMUP_NS : warmupNs)
                    .histogramLimitUs(histogramUs == null ? RunSchema.DEFAULT_HISTOGRAM_US : histogramUs)
                    .lockMemory(mlock != null && mlock);
            if (options != null) {
                options.forEach(b::option);
            }
            return b.build();
        }

        /** The thresholds, each not given its {@link RunSchema.Threshold#fallback()}. */
        public Thresholds thresholdValues() {
            return RunSchema.thresholds(thresholds == null ? Map.of() : thresholds, pwcetPerHour);
        }

        /** Whether the scheduling tuner must take part (SCHED_ISO, its share, or tuning). */
        public boolean needsTuner() {
            return policy != null && policy.needsTuner() || tuning != null && !tuning.isEmpty();
        }

        private static <T> T or(T a, T b) {
            return a != null ? a : b;
        }

        private static <K, V> Map<K, V> merge(Map<K, V> a, Map<K, V> b) {
            if (a == null || b == null) {
                return a == null ? b : a;
            }
            Map<K, V> m = new LinkedHashMap<>(a);
            m.putAll(b);
            return m;
        }
    }

    /**
     * One run request from its JSON text (the MQTT {@code run} body as a string, a file), read
     * strictly (rtbox.json): {@link #request(JsonObject, Collection, String, List)}.
     */
    public static RunRequest request(String json, Collection<String> alsoKnown, String command, List<String> notes)
            throws RtboxException {
        try {
            return request(JsonFields.of(StrictJson.parse(json), "$").object(), alsoKnown, command, notes);
        } catch (JsonProblem p) {
            throw new RtboxException(subject(p.path()), p.getMessage());
        }
    }

    /**
     * One run request to run now, without the scheduling tuner (the MQTT {@code run} verb,
     * {@code rtbox ctl run}): the first problem as an {@link RtboxException} whose subject is
     * the member's name; notes of deprecated names into {@code notes}. {@code alsoKnown}: the
     * envelope's members the caller reads itself ({@code run}). A request that needs the tuner
     * (SCHED_ISO, {@code tuning}) is refused: it runs as a one-cell plan.
     */
    public static RunRequest request(JsonObject o, Collection<String> alsoKnown, String command, List<String> notes)
            throws RtboxException {
        List<String> problems = new ArrayList<>();
        Fields f = read(o, "$", alsoKnown, problems, notes);
        if (problems.isEmpty() && (f.probe() == null || f.probe().isBlank())) {
            problems.add("$.probe: missing: name the probe to run, e.g. \"probe\": \"timer\"");
        }
        if (problems.isEmpty() && f.durationNs() == null && f.loops() == null) {
            problems.add("$.duration: missing: give a duration (e.g. \"duration\": \"10s\") or loops: a remote run"
                    + " must end by itself");
        }
        if (problems.isEmpty() && f.tuning() != null && !f.tuning().isEmpty()) {
            problems.add("$.tuning: needs the scheduling tuner, which runs plans: send it as a one-cell plan (the plan"
                    + " verb)");
        } else if (problems.isEmpty() && f.policy() != null && f.policy().isoCpu() >= 0) {
            problems.add("$.policy: '" + f.policy().text() + "': an ISO share needs the scheduling tuner, which runs"
                    + " plans: send it as a one-cell plan (the plan verb), or give plain iso");
        }
        if (!problems.isEmpty()) {
            String first = problems.get(0);
            throw new RtboxException(subject(first.substring(0, Math.max(0, first.indexOf(':')))), first);
        }
        return new RunRequest(f.probe(), f.parameters(false), f.thresholdValues(), command, f.loads(), f.wantsPwcet());
    }

    /** The last name in a path ({@code $.parameters.cpus[1]}: {@code cpus}): what the error's subject is. */
    private static String subject(String path) {
        String p = path.replaceAll("\\[\\d+\\]$", "");
        int dot = p.lastIndexOf('.');
        return dot < 0 ? p : p.substring(dot + 1);
    }

    /**
     * The members of one run request (or of a plan's base or cell) at {@code path}: each
     * checked, every problem into {@code problems} as {@code "PATH: what, and what would be
     * right"}, every deprecated name read as its new one with a note into {@code notes}. A
     * member the reader does not know is a problem unless it is one of {@code alsoKnown}.
     */
    public static Fields read(JsonObject o, String path, Collection<String> alsoKnown, List<String> problems,
            List<String> notes) {
        return new Reader(path, problems, notes).read(o, alsoKnown);
    }

    /** A list of loads ({@code "NAME:K=V"} or {@code {"workload": NAME, "parameters": {...}}}) at {@code path}; null when bad. */
    public static List<LoadSpec> loads(JsonElement e, String path, List<String> problems) {
        return new Reader(path, problems, new ArrayList<>()).loads(e, path);
    }

    /** One pass over one object, problems collected. */
    private static final class Reader {
        final String path;
        final List<String> problems;
        final List<String> notes;

        Reader(String path, List<String> problems, List<String> notes) {
            this.path = path;
            this.problems = problems;
            this.notes = notes;
        }

        Fields read(JsonObject o, Collection<String> alsoKnown) {
            for (String k : o.keySet()) {
                if (!FIELDS.contains(k) && !alsoKnown.contains(k)) {
                    Set<String> known = new TreeSet<>(FIELDS);
                    known.addAll(alsoKnown);
                    problems.add(path + "." + k + ": unknown key: known are " + String.join(", ", known));
                }
            }
            Map<String, JsonElement> top = new LinkedHashMap<>();
            for (String k : FIELDS) {
                if (o.has(k)) {
                    top.put(k, o.get(k));
                }
            }
            Map<String, String> at = new LinkedHashMap<>(); // member -> its path, where it was found
            FIELDS.forEach(k -> at.put(k, path + "." + k));
            Long intervalUs = null, prio = null;
            Integer histogramUs = null;
            Boolean mlock = null;
            int[] cpus = null;
            Map<String, String> options = null;
            JsonElement p = o.get("parameters");
            if (p != null) {
                String pp = path + ".parameters";
                JsonObject po = object(p, pp, PARAMETERS, DEPRECATED_PARAMETERS);
                if (po != null) {
                    intervalUs = whole(po.get("interval_us"), pp + ".interval_us", RunSchema.MIN_INTERVAL_US,
                            RunSchema.MAX_INTERVAL_US);
                    Long h = whole(po.get("histogram_us"), pp + ".histogram_us", 1, RunSchema.MAX_HISTOGRAM_US);
                    histogramUs = h == null ? null : h.intValue();
                    mlock = bool(po.get("mlock"), pp + ".mlock");
                    cpus = po.has("cpus") ? cpus(po.get("cpus"), pp + ".cpus") : null;
                    options = po.has("options") ? strings(po.get("options"), pp + ".options") : null;
                    for (String old : DEPRECATED_PARAMETERS) {
                        if (!po.has(old)) {
                            continue;
                        }
                        if (old.equals("priority")) {
                            prio = whole(po.get(old), pp + ".priority", 0, RunSchema.MAX_PRIORITY);
                            notes.add(pp + ".priority: deprecated (accepted until the next release): write it in the"
                                    + " policy, \"policy\": \"fifo:" + (prio == null ? "80" : prio) + "\"");
                        } else if (top.containsKey(old)) {
                            problems.add(pp + "." + old + ": given at the top too: give it once, at the top");
                        } else {
                            top.put(old, po.get(old));
                            at.put(old, pp + "." + old);
                            notes.add(pp + "." + old + ": deprecated (accepted until the next release): write \""
                                    + old + "\" at the top of the request");
                        }
                    }
                }
            }
            String probe = string(top.get("probe"), at.get("probe"));
            PolicySpec policy = policy(top.get("policy"), at.get("policy"), prio);
            Map<String, String> tuning = top.containsKey("tuning") ? tuning(top.get("tuning"), at.get("tuning")) : null;
            List<LoadSpec> loads = top.containsKey("loads") ? loads(top.get("loads"), at.get("loads")) : null;
            Long warmupNs = duration(top.get("warmup"), at.get("warmup"), false);
            Long durationNs = duration(top.get("duration"), at.get("duration"), true);
            Long loops = whole(top.get("loops"), at.get("loops"), 1, Long.MAX_VALUE);
            Map<RunSchema.Threshold, Long> thresholds = top.containsKey("thresholds")
                    ? thresholds(top.get("thresholds"), at.get("thresholds")) : null;
            Boolean pwcet = bool(top.get("pwcet"), at.get("pwcet"));
            Double perHour = top.containsKey("thresholds") && top.get("thresholds").isJsonObject()
                    ? probability(top.get("thresholds").getAsJsonObject().get(RunSchema.PWCET_PER_HOUR),
                            at.get("thresholds") + "." + RunSchema.PWCET_PER_HOUR) : null;
            return new Fields(probe, intervalUs, cpus, histogramUs, mlock, options, policy, tuning, loads, warmupNs,
                    durationNs, loops, thresholds, pwcet, perHour);
        }

        private Double probability(JsonElement e, String path) {
            if (e == null) {
                return null;
            }
            if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isNumber()) {
                problems.add(path + ": expected a probability such as 1e-9, found " + kind(e));
                return null;
            }
            double p = e.getAsDouble();
            if (!(p > 0 && p < 1)) {
                problems.add(path + ": " + StrictJson.show(e) + " is not a probability: give more than 0 and less than 1,"
                        + " e.g. 1e-9");
                return null;
            }
            return p;
        }

        private PolicySpec policy(JsonElement e, String at, Long prio) {
            if (e == null) {
                if (prio != null && prio > 0) {
                    return PolicySpec.parse("fifo:" + prio, m -> problems.add(at + ": " + m));
                }
                return null;
            }
            if (!isString(e)) {
                problems.add(at + ": expected a policy such as \"fifo:80\" or \"iso@70\", found " + StrictJson.show(e));
                return null;
            }
            String text = e.getAsString();
            if (prio != null && prio > 0 && !text.contains(":")) {
                text = text + ":" + prio;
            }
            return PolicySpec.parse(text, m -> problems.add(at + ": " + m));
        }

        private Map<String, String> tuning(JsonElement e, String tp) {
            JsonObject to = object(e, tp, TUNING, Set.of());
            if (to == null) {
                return null;
            }
            Map<String, String> m = new LinkedHashMap<>();
            put(m, "nice", whole(to.get("nice"), tp + ".nice", -20, 19));
            put(m, "timer_slack_ns", whole(to.get("timer_slack_ns"), tp + ".timer_slack_ns", 1, 1_000_000_000L));
            put(m, "cpu_dma_latency_us", whole(to.get("cpu_dma_latency_us"), tp + ".cpu_dma_latency_us", 0,
                    2_000_000_000L));
            put(m, "rt_runtime_us", whole(to.get("rt_runtime_us"), tp + ".rt_runtime_us", -1, Integer.MAX_VALUE));
            // Emulated ISO's averaging period and tick (the tuner's ranges).
            put(m, "iso_period_ms", whole(to.get("iso_period_ms"), tp + ".iso_period_ms", 100, 600_000));
            put(m, "iso_sample_ms", whole(to.get("iso_sample_ms"), tp + ".iso_sample_ms", 4, 10));
            return m;
        }

        private Map<RunSchema.Threshold, Long> thresholds(JsonElement e, String tp) {
            // Unknown names are told the current ones, not the deprecated.
            Set<String> current = new LinkedHashSet<>();
            for (RunSchema.Threshold t : RunSchema.Threshold.values()) {
                current.add(t.key());
                current.addAll(t.synonyms());
            }
            current.addAll(THRESHOLD_COMPANIONS);
            Set<String> known = new LinkedHashSet<>(RunSchema.Threshold.names());
            known.addAll(THRESHOLD_COMPANIONS);
            JsonObject to = object(e, tp, current, known);
            if (to == null) {
                return null;
            }
            Map<RunSchema.Threshold, Long> m = new EnumMap<>(RunSchema.Threshold.class);
            Map<RunSchema.Threshold, String> given = new EnumMap<>(RunSchema.Threshold.class);
            for (String k : to.keySet()) {
                RunSchema.Threshold t = RunSchema.Threshold.named(k);
                if (t == null) {
                    continue; // reported by object()
                }
                String before = given.put(t, k);
                if (before != null) {
                    problems.add(tp + "." + k + ": the same threshold as " + before + ": give it once (as " + t.key()
                            + ")");
                    continue;
                }
                if (t.deprecated().contains(k)) {
                    notes.add(tp + "." + k + ": deprecated name (accepted until the next release): write " + t.key());
                }
                // A threshold that is not wanted is left out: -1 ("none") in JSON would be a second way
                // to say it, and a negative latency in a stored request reads as a figure. Only the JVM's
                // budget takes -1, which turns its default (1000 us) off.
                Long n = whole(to.get(k), tp + "." + k, t == RunSchema.Threshold.JVM_STALL_BUDGET ? -1 : 0,
                        Long.MAX_VALUE);
                if (n != null) {
                    m.put(t, n);
                }
            }
            return m;
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
                    JsonObject lo = object(x, p, LOAD, Set.of());
                    String w = string(lo.get("workload"), p + ".workload");
                    if (!lo.has("workload")) {
                        problems.add(p + ": no \"workload\": name the workload, e.g. \"pipe\"");
                    }
                    Map<String, String> params = lo.has("parameters") ? strings(lo.get("parameters"),
                            p + ".parameters") : Map.of();
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
            try {
                if (isString(e)) {
                    return RunSchema.cpus(path, e.getAsString());
                }
                if (e.isJsonArray() && !e.getAsJsonArray().isEmpty()) {
                    JsonArray a = e.getAsJsonArray();
                    int[] out = new int[a.size()];
                    for (int i = 0; i < a.size(); i++) {
                        if (a.get(i).isJsonNull()) {
                            problems.add(path + "[" + i + "]: expected a CPU number, found null");
                            return null;
                        }
                        Long c = whole(a.get(i), path + "[" + i + "]", 0, RunSchema.MAX_CPU);
                        if (c == null) {
                            return null;
                        }
                        out[i] = c.intValue();
                    }
                    return RunSchema.distinctCpus(path, out);
                }
            } catch (RtboxException ex) {
                problems.add(path + ": " + ex.getMessage().replaceFirst("^" + java.util.regex.Pattern.quote(path)
                        + ":? ", ""));
                return null;
            }
            problems.add(path + ": expected a CPU list such as [0, 1] or \"0-3,6\", found " + kind(e));
            return null;
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

        private JsonObject object(JsonElement e, String path, Set<String> keys, Set<String> alsoKnown) {
            if (!e.isJsonObject()) {
                problems.add(path + ": expected an object, found " + kind(e));
                return null;
            }
            for (String k : e.getAsJsonObject().keySet()) {
                if (!keys.contains(k) && !alsoKnown.contains(k)) {
                    problems.add(path + "." + k + ": unknown key: known are " + String.join(", ", new TreeSet<>(keys)));
                }
            }
            return e.getAsJsonObject();
        }

        private Long whole(JsonElement e, String path, long min, long max) {
            if (e == null || e.isJsonNull()) {
                return null;
            }
            try {
                return JsonFields.whole(e, path, min, max);
            } catch (JsonProblem p) {
                problems.add(p.getMessage().replace(": expected a number, got", ": expected a whole number, found")
                        .replace(": expected a whole number, got", ": expected a whole number, found"));
                return null;
            }
        }

        private Boolean bool(JsonElement e, String path) {
            if (e == null) {
                return null;
            }
            if (e.isJsonPrimitive() && e.getAsJsonPrimitive().isBoolean()) {
                return e.getAsBoolean();
            }
            problems.add(path + ": expected true or false, found " + StrictJson.show(e));
            return null;
        }

        private Long duration(JsonElement e, String path, boolean positive) {
            if (e == null) {
                return null;
            }
            long ns;
            if (e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber()) {
                try {
                    ns = RunSchema.duration(path, e.getAsString()); // a number of seconds, exact as written
                } catch (RtboxException ex) {
                    problems.add(path + ": " + e + " is not a time: give 0 or more seconds, or \"10s\"");
                    return null;
                }
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
            if (positive && ns == 0) {
                problems.add(path + ": " + e + " must be more than zero");
                return null;
            }
            return ns;
        }

        private String string(JsonElement e, String path) {
            if (e == null) {
                return null;
            }
            if (!isString(e) || e.getAsString().isBlank()) {
                problems.add(path + ": expected a non-empty string, found " + StrictJson.show(e));
                return null;
            }
            return e.getAsString().trim();
        }

        private static void put(Map<String, String> m, String k, Long v) {
            if (v != null) {
                m.put(k, Long.toString(v));
            }
        }
    }

    private static boolean isString(JsonElement e) {
        return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isString();
    }

    /** A value as a problem names it: "an object", "an empty array", else its JSON. */
    public static String kind(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return "null";
        }
        if (e.isJsonObject()) {
            return "an object";
        }
        if (e.isJsonArray()) {
            return e.getAsJsonArray().isEmpty() ? "an empty array" : "an array";
        }
        return StrictJson.show(e);
    }

    private static Set<String> ordered(String... names) {
        return java.util.Collections.unmodifiableSet(new LinkedHashSet<>(List.of(names)));
    }
}
