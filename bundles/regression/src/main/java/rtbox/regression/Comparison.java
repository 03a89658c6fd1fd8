package rtbox.regression;

import java.util.List;

/**
 * The comparison of two sets of runs of one plan.
 *
 * @param plan the plan's name (null for single runs)
 * @param runsA the files of set A, as named
 * @param runsB the files of set B
 * @param confidence the confidence level of every interval (e.g. 0.99)
 * @param resamples bootstrap resamples per figure
 * @param changes per cell (in A's cell order) and figure
 * @param notes what was left out and why (a cell in one set only)
 * @param verdict the whole: REGRESSED when any figure regressed, else TOO FEW RUNS when any
 *        could not be told, else IMPROVED when any improved, else NO CHANGE
 */
public record Comparison(String plan, List<String> runsA, List<String> runsB, double confidence, int resamples,
        List<Change> changes, List<String> notes, Verdict verdict) {
}
