package rtbox.control.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

import rtbox.api.RtboxException;
import rtbox.plan.PlanException;
import rtbox.plan.Plans;

/**
 * The control room's plans: JSON files in its plans folder, checked by rtbox.plan exactly
 * as {@code rtbox plan check} checks them (same problems, same paths), before anything is
 * sent to an appliance.
 */
final class PlanLibrary {
    private final Path dir;
    private final Supplier<Plans> plans;

    PlanLibrary(Path dir, Supplier<Plans> plans) {
        this.dir = dir;
        this.plans = plans;
    }

    static void checkName(String name) {
        Input.planName("plan name", name);
    }

    Path file(String name) {
        checkName(name);
        String n = name.endsWith(".json") ? name : name + ".json";
        return dir.resolve(n);
    }

    String text(String name) throws IOException {
        Path f = file(name);
        if (!Files.isRegularFile(f)) {
            throw new NotFound("no plan '" + name + "' in " + dir + " (there: " + names() + ")");
        }
        return Files.readString(f, StandardCharsets.UTF_8);
    }

    private List<String> names() throws IOException {
        java.util.List<String> out = new java.util.ArrayList<>();
        if (Files.isDirectory(dir)) {
            try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "*.json")) {
                for (Path p : s) {
                    out.add(p.getFileName().toString().replaceFirst("\\.json$", ""));
                }
            }
        }
        java.util.Collections.sort(out);
        return out;
    }

    JsonObject list() throws IOException {
        JsonArray a = new JsonArray();
        for (String n : names()) {
            String text = Files.readString(file(n), StandardCharsets.UTF_8);
            JsonObject p = new JsonObject();
            p.addProperty("name", n);
            p.addProperty("sha256", Passwords.sha256(text.getBytes(StandardCharsets.UTF_8)));
            JsonObject check = check(text);
            p.add("cells", check.get("cells"));
            p.add("problems", check.get("problems"));
            a.add(p);
        }
        JsonObject o = new JsonObject();
        o.add("plans", a);
        return o;
    }

    /** {@code {"ok":..,"cells":N,"problems":[...]}} for a plan's text. */
    JsonObject check(String text) throws IOException {
        JsonObject o = new JsonObject();
        JsonArray problems = new JsonArray();
        int cells = 0;
        Plans p = plans.get();
        if (p == null) {
            throw new BadRequest(503, "rtbox.plan is not running in this control room: plans cannot be checked");
        }
        Path tmp = Files.createTempFile("rtbox-plan", ".json");
        try {
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            cells = p.check(tmp).size();
        } catch (PlanException e) {
            for (String s : e.problems()) {
                problems.add(s.replace(tmp.toString(), "plan"));
            }
        } catch (RtboxException e) {
            problems.add(e.getMessage().replace(tmp.toString(), "plan"));
        } finally {
            Files.deleteIfExists(tmp);
        }
        o.addProperty("ok", problems.isEmpty());
        o.addProperty("cells", cells);
        o.add("problems", problems);
        return o;
    }

    void save(String name, String text) throws IOException {
        JsonObject c = check(text);
        if (!c.get("ok").getAsBoolean()) {
            BadRequest e = new Problems("the plan has problems", c.getAsJsonArray("problems"));
            throw e;
        }
        rtbox.os.DurableFile.write(file(name), text.getBytes(StandardCharsets.UTF_8));
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
