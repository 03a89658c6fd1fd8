package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import com.google.gson.JsonObject;

/**
 * Acceptance records on H2 and a real PostgreSQL: every record needs the measuring chain's
 * self-test passed before its run (or an admin's override); a PASS needs a passed, recent
 * readiness check of the appliance; a FAIL is recorded as a FAIL; the chain names the first record that
 * was changed, whether its text, its columns or its hash were changed; golden references
 * and the envelope verdict.
 */
class RecordsTest extends BothDatabases {

    /**
     * A two-cell run of a1 with the given verdict, started with a serial, a readiness check
     * {@code readinessAgeS} old and a passed self-test of the measuring chain.
     */
    static void run(Db db, String run, String verdict, Boolean readinessOk, long readinessAgeS, double maxUs)
            throws Exception {
        Ingest in = new Ingest(new Decoder(20 << 20), new IngestStore(db), new Events(), (m, o) -> {
        });
        in.accept(Messages.runTopic("a1", run, "cell"), Messages.cell("a1", run, 1, 2, verdict, maxUs));
        in.accept(Messages.runTopic("a1", run, "cell"), Messages.cell("a1", run, 2, 2, verdict, maxUs * 2));
        in.accept(Messages.runTopic("a1", run, "result"), Messages.result("a1", run, 2, verdict));
        long started = Json.epochMs("2026-12-03T08:00:01Z");
        try (Connection c = db.connection()) {
            Sql.update(c, "UPDATE run SET serial = ?, model = ?, started_by = ?, plan_text = ?, plan_sha256 = ?,"
                    + " readiness = ?, readiness_ms = ?, readiness_ok = ? WHERE appliance = 'a1' AND run_id = ?",
                    "SN-" + run, "X20", "alice", "{\"name\":\"smoke\"}", "ab", readinessOk == null ? null
                            : "{\"ok\":" + readinessOk + ",\"message\":\"" + (readinessOk ? "ok" : "disk full") + "\"}",
                    readinessOk == null ? null : started - readinessAgeS * 1000, readinessOk, run);
        }
        selftest(db, run, true, 5);
    }

