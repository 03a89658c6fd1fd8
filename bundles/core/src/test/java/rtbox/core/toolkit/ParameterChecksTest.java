package rtbox.core.toolkit;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import rtbox.api.RtboxException;
import rtbox.api.RunParameters;

/** What a run may ask for: each CPU once, histograms within the heap's budget, a week at most. */
class ParameterChecksTest {
    private static String refused(RunParameters.Builder b) {
        return assertThrows(RtboxException.class, () -> ParameterChecks.common(b.build())).getMessage();
    }

    @Test
    void duplicateCpusHugeHistogramsAndCenturiesAreRefusedNamingThem() throws Exception {
        String m = refused(RunParameters.builder().durationNs(1_000_000_000L).cpus(new int[] {0, 0}));
        assertTrue(m.contains("CPU 0 is given twice"), m);
        m = refused(RunParameters.builder().durationNs(1_000_000_000L).cpus(new int[] {0})
                .histogramLimitUs(1_000_000).durationNs(1_000_000_000L).cpus(new int[] {0, 0, 0, 0, 0, 0, 0, 0}));
        assertTrue(m.contains("twice"), m);
        long heap = Runtime.getRuntime().maxMemory();
        if (8L * 1_000_000 <= heap / ParameterChecks.HEAP_SHARE_DIVISOR) {
            // This JVM's heap holds one million-bucket histogram: ask for more CPUs than it holds.
            int n = (int) (heap / ParameterChecks.HEAP_SHARE_DIVISOR / 8_000_000) + 1;
            int[] cpus = new int[n];
            for (int i = 0; i < n; i++) {
                cpus[i] = i;
            }
            m = refused(RunParameters.builder().durationNs(1_000_000_000L).histogramLimitUs(1_000_000).cpus(cpus));
        } else {
            m = refused(RunParameters.builder().durationNs(1_000_000_000L).histogramLimitUs(1_000_000)
                    .cpus(new int[] {0}));
        }
        assertTrue(m.contains("the run's histograms need") && m.contains("budget"), m);
        m = refused(RunParameters.builder().durationNs(150_000_000L * 60_000_000_000L).cpus(new int[] {0}));
        assertTrue(m.contains("is over the longest run of 7 days"), m);
    }
}
