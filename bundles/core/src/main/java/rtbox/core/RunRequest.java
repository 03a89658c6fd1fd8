package rtbox.core;

import java.util.List;

import rtbox.api.RunParameters;

/**
 * A probe run to do: which probe, its parameters, the thresholds for the verdict,
 * and the workloads that load the machine while it measures.
 */
public record RunRequest(String probe, RunParameters parameters, Thresholds thresholds, String command,
        List<LoadSpec> loads) {
    public RunRequest {
        loads = loads == null ? List.of() : List.copyOf(loads);
    }

    /** A run without workloads. */
    public RunRequest(String probe, RunParameters parameters, Thresholds thresholds, String command) {
        this(probe, parameters, thresholds, command, List.of());
    }
}
