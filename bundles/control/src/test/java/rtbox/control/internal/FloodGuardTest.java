package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import com.google.gson.JsonObject;

/** An appliance past its message budget is limited and named; the others are not touched. */
class FloodGuardTest {
    @Test
    void aFloodingApplianceIsLimitedAndNamedTheOthersAreNot() {
        FloodGuard g = new FloodGuard(2);
        long t = 0;
        // The burst: 20 s worth, 40 messages, then 2 a second.
        for (int i = 0; i < 40; i++) {
            assertTrue(g.take("flood", t));
        }
        assertFalse(g.take("flood", t), "past the burst");
        assertTrue(g.take("calm", t), "another appliance has its own budget");
        t += 1_000_000_000L;
        assertTrue(g.take("flood", t));
        assertTrue(g.take("flood", t));
        assertFalse(g.take("flood", t), "2 a second");
        assertEquals(2, g.overBudget("flood"));
        assertTrue(g.nameNow("flood"), "named the first time");
        assertFalse(g.nameNow("flood"), "and not again within the minute");
        assertEquals(1, g.flooding().size());
        JsonObject f = g.flooding().get(0).getAsJsonObject();
        assertEquals("flood", f.get("appliance").getAsString());
        assertEquals(2, f.get("over_budget").getAsLong());
        assertTrue(new FloodGuard(0).take("any", 0), "0: no budget");
    }

    @Test
    void theIngestRefusesAFloodersProgressButStoresItsResults() throws Exception {
        java.util.List<Ingest.Arrival> kept = new java.util.ArrayList<>();
        Ingest in = new Ingest(new Decoder(1 << 20), null, new Events(), (m, o) -> { }, new FloodGuard(0.05));
        // A budget of one message (burst 20 s x 0.05/s): the second progress is refused, a cell is kept.
        kept.add(in.decode(Messages.runTopic("f1", "r1", "progress"), Messages.progress("f1", "r1", 1, 2)));
        kept.add(in.decode(Messages.runTopic("f1", "r1", "progress"), Messages.progress("f1", "r1", 2, 2)));
        kept.add(in.decode(Messages.runTopic("f1", "r1", "cell"), Messages.cell("f1", "r1", 1, 2, "PASS", 30)));
        kept.add(in.decode("rtbox/v1/up/f1/status", Messages.status("f1", "online", false)));
        assertTrue(kept.get(0).message() != null);
        assertTrue(kept.get(1).message() == null, "progress past the budget");
        assertTrue(kept.get(2).message() != null, "a cell is never refused for the rate");
        assertTrue(kept.get(3).message() == null, "status past the budget");
        assertEquals(2, in.rejected("rate-limited"));
        JsonObject h = in.health();
        assertEquals("f1", h.getAsJsonArray("flooding").get(0).getAsJsonObject().get("appliance").getAsString());
        assertEquals(1, h.getAsJsonArray("last_rejected").size(), "named once, not once per message");
    }
}
