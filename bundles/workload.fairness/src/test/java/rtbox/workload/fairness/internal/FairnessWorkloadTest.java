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

    /**
     * Three workers of 8 ms work and 1 ms sleep. What must hold under any load is
     * checked on every attempt: the figures agree with each other, no worker does
     * more rounds than the wall clock allows (9 ms a round), and all of them together
     * do no more work than the CPUs can (8 ms of CPU a round): both catch a
     * calibration that makes "8 ms" of work shorter than it is. That every worker
     * makes progress needs CPU time, which a loaded machine (load average 12 on two
     * CPUs starved one for a whole second) may not give: the run is tried for 1 s,
     * then 3 s, then 8 s, and passes once every worker did at least one round.
     */
    @Test
    void workersCountLoopsAndSpreadIsConsistent() throws Exception {
        String lastFigures = "";
        for (long runMs : new long[] {1000, 3000, 8000}) {
            WorkloadHandle h = new FairnessWorkload().start(Map.of("workers", "3", "work", "8ms", "sleep", "1ms"), CTX);
            Thread.sleep(runMs);
            long t0 = System.nanoTime();
            Map<String, Double> f = h.stop();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms <= 100, "stop took " + ms + " ms");
            assertNoThreadsLeft();
            assertConsistent(f, 3, 8, 1);
            lastFigures = f.toString();
            if (f.get("loops_min") > 0) {
                return;
            }
        }
        throw new AssertionError("a worker did no round in 1 s, 3 s and 8 s runs: " + lastFigures);
    }

    /**
     * A round's work is its CPU time, whatever the calibration says: here one caught on code
     * three times slower than the loop's (as the JIT's profiled code is slower than its final
     * code). A count of steps would make 8 ms rounds of about 2.7 ms and some 280 rounds a
     * second, over the wall clock's 111; held at CPU time, the invariants hold.
     */
    @Test
    void aRoundIsItsCpuTimeEvenWhenTheCalibrationIsOff() throws Exception {
        FairnessRun run = new FairnessRun(1, 8_000_000L, 1_000_000L,
                rtbox.os.ThreadSettings.parse(Map.of(), ""), null, 0, Math.max(1, Spin.iterationsPerMs() / 3));
        run.start();
        Thread.sleep(1000); // fixed: the window the figures are taken over
        Map<String, Double> f = run.stop();
        assertConsistent(f, 1, 8, 1);
        assertTrue(f.get("loops_max") > 0, f.toString());
        assertNoThreadsLeft();
    }

    /** Invariants of the figures that hold whatever else runs on the machine. */
    static void assertConsistent(Map<String, Double> f, int workers, double workMs, double sleepMs) {
        String all = f.toString();
        assertEquals(workers, f.get("workers"), all);
        assertEquals(0.0, f.get("errors"), all);
        double elapsedMs = f.get("elapsed_s") * 1000;
        double min = Double.MAX_VALUE, max = 0, sum = 0;
        for (int i = 0; i < workers; i++) {
            double n = f.get("worker_" + i + "_loops");
            assertTrue(n >= 0 && n == Math.rint(n), all);
            min = Math.min(min, n);
            max = Math.max(max, n);
            sum += n;
        }
        assertEquals(min, f.get("loops_min"), all);
        assertEquals(max, f.get("loops_max"), all);
        assertEquals(sum / workers, f.get("loops_mean"), 1e-9, all);
        assertEquals(max - min, f.get("spread"), all);
        assertEquals(sum > 0 ? (max - min) / (sum / workers) : 0, f.get("relative_error"), 1e-9, all);
        // Wall clock: a round takes work + sleep at the least (15% for the calibration, +1 for a round cut short).
        double roundsByClock = elapsedMs / (workMs + sleepMs);
        assertTrue(max <= roundsByClock * 1.15 + 1, "a worker did more rounds than " + roundsByClock + ": " + all);
        // CPU: all workers together cannot work more than the CPUs this JVM may use.
        double roundsByCpus = elapsedMs * Runtime.getRuntime().availableProcessors() / workMs;
        assertTrue(sum <= roundsByCpus * 1.15 + workers, "more work than " + roundsByCpus + " rounds of CPU: " + all);
    }

    @Test
    void disturberRunsAtFifo() throws Exception {
        WorkloadHandle h = new FairnessWorkload().start(Map.of("workers", "2", "disturber", "true",
                "disturber.max", "12ms"), CTX);
        Thread.sleep(500); // fixed: the window the disturber runs in
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
