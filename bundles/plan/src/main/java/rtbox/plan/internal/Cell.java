package rtbox.plan.internal;

import java.util.List;
import java.util.Map;

import rtbox.core.PolicySpec;
import rtbox.api.RunParameters;
import rtbox.core.LoadSpec;
import rtbox.core.Thresholds;

/**
 * One expanded cell of a plan, ready to run. {@code source} is the path it came from ("$", "$.cells[1]");
 * {@code pwcet}: estimate its probabilistic worst case ({@code "pwcet": true}).
 */
record Cell(int index, String name, String source, Map<String, String> axes, String probe, RunParameters parameters,
        PolicySpec policy, Map<String, String> tuning, List<LoadSpec> loads, Thresholds thresholds, boolean pwcet) {

    /** The same cell at another place in the run (its next repetition). */
    Cell at(int newIndex) {
        return new Cell(newIndex, name, source, axes, probe, parameters, policy, tuning, loads, thresholds, pwcet);
    }

    /** Whether the scheduling tuner must take part. */
    boolean needsTuner() {
        return policy.needsTuner() || !tuning.isEmpty();
    }
}
