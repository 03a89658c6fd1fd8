package rtbox.api.result;

import java.util.List;

/**
 * The outcome of a run against its thresholds. INCONCLUSIVE means the worst
 * figures were caused by the JVM, not the machine under test, so they prove
 * nothing either way; ERROR means the run could not measure.
 */
public record Verdict(Outcome outcome, List<Check> checks, String reason) {
    public enum Outcome { PASS, FAIL, INCONCLUSIVE, ERROR }

    /** Process exit code: 0 pass, 1 fail, 2 error; inconclusive is 3. */
    public int exitCode() {
        switch (outcome) {
            case PASS: return 0;
            case FAIL: return 1;
            case INCONCLUSIVE: return 3;
            default: return 2;
        }
    }
}
