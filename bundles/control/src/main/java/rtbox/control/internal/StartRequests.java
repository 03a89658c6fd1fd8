package rtbox.control.internal;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * A start as POST /api/v1/starts asks it, read and checked whole before anything is stored or
 * sent: its fields, its targets, the plan (rtbox.plan's check, through the library), and per
 * appliance the values of the plan's appliance-dependent parameters ({@link PlanInputs}).
 */
final class StartRequests {
    private final Db db;
    private final PlanLibrary library;

    StartRequests(Db db, PlanLibrary library) {
        this.db = db;
        this.library = library;
    }

    /** A start for one appliance, all checked: the plan as it goes to that appliance. */
    record Prepared(JsonObject target, JsonObject plan, String text, String sha, boolean forRecord) {
        String appliance() {
            return Json.string(target, "appliance");
        }
    }

    /** What POST /api/v1/starts asks, checked whole before anything is sent. */
    record Request(String name, Integer version, String sha, List<Prepared> each) {
    }

    /**
     * Reads and checks a start: every field, the plan (rtbox.plan's check), and per appliance
     * the values of the plan's appliance-dependent parameters ({@link PlanInputs}: given in the
     * target's or the request's {@code inputs}, else the plan's or the appliance's default).
     */
    Request prepare(JsonObject req) throws SQLException {
        // Every field checked before anything is stored or sent (the plan itself by rtbox.plan below).
        rtbox.json.JsonFields fields = Input.fields(req, List.of("plan", "version", "targets", "line", "inputs",
                "record"));
        Input.text(fields, "line", 64);
        Boolean record;
        try {
            record = fields.optBool("record");
        } catch (rtbox.json.JsonProblem problem) {
            throw new BadRequest(problem.getMessage());
        }
        JsonObject common = inputs(req, "$.inputs");
        List<JsonObject> targets = targets(req);
        for (int i = 0; Boolean.TRUE.equals(record) && i < targets.size(); i++) {
            String serial = Json.string(targets.get(i), "serial");
            if (serial == null || serial.isEmpty()) {
                throw new BadRequest("$.record: a record needs a controller serial on every target, and "
                        + Json.string(targets.get(i), "appliance") + " has none");
            }
        }
        JsonElement p = req.get("plan");
        String text;
        String name;
        Integer version = null;
        if (p != null && p.isJsonObject()) {
            text = Json.GSON.toJson(p);
            name = Json.string(p.getAsJsonObject(), "name");
        } else if (Input.isText(p)) {
            name = Input.check("$.plan", p.getAsString(), 200);
            Long v = req.has("version") ? Json.whole(req, "version") : null;
            if (req.has("version") && (v == null || v < 1 || v > Integer.MAX_VALUE)) {
                throw new BadRequest("$.version: a version of the plan, 1 or more");
            }
            PlanStore.Version stored = library.get(name, v == null ? null : v.intValue());
            text = stored.text();
            version = stored.version();
        } else {
            throw new BadRequest("plan: give a plan's name in the library or the plan itself");
        }
        JsonObject check = library.check(text);
        if (!check.get("ok").getAsBoolean()) {
            throw new PlanLibrary.Problems("the plan has problems; nothing was sent", check.getAsJsonArray("problems"));
        }
        JsonObject plan = PlanLibrary.parse(text);
        String sha = Passwords.sha256(text.getBytes(StandardCharsets.UTF_8));
        if (targets.isEmpty()) {
            throw new BadRequest("no appliance to start on: give targets or a line with online appliances");
        }
        PlanInputs in = PlanInputs.of(plan);
        List<Prepared> each = new ArrayList<>();
        int i = 0;
        for (JsonObject t : targets) {
            String at = "$.targets[" + i++ + "].inputs";
            // A start for a record (by default one with a controller serial) runs the self-test first.
            boolean forRecord = record != null ? record : Json.string(t, "serial") != null
                    && !Json.string(t, "serial").isEmpty();
            if (!in.any()) {
                each.add(new Prepared(t, plan, text, sha, forRecord));
                continue;
            }
            String appliance = Json.string(t, "appliance");
            JsonObject own = inputs(t, at);
            JsonObject selftest = selftestBody(appliance);
            JsonObject described = described(in.describe(java.util.Collections.singletonMap(appliance, selftest)));
            String path = pick(own, common, PlanInputs.BLOCKIO_PATH);
            String cpus = pick(own, common, PlanInputs.CPUS);
            JsonObject b = described.getAsJsonObject(PlanInputs.BLOCKIO_PATH);
            if (b != null && path == null) {
                path = Json.string(b.getAsJsonObject("appliances").getAsJsonObject(appliance), "default");
                if (path == null) {
                    throw new BadRequest(at + "." + PlanInputs.BLOCKIO_PATH + ": the plan's blockio load needs the"
                            + " block device of " + appliance + " to read, and " + appliance + " reported none"
                            + " (its self-test): give one");
                }
            }
            JsonObject c = described.getAsJsonObject(PlanInputs.CPUS);
            if (c != null && cpus != null) {
                JsonArray choices = c.getAsJsonObject("appliances").getAsJsonObject(appliance).getAsJsonArray("choices");
                try {
                    for (int cpu : rtbox.os.Sched.parseCpuList(cpus)) {
                        if (!choices.isEmpty() && !choices.contains(new com.google.gson.JsonPrimitive(cpu))) {
                            throw new BadRequest(at + "." + PlanInputs.CPUS + ": CPU " + cpu + " is not among "
                                    + appliance + "'s CPUs (" + PlanInputs.cpuList(choices) + ")");
                        }
                    }
                } catch (IllegalArgumentException e) {
                    throw new BadRequest(at + "." + PlanInputs.CPUS + ": '" + Input.shown(cpus)
                            + "' is not a CPU list such as 0 or 0-3,6");
                }
            }
            JsonObject applied = in.apply(plan, b == null ? null : path, c == null ? null : cpus);
            String appliedText = applied.equals(plan) ? text : Json.GSON.toJson(applied);
            each.add(new Prepared(t, applied, appliedText, appliedText.equals(text) ? sha
                    : Passwords.sha256(appliedText.getBytes(StandardCharsets.UTF_8)), forRecord));
        }
        return new Request(name, version, sha, each);
    }

    private static JsonObject described(JsonArray inputs) {
        JsonObject o = new JsonObject();
        for (JsonElement e : inputs) {
            o.add(Json.string(e.getAsJsonObject(), "name"), e);
        }
        return o;
    }

    private static String pick(JsonObject own, JsonObject common, String key) {
        String v = own == null ? null : Json.string(own, key);
        return v != null ? v : common == null ? null : Json.string(common, key);
    }

    /** An {@code inputs} object's values, checked: {@code blockio_path} and {@code cpus}, text. */
    private static JsonObject inputs(JsonObject o, String at) {
        JsonElement e = o.get("inputs");
        if (e == null || e.isJsonNull()) {
            return null;
        }
        if (!e.isJsonObject()) {
            throw new BadRequest(at + ": an object such as {\"blockio_path\":\"/dev/sda\",\"cpus\":\"0-1\"}");
        }
        rtbox.json.JsonFields f;
        try {
            f = rtbox.json.JsonFields.of(e.getAsJsonObject(), at);
            f.onlyKnown(List.of(PlanInputs.BLOCKIO_PATH, PlanInputs.CPUS));
        } catch (rtbox.json.JsonProblem problem) {
            throw new BadRequest(problem.getMessage());
        }
        Input.text(f, PlanInputs.BLOCKIO_PATH, 200);
        Input.text(f, PlanInputs.CPUS, 200);
        return e.getAsJsonObject();
    }

    /** The body of the appliance's last readiness reply (its CPUs and block devices), or null. */
    private JsonObject selftestBody(String appliance) throws SQLException {
        String st;
        try (Connection c = db.connection()) {
            st = Sql.one(c, "SELECT readiness FROM appliance WHERE id = ?", rs -> rs.getString(1), appliance);
        }
        return st == null ? null : Json.object(Json.parse(st), "body");
    }

    /** GET /api/v1/plans/NAME/inputs?appliances=..: what a start of that plan asks, with each appliance's choices. */
    JsonObject inputs(String name, List<String> appliances) throws SQLException {
        PlanStore.Version v = library.get(name, null);
        PlanInputs in = PlanInputs.of(PlanLibrary.parse(v.text()));
        Map<String, JsonObject> selftests = new LinkedHashMap<>();
        int i = 0;
        for (String a : appliances) {
            if (!a.isEmpty()) {
                selftests.put(Input.id("?appliances[" + i++ + "]", a), selftestBody(a));
            }
        }
        JsonObject o = new JsonObject();
        o.addProperty("plan", name);
        o.addProperty("version", v.version());
        o.add("inputs", in.describe(selftests));
        return o;
    }

    private List<JsonObject> targets(JsonObject req) throws SQLException {
        Map<String, JsonObject> out = new LinkedHashMap<>();
        JsonArray ts = Json.array(req, "targets");
        if (req.has("targets") && ts == null) {
            throw new BadRequest("$.targets: a list of appliances ({\"appliance\":..,\"serial\":..,\"model\":..} or ids)");
        }
        if (ts != null) {
            int i = 0;
            for (JsonElement e : ts) {
                String at = "$.targets[" + i++ + "]";
                JsonObject t = e.isJsonObject() ? e.getAsJsonObject() : null;
                if (t == null && Input.isText(e)) {
                    t = new JsonObject();
                    t.addProperty("appliance", Input.id(at, e.getAsString()));
                } else if (t != null) {
                    rtbox.json.JsonFields tf;
                    try {
                        tf = rtbox.json.JsonFields.of(t, at);
                        tf.onlyKnown(List.of("appliance", "serial", "model", "inputs"));
                    } catch (rtbox.json.JsonProblem problem) {
                        throw new BadRequest(problem.getMessage());
                    }
                    Input.id(tf, "appliance", true);
                    Input.text(tf, "serial", Input.NAME);
                    Input.text(tf, "model", Input.NAME);
                } else {
                    throw new BadRequest(at + ": an appliance id or {\"appliance\":..,\"serial\":..,\"model\":..}");
                }
                out.put(Json.string(t, "appliance"), t);
            }
        }
        String line = Json.string(req, "line");
        if (line != null) {
            try (Connection c = db.connection()) {
                // A line's registered appliances only: an unregistered one is started only by naming it.
                for (String a : Sql.list(c, "SELECT id FROM appliance WHERE line = ? AND state <> 'offline' AND"
                        + " registered ORDER BY id", rs -> rs.getString(1), line)) {
                    JsonObject t = new JsonObject();
                    t.addProperty("appliance", a);
                    out.putIfAbsent(a, t);
                }
            }
        }
        return new ArrayList<>(out.values());
    }

}
