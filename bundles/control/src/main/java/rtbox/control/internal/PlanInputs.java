package rtbox.control.internal;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;

/**
 * A plan's parameters that depend on the appliance it runs on, asked at start: the block
 * device (or file) a {@code blockio} load reads ({@code blockio_path}) and the CPUs the
 * probe measures on ({@code cpus}). The control room cannot check these against its own
 * machine (its disks and CPUs are not the appliance's: {@code fat-standard}'s blockio load
 * names no path at all), so {@link #forCheck} puts stand-ins in their place for the control
 * room's check and the appliance checks the real values when the plan arrives. The choices
 * come from the appliance's self-test reply ({@code cpus}, {@code block_devices}).
 */
final class PlanInputs {
    static final String BLOCKIO_PATH = "blockio_path", CPUS = "cpus";
    /** The blockio path the control room checks with: the problems naming it are the appliance's to find. */
    static final String STAND_IN = "/rtbox-control/the-appliance-s-block-device";
    private static final Pattern PATH = Pattern.compile("/[A-Za-z0-9._/+-]{1,200}");

    private final List<String> blockioAt = new ArrayList<>();
    private final Set<String> blockioPaths = new LinkedHashSet<>();
    private final List<String> cpusAt = new ArrayList<>();
    private final Set<String> cpuValues = new LinkedHashSet<>();

    private PlanInputs() {
    }

    /** The inputs of a plan (a JSON object as rtbox.plan reads it). */
    static PlanInputs of(JsonObject plan) {
        PlanInputs in = new PlanInputs();
        in.visit(plan, "$");
        JsonArray cells = plan.get("cells") instanceof JsonArray a ? a : null;
        for (int i = 0; cells != null && i < cells.size(); i++) {
            if (cells.get(i) instanceof JsonObject cell) {
                in.visit(cell, "$.cells[" + i + "]");
            }
        }
        if (plan.get("matrix") instanceof JsonObject m && m.get("load") instanceof JsonObject sets) {
            for (Map.Entry<String, JsonElement> e : sets.entrySet()) {
                if (e.getValue() instanceof JsonArray loads) {
                    in.loads(loads, "$.matrix.load." + e.getKey());
                }
            }
        }
        return in;
    }

    private void visit(JsonObject o, String at) {
        if (o.get("parameters") instanceof JsonObject p && p.has("cpus")) {
            cpusAt.add(at + ".parameters.cpus");
            cpuValues.add(cpuList(p.get("cpus")));
        }
        if (o.get("loads") instanceof JsonArray loads) {
            loads(loads, at + ".loads");
        }
    }

    private void loads(JsonArray loads, String at) {
        for (int i = 0; i < loads.size(); i++) {
            String path = blockioPath(loads.get(i));
            if (path != null) {
                blockioAt.add(at + "[" + i + "]");
                if (!path.isEmpty()) {
                    blockioPaths.add(path);
                }
            }
        }
    }

    /** The path of a blockio load ("" when it names none), null when the load is not blockio. */
    private static String blockioPath(JsonElement load) {
        if (load instanceof JsonPrimitive p && p.isString()) {
            String s = p.getAsString();
            String name = s.contains(":") ? s.substring(0, s.indexOf(':')) : s;
            if (!name.trim().equals("blockio")) {
                return null;
            }
            for (String kv : s.contains(":") ? s.substring(s.indexOf(':') + 1).split(",") : new String[0]) {
                if (kv.trim().startsWith("path=")) {
                    return kv.trim().substring(5);
                }
            }
            return "";
        }
        if (load instanceof JsonObject o && o.get("workload") instanceof JsonPrimitive w && "blockio".equals(
                w.getAsString())) {
            return o.get("parameters") instanceof JsonObject p && p.get("path") instanceof JsonPrimitive path
                    ? path.getAsString() : "";
        }
        return null;
    }

    /** A cpus value as a kernel CPU list ("0-1,3"), or its JSON text when it is not one. */
    static String cpuList(JsonElement cpus) {
        try {
            if (cpus instanceof JsonPrimitive p && p.isString()) {
                return compact(rtbox.os.Sched.parseCpuList(p.getAsString()));
            }
            if (cpus instanceof JsonArray a) {
                int[] c = new int[a.size()];
                for (int i = 0; i < c.length; i++) {
                    c[i] = (int) Json.whole(a.get(i), "$.cpus[" + i + "]", 0, Integer.MAX_VALUE); // 0.5 is no CPU 0
                }
                return compact(c);
            }
        } catch (RuntimeException e) {
            // not a CPU list: rtbox.plan's check names it
        }
        return String.valueOf(cpus);
    }

