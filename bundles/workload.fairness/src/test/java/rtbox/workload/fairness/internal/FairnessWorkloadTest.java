package rtbox.workload.fairness.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import rtbox.api.RtboxException;
import rtbox.api.RunContext;
import rtbox.api.WorkloadHandle;

class FairnessWorkloadTest {
    static final RunContext CTX = new RunContext() {
        @Override public boolean stopRequested() { return false; }
        @Override public void progress(double fraction) { }
        @Override public void event(String kind, String detail) { }
    };

    static void assertNoThreadsLeft() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            assertTrue(!t.getName().startsWith(FairnessRun.THREAD_PREFIX) || !t.isAlive(), "thread left: " + t.getName());
        }
    }

    @Test
    void workersCountLoopsAndSpreadIsConsistent() throws Exception {
        WorkloadHandle h = new FairnessWorkload().start(Map.of("workers", "3", "work", "8ms", "sleep", "1ms"), CTX);
        Thread.sleep(1000);
        long t0 = System.nanoTime();
        Map<String, Double> f = h.stop();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms <= 100, "stop took " + ms + " ms");
        assertEquals(3.0, f.get("workers"));
        double min = Double.MAX_VALUE, max = 0;
        for (int i = 0; i < 3; i++) {
            double n = f.get("worker_" + i + "_loops");
            assertTrue(n > 0, f.toString());
            min = Math.min(min, n);
            max = Math.max(max, n);
        }
        assertEquals(max - min, f.get("spread"), f.toString());
        assertEquals(min, f.get("loops_min"));
        // 3 workers on this machine's CPUs, 9 ms a round: at most ~111 rounds in 1 s each.
        assertTrue(max <= 120, f.toString());
        assertNoThreadsLeft();
    }

    @Test
    void disturberRunsAtFifo() throws Exception {
        WorkloadHandle h = new FairnessWorkload().start(Map.of("workers", "2", "disturber", "true",
                "disturber.max", "12ms"), CTX);
        Thread.sleep(500);
        Map<String, Double> f = h.stop();
        assertTrue(f.get("disturber_loops") > 0, f.toString());
        assertEquals(0.0, f.get("errors"));
        assertNoThreadsLeft();
    }

    @Test
    void badParametersAreNamed() {
        RtboxException e = assertThrows(RtboxException.class,
                () -> new FairnessWorkload().start(Map.of("workers", "0"), CTX));
        assertEquals("workers", e.subject());
        e = assertThrows(RtboxException.class, () -> new FairnessWorkload().start(Map.of("work", "8 parsecs"), CTX));
        assertEquals("work", e.subject());
        e = assertThrows(RtboxException.class, () -> new FairnessWorkload().start(Map.of("disturber", "maybe"), CTX));
        assertEquals("disturber", e.subject());
        e = assertThrows(RtboxException.class,
                () -> new FairnessWorkload().start(Map.of("disturber", "true", "disturber.priority", "0"), CTX));
        assertEquals("disturber.priority", e.subject());
        e = assertThrows(RtboxException.class, () -> new FairnessWorkload().start(Map.of("nice", "40"), CTX));
        assertEquals("nice", e.subject());
    }
}
