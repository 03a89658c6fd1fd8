package rtbox.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import rtbox.api.result.CorrectedLatency;
import rtbox.api.result.Histogram;
import rtbox.api.result.JvmStall;
import rtbox.api.result.ProbeResult;
import rtbox.api.result.Spike;
import rtbox.api.result.ThreadResult;
import rtbox.api.result.Verdict.Outcome;
import rtbox.core.Thresholds;

class JudgeAndAttributionTest {
    private static ThreadResult thread(long p50, long max, Spike... spikes) {
        Histogram h = new Histogram(1000, new long[10], 0, 100, 10_000, max, p50, p50, max, max);
        return new ThreadResult(0, 1, 123, "fifo", 99, 100, 0, h, new CorrectedLatency(100, p50, max, max, max, ""),
                List.of(spikes), 0);
    }

    private static ProbeResult result(ThreadResult t) {
        return new ProbeResult("timer", "", "CLOCK_MONOTONIC", 0, 1_000_000_000, true, List.of(t), Map.of(), List.of());
    }

    @Test
    void spikeInsideASafepointIsAJvmPause() {
        Spike s = new Spike(0, 500_000_000, 2_000_000, "", "");
        JvmStall safepoint = new JvmStall(498_500_000, 1_200_000, "safepoint", "G1CollectForAllocation");
        List<Spike> labelled = Attribution.label(thread(50_000, 2_000_000, s), List.of(safepoint), List.of());
        assertEquals(Attribution.JVM, labelled.get(0).cause());
    }

    @Test
    void spikeAwayFromEveryPauseIsUnexplained() {
        Spike s = new Spike(0, 500_000_000, 2_000_000, "", "");
        JvmStall earlier = new JvmStall(100_000_000, 1_000_000, "safepoint", "Cleanup");
        List<Spike> labelled = Attribution.label(thread(50_000, 2_000_000, s), List.of(earlier), List.of());
        assertEquals(Attribution.UNEXPLAINED, labelled.get(0).cause());
        assertNull(Attribution.overlapping(List.of(earlier), 498_000_000, 500_000_000));
    }

    @Test
    void smallSpikesUnderTenTimesTheMedianAreNotReported() {
        Spike s = new Spike(0, 500_000_000, 400_000, "", "");
        assertEquals(0, Attribution.label(thread(50_000, 400_000, s), List.of(), List.of()).size());
    }

    @Test
    void failOnMaxLatency() {
        var v = Judge.judge(result(thread(50_000, 2_000_000)), new Thresholds(1000, -1, -1, -1, -1, -1), List.of());
        assertEquals(Outcome.FAIL, v.outcome());
        assertEquals("max_latency_us 2000 > 1000", v.reason());
    }

    @Test
    void passUnderThresholds() {
        var v = Judge.judge(result(thread(50_000, 200_000)), new Thresholds(1000, 500, -1, 0, 0, -1), List.of());
        assertEquals(Outcome.PASS, v.outcome());
        assertEquals(4, v.checks().size());
    }

    @Test
    void noThresholdsIsMeasuredNeverPass() {
        // The case: a 3.5 ms worst case and no thresholds must not read as PASS.
        var v = Judge.judge(result(thread(50_000, 3_500_000)), new Thresholds(-1, -1, -1, -1, -1, 1000), List.of());
        assertEquals(Outcome.MEASURED, v.outcome());
        assertEquals("no thresholds given", v.reason());
        assertEquals(0, v.exitCode());
    }

    @Test
    void onlyNonLatencyChecksMetIsStillMeasured() {
        var v = Judge.judge(result(thread(50_000, 200_000)), new Thresholds(-1, -1, -1, 0, 0, -1), List.of());
        assertEquals(Outcome.MEASURED, v.outcome());
        assertEquals("no latency thresholds given", v.reason());
        assertEquals(2, v.checks().size());
    }

    @Test
    void aFailedNonLatencyCheckIsStillAFail() {
        ThreadResult t = thread(50_000, 200_000);
        t = new ThreadResult(0, 1, 123, "fifo", 99, 100, 7, t.latency(), t.corrected(), List.of(), 0);
        var v = Judge.judge(result(t), new Thresholds(-1, -1, -1, -1, 0, -1), List.of());
        assertEquals(Outcome.FAIL, v.outcome());
    }

