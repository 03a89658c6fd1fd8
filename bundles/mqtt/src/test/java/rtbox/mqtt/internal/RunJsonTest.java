package rtbox.mqtt.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import com.google.gson.JsonParser;

import rtbox.api.RtboxException;
import rtbox.api.SchedPolicy;
import rtbox.core.RunRequest;

class RunJsonTest {
    private static RunRequest parse(String json) throws RtboxException {
        return RunJson.parse(JsonParser.parseString(json).getAsJsonObject(), "test");
    }

    @Test
    void readsTheOneShapeThePlanCellHas() throws Exception {
        java.util.List<String> notes = new java.util.ArrayList<>();
        RunRequest r = RunJson.parse(JsonParser.parseString("{\"run\":\"r1\",\"probe\":\"timer\",\"policy\":\"fifo:80\","
                + "\"duration\":\"10s\",\"parameters\":{\"cpus\":\"0-1\",\"interval_us\":200,\"options\":{\"clock\":\"mono\"}},"
                + "\"thresholds\":{\"max_us\":100,\"p99_us\":50},\"loads\":[\"pipe:mode=rtt\"]}").getAsJsonObject(), "test",
                notes);
        assertEquals(java.util.List.of(), notes);
        assertEquals(10_000_000_000L, r.parameters().durationNs);
        assertEquals(SchedPolicy.FIFO, r.parameters().policy);
        assertEquals(80, r.parameters().priority);
        assertArrayEquals(new int[] {0, 1}, r.parameters().cpus);
        assertEquals(100, r.thresholds().maxLatencyUs());
        assertEquals(50, r.thresholds().p99Us());
    }

    @Test
    void readsTheOldNamesWithADeprecationNote() throws Exception {
        java.util.List<String> notes = new java.util.ArrayList<>();
        RunRequest r = RunJson.parse(JsonParser.parseString("{\"probe\":\"timer\",\"parameters\":{\"duration\":\"10s\","
                + "\"priority\":80,\"cpus\":\"0-1\",\"interval_us\":200,\"options\":{\"clock\":\"mono\"}},"
                + "\"thresholds\":{\"max_latency_us\":100,\"jvm_stall_budget_us\":500},\"loads\":[\"pipe:mode=rtt\"]}")
                .getAsJsonObject(), "test", notes);
        assertEquals("timer", r.probe());
        assertEquals(10_000_000_000L, r.parameters().durationNs);
        assertEquals(SchedPolicy.FIFO, r.parameters().policy);
        assertEquals(80, r.parameters().priority);
        assertArrayEquals(new int[] {0, 1}, r.parameters().cpus);
        assertEquals(200, r.parameters().intervalUs);
        assertEquals("mono", r.parameters().options.get("clock"));
        assertEquals(100, r.thresholds().maxLatencyUs());
        assertEquals(500, r.thresholds().jvmStallBudgetUs());
        assertEquals("pipe", r.loads().get(0).name());
        assertEquals(4, notes.size(), notes.toString());
        assertTrue(notes.contains("$.thresholds.max_latency_us: deprecated name (accepted until the next release): write"
                + " max_us"), notes.toString());
        assertTrue(notes.stream().anyMatch(n -> n.startsWith("$.parameters.duration: deprecated")), notes.toString());
    }

    @Test
    void errorsNameTheField() {
        assertTrue(assertThrows(RtboxException.class, () -> parse("{\"parameters\":{}}")).getMessage()
                .startsWith("$.probe: missing"));
        assertTrue(assertThrows(RtboxException.class, () -> parse("{\"probe\":\"timer\",\"parameters\":{}}"))
                .getMessage().startsWith("$.duration: missing"));
        RtboxException e = assertThrows(RtboxException.class,
                () -> parse("{\"probe\":\"timer\",\"duration\":\"1s\",\"parameters\":{\"cpus\":\"x\"}}"));
        assertTrue(e.getMessage().startsWith("$.parameters.cpus: "), e.getMessage());
        assertEquals("cpus", e.subject());
        assertTrue(assertThrows(RtboxException.class,
                () -> parse("{\"probe\":\"timer\",\"duration\":\"1s\",\"parameters\":{\"prio\":1}}"))
                .getMessage().startsWith("$.parameters.prio: unknown key"));
        assertTrue(assertThrows(RtboxException.class,
                () -> parse("{\"probe\":\"timer\",\"duration\":\"1s\",\"policy\":\"fifo:120\"}"))
                .getMessage().startsWith("$.policy: 'fifo:120': priority '120' is not 1 to 99"));
        assertTrue(assertThrows(RtboxException.class,
                () -> parse("{\"probe\":\"timer\",\"duration\":\"1s\",\"tuning\":{\"nice\":-5}}"))
                .getMessage().startsWith("$.tuning: needs the scheduling tuner"));
    }

    private static String refused(String parameters) {
        return assertThrows(RtboxException.class, () -> parse("{\"probe\":\"timer\",\"duration\":\"1s\","
                + "\"parameters\":{" + parameters + "}}")).getMessage();
    }

    @Test
    void cpusAreWholeAndDistinct() {
        String m = refused("\"cpus\":[0.5]");
        assertEquals("$.parameters.cpus[0]: expected a whole number, found 0.5", m);
        m = refused("\"cpus\":[\"0\"]");
        assertTrue(m.startsWith("$.parameters.cpus[0]"), m);
        m = refused("\"cpus\":[0,1,0,1,0,1,0,1]");
        assertTrue(m.contains("$.parameters.cpus: CPU 0 is given twice"), m);
        m = refused("\"cpus\":\"0,1,1\"");
        assertTrue(m.contains("CPU 1 is given twice"), m);
    }

    /** The verbs' whole numbers (results' limit, selftest's duration_s and cpu): exact, with their path (issue 33). */
    @Test
    void aVerbsWholeNumberIsExactOrA400NamingItsPath() throws Exception {
        com.google.gson.JsonObject c = rtbox.json.StrictJson.object("{\"limit\":2.5,\"duration_s\":1e30,\"cpu\":3,"
                + "\"n\":null}").object();
        RtboxException e = assertThrows(RtboxException.class, () -> RunJson.whole(c, "limit", 20, 1, 100));
        assertEquals("$.limit: expected a whole number, got 2.5", e.getMessage());
        assertEquals("limit", e.subject());
        assertEquals("$.duration_s: expected a whole number, got 1e30",
                assertThrows(RtboxException.class, () -> RunJson.whole(c, "duration_s", 2, 1, 60)).getMessage());
        assertEquals("$.cpu: 3 is out of range: use 0 to 1",
                assertThrows(RtboxException.class, () -> RunJson.whole(c, "cpu", 1, 0, 1)).getMessage());
        assertEquals(20, RunJson.whole(c, "n", 20, 1, 100));
        assertEquals(20, RunJson.whole(c, "absent", 20, 1, 100));
        assertEquals(3, RunJson.whole(c, "cpu", 0, 0, 3));
    }
}
