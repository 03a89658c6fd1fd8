package rtbox.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import rtbox.api.result.CorrectedLatency;
import rtbox.api.result.Histogram;
import rtbox.api.result.ProbeResult;
import rtbox.api.result.RunReport;
import rtbox.api.result.SystemInfo;
import rtbox.api.result.ThreadResult;
import rtbox.api.result.Verdict;

/** The histogram as rt-tests' print_hist writes it (checked against Debian's cyclictest 2.40's output). */
class HistogramFileTest {
    private static ThreadResult thread(int index, long[] counts, long overflows, long[] overflowCycles) {
        long n = java.util.stream.LongStream.of(counts).sum() + overflows;
        Histogram h = new Histogram(1000, counts, overflows, n, 1_000, 9_400, 2_600, 2_000, 3_000, 9_000,
                overflowCycles);
        return new ThreadResult(index, index, 100 + index, "fifo", 90, n, 0, h,
                new CorrectedLatency(n, 2_000, 3_000, 9_000, 9_400, ""), List.of(), 0);
    }

    private static RunReport report(List<ThreadResult> threads) {
        ProbeResult r = new ProbeResult("timer", "", "CLOCK_MONOTONIC", 0, 1_000_000_000L, true, threads, Map.of(),
                List.of());
        return new RunReport(RunReport.SCHEMA, "run-1", 0, 1000, "rtbox run timer -h 4", r,
                new Histogram(1000, new long[4], 0, 0, 0, 0, 0, 0, 0, 0), List.of(), Map.of(), List.of(),
                new SystemInfo(Map.of()), new Verdict(Verdict.Outcome.MEASURED, List.of(), "no thresholds given"));
    }

    @Test
    void everyBucketZerosIncludedTabsBetweenThreadsAndTheOverflowCycles() {
        String text = Reports.histogramFile(report(List.of(
                thread(0, new long[] {0, 5, 0, 1}, 3, new long[] {2, 7, 9}),
                thread(1, new long[] {0, 0, 6, 0}, 6, new long[] {0, 1, 2, 3}))));
        assertEquals("""
                # Histogram
                000000 000000\t000000
                000001 000005\t000000
                000002 000000\t000006
                000003 000001\t000000
                # Total: 000000006 000000006
                # Min Latencies: 00001 00001
                # Avg Latencies: 00003 00003
                # Max Latencies: 00009 00009
                # Histogram Overflows: 00003 00006
                # Histogram Overflow at cycle number:
                # Thread 0: 00002 00007 00009
                # Thread 1: 00000 00001 00002 00003 # 00002 others

                """, text);
    }

    @Test
    void oneThreadHasNoTabAndAResultWithoutCyclesSaysTheyAreOthers() {
        String text = Reports.histogramFile(report(List.of(thread(0, new long[] {1, 0}, 2, null))));
        assertEquals(List.of("# Histogram", "000000 000001", "000001 000000"), text.lines().limit(3).toList());
        assertEquals(List.of("# Histogram Overflow at cycle number:", "# Thread 0: # 00002 others", ""),
                text.lines().skip(8).toList());
    }
}
