package rtbox.regression;

/** What a comparison says of one figure, or of the whole. */
public enum Verdict {
    /** B is higher (worse) than A: the interval of B - A excludes 0 and the t-test agrees. */
    REGRESSED("REGRESSED", 1),
    /** B is lower (better) than A: the interval of B - A excludes 0 and the t-test agrees. */
    IMPROVED("IMPROVED", 0),
    /** No change beyond the runs' own spread: the interval of B - A includes 0, or the test does not tell. */
    NO_CHANGE("NO CHANGE", 0),
    /** A set has fewer runs than {@link Regression#MIN_RUNS}: the spread cannot be told. */
    TOO_FEW_RUNS("TOO FEW RUNS", 3);

    private final String label;
    private final int exitCode;

    Verdict(String label, int exitCode) {
        this.label = label;
        this.exitCode = exitCode;
    }

    /** {@code NO CHANGE}, {@code TOO FEW RUNS}: as printed. */
    public String label() {
        return label;
    }

    /**
     * {@code rtbox compare}'s exit code: 1 REGRESSED, 3 too few runs (as INCONCLUSIVE elsewhere),
     * 0 otherwise; 2 (bad input) is not a verdict.
     */
    public int exitCode() {
        return exitCode;
    }
}
