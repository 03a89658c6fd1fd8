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

import rtbox.core.PolicySpec;
import rtbox.api.RtboxException;
import rtbox.api.RunParameters;
import rtbox.core.LoadSpec;
import rtbox.core.RunRequests;
import rtbox.core.RunSchema;
import rtbox.core.Thresholds;
import rtbox.json.JsonFields;
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
 * (replacing the cell's policy) and its named "load" sets (added to the cell's loads);
 * "repetitions" runs the whole list of cells that many times, interleaved (cell 1, cell 2, ...,
 * cell 1, cell 2, ...), so that a drift of the machine spreads over every cell alike. A repeated
 * cell keeps its name: its k-th occurrence in the run is its k-th repetition.
 */
final class PlanParser {
    static final int VERSION = 1;
    static final long DEFAULT_WARMUP_NS = RunSchema.DEFAULT_WARMUP_NS;

    /** Most cells in one plan, the matrix expanded: 1000 one-minute cells are 17 hours. */
    static final int MAX_CELLS = 1000;
    /** The plan's own members ({@code $schema}: the schema an editor completes with, docs/schema/plan.schema.json). */
    static final Set<String> TOP = Set.of("$schema", "rtbox_plan", "name", "description", "matrix", "cells",
            "repetitions");
    /** Most repetitions of a plan's cells: more runs than any comparison of two sets needs. */
    static final int MAX_REPETITIONS = 100;
    /** A cell's members: a run request's (rtbox.core's RunRequests, the one reader) and its name. */
    private static final Set<String> CELL_ONLY = Set.of("name");
    static final Set<String> AXES = Set.of("policy", "load");

    /** The result: the plan's name, its cells, and every problem found. */
    record Parsed(String name, String description, List<Cell> cells, List<String> problems, List<String> notes) {
        Parsed(String name, String description, List<Cell> cells, List<String> problems) {
            this(name, description, cells, problems, List.of());
        }
    }

