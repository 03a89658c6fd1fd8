package rtbox.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import rtbox.api.result.JvmStall;
import rtbox.api.result.RunEvent;

class XrunAttributionTest {
    private static final long MS = 1_000_000;

    @Test
    void anXrunWhoseCycleAJvmPauseOverlappedSaysSo() {
        // Period 10 ms. A 25 ms young GC from 100 ms: the cycle that ended at 110 ms overran
        // because of it; the one ending at 300 ms did not meet it.
        List<JvmStall> jvm = List.of(new JvmStall(100 * MS, 25 * MS, "safepoint", "G1 Evacuation Pause"));
        List<RunEvent> events = List.of(new RunEvent(50 * MS, "policy", "x"),
                new RunEvent(110 * MS, "xrun", "cycle finished 15000.0 us after its period ended"),
                new RunEvent(300 * MS, "xrun", "cycle finished 10.0 us after its period ended"));
        List<RunEvent> out = XrunAttribution.label(events, jvm, 10 * MS);
        assertSame(events.get(0), out.get(0));
        assertEquals("cycle finished 15000.0 us after its period ended (during a JVM pause: safepoint G1 Evacuation "
                + "Pause, 25000 us)", out.get(1).detail());
        assertSame(events.get(2), out.get(2));
        Map<String, Double> f = XrunAttribution.figures(Map.of("xruns", 2.0), out);
        assertEquals(1.0, f.get("xruns_jvm"));
        assertTrue(XrunAttribution.figures(Map.of("missed_deadlines", 0.0), out).get("xruns_jvm") == null,
                "not a graph: no such figure");
    }

    @Test
    void anXrunAMachineWideStallOverlappedSaysSoAndTheJvmComesFirst() {
        List<JvmStall> jvm = List.of(new JvmStall(100 * MS, 25 * MS, "safepoint", "G1 Evacuation Pause"));
        List<JvmStall> hiccups = List.of(new JvmStall(105 * MS, 3 * MS, "hiccup", ""),
                new JvmStall(205 * MS, 4 * MS, "hiccup", "seen from CPU 0"));
        List<RunEvent> events = List.of(new RunEvent(110 * MS, "xrun", "cycle finished 1.0 us after its period ended"),
                new RunEvent(210 * MS, "xrun", "cycle finished 2.0 us after its period ended"),
                new RunEvent(400 * MS, "xrun", "cycle finished 3.0 us after its period ended"));
        List<RunEvent> out = XrunAttribution.label(events, jvm, hiccups, 10 * MS);
        assertTrue(out.get(0).detail().endsWith("(during a JVM pause: safepoint G1 Evacuation Pause, 25000 us)"),
                out.get(0).detail());
        assertEquals("cycle finished 2.0 us after its period ended (during a machine-wide stall: hiccup seen from CPU 0,"
                + " 4000 us)", out.get(1).detail());
        assertSame(events.get(2), out.get(2));
        Map<String, Double> f = XrunAttribution.figures(Map.of("xruns", 3.0), out);
        assertEquals(1.0, f.get("xruns_jvm"));
        assertEquals(1.0, f.get("xruns_machine"));
    }
}
