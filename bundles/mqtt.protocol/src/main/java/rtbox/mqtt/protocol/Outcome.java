package rtbox.mqtt.protocol;

/**
 * A verdict on the wire. ABORTED exists only here: the appliance restarted during the run,
 * which no local run can report about itself.
 */
public enum Outcome {
    PASS, FAIL, INCONCLUSIVE, ERROR, ABORTED
}
