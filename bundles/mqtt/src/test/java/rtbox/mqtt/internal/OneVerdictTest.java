package rtbox.mqtt.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import rtbox.api.result.ProbeResult;
import rtbox.api.result.RunReport;
import rtbox.api.result.Spike;
import rtbox.api.result.SpikeCause;
import rtbox.api.result.ThreadResult;
import rtbox.api.result.Verdict;
import rtbox.core.Thresholds;
import rtbox.core.VerdictRule;
import rtbox.mqtt.protocol.Cell;
import rtbox.mqtt.protocol.Codec;
import rtbox.mqtt.protocol.Result;
import rtbox.plan.CellResult;

/**
 * One measurement, one verdict, through every front end: the run's (rtbox run: the runner's
 * VerdictRule), a plan cell's (the cell carries its run's verdict, as PlanService makes it), the
 * MQTT result of a single run and of a plan cell, each encoded and decoded as the control room's
 * ingest decodes it (Codec; the control room stores the decoded verdict as it is). The three
 * cases are the ones the two rules once decided differently: a pass whose worst sample was a JVM
 * pause (PASS: the old plan rule said INCONCLUSIVE), a failure whose worst was a JVM pause
 * (INCONCLUSIVE), a failure whose worst was the machine's (FAIL).
 */
class OneVerdictTest {
    private static RunReport fixture() throws IOException {
        try (InputStream in = OneVerdictTest.class.getResourceAsStream("graph-report.json")) {
            return Payloads.GSON.fromJson(new String(in.readAllBytes(), StandardCharsets.UTF_8), RunReport.class);
        }
    }

    /** The fixture with its worst sample caused by {@code cause}, judged against max_us {@code maxUs}. */
    private static RunReport measured(SpikeCause cause, long maxUs) throws IOException {
        RunReport r = fixture();
        ProbeResult p = r.result();
        long worst = p.threads().stream().mapToLong(t -> t.latency().maxNs()).max().orElseThrow();
        List<ThreadResult> threads = new ArrayList<>();
        for (ThreadResult t : p.threads()) {
            threads.add(t.withSpikes(t.latency().maxNs() == worst
                    ? List.of(new Spike(t.thread(), 1_000_000, worst, cause.label(), "the test's")) : List.of()));
        }
        ProbeResult q = new ProbeResult(p.probe(), p.parameters(), p.clock(), p.startNanos(), p.durationNs(), true,
                threads, Map.of(), p.notes(), null);
        Verdict v = VerdictRule.judge(q, new Thresholds(maxUs, -1, -1, -1, -1, -1), List.of(), -1);
        return new RunReport(r.schema(), r.runId(), r.startedEpochMs(), r.endedEpochMs(), r.command(), q,
                r.jvmHiccups(), List.of(), r.workloads(), r.events(), r.system(), v);
    }

    private static void sameEverywhere(RunReport r, Verdict.Outcome expected) throws Exception {
        assertEquals(expected, r.verdict().outcome(), "the run: " + r.verdict().reason());
        Result single = (Result) Codec.decode(Payloads.result("a1", "r1", 2, r));
        assertEquals(expected.name(), single.verdict().name(), "the MQTT result");
        CellResult cell = new CellResult(0, "c", Map.of(), r.result().probe(), "fifo:80", List.of(), Map.of(),
                r.startedEpochMs(), r.endedEpochMs(), r, r.verdict(), null);
        Cell c = (Cell) Codec.decode(PlanMessages.cell("a1", "p1", "plan", cell, 1));
        assertEquals(expected.name(), c.verdict().name(), "the plan cell's MQTT message");
    }

    @Test
    void oneMeasurementOneVerdictThroughEveryFrontEnd() throws Exception {
        long worstUs = fixture().result().threads().stream().mapToLong(t -> t.latency().maxNs()).max().orElseThrow()
                / 1000;
        sameEverywhere(measured(SpikeCause.JVM_PAUSE, worstUs + 100), Verdict.Outcome.PASS);
        sameEverywhere(measured(SpikeCause.JVM_PAUSE, worstUs / 2), Verdict.Outcome.INCONCLUSIVE);
        sameEverywhere(measured(SpikeCause.PREEMPTED, worstUs / 2), Verdict.Outcome.FAIL);
    }
}
