package rtbox.control.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * What an operator or admin does to appliances: start a plan (checked first; the readiness
 * check and, for a controller's run, the measuring chain's self-test just before, both kept
 * with the run for its record), stop, self-test, readiness check, and swap a bundle.
 * Every one goes to the audit log with who did it.
 */
final class Operations {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.control.operations");
    /** How long a start waits for the appliance's answers (replySeconds, 20 s by default; docs/control-api.md). */
    private final long replyMs;
    /** What a start for a record waits more for the self-test (2 s measured, 0.5 s warm-up, the reply). */
    static final long SELFTEST_MS = 10_000;
    private final Db db;
    private final Commander commander;
    private final PlanLibrary library;
    private final ExecutorService pool;
    private final BundleSwaps swaps;

    private final StartQueue queue;
    private final StartRequests requests;

    Operations(Db db, Commander commander, PlanLibrary library, ExecutorService pool, long replyMs) {
        this.db = db;
        this.replyMs = replyMs;
        this.commander = commander;
        this.library = library;
        this.pool = pool;
        this.swaps = new BundleSwaps(db, commander, pool, this::askBundles);
        this.queue = new StartQueue(db, this::startOne);
        this.requests = new StartRequests(db, library);
    }

    StartQueue queue() {
        return queue;
    }

    /** POST /api/v1/starts. */
    JsonObject start(String user, JsonObject req) throws IOException, SQLException {
        StartRequests.Request r = requests.prepare(req);
        // Every start goes through its appliance's queue (kept in the database before anything is sent): sent
        // now when the appliance is idle and nothing waits before it, else it waits its turn.
        List<CompletableFuture<JsonObject>> started = new ArrayList<>();
        for (StartRequests.Prepared t : r.each()) {
            if (!known(t.appliance())) {
                // Never heard of: nothing to wait for (it would wait for good); sent at once, 504 when none answers.
                started.add(CompletableFuture.supplyAsync(() -> startOne(user, t.target(), t.plan(), t.text(), t.sha(),
                        t.forRecord(), Commander.requestId()), pool));
                continue;
            }
            long id = queue.enqueue(user, t, r.name(), r.version());
            started.add(CompletableFuture.supplyAsync(() -> {
                JsonObject a = queue.kick(t.appliance());
                Integer code = a == null ? null : Json.integer(a, "code");
                // 409 (busy after all), 503/504 (not answered): it went back to the queue, and waits there.
                if (a != null && Json.whole(a, "queued") != null && Json.whole(a, "queued") == id && code != null
                        && code != 409 && code != 503 && code != 504) {
                    return a;
                }
                return queued(t.appliance(), id);
            }, pool));
        }
        JsonArray starts = new JsonArray();
        for (CompletableFuture<JsonObject> f : started) {
            starts.add(f.join());
        }
        JsonObject o = new JsonObject();
        o.addProperty("plan", r.name());
        o.addProperty("version", r.version());
        o.addProperty("plan_sha256", r.sha());
        o.add("starts", starts);
        return o;
    }

    private boolean known(String appliance) throws SQLException {
        try (Connection c = db.connection()) {
            return Sql.count(c, "SELECT COUNT(*) FROM appliance WHERE id = ?", appliance) == 1;
        }
    }

    /** The answer for a start that waits in its appliance's queue (code 202). */
    private JsonObject queued(String appliance, long id) {
        JsonObject o = new JsonObject();
        o.addProperty("appliance", appliance);
        o.addProperty("code", 202);
        o.addProperty("queued", id);
        try {
            int position = queue.position(id);
            o.addProperty("position", position);
            String why;
            try (Connection c = db.connection()) {
                why = Sql.one(c, "SELECT state, busy, run_id FROM appliance WHERE id = ?", rs -> "offline".equals(
                        rs.getString(1)) ? appliance + " is offline" : rs.getBoolean(2) ? appliance + " is busy"
                        + (rs.getString(3) != null ? " with run " + rs.getString(3) : "") : appliance + " has starts"
                        + " before it", appliance);
            }
            o.addProperty("message", "queued (" + (position == 1 ? "next" : "position " + position) + "): "
                    + (why == null ? appliance + " has not been heard of" : why) + "; it starts when " + appliance
                    + " reports idle");
        } catch (SQLException e) {
            o.addProperty("message", "queued: it starts when " + appliance + " reports idle");
        }
        return o;
    }