    static String compact(int[] cpus) {
        TreeSet<Integer> s = new TreeSet<>();
        for (int c : cpus) {
            s.add(c);
        }
        StringBuilder b = new StringBuilder();
        Integer start = null, prev = null;
        for (int c : s) {
            if (prev != null && c == prev + 1) {
                prev = c;
                continue;
            }
            if (start != null) {
                b.append(b.length() > 0 ? "," : "").append(start).append(start.equals(prev) ? "" : "-" + prev);
            }
            start = prev = c;
        }
        if (start != null) {
            b.append(b.length() > 0 ? "," : "").append(start).append(start.equals(prev) ? "" : "-" + prev);
        }
        return b.toString();
    }

    boolean any() {
        return !blockioAt.isEmpty() || cpusOffered();
    }

    /** CPUs are asked when the plan measures on one set of CPUs (cells that pick their own keep them). */
    private boolean cpusOffered() {
        return cpuValues.size() <= 1;
    }

    /**
     * What is asked, for the check's answer and the start page: {@code [{"name","what","at",
     * "default","required"}]}, and per appliance its {@code choices} and {@code default} when
     * {@code selftests} (appliance id to its last self-test reply body, or null) are given.
     */
    JsonArray describe(Map<String, JsonObject> selftests) {
        JsonArray out = new JsonArray();
        if (!blockioAt.isEmpty()) {
            JsonObject b = new JsonObject();
            b.addProperty("name", BLOCKIO_PATH);
            b.addProperty("what", "the block device (or file) the blockio load reads: it is the appliance's");
            b.add("at", strings(blockioAt));
            b.addProperty("default", blockioPaths.size() == 1 ? blockioPaths.iterator().next() : null);
            b.addProperty("required", blockioPaths.size() != 1);
            if (selftests != null) {
                JsonObject per = new JsonObject();
                selftests.forEach((a, st) -> {
                    JsonObject c = new JsonObject();
                    List<String> devices = devices(st);
                    c.add("choices", strings(devices));
                    c.addProperty("default", defaultPath(devices));
                    per.add(a, c);
                });
                b.add("appliances", per);
            }
            out.add(b);
        }
        if (cpusOffered()) {
            JsonObject c = new JsonObject();
            c.addProperty("name", CPUS);
            c.addProperty("what", "the CPUs the probe measures on (one thread each)");
            c.add("at", strings(cpusAt.isEmpty() ? List.of("$.parameters.cpus") : cpusAt));
            c.addProperty("default", defaultCpus());
            c.addProperty("required", false);
            if (selftests != null) {
                JsonObject per = new JsonObject();
                selftests.forEach((a, st) -> {
                    JsonObject o = new JsonObject();
                    String online = st == null ? null : Json.string(st, "cpus");
                    JsonArray choices = new JsonArray();
                    if (online != null) {
                        try {
                            for (int cpu : rtbox.os.Sched.parseCpuList(online)) {
                                choices.add(cpu);
                            }
                        } catch (IllegalArgumentException e) {
                            // an appliance that reported something else: no choices offered
                        }
                    }
                    o.add("choices", choices);
                    o.addProperty("default", defaultCpus());
                    per.add(a, o);
                });
                c.add("appliances", per);
            }
            out.add(c);
        }
        return out;
    }

    private String defaultCpus() {
        return cpuValues.isEmpty() ? "0" : cpuValues.iterator().next();
    }

    /** The block devices an appliance reported in its self-test, readable ones first. */
    static List<String> devices(JsonObject selftest) {
        List<String> readable = new ArrayList<>(), other = new ArrayList<>();
        JsonArray a = selftest == null ? null : Json.array(selftest, "block_devices");
        for (int i = 0; a != null && i < a.size(); i++) {
            if (a.get(i) instanceof JsonObject d && Json.string(d, "path") != null) {
                (Boolean.FALSE.equals(d.has("readable") ? d.get("readable").getAsBoolean() : null) ? other : readable)
                        .add(Json.string(d, "path"));
            }
        }
        readable.addAll(other);
        return readable;
    }

    private String defaultPath(List<String> devices) {
        if (blockioPaths.size() == 1) {
            return blockioPaths.iterator().next();
        }
        return devices.isEmpty() ? null : devices.get(0);
    }

