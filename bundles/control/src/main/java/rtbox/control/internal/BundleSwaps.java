package rtbox.control.internal;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;
import java.util.jar.JarInputStream;
import java.util.jar.Manifest;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * Bundles for the fleet (admin): a jar uploaded and kept by its SHA-256, and swapped onto
 * appliances ({@code update} when the appliance has that bundle, else {@code install}),
 * each audited with who did it. Reached through {@link Operations}.
 */
final class BundleSwaps {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.control.operations");
    private final Db db;
    private final Commander commander;
    private final ExecutorService pool;
    /** Asks an appliance for its bundles after a swap (the reply lands in its row). */
    private final Consumer<String> askBundles;

    BundleSwaps(Db db, Commander commander, ExecutorService pool, Consumer<String> askBundles) {
        this.db = db;
        this.commander = commander;
        this.pool = pool;
        this.askBundles = askBundles;
    }

    static final int MAX_BUNDLE_BYTES = 64 * 1024 * 1024;

    JsonObject upload(String user, byte[] jar) throws SQLException, IOException {
        String bsn, version;
        try (JarInputStream in = new JarInputStream(new ByteArrayInputStream(jar))) {
            Manifest mf = in.getManifest();
            bsn = mf == null ? null : mf.getMainAttributes().getValue("Bundle-SymbolicName");
            version = mf == null ? null : mf.getMainAttributes().getValue("Bundle-Version");
        }
        if (bsn == null) {
            throw new BadRequest("not an OSGi bundle: the jar has no Bundle-SymbolicName in its manifest");
        }
        bsn = bsn.split(";")[0].trim();
        version = version == null ? "0.0.0" : version.trim();
        String sha = Passwords.sha256(jar);
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            Sql.insertIfAbsent(c, db.postgres, "INSERT INTO bundle_file (sha256, symbolic_name, version, size, data,"
                    + " uploaded_ms, uploaded_by) VALUES (?, ?, ?, ?, ?, ?, ?)", sha, bsn, version, (long) jar.length, jar,
                    System.currentTimeMillis(), user);
            JsonObject d = new JsonObject();
            d.addProperty("sha256", sha);
            d.addProperty("symbolicName", bsn);
            d.addProperty("version", version);
            Audit.log(c, user, "bundle-upload", bsn, d);
            c.commit();
        }
        JsonObject o = new JsonObject();
        o.addProperty("sha256", sha);
        o.addProperty("symbolicName", bsn);
        o.addProperty("version", version);
        o.addProperty("size", jar.length);
        return o;
    }

    JsonObject bundles() throws SQLException {
        try (Connection c = db.connection()) {
            JsonArray a = new JsonArray();
            Sql.list(c, "SELECT sha256, symbolic_name, version, size, uploaded_ms, uploaded_by FROM bundle_file"
                    + " ORDER BY uploaded_ms DESC", rs -> {
                        JsonObject b = new JsonObject();
                        b.addProperty("sha256", rs.getString(1));
                        b.addProperty("symbolicName", rs.getString(2));
                        b.addProperty("version", rs.getString(3));
                        b.addProperty("size", rs.getLong(4));
                        b.addProperty("uploaded", Json.iso(rs.getLong(5)));
                        b.addProperty("uploaded_by", rs.getString(6));
                        return b;
                    }).forEach(a::add);
            JsonObject o = new JsonObject();
            o.add("bundles", a);
            return o;
        }
    }

    JsonObject swap(String user, JsonObject req) throws SQLException {
        // Every field checked before anything is sent: the ids become MQTT topics.
        rtbox.json.JsonFields fields = Input.fields(req, List.of("sha256", "confirm", "appliances", "replace"));
        Input.text(fields, "sha256", 64);
        Input.text(fields, "confirm", 64);
        Input.text(fields, "replace", 200);
        try {
            List<String> ids = fields.optStrings("appliances");
            for (int i = 0; ids != null && i < ids.size(); i++) {
                Input.id("$.appliances[" + i + "]", ids.get(i));
            }
        } catch (rtbox.json.JsonProblem problem) {
            throw new BadRequest(problem.getMessage());
        }
        String sha = Json.string(req, "sha256");
        if (sha == null || !sha.equals(Json.string(req, "confirm"))) {
            throw new BadRequest(409, "confirm must repeat the bundle's sha256 (" + sha + ")");
        }
        Object[] b;
        try (Connection c = db.connection()) {
            b = Sql.one(c, "SELECT symbolic_name, data FROM bundle_file WHERE sha256 = ?",
                    rs -> new Object[] {rs.getString(1), rs.getBytes(2)}, sha);
        }
        if (b == null) {
            throw new NotFound("no uploaded bundle with sha256 " + sha);
        }
        String bsn = (String) b[0];
        String replace = Json.string(req, "replace");
        JsonArray appliances = Json.array(req, "appliances");
        if (appliances == null || appliances.isEmpty()) {
            throw new BadRequest("appliances: give at least one");
        }
        String data = Base64.getEncoder().encodeToString((byte[]) b[1]);
        List<CompletableFuture<JsonObject>> fs = new ArrayList<>();
        for (JsonElement e : appliances) {
            String a = e.getAsString();
            fs.add(CompletableFuture.supplyAsync(() -> swapOne(user, a, bsn, replace, sha, data), pool));
        }
        JsonArray out = new JsonArray();
        fs.forEach(f -> out.add(f.join()));
        JsonObject o = new JsonObject();
        o.add("swaps", out);
        return o;
    }

    private JsonObject swapOne(String user, String appliance, String bsn, String replace, String sha, String data) {
        JsonObject r = new JsonObject();
        r.addProperty("appliance", appliance);
        try {
            String target = replace != null ? replace : bsn;
            boolean has;
            try (Connection c = db.connection()) {
                String bundles = Sql.one(c, "SELECT bundles FROM appliance WHERE id = ?", rs -> rs.getString(1),
                        appliance);
                has = bundles != null && bundles.contains("\"symbolicName\":\"" + target + "\"");
            }
            JsonObject body = new JsonObject();
            body.addProperty("data", data);
            body.addProperty("sha256", sha);
            String verb = has ? "update" : "install";
            if (has) {
                body.addProperty("bundle", target);
            }
            JsonObject reply = commander.call(appliance, verb, body, 60_000);
            r.addProperty("verb", verb);
            r.add("code", reply.get("code"));
            r.add("message", reply.get("message"));
            r.add("bundle", Json.object(reply, "body"));
            try (Connection c = db.connection()) {
                JsonObject d = new JsonObject();
                d.addProperty("sha256", sha);
                d.addProperty("verb", verb);
                d.addProperty("bundle", target);
                d.add("code", reply.get("code"));
                Audit.log(c, user, "swap", appliance, d);
            }
            askBundles.accept(appliance);
        } catch (SQLException | RuntimeException e) {
            LOG.warn("swap on {} by {}: {}", appliance, user, Db.rootMessage(e));
            r.addProperty("code", 500);
            r.addProperty("message", "the control room failed during this swap (its log says why)");
        }
        return r;
    }
}
