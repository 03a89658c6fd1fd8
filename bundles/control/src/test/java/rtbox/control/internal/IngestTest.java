package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import com.google.gson.JsonObject;

/**
 * The ingest on both databases: H2 in a file and a real PostgreSQL (Debian's, started in
 * a temporary folder). Each case stores real schema-1 messages and reads them back
 * through the run page's query.
 */
class IngestTest extends BothDatabases {
    private final List<String> appliancesOnline = new ArrayList<>();

    @Override
    String h2Options() {
        return ";AUTO_SERVER=TRUE";
    }

    private Ingest ingest(Db db) {
        return new Ingest(new Decoder(20 * 1024 * 1024), new IngestStore(db), new Events(), (m, o) -> {
            if (o.cameOnline()) {
                appliancesOnline.add(m.appliance());
            }
        });
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aPlanIsStoredOnceWhateverComesTwiceOrLate(String kind) throws Exception {
        Db db = db(kind);
        Ingest in = ingest(db);
        in.accept("rtbox/v1/up/a1/status", Messages.status("a1", "online", true));
        // Out of order, with repeats (QoS 1 redelivery and a journal re-publish).
        in.accept(Messages.runTopic("a1", "r1", "cell"), Messages.cell("a1", "r1", 2, 2, "PASS", 40));
        in.accept(Messages.runTopic("a1", "r1", "progress"), Messages.progress("a1", "r1", 1, 2));
        in.accept(Messages.runTopic("a1", "r1", "cell"), Messages.cell("a1", "r1", 1, 2, "PASS", 30));
        in.accept(Messages.runTopic("a1", "r1", "cell"), Messages.cell("a1", "r1", 1, 2, "PASS", 30));
        in.accept(Messages.runTopic("a1", "r1", "progress"), Messages.progress("a1", "r1", 2, 2));
        in.accept(Messages.runTopic("a1", "r1", "result"), Messages.result("a1", "r1", 2, "PASS"));
        in.accept(Messages.runTopic("a1", "r1", "result"), Messages.result("a1", "r1", 2, "PASS"));
        assertEquals(2, in.duplicates());
        assertEquals(6, in.stored());
        assertEquals("{\"status\":1,\"progress\":2,\"cell\":2,\"result\":1,\"reply\":0}",
                in.health().get("stored_by_type").toString(), "repeats not counted");
        assertEquals(List.of("a1"), appliancesOnline);
        try (Connection c = db.connection()) {
            assertEquals(5, Sql.count(c, "SELECT COUNT(*) FROM message WHERE appliance = 'a1' AND run_id = 'r1'"));
        }
        JsonObject run = new Queries(db).run("a1", "r1");
        assertEquals("PASS", run.get("verdict").getAsString());
        assertEquals("complete", run.get("state").getAsString());
        assertEquals(2, run.getAsJsonArray("cells").size());
        assertEquals("c1", run.getAsJsonArray("cells").get(0).getAsJsonObject().get("name").getAsString());
        JsonObject m = run.getAsJsonObject("messages");
        assertEquals(0, m.getAsJsonArray("missing").size());
        assertTrue(m.get("complete").getAsBoolean());
        JsonObject fleet = new Queries(db).fleet(null, null, null, null, 0, 100);
        JsonObject a1 = fleet.getAsJsonArray("appliances").get(0).getAsJsonObject();
        assertEquals("busy", a1.get("state").getAsString());
        assertEquals("6.1.0-test", a1.get("kernel").getAsString());
        assertEquals("rtbox 0.1.0 (git 5d51b53)", a1.get("rtbox_version").getAsString(), "from the status");
        assertEquals("PASS", a1.get("last_verdict").getAsString());
        // The stored message is the one that came, byte for byte.
        assertArrayEquals(Messages.cell("a1", "r1", 1, 2, "PASS", 30), new Queries(db).message("a1", "r1", 2));
    }

    /**
     * MqttLink's path: a batch in one transaction, a repeat inside the batch stored once; a
     * message the database refuses for its content (a plan name longer than the column) is
     * counted as bad-message and not tried again, and costs the rest of its batch nothing.
     */
    @ParameterizedTest
    @MethodSource("databases")
    void aBatchIsStoredInOneTransactionAndARefusedMessageHoldsBackOnlyItself(String kind) throws Exception {
        Db db = db(kind);
        Ingest in = ingest(db);
        String longPlan = new String(Messages.progress("a1", "r2", 1, 2), StandardCharsets.UTF_8)
                .replace("\"plan\":\"smoke\"", "\"plan\":\"" + "p".repeat(300) + "\"");
        List<Ingest.Arrival> batch = List.of(
                in.decode(Messages.runTopic("a1", "r1", "progress"), Messages.progress("a1", "r1", 1, 2)),
                in.decode(Messages.runTopic("a1", "r1", "cell"), Messages.cell("a1", "r1", 1, 2, "PASS", 30)),
                in.decode(Messages.runTopic("a1", "r1", "cell"), Messages.cell("a1", "r1", 1, 2, "PASS", 30)),
                in.decode("rtbox/v1/up/a1/runs/r1/cell", "not json".getBytes(StandardCharsets.UTF_8)));
        assertEquals(List.of(), in.store(batch));
        assertEquals(2, in.stored());
        assertEquals(1, in.duplicates());
        assertEquals(1, in.rejected("not-json"));

        List<Ingest.Arrival> second = List.of(
                in.decode(Messages.runTopic("a1", "r1", "progress"), Messages.progress("a1", "r1", 2, 2)),
                in.decode(Messages.runTopic("a1", "r2", "progress"), longPlan.getBytes(StandardCharsets.UTF_8)),
                in.decode(Messages.runTopic("a1", "r1", "result"), Messages.result("a1", "r1", 2, "PASS")));
        assertEquals(List.of(), in.store(second), "a refused message is not one to try again");
        assertEquals(4, in.stored());
        assertEquals(1, in.rejected("bad-message"));
        assertTrue(in.health().toString().contains("the database refused it"), in.health().toString());
        try (Connection c = db.connection()) {
            assertEquals(4, Sql.count(c, "SELECT COUNT(*) FROM message WHERE appliance = 'a1' AND run_id = 'r1'"));
            assertEquals(0, Sql.count(c, "SELECT COUNT(*) FROM message WHERE run_id = 'r2'"));
        }
        assertEquals("PASS", new Queries(db).run("a1", "r1").get("verdict").getAsString());
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aGapIsShownAsMissing(String kind) throws Exception {
        Db db = db(kind);
        Ingest in = ingest(db);
        in.accept(Messages.runTopic("a1", "r2", "progress"), Messages.progress("a1", "r2", 1, 3));
        in.accept(Messages.runTopic("a1", "r2", "cell"), Messages.cell("a1", "r2", 1, 3, "PASS", 30));
        // cell 2 (sequence 4) and the progress before it (3) never come
        in.accept(Messages.runTopic("a1", "r2", "progress"), Messages.progress("a1", "r2", 3, 3));
        in.accept(Messages.runTopic("a1", "r2", "cell"), Messages.cell("a1", "r2", 3, 3, "FAIL", 900));
        in.accept(Messages.runTopic("a1", "r2", "result"), Messages.result("a1", "r2", 3, "FAIL"));
        JsonObject m = new Queries(db).run("a1", "r2").getAsJsonObject("messages");
        assertEquals("[4]", m.get("missing").toString());
        assertEquals("[3]", m.get("progress_missing").toString());
        assertEquals(7, m.get("expected").getAsInt());
        assertFalse(m.get("complete").getAsBoolean());
        // Under way, nothing missing yet past the last that came.
        in.accept(Messages.runTopic("a1", "r3", "progress"), Messages.progress("a1", "r3", 1, 3));
        JsonObject r3 = new Queries(db).run("a1", "r3").getAsJsonObject("messages");
        assertEquals("[]", r3.get("missing").toString());
        assertEquals(7, r3.get("expected").getAsInt());
    }

    @ParameterizedTest
    @MethodSource("databases")
    void badMessagesAreCountedNotStoredAndTheIngestGoesOn(String kind) throws Exception {
        Db db = db(kind);
        Ingest in = ingest(db);
        // spoofed: a1's topic, a2 in the payload (and the reverse)
        in.accept(Messages.runTopic("a1", "r1", "cell"), Messages.cell("a2", "r1", 1, 1, "PASS", 30));
        in.accept("rtbox/v1/up/a2/status", Messages.status("a1", "online", false));
        in.accept(Messages.runTopic("a1", "r1", "cell"), "this is not JSON".getBytes(StandardCharsets.UTF_8));
        in.accept(Messages.runTopic("a1", "r1", "cell"), new byte[] {(byte) 0xff, (byte) 0xfe, 0x00});
        JsonObject future = Json.parse(new String(Messages.cell("a1", "r1", 1, 1, "PASS", 30), StandardCharsets.UTF_8));
        future.addProperty("schema", 2);
        in.accept(Messages.runTopic("a1", "r1", "cell"), Messages.bytes(future));
        future.remove("schema");
        in.accept(Messages.runTopic("a1", "r1", "cell"), Messages.bytes(future));
        // 20 MiB and one byte: over the limit (the broker lets up to 64 MiB through)
        byte[] big = new byte[20 * 1024 * 1024 + 1];
        Arrays.fill(big, (byte) ' ');
        in.accept(Messages.runTopic("a1", "r1", "cell"), big);
        in.accept("rtbox/v1/up/a1/runs/r1/whatever", Messages.cell("a1", "r1", 1, 1, "PASS", 30));
        assertEquals(2, in.rejected("appliance-mismatch"));
        assertEquals(2, in.rejected("not-json"));
        assertEquals(2, in.rejected("unknown-schema"));
        assertEquals(1, in.rejected("oversize"));
        assertEquals(1, in.rejected("bad-topic"));
        assertEquals(0, in.stored());
        try (Connection c = db.connection()) {
            assertEquals(0, Sql.count(c, "SELECT COUNT(*) FROM message"));
            assertEquals(0, Sql.count(c, "SELECT COUNT(*) FROM appliance"));
        }
        // ...and the next good message is stored: the ingest never stops.
        in.accept(Messages.runTopic("a1", "r1", "cell"), Messages.cell("a1", "r1", 1, 1, "PASS", 30));
        assertEquals(1, in.stored());
        assertEquals(8, in.health().getAsJsonArray("last_rejected").size());
        // A 20 MiB message that is valid is stored (the limit is on size, not on content).
        JsonObject huge = Json.parse(new String(Messages.cell("a1", "r9", 1, 1, "PASS", 30), StandardCharsets.UTF_8));
        huge.addProperty("padding", " ".repeat(20 * 1024 * 1024 - 2000));
        in.accept(Messages.runTopic("a1", "r9", "cell"), Messages.bytes(huge));
        assertEquals(2, in.stored());
        assertNull(in.health().get("nothing"));
    }

    /**
     * Issue 31: a negative max_us, 1e999 and a run '..' were stored. Each is refused, counted as
     * out-of-range (or bad-topic), counted per appliance with its last reason, and the next good
     * message is stored.
     */
    @ParameterizedTest
    @MethodSource("databases")
    void figuresOutOfRangeAreRefusedAndCountedPerAppliance(String kind) throws Exception {
        Db db = db(kind);
        Ingest in = ingest(db);
        String cell = new String(Messages.cell("a1", "r1", 1, 1, "PASS", 30), StandardCharsets.UTF_8);
        String[] bad = {
            cell.replace("\"max_us\":30.0", "\"max_us\":-30.0"),
            cell.replace("\"max_us\":30.0", "\"max_us\":1e999"),
            cell.replace("\"samples\":1000", "\"samples\":-1"),
            cell.replace("\"missed_deadlines\":0", "\"missed_deadlines\":-4"),
        };
        // The report's own figures that the run page shows: a spike's latency, a JVM stall's duration.
        JsonObject spiky = Json.parse(cell);
        spiky.add("report", Json.parse("{\"result\":{\"threads\":[{\"cpu\":0,\"spikes\":[{\"thread\":0,"
                + "\"offsetNs\":5,\"latencyNs\":-40000}]}]}}"));
        JsonObject stalled = Json.parse(cell);
        stalled.add("report", Json.parse("{\"jvmStalls\":[{\"offsetNs\":5,\"durationNs\":-1}]}"));
        in.accept(Messages.runTopic("a1", "r1", "cell"), Messages.bytes(spiky));
        in.accept(Messages.runTopic("a1", "r1", "cell"), Messages.bytes(stalled));
        assertEquals(2, in.rejected("out-of-range"));
        assertTrue(in.health().getAsJsonArray("last_rejected").get(1).getAsJsonObject().get("detail").getAsString()
                .startsWith("$.report.result.threads[0].spikes[0].latencyNs: -40000 is negative"),
                in.health().getAsJsonArray("last_rejected").toString());
        for (String b : bad) {
            assertTrue(!b.equals(cell), b);
            in.accept(Messages.runTopic("a1", "r1", "cell"), b.getBytes(StandardCharsets.UTF_8));
        }
        in.accept("rtbox/v1/up/a1/runs/../cell", cell.replace("\"run\":\"r1\"", "\"run\":\"..\"")
                .getBytes(StandardCharsets.UTF_8));
        assertEquals(6, in.rejected("out-of-range"));
        assertEquals(1, in.rejected("bad-topic"));
        assertEquals(0, in.stored());
        try (Connection c = db.connection()) {
            assertEquals(0, Sql.count(c, "SELECT COUNT(*) FROM message"));
            assertEquals(0, Sql.count(c, "SELECT COUNT(*) FROM run"));
        }
        JsonObject a1 = in.refused("a1");
        assertEquals(7, a1.get("refused").getAsLong());
        assertEquals("bad-topic", a1.get("last_reason").getAsString());
        assertTrue(a1.get("last_detail").getAsString().contains("not dots alone"), a1.toString());
        assertEquals("a1", in.health().getAsJsonArray("refused_by_appliance").get(0).getAsJsonObject()
                .get("appliance").getAsString());
        assertNull(in.refused("a2"));
        in.accept(Messages.runTopic("a1", "r1", "cell"), cell.getBytes(StandardCharsets.UTF_8));
        assertEquals(1, in.stored());
    }

    /**
     * Issue 31: an appliance the control room does not know (not in appliancesFile) is stored and
     * shown as unregistered, and counts for nothing of the fleet: not in the state counts, its
     * verdict not in its fleet row, its runs not in the runs list (unless asked for by name) nor in
     * a serial's history. One the file names is registered on sight.
     */
    @ParameterizedTest
    @MethodSource("databases")
    void anApplianceNotKnownLandsUnregisteredAndCountsForNothing(String kind, @org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        Db db = db(kind);
        Path file = dir.resolve("appliances.passwd");
        java.nio.file.Files.writeString(file, "# the appliance listener's users\na1:$7$101$abc\ncontrol:$7$x\n");
        Registry registry = new Registry(false, file, "control");
        Ingest in = new Ingest(new Decoder(1 << 20), new IngestStore(db, registry), new Events(), (m, o) -> {
        });
        for (String a : new String[] {"a1", "intruder"}) {
            in.accept("rtbox/v1/up/" + a + "/status", Messages.status(a, "online", false));
            in.accept(Messages.runTopic(a, "r1", "cell"), Messages.cell(a, "r1", 1, 1, "PASS", 30));
            in.accept(Messages.runTopic(a, "r1", "result"), Messages.result(a, "r1", 1, "PASS"));
        }
        assertEquals(6, in.stored(), "an unknown appliance's messages are stored");
        Queries q = new Queries(db);
        JsonObject fleet = q.fleet(null, null, null, null, 0, 10);
        assertEquals(2, fleet.get("total").getAsLong());
        assertEquals("{\"online\":1,\"busy\":0,\"offline\":0,\"unregistered\":1}", fleet.get("counts").toString());
        JsonObject intruder = fleet.getAsJsonArray("appliances").get(1).getAsJsonObject();
        assertEquals("intruder", intruder.get("id").getAsString());
        assertFalse(intruder.get("registered").getAsBoolean());
        assertTrue(intruder.get("last_verdict").isJsonNull(), intruder.toString());
        assertTrue(fleet.getAsJsonArray("appliances").get(0).getAsJsonObject().get("registered").getAsBoolean());
        assertEquals(1, q.fleet(null, null, "unregistered", null, 0, 10).get("total").getAsLong());
        assertEquals(1, q.fleet(null, null, "online", null, 0, 10).get("total").getAsLong());
        assertEquals(1, q.runs(null, null, null, null, "PASS", 0, 10).get("total").getAsLong());
        assertEquals(1, q.runs("intruder", null, null, null, null, 0, 10).get("total").getAsLong());
        assertFalse(q.run("intruder", "r1").get("registered").getAsBoolean());
        assertTrue(q.run("a1", "r1").get("registered").getAsBoolean());
        // The file's forms: an id a line, or ID:hash as mosquitto writes it; the control user and bad ids skipped.
        assertEquals(java.util.Set.of("a1", "a2"), Registry.parse(List.of("a1", " a2:$7$x ", "# c", "", "control:x",
                "a b", "..:x"), "control"));
    }

    @ParameterizedTest
    @MethodSource("databases")
    void lastWillTurnsAnApplianceOffline(String kind) throws Exception {
        Db db = db(kind);
        Ingest in = ingest(db);
        in.accept("rtbox/v1/up/a1/status", Messages.status("a1", "online", false));
        in.accept("rtbox/v1/up/a1/status", Messages.status("a1", "offline", false));
        in.accept("rtbox/v1/up/a1/status", Messages.status("a1", "online", false));
        assertEquals(List.of("a1", "a1"), appliancesOnline);
        JsonObject fleet = new Queries(db).fleet(null, null, "online", null, 0, 10);
        assertEquals(1, fleet.get("total").getAsLong());
        assertEquals(1, fleet.getAsJsonObject("counts").get("online").getAsLong());
    }

    static Path unused() {
        return null;
    }
}
