package rtbox.core;

import rtbox.api.RunParameters;

/** A probe run to do: which probe, its parameters, the thresholds for the verdict. */
public record RunRequest(String probe, RunParameters parameters, Thresholds thresholds, String command) {
}
