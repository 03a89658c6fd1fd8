package rtbox.control.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * Acceptance records, one per run of a controller (serial number), signed and in a hash
 * chain. A record's body is the RFC 8785 canonical JSON ({@link Canonical}) of what it
 * says: the run, its cells and verdict, the instrument, the SHA-256 of every stored
 * message of the run and the run's stored rows ({@link RecordCheck#seal}), the previous
 * record's SHA-256 and the id of the key that signs it. Its SHA-256 is that of the body's
 * UTF-8 bytes; its Ed25519 signature ({@link RecordKeys}) is over the same bytes, made
 * with a key kept outside the database, so that someone who can write the database can
 * change a record but cannot sign the change. {@link RecordCheck} verifies.
 *
 * <p>A record is refused when the measuring chain's self-test taken just before the run
 * (kept with the run by the start: a stall injected and found) failed or did not run,
 * unless an admin gives an override reason, audited and carried in the record. A PASS
 * record is refused too when the appliance's readiness check before the run (disk,
 * outbox, probes) failed, is missing, or is older than the configured age at the run's
 * start. A FAIL stays a FAIL.
 */
final class Records {
    static final String GENESIS = "0".repeat(64);
    private final Db db;
    private final long selftestMaxAgeMs;
    final RecordKeys keys;
    final RecordCheck check;

    Records(Db db, long selftestMaxAgeMs, RecordKeys keys) {
        this.db = db;
        this.selftestMaxAgeMs = selftestMaxAgeMs;
        this.keys = keys;
        this.check = new RecordCheck(db, keys);
    }

    /** An admin's reason to issue a record whose run's self-test failed or did not run, and who gives it. */
    record Override(String reason, Role role) {
        /** The override a request gives, null when it gives no reason. */
        static Override of(String reason, Role role) {
            return reason == null || reason.isBlank() ? null : new Override(reason.strip(), role);
        }
    }

    /** Signs a run off and issues its record; 409 with the reason when it must not be issued. */
    JsonObject issue(String user, String appliance, String run, String comment, String signOff)
            throws SQLException, IOException {
        return issue(user, appliance, run, comment, signOff, null);
    }

    /**
     * As {@link #issue(String, String, String, String, String)}, with an admin's override of a failed or
     * missing self-test (null: none).
     */
    JsonObject issue(String user, String appliance, String run, String comment, String signOff, Override override)
            throws SQLException, IOException {
        return issue(user, appliance, run, comment, signOff, override, null);
    }

