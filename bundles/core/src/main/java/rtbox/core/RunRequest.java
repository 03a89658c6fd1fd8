package rtbox.core;

import java.util.List;

import rtbox.api.RunParameters;

/**
 * A probe run to do: which probe, its parameters, the thresholds for the verdict,
 * and the workloads that load the machine while it measures. {@code pwcet} (since 2.3): estimate
 * the probabilistic worst case from the run's block maxima (rtbox.pwcet); a {@code pwcet_us}
 * threshold asks for it too ({@link #wantsPwcet()}).
 */
public record RunRequest(String probe, RunParameters parameters, Thresholds thresholds, String command,
        List<LoadSpec> loads, boolean pwcet) {
    public RunRequest {
        loads = loads == null ? List.of() : List.copyOf(loads);
    }

    /** A run without a pWCET estimate asked for (as before 2.3). */
    public RunRequest(String probe, RunParameters parameters, Thresholds thresholds, String command,
            List<LoadSpec> loads) {
        this(probe, parameters, thresholds, command, loads, false);
    }

    /** Whether the run is to estimate its pWCET: asked, or a pwcet_us threshold to judge. @since 2.3 */
    public boolean wantsPwcet() {
        return pwcet || thresholds != null && thresholds.pwcetUs() >= 0;
    }

    /** A run without workloads. */
    public RunRequest(String probe, RunParameters parameters, Thresholds thresholds, String command) {
        this(probe, parameters, thresholds, command, List.of());
    }
}
