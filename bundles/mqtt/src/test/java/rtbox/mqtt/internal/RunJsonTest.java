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
    void readsTheCommandLinesNames() throws Exception {
        RunRequest r = parse("{\"probe\":\"timer\",\"parameters\":{\"duration\":\"10s\",\"priority\":80,"
                + "\"cpus\":\"0-1\",\"interval_us\":200,\"options\":{\"clock\":\"mono\"}},"
                + "\"thresholds\":{\"max_latency_us\":100},\"loads\":[\"pipe:mode=rtt\"]}");
        assertEquals("timer", r.probe());
        assertEquals(10_000_000_000L, r.parameters().durationNs);
        assertEquals(SchedPolicy.FIFO, r.parameters().policy);
        assertArrayEquals(new int[] {0, 1}, r.parameters().cpus);
        assertEquals(200, r.parameters().intervalUs);
        assertEquals("mono", r.parameters().options.get("clock"));
        assertEquals(100, r.thresholds().maxLatencyUs());
        assertEquals(1000, r.thresholds().jvmStallBudgetUs());
        assertEquals("pipe", r.loads().get(0).name());
    }

    @Test
    void errorsNameTheField() {
        assertTrue(assertThrows(RtboxException.class, () -> parse("{\"parameters\":{}}")).getMessage()
                .contains("probe is missing"));
        assertTrue(assertThrows(RtboxException.class, () -> parse("{\"probe\":\"timer\",\"parameters\":{}}"))
                .getMessage().contains("duration"));
        assertTrue(assertThrows(RtboxException.class,
                () -> parse("{\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\",\"cpus\":\"x\"}}"))
                .getMessage().contains("parameters.cpus"));
        assertTrue(assertThrows(RtboxException.class,
                () -> parse("{\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\",\"prio\":1}}"))
                .getMessage().contains("unknown field prio"));
        assertTrue(assertThrows(RtboxException.class,
                () -> parse("{\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\",\"priority\":120}}"))
                .getMessage().contains("priority 120 is out of range"));
    }

    private static String refused(String parameters) {
        return assertThrows(RtboxException.class, () -> parse("{\"probe\":\"timer\",\"parameters\":{\"duration\":\"1s\","
                + parameters + "}}")).getMessage();
    }

    @Test
    void cpusAreWholeAndDistinct() {
        String m = refused("\"cpus\":[0.5]");
        assertTrue(m.contains("parameters.cpus[0] 0.5 is not a CPU number"), m);
        m = refused("\"cpus\":[\"0\"]");
        assertTrue(m.contains("parameters.cpus[0]"), m);
        m = refused("\"cpus\":[0,1,0,1,0,1,0,1]");
        assertTrue(m.contains("parameters.cpus: CPU 0 is given twice"), m);
        m = refused("\"cpus\":\"0,1,1\"");
        assertTrue(m.contains("CPU 1 is given twice"), m);
    }
}
