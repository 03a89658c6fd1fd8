package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import com.google.gson.JsonObject;

/**
 * Acceptance records on H2 and a real PostgreSQL: a PASS needs a passed, recent self-test
 * of the instrument; a FAIL is recorded as a FAIL; the chain names the first record that
 * was changed, whether its text, its columns or its hash were changed; golden references
 * and the envelope verdict.
 */
class RecordsTest extends BothDatabases {

    /** A two-cell run of a1 with the given verdict, started with a serial and a self-test {@code selftestAgeS} old. */
    private static void run(Db db, String run, String verdict, Boolean selftestOk, long selftestAgeS, double maxUs)
            throws Exception {
        Ingest in = new Ingest(new Decoder(20 << 20), new IngestStore(db), new Events(), (m, o) -> {
        });
        in.accept(Messages.runTopic("a1", run, "cell"), Messages.cell("a1", run, 1, 2, verdict, maxUs));
        in.accept(Messages.runTopic("a1", run, "cell"), Messages.cell("a1", run, 2, 2, verdict, maxUs * 2));
        in.accept(Messages.runTopic("a1", run, "result"), Messages.result("a1", run, 2, verdict));
        long started = Json.epochMs("2026-12-03T08:00:01Z");
        try (Connection c = db.connection()) {
            Sql.update(c, "UPDATE run SET serial = ?, model = ?, started_by = ?, plan_text = ?, plan_sha256 = ?,"
                    + " selftest = ?, selftest_ms = ?, selftest_ok = ? WHERE appliance = 'a1' AND run_id = ?",
                    "SN-" + run, "X20", "alice", "{\"name\":\"smoke\"}", "ab", selftestOk == null ? null
                            : "{\"ok\":" + selftestOk + ",\"message\":\"" + (selftestOk ? "ok" : "disk full") + "\"}",
                    selftestOk == null ? null : started - selftestAgeS * 1000, selftestOk, run);
        }
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aPassNeedsTheInstrumentCheckedAndAFailStaysAFail(String kind) throws Exception {
        Db db = db(kind);
        Records records = new Records(db, 3600_000);
        run(db, "failed-selftest", "PASS", false, 10, 30);
        run(db, "no-selftest", "PASS", null, 0, 30);
        run(db, "old-selftest", "PASS", true, 7200, 30);
        run(db, "good", "PASS", true, 60, 30);
        run(db, "fail", "FAIL", false, 60, 3000);
        BadRequest e = assertThrows(BadRequest.class, () -> records.issue("bob", "a1", "failed-selftest", null, "operator"));
        assertEquals(409, e.status);
        assertTrue(e.getMessage().contains("self-test") && e.getMessage().contains("failed"), e.getMessage());
        e = assertThrows(BadRequest.class, () -> records.issue("bob", "a1", "no-selftest", null, "operator"));
        assertTrue(e.getMessage().contains("no self-test"), e.getMessage());
        e = assertThrows(BadRequest.class, () -> records.issue("bob", "a1", "old-selftest", null, "operator"));
        assertTrue(e.getMessage().contains("7200 s old"), e.getMessage());
        JsonObject good = records.issue("bob", "a1", "good", "fine", "operator");
        assertEquals("PASS", good.get("verdict").getAsString());
        assertEquals(Records.GENESIS, good.get("previous_sha256").getAsString());
        assertEquals(60, good.getAsJsonObject("selftest").get("age_s").getAsLong());
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

    @ParameterizedTest
    @MethodSource("databases")
    void verifyNamesTheFirstRecordThatWasChanged(String kind) throws Exception {
        Db db = db(kind);
        Records records = new Records(db, 3600_000);
        for (int i = 1; i <= 4; i++) {
            run(db, "r" + i, "PASS", true, 60, 30);
            records.issue("bob", "a1", "r" + i, null, "operator");
        }
        assertTrue(records.verify().get("ok").getAsBoolean());
        assertEquals(4, records.verify().get("records").getAsLong());
        try (Connection c = db.connection()) {
            // One byte of record 3's text.
            String body = Sql.one(c, "SELECT body FROM record WHERE id = 3", rs -> rs.getString(1));
            Sql.update(c, "UPDATE record SET body = ? WHERE id = 3", body.replace("\"SN-r3\"", "\"SN-r8\""));
            JsonObject v = records.verify();
            assertFalse(v.get("ok").getAsBoolean());
            assertEquals(3, v.get("first_changed").getAsLong(), v.toString());
            // Re-hashed to hide it: record 4's link to it names record 3 all the same.
            Sql.update(c, "UPDATE record SET sha256 = ? WHERE id = 3", Passwords.sha256(body.replace("\"SN-r3\"",
                    "\"SN-r8\"").getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            v = records.verify();
            assertEquals(3, v.get("first_changed").getAsLong(), v.toString());
            // A column changed without the text: record 2.
            Sql.update(c, "UPDATE record SET verdict = 'FAIL' WHERE id = 2");
            v = records.verify();
            assertEquals(2, v.get("first_changed").getAsLong(), v.toString());
            Sql.update(c, "UPDATE record SET verdict = 'PASS' WHERE id = 2");
            // A record taken out of the chain.
            Sql.update(c, "UPDATE record SET body = ?, sha256 = (SELECT sha256 FROM record WHERE id = 3) WHERE id = 3",
                    body);
            Sql.update(c, "UPDATE record SET sha256 = ? WHERE id = 3", Passwords.sha256(body.getBytes(
                    java.nio.charset.StandardCharsets.UTF_8)));
            assertTrue(records.verify().get("ok").getAsBoolean(), records.verify().toString());
            Sql.update(c, "DELETE FROM record WHERE id = 2");
            v = records.verify();
            assertTrue(v.get("problem").getAsString().contains("record 2 is missing"), v.toString());
        }
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
}
