package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An appliance whose last will never came (it died with a broker node) is shown offline
 * once silent for silentAfterSeconds; one that keeps its heartbeat stays online, and a
 * silent one that speaks again is online again.
 */
class SilenceTest extends BothDatabases {
    @ParameterizedTest
    @MethodSource("databases")
    void silentAppliancesAreShownOffline(String kind) throws Exception {
        Db db = db(kind);
        IngestStore store = new IngestStore(db);
        Decoder d = new Decoder(1 << 20);
        long t0 = 1_000_000_000_000L;
        store.store(d.decode("rtbox/v1/up/a1/status", Messages.status("a1", "online", true)), t0);
        store.store(d.decode("rtbox/v1/up/a2/status", Messages.status("a2", "online", false)), t0);
        store.store(d.decode("rtbox/v1/up/a3/status", Messages.status("a3", "offline", false)), t0);
        Silence silence = new Silence(db, 120_000);
        assertEquals(List.of(), silence.sweep(t0 + 119_000), "not silent long enough yet");
        // a2's heartbeat comes; a1 says nothing more.
        store.store(d.decode("rtbox/v1/up/a2/status", Messages.status("a2", "online", false)), t0 + 100_000);
        assertEquals(List.of("a1"), silence.sweep(t0 + 121_000));
        assertEquals(List.of(), silence.sweep(t0 + 122_000), "marked once");
        try (Connection c = db.connection()) {
            assertEquals("offline", Sql.one(c, "SELECT state FROM appliance WHERE id = 'a1'", rs -> rs.getString(1)));
            assertEquals(0, Sql.count(c, "SELECT COUNT(*) FROM appliance WHERE id = 'a1' AND (busy OR run_id IS NOT NULL)"));
            assertEquals("online", Sql.one(c, "SELECT state FROM appliance WHERE id = 'a2'", rs -> rs.getString(1)));
        }
        IngestStore.Outcome back = store.store(d.decode("rtbox/v1/up/a1/status", Messages.status("a1", "online",
                false)), t0 + 130_000);
        assertEquals(true, back.cameOnline(), "a silent appliance heard again is online again");
    }
}
