package rtbox.control.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

import rtbox.api.RtboxException;
import rtbox.plan.PlanException;
import rtbox.plan.Plans;

/**
 * The control room's plans: versions in its database ({@link PlanStore}), filled at start
 * with rtbox's shipped plans (in this bundle, so found whatever the working folder) and at
 * every listing with the plansDir folder's files; each checked by rtbox.plan exactly as
 * {@code rtbox plan check} checks it (same problems, same JSON paths) before anything is
 * sent to an appliance, with what depends on the appliance ({@link PlanInputs}) left to it.
 */
final class PlanLibrary {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.control.plans");
    private final PlanStore store;
    private final Path dir;
    private final Supplier<Plans> plans;
    /** Check answers by the text's SHA-256: a listing does not check every plan again. */
    private final Map<String, JsonObject> checked = new ConcurrentHashMap<>();

    PlanLibrary(PlanStore store, Path dir, Supplier<Plans> plans) {
        this.store = store;
        this.dir = dir;
        this.plans = plans;
    }

    PlanStore store() {
        return store;
    }

    static void checkName(String name) {
        Input.planName("plan name", name);
    }

    /** rtbox's plans/*.json as this bundle carries them (bnd.bnd, shipped-plans/), name to text. */
    static Map<String, String> shippedPlans(org.osgi.framework.Bundle bundle) throws IOException {
        Map<String, String> out = new java.util.TreeMap<>();
        java.util.Enumeration<java.net.URL> e = bundle == null ? null : bundle.findEntries("shipped-plans", "*.json", false);
        while (e != null && e.hasMoreElements()) {
            java.net.URL u = e.nextElement();
            String file = u.getPath().substring(u.getPath().lastIndexOf('/') + 1);
            try (java.io.InputStream in = u.openStream()) {
                out.put(file.substring(0, file.length() - ".json".length()),
                        new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    /** rtbox's shipped plans (name to text) into the library, by {@link PlanStore#importFile}'s rule. */
    void importShipped(Map<String, String> shipped) throws SQLException {
        for (Map.Entry<String, String> e : shipped.entrySet()) {
            PlanStore.Version v = store.importFile(e.getKey(), e.getValue(), PlanStore.SHIPPED);
            if (v != null) {
                LOG.info("plan {} version {} from rtbox's shipped plans", v.name(), v.version());
            }
        }
    }

    /** The plansDir folder's *.json into the library (a plan dropped there appears at the next listing). */
    void importFolder() throws SQLException {
        if (dir == null || !Files.isDirectory(dir)) {
            return;
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "*.json")) {
            for (Path p : s) {
                String name = p.getFileName().toString().replaceFirst("\\.json$", "");
                if (!name.matches("[A-Za-z0-9._-]{1,100}") || name.startsWith(".")) {
                    continue;
                }
                PlanStore.Version v = store.importFile(name, Files.readString(p, StandardCharsets.UTF_8),
                        PlanStore.FOLDER);
                if (v != null) {
                    LOG.info("plan {} version {} from {}", v.name(), v.version(), p);
                }
            }
        } catch (IOException e) {
            LOG.warn("cannot read the plans folder {}: {}", dir, e.getMessage());
        }
    }

    /** A plan's text, the newest version or {@code version}. */
    PlanStore.Version get(String name, Integer version) throws SQLException {
        checkName(name);
        importFolder();
        return store.get(name, version);
    }

    JsonObject list() throws SQLException {
        importFolder();
        JsonArray a = new JsonArray();
        for (PlanStore.Version v : store.latest()) {
            JsonObject p = v.brief();
            JsonObject check = check(v.text());
            p.add("cells", check.get("cells"));
            p.add("problems", check.get("problems"));
            p.add("inputs", check.get("inputs"));
            a.add(p);
        }
        JsonObject o = new JsonObject();
        o.add("plans", a);
        return o;
    }

    JsonObject versions(String name) throws SQLException {
        checkName(name);
        JsonArray a = new JsonArray();
        for (PlanStore.Version v : store.versions(name)) {
            a.add(v.brief());
        }
        if (a.isEmpty()) {
            store.get(name, null);
        }
        JsonObject o = new JsonObject();
        o.addProperty("name", name);
        o.add("versions", a);
        return o;
    }

    /**
     * {@code {"ok":..,"cells":N,"problems":[...],"inputs":[...],"name":..,"sha256":..}} for a
     * plan's text: rtbox.plan's problems with their JSON paths, and the parameters asked at start.
     */
    JsonObject check(String text) {
        String sha = Passwords.sha256(text.getBytes(StandardCharsets.UTF_8));
        JsonObject known = checked.get(sha);
        if (known != null) {
            return known.deepCopy();
        }
        Plans p = plans.get();
        if (p == null) {
            throw new BadRequest(503, "rtbox.plan is not running in this control room: plans cannot be checked");
        }
        JsonArray problems = new JsonArray();
        JsonArray inputs = new JsonArray();
        String name = null;
        int cells = 0;
        JsonObject plan = null;
        try {
            plan = Json.parse(text);
        } catch (IllegalArgumentException e) {
            // not JSON: rtbox.plan words it, with the line and column
        }
        String checkedText = text;
        if (plan != null) {
            PlanInputs in = PlanInputs.of(plan);
            inputs = in.describe(null);
            checkedText = Json.GSON.toJson(in.forCheck(plan));
            name = plan.get("name") instanceof com.google.gson.JsonPrimitive n && n.isString() ? n.getAsString() : null;
        }
        try {
            cells = p.check("plan", checkedText).size();
        } catch (PlanException e) {
            for (String s : e.problems()) {
                if (!PlanInputs.aboutStandIn(s)) {
                    problems.add(s);
                }
            }
        } catch (RtboxException e) {
            if (!PlanInputs.aboutStandIn(e.getMessage())) {
                problems.add(e.getMessage());
            }
        }
        if (problems.isEmpty() && cells == 0 && plan != null) {
            // Only the stand-ins' problems came (the appliance checks those): rtbox.plan's matrix rule counts the cells.
            cells = cellCount(plan);
        }
        JsonObject o = new JsonObject();
        o.addProperty("ok", problems.isEmpty());
        o.addProperty("cells", cells);
        o.add("problems", problems);
        o.add("inputs", inputs);
        o.addProperty("name", name);
        o.addProperty("sha256", sha);
        if (checked.size() > 512) {
            checked.clear();
        }
        checked.put(sha, o.deepCopy());
        return o;
    }

    /** Cells x matrix policies x matrix load sets (plans/README.md, "matrix"). */
    static int cellCount(JsonObject plan) {
        int n = plan.get("cells") instanceof JsonArray c ? c.size() : 1;
        if (plan.get("matrix") instanceof JsonObject m) {
            n *= m.get("policy") instanceof JsonArray p ? Math.max(1, p.size()) : 1;
            n *= m.get("load") instanceof JsonObject l ? Math.max(1, l.size()) : 1;
        }
        return n;
    }

    /** Saves {@code text} as a new version of {@code name} if it checks (400 with its problems otherwise). */
    PlanStore.Version save(String name, String text, String user) throws SQLException {
        checkName(name);
        JsonObject c = check(text);
        if (!c.get("ok").getAsBoolean()) {
            throw new Problems("the plan has problems; it was not saved", c.getAsJsonArray("problems"));
        }
        String inside = Json.string(c, "name");
        if (!name.equals(inside)) {
            throw new BadRequest("$.name: the plan calls itself '" + Input.shown(inside) + "' but would be saved as '"
                    + name + "': the two must be the same");
        }
        return store.save(name, text, user);
    }

    /** A plan JSON object from its text (400 when it is not one). */
    static JsonObject parse(String text) {
        try {
            return Json.parse(text);
        } catch (IllegalArgumentException e) {
            throw new BadRequest("the plan: " + e.getMessage());
        }
    }

    /** 400 with the plan's problems. */
    static final class Problems extends BadRequest {
        final JsonArray problems;

        Problems(String message, JsonArray problems) {
            super(message);
            this.problems = problems;
        }
    }
}
