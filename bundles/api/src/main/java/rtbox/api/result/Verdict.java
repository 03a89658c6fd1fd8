package rtbox.api.result;

import java.util.List;

/**
 * The outcome of a run against its thresholds. INCONCLUSIVE means the worst
 * figures were caused by the JVM, not the machine under test, so they prove
 * nothing either way; ERROR means the run could not measure; MEASURED means no
 * latency threshold was given, so there was nothing to pass: the figures are all
 * there is (a PASS nobody asked for would read as "meets real-time").
 */
public record Verdict(Outcome outcome, List<Check> checks, String reason) {
    /**
     * What a run, a plan or a command came to. Each outcome's process exit code is the
     * one mapping every rtbox command uses ({@code run}, {@code plan run}, {@code job},
     * {@code ctl run}, {@code ctl plan}, {@code ctl results}): 0 pass, 1 fail, 2 error,
     * 3 inconclusive, 0 measured (no latency threshold given: the run did what was asked).
     * An outcome added later gets its code here and nowhere else.
     */
    public enum Outcome {
        PASS(0), FAIL(1), INCONCLUSIVE(3), ERROR(2),
        /** No latency threshold was given: figures, no verdict. Exit 0. @since 1.2 */
        MEASURED(0);

        private final int exitCode;

        Outcome(int exitCode) {
            this.exitCode = exitCode;
        }

        /** The process exit code of a command that came to this outcome. @since 1.1 */
        public int exitCode() {
            return exitCode;
        }

        /**
         * The outcome that decides for several (appliances, cells): FAIL first (the
         * machine failed a threshold: the news that matters most), then ERROR, then
         * INCONCLUSIVE, then MEASURED (something was not judged, so the whole is not a
         * PASS), else PASS; PASS for none. @since 1.1
         */
        public static Outcome worst(Iterable<Outcome> outcomes) {
            Outcome w = PASS;
            for (Outcome o : outcomes) {
                if (o.rank() > w.rank()) {
                    w = o;
                }
            }
            return w;
        }

        private int rank() {
            switch (this) {
                case FAIL: return 3;
                case ERROR: return 2;
                case INCONCLUSIVE: return 1;
                case MEASURED: return 0;
                default: return -1;
            }
        }
    }

    /** The process exit code of this verdict ({@link Outcome#exitCode()}). */
    public int exitCode() {
        return outcome.exitCode();
    }
}
