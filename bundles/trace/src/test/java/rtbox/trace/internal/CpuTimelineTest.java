package rtbox.trace.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** Who held the CPU: nesting gives the time to the innermost, idle is not kept, the ring keeps the newest. */
class CpuTimelineTest {
    private static Map<Long, Long> sums(CpuTimeline t, long from, long to) {
        Map<Long, Long> m = new HashMap<>();
        t.overlapping(from, to, (o, ns) -> m.merge(o, ns, Long::sum));
        return m;
    }

    private static void sw(CpuTimeline t, long ts, int prevTid, long prev, long next, boolean keepNext) {
        t.switched(ts, prevTid, prev, true, CpuTimeline.id(next), next, keepNext);
    }

    @Test
    void aSwitchTheTraceDidNotHaveIsPlacedAtTheWakeUpOrLeftUnknown() {
        CpuTimeline t = new CpuTimeline(16);
        long agent = CpuTimeline.task(77, 110), spinner = CpuTimeline.task(99, 0), other = CpuTimeline.task(5, 120);
        sw(t, 100, 1, CpuTimeline.task(1, 120), agent, true);
        t.woke(200, 99);
        // No switch agent -> spinner in the trace; the spinner's switch out says it ran.
        sw(t, 5200, 99, spinner, agent, true);
        Map<Long, Long> m = sums(t, 0, 6000);
        assertEquals(100, m.get(agent));
        assertEquals(5000, m.get(spinner));
        assertFalse(t.lostIn(0, 5200));
        // A thread switched out that was neither on the CPU nor woken: unknown since the last switch.
        sw(t, 9000, 5, other, agent, true);
        assertTrue(t.lostIn(6000, 7000));
        assertFalse(sums(t, 5300, 8900).containsKey(agent));
    }

    @Test
    void anInterruptsTimeIsNotTheTasks() {
        CpuTimeline t = new CpuTimeline(16);
        long a = CpuTimeline.task(42, 0), irq = CpuTimeline.irq(14), soft = CpuTimeline.softirq(3);
        sw(t, 100, 7, CpuTimeline.task(7, 120), a, true);
        t.enter(200, irq);
        t.exit(260, irq);
        t.enter(300, soft);
        t.enter(310, irq);
        t.exit(320, irq);
        t.exit(400, soft);
        sw(t, 1000, 42, a, CpuTimeline.task(0, 120), false);
        t.flush(2000);
        Map<Long, Long> m = sums(t, 0, 5000);
        assertEquals(100 + 40 + 600, m.get(a));
        assertEquals(60 + 10, m.get(irq));
        assertEquals(90, m.get(soft));
        assertEquals(3, m.size(), "idle not kept");
        assertEquals(100, t.keptFrom());
        // Clipped to the window.
        assertEquals(50 + 10, sums(t, 210, 1000).get(irq));
    }

    @Test
    void theRingKeepsTheNewestAndSaysFromWhen() {
        CpuTimeline t = new CpuTimeline(4);
        for (int i = 0; i < 10; i++) {
            sw(t, i * 100, i, CpuTimeline.task(i, 0), CpuTimeline.task(i + 1, 0), true);
        }
        t.flush(1000);
        assertEquals(10, t.intervalsStored());
        assertEquals(600, t.keptFrom());
        assertEquals(4, sums(t, 0, 2000).size());
        t.lost(1000, 1100, 5);
        assertTrue(t.lostIn(1050, 1200));
        assertFalse(t.lostIn(0, 999));
    }
}
