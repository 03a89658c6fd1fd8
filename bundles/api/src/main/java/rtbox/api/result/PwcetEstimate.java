package rtbox.api.result;

import java.util.List;

/**
 * One pWCET estimate (a thread's, {@code scope} "cpuN", or the cell's, "cell"): the block
 * maxima it was made from (time order, ns, and the attributed cause of each: a spike's cause
 * label, or "ordinary" for a maximum under the spike threshold), the checks that make extreme
 * value theory applicable, each with its result, and, when all held ({@code applicable}), the
 * fits and the latencies exceeded with the given probabilities. When a check failed, {@code
 * refusal} says which and why, and there are no levels: the estimate is never given as if it
 * held. {@code model}: "gumbel" or "gev", the fit the levels come from; {@code tail}:
 * "bounded" (the shape's confidence interval below 0: {@code upperEndNs} is the fitted end
 * point), "heavy" (above 0) or "exponential" (0 inside it). {@code curve}: the fitted
 * exceedance probability per block at a grid of latencies with its confidence band, for the
 * report's plot.
 *
 * @since 1.6
 */
public record PwcetEstimate(
        String scope,
        int blocks,
        long[] maximaNs,
        List<String> maximaCauses,
        List<PwcetCheck> checks,
        boolean applicable,
        String refusal,
        PwcetFit gumbel,
        PwcetFit gev,
        String model,
        String tail,
        double upperEndNs,
        List<PwcetLevel> levels,
        List<PwcetLevel> curve) {

    /** The scope of the cell's estimate. */
    public static final String CELL = "cell";

    /** The level exceeded with {@code probability} {@code per} ("sample", "hour"), or null. */
    public PwcetLevel level(double probability, String per) {
        for (PwcetLevel l : levels) {
            if (l.per().equals(per) && Math.abs(l.probability() - probability) <= probability * 1e-9) {
                return l;
            }
        }
        return null;
    }
}
