package rtbox.ctl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.google.gson.JsonObject;

import rtbox.api.result.Verdict;
import rtbox.mqtt.protocol.Codec;
import rtbox.mqtt.protocol.Message;
import rtbox.mqtt.protocol.Outcome;
import rtbox.mqtt.protocol.PlanOutcome;
import rtbox.mqtt.protocol.Reply;
import rtbox.mqtt.protocol.Result;
import rtbox.mqtt.protocol.Topics;

/**
 * {@code ctl run}, {@code ctl plan} and {@code ctl results} exit with rtbox's one mapping
 * (Verdict.Outcome.exitCode): a verdict that arrives over MQTT, decoded by the Codec,
 * gives the same code as the same verdict of a local run; INCONCLUSIVE is 3 (ctl run
 * used to say 2).
 */
class CtlExitCodeTest {
    static final Instant T = Instant.parse("2026-12-03T09:00:00Z");

    /** The exit code ctl plan gives for a plan result with {@code verdict}, as the wire carries it. */
    private static int planExit(Outcome verdict) throws Exception {
        CtlPlans.Follow f = new CtlPlans.Follow("a1");
        f.requestId = "q1";
        PrintWriter none = new PrintWriter(new StringWriter());
        JsonObject body = new JsonObject();
        body.addProperty("run", "r1");
        for (Message m : List.<Message>of(new Reply("a1", T, "q1", "plan", 200, "started", body),
                new Result("a1", T, "r1", 3, null, verdict, "why", true, T, T, null, null,
                        new PlanOutcome("p", "complete", 1, 1, List.of(), null)))) {
            Message decoded = Codec.decode(Topics.of(m), Codec.encode(m));
            CtlPlans.handle(f, decoded, Codec.encode(m), none, none, null);
        }
        return CtlPlans.exitCode(List.of(f.code));
    }

    @Test
    void ctlPlanAndResultsExitAsALocalRun() throws Exception {
        assertEquals(0, planExit(Outcome.PASS));
        assertEquals(1, planExit(Outcome.FAIL));
        assertEquals(2, planExit(Outcome.ERROR));
        assertEquals(3, planExit(Outcome.INCONCLUSIVE));
        assertEquals(2, planExit(Outcome.ABORTED));
    }

    @Test
    void ctlRunMapsEachVerdictThroughTheSameOutcome() {
        for (Verdict.Outcome local : Verdict.Outcome.values()) {
            assertEquals(local.exitCode(), CtlPlans.exitCode(List.of(CtlPlans.outcome(Outcome.valueOf(local.name())))));
        }
        assertEquals(3, CtlPlans.exitCode(List.of(CtlPlans.outcome(Outcome.INCONCLUSIVE))));
        assertEquals(2, CtlPlans.exitCode(Arrays.asList(Verdict.Outcome.PASS, null)), "an appliance without a result");
        assertEquals(1, CtlPlans.exitCode(List.of(Verdict.Outcome.ERROR, Verdict.Outcome.FAIL)));
    }
}