    private static ProbeResult graph(long xruns, double xrunsJvm) {
        ThreadResult t = thread(50_000, 200_000);
        t = new ThreadResult(0, 1, 123, "fifo", 99, 100, xruns, t.latency(), t.corrected(), List.of(), 0);
        return new ProbeResult("graph", "", "CLOCK_MONOTONIC", 0, 1_000_000_000, true, List.of(t),
                Map.of("xruns", (double) xruns, "xruns_jvm", xrunsJvm), List.of());
    }

    /** The house rule for xruns: a stall the JVM caused is never blamed on the kernel. */
    @Test
    void xrunsAJvmPauseOverlappedAreInconclusiveNotAFail() {
        Thresholds zero = new Thresholds(200, -1, -1, -1, 0, -1);
        var v = Judge.judge(graph(2, 2), zero, List.of());
        assertEquals(Outcome.INCONCLUSIVE, v.outcome(), v.reason());
        assertTrue(v.reason().contains("2 of the 2 xruns overlapped a JVM pause"), v.reason());
        // Over the limit without the JVM's: the machine's own xruns fail it.
        assertEquals(Outcome.FAIL, Judge.judge(graph(3, 2), zero, List.of()).outcome());
        // Within a limit of 1 once the JVM's are set apart.
        assertEquals(Outcome.INCONCLUSIVE, Judge.judge(graph(3, 2), new Thresholds(200, -1, -1, -1, 1, -1),
                List.of()).outcome());
        // No JVM xruns: a plain FAIL.
        assertEquals(Outcome.FAIL, Judge.judge(graph(2, 0), zero, List.of()).outcome());
        // Another check failed too (the latency, not a JVM pause): FAIL.
        assertEquals(Outcome.FAIL, Judge.judge(graph(2, 2), new Thresholds(100, -1, -1, -1, 0, -1), List.of())
                .outcome());
    }

    @Test
    void measuredRunSaysTheJvmStalledAndThatItWasStopped() {
        ProbeResult stopped = new ProbeResult("timer", "", "CLOCK_MONOTONIC", 0, 1_000_000_000, false,
                List.of(thread(50_000, 200_000)), Map.of(), List.of());
        var v = Judge.judge(stopped, new Thresholds(-1, -1, -1, -1, -1, 1000),
                List.of(new JvmStall(0, 5_000_000, "safepoint", "x")));
        assertEquals(Outcome.MEASURED, v.outcome());
        assertEquals("no thresholds given; the run was stopped before its end; the JVM stalled for 5000 us "
                + "(budget 1000 us), so the worst figures may be the JVM's", v.reason());
    }

    @Test
    void measuredRanksBetweenPassAndInconclusive() {
        assertEquals(Outcome.MEASURED, Outcome.worst(List.of(Outcome.PASS, Outcome.MEASURED)));
        assertEquals(Outcome.INCONCLUSIVE, Outcome.worst(List.of(Outcome.MEASURED, Outcome.INCONCLUSIVE)));
        assertEquals(Outcome.PASS, Outcome.worst(List.of(Outcome.PASS)));
    }

    @Test
    void worstSpikeFromTheJvmIsInconclusiveNotFail() {
        Spike jvm = new Spike(0, 500_000_000, 2_000_000, Attribution.JVM, "safepoint G1");
        var v = Judge.judge(result(thread(50_000, 2_000_000, jvm)), new Thresholds(1000, -1, -1, -1, -1, -1),
                List.of());
        assertEquals(Outcome.INCONCLUSIVE, v.outcome());
        assertNotNull(v.reason());
    }

    @Test
    void jvmStallOverBudgetMakesAPassInconclusive() {
        var v = Judge.judge(result(thread(50_000, 200_000)), new Thresholds(1000, -1, -1, -1, -1, 1000),
                List.of(new JvmStall(0, 5_000_000, "safepoint", "x")));
        assertEquals(Outcome.INCONCLUSIVE, v.outcome());
    }

    @Test
    void readsHotSpotSafepointLines() {
        JvmStall s = SafepointLog.parse("[1000000000ns] Safepoint \"Cleanup\", Time since last: 1 ns, "
                + "Reaching safepoint: 2 ns, At safepoint: 3 ns, Total: 5000 ns", 999_000_000);
        assertNotNull(s);
        assertEquals(995_000, s.offsetNs());
        assertEquals(5000, s.durationNs());
        assertEquals("Cleanup", s.detail());
        assertNull(SafepointLog.parse("garbage", 0));
    }

