package rtbox.plan.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import rtbox.api.result.CorrectedLatency;
import rtbox.api.result.Histogram;
import rtbox.api.result.ProbeResult;
import rtbox.api.result.RunEvent;
import rtbox.api.result.RunReport;
import rtbox.api.result.Spike;
import rtbox.api.result.SystemInfo;
import rtbox.api.result.ThreadResult;
import rtbox.api.result.Verdict;
import rtbox.api.result.Verdict.Outcome;

class PolicyEventsTest {
    private static final long S = 1_000_000_000L;
    /** The run's clock: measuring began at this System.nanoTime(). */
    private static final long START = 50 * S;

    private static RunReport report() {
        Histogram h = new Histogram(1000, new long[] {10}, 0, 10, 1000, 9000, 2000, 2000, 9000, 9000);
        List<Spike> spikes = List.of(new Spike(0, 1_200_000_000L, 900_000, "preempted", "by cc1"),
                new Spike(0, 1_300_000_000L, 800_000, "JVM pause", "GC"),
                new Spike(0, 2_500_000_000L, 700_000, "unexplained", ""));
        ThreadResult t = new ThreadResult(0, 1, 99, "rr", 1, 300, 2, h, new CorrectedLatency(10, 1, 1, 1, 1, ""),
                spikes, 0);
        ProbeResult pr = new ProbeResult("graph", "", "CLOCK_MONOTONIC", START, 3 * S, true, List.of(t),
                Map.of("xruns", 2.0), List.of());
        List<RunEvent> events = List.of(new RunEvent(1_500_000_000L, "xrun", "cycle finished 400.0 us after its "
                + "period ended"), new RunEvent(2_600_000_000L, "xrun", "cycle finished 10.0 us after its period ended"));
        return new RunReport(RunReport.SCHEMA, "r", 0, 1, "c", pr, h, List.of(), Map.of(), events,
                new SystemInfo(Map.of()), new Verdict(Outcome.MEASURED, List.of(), "no thresholds"));
    }

    @Test
    void demotionsJoinTheTimelineAndWhatFellInsideIsLabelled() {
        List<PolicyEvents.Timed> policy = List.of(new PolicyEvents.Timed(START - S, "policy", "sched: {...}"),
                new PolicyEvents.Timed(START + 2 * S, "iso.promote", "back"),
                new PolicyEvents.Timed(START + S, "iso.demote", "over"));
        RunReport r = PolicyEvents.merge(report(), policy, Map.of("iso.demotions", "1", "iso.promotions", "1",
                "iso.demoted_ms", "1000", "iso.mean_share_pct", "66.5", "iso.peak_share_pct", "70.2", "iso.threads",
                "15 on 1 CPU(s)"));
        List<RunEvent> e = r.events();
        assertEquals(List.of("iso.demote", "xrun", "iso.promote", "xrun"), e.stream().map(RunEvent::kind).toList(),
                "in time order; the policy's own apply event (before the start) is not a timeline event");
        assertEquals(S, e.get(0).offsetNs());
        assertTrue(e.get(1).detail().endsWith("(inside an ISO demotion from 1.000 s)"), e.get(1).detail());
        assertEquals("cycle finished 10.0 us after its period ended", e.get(3).detail(), "after the promotion");
        List<Spike> spikes = r.result().threads().get(0).spikes();
        assertEquals(PolicyEvents.DEMOTED, spikes.get(0).cause());
        assertEquals("inside an ISO demotion from 1.000 s; also seen: preempted (by cc1)", spikes.get(0).detail());
        assertEquals("JVM pause", spikes.get(1).cause(), "a JVM pause stays one");
        assertEquals("unexplained", spikes.get(2).cause());
        Map<String, Double> f = r.result().figures();
        assertEquals(1.0, f.get("iso_demotions"));
        assertEquals(1.0, f.get("iso_promotions"));
        assertEquals(1000.0, f.get("iso_demoted_ms"));
        assertEquals(66.5, f.get("iso_mean_share_pct"));
        assertEquals(70.2, f.get("iso_peak_share_pct"));
        assertEquals(1.0, f.get("xruns_demoted"));
        assertEquals(Outcome.MEASURED, r.verdict().outcome());
    }

    @Test
    void aDemotionWithoutPromotionLastsToTheEnd() {
        RunReport r = PolicyEvents.merge(report(), List.of(new PolicyEvents.Timed(START + 2 * S, "iso.demote", "")),
                Map.of());
        assertTrue(r.events().get(2).detail().endsWith("(inside an ISO demotion from 2.000 s)"));
        assertEquals(PolicyEvents.DEMOTED, r.result().threads().get(0).spikes().get(2).cause());
    }

    @Test
    void withoutIsoTheReportIsLeftAsItIs() {
        RunReport before = report();
        assertSame(before, PolicyEvents.merge(before, List.of(new PolicyEvents.Timed(START, "policy", "x")), Map.of(
                "thread.policy", "fifo -> fifo/80")));
    }
}