    /** The measuring chain's self-test kept with the run, {@code ageS} before it (null {@code ok}: it did not run). */
    private static void selftest(Db db, String run, Boolean ok, long ageS) throws Exception {
        long started = Json.epochMs("2026-12-03T08:00:01Z");
        String st = ok == null ? null : "{\"at\":\"2026-12-03T08:00:00Z\",\"code\":" + (ok ? 200 : 500) + ",\"ok\":" + ok
                + ",\"message\":\"" + (ok ? "self-test passed" : "self-test failed: saw 3 disturber spikes, expected 20 +/- 2")
                + "\",\"body\":{\"pass\":" + ok + ",\"cpu\":1,\"duration_s\":2.0,\"injected_us\":2000,\"every_ms\":100,"
                + "\"expected\":20,\"found\":" + (ok ? 20 : 3) + ",\"cause\":\"workload: disturber\",\"median_us\":2085,"
                + "\"min_us\":2040,\"max_us\":2210,\"error_us\":85,\"wakeup_p50_us\":6,\"noise_spikes\":1,"
                + "\"noise_max_us\":120,\"reason\":\"\"}}";
        try (Connection c = db.connection()) {
            Sql.update(c, "UPDATE run SET selftest = ?, selftest_ms = ?, selftest_ok = ? WHERE appliance = 'a1'"
                    + " AND run_id = ?", st, ok == null ? null : started - ageS * 1000, ok, run);
        }
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aPassNeedsTheApplianceReadyAndAFailStaysAFail(String kind) throws Exception {
        Db db = db(kind);
        Records records = new Records(db, 3600_000, keys());
        run(db, "failed-readiness", "PASS", false, 10, 30);
        run(db, "no-readiness", "PASS", null, 0, 30);
        run(db, "old-readiness", "PASS", true, 7200, 30);
        run(db, "good", "PASS", true, 60, 30);
        run(db, "fail", "FAIL", false, 60, 3000);
        BadRequest e = assertThrows(BadRequest.class, () -> records.issue("bob", "a1", "failed-readiness", null, "operator"));
        assertEquals(409, e.status);
        assertTrue(e.getMessage().contains("readiness check") && e.getMessage().contains("failed"), e.getMessage());
        e = assertThrows(BadRequest.class, () -> records.issue("bob", "a1", "no-readiness", null, "operator"));
        assertTrue(e.getMessage().contains("no readiness check"), e.getMessage());
        e = assertThrows(BadRequest.class, () -> records.issue("bob", "a1", "old-readiness", null, "operator"));
        assertTrue(e.getMessage().contains("7200 s old"), e.getMessage());
        JsonObject good = records.issue("bob", "a1", "good", "fine", "operator");
        assertEquals("PASS", good.get("verdict").getAsString());
        assertEquals(Records.GENESIS, good.get("previous_sha256").getAsString());
        assertEquals(60, good.getAsJsonObject("readiness").get("age_s").getAsLong());
        JsonObject fail = records.issue("bob", "a1", "fail", null, "operator");
        assertEquals("FAIL", fail.get("verdict").getAsString());
        assertEquals(good.get("sha256").getAsString(), fail.get("previous_sha256").getAsString());
        assertEquals(2, fail.getAsJsonArray("cells").size());
        assertEquals(409, assertThrows(BadRequest.class, () -> records.issue("bob", "a1", "good", null, "operator"))
                .status);
        try (Connection c = db.connection()) {
            assertEquals(3, Sql.count(c, "SELECT COUNT(*) FROM audit WHERE action = 'record-refused'"));
            assertEquals(2, Sql.count(c, "SELECT COUNT(*) FROM audit WHERE action = 'sign-off'"));
        }
        assertTrue(records.html(1).contains("SN-good"));
    }

    /**
     * Issue 30 item 5: every record carries the measuring chain's self-test with its figures; one
     * whose self-test failed or did not run is refused, a FAIL too, unless an admin overrides with a
     * reason (an operator's reason is not enough), audited and shown on the record.
     */
    @ParameterizedTest
    @MethodSource("databases")
    void aRecordCarriesTheInstrumentsSelftestOrAnAdminsOverride(String kind) throws Exception {
        Db db = db(kind);
        Records records = new Records(db, 3600_000, keys());
        run(db, "good", "PASS", true, 60, 30);
        run(db, "failed-selftest", "PASS", true, 60, 30);
        selftest(db, "failed-selftest", false, 5);
        run(db, "no-selftest", "FAIL", true, 60, 3000);
        selftest(db, "no-selftest", null, 0);

        JsonObject good = records.issue("bob", "a1", "good", null, "operator");
        JsonObject st = good.getAsJsonObject("selftest");
        assertTrue(st.get("ok").getAsBoolean());
        assertEquals(20, st.get("found").getAsInt());
        assertEquals(20, st.get("expected").getAsInt());
        assertEquals(2000, st.get("injected_us").getAsInt());
        assertEquals(85, st.get("error_us").getAsInt());
        assertEquals("workload: disturber", st.get("cause").getAsString());
        assertEquals(5, st.get("age_s").getAsInt());
        assertFalse(good.has("selftest_override"));
        String html = records.html(good.get("id").getAsLong());
        assertTrue(html.contains("passed: 20 of 20 injected stalls of 2000 us (every 100 ms on CPU 1) found, attributed"
                + " to workload: disturber, median 2085 us, detection error +85 us"), html);
        assertTrue(html.contains("Appliance readiness check before the run (disk, outbox, probes)"), html);

        BadRequest e = assertThrows(BadRequest.class, () -> records.issue("bob", "a1", "failed-selftest", null, "operator"));
        assertEquals(409, e.status);
        assertTrue(e.getMessage().startsWith("refused: the measuring chain's self-test before run 'failed-selftest'"
                + " failed: self-test failed: saw 3"), e.getMessage());
        e = assertThrows(BadRequest.class, () -> records.issue("bob", "a1", "no-selftest", null, "operator"));
        assertTrue(e.getMessage().startsWith("refused: the measuring chain's self-test did not run before run"
                + " 'no-selftest'"), e.getMessage());
        e = assertThrows(BadRequest.class, () -> records.issue("bob", "a1", "no-selftest", null, "operator",
                Records.Override.of("the line must ship", Role.OPERATOR)));
        assertEquals(403, e.status);

        JsonObject over = records.issue("root", "a1", "no-selftest", null, "operator",
                Records.Override.of("appliance a1 predates the self-test; checked by hand with a scope", Role.ADMIN));
        assertEquals("FAIL", over.get("verdict").getAsString());
        assertTrue(over.get("selftest").isJsonNull());
        JsonObject o = over.getAsJsonObject("selftest_override");
        assertEquals("appliance a1 predates the self-test; checked by hand with a scope", o.get("reason").getAsString());
        assertEquals("root", o.get("by").getAsString());
        assertTrue(o.get("overrides").getAsString().contains("did not run"), o.toString());
        html = records.html(over.get("id").getAsLong());
        assertTrue(html.contains("did not run"), html);
        assertTrue(html.contains("Self-test overridden by an admin</th><td>root: appliance a1 predates"), html);
        assertTrue(records.check.verify().get("ok").getAsBoolean());
        JsonObject listed = records.list(null, null, 0, 10).getAsJsonArray("records").get(0).getAsJsonObject();
        assertFalse(listed.getAsJsonObject("selftest").get("ok").getAsBoolean());
        assertEquals("appliance a1 predates the self-test; checked by hand with a scope",
                listed.getAsJsonObject("selftest").get("override_reason").getAsString());
        try (Connection c = db.connection()) {
            assertEquals(1, Sql.count(c, "SELECT COUNT(*) FROM audit WHERE action = 'record-override' AND user_name"
                    + " = 'root' AND detail LIKE '%predates the self-test%'"));
            assertEquals(2, Sql.count(c, "SELECT COUNT(*) FROM audit WHERE action = 'record-refused'"));
        }
    }

    private Path keyDir;

    RecordKeys keys() throws Exception {
        keyDir = Files.createTempDirectory(tmp, "rtbox-keys").resolve("keys");
        return RecordKeys.open(keyDir);
    }

    private static String problems(JsonObject v) {
        StringBuilder b = new StringBuilder();
        v.getAsJsonArray("problems").forEach(p -> b.append(p.getAsJsonObject().get("problem").getAsString()).append('\n'));
        return b.toString();
    }

    @ParameterizedTest
    @MethodSource("databases")
    void verifyNamesEveryRecordThatWasChangedEvenRehashed(String kind) throws Exception {
        Db db = db(kind);
        Records records = new Records(db, 3600_000, keys());
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(keyDir)));
        String first = records.keys.currentId();
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                keyDir.resolve(first + ".private.pem"))));
        for (int i = 1; i <= 5; i++) {
            run(db, "r" + i, i == 2 ? "FAIL" : "PASS", true, 60, 30);
            if (i == 4) {
                records.keys.rotate(); // records 4 and 5 signed with a new key; 1 to 3 still verify with the old one
            }
            JsonObject r = records.issue("bob", "a1", "r" + i, null, "operator");
            assertEquals(i < 4 ? first : records.keys.currentId(), r.get("key_id").getAsString());
            assertEquals(3, r.getAsJsonArray("run_messages").size(), r.toString()); // 2 cells and a result
        }
        assertEquals(2, records.keys.publicKeys().size());
        JsonObject v = records.verify();
        assertTrue(v.get("ok").getAsBoolean(), v.toString());
        assertEquals(5, v.get("records").getAsLong());
        try (Connection c = db.connection()) {
            // The forgery of issue 30: record 2's body FAIL -> PASS and its SHA-256 recomputed, columns too.
            String body = Sql.one(c, "SELECT body FROM record WHERE id = 2", rs -> rs.getString(1));
            String forged = body.replace("\"verdict\":\"FAIL\"", "\"verdict\":\"PASS\"");
            assertNotEquals(body, forged);
            Sql.update(c, "UPDATE record SET body = ?, sha256 = ?, verdict = 'PASS' WHERE id = 2", forged,
                    Passwords.sha256(forged.getBytes(StandardCharsets.UTF_8)));
            v = records.verify();
            assertFalse(v.get("ok").getAsBoolean());
            assertEquals(2, v.get("first_changed").getAsLong(), v.toString());
            assertTrue(problems(v).contains("record 2: signature invalid"), problems(v));
            assertTrue(problems(v).contains("chain broken at 3"), problems(v));
            assertFalse(records.check.run("a1", "r2").get("ok").getAsBoolean());
            assertTrue(records.check.run("a1", "r1").get("ok").getAsBoolean());
            Sql.update(c, "UPDATE record SET body = ?, sha256 = ?, verdict = 'FAIL' WHERE id = 2", body,
                    Passwords.sha256(body.getBytes(StandardCharsets.UTF_8)));
            assertTrue(records.verify().get("ok").getAsBoolean(), records.verify().toString());
            // A run's own rows: its verdict, one cell's figure, one stored message.
            Sql.update(c, "UPDATE run SET verdict = 'PASS' WHERE run_id = 'r2'");
            Sql.update(c, "UPDATE cell SET max_us = 10 WHERE run_id = 'r4' AND cell = 2");
            Sql.update(c, "UPDATE message SET payload = ? WHERE run_id = 'r5' AND seq = 2", new byte[] {'{', '}'});
            v = records.verify();
            String p = problems(v);
            assertTrue(p.contains("record 2: run r2: stored verdict is \"PASS\", the record sealed \"FAIL\""), p);
            assertTrue(p.contains("record 4: run r4 cell 2: stored max_us is 10, the record sealed 60"), p);
            assertTrue(p.contains("record 5: run message 2 (cell) changed"), p);
            assertEquals(3, v.getAsJsonArray("problems").size(), p);
            JsonObject r2 = records.check.run("a1", "r2");
            assertFalse(r2.get("ok").getAsBoolean());
            Sql.update(c, "UPDATE run SET verdict = 'FAIL' WHERE run_id = 'r2'");
            // A record taken out of the chain; a signature from nowhere.
            Sql.update(c, "DELETE FROM record WHERE id = 3");
            Sql.update(c, "UPDATE record SET signature = NULL WHERE id = 1");
            p = problems(records.verify());
            assertTrue(p.contains("record missing between 2 and 4"), p);
            assertTrue(p.contains("chain broken at 4"), p);
            assertTrue(p.contains("record 1: not signed"), p);
            // Nothing is chained onto a changed head: the next record is refused, naming it.
            String head = Sql.one(c, "SELECT body FROM record WHERE id = 5", rs -> rs.getString(1));
            String forgedHead = head.replace("\"SN-r5\"", "\"SN-r9\"");
            Sql.update(c, "UPDATE record SET body = ?, sha256 = ? WHERE id = 5", forgedHead,
                    Passwords.sha256(forgedHead.getBytes(StandardCharsets.UTF_8)));
            run(db, "r6", "FAIL", true, 60, 30);
            BadRequest e = assertThrows(BadRequest.class, () -> records.issue("bob", "a1", "r6", null, "operator"));
            assertEquals(409, e.status);
            assertTrue(e.getMessage().contains("record 5: signature invalid"), e.getMessage());
        }
    }

    @ParameterizedTest
    @MethodSource("databases")
    void anExportedRecordVerifiesWithOpenSslAndAChangedByteDoesNot(String kind) throws Exception {
        Db db = db(kind);
        Records records = new Records(db, 3600_000, keys());
        run(db, "x", "FAIL", true, 60, 3000);
        records.issue("bob", "a1", "x", "as measured", "operator");
        Path dir = Files.createTempDirectory(tmp, "rtbox-export");
        try (ZipInputStream z = new ZipInputStream(new java.io.ByteArrayInputStream(RecordExport.zip(db, records, 1)))) {
            for (ZipEntry e; (e = z.getNextEntry()) != null; ) {
                Files.write(dir.resolve(e.getName()), z.readAllBytes());
            }
        }
        String verify = Files.readString(dir.resolve("VERIFY.txt"));
        String command = verify.lines().filter(l -> l.trim().startsWith("openssl pkeyutl")).findFirst().orElseThrow().trim();
        assertEquals(0, openssl(dir, command), verify);
        byte[] json = Files.readAllBytes(dir.resolve("record-1.json"));
        assertEquals(records.get(1).get("sha256").getAsString(), Passwords.sha256(json));
        int at = new String(json, StandardCharsets.UTF_8).indexOf("\"FAIL\"") + 1;
        json[at] = 'P'; // one byte
        Files.write(dir.resolve("record-1.json"), json);
        assertEquals(1, openssl(dir, command));
    }

    private static int openssl(Path dir, String command) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int rc = p.waitFor();
        assertTrue(rc == 0 ? out.contains("Signature Verified Successfully") : out.contains("Signature Verification Failure"),
                out);
        return rc;
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aRunIsInsideTheEnvelopeOfItsGoldenReferenceOrSaysWhyNot(String kind) throws Exception {
        Db db = db(kind);
        Queries q = new Queries(db);
        Compare compare = new Compare(db, q);
        run(db, "golden", "PASS", true, 60, 100);
        run(db, "same", "PASS", true, 60, 110);
        run(db, "worse", "PASS", true, 60, 300);
        JsonObject req = new JsonObject();
        req.addProperty("appliance", "a1");
        req.addProperty("run", "golden");
        JsonObject tol = new JsonObject();
        tol.addProperty("max_pct", 10);
        tol.addProperty("max_us", 5);
        req.add("tolerance", tol);
        assertEquals(2, compare.setReference("admin", req).getAsJsonArray("references").size());
        // max 110 vs 100: 100 * 1.10 + 5 = 115 allows it; p99 55 vs 50: 50 * 1.2 + 5 = 65 allows it.
        JsonObject same = compare.compare("a1/same", null, "golden");
        assertTrue(same.get("inside").getAsBoolean(), same.toString());
        assertEquals(10.0, same.getAsJsonArray("cells").get(0).getAsJsonObject().getAsJsonObject("delta")
                .get("max_us").getAsDouble(), 1e-9);
        JsonObject worse = compare.compare("a1/worse", null, "golden");
        assertFalse(worse.get("inside").getAsBoolean());
        String outside = worse.getAsJsonArray("cells").get(0).getAsJsonObject().getAsJsonObject("envelope")
                .get("outside").toString();
        assertTrue(outside.contains("max_us 300.0 us > 115.0 us"), outside);
        // Two runs side by side, no envelope.
        JsonObject ab = compare.compare("a1/worse", "a1/golden", null);
        assertEquals(200.0, ab.getAsJsonArray("cells").get(0).getAsJsonObject().getAsJsonObject("delta")
                .get("max_us").getAsDouble(), 1e-9);
        BadRequest e = assertThrows(BadRequest.class, () -> Compare.tolerance(Json.parse("{\"max_pct\":-1}")));
        assertTrue(e.getMessage().contains("tolerance.max_pct"), e.getMessage());
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aFailNeverBecomesAReferenceUnaskedNorAPassInsideTheEnvelope(String kind) throws Exception {
        Db db = db(kind);
        Compare compare = new Compare(db, new Queries(db));
        run(db, "failed", "FAIL", true, 60, 100);
        run(db, "again", "FAIL", true, 60, 110);
        JsonObject req = Json.parse("{\"appliance\":\"a1\",\"run\":\"failed\"}");
        BadRequest e = assertThrows(BadRequest.class, () -> compare.setReference("admin", req));
        assertEquals(409, e.status);
        assertTrue(e.getMessage().contains("only from a complete PASS run") && e.getMessage().contains("verdict is FAIL"),
                e.getMessage());
        req.addProperty("override_reason", "first unit of the line; no PASS yet, tracking drift only");
        JsonObject refs = compare.setReference("admin", req);
        assertEquals("first unit of the line; no PASS yet, tracking drift only", refs.getAsJsonArray("references").get(0)
                .getAsJsonObject().get("override_reason").getAsString());
        // A FAIL run inside the envelope of that reference: FAIL first, the envelope beside it, never PASS.
        JsonObject c = compare.compare("a1/again", null, "golden");
        assertTrue(c.get("inside").getAsBoolean(), c.toString());
        assertEquals("FAIL; inside the envelope", c.get("reading").getAsString());
        for (var cell : c.getAsJsonArray("cells")) {
            assertEquals("FAIL; inside the envelope", cell.getAsJsonObject().getAsJsonObject("envelope").get("reading")
                    .getAsString());
        }
        // The admin widens a band: audited with the old and the new.
        long id = refs.getAsJsonArray("references").get(0).getAsJsonObject().get("id").getAsLong();
        assertEquals(5.0, compare.setTolerance("admin", id, Json.parse("{\"tolerance\":{\"max_pct\":5}}"))
                .get("max_pct").getAsDouble());
        try (Connection conn = db.connection()) {
            assertEquals(1, Sql.count(conn, "SELECT COUNT(*) FROM audit WHERE action = 'reference-refused'"));
            assertEquals(2, Sql.count(conn, "SELECT COUNT(*) FROM audit WHERE action = 'reference-override'"));
            assertEquals(1, Sql.count(conn, "SELECT COUNT(*) FROM audit WHERE action = 'reference-tolerance'"));
        }
    }
}
