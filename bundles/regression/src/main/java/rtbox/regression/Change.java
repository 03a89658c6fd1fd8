package rtbox.regression;

/**
 * One figure of one cell, set B against set A.
 *
 * @param cell the plan's cell name (a single run's probe name)
 * @param figure what was compared
 * @param runsA runs of set A that have this figure
 * @param runsB the same for set B
 * @param meanA mean of the figure over A's runs
 * @param meanB the same over B's runs
 * @param difference {@code meanB - meanA}
 * @param low lower bound of the confidence interval of the difference (NaN with too few runs)
 * @param high upper bound of it
 * @param effectSize Cohen's d: the difference in pooled standard deviations of the runs; NaN
 *        when the runs do not spread at all (every run the same figure)
 * @param relative {@code difference / meanA}; NaN when meanA is 0
 * @param pValue two-sided p of Student's t-test of the two sets (pooled variance) (NaN with too few runs; 0 or 1
 *        when no run differs from another in its set: the means differ or not)
 * @param verdict REGRESSED, IMPROVED, NO CHANGE or TOO FEW RUNS
 * @param runsNeeded runs per set with which a difference as large as this one would likely
 *        (80 %) be told from noise at the comparison's confidence; 0 where it cannot be said
 *        (no difference at all)
 */
public record Change(String cell, Figure figure, int runsA, int runsB, double meanA, double meanB,
        double difference, double low, double high, double effectSize, double relative, double pValue, Verdict verdict,
        int runsNeeded) {
}