    private static JsonArray strings(List<String> l) {
        JsonArray a = new JsonArray();
        l.forEach(a::add);
        return a;
    }

    private static JsonArray strings(Set<String> l) {
        return strings(new ArrayList<>(l));
    }

    /** The plan as the control room checks it: stand-ins for what only the appliance can check. */
    JsonObject forCheck(JsonObject plan) {
        return apply(plan, blockioAt.isEmpty() ? null : STAND_IN, cpusAt.isEmpty() ? null : "0");
    }

    /** Whether a problem of the control room's check is about a stand-in (the appliance checks the real value). */
    static boolean aboutStandIn(String problem) {
        return problem.contains(STAND_IN);
    }

    /**
     * The plan with the appliance's values: {@code path} in every blockio load, {@code cpus}
     * (a CPU list) wherever the plan gives CPUs, or at its top when it gives none. Null
     * leaves that part as the plan has it.
     */
    JsonObject apply(JsonObject plan, String path, String cpus) {
        JsonObject p = plan.deepCopy();
        if (path != null) {
            if (!PATH.matcher(path).matches()) {
                throw new BadRequest(BLOCKIO_PATH + ": '" + Input.shown(path) + "' is not an absolute path of letters,"
                        + " digits and . _ / + -");
            }
            for (String at : blockioAt) {
                setBlockioPath(p, at, path);
            }
        }
        if (cpus != null && cpusOffered()) {
            JsonArray list = new JsonArray();
            int[] parsed;
            try {
                parsed = rtbox.os.Sched.parseCpuList(cpus);
            } catch (IllegalArgumentException e) {
                throw new BadRequest(CPUS + ": '" + Input.shown(cpus) + "' is not a CPU list such as 0 or 0-3,6");
            }
            for (int c : new TreeSet<>(java.util.Arrays.stream(parsed).boxed().toList())) {
                list.add(c);
            }
            if (cpusAt.isEmpty()) {
                JsonObject params = p.get("parameters") instanceof JsonObject o ? o : new JsonObject();
                params.add("cpus", list);
                p.add("parameters", params);
            }
            for (String at : cpusAt) {
                JsonObject owner = (JsonObject) find(p, at.substring(0, at.length() - ".parameters.cpus".length()));
                owner.getAsJsonObject("parameters").add("cpus", list.deepCopy());
            }
        }
        return p;
    }

    private static void setBlockioPath(JsonObject plan, String at, String path) {
        int open = at.lastIndexOf('[');
        JsonArray loads = (JsonArray) find(plan, at.substring(0, open));
        int i = Integer.parseInt(at.substring(open + 1, at.length() - 1));
        JsonElement load = loads.get(i);
        if (load instanceof JsonObject o) {
            JsonObject params = o.get("parameters") instanceof JsonObject q ? q : new JsonObject();
            params.addProperty("path", path);
            o.add("parameters", params);
            return;
        }
        String s = load.getAsString();
        int colon = s.indexOf(':');
        StringBuilder b = new StringBuilder(colon < 0 ? s.trim() : s.substring(0, colon).trim()).append(':');
        boolean first = true;
        for (String kv : colon < 0 ? new String[0] : s.substring(colon + 1).split(",")) {
            if (kv.trim().isEmpty() || kv.trim().startsWith("path=")) {
                continue;
            }
            b.append(first ? "" : ",").append(kv.trim());
            first = false;
        }
        b.append(first ? "" : ",").append("path=").append(path);
        loads.set(i, new JsonPrimitive(b.toString()));
    }

    /** The element at a path this class made ({@code $.cells[3].loads}, {@code $.matrix.load.NAME}). */
    private static JsonElement find(JsonObject root, String at) {
        JsonElement e = root;
        String rest = at.substring(1);
        if (rest.startsWith(".matrix.load.")) {
            return root.getAsJsonObject("matrix").getAsJsonObject("load").get(rest.substring(".matrix.load.".length()));
        }
        for (String part : rest.split("\\.")) {
            if (part.isEmpty()) {
                continue;
            }
            int b = part.indexOf('[');
            String key = b < 0 ? part : part.substring(0, b);
            e = e.getAsJsonObject().get(key);
            if (b >= 0) {
                e = e.getAsJsonArray().get(Integer.parseInt(part.substring(b + 1, part.length() - 1)));
            }
        }
        return e;
    }
}