    /**
     * Starts a plan on one appliance, the plan command with request id {@code requestId} (a repeat
     * after a restart gets the appliance's first reply); the answer as POST /starts lists it.
     */
    JsonObject startOne(String user, JsonObject target, JsonObject plan, String text, String sha, boolean forRecord,
            String requestId) {
        String appliance = Json.string(target, "appliance");
        JsonObject r = new JsonObject();
        r.addProperty("appliance", appliance);
        try {
            // The appliance's readiness check (disk, outbox, probes) just before the plan: its result goes with
            // the run (and its record). A start for a record runs the measuring chain's self-test too, an injected
            // stall found and attributed (about 2.5 s), which the record carries.
            // One deadline for every answer (docs/control-api.md: 20 s, and 10 s more for the self-test): an
            // appliance that is off or unknown held a start 40 s, 20 for the readiness check and 20 more for a plan
            // it was then sent all the same.
            long deadline = System.currentTimeMillis() + replyMs + (forRecord ? SELFTEST_MS : 0);
            JsonObject readiness = commander.call(appliance, "readiness", null, replyMs);
            JsonObject selftest = null;
            if (forRecord && !CheckAnswers.silent(readiness)) {
                selftest = commander.call(appliance, "selftest", null, Math.max(1_000, deadline
                        - System.currentTimeMillis()));
            }
            long checkedMs = System.currentTimeMillis();
            if (selftest != null) {
                r.add("selftest", CheckAnswers.kept(selftest, checkedMs));
            }
            JsonObject unanswered = CheckAnswers.silent(readiness) ? readiness
                    : CheckAnswers.silent(selftest) ? selftest : null;
            if (unanswered != null) {
                Integer silentCode = Json.integer(unanswered, "code");
                r.addProperty("code", silentCode);
                r.addProperty("message", Json.string(unanswered, "message") + "; the plan was not sent");
                JsonObject d = new JsonObject();
                d.addProperty("plan", Json.string(plan, "name"));
                d.addProperty("plan_sha256", sha);
                d.addProperty("code", silentCode);
                d.addProperty("sent", false);
                try (Connection c = db.connection()) {
                    Audit.log(c, user, "start", appliance, d);
                }
                return r;
            }
            JsonObject body = new JsonObject();
            body.add("plan", plan);
            // Audited before the command leaves: whatever happens after, who asked what for which controller is kept.
            JsonObject sent = new JsonObject();
            sent.addProperty("plan", Json.string(plan, "name"));
            sent.addProperty("plan_sha256", sha);
            sent.add("serial", target.get("serial"));
            sent.add("model", target.get("model"));
            try (Connection c = db.connection()) {
                Audit.log(c, user, "start-sent", appliance, sent);
            }
            JsonObject reply = commander.call(appliance, "plan", body, Math.max(1_000,
                    deadline - System.currentTimeMillis()), requestId);
            r.add("requestId", reply.get("requestId"));
            r.add("code", reply.get("code"));
            r.add("message", reply.get("message"));
            Integer code = Json.integer(reply, "code");
            String run = Json.string(Json.object(reply, "body"), "run");
            r.addProperty("run", run);
            if (Json.object(reply, "body") != null && Json.object(reply, "body").has("problems")) {
                r.add("problems", Json.object(reply, "body").get("problems"));
            }
            try (Connection c = db.connection()) {
                c.setAutoCommit(false);
                if (code != null && code == 200 && run != null) {
                    long now = System.currentTimeMillis();
                    Sql.insertIfAbsent(c, db.postgres, "INSERT INTO run (appliance, run_id, first_seen_ms) VALUES (?, ?, ?)",
                            appliance, run, now);
                    String bundles = Sql.one(c, "SELECT bundles FROM appliance WHERE id = ?", rs -> rs.getString(1),
                            appliance);
                    JsonObject ready = CheckAnswers.kept(readiness, checkedMs);
                    JsonObject st = selftest == null ? null : CheckAnswers.kept(selftest, checkedMs);
                    // A check the appliance did not answer (code 504 from the commander, 404 from an appliance
                    // without the verb) did not run: its time stays empty.
                    Sql.update(c, "UPDATE run SET serial = ?, model = ?, started_by = ?, plan_text = ?, plan_sha256 = ?,"
                            + " plan = COALESCE(plan, ?), kind = 'plan', readiness = ?, readiness_ms = ?, readiness_ok = ?,"
                            + " selftest = ?, selftest_ms = ?, selftest_ok = ?, bundles = ? WHERE appliance = ? AND run_id = ?",
                            Json.string(target, "serial"), Json.string(target, "model"), user, text, sha,
                            Json.string(plan, "name"), Json.GSON.toJson(ready),
                            CheckAnswers.ran(readiness) ? checkedMs : null,
                            CheckAnswers.ok(readiness), st == null ? null : Json.GSON.toJson(st),
                            CheckAnswers.ran(selftest) ? checkedMs : null, selftest == null ? null
                            : CheckAnswers.ok(selftest), bundles,
                            appliance, run);
                }
                JsonObject d = new JsonObject();
                d.addProperty("plan", Json.string(plan, "name"));
                d.addProperty("plan_sha256", sha);
                d.add("serial", target.get("serial"));
                d.add("model", target.get("model"));
                d.add("code", reply.get("code"));
                d.addProperty("run", run);
                if (selftest != null) {
                    d.addProperty("selftest_ok", CheckAnswers.ok(selftest));
                }
                Audit.log(c, user, "start", appliance, d);
                c.commit();
            }
        } catch (SQLException | RuntimeException e) {
            // The cause goes to the log, not to the answer (no SQL, class or stack text leaves the control room).
            LOG.warn("start of {} on {} by {}: {}", Json.string(plan, "name"), appliance, user, Db.rootMessage(e));
            r.addProperty("code", 500);
            r.addProperty("message", "the control room failed to record this start (its log says why); the audit"
                    + " log holds the start as sent");
        }
        return r;
    }

