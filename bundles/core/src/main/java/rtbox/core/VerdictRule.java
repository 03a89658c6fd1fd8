package rtbox.core;

import java.util.List;

import rtbox.api.result.JvmStall;
import rtbox.api.result.ProbeResult;
import rtbox.api.result.Verdict;

/**
 * The one verdict rule, as every front end gets it: the runner decides it when a run ends
 * (rtbox run, a plan's cell, the MQTT run verb) and the MQTT results and the control room
 * carry that verdict; none decides again. PASS only with a latency threshold met; MEASURED
 * without one; FAIL when a check failed; INCONCLUSIVE when the failure's worst sample was the
 * JVM's own pause ({@link rtbox.api.result.SpikeCause#JVM_PAUSE}, typed), when the xruns over
 * the limit are those a JVM pause overlapped, when the JVM stalled longer than its budget in a
 * run that otherwise passed, when a thread took too few samples, or when a run with thresholds
 * was cut short. A pass whose worst sample was a JVM pause stays a PASS: the pause was inside
 * the measurement, so the machine's own worst was no larger. Exit codes: {@link
 * Verdict.Outcome#exitCode()}.
 */
public final class VerdictRule {
    private VerdictRule() {
    }

    /**
     * The verdict of {@code result} against {@code thresholds}, given the JVM's pauses during the
     * run; {@code expectedSamples} is what each thread should take by its duration and interval
     * (-1 when the probe's parameters do not say).
     */
    public static Verdict judge(ProbeResult result, Thresholds thresholds, List<JvmStall> jvmStalls,
            long expectedSamples) {
        return rtbox.core.internal.Judge.judge(result, thresholds, jvmStalls, expectedSamples);
    }

    /**
     * The verdict with the run's pWCET estimate, which a {@code pwcet_us} threshold is judged by
     * (null: no estimate was made). @since 2.3
     */
    public static Verdict judge(ProbeResult result, Thresholds thresholds, List<JvmStall> jvmStalls,
            long expectedSamples, rtbox.api.result.Pwcet pwcet) {
        return rtbox.core.internal.Judge.judge(result, thresholds, jvmStalls, expectedSamples, pwcet);
    }
}
