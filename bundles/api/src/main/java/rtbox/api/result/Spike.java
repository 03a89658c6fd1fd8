package rtbox.api.result;

import java.util.List;

/**
 * One measurement over the spike threshold. {@code offsetNs} is from the start of
 * measuring; {@code cause} is a short label (RT throttling, JVM pause, workload,
 * preempted, interrupt, machine-wide stall, unexplained) and {@code detail} the evidence
 * for it. {@code culprits} (since 1.1) are what the kernel's trace saw holding the
 * probe's CPU between the deadline and the wake-up, largest first; empty when there was
 * no trace or nothing else ran.
 */
public record Spike(int thread, long offsetNs, long latencyNs, String cause, String detail, List<Culprit> culprits) {
    public Spike {
        // A report written before 1.1 has no culprits: read it as none.
        culprits = culprits == null ? List.of() : List.copyOf(culprits);
    }

    /** A spike without culprits (as before 1.1). */
    public Spike(int thread, long offsetNs, long latencyNs, String cause, String detail) {
        this(thread, offsetNs, latencyNs, cause, detail, List.of());
    }

    /** The cause, typed ({@link SpikeCause#of}); null when not attributed or not known to this version. @since 1.5 */
    public SpikeCause kind() {
        return SpikeCause.of(cause);
    }

    /** This spike with a typed cause and its evidence. @since 1.5 */
    public Spike withCause(SpikeCause newCause, String newDetail) {
        return withCause(newCause.label(), newDetail);
    }

    public Spike withCause(String newCause, String newDetail) {
        return new Spike(thread, offsetNs, latencyNs, newCause, newDetail, culprits);
    }

    /** @since 1.1 */
    public Spike withCulprits(List<Culprit> newCulprits) {
        return new Spike(thread, offsetNs, latencyNs, cause, detail, newCulprits);
    }

    /**
     * The culprits as one line, largest first ({@code disturber (pid 4242, SCHED_FIFO 99)
     * 5003 us; IRQ 14 ata_piix 61 ms}), or "" when there are none.
     *
     * @since 1.1
     */
    public String culpritText() {
        StringBuilder b = new StringBuilder();
        for (Culprit c : culprits) {
            b.append(b.length() == 0 ? "" : "; ").append(c);
        }
        return b.toString();
    }
}
