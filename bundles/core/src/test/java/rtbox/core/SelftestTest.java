package rtbox.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import rtbox.api.result.CorrectedLatency;
import rtbox.api.result.Histogram;
import rtbox.api.result.ProbeResult;
import rtbox.api.result.RunReport;
import rtbox.api.result.Spike;
import rtbox.api.result.ThreadResult;

/** The self-test's judgement of a report: what counts as found, attributed, and close enough. */
class SelftestTest {
    private static final long SPIN = 2_000_000, PERIOD = 100_000_000, TWO_S = 2_000_000_000L;

    /** A report of one thread with {@code n} disturber spikes of {@code ns} and {@code other} unexplained ones. */
    private static RunReport report(int n, long ns, int other) {
        List<Spike> spikes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            spikes.add(new Spike(0, (i + 1) * PERIOD, ns, "workload", "disturber was busy for 2000 us"));
        }
        for (int i = 0; i < other; i++) {
            spikes.add(new Spike(0, i * PERIOD + 50_000_000, 900_000, "unexplained", ""));
        }
        Histogram h = new Histogram(1000, new long[10], 0, 100, 3_000, ns, 8_000, 6_000, 2_000_000, 2_000_000);
        ThreadResult t = new ThreadResult(0, 1, 1, "fifo", 80, 100, 0, h, new CorrectedLatency(100, 0, 0, 0, 0, ""),
                spikes, 0);
        ProbeResult p = new ProbeResult("timer", "", "monotonic", 0, TWO_S, true, List.of(t), Map.of(), List.of(),
                null);
        return new RunReport(RunReport.SCHEMA, "r", 0, 0, "test", p, null, List.of(), Map.of(), List.of(), null, null);
    }

    @Test
    void everyInjectedStallFoundAndAttributedPasses() {
        Selftest.Outcome o = Selftest.judge(report(20, 2_080_000, 3), 1, SPIN, PERIOD, TWO_S);
        assertTrue(o.pass(), o.reason());
        assertEquals(20, o.expected());
        assertEquals(20, o.found());
        assertEquals(2080, o.medianUs());
        assertEquals(80, o.errorUs());
        assertEquals(3, o.noiseSpikes());
        assertEquals(900, o.noiseMaxUs());
        assertEquals(6, o.wakeupP50Us());
        assertEquals("workload: disturber", o.cause());
        assertTrue(o.lines().get(0).startsWith("seen: 20 spikes attributed to the disturber (expected about 20)"));
    }

    @Test
    void tooFewFoundFails() {
        Selftest.Outcome o = Selftest.judge(report(17, 2_000_000, 0), 1, SPIN, PERIOD, TWO_S);
        assertFalse(o.pass());
        assertEquals("saw 17 disturber spikes, expected 20 +/- 2", o.reason());
    }

    @Test
    void stallsSeenButNotAttributedFail() {
        // The same 20 stalls, none attributed to the disturber: the chain measures but cannot say why.
        Selftest.Outcome o = Selftest.judge(report(0, 2_000_000, 20), 1, SPIN, PERIOD, TWO_S);
        assertFalse(o.pass());
        assertEquals(0, o.found());
        assertEquals(20, o.noiseSpikes());
        assertEquals(0, o.errorUs());
    }

    @Test
    void aMedianOffByMoreThanTenPercentFails() {
        Selftest.Outcome o = Selftest.judge(report(20, 1_500_000, 0), 1, SPIN, PERIOD, TWO_S);
        assertFalse(o.pass());
        assertEquals(-500, o.errorUs());
        assertTrue(o.reason().contains("median 1500 us is not within 10% of the injected 2000 us"), o.reason());
    }
}
