package rtbox.api.result;

import java.util.List;

/**
 * A probabilistic worst case (pWCET) by extreme value theory, from the run's own block
 * maxima: one estimate per measuring thread and, with more than one thread, one for the
 * cell (its threads' maxima pooled). {@code intervalNs}: the run's interval, from which
 * "per hour of operation" is counted. Only in a run asked for it ({@code --pwcet}, a plan's
 * {@code "pwcet": true} or {@code pwcet_us}).
 *
 * @since 1.6
 */
public record Pwcet(long blockSamples, long intervalNs, List<PwcetEstimate> estimates) {

    /** The cell's estimate: the pooled one, or the only thread's. */
    public PwcetEstimate cell() {
        for (PwcetEstimate e : estimates) {
            if (e.scope().equals(PwcetEstimate.CELL)) {
                return e;
            }
        }
        return estimates.isEmpty() ? null : estimates.get(0);
    }
}