    JsonObject stop(String user, String appliance, String run) throws SQLException {
        JsonObject body = new JsonObject();
        if (run != null) {
            body.addProperty("run", run);
        }
        String id = Commander.requestId();
        commander.send(appliance, "stop", body, id);
        JsonObject d = new JsonObject();
        d.addProperty("run", run);
        d.addProperty("requestId", id);
        try (Connection c = db.connection()) {
            Audit.log(c, user, "stop", appliance, d);
        }
        JsonObject o = new JsonObject();
        o.addProperty("requestId", id);
        return o;
    }

    /** Sends {@code verb}, {@code selftest} (the measuring chain's) or {@code readiness}; its reply lands on the appliance. */
    JsonObject check(String user, String appliance, String verb) throws SQLException {
        String id = Commander.requestId();
        commander.send(appliance, verb, null, id);
        try (Connection c = db.connection()) {
            Audit.log(c, user, verb, appliance, null);
        }
        JsonObject o = new JsonObject();
        o.addProperty("requestId", id);
        return o;
    }

    /**
     * POST /api/v1/appliances/A/firmware (admin): sends the appliance's {@code firmware} verb, which
     * tells its boot entries, or with {@code kernel} sets the next boot's, and with {@code reboot}
     * reboots; audited with what was asked, before it is sent. Waits replySeconds for the reply and
     * returns it (its code: 200, the appliance's 400/404/409/500, or 504 without an answer).
     */
    JsonObject firmware(String user, String appliance, String kernel, Boolean reboot) throws SQLException {
        JsonObject body = new JsonObject();
        if (kernel != null) {
            body.addProperty("kernel", kernel);
        }
        if (reboot != null) {
            body.addProperty("reboot", reboot);
        }
        try (Connection c = db.connection()) {
            Audit.log(c, user, "firmware", appliance, body.size() == 0 ? null : body.deepCopy());
        }
        return commander.call(appliance, "firmware", body, replyMs);
    }

    /** GET /api/v1/plans/NAME/inputs: see {@link StartRequests#inputs}. */
    JsonObject inputs(String name, List<String> appliances) throws SQLException {
        return requests.inputs(name, appliances);
    }

    /** Asks an appliance for its readiness check (its CPUs and block devices: the choices a start offers), unaudited. */
    JsonObject askReadiness(String appliance) {
        String id = Commander.requestId();
        commander.send(appliance, "readiness", null, id);
        JsonObject o = new JsonObject();
        o.addProperty("requestId", id);
        return o;
    }

    /** Asks an appliance for its bundles (the reply lands in its row through the ingest). */
    JsonObject askBundles(String appliance) {
        String id = Commander.requestId();
        commander.send(appliance, "bundles", null, id);
        JsonObject o = new JsonObject();
        o.addProperty("requestId", id);
        return o;
    }

    // ---- bundles: BundleSwaps ----

    static final int MAX_BUNDLE_BYTES = BundleSwaps.MAX_BUNDLE_BYTES;

    JsonObject upload(String user, byte[] jar) throws SQLException, IOException {
        return swaps.upload(user, jar);
    }

    JsonObject bundles() throws SQLException {
        return swaps.bundles();
    }

    JsonObject swap(String user, JsonObject req) throws SQLException {
        return swaps.swap(user, req);
    }
}