    private final List<String> problems = new ArrayList<>();
    /** Deprecated names read as their new ones (RunRequests), for plan check to show. */
    private final List<String> notes = new ArrayList<>();

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
        } else {
            try {
                if (JsonFields.whole(v, "$.rtbox_plan") != VERSION) {
                    problems.add("$.rtbox_plan: version " + v + " is not supported: this rtbox reads plan version "
                            + VERSION);
                }
            } catch (JsonProblem p) {
                problems.add("$.rtbox_plan: expected the schema version " + VERSION + ", found " + v);
            }
        }
        String name = string(o, "name", "$.name", true);
        String description = string(o, "description", "$.description", false);
        JsonObject baseFields = new JsonObject();
        for (Map.Entry<String, JsonElement> e : o.entrySet()) {
            if (!TOP.contains(e.getKey()) || CELL_ONLY.contains(e.getKey())) {
                baseFields.add(e.getKey(), e.getValue());
            }
        }
        baseFields.remove("name");
        Spec base = spec(baseFields, "$", TOP);
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
                    specs.add(base.with(spec(a.get(i).getAsJsonObject(), path, CELL_ONLY)));
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
        int repetitions = repetitions(o.get("repetitions"));
        long axes = (long) (policies == null ? 1 : policies.size()) * (loadSets == null ? 1 : loadSets.size());
        long planned = specs.size() * axes * repetitions;
        if (planned > MAX_CELLS) {
            // Checked before the cells are made: a 1000 x 1000 matrix was a million cells, and no reply.
            problems.add("$: the plan has " + planned + " cells (" + specs.size() + " cell entries x " + axes
                    + " matrix combinations" + (repetitions > 1 ? " x " + repetitions + " repetitions" : "")
                    + "): at most " + MAX_CELLS + "; split it into several plans");
            return new Parsed(name == null ? "" : name, description, List.of(), problems);
        }
        long totalNs = 0;
        for (Spec s : specs) {
            Long d = s.f.durationNs();
            totalNs += d == null ? 0
                    : Math.min(d, rtbox.core.toolkit.ParameterChecks.MAX_DURATION_NS) * axes * repetitions;
        }
        if (totalNs > rtbox.core.toolkit.ParameterChecks.MAX_DURATION_NS) {
            problems.add("$: the cells' durations add up to " + Math.round(totalNs / 3600e9) + " h: at most "
                    + rtbox.core.toolkit.ParameterChecks.MAX_DURATION_NS / 3_600_000_000_000L + " h in one plan");
        }
        List<Cell> out = new ArrayList<>();
        for (Spec s : specs) {
            if (s.f.probe() == null && !s.probeGiven) {
                problems.add(s.path + ": no \"probe\": name one here" + (s.path.equals("$") ? "" : " or at the top"));
            }
            if (s.f.durationNs() == null && !s.durationGiven) {
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
        if (repetitions > 1) {
            java.util.Set<String> seen = new java.util.HashSet<>();
            for (Cell c : out) {
                if (!seen.add(c.name())) {
                    // A repetition is told by its name's occurrence: two cells of one name would mix.
                    problems.add(c.source() + ": a second cell named '" + c.name() + "': with \"repetitions\" every"
                            + " cell needs a name of its own (a repeated cell is known by its name)");
                }
            }
        }
        if (!problems.isEmpty()) {
            return new Parsed(name == null ? "" : name, description, List.of(), problems);
        }
        List<Cell> repeated = new ArrayList<>(out);
        for (int r = 2; r <= repetitions; r++) {
            for (Cell c : out) {
                repeated.add(c.at(repeated.size()));
            }
        }
        return new Parsed(name, description, repeated, problems, List.copyOf(notes));
    }

    /** {@code "repetitions"}: 1 when absent; a whole number 1 to {@link #MAX_REPETITIONS}. */
    private int repetitions(JsonElement e) {
        if (e == null) {
            return 1;
        }
        try {
            return (int) JsonFields.whole(e, "$.repetitions", 1, MAX_REPETITIONS);
        } catch (JsonProblem p) {
            problems.add("$.repetitions: expected a whole number of runs of each cell from 1 to " + MAX_REPETITIONS
                    + ", e.g. 5, found " + e);
            return 1;
        }
    }

    private Cell cell(int index, Spec s, PolicySpec axisPolicy, Map.Entry<String, List<LoadSpec>> axisLoad) {
        Map<String, String> axes = new LinkedHashMap<>();
        RunRequests.Fields f = s.f;
        if (axisPolicy != null) {
            f = f.with(new RunRequests.Fields(null, null, null, null, null, null, axisPolicy, null, null, null, null,
                    null, null));
            axes.put("policy", axisPolicy.text());
        }
        List<LoadSpec> loads = new ArrayList<>(f.loads() == null ? List.of() : f.loads());
        if (axisLoad != null) {
            loads.addAll(axisLoad.getValue());
            axes.put("load", axisLoad.getKey());
        }
        String probe = f.probe() == null ? "?" : f.probe();
        String name = s.name != null ? s.name : probe;
        if (axisPolicy != null) {
            name += " " + axisPolicy.text();
        }
        if (axisLoad != null) {
            name += " +" + axisLoad.getKey();
        }
        return new Cell(index, name, s.path, axes, probe, f.parameters(),
                f.policy() == null ? PolicySpec.DEFAULT : f.policy(), f.tuning() == null ? Map.of() : f.tuning(), loads,
                f.thresholdValues(), f.wantsPwcet());
    }

    /** A base or cell: where it is, its name, and its run request's members (RunRequests, the one reader). */
    private record Spec(String path, String name, boolean probeGiven, boolean durationGiven, RunRequests.Fields f) {
        /** This base overridden by a cell. */
        Spec with(Spec c) {
            return new Spec(c.path, c.name != null ? c.name : name, probeGiven || c.probeGiven,
                    durationGiven || c.durationGiven, f.with(c.f));
        }
    }

    private Spec spec(JsonObject o, String path, Set<String> alsoKnown) {
        String name = string(o.asMap(), "name", path + ".name");
        RunRequests.Fields f = RunRequests.read(o, path, alsoKnown, problems, notes);
        boolean durationGiven = o.has("duration") || o.has("parameters") && o.get("parameters").isJsonObject()
                && o.getAsJsonObject("parameters").has("duration");
        return new Spec(path, name, o.has("probe"), durationGiven, f);
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
        return RunRequests.loads(e, path, problems);
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

    private static String kind(JsonElement e) {
        return RunRequests.kind(e);
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