    /**
     * As {@link #issue(String, String, String, String, String, Override)}, carrying the
     * regression verdict of set B (which holds this run) against set A (null: none), computed here
     * by rtbox.regression from the stored runs, never taken from the request.
     */
    JsonObject issue(String user, String appliance, String run, String comment, String signOff, Override override,
            RegressionSets.Selection regression) throws SQLException, IOException {
        JsonObject verdict = regression == null ? null : regression(appliance, run, regression);
        for (int attempt = 0; ; attempt++) {
            try (Connection c = db.connection()) {
                c.setAutoCommit(false);
                JsonObject body = build(c, user, appliance, run, comment, signOff, override);
                if (verdict != null) {
                    body.add("regression", verdict); // records before issue 35 have none, and verify as they did
                }
                Object[] last = Sql.one(c, "SELECT id, sha256 FROM record ORDER BY id DESC LIMIT 1",
                        rs -> new Object[] {rs.getLong(1), rs.getString(2)});
                long id = last == null ? 1 : (Long) last[0] + 1;
                String previous = last == null ? GENESIS : (String) last[1];
                String broken = last == null ? null : check.headProblem(c, (Long) last[0]);
                if (broken != null) {
                    throw new BadRequest(409, "refused: the chain's last record does not verify (" + broken + "): no"
                            + " record is added onto it; rtbox control verify names what changed");
                }
                JsonObject ordered = new JsonObject();
                ordered.addProperty("id", id);
                body.entrySet().forEach(e -> ordered.add(e.getKey(), e.getValue()));
                JsonObject sealed = RecordCheck.seal(c, appliance, run);
                ordered.add("run_messages", sealed.get("messages"));
                ordered.add("run_rows", sealed.get("rows"));
                ordered.addProperty("previous_sha256", previous);
                String keyId = keys.currentId();
                ordered.addProperty("key_id", keyId);
                ordered.addProperty("key_fingerprint", fingerprint(keyId));
                String text = Canonical.text(ordered);
                byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
                String sha = Passwords.sha256(bytes);
                String signature = Base64.getEncoder().encodeToString(keys.sign(keyId, bytes));
                // The primary key makes two instances issuing at once take turns: the loser retries on the new head.
                if (!Sql.insertIfAbsent(c, db.postgres, "INSERT INTO record (id, serial, model, appliance, run_id, verdict,"
                        + " issued_ms, signed_by, body, previous_sha256, sha256, key_id, signature)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        id, Json.string(body, "serial"), Json.string(body, "model"), appliance, run,
                        Json.string(body, "verdict"), System.currentTimeMillis(), user, text, previous, sha, keyId,
                        signature)) {
                    c.rollback();
                    if (attempt < 5) {
                        continue;
                    }
                    throw new BadRequest(409, "could not append to the record chain (busy): try again");
                }
                JsonObject d = new JsonObject();
                d.addProperty("record", id);
                d.addProperty("run", run);
                d.add("verdict", body.get("verdict"));
                d.add("serial", body.get("serial"));
                JsonObject overridden = Json.object(body, "selftest_override");
                if (overridden != null) {
                    d.add("override_reason", overridden.get("reason"));
                    d.add("overrides", overridden.get("overrides"));
                    Audit.log(c, user, "record-override", appliance, d);
                }
                Audit.log(c, user, "sign-off", appliance, d);
                WebhookOutbox.recordIssued(c, appliance, run, id, Json.string(body, "verdict"), Json.string(body, "serial"),
                        Json.string(body, "model"), user, System.currentTimeMillis());
                c.commit();
                JsonObject out = Json.parse(text);
                out.addProperty("sha256", sha);
                out.addProperty("signature", signature);
                return out;
            } catch (BadRequest e) {
                if (e.status == 409 && e.getMessage().startsWith("refused: ")) {
                    JsonObject d = new JsonObject();
                    d.addProperty("run", run);
                    d.addProperty("reason", e.getMessage());
                    try (Connection c = db.connection()) {
                        Audit.log(c, user, "record-refused", appliance, d);
                    }
                }
                throw e;
            } catch (SQLException e) {
                if ("23505".equals(e.getSQLState())) {
                    throw new BadRequest(409, "run '" + run + "' of '" + appliance + "' has a record already");
                }
                throw e;
            }
        }
    }

