package rtbox.api.result;

/**
 * What caused a spike, typed: the rule that decides a verdict (a failure whose worst sample
 * was the JVM's own pause is INCONCLUSIVE) asks {@link Spike#kind()}, never compares the
 * label. {@link #label()} is the text reports, MQTT results and the control room carry in
 * {@link Spike#cause()} (unchanged since 1.0, so older readers and stored results still read).
 *
 * @since 1.5
 */
public enum SpikeCause {
    RT_THROTTLING("RT throttling"),
    JVM_PAUSE("JVM pause"),
    WORKLOAD("workload"),
    /** A task ran that could not have preempted the probe: the wake-up itself came late. */
    LATE_WAKEUP("late wake-up"),
    PREEMPTED("preempted"),
    INTERRUPT("interrupt"),
    MACHINE_WIDE("machine-wide stall"),
    /** Inside an emulated SCHED_ISO demotion (the scheduling tuner's). */
    ISO_DEMOTION("ISO demoted"),
    UNEXPLAINED("unexplained");

    private final String label;

    SpikeCause(String label) {
        this.label = label;
    }

    /** The text in {@link Spike#cause()}: "JVM pause", "RT throttling", ... */
    public String label() {
        return label;
    }

    /** The cause with this label, or null for none ("", a spike not yet attributed) or one this version does not know. */
    public static SpikeCause of(String label) {
        for (SpikeCause c : values()) {
            if (c.label.equals(label)) {
                return c;
            }
        }
        return null;
    }
}
