package rtbox.pwcet;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import rtbox.api.result.BlockMaxima;
import rtbox.api.result.Pwcet;
import rtbox.api.result.PwcetEstimate;
import rtbox.api.result.Spike;
import rtbox.api.result.ThreadResult;
import rtbox.pwcet.internal.Estimation;

/**
 * The pWCET of a run from its threads' block maxima ({@link ThreadResult#blockMaxima()}) and
 * their attributed spikes: one estimate per thread ("cpuN") and, with more than one thread, the
 * cell's ("cell", the threads' maxima pooled in time order). Each maximum's cause is the cause
 * of the spike it was, or "ordinary" when it was under the spike threshold. Estimates whose
 * checks fail are refused with the reason (bundles/pwcet/README.md).
 */
public final class PwcetEstimator {
    /** A maximum that was no spike. */
    public static final String ORDINARY = "ordinary";

    private PwcetEstimator() {
    }

    /**
     * @param intervalNs the run's interval ("per hour" is counted from it); 0 when it has none
     * @param alsoPerHour per-hour probabilities to state levels at besides 1e-6, 1e-9 and 1e-12
     * @return null when no thread carries block maxima (a probe that keeps none)
     */
    public static Pwcet estimate(List<ThreadResult> threads, long intervalNs, double... alsoPerHour) {
        List<PwcetEstimate> estimates = new ArrayList<>();
        List<long[]> pooled = new ArrayList<>(); // {offset, max, thread index, block index}
        List<List<String>> causesOf = new ArrayList<>();
        long blockSamples = -1;
        for (ThreadResult t : threads) {
            BlockMaxima b = t.blockMaxima();
            if (b == null) {
                continue;
            }
            if (blockSamples >= 0 && b.blockSamples() != blockSamples) {
                blockSamples = -2; // threads with different block sizes are not pooled
            } else if (blockSamples != -2) {
                blockSamples = b.blockSamples();
            }
            List<String> causes = causes(b, t.spikes(), t.spikesDropped());
            estimates.add(Estimation.estimate("cpu" + t.cpu(), b.maxNs(), causes, b.blockSamples(), intervalNs,
                    alsoPerHour));
            for (int i = 0; i < b.maxNs().length; i++) {
                pooled.add(new long[] {b.offsetNs()[i], b.maxNs()[i], causesOf.size(), i});
            }
            causesOf.add(causes);
        }
        if (estimates.isEmpty()) {
            return null;
        }
        long size = threads.stream().filter(t -> t.blockMaxima() != null).findFirst().get().blockMaxima()
                .blockSamples();
        if (estimates.size() > 1 && blockSamples > 0) {
            pooled.sort((a, b) -> Long.compare(a[0], b[0]));
            long[] max = new long[pooled.size()];
            List<String> causes = new ArrayList<>();
            for (int i = 0; i < max.length; i++) {
                long[] p = pooled.get(i);
                max[i] = p[1];
                causes.add(causesOf.get((int) p[2]).get((int) p[3]));
            }
            estimates.add(Estimation.estimate(PwcetEstimate.CELL, max, causes, blockSamples, intervalNs, alsoPerHour));
        }
        return new Pwcet(size, intervalNs, estimates);
    }

    /**
     * Each maximum's cause: the cause of the spike taken at the same time with the same latency, or
     * "ordinary"; "unknown" after the last spike kept when the thread dropped spikes (its list was
     * full).
     */
    static List<String> causes(BlockMaxima b, List<Spike> spikes, long dropped) {
        long[] offsets = new long[spikes.size()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = spikes.get(i).offsetNs();
        }
        long lastKept = offsets.length == 0 ? Long.MIN_VALUE : offsets[offsets.length - 1];
        List<String> out = new ArrayList<>();
        for (int i = 0; i < b.maxNs().length; i++) {
            int at = Arrays.binarySearch(offsets, b.offsetNs()[i]);
            if (at >= 0 && spikes.get(at).latencyNs() == b.maxNs()[i]) {
                String c = spikes.get(at).cause();
                out.add(c == null || c.isEmpty() ? "unattributed" : c);
            } else if (dropped > 0 && b.offsetNs()[i] > lastKept) {
                out.add("unknown");
            } else {
                out.add(ORDINARY);
            }
        }
        return out;
    }
}