    private JsonObject build(Connection c, String user, String appliance, String run, String comment, String signOff,
            Override override) throws SQLException {
        Object[] r = Sql.one(c, "SELECT verdict, reason, serial, model, plan, plan_text, plan_sha256, readiness,"
                + " readiness_ms, readiness_ok, bundles, started_by, started_ms, first_seen_ms, selftest, selftest_ms,"
                + " selftest_ok FROM run WHERE appliance = ? AND run_id = ?", rs -> new Object[] {rs.getString(1),
                    rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5), rs.getString(6), rs.getString(7),
                    rs.getString(8), Sql.longOrNull(rs, "readiness_ms"), rs.getObject(10) == null ? null : rs.getBoolean(10),
                    rs.getString(11), rs.getString(12), Sql.longOrNull(rs, "started_ms"), rs.getLong(14),
                    rs.getString(15), Sql.longOrNull(rs, "selftest_ms"), rs.getObject(17) == null ? null : rs.getBoolean(17)},
                appliance, run);
        if (r == null) {
            throw new NotFound("no run '" + run + "' of appliance '" + appliance + "'");
        }
        if (!Boolean.TRUE.equals(Sql.one(c, "SELECT registered FROM appliance WHERE id = ?", rs -> rs.getBoolean(1),
                appliance))) {
            throw new BadRequest(409, "refused: appliance '" + appliance + "' is not registered: an admin accepts it"
                    + " first (POST /api/v1/appliances/" + appliance + "/accept)");
        }
        String verdict = (String) r[0];
        if (verdict == null) {
            throw new BadRequest(409, "refused: run '" + run + "' has no result yet");
        }
        if (r[2] == null || ((String) r[2]).isEmpty()) {
            throw new BadRequest(409, "refused: run '" + run + "' has no controller serial number (start it with one)");
        }
        if (Sql.count(c, "SELECT COUNT(*) FROM record WHERE appliance = ? AND run_id = ?", appliance, run) > 0) {
            throw new BadRequest(409, "run '" + run + "' of '" + appliance + "' has a record already");
        }
        Long readinessMs = (Long) r[8];
        Boolean readinessOk = (Boolean) r[9];
        long start = r[12] != null ? (Long) r[12] : (Long) r[13];
        if ("PASS".equals(verdict)) {
            if (readinessMs == null) {
                throw new BadRequest(409, "refused: no readiness check of '" + appliance + "' before this run: a PASS"
                        + " record needs the appliance's readiness check (disk, outbox, probes)");
            }
            if (!Boolean.TRUE.equals(readinessOk)) {
                throw new BadRequest(409, "refused: the readiness check of '" + appliance + "' before this run failed: "
                        + Json.string(Json.parse((String) r[7]), "message"));
            }
            if (start - readinessMs > selftestMaxAgeMs) {
                throw new BadRequest(409, "refused: the readiness check of '" + appliance + "' was " + (start
                        - readinessMs) / 1000 + " s old at the run's start, more than selftestMaxAge "
                        + selftestMaxAgeMs / 1000 + " s");
            }
        }
        JsonObject selftest = Json.parse((String) r[14]);
        Long selftestMs = (Long) r[15];
        String unproven = SelftestGate.unproven(run, selftest, selftestMs, (Boolean) r[16]);
        JsonObject overridden = SelftestGate.overridden(unproven, override, user);
        JsonObject b = new JsonObject();
        b.addProperty("serial", (String) r[2]);
        b.addProperty("model", (String) r[3]);
        b.addProperty("appliance", appliance);
        b.addProperty("run", run);
        JsonObject plan = new JsonObject();
        plan.addProperty("name", (String) r[4]);
        plan.addProperty("sha256", (String) r[6]);
        plan.addProperty("text", (String) r[5]);
        b.add("plan", plan);
        JsonArray bundles = new JsonArray();
        if (r[10] != null) {
            for (JsonElement e : Json.element((String) r[10]).getAsJsonArray()) {
                JsonObject in = e.getAsJsonObject(), out = new JsonObject();
                out.add("symbolicName", in.get("symbolicName"));
                out.add("version", in.get("version"));
                out.add("sha256", in.has("sha256") ? in.get("sha256") : null);
                bundles.add(out);
            }
        }
        b.add("bundles", bundles);
        JsonObject ready = Json.parse((String) r[7]);
        if (ready != null && readinessMs != null) {
            ready.addProperty("age_s", (start - readinessMs) / 1000);
        }
        b.add("readiness", ready);
        b.add("selftest", SelftestGate.figures(selftest, selftestMs, start));
        if (overridden != null) {
            b.add("selftest_override", overridden);
        }
        JsonObject system = null;
        JsonArray cells = new JsonArray();
        for (Object[] m : Sql.list(c, "SELECT seq, payload FROM message WHERE appliance = ? AND run_id = ? AND type = 'cell'"
                + " ORDER BY seq", rs -> new Object[] {rs.getInt(1), rs.getBytes(2)}, appliance, run)) {
            JsonObject j = Json.parse(new String((byte[]) m[1], StandardCharsets.UTF_8));
            if (system == null) {
                system = Json.object(Json.object(Json.object(j, "report"), "system"), "values");
            }
            JsonObject cell = new JsonObject();
            cell.add("cell", j.get("cell"));
            cell.add("name", j.get("cell_name"));
            for (String f : new String[] {"verdict", "max_us", "p99_us", "p999_us", "missed_deadlines"}) {
                cell.add(f, j.get(f));
            }
            String pwcet = PwcetLine.of(Json.object(j, "report"));
            if (pwcet != null) {
                cell.addProperty("pwcet", pwcet); // records before issue 36 have none
            }
            cells.add(cell);
        }
        b.add("system", system);
        b.addProperty("verdict", verdict);
        b.addProperty("reason", (String) r[1]);
        b.add("cells", cells);
        b.addProperty("started_by", (String) r[11]);
        b.addProperty("signed_by", user);
        b.addProperty("sign_off", signOff);
        b.addProperty("comment", comment);
        b.addProperty("issued", java.time.Instant.now().toString());
        return b;
    }

    /**
     * What a record carries of a comparison: both sets named with their runs, the whole verdict
     * in a sentence ("NO CHANGE beyond noise ..., n = 5 + 5") and each figure's verdict with its
     * difference and interval. The record's run must be one of set B: it is what is certified.
     */
    private JsonObject regression(String appliance, String run, RegressionSets.Selection s) throws SQLException {
        if (!s.b().runs().contains(appliance + "/" + run)) {
            throw new BadRequest("regression: the record's run " + appliance + "/" + run + " is not in set B ("
                    + String.join(", ", s.b().runs()) + "): a record certifies a run of the set under test");
        }
        JsonObject c = new RegressionSets(db).compare(s);
        JsonObject o = new JsonObject();
        o.addProperty("plan", Json.string(c, "plan"));
        o.add("a", c.get("a"));
        o.add("b", c.get("b"));
        o.addProperty("key", s.key());
        o.add("verdict", c.get("verdict"));
        o.add("summary", c.get("summary"));
        o.add("confidence", c.get("confidence"));
        o.addProperty("n", c.getAsJsonArray("runs_a").size() + " + " + c.getAsJsonArray("runs_b").size());
        JsonArray figures = new JsonArray();
        for (JsonElement e : c.getAsJsonArray("changes")) {
            JsonObject x = e.getAsJsonObject(), f = new JsonObject();
            for (String k : new String[] {"cell", "figure", "n_a", "n_b", "mean_a", "mean_b", "difference", "low", "high",
                "effect_size", "verdict", "runs_needed"}) {
                f.add(k, x.get(k));
            }
            figures.add(f);
        }
        o.add("figures", figures);
        return o;
    }

    JsonObject get(long id) throws SQLException {
        try (Connection c = db.connection()) {
            Object[] r = stored(c, id);
            JsonObject o = Json.parse((String) r[0]);
            o.addProperty("sha256", (String) r[1]);
            o.addProperty("signature", (String) r[2]);
            return o;
        }
    }

    /** A record as stored: body, sha256, signature (base64, null before V3), key id. */
    static Object[] stored(Connection c, long id) throws SQLException {
        Object[] r = Sql.one(c, "SELECT body, sha256, signature, key_id FROM record WHERE id = ?",
                rs -> new Object[] {rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)}, id);
        if (r == null) {
            throw new NotFound("no record " + id);
        }
        return r;
    }

    /** The fingerprint of a published key (its public key's DER SHA-256), null when the key is not published here. */
    String fingerprint(String keyId) throws IOException {
        java.security.PublicKey k = keyId == null ? null : keys.publicKeys().get(keyId);
        return k == null ? null : RecordKeys.fingerprint(k);
    }

    JsonObject list(String serial, String model, int offset, int limit) throws SQLException, IOException {
        StringBuilder where = new StringBuilder(" WHERE 1=1");
        List<Object> p = new ArrayList<>();
        if (serial != null && !serial.isEmpty()) {
            where.append(" AND serial = ?");
            p.add(serial);
        }
        if (model != null && !model.isEmpty()) {
            where.append(" AND model = ?");
            p.add(model);
        }
        try (Connection c = db.connection()) {
            JsonObject o = new JsonObject();
            o.addProperty("total", Sql.count(c, "SELECT COUNT(*) FROM record" + where, p.toArray()));
            o.addProperty("offset", offset);
            o.addProperty("limit", limit);
            p.add(limit);
            p.add(offset);
            JsonArray a = new JsonArray();
            Sql.list(c, "SELECT id, serial, model, verdict, issued_ms, signed_by, appliance, run_id, key_id, body FROM record"
                    + where
                    + " ORDER BY id DESC LIMIT ? OFFSET ?", rs -> {
                        JsonObject x = new JsonObject();
                        x.addProperty("id", rs.getLong(1));
                        x.addProperty("serial", rs.getString(2));
                        x.addProperty("model", rs.getString(3));
                        x.addProperty("verdict", rs.getString(4));
                        x.addProperty("issued", Json.iso(rs.getLong(5)));
                        x.addProperty("signed_by", rs.getString(6));
                        x.addProperty("appliance", rs.getString(7));
                        x.addProperty("run", rs.getString(8));
                        x.addProperty("key_id", rs.getString(9));
                        x.add("selftest", SelftestGate.summary(rs.getString(10)));
                        return x;
                    }, p.toArray()).forEach(a::add);
            for (JsonElement e : a) {
                JsonObject x = e.getAsJsonObject();
                x.addProperty("key_fingerprint", fingerprint(Json.string(x, "key_id")));
            }
            o.add("records", a);
            return o;
        }
    }

    /** Every record checked ({@link RecordCheck#verify}). */
    JsonObject verify() throws SQLException, IOException {
        return check.verify();
    }

    /** The record as a printable page (no script): {@link RecordPage}. */
    String html(long id) throws SQLException, IOException {
        return RecordPage.html(id, get(id));
    }

    /** Text for HTML or XML: {@link RecordPage#esc}. */
    static String esc(String s) {
        return RecordPage.esc(s);
    }
}
