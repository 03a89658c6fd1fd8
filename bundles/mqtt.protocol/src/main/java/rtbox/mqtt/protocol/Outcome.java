package rtbox.mqtt.protocol;

/**
 * A verdict on the wire. ABORTED exists only here: the appliance restarted during the run,
 * which no local run can report about itself, or the run was stopped before its first sample. MEASURED: no latency threshold was given, so
 * the run (or cell, or plan) has figures and no verdict (rtbox.api.result.Verdict.Outcome).
 */
public enum Outcome {
    PASS, FAIL, INCONCLUSIVE, ERROR, ABORTED,
    /** @since 1.1 */
    MEASURED
}