    /** The log is read as a stream: only the safepoints that ended inside the window come back. */
    @Test
    void readsTheSafepointsOfAWindowFromTheLog() throws Exception {
        java.nio.file.Path log = java.nio.file.Files.createTempFile("safepoints", ".log");
        try {
            StringBuilder b = new StringBuilder();
            for (int i = 1; i <= 1000; i++) {
                b.append("[").append(i * 1_000_000L).append("ns] Safepoint \"G1\", Time since last: 1 ns, Reaching"
                        + " safepoint: 2 ns, At safepoint: 3 ns, Total: 1000 ns\n").append("not a safepoint line\n");
            }
            java.nio.file.Files.writeString(log, b);
            List<JvmStall> s = SafepointLog.read(log, 0, 100_000_000L, 109_000_000L);
            assertEquals(10, s.size());
            assertEquals(100_000_000L - 1000, s.get(0).offsetNs());
        } finally {
            java.nio.file.Files.delete(log);
        }
    }

    @Test
    void describesRtThrottling() {
        assertEquals("off (sched_rt_runtime_us = -1)", SystemInfoCollector.rtThrottling("-1", "1000000"));
        assertEquals("on: RT tasks get 950000 of every 1000000 us; a CPU-bound RT task is stopped for 50 ms every"
                + " 1000 ms", SystemInfoCollector.rtThrottling("950000", "1000000"));
    }

    private static ProbeResult broken(ThreadResult t, long limitNs, long latencyNs) {
        return new ProbeResult("timer", "", "CLOCK_MONOTONIC", 0, 400_000_000, false, List.of(t), Map.of(), List.of(),
                new rtbox.api.result.BreakTrace(0, 1, 123, 400_000_000, latencyNs, limitNs, List.of(), List.of()));
    }

    @Test
    void breakWithoutThresholdsIsMeasuredAndSaysSo() {
        var v = Judge.judge(broken(thread(50_000, 2_000_000), 100_000, 2_000_000),
                new Thresholds(-1, -1, -1, -1, -1, -1), List.of());
        assertEquals(Outcome.MEASURED, v.outcome());
        assertEquals("no thresholds given; the run stopped at the first wake-up over 100 us (-b): thread 0 woke "
                + "2000 us late", v.reason());
    }

    @Test
    void breakOverTheMaxLatencyThresholdFails() {
        var v = Judge.judge(broken(thread(50_000, 2_000_000), 100_000, 2_000_000),
                new Thresholds(1000, -1, -1, -1, -1, -1), List.of());
        assertEquals(Outcome.FAIL, v.outcome());
    }

    @Test
    void breakWithinTheThresholdsIsNoPass() {
        var v = Judge.judge(broken(thread(50_000, 150_000), 100_000, 150_000),
                new Thresholds(1000, -1, -1, -1, -1, -1), List.of());
        assertEquals(Outcome.INCONCLUSIVE, v.outcome());
        assertTrue(v.reason().startsWith("the run stopped at the first wake-up over 100 us (-b): thread 0 woke 150 us "
                + "late: the thresholds held"), v.reason());
    }

    private static ThreadResult withSamples(long samples) {
        Histogram h = new Histogram(1000, new long[10], 0, samples, 10_000, 200_000, 50_000, 50_000, 200_000,
                200_000);
        return new ThreadResult(0, 1, 123, "fifo", 99, samples, 0, h, new CorrectedLatency(samples, 50_000, 200_000,
                200_000, 200_000, ""), List.of(), 0);
    }

    @Test
    void aVerdictNeedsSamples() {
        Thresholds max = new Thresholds(1000, -1, -1, -1, -1, -1);
        // duration "1ns" with max_latency_us: no samples, not a PASS.
        var v = Judge.judge(result(withSamples(0)), max, List.of(), 0);
        assertEquals(Outcome.INCONCLUSIVE, v.outcome(), v.reason());
        assertTrue(v.reason().contains("thread 0 took no samples"), v.reason());
        // 1 s at 1 ms implies 1000: 400 is too few, 600 within the tolerance.
        v = Judge.judge(result(withSamples(400)), max, List.of(), 1000);
        assertEquals(Outcome.INCONCLUSIVE, v.outcome(), v.reason());
        assertTrue(v.reason().contains("took 400 samples of the 1000"), v.reason());
        assertEquals(Outcome.PASS, Judge.judge(result(withSamples(600)), max, List.of(), 1000).outcome());
        // A probe whose pace is not known: only "none" counts.
        assertEquals(Outcome.PASS, Judge.judge(result(withSamples(3)), max, List.of(), -1).outcome());
        // A real failure stays a failure.
        assertEquals(Outcome.FAIL, Judge.judge(result(withSamples(10)), new Thresholds(100, -1, -1, -1, -1, -1),
                List.of(), 1000).outcome());
    }
}
