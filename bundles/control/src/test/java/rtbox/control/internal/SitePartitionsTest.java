package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each result stored with its run's site and first time, the partition key of message: on
 * PostgreSQL (a real one, Debian's) a partition per site and month, made by the control room
 * when the first message of a site-month comes; on H2 the same columns, no partitions. A
 * repeat (a QoS 1 redelivery a month later, after the appliance moved) is still stored once.
 */
class SitePartitionsTest extends BothDatabases {
    private static final long NOVEMBER = Instant.parse("2026-11-30T23:59:00Z").toEpochMilli();
    private static final long DECEMBER = Instant.parse("2026-12-01T00:01:00Z").toEpochMilli();

    @ParameterizedTest
    @MethodSource("databases")
    void resultsLandInTheirSiteAndMonthAndARepeatIsStoredOnce(String kind) throws Exception {
        Db db = db(kind);
        Ingest in = new Ingest(new Decoder(20 * 1024 * 1024), new IngestStore(db), new Events(), (m, o) -> {
        });
        IngestStore store = new IngestStore(db);
        in.accept("rtbox/v1/up/a1/status", Messages.status("a1", "online", false));
        in.accept("rtbox/v1/up/b1/status", Messages.status("b1", "online", false));
        in.accept("rtbox/v1/up/c1/status", Messages.status("c1", "online", false));
        try (Connection c = db.connection()) {
            // As PUT /api/v1/appliances/ID does (ControlRoom.setPlace); c1 has no site.
            Sql.update(c, "UPDATE appliance SET site = ? WHERE id = ?", "plant1", "a1");
            Sql.update(c, "UPDATE appliance SET site = ? WHERE id = ?", "Plant 2", "b1");
        }
        store.storeAll(List.of(cell(in, "a1", "nov", 1), cell(in, "b1", "nov", 1), cell(in, "c1", "nov", 1)), NOVEMBER);
        store.storeAll(List.of(cell(in, "a1", "dec", 1), cell(in, "b1", "dec", 1)), DECEMBER);
        // A month later, after a1 moved to Plant 2: a repeat of its November cell (a redelivery)
        // and that run's next cell stay in the run's site and month.
        try (Connection c = db.connection()) {
            Sql.update(c, "UPDATE appliance SET site = ? WHERE id = ?", "Plant 2", "a1");
        }
        List<IngestStore.Outcome> late = store.storeAll(List.of(cell(in, "a1", "nov", 1), cell(in, "a1", "nov", 2)),
                DECEMBER + 86_400_000L);
        assertEquals(List.of(false, true), late.stream().map(IngestStore.Outcome::stored).toList(),
                "the repeat is a duplicate, the next cell is stored");

        try (Connection c = db.connection()) {
            assertEquals(6, Sql.count(c, "SELECT COUNT(*) FROM message"));
            assertEquals(1, Sql.count(c, "SELECT COUNT(*) FROM message WHERE appliance = 'a1' AND run_id = 'nov' AND seq = 2"));
            String where = kind.equals("postgresql") ? "tableoid::regclass::text" : "site || ' ' || run_ms";
            List<String> rows = Sql.list(c, "SELECT appliance || ' ' || run_id || ' ' || seq || ' ' || " + where
                    + " FROM message ORDER BY appliance, run_id, seq", rs -> rs.getString(1));
            String plant1 = "message_s_plant1_" + md5("plant1").substring(0, 8);
            String plant2 = "message_s_plant_2_" + md5("Plant 2").substring(0, 8);
            String none = "message_s__" + md5("").substring(0, 8);
            if (kind.equals("postgresql")) {
                assertEquals(List.of("a1 dec 2 " + plant1 + "_202612", "a1 nov 2 " + plant1 + "_202611",
                        "a1 nov 4 " + plant1 + "_202611", "b1 dec 2 " + plant2 + "_202612", "b1 nov 2 " + plant2
                        + "_202611", "c1 nov 2 " + none + "_202611"), rows);
                // Each site a partition, each of its months a partition of that.
                assertEquals(List.of(none, plant1, plant2), Sql.list(c, "SELECT c.relname::text FROM pg_inherits i"
                        + " JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'message'::regclass ORDER BY 1",
                        rs -> rs.getString(1)));
                assertEquals(List.of(plant1 + "_202611", plant1 + "_202612"), Sql.list(c, "SELECT c.relname::text FROM"
                        + " pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = ?::regclass ORDER BY 1",
                        rs -> rs.getString(1), plant1));
            } else {
                assertEquals(List.of("a1 dec 2 plant1 " + DECEMBER, "a1 nov 2 plant1 " + NOVEMBER, "a1 nov 4 plant1 "
                        + NOVEMBER, "b1 dec 2 Plant 2 " + DECEMBER, "b1 nov 2 Plant 2 " + NOVEMBER, "c1 nov 2  "
                        + NOVEMBER), rows);
            }
            assertEquals(List.of("a1 dec plant1", "a1 nov plant1", "b1 dec Plant 2", "b1 nov Plant 2", "c1 nov "),
                    Sql.list(c, "SELECT appliance || ' ' || run_id || ' ' || site FROM run ORDER BY 1", rs -> rs.getString(1)));
        }
        // The run page still reads every message of a run.
        assertEquals(2, new Queries(db).run("a1", "nov").getAsJsonArray("cells").size());
    }

    private static Inbound cell(Ingest in, String appliance, String run, int cell) {
        return in.decode(Messages.runTopic(appliance, run, "cell"), Messages.cell(appliance, run, cell, 2, "PASS", 30))
                .message();
    }

    private static String md5(String s) throws Exception {
        StringBuilder hex = new StringBuilder();
        for (byte b : java.security.MessageDigest.getInstance("MD5").digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8))) {
            hex.append(String.format("%02x", b));
        }
        return hex.toString();
    }
}
